// GF2P8AFFINEQB and GF2P8AFFINEINVQB as a pure function on byte arrays, the
// semantics the GFNI instruction model (gfni_model.hpp) applies. Test-only.
//
// Written from the Intel SDM's description (vol. 2A, "GF2P8AFFINEQB" and
// "GF2P8AFFINEINVQB"), not from any engine:
//   affine_byte(A, x, imm8): bit i of the result =
//       parity(A.byte[7 - i] AND x) XOR imm8.bit[i],          i = 0..7
//   DEST.qword[j].byte[b] = affine_byte(SRC2.qword[j], SRC1.qword[j].byte[b], imm8)
// where SRC1 is VEX.vvvv (the data), SRC2 is ModRM.r/m (the matrices, one per
// 64-bit lane). The INV form first replaces x by its inverse in GF(2^8)
// modulo x^8 + x^4 + x^3 + x + 1 (0x11B), with 0 mapped to 0.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwaccel::test::gfni {

enum class Op { kAffine, kAffineInverse };  // opcode CE, CF

// The multiplicative inverse in GF(2^8) mod 0x11B; 0 -> 0.
uint8_t gf_inverse(uint8_t x);

// One byte through one 8x8 bit matrix (the qword `matrix`) and constant.
uint8_t affine_byte(uint64_t matrix, uint8_t x, uint8_t imm8);

// dst[k] for k < bytes (a multiple of 8): src1 the data, src2 the matrices
// (little-endian qwords, as in a register). dst may alias src1 or src2.
void gf2p8affine(Op op, const uint8_t* src1, const uint8_t* src2, uint8_t imm8, size_t bytes,
                 uint8_t* dst);

}  // namespace hwaccel::test::gfni
