// Issuing one KIMD/KLMD from a test with chosen register contents and
// condition code, and reading back GR0..GR7 and the condition code: the same
// instruction goes to qemu (or the hardware) and, through a trap, to the
// model, so the two can be compared register for register.
#pragma once

#include <cstdint>

namespace hwaccel::test {

struct Issue {
    uint64_t gr[8] = {};
    unsigned cc = 0;
};

// One issue, no cc=3 loop. SPM sets the condition code beforehand (from bits
// 34-35; the program mask, bits 36-39, stays 0 as Linux has it) and IPM reads
// it afterwards.
#define HWACCEL_DEFINE_ISSUE(name, insn)                                                      \
    inline Issue name(const Issue& in) {                                                      \
        register uint64_t r0 asm("0") = in.gr[0];                                             \
        register uint64_t r1 asm("1") = in.gr[1];                                             \
        register uint64_t r2 asm("2") = in.gr[2];                                             \
        register uint64_t r3 asm("3") = in.gr[3];                                             \
        register uint64_t r4 asm("4") = in.gr[4];                                             \
        register uint64_t r5 asm("5") = in.gr[5];                                             \
        register uint64_t r6 asm("6") = in.gr[6];                                             \
        register uint64_t r7 asm("7") = in.gr[7];                                             \
        uint64_t cc_word = static_cast<uint64_t>(in.cc & 3) << 28;                            \
        asm volatile("spm %[ccw]\n\t" insn "\n\tipm %[ccw]"                                   \
                     : "+d"(r0), "+d"(r1), "+d"(r2), "+d"(r3), "+d"(r4), "+d"(r5), "+d"(r6),  \
                       "+d"(r7), [ccw] "+d"(cc_word)                                          \
                     :                                                                        \
                     : "cc", "memory");                                                       \
        Issue out;                                                                            \
        out.gr[0] = r0;                                                                       \
        out.gr[1] = r1;                                                                       \
        out.gr[2] = r2;                                                                       \
        out.gr[3] = r3;                                                                       \
        out.gr[4] = r4;                                                                       \
        out.gr[5] = r5;                                                                       \
        out.gr[6] = r6;                                                                       \
        out.gr[7] = r7;                                                                       \
        out.cc = static_cast<unsigned>(cc_word >> 28) & 3;                                    \
        return out;                                                                           \
    }

HWACCEL_DEFINE_ISSUE(kimd_0_2, ".insn rre,0xb93e0000,0,2")
HWACCEL_DEFINE_ISSUE(kimd_0_6, ".insn rre,0xb93e0000,0,6")
HWACCEL_DEFINE_ISSUE(klmd_0_2, ".insn rre,0xb93f0000,0,2")
HWACCEL_DEFINE_ISSUE(klmd_0_6, ".insn rre,0xb93f0000,0,6")
HWACCEL_DEFINE_ISSUE(klmd_4_2, ".insn rre,0xb93f0000,4,2")
HWACCEL_DEFINE_ISSUE(klmd_6_4, ".insn rre,0xb93f0000,6,4")
// Malformed on purpose: odd and zero second-operand registers.
HWACCEL_DEFINE_ISSUE(kimd_0_3, ".insn rre,0xb93e0000,0,3")
HWACCEL_DEFINE_ISSUE(kimd_0_0, ".insn rre,0xb93e0000,0,0")
HWACCEL_DEFINE_ISSUE(klmd_5_2, ".insn rre,0xb93f0000,5,2")

#undef HWACCEL_DEFINE_ISSUE

// The four instruction bytes of each, for handing the same instruction to
// the model's execute().
constexpr uint8_t kKimd_0_2[4] = {0xb9, 0x3e, 0x00, 0x02};
constexpr uint8_t kKimd_0_6[4] = {0xb9, 0x3e, 0x00, 0x06};
constexpr uint8_t kKlmd_0_2[4] = {0xb9, 0x3f, 0x00, 0x02};
constexpr uint8_t kKlmd_0_6[4] = {0xb9, 0x3f, 0x00, 0x06};
constexpr uint8_t kKlmd_4_2[4] = {0xb9, 0x3f, 0x00, 0x42};
constexpr uint8_t kKlmd_6_4[4] = {0xb9, 0x3f, 0x00, 0x64};
constexpr uint8_t kKimd_0_3[4] = {0xb9, 0x3e, 0x00, 0x03};
constexpr uint8_t kKimd_0_0[4] = {0xb9, 0x3e, 0x00, 0x00};
constexpr uint8_t kKlmd_5_2[4] = {0xb9, 0x3f, 0x00, 0x52};

}  // namespace hwaccel::test
