// The tests' own encoder for the two instructions (the other direction of
// vex_gfni_decode.hpp, written separately from the SDM's encoding tables), so
// the frame test can produce every operand form and know what it asked for.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hwaccel::test::gfni {

struct Form {
    bool inverse = false;  // CF (vgf2p8affineinvqb) or CE
    bool ymm = false;      // VEX.L
    int dst = 0, src1 = 0;
    enum Kind { kRegister, kBase, kBaseIndex, kIndexOnly, kAbsolute, kRipRelative } kind = kRegister;
    int src2 = 0;  // kRegister
    int base = 0, index = 0, scale_log2 = 0;
    int disp_bytes = 0;  // 0, 1, 4 (forced where the encoding needs one)
    int32_t disp = 0;
    bool vex_b = false;  // for kIndexOnly/kAbsolute/kRipRelative: a VEX.B the CPU must ignore
    uint8_t imm8 = 0;
};

// The instruction's bytes. For kBase with base RSP/R12 a SIB byte with no
// index is emitted (its scale field = scale_log2, which the CPU ignores);
// RBP/R13 without displacement get a zero disp8.
std::vector<uint8_t> encode(const Form& f);

// Byte offset of the 32-bit displacement in encode(f), for kRipRelative.
size_t disp32_offset(const Form& f);

}  // namespace hwaccel::test::gfni
