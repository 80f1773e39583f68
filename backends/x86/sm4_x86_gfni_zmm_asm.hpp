// The 32 rounds of the GFNI + AVX-512 SM4 kernel (sm4_gfni_avx512.cpp) on
// 2-12 groups of 8 blocks, in inline assembly with fixed zmm registers.
//
// Why assembly: with intrinsics GCC 12 spills state words to the stack from
// 7 groups on (4 zmm words per pair of groups, 28 of 32 registers), where no
// wipe reaches them. Here every state word lives in its own register for all
// 32 rounds and the asm touches no stack: the state comes from the batch's
// Rows array and goes back there (the modes wipe it, K::wipe).
//
// Registers: zmm0-2 the matrices F0, F1, F3 (broadcast once), zmm3 the
// shared XOR of two state words, zmm4-6 temporaries (zmm7 free), zmm8 + 4z
// + j word j of zmm group z (groups 2z and 2z+1 of the Rows array in its low
// and high 256 bits; an odd batch's last zmm has zeros in its high half).
// Round key words are broadcast from memory ({1to16}) into the S-box
// input's XOR.
//
// One round of one zmm group (HWACCEL_SM4Z_ROUND): the S-box input
// u = p ^ y ^ rk (a move and a VPTERNLOGD; p is shared by two rounds), three
// GF2P8AFFINEINVQB, three VPROLD, two VPTERNLOGD into the state word, as in
// sm4_gfni_avx512.cpp's evex_update.
//
// To be included inside sm4_gfni_avx512.cpp's "#pragma GCC target" region,
// after every shared header (hence the unnamed namespace).
#pragma once

#include <cstddef>
#include <cstdint>

#include "x86/sm4_x86_gfni_maths.hpp"

namespace hwaccel::x86::sm4x {
namespace {

// The three matrices, in memory for the broadcasts.
struct ZmmAsmConsts {
    uint64_t f0 = gfni::kF0, f1 = gfni::kF1, f3 = gfni::kF3;
};
constexpr ZmmAsmConsts kZmmAsm{};

// A ^= V(zmm3 ^ B ^ rk[K / 4]), zmm registers by number.
#define HWACCEL_SM4Z_ROUND(A, B, K)                                         \
    "vmovdqa64 %%zmm3, %%zmm4\n\t"                                          \
    "vpternlogd $0x96, " #K "(%[rk])%{1to16%}, %%zmm" #B ", %%zmm4\n\t"     \
    "vgf2p8affineinvqb %[c0], %%zmm0, %%zmm4, %%zmm5\n\t"                   \
    "vgf2p8affineinvqb %[c1], %%zmm1, %%zmm4, %%zmm6\n\t"                   \
    "vgf2p8affineinvqb %[c3], %%zmm2, %%zmm4, %%zmm4\n\t"                   \
    "vprold %[r3], %%zmm4, %%zmm4\n\t"                                      \
    "vpternlogd $0x96, %%zmm4, %%zmm5, %%zmm" #A "\n\t"                     \
    "vprold %[r1a], %%zmm6, %%zmm5\n\t"                                     \
    "vprold %[r1b], %%zmm6, %%zmm6\n\t"                                     \
    "vpternlogd $0x96, %%zmm6, %%zmm5, %%zmm" #A "\n\t"
// Rounds 4i, 4i+1 of zmm group z (words in registers a..d): p = y2 ^ y3.
#define HWACCEL_SM4Z_R01(z, a, b, c, d) \
    "vpxord %%zmm" #d ", %%zmm" #c ", %%zmm3\n\t" HWACCEL_SM4Z_ROUND(a, b, 0) HWACCEL_SM4Z_ROUND(b, a, 4)
// Rounds 4i+2, 4i+3: p = y0 ^ y1.
#define HWACCEL_SM4Z_R23(z, a, b, c, d) \
    "vpxord %%zmm" #b ", %%zmm" #a ", %%zmm3\n\t" HWACCEL_SM4Z_ROUND(c, d, 8) HWACCEL_SM4Z_ROUND(d, c, 12)

// Word j of zmm group z from / to the Rows array: group 2z at 256z + 32j,
// group 2z + 1 at 256z + 128 + 32j (the assembler sums the offsets). The
// "1" forms take group 2z only (an odd batch's last group).
#define HWACCEL_SM4Z_LD2(z, j, r)                                           \
    "vmovdqa64 256*" #z "+32*" #j "(%[st]), %%ymm" #r "\n\t"                \
    "vinserti64x4 $1, 256*" #z "+128+32*" #j "(%[st]), %%zmm" #r ", %%zmm" #r "\n\t"
#define HWACCEL_SM4Z_LD1(z, j, r) "vmovdqa64 256*" #z "+32*" #j "(%[st]), %%ymm" #r "\n\t"
#define HWACCEL_SM4Z_ST2(z, j, r)                                           \
    "vmovdqa64 %%ymm" #r ", 256*" #z "+32*" #j "(%[st])\n\t"                \
    "vextracti64x4 $1, %%zmm" #r ", 256*" #z "+128+32*" #j "(%[st])\n\t"
#define HWACCEL_SM4Z_ST1(z, j, r) "vmovdqa64 %%ymm" #r ", 256*" #z "+32*" #j "(%[st])\n\t"
#define HWACCEL_SM4Z_WORDS(M, z, a, b, c, d) M(z, 0, a) M(z, 1, b) M(z, 2, c) M(z, 3, d)
#define HWACCEL_SM4Z_LOAD2(z, a, b, c, d) HWACCEL_SM4Z_WORDS(HWACCEL_SM4Z_LD2, z, a, b, c, d)
#define HWACCEL_SM4Z_LOAD1(z, a, b, c, d) HWACCEL_SM4Z_WORDS(HWACCEL_SM4Z_LD1, z, a, b, c, d)
#define HWACCEL_SM4Z_STORE2(z, a, b, c, d) HWACCEL_SM4Z_WORDS(HWACCEL_SM4Z_ST2, z, a, b, c, d)
#define HWACCEL_SM4Z_STORE1(z, a, b, c, d) HWACCEL_SM4Z_WORDS(HWACCEL_SM4Z_ST1, z, a, b, c, d)

// zmm group z and its registers; Z<n> applies W to zmm groups 0..n-1.
#define HWACCEL_SM4Z_G0(W) W(0, 8, 9, 10, 11)
#define HWACCEL_SM4Z_G1(W) W(1, 12, 13, 14, 15)
#define HWACCEL_SM4Z_G2(W) W(2, 16, 17, 18, 19)
#define HWACCEL_SM4Z_G3(W) W(3, 20, 21, 22, 23)
#define HWACCEL_SM4Z_G4(W) W(4, 24, 25, 26, 27)
#define HWACCEL_SM4Z_G5(W) W(5, 28, 29, 30, 31)
#define HWACCEL_SM4Z_Z1(W) HWACCEL_SM4Z_G0(W)
#define HWACCEL_SM4Z_Z2(W) HWACCEL_SM4Z_Z1(W) HWACCEL_SM4Z_G1(W)
#define HWACCEL_SM4Z_Z3(W) HWACCEL_SM4Z_Z2(W) HWACCEL_SM4Z_G2(W)
#define HWACCEL_SM4Z_Z4(W) HWACCEL_SM4Z_Z3(W) HWACCEL_SM4Z_G3(W)
#define HWACCEL_SM4Z_Z5(W) HWACCEL_SM4Z_Z4(W) HWACCEL_SM4Z_G4(W)
#define HWACCEL_SM4Z_Z6(W) HWACCEL_SM4Z_Z5(W) HWACCEL_SM4Z_G5(W)

#define HWACCEL_SM4Z_KERNEL(LOAD, R01, R23, STORE)                                                        \
    __asm__ volatile("vpbroadcastq 0(%[m]), %%zmm0\n\t"                                                  \
                     "vpbroadcastq 8(%[m]), %%zmm1\n\t"                                                  \
                     "vpbroadcastq 16(%[m]), %%zmm2\n\t" LOAD                                            \
                     "1:\n\t" R01 R23                                                                    \
                     "add $16, %[rk]\n\t"                                                                \
                     "dec %[n]\n\t"                                                                      \
                     "jnz 1b\n\t" STORE                                                                  \
                     : [rk] "+r"(rk), [n] "+r"(n)                                                        \
                     : [st] "r"(st), [m] "r"(&kZmmAsm), [c0] "i"(gfni::kF0c), [c1] "i"(gfni::kF1c),      \
                       [c3] "i"(gfni::kF3c), [r3] "i"(gfni::kLaneRol24), [r1a] "i"(gfni::kLaneRol8),     \
                       [r1b] "i"(gfni::kLaneRol16)                                                       \
                     : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",  \
                       "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16",   \
                       "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25",  \
                       "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31")
// A batch of 2n groups, and of 2n + 1 (the last group alone in its zmm).
#define HWACCEL_SM4Z_EVEN(ZN) \
    HWACCEL_SM4Z_KERNEL(ZN(HWACCEL_SM4Z_LOAD2), ZN(HWACCEL_SM4Z_R01), ZN(HWACCEL_SM4Z_R23), ZN(HWACCEL_SM4Z_STORE2))
#define HWACCEL_SM4Z_ODD(ZN, GLAST, ZN1)                                                              \
    HWACCEL_SM4Z_KERNEL(ZN(HWACCEL_SM4Z_LOAD2) GLAST(HWACCEL_SM4Z_LOAD1), ZN1(HWACCEL_SM4Z_R01),     \
                        ZN1(HWACCEL_SM4Z_R23), ZN(HWACCEL_SM4Z_STORE2) GLAST(HWACCEL_SM4Z_STORE1))
#define HWACCEL_SM4Z_Z0(W)

// 32 rounds on the G groups at st (Rows layout: 128 bytes a group, 32-byte
// aligned), in place; rkg: the 32 GFNI round keys (GfniKeys::k).
template <int G>
HWACCEL_SM4_INLINE void gfni_zmm_kernel(uint8_t* st, const uint32_t* rkg) {
    static_assert(G >= 1 && G <= 12, "2-12 groups (one also works)");
    const uint32_t* rk = rkg;
    size_t n = 8;
    if constexpr (G == 1) HWACCEL_SM4Z_ODD(HWACCEL_SM4Z_Z0, HWACCEL_SM4Z_G0, HWACCEL_SM4Z_Z1);
    else if constexpr (G == 2) HWACCEL_SM4Z_EVEN(HWACCEL_SM4Z_Z1);
    else if constexpr (G == 3) HWACCEL_SM4Z_ODD(HWACCEL_SM4Z_Z1, HWACCEL_SM4Z_G1, HWACCEL_SM4Z_Z2);
    else if constexpr (G == 4) HWACCEL_SM4Z_EVEN(HWACCEL_SM4Z_Z2);
    else if constexpr (G == 5) HWACCEL_SM4Z_ODD(HWACCEL_SM4Z_Z2, HWACCEL_SM4Z_G2, HWACCEL_SM4Z_Z3);
    else if constexpr (G == 6) HWACCEL_SM4Z_EVEN(HWACCEL_SM4Z_Z3);
    else if constexpr (G == 7) HWACCEL_SM4Z_ODD(HWACCEL_SM4Z_Z3, HWACCEL_SM4Z_G3, HWACCEL_SM4Z_Z4);
    else if constexpr (G == 8) HWACCEL_SM4Z_EVEN(HWACCEL_SM4Z_Z4);
    else if constexpr (G == 9) HWACCEL_SM4Z_ODD(HWACCEL_SM4Z_Z4, HWACCEL_SM4Z_G4, HWACCEL_SM4Z_Z5);
    else if constexpr (G == 10) HWACCEL_SM4Z_EVEN(HWACCEL_SM4Z_Z5);
    else if constexpr (G == 11) HWACCEL_SM4Z_ODD(HWACCEL_SM4Z_Z5, HWACCEL_SM4Z_G5, HWACCEL_SM4Z_Z6);
    else HWACCEL_SM4Z_EVEN(HWACCEL_SM4Z_Z6);
}

}  // namespace
}  // namespace hwaccel::x86::sm4x
