// SM4 with GFNI + AVX-512 (F/VL/BW): the folded GFNI round
// (sm4_x86_gfni_maths.hpp) with VPROLD for the byte rotations and VPTERNLOGD
// for the sums, the round key XOR-ed from a broadcast memory operand. The
// modes (sm4_x86_modes.hpp) hand over batches of groups of 8 blocks; this
// kernel packs two groups into one zmm (16 blocks) and runs the rounds on up
// to 6 zmm groups (96 blocks) at once: up to 3 with intrinsics, more in the
// inline-assembly kernel of sm4_x86_gfni_zmm_asm.hpp. One block and the
// serial modes, and the key schedule: the GFNI one-block path's EVEX form
// (sm4_x86_gfni512_block.cpp).
//
// No per-file compile flags: the kernel and the modes are compiled for
// GFNI/AVX-512 through #pragma GCC target below; available() and every
// shared header (included first, so their inline functions stay baseline
// x86-64) are not.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwaccel/bytes.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "x86/clear_upper_vector_registers.hpp"
#include "x86/sm4_x86_engines.hpp"
#include "x86/sm4_x86_gfni512_block.hpp"
#include "x86/sm4_x86_gfni_block.hpp"
#include "x86/sm4_x86_gfni_maths.hpp"
#include "x86/sm4_x86_maths.hpp"

namespace hwaccel::x86 {
namespace {
// Called on every CPU: baseline code, plain flag tests. The one-block path
// (VEX GFNI + AVX2) needs gfni and avx2.
bool sm4_gfni_avx512_available(const CpuFeatures& c) {
    return c.gfni && c.avx512f && c.avx512vl && c.avx512bw && c.avx2 && c.avx;
}
}  // namespace
}  // namespace hwaccel::x86

// clang ignores "#pragma GCC target": the same target on every function
// defined in the region (lambdas and templates too).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("gfni,avx2,avx512f,avx512vl,avx512bw"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("gfni,avx2,avx512f,avx512vl,avx512bw")
#endif
// GCC 12's AVX-512 intrinsics initialise their "undefined" pass-through
// operands from themselves, which -Wuninitialized reports once inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)  // GCC's own warning
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "x86/sm4_x86_gfni_kernel.hpp"
#include "x86/sm4_x86_gfni_zmm_asm.hpp"

namespace hwaccel::x86::sm4x {
namespace {

// The round on one vector type (ymm: 8 blocks, zmm: 16), by overloads.
HWACCEL_SM4_INLINE __m256i vxor(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }
HWACCEL_SM4_INLINE __m512i vxor(__m512i a, __m512i b) { return _mm512_xor_si512(a, b); }
HWACCEL_SM4_INLINE __m256i xor3(__m256i a, __m256i b, __m256i c) { return _mm256_ternarylogic_epi32(a, b, c, 0x96); }
HWACCEL_SM4_INLINE __m512i xor3(__m512i a, __m512i b, __m512i c) { return _mm512_ternarylogic_epi32(a, b, c, 0x96); }
template <int n>
HWACCEL_SM4_INLINE __m256i rol(__m256i a) { return _mm256_rol_epi32(a, n); }
template <int n>
HWACCEL_SM4_INLINE __m512i rol(__m512i a) { return _mm512_rol_epi32(a, n); }
HWACCEL_SM4_INLINE void set1(__m256i& v, uint32_t x) { v = _mm256_set1_epi32(static_cast<int>(x)); }
HWACCEL_SM4_INLINE void set1(__m512i& v, uint32_t x) { v = _mm512_set1_epi32(static_cast<int>(x)); }
// GF2P8AFFINEINVQB with the matrix broadcast from memory ({1toN}): as
// intrinsics GCC keeps the three matrices in registers, and with 24 of the
// 32 holding state it then spills state words to the stack (where no wipe
// reaches them); this way the kernels spill nothing (objdump).
template <int c>
HWACCEL_SM4_INLINE __m256i affine_inv(__m256i u, const uint64_t& m) {
    __m256i r;
    __asm__("vgf2p8affineinvqb %[c], %[m]%{1to4%}, %[u], %[r]" : [r] "=v"(r) : [u] "v"(u), [m] "m"(m), [c] "i"(c));
    return r;
}
template <int c>
HWACCEL_SM4_INLINE __m512i affine_inv(__m512i u, const uint64_t& m) {
    __m512i r;
    __asm__("vgf2p8affineinvqb %[c], %[m]%{1to8%}, %[u], %[r]" : [r] "=v"(r) : [u] "v"(u), [m] "m"(m), [c] "i"(c));
    return r;
}

// The three matrices, in memory for the broadcasts.
struct EvexConsts {
    uint64_t f0 = gfni::kF0, f1 = gfni::kF1, f3 = gfni::kF3;
};
constexpr EvexConsts kEvex{};

// x ^ V(u): three affine-inverse maps, three rotations, two ternary XORs.
template <class V>
HWACCEL_SM4_INLINE V evex_update(V x, V u, const EvexConsts& c) {
    const V v0 = affine_inv<gfni::kF0c>(u, c.f0);
    const V v1 = affine_inv<gfni::kF1c>(u, c.f1);
    const V v3 = affine_inv<gfni::kF3c>(u, c.f3);
    const V a = xor3(x, v0, rol<gfni::kLaneRol24>(v3));
    return xor3(a, rol<gfni::kLaneRol8>(v1), rol<gfni::kLaneRol16>(v1));
}
// 32 rounds on Z groups y[z][word]. Rounds 4i, 4i+1 share Y2 ^ Y3, rounds
// 4i+2, 4i+3 share Y0 ^ Y1; the key joins in the same ternary XOR.
template <class V, int Z>
HWACCEL_SM4_INLINE void evex_rounds(V (&y)[Z][4], const GfniKeys& keys) {
    const EvexConsts& c = kEvex;
    for (int r = 0; r < 32; r += 4) {
        V k0, k1, k2, k3;
        set1(k0, keys.k[r]);
        set1(k1, keys.k[r + 1]);
        set1(k2, keys.k[r + 2]);
        set1(k3, keys.k[r + 3]);
        // Two rounds of one group, then the next group's: the shared XOR is
        // live only briefly (24 registers hold the state), and out-of-order
        // execution overlaps the groups' chains.
        for (int z = 0; z < Z; ++z) {
            const V p = vxor(y[z][2], y[z][3]);
            y[z][0] = evex_update(y[z][0], xor3(p, y[z][1], k0), c);
            y[z][1] = evex_update(y[z][1], xor3(p, y[z][0], k1), c);
        }
        for (int z = 0; z < Z; ++z) {
            const V p = vxor(y[z][0], y[z][1]);
            y[z][2] = evex_update(y[z][2], xor3(p, y[z][3], k2), c);
            y[z][3] = evex_update(y[z][3], xor3(p, y[z][2], k3), c);
        }
    }
}

// T(u) ^ s: three affine-inverse maps, three rotations, two ternary XORs.
template <class V>
HWACCEL_SM4_INLINE V evex_t_xor(V s, V u, const EvexConsts& c) {
    const V v0 = affine_inv<gfni::kF0c>(u, c.f0);
    const V v1 = affine_inv<gfni::kF1c>(u, c.f1);
    const V v3 = affine_inv<gfni::kF3c>(u, c.f3);
    return xor3(xor3(s, v0, rol<gfni::kLaneRol24>(v3)), rol<gfni::kLaneRol8>(v1), rol<gfni::kLaneRol16>(v1));
}
// One round of evex_rounds_chained on one group: x ^= T(u), u becomes the
// next round's input (b, c: the words it shares with this round).
template <class V>
HWACCEL_SM4_INLINE void evex_chained_round(V& x, V& u, V b, V c, V next_key, const EvexConsts& m) {
    const V q = xor3(b, c, next_key);
    u = evex_t_xor(vxor(q, x), u, m);
    x = vxor(u, q);
}
// 32 rounds on a few groups (each a zmm of 16 blocks or a ymm of 8): with
// 2 or 3 zmm or fewer, too little runs side by side for out-of-order
// execution to hide a round's dependency chain, whose length is then the
// time. Round r sets w[r%4] ^= T(u), u = the other three words ^ rk[r]; the
// next round's input is then u' = (q ^ w[r%4]) ^ T(u), q = the two words it
// shares with this round ^ rk[r+1], all known before T(u) is: two ternary
// XORs after the rotations, against three when T(u) goes into the word and
// the word into u' (as evex_rounds and the assembly kernel do, where more
// zmm keep the pipes busy instead). The new word follows off the chain as
// u' ^ q. One op more a round, a chain about 13% shorter (Zen 5: GFNI 7
// cycles, rotate and ternary XOR 2 each). Measured through EVP on Zen 5
// against evex_rounds: 15% fewer ticks at 384 and 512 bytes (2 zmm; 3 zmm:
// 10% at 768 bytes, but see kChainedMaxZmm), 1.15-1.3x faster at 64 and
// 256 bytes.
// The groups may mix widths: on AMD Zen 4, whose zmm operations take two
// passes through 256-bit pipes, an odd count of 8-block groups runs its last
// group in a ymm rather than in half a zmm (17-24 blocks, as a 256-byte GCM
// message and its E_K(J0) make: 493 -> 416-442 TSC ticks a call, and SM4-GCM
// at 256 bytes 5% faster through OpenSSL 4.0's EVP).
//
// One group's words and S-box input as the rounds run, held by value: with
// a reference to the caller's array GCC kept the words in memory, and the
// residue test found keystream and H left on the stack.
template <class V>
struct ChainedGroup {
    V w[4];
    V u;
    // Round 4i + 1 + j of this group, key: its round key.
    template <int j>
    HWACCEL_SM4_INLINE void round(uint32_t key) {
        V k;
        set1(k, key);
        evex_chained_round(w[j], u, w[(j + 2) % 4], w[(j + 3) % 4], k, kEvex);
    }
};
template <class V>
HWACCEL_SM4_INLINE ChainedGroup<V> chained_group(V w0, V w1, V w2, V w3, uint32_t k0) {
    V k;
    set1(k, k0);
    return ChainedGroup<V>{{w0, w1, w2, w3}, vxor(xor3(w1, w2, w3), k)};
}
template <class... V>
HWACCEL_SM4_INLINE void evex_rounds_chained(const GfniKeys& keys, ChainedGroup<V>&... g) {
    for (int r = 0; r < 32; r += 4) {
        (g.template round<0>(keys.k[r + 1]), ...);
        (g.template round<1>(keys.k[r + 2]), ...);
        (g.template round<2>(keys.k[r + 3]), ...);
        if (r == 28) break;
        (g.template round<3>(keys.k[r + 4]), ...);
    }
    ((g.w[3] = evex_t_xor(g.w[3], g.u, kEvex)), ...);
}

struct GfniAvx512Kernel : GfniKernelCommon<gfni512::crypt_block> {
    // Batches of up to 12 groups (96 blocks, 6 zmm), from 7 groups in the
    // assembly kernel: with intrinsics GCC spills state words from 7 groups
    // on (into the red zone, out of reach of K::wipe), while up to 6 it
    // spills nothing and runs as fast as the assembly kernel (objdump; with
    // the kernel from 2 groups on, `hwaccel-engine-bench gfni-avx512` showed
    // no difference at 64 and 256 bytes). Measured on AMD Zen 5 against
    // 6 groups: 8 groups about 1.5x faster at 1 KiB (one batch instead of
    // 48 + 16) and 1.2x at 16 KiB, 12 groups a further 1.2x at 16 KiB.
    // Open: CFB decryption of 64 and 256 bytes through EVP (`scripts/bench.py
    // --evp`) measured 8-15% slower than with 6 groups, with 8 groups too
    // (those batches' code is unchanged; `hwaccel-engine-bench` shows no
    // difference there).
    static constexpr int kMaxGroups = 12;
    static constexpr int kAsmFromGroups = 7;
    // The chained rounds up to 2 zmm (4 groups); with 3, GCC spills state
    // words to the stack (objdump), so 5-6 groups keep evex_rounds (5 as
    // two zmm and a ymm measured no faster than three zmm on Zen 4).
    static constexpr int kChainedMaxZmm = 2;
    static constexpr size_t kStackBurn = 0;

    // The kernels and the EVEX one-block path keep state and round keys in
    // zmm0-31 too; VZEROALL reaches only zmm0-15.
    static HWACCEL_SM4_INLINE void clear_registers() {
        clear_xmm16_31();
        zeroall();
    }

    static HWACCEL_SM4_INLINE auto ymm_group(const Rows& a, const Keys& keys) {
        return chained_group(a.r[0], a.r[1], a.r[2], a.r[3], keys.k[0]);
    }
    static HWACCEL_SM4_INLINE __m512i pair(__m256i lo, __m256i hi) {
        return _mm512_inserti64x4(_mm512_zextsi256_si512(lo), hi, 1);
    }
    static HWACCEL_SM4_INLINE auto zmm_group(const Rows& a, const Rows& b, const Keys& keys) {
        return chained_group(pair(a.r[0], b.r[0]), pair(a.r[1], b.r[1]), pair(a.r[2], b.r[2]),
                             pair(a.r[3], b.r[3]), keys.k[0]);
    }
    template <class Group>
    static HWACCEL_SM4_INLINE void store(const Group& g, Rows& a) {
        for (int j = 0; j < 4; ++j) a.r[j] = g.w[j];
    }
    template <class Group>
    static HWACCEL_SM4_INLINE void store(const Group& g, Rows& a, Rows& b) {
        for (int j = 0; j < 4; ++j) {
            a.r[j] = _mm512_castsi512_si256(g.w[j]);
            b.r[j] = _mm512_extracti64x4_epi64(g.w[j], 1);
        }
    }

    template <int G>
    static HWACCEL_SM4_INLINE void rounds(Rows (&x)[G], const Keys& keys) {
        static_assert(sizeof(Rows) == 128 && alignof(Rows) == 32, "kernel layout");
        if constexpr (G >= kAsmFromGroups) {
            gfni_zmm_kernel<G>(reinterpret_cast<uint8_t*>(x), keys.k);
        } else if constexpr (G == 1) {  // 2-8 blocks: one ymm, no packing
            auto g = ymm_group(x[0], keys);
            evex_rounds_chained(keys, g);
            store(g, x[0]);
        } else if constexpr (G <= 2 * kChainedMaxZmm) {
            // Pairs of groups in zmm, a third group in a ymm.
            auto g0 = zmm_group(x[0], x[1], keys);
            if constexpr (G == 2) {
                evex_rounds_chained(keys, g0);
            } else if constexpr (G == 3) {
                auto last = ymm_group(x[2], keys);
                evex_rounds_chained(keys, g0, last);
                store(last, x[2]);
            } else {
                static_assert(G == 4, "this branch pairs groups 2 and 3 only: more need another zmm_group");
                auto g1 = zmm_group(x[2], x[3], keys);
                evex_rounds_chained(keys, g0, g1);
                store(g1, x[2], x[3]);
            }
            store(g0, x[0], x[1]);
        } else {
            constexpr int Z = (G + 1) / 2;
            __m512i y[Z][4];
            for (int z = 0; z < Z; ++z)
                for (int j = 0; j < 4; ++j) {
                    const __m512i lo = _mm512_zextsi256_si512(x[2 * z].r[j]);
                    y[z][j] = 2 * z + 1 < G ? _mm512_inserti64x4(lo, x[2 * z + 1].r[j], 1) : lo;
                }
            evex_rounds<__m512i, Z>(y, keys);
            for (int z = 0; z < Z; ++z)
                for (int j = 0; j < 4; ++j) {
                    x[2 * z].r[j] = _mm512_castsi512_si256(y[z][j]);
                    if (2 * z + 1 < G) x[2 * z + 1].r[j] = _mm512_extracti64x4_epi64(y[z][j], 1);
                }
        }
    }
};

// The GFNI engine table with this engine's EVEX one-block path
// (sm4_x86_gfni512_block.cpp) for the key schedule, single blocks and the
// serial modes.
constexpr Sm4Engine with_evex_one_block(Sm4Engine e) {
    e.set_key = gfni512::set_key;
    e.set_key_pair = gfni512::set_key_pair;
    e.encrypt_block = gfni512::encrypt_block;
    e.cbc_encrypt = gfni512::cbc_encrypt;
    e.cfb_encrypt = gfni512::cfb_encrypt;
    e.ofb = gfni512::ofb;
    e.ccm = gfni512::ccm;
    return e;
}

}  // namespace
}  // namespace hwaccel::x86::sm4x

const hwaccel::Sm4Engine hwaccel::x86::sm4_gfni_avx512 = sm4x::with_evex_one_block(
    sm4x::gfni_engine<sm4x::GfniAvx512Kernel>("gfni-avx512", sm4_gfni_avx512_available));

#pragma GCC diagnostic pop
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
