// The bulk kernels of the x86 GFNI SM4 engines, for the modes of
// sm4_x86_modes.hpp: the folded round of sm4_x86_gfni_maths.hpp (A1 domain,
// S-box input = Y1^Y2^Y3^rk', three GF2P8AFFINEINVQB, three byte rotations)
// on groups of 8 blocks. Two kernels:
//   GfniAvx2Kernel    VEX only (GFNI + AVX2): rotations by PSHUFB, XORs,
//                     4 groups (32 blocks) per batch. 12.5 ops per group and
//                     round (the key XOR shared by two rounds counts half).
//   GfniAvx512Kernel  AVX-512 (F/VL/BW): VPROLD rotations, VPTERNLOGD sums
//                     with the round key broadcast from memory, pairs of
//                     groups packed into one zmm (16 blocks); 9.5 ops per
//                     zmm and round.
// An engine file includes this inside its "#pragma GCC target" region, after
// every shared header (hence the unnamed namespace), and instantiates the
// kernel its ISA allows.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "hwaccel/engines.hpp"
#include "hwaccel/wipe_stack.hpp"
#include "x86/sm4_x86_gfni_block.hpp"
#include "x86/sm4_x86_gfni_maths.hpp"
#include "x86/sm4_x86_maths.hpp"
#include "x86/sm4_x86_modes.hpp"
#include "x86/sm4_x86_simd.hpp"

namespace hwaccel::x86::sm4x {
namespace {

// Round keys of the bulk path: rk' = A1 rk ^ c1, memory byte order.
struct GfniKeyForm {
    static HWACCEL_SM4_INLINE __m256i words(__m256i rk) {
        const __m256i a1 = _mm256_set1_epi64x(static_cast<long long>(gfni::kA1));
        return _mm256_gf2p8affine_epi64_epi8(rk, a1, gfni::kC1);
    }
};
using GfniKeys = KernelRoundKeys<GfniKeyForm>;

// What both GFNI kernels share of sm4_x86_modes.hpp's kernel interface:
// the round keys, the A1 domain, the wipe of the state that batches of two
// groups or more leave in their Rows array (where the compiler keeps more
// groups than registers, or the assembly kernel works), one block through
// the engine's one-block path, kCryptBlock, and the registers' clearing.
template <__m128i (*kCryptBlock)(const Sm4Key*, Sm4Direction, __m128i)>
struct GfniKernelCommon {
    using Keys = GfniKeys;

    static HWACCEL_SM4_INLINE __m256i enter(__m256i w) {
        return _mm256_gf2p8affine_epi64_epi8(w, _mm256_set1_epi64x(static_cast<long long>(gfni::kA1)), 0);
    }
    static HWACCEL_SM4_INLINE __m256i leave(__m256i w) {
        return _mm256_gf2p8affine_epi64_epi8(w, _mm256_set1_epi64x(static_cast<long long>(gfni::kA1inv)), 0);
    }

    template <int G>
    static HWACCEL_SM4_INLINE void wipe(Rows (&x)[G]) {
        if constexpr (G > 1) wipe32(x, 4 * G);
    }

    static HWACCEL_SM4_INLINE __m128i one_block(const Sm4Key* key, Sm4Direction direction, __m128i block) {
        return kCryptBlock(key, direction, block);
    }

    // ymm0-15, all that VEX code reaches (the AVX-512 kernel adds xmm16-31).
    static HWACCEL_SM4_INLINE void clear_registers() { _mm256_zeroall(); }
};

// --- VEX only -----------------------------------------------------------------------

struct Avx2RoundConsts {
    __m256i f0, f1, f3, r8, r16, r24;
};
HWACCEL_SM4_INLINE __m256i bc(const gfni::Shuffle16& s) {
    return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(s.b)));
}
HWACCEL_SM4_INLINE Avx2RoundConsts avx2_round_consts() {
    return {_mm256_set1_epi64x(static_cast<long long>(gfni::kF0)),
            _mm256_set1_epi64x(static_cast<long long>(gfni::kF1)),
            _mm256_set1_epi64x(static_cast<long long>(gfni::kF3)), bc(gfni::kRol8), bc(gfni::kRol16),
            bc(gfni::kRol24)};
}
// x ^ V(u): the round's new word from its S-box input u.
HWACCEL_SM4_INLINE __m256i avx2_update(__m256i x, __m256i u, const Avx2RoundConsts& c) {
    const __m256i v0 = _mm256_gf2p8affineinv_epi64_epi8(u, c.f0, gfni::kF0c);
    const __m256i v1 = _mm256_gf2p8affineinv_epi64_epi8(u, c.f1, gfni::kF1c);
    const __m256i v3 = _mm256_gf2p8affineinv_epi64_epi8(u, c.f3, gfni::kF3c);
    const __m256i a = xor256(xor256(x, v0), _mm256_shuffle_epi8(v3, c.r24));
    return xor256(a, xor256(_mm256_shuffle_epi8(v1, c.r8), _mm256_shuffle_epi8(v1, c.r16)));
}

struct GfniAvx2Kernel : GfniKernelCommon<gfni::crypt_block> {
    static constexpr int kMaxGroups = 4;
    // 16 state words in 16 ymm registers: the compiler spills some. The mode
    // functions' frames (batches inlined) are at most 1864 bytes (objdump,
    // GCC 12: xts_body; the register residue test found its spilled round
    // keys when this was 1536), plus saved registers and alignment.
    static constexpr size_t kStackBurn = wipe_bytes(2048);

    template <int G>
    static HWACCEL_SM4_INLINE void rounds(Rows (&x)[G], const Keys& keys) {
        const Avx2RoundConsts c = avx2_round_consts();
        for (int r = 0; r < 32; r += 4) {
            const __m256i k0 = _mm256_set1_epi32(static_cast<int>(keys.k[r]));
            const __m256i k1 = _mm256_set1_epi32(static_cast<int>(keys.k[r + 1]));
            const __m256i k2 = _mm256_set1_epi32(static_cast<int>(keys.k[r + 2]));
            const __m256i k3 = _mm256_set1_epi32(static_cast<int>(keys.k[r + 3]));
            __m256i p[G];
            for (int g = 0; g < G; ++g) {
                p[g] = xor256(x[g].r[2], x[g].r[3]);
                x[g].r[0] = avx2_update(x[g].r[0], xor256(p[g], xor256(x[g].r[1], k0)), c);
            }
            for (int g = 0; g < G; ++g) x[g].r[1] = avx2_update(x[g].r[1], xor256(p[g], xor256(x[g].r[0], k1)), c);
            for (int g = 0; g < G; ++g) {
                p[g] = xor256(x[g].r[0], x[g].r[1]);
                x[g].r[2] = avx2_update(x[g].r[2], xor256(p[g], xor256(x[g].r[3], k2)), c);
            }
            for (int g = 0; g < G; ++g) x[g].r[3] = avx2_update(x[g].r[3], xor256(p[g], xor256(x[g].r[2], k3)), c);
        }
    }
};

// The table of a GFNI engine: the modes over its kernel, the GFNI one-block
// path (sm4_x86_gfni_block.cpp) for the rest.
template <class K>
constexpr Sm4Engine gfni_engine(const char* name, bool (*available)(const CpuFeatures&)) {
    using Modes = WipedModes<K>;
    return {
        .name = name,
        .available = available,
        .set_key = gfni::set_key,
        .ecb = Modes::ecb,
        .encrypt_block = gfni::encrypt_block,
        .ctr = Modes::ctr,
        .cbc_decrypt = Modes::cbc_decrypt,
        .cfb_decrypt = Modes::cfb_decrypt,
        .cbc_encrypt = gfni::cbc_encrypt,
        .cfb_encrypt = gfni::cfb_encrypt,
        .ofb = gfni::ofb,
        .xts = Modes::xts,
        .ccm = gfni::ccm,
        .set_key_pair = gfni::set_key_pair,
    };
}

}  // namespace
}  // namespace hwaccel::x86::sm4x
