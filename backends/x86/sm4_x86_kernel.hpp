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
// single group in registers (see kRegisterGroups).
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

// Batches of up to this many groups run register-resident, longer ones in
// the assembly kernel. Since the kernel keeps each group's newest word in a
// register it wins from two groups on (about a quarter faster at 9-16
// blocks, a tenth at 17-24, on both engines); one group (2-8 blocks) costs
// the same either way and stays in registers. Measure with
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
    "vpshufb 96(%[c]), %%ymm0, %%ymm0\n\t"      \
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
        "vbroadcasti128 128(%[c]), %%ymm13\n\t"                          \
        "vbroadcasti128 144(%[c]), %%ymm12\n\t"                          \
        "vbroadcasti128 160(%[c]), %%ymm11\n\t"                          \
        "vbroadcasti128 176(%[c]), %%ymm10\n\t"                          \
        "vbroadcasti128 192(%[c]), %%ymm15\n\t"                          \
        "vbroadcasti128 208(%[c]), %%ymm14\n\t"                          \
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

// AESENCLAST on both 128-bit lanes: one VAESENCLAST, or without VAES two
// VEX-128 AESENCLAST (which clear the upper half) put back together.
template <bool kVaes>
HWACCEL_SM4_INLINE __m256i enclast(__m256i x, __m256i k) {
    if constexpr (kVaes) {
        return _mm256_aesenclast_epi128(x, k);
    } else {
        const __m128i key = _mm256_castsi256_si128(k);
        const __m128i lo = _mm_aesenclast_si128(_mm256_castsi256_si128(x), key);
        const __m128i hi = _mm_aesenclast_si128(_mm256_extracti128_si256(x, 1), key);
        return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
    }
}

// Register-resident rounds (intrinsics), for a single group: there the
// latency of a round is the limit either way, and the state
// need not go through memory.
struct RoundConsts {
    __m256i m0f, key, u0l, u0h, u2l, u2h, p0, p1, p2, p3;
};
HWACCEL_SM4_INLINE RoundConsts round_consts() {
    return {_mm256_set1_epi8(0x0F), _mm256_set1_epi8(static_cast<char>(kKc)),
            bc(kU0Lo), bc(kU0Hi), bc(kU2Lo), bc(kU2Hi),
            bc(kP0), bc(kP1), bc(kP2), bc(kP3)};
}
template <bool kVaes>
HWACCEL_SM4_INLINE __m256i round_f(__m256i t, const RoundConsts& c) {
    const __m256i s = enclast<kVaes>(t, c.key);
    const __m256i lo = _mm256_and_si256(s, c.m0f);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(s, 4), c.m0f);
    const __m256i u0 = xor256(_mm256_shuffle_epi8(c.u0l, lo), _mm256_shuffle_epi8(c.u0h, hi));
    const __m256i u2 = xor256(_mm256_shuffle_epi8(c.u2l, lo), _mm256_shuffle_epi8(c.u2h, hi));
    const __m256i u1 = xor256(u0, u2);
    return xor256(xor256(_mm256_shuffle_epi8(u0, c.p0), _mm256_shuffle_epi8(u1, c.p1)),
                  xor256(_mm256_shuffle_epi8(u2, c.p2), _mm256_shuffle_epi8(u2, c.p3)));
}
template <bool kVaes, int G>
HWACCEL_SM4_INLINE void rounds_in_registers(Rows (&x)[G], const BulkKeys& keys) {
    const RoundConsts c = round_consts();
    for (int r = 0; r < 32; r += 4) {
        const __m256i k0 = _mm256_set1_epi32(static_cast<int>(keys.k[r]));
        const __m256i k1 = _mm256_set1_epi32(static_cast<int>(keys.k[r + 1]));
        const __m256i k2 = _mm256_set1_epi32(static_cast<int>(keys.k[r + 2]));
        const __m256i k3 = _mm256_set1_epi32(static_cast<int>(keys.k[r + 3]));
        __m256i p[G];
        for (int g = 0; g < G; ++g) {
            p[g] = xor256(x[g].r[2], x[g].r[3]);
            x[g].r[0] = xor256(x[g].r[0], round_f<kVaes>(xor256(p[g], xor256(x[g].r[1], k0)), c));
        }
        for (int g = 0; g < G; ++g)
            x[g].r[1] = xor256(x[g].r[1], round_f<kVaes>(xor256(p[g], xor256(x[g].r[0], k1)), c));
        for (int g = 0; g < G; ++g) {
            p[g] = xor256(x[g].r[0], x[g].r[1]);
            x[g].r[2] = xor256(x[g].r[2], round_f<kVaes>(xor256(p[g], xor256(x[g].r[3], k2)), c));
        }
        for (int g = 0; g < G; ++g)
            x[g].r[3] = xor256(x[g].r[3], round_f<kVaes>(xor256(p[g], xor256(x[g].r[2], k3)), c));
    }
}

// What the modes need of a kernel (sm4_x86_modes.hpp describes it).
template <bool kVaes>
struct AesKernel {
    using Keys = BulkKeys;
    static constexpr int kMaxGroups = 4;  // what the assembly kernel takes
    // The one-group batches (in registers) spill broadcast round keys; the
    // mode functions' frames are at most 1512 bytes (objdump, GCC 12:
    // xts_body), plus saved registers, alignment and the assembly kernel's.
    static constexpr size_t kStackBurn = wipe_bytes(2048);

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
        if constexpr (G <= kRegisterGroups) rounds_in_registers<kVaes, G>(x, keys);
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
    static HWACCEL_SM4_INLINE void clear_registers() { _mm256_zeroall(); }
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
        .ccm = nullptr,
        .set_key_pair = set_key_pair,
    };
}

}  // namespace
}  // namespace hwaccel::x86::sm4x
