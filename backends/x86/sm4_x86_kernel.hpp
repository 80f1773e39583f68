// The bulk kernel of the x86 SM4 engines that compute the S-box with
// AESENCLAST (sm4_x86_maths.hpp has the method): 32 rounds on 1-4 groups of
// 8 blocks, for two AES instruction sets: VAES (one 256-bit VAESENCLAST per
// group and round, sm4_vaes.cpp) and AES-NI (two VEX-128 AESENCLAST,
// sm4_aesni.cpp). AesKernel<kVaes> is what the modes (sm4_x86_modes.hpp)
// take, aes_engine<kVaes> the engine table; an engine file instantiates them
// inside its "#pragma GCC target" region, after every shared header (hence
// the unnamed namespace).
//
// Layout: 4x4 32-bit transpose per 128-bit lane, so register j of a group
// holds word j of 8 blocks; a group is 8 blocks (one ymm per word), in the M
// domain. Batches of 9-32 blocks (2-4 groups) run in the assembly kernel, a
// single group in the register-resident one (see kRegisterGroups). Neither
// lets the compiler hold a round key during the rounds (only the Keys
// array's constructor computes them, into that array, which wipes itself),
// so none is spilled to the stack.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/wipe_stack.hpp"
#include "x86/sm4_x86_block.hpp"
#include "x86/sm4_x86_maths.hpp"
#include "x86/sm4_x86_modes.hpp"
#include "x86/sm4_x86_simd.hpp"

namespace hwaccel::x86::sm4x {
namespace {

// Round keys of the bulk path: M rk ^ c1, bytes in memory order.
struct AesKeyForm {
    static HWACCEL_SM4_INLINE __m256i words(__m256i rk) { return affine256(rk, kMC1Lo, kMHi); }
};
using BulkKeys = KernelRoundKeys<AesKeyForm>;

// Batches of up to this many groups run register-resident
// (kernel_in_registers, which takes one), longer ones in the assembly
// kernel. Since the kernel keeps each group's newest word in a register it
// wins from two groups on (about a quarter faster at 9-16 blocks, a tenth
// at 17-24, on both engines); one group (2-8 blocks) costs the same either
// way (measured with the intrinsics it replaced) and stays in registers. Measure with
// `hwaccel-engine-bench vaes-avx2 aesni-avx2` after changing this.
constexpr int kRegisterGroups = 1;

// --- the bulk round kernel (inline assembly) --------------------------------------
//
// Why assembly: with intrinsics GCC keeps the 16 state registers of 4 groups
// in ymm registers it does not have and spills them around every round
// (measured: AES-NI about 20% slower, VAES about equal). Here the
// state lives in memory (the batch's Rows array) and is used as memory
// operands, except each group's newest word; the 16 ymm registers hold the 4
// look-up tables (ymm10-13), the AESENCLAST key (ymm14), the nibble mask
// (ymm15), two round keys (ymm8, ymm9), the newest word of the 4 groups
// (ymm4-7) and temporaries (ymm0-3).
//
// One group and round (HWACCEL_SM4_ROUND), 25 vector ops: 3 xors and a load
// forming t, AESENCLAST, split (PSRLW + 2 PAND), 4 PSHUFB look-ups giving u0
// and u2, u1 = u0 ^ u2 (T1 = T0 ^ T2), the 4 byte shuffles P0..P3 (memory
// operands), 4 xors into the new word, its store. The kernel runs within a
// few percent of this op mix measured alone with no dependencies at all, so
// fewer ops per round, not scheduling, is what would make it faster.

struct Mask32 {
    alignas(32) uint8_t b[32];
};
constexpr Mask32 dup(const Table16& t) {
    Mask32 m{};
    for (int i = 0; i < 32; ++i) m.b[i] = t.b[i & 15];
    return m;
}
struct KernelConsts {
    Mask32 p[4];                            // 0, 32, 64, 96: P0..P3
    Table16 u0l, u0h, u2l, u2h, m0f, key;   // 128, 144, ...: broadcast at entry
};
constexpr KernelConsts kKernel = {
    {dup(kP0), dup(kP1), dup(kP2), dup(kP3)},
    kU0Lo, kU0Hi, kU2Lo, kU2Hi,
    {{0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F}},
    {{kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc}},
};
static_assert(offsetof(KernelConsts, u0l) == 128 && offsetof(KernelConsts, key) == 208, "asm offsets");

#define HWACCEL_SM4_AES_VAES "vaesenclast %%ymm14, %%ymm0, %%ymm0\n\t"
// Without VAES: two 128-bit AESENCLAST per ymm (VEX AESENCLAST clears the
// upper half, VINSERTI128 puts it back).
#define HWACCEL_SM4_AES_AESNI                \
    "vextracti128 $1, %%ymm0, %%xmm1\n\t"    \
    "vaesenclast %%xmm14, %%xmm0, %%xmm0\n\t" \
    "vaesenclast %%xmm14, %%xmm1, %%xmm1\n\t" \
    "vinserti128 $1, %%xmm1, %%ymm0, %%ymm0\n\t"

// The S-box's AES form and the nibble mask into ymm10-15 (kKernel at %[c]),
// the start of both kernels' assembly.
#define HWACCEL_SM4_LOAD_TABLES                  \
    "vbroadcasti128 128(%[c]), %%ymm13\n\t"       \
    "vbroadcasti128 144(%[c]), %%ymm12\n\t"       \
    "vbroadcasti128 160(%[c]), %%ymm11\n\t"       \
    "vbroadcasti128 176(%[c]), %%ymm10\n\t"       \
    "vbroadcasti128 192(%[c]), %%ymm15\n\t"       \
    "vbroadcasti128 208(%[c]), %%ymm14\n\t"

// The S-box and L of one round, shared by both kernels: t in ymm0 in; out
// ymm2 = L's first term, ymm1, ymm3 and ymm0 the other three (ymm0-3
// clobbered; the AES form of the S-box in ymm10-15, kKernel at %[c]).
#define HWACCEL_SM4_ROUND_F(AES)                \
    AES                                         \
    "vpsrlw $4, %%ymm0, %%ymm1\n\t"             \
    "vpand %%ymm15, %%ymm0, %%ymm0\n\t"         \
    "vpand %%ymm15, %%ymm1, %%ymm1\n\t"         \
    "vpshufb %%ymm0, %%ymm13, %%ymm2\n\t"       \
    "vpshufb %%ymm0, %%ymm11, %%ymm0\n\t"       \
    "vpshufb %%ymm1, %%ymm12, %%ymm3\n\t"       \
    "vpshufb %%ymm1, %%ymm10, %%ymm1\n\t"       \
    "vpxor %%ymm3, %%ymm2, %%ymm2\n\t"          \
    "vpxor %%ymm1, %%ymm0, %%ymm0\n\t"          \
    "vpxor %%ymm0, %%ymm2, %%ymm1\n\t"          \
    "vpshufb 32(%[c]), %%ymm1, %%ymm1\n\t"      \
    "vpshufb 0(%[c]), %%ymm2, %%ymm2\n\t"       \
    "vpshufb 64(%[c]), %%ymm0, %%ymm3\n\t"      \
    "vpshufb 96(%[c]), %%ymm0, %%ymm0\n\t"

// One round of one group: slot A ^= F(slot B ^ slot C ^ rk ^ N), N the
// group's newest word (the slot the group's previous round wrote), kept in a
// register so that the chain from one round to the next never goes through
// memory (a store-to-load round trip on it measured about a third slower
// per group and round). Slots B and C were written two and three
// rounds back: their loads are off the chain. The new word goes to slot A
// and to N. 25 ops; the chain is xor, AESENCLAST, split, look-up, two xors,
// shuffle, two xors: about half of the 4 groups' port work per round, so
// the chains overlap.
#define HWACCEL_SM4_ROUND(AES, RK, N, A, B, C)  \
    "vmovdqa " B "(%[st]), %%ymm0\n\t"          \
    "vpxor " C "(%[st]), %%ymm0, %%ymm0\n\t"    \
    "vpxor %%" RK ", %%ymm0, %%ymm0\n\t"        \
    "vpxor %%" N ", %%ymm0, %%ymm0\n\t"         \
    HWACCEL_SM4_ROUND_F(AES)                    \
    "vpxor " A "(%[st]), %%ymm2, %%ymm2\n\t"    \
    "vpxor %%ymm3, %%ymm0, %%ymm0\n\t"          \
    "vpxor %%ymm0, %%ymm2, %%ymm2\n\t"          \
    "vpxor %%ymm1, %%ymm2, %%" N "\n\t"         \
    "vmovdqa %%" N ", " A "(%[st])\n\t"

// Group g's words at st + 128 g + 32 j; its newest word in ymm(4 + g).
#define HWACCEL_SM4_GROUP0 "ymm4", "0", "32", "64", "96"
#define HWACCEL_SM4_GROUP1 "ymm5", "128", "160", "192", "224"
#define HWACCEL_SM4_GROUP2 "ymm6", "256", "288", "320", "352"
#define HWACCEL_SM4_GROUP3 "ymm7", "384", "416", "448", "480"
// Round j of a loop iteration updates word j from words j+1, j+2 and the
// newest, word j+3 (mod 4). Round keys in ymm9, ymm8, ymm9, ymm8.
#define HWACCEL_SM4_J0(AES, N, w0, w1, w2, w3) HWACCEL_SM4_ROUND(AES, "ymm9", N, w0, w1, w2)
#define HWACCEL_SM4_J1(AES, N, w0, w1, w2, w3) HWACCEL_SM4_ROUND(AES, "ymm8", N, w1, w2, w3)
#define HWACCEL_SM4_J2(AES, N, w0, w1, w2, w3) HWACCEL_SM4_ROUND(AES, "ymm9", N, w2, w3, w0)
#define HWACCEL_SM4_J3(AES, N, w0, w1, w2, w3) HWACCEL_SM4_ROUND(AES, "ymm8", N, w3, w0, w1)
#define HWACCEL_SM4_LOADN(AES, N, w0, w1, w2, w3) "vmovdqa " w3 "(%[st]), %%" N "\n\t"
#define HWACCEL_SM4_CALL(M, ...) M(__VA_ARGS__)

#define HWACCEL_SM4_KERNEL(LOADN, ROUND0, ROUND1, ROUND2, ROUND3)          \
    __asm__ volatile(                                                    \
        HWACCEL_SM4_LOAD_TABLES                                          \
        LOADN                                                            \
        "1:\n\t"                                                         \
        "vpbroadcastd 0(%[rk]), %%ymm9\n\t"                              \
        "vpbroadcastd 4(%[rk]), %%ymm8\n\t"                              \
        ROUND0 ROUND1                                                    \
        "vpbroadcastd 8(%[rk]), %%ymm9\n\t"                              \
        "vpbroadcastd 12(%[rk]), %%ymm8\n\t"                             \
        ROUND2 ROUND3                                                    \
        "add $16, %[rk]\n\t"                                             \
        "dec %[n]\n\t"                                                   \
        "jnz 1b\n\t"                                                     \
        : [rk] "+r"(rk), [n] "+r"(n)                                     \
        : [st] "r"(st), [c] "r"(&kKernel)                                \
        : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", \
          "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",     \
          "xmm13", "xmm14", "xmm15")

// 32 rounds on G groups kept at st (128 bytes each, 32-byte aligned); rkm:
// the 32 round keys M rk ^ c1 in memory byte order.
template <bool kVaes, int G>
HWACCEL_SM4_INLINE void kernel(uint8_t* st, const uint32_t* rkm) {
    const uint32_t* rk = rkm;
    size_t n = 8;
#define HWACCEL_SM4_H(AES, W, g) HWACCEL_SM4_CALL(W, AES, HWACCEL_SM4_GROUP##g)
#define HWACCEL_SM4_G1(AES, W) HWACCEL_SM4_H(AES, W, 0)
#define HWACCEL_SM4_G2(AES, W) HWACCEL_SM4_G1(AES, W) HWACCEL_SM4_H(AES, W, 1)
#define HWACCEL_SM4_G3(AES, W) HWACCEL_SM4_G2(AES, W) HWACCEL_SM4_H(AES, W, 2)
#define HWACCEL_SM4_G4(AES, W) HWACCEL_SM4_G3(AES, W) HWACCEL_SM4_H(AES, W, 3)
#define HWACCEL_SM4_ALL(GS, AES)                                                                   \
    HWACCEL_SM4_KERNEL(GS(AES, HWACCEL_SM4_LOADN), GS(AES, HWACCEL_SM4_J0), GS(AES, HWACCEL_SM4_J1), \
                       GS(AES, HWACCEL_SM4_J2), GS(AES, HWACCEL_SM4_J3))
#define HWACCEL_SM4_BODY(AES)                                   \
    if constexpr (G == 1) HWACCEL_SM4_ALL(HWACCEL_SM4_G1, AES); \
    else if constexpr (G == 2) HWACCEL_SM4_ALL(HWACCEL_SM4_G2, AES); \
    else if constexpr (G == 3) HWACCEL_SM4_ALL(HWACCEL_SM4_G3, AES); \
    else HWACCEL_SM4_ALL(HWACCEL_SM4_G4, AES);
    if constexpr (kVaes) {
        HWACCEL_SM4_BODY(HWACCEL_SM4_AES_VAES)
    } else {
        HWACCEL_SM4_BODY(HWACCEL_SM4_AES_AESNI)
    }
}

// --- one group in registers (inline assembly) -----------------------------------
//
// A batch of one group (2-8 blocks) keeps its 4 words in registers (ymm4-7,
// the compiler's choice among what the clobbers leave) and needs no memory
// for its state. It is assembly for the round keys: they are broadcast from
// the round-key array into ymm8/ymm9 inside the asm, so the compiler never
// holds one. With intrinsics GCC 12 spilled broadcast round keys into the
// mode function's frame (the residue test found them), which cost a 2048-byte
// stack wipe after every call (+4..10% at 64 bytes). Same ops per round as
// HWACCEL_SM4_ROUND, the state words as register operands.

// Word A ^= F(B ^ C ^ rk ^ N); N the newest word (written by the round
// before), B and C older, so only the last xor of t is on the chain.
#define HWACCEL_SM4_REG_ROUND(AES, RK, A, B, C, N) \
    "vpxor " C ", " B ", %%ymm0\n\t"               \
    "vpxor %%" RK ", %%ymm0, %%ymm0\n\t"           \
    "vpxor " N ", %%ymm0, %%ymm0\n\t"              \
    HWACCEL_SM4_ROUND_F(AES)                       \
    "vpxor " A ", %%ymm2, %%ymm2\n\t"              \
    "vpxor %%ymm3, %%ymm0, %%ymm0\n\t"             \
    "vpxor %%ymm0, %%ymm2, %%ymm2\n\t"             \
    "vpxor %%ymm1, %%ymm2, " A "\n\t"

// A memory clobber (reads the round keys and kKernel), as the kernel above:
// with "m" inputs instead GCC laid out xts_body's 4-group batches so that
// XTS at 16 KiB ran 1-1.5% slower (Zen 5).
#define HWACCEL_SM4_REG_KERNEL(AES)                                                             \
    __asm__ volatile(                                                                           \
        HWACCEL_SM4_LOAD_TABLES                                                                 \
        "1:\n\t"                                                                                \
        "vpbroadcastd 0(%[rk]), %%ymm9\n\t"                                                     \
        "vpbroadcastd 4(%[rk]), %%ymm8\n\t"                                                     \
        HWACCEL_SM4_REG_ROUND(AES, "ymm9", "%[w0]", "%[w1]", "%[w2]", "%[w3]")                  \
        HWACCEL_SM4_REG_ROUND(AES, "ymm8", "%[w1]", "%[w2]", "%[w3]", "%[w0]")                  \
        "vpbroadcastd 8(%[rk]), %%ymm9\n\t"                                                     \
        "vpbroadcastd 12(%[rk]), %%ymm8\n\t"                                                    \
        HWACCEL_SM4_REG_ROUND(AES, "ymm9", "%[w2]", "%[w3]", "%[w0]", "%[w1]")                  \
        HWACCEL_SM4_REG_ROUND(AES, "ymm8", "%[w3]", "%[w0]", "%[w1]", "%[w2]")                  \
        "add $16, %[rk]\n\t"                                                                    \
        "dec %[n]\n\t"                                                                          \
        "jnz 1b\n\t"                                                                            \
        : [w0] "+x"(w0), [w1] "+x"(w1), [w2] "+x"(w2), [w3] "+x"(w3), [rk] "+r"(rk), [n] "+r"(n) \
        : [c] "r"(&kKernel)                                                                     \
        : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm8", "xmm9", "xmm10", "xmm11",        \
          "xmm12", "xmm13", "xmm14", "xmm15")

// 32 rounds on one group; rkm as for kernel().
template <bool kVaes>
HWACCEL_SM4_INLINE void kernel_in_registers(Rows& x, const uint32_t* rkm) {
    const uint32_t* rk = rkm;
    size_t n = 8;
    __m256i w0 = x.r[0], w1 = x.r[1], w2 = x.r[2], w3 = x.r[3];
    if constexpr (kVaes) {
        HWACCEL_SM4_REG_KERNEL(HWACCEL_SM4_AES_VAES);
    } else {
        HWACCEL_SM4_REG_KERNEL(HWACCEL_SM4_AES_AESNI);
    }
    x.r[0] = w0;
    x.r[1] = w1;
    x.r[2] = w2;
    x.r[3] = w3;
}

// What the modes need of a kernel (sm4_x86_modes.hpp describes it).
template <bool kVaes>
struct AesKernel {
    using Keys = BulkKeys;
    static constexpr int kMaxGroups = 4;  // what the assembly kernel takes
    // No round key reaches the stack in an optimised build: both kernels
    // broadcast them inside their assembly, and the array of them (Keys)
    // wipes itself. -O0 and sanitizer builds spill what Release keeps in
    // registers; there the wipe stays, sized as before the one-group kernel
    // (the mode functions' frames are at most 1512 bytes in Release, GCC 12
    // xts_body, plus saved registers, alignment and the kernels').
    static constexpr size_t kStackBurn = wipe_bytes_if_instrumented(2048);

    // A state word into the M domain, and back.
    static HWACCEL_SM4_INLINE __m256i enter(__m256i w) { return affine256(w, kMLo, kMHi); }
    static HWACCEL_SM4_INLINE __m256i leave(__m256i w) { return affine256(w, kMinvLo, kMinvHi); }

    // 32 rounds on the G groups of a batch. The assembly kernel works on the
    // Rows array in place (its layout is the kernel's: group g at 128 g, word
    // j at 32 j), so no copy to a separate buffer (GCC made those rep movsq,
    // a visible share of the profile).
    template <int G>
    static HWACCEL_SM4_INLINE void rounds(Rows (&x)[G], const Keys& keys) {
        static_assert(sizeof(Rows) == 128 && alignof(Rows) == 32, "kernel layout");
        static_assert(kRegisterGroups == 1, "kernel_in_registers takes one group");
        if constexpr (G <= kRegisterGroups) kernel_in_registers<kVaes>(x[0], keys.k);
        else kernel<kVaes, G>(reinterpret_cast<uint8_t*>(x), keys.k);
    }

    // Wipes a batch's cipher state once it is no longer needed, where it
    // lives in memory (the assembly kernel's batches).
    template <int G>
    static HWACCEL_SM4_INLINE void wipe(Rows (&x)[G]) {
        if constexpr (G > kRegisterGroups) wipe32(x, 4 * G);
    }

    // One block: the shared one-block path (sm4_x86_block.cpp).
    static HWACCEL_SM4_INLINE __m128i one_block(const Sm4Key* key, Sm4Direction direction, __m128i block) {
        return crypt_block(key, direction, block);
    }

    // VEX code: ymm0-15 are all it can reach.
    static HWACCEL_SM4_INLINE void clear_registers() { zeroall(); }
};

// The table of an AESENCLAST engine: the modes over its kernel, the shared
// one-block path for the rest.
template <bool kVaes>
constexpr Sm4Engine aes_engine(const char* name, bool (*available)(const CpuFeatures&)) {
    using Modes = WipedModes<AesKernel<kVaes>>;
    return {
        .name = name,
        .available = available,
        .set_key = set_key,
        .ecb = Modes::ecb,
        .encrypt_block = encrypt_block,
        .ctr = Modes::ctr,
        .cbc_decrypt = Modes::cbc_decrypt,
        .cfb_decrypt = Modes::cfb_decrypt,
        .cbc_encrypt = cbc_encrypt,
        .cfb_encrypt = cfb_encrypt,
        .ofb = ofb,
        .xts = Modes::xts,
        .ccm = kVaes ? ccm_two_lanes : nullptr,  // VAES: two blocks in one ymm round
        .set_key_pair = set_key_pair,
        .ctr_with_first = Modes::ctr_with_first,
        .ctr_with_first_batch = Modes::kBatch,
    };
}

}  // namespace
}  // namespace hwaccel::x86::sm4x
