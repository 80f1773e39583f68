// Decoder for the VEX-encoded GFNI affine instructions the model performs:
//   VEX.128/256.66.0F3A.W1 CE /r ib   vgf2p8affineqb    xmm1/ymm1, xmm2/ymm2, xmm3/ymm3/m128/m256, imm8
//   VEX.128/256.66.0F3A.W1 CF /r ib   vgf2p8affineinvqb (the same operands)
// (Intel SDM vol. 2A). Only the three-byte VEX prefix can name map 0F3A.
// Operands: ModRM.reg (extended by VEX.R) is the destination, VEX.vvvv the
// data (SRC1), ModRM.r/m (VEX.B, and VEX.X for a SIB index) the matrices
// (SRC2), in a register or in memory with any 64-bit ModRM/SIB/displacement
// form, RIP-relative included.
//
// Not decoded (so the model lets them raise SIGILL as before): legacy
// prefixes in front of VEX (the address-size prefix 67 and segment overrides
// are legal there but no engine emits them), the two-byte VEX form (cannot
// encode map 0F3A), VEX.W0 (not in the SDM's table), the legacy-SSE and
// EVEX forms.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gfni_affine.hpp"

namespace hwaccel::test::gfni {

struct Instruction {
    Op op = Op::kAffine;
    size_t vector_bytes = 16;  // 16 (VEX.L = 0, xmm) or 32 (VEX.L = 1, ymm)
    int dst = 0;               // ModRM.reg + VEX.R: xmm/ymm 0..15
    int src1 = 0;              // VEX.vvvv: xmm/ymm 0..15
    bool src2_in_memory = false;
    int src2 = 0;  // register form: ModRM.r/m + VEX.B
    // Memory form: address = base + index * scale + displacement, or
    // RIP-relative: the address of the next instruction + displacement.
    bool rip_relative = false;
    int base = -1;   // general-purpose register 0..15 (RAX, RCX, ..., R15), -1 none
    int index = -1;  // -1 none
    int scale = 1;
    int64_t displacement = 0;
    uint8_t imm8 = 0;
    size_t length = 0;  // bytes, so the model can resume after it
};

// Decodes the instruction at p; false if it is not one of the two above.
// Reads only the bytes of the instruction (never past a would-be end), in
// order, so p may sit at the end of a mapping.
bool decode(const uint8_t* p, Instruction& insn);

// The memory operand's address, given the general-purpose registers (index
// 0..15 as in the encoding) and the instruction's own address.
uint64_t effective_address(const Instruction& insn, const uint64_t gpr[16], uint64_t rip);

}  // namespace hwaccel::test::gfni
