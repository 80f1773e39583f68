// The bulk kernels of the x86 GFNI SM4 engines, for the modes of
// sm4_x86_modes.hpp: the folded round of sm4_x86_gfni_maths.hpp (A1 domain,
// S-box input = Y1^Y2^Y3^rk', three GF2P8AFFINEINVQB, three byte rotations)
// on groups of 8 blocks. Two kernels:
//   GfniAvx2Kernel    VEX only (GFNI + AVX2): rotations by PSHUFB, XORs,
//                     4 groups (32 blocks) per batch, in inline assembly
//                     (sm4_x86_gfni_ymm_asm.hpp). 13 ops per group and round
//                     besides the state's loads and store.
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
#include "x86/sm4_x86_gfni_ymm_asm.hpp"
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
    static HWACCEL_SM4_INLINE void clear_registers() { zeroall(); }
};

// --- VEX only -----------------------------------------------------------------------

struct GfniAvx2Kernel : GfniKernelCommon<gfni::crypt_block> {
    static constexpr int kMaxGroups = 4;
    // The rounds run in assembly (sm4_x86_gfni_ymm_asm.hpp), which keeps
    // round keys and state out of the compiler's hands: nothing to wipe in
    // an optimised build. -O0 and sanitizer builds spill what they hold around
    // it; there the former wipe stays (the intrinsics kernel's mode frames
    // were up to 1864 bytes, GCC 12 xts_body).
    static constexpr size_t kStackBurn = wipe_bytes_if_instrumented(2048);

    template <int G>
    static HWACCEL_SM4_INLINE void rounds(Rows (&x)[G], const Keys& keys) {
        static_assert(sizeof(Rows) == 128 && alignof(Rows) == 32, "kernel layout");
        gfni_ymm_kernel<G>(reinterpret_cast<uint8_t*>(x), keys.k);
    }

    // Every batch's state goes through its Rows array, one group's too.
    template <int G>
    static HWACCEL_SM4_INLINE void wipe(Rows (&x)[G]) {
        wipe32(x, 4 * G);
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
        .ctr_with_first = Modes::ctr_with_first,
        .ctr_with_first_batch = Modes::kBatch,
    };
}

}  // namespace
}  // namespace hwaccel::x86::sm4x
