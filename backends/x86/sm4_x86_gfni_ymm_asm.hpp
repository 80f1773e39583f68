// The 32 rounds of the GFNI + AVX2 SM4 kernel (sm4_gfni_avx2.cpp) on 1-4
// groups of 8 blocks, in inline assembly with fixed ymm registers.
//
// Why assembly: with intrinsics GCC 12 keeps the 16 state words of 4 groups
// in the 16 ymm registers it has, and spills state words and broadcast round
// keys into the mode function's frame (up to 1864 bytes), which then needed
// a 2048-byte stack wipe after every bulk call. Here the compiler holds
// neither: the state lives in the batch's Rows array (the modes wipe it,
// K::wipe), each group's newest word in a register, and the round keys are
// broadcast from memory inside the asm. As the AESENCLAST kernel
// (sm4_x86_kernel.hpp), whose layout this shares.
//
// Registers: ymm13-15 the matrices F0, F1, F3, ymm10-12 the byte rotations
// rol8, rol16, rol24 (PSHUFB masks), ymm8/ymm9 two round keys, ymm4-7 the
// newest word of groups 0-3, ymm0-3 temporaries.
//
// One round of one group (HWACCEL_SM4G_ROUND): u = B ^ C ^ rk ^ N (a load
// and three XORs), three GF2P8AFFINEINVQB, three PSHUFB, four XORs into the
// new word, its store: sm4_x86_gfni_kernel.hpp's avx2_update.
//
// To be included inside sm4_gfni_avx2.cpp's "#pragma GCC target" region,
// after every shared header (hence the unnamed namespace).
#pragma once

#include <cstddef>
#include <cstdint>

#include "x86/sm4_x86_gfni_maths.hpp"
#include "x86/sm4_x86_simd.hpp"

namespace hwaccel::x86::sm4x {
namespace {

// The matrices (broadcast as qwords) and the rotations (as 128-bit lanes).
struct YmmAsmConsts {
    uint64_t f0 = gfni::kF0, f1 = gfni::kF1, f3 = gfni::kF3, pad = 0;  // 0, 8, 16
    gfni::Shuffle16 rol8 = gfni::kRol8, rol16 = gfni::kRol16, rol24 = gfni::kRol24;  // 32, 48, 64
};
constexpr YmmAsmConsts kYmmAsm{};
static_assert(offsetof(YmmAsmConsts, rol8) == 32 && offsetof(YmmAsmConsts, rol24) == 64, "asm offsets");

// Slot A ^= V(slot B ^ slot C ^ rk ^ N), N the group's newest word (in a
// register, off memory: the chain from round to round never goes through a
// store and a load); the new word to slot A and to N.
#define HWACCEL_SM4G_ROUND(RK, N, A, B, C)                       \
    "vmovdqa " B "(%[st]), %%ymm0\n\t"                           \
    "vpxor " C "(%[st]), %%ymm0, %%ymm0\n\t"                     \
    "vpxor %%" RK ", %%ymm0, %%ymm0\n\t"                         \
    "vpxor %%" N ", %%ymm0, %%ymm0\n\t"                          \
    "vgf2p8affineinvqb %[c0], %%ymm13, %%ymm0, %%ymm1\n\t"       \
    "vgf2p8affineinvqb %[c1], %%ymm14, %%ymm0, %%ymm2\n\t"       \
    "vgf2p8affineinvqb %[c3], %%ymm15, %%ymm0, %%ymm0\n\t"       \
    "vpxor " A "(%[st]), %%ymm1, %%ymm1\n\t"                     \
    "vpshufb %%ymm12, %%ymm0, %%ymm0\n\t"                        \
    "vpshufb %%ymm10, %%ymm2, %%ymm3\n\t"                        \
    "vpshufb %%ymm11, %%ymm2, %%ymm2\n\t"                        \
    "vpxor %%ymm0, %%ymm1, %%ymm1\n\t"                           \
    "vpxor %%ymm3, %%ymm2, %%ymm2\n\t"                           \
    "vpxor %%ymm2, %%ymm1, %%" N "\n\t"                          \
    "vmovdqa %%" N ", " A "(%[st])\n\t"

// Group g's words at st + 128 g + 32 j; its newest word in ymm(4 + g).
#define HWACCEL_SM4G_GROUP0 "ymm4", "0", "32", "64", "96"
#define HWACCEL_SM4G_GROUP1 "ymm5", "128", "160", "192", "224"
#define HWACCEL_SM4G_GROUP2 "ymm6", "256", "288", "320", "352"
#define HWACCEL_SM4G_GROUP3 "ymm7", "384", "416", "448", "480"
// Round j of an iteration updates word j from words j+1, j+2 and the
// newest, j+3 (mod 4). Round keys in ymm9, ymm8, ymm9, ymm8.
#define HWACCEL_SM4G_J0(N, w0, w1, w2, w3) HWACCEL_SM4G_ROUND("ymm9", N, w0, w1, w2)
#define HWACCEL_SM4G_J1(N, w0, w1, w2, w3) HWACCEL_SM4G_ROUND("ymm8", N, w1, w2, w3)
#define HWACCEL_SM4G_J2(N, w0, w1, w2, w3) HWACCEL_SM4G_ROUND("ymm9", N, w2, w3, w0)
#define HWACCEL_SM4G_J3(N, w0, w1, w2, w3) HWACCEL_SM4G_ROUND("ymm8", N, w3, w0, w1)
#define HWACCEL_SM4G_LOADN(N, w0, w1, w2, w3) "vmovdqa " w3 "(%[st]), %%" N "\n\t"
#define HWACCEL_SM4G_CALL(M, ...) M(__VA_ARGS__)
#define HWACCEL_SM4G_H(W, g) HWACCEL_SM4G_CALL(W, HWACCEL_SM4G_GROUP##g)
#define HWACCEL_SM4G_G1(W) HWACCEL_SM4G_H(W, 0)
#define HWACCEL_SM4G_G2(W) HWACCEL_SM4G_G1(W) HWACCEL_SM4G_H(W, 1)
#define HWACCEL_SM4G_G3(W) HWACCEL_SM4G_G2(W) HWACCEL_SM4G_H(W, 2)
#define HWACCEL_SM4G_G4(W) HWACCEL_SM4G_G3(W) HWACCEL_SM4G_H(W, 3)

#define HWACCEL_SM4G_KERNEL(GS)                                                                        \
    __asm__ volatile("vpbroadcastq 0(%[m]), %%ymm13\n\t"                                              \
                     "vpbroadcastq 8(%[m]), %%ymm14\n\t"                                              \
                     "vpbroadcastq 16(%[m]), %%ymm15\n\t"                                             \
                     "vbroadcasti128 32(%[m]), %%ymm10\n\t"                                           \
                     "vbroadcasti128 48(%[m]), %%ymm11\n\t"                                           \
                     "vbroadcasti128 64(%[m]), %%ymm12\n\t" GS(HWACCEL_SM4G_LOADN)                    \
                     "1:\n\t"                                                                         \
                     "vpbroadcastd 0(%[rk]), %%ymm9\n\t"                                              \
                     "vpbroadcastd 4(%[rk]), %%ymm8\n\t" GS(HWACCEL_SM4G_J0) GS(HWACCEL_SM4G_J1)      \
                     "vpbroadcastd 8(%[rk]), %%ymm9\n\t"                                              \
                     "vpbroadcastd 12(%[rk]), %%ymm8\n\t" GS(HWACCEL_SM4G_J2) GS(HWACCEL_SM4G_J3)     \
                     "add $16, %[rk]\n\t"                                                             \
                     "dec %[n]\n\t"                                                                   \
                     "jnz 1b\n\t"                                                                     \
                     : [rk] "+r"(rk), [n] "+r"(n)                                                     \
                     : [st] "r"(st), [m] "r"(&kYmmAsm), [c0] "i"(gfni::kF0c), [c1] "i"(gfni::kF1c),  \
                       [c3] "i"(gfni::kF3c)                                                           \
                     : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", \
                       "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15")

// 32 rounds on the G groups at st (Rows layout: 128 bytes a group, 32-byte
// aligned), in place; rkg: the 32 GFNI round keys (GfniKeys::k).
template <int G>
HWACCEL_SM4_INLINE void gfni_ymm_kernel(uint8_t* st, const uint32_t* rkg) {
    static_assert(G >= 1 && G <= 4, "1-4 groups");
    const uint32_t* rk = rkg;
    size_t n = 8;
    if constexpr (G == 1) HWACCEL_SM4G_KERNEL(HWACCEL_SM4G_G1);
    else if constexpr (G == 2) HWACCEL_SM4G_KERNEL(HWACCEL_SM4G_G2);
    else if constexpr (G == 3) HWACCEL_SM4G_KERNEL(HWACCEL_SM4G_G3);
    else HWACCEL_SM4G_KERNEL(HWACCEL_SM4G_G4);
}

}  // namespace
}  // namespace hwaccel::x86::sm4x
