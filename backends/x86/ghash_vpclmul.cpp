// GHASH with VPCLMULQDQ: the PCLMULQDQ engine's arithmetic
// (ghash_x86_clmul.hpp) on 2 blocks per ymm register (vpclmul-avx2) or 4
// per zmm register (vpclmul-avx512), 32 blocks per reduction. The table's
// descending powers put H'^(m-i), H'^(m-i-1), ... in the lanes of one
// 32/64-byte load at block i's slot, so a register of blocks meets its
// powers lane for lane; the lanes' sums are folded into one xmm before the
// single reduction of the group. A group's last 1-3 blocks use the
// narrower registers.
//
// Only the functions marked with the target attributes use the extensions;
// available() stays baseline x86-64, so no per-file compile flags.
#include "hwaccel/cpu.hpp"
#include "x86/clear_upper_vector_registers.hpp"
#include "x86/ghash_x86_clmul.hpp"
#include "x86/ghash_x86_engines.hpp"

// GCC 12's AVX-512 intrinsics initialise their "undefined" pass-through
// operands from themselves, which -Wuninitialized reports once inlined.
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)  // GCC's own warning
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define HWACCEL_VPCLMUL_AVX2 "vpclmulqdq,avx2,avx,pclmul,ssse3"
#define HWACCEL_VPCLMUL_AVX512 "vpclmulqdq,avx512f,avx512vl,avx512bw,avx2,avx,pclmul,ssse3"

namespace hwaccel::x86 {
namespace {

using namespace ghash_clmul;

bool avx2_available(const CpuFeatures& c) { return c.vpclmulqdq && c.pclmulqdq && c.avx2 && c.avx && c.ssse3; }
bool avx512_available(const CpuFeatures& c) {
    return avx2_available(c) && c.avx512f && c.avx512vl && c.avx512bw;
}

// Blocks per reduction: the table's 32 powers. From 16 to 32 took
// vpclmul-avx512 from 26 to 33 GB/s and vpclmul-avx2 from 16 to 18 at 16 KiB
// (hwaccel-engine-bench, AMD Zen 5): the chain from one group's Y to the
// next (Y's product, the reduction) then spreads over twice the data.
constexpr size_t kGroup = 32;

// Up to 4 blocks go to the PCLMULQDQ engine's update (SSE only, one
// group): no zero accumulators to fold, and only xmm0-15 to clear
// (vpclmul-avx512 at 1-3 blocks: 70-76 TSC ticks a call instead of 82-86,
// as pclmul; at 4 blocks pclmul is 6% ahead of either wider path in
// hwaccel-kernel-bench; Intel Emerald Rapids, held key; not measured on
// AMD). It is not inlined here (ghash_pclmul.cpp says why).
constexpr size_t kFewBlocks = 5;

// ------------------------------------------------------------ ymm: 2 blocks

struct Wide256 {
    __m256i lo, hi, mid;
};

#define HWACCEL_YMM_INLINE inline __attribute__((always_inline, target(HWACCEL_VPCLMUL_AVX2)))

HWACCEL_YMM_INLINE __m256i load256(const uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

HWACCEL_YMM_INLINE void accumulate256(Wide256& acc, __m256i a, __m256i h, __m256i k) {
    acc.lo = _mm256_xor_si256(acc.lo, _mm256_clmulepi64_epi128(a, h, 0x00));
    acc.hi = _mm256_xor_si256(acc.hi, _mm256_clmulepi64_epi128(a, h, 0x11));
    const __m256i a_sum = _mm256_xor_si256(a, _mm256_shuffle_epi32(a, 0x4e));
    acc.mid = _mm256_xor_si256(acc.mid, _mm256_clmulepi64_epi128(a_sum, k, 0x00));
    // Keeps the sums a chain, one pair after another: reassociated into a
    // tree, they would need more than ymm0-15 and spill products (derived
    // from H) to the stack.
    __asm__("" : "+x"(acc.lo), "+x"(acc.hi), "+x"(acc.mid));
}

HWACCEL_YMM_INLINE __m128i fold_lanes(__m256i v) {
    return _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}

HWACCEL_YMM_INLINE void fold_into(Wide& acc, const Wide256& w) {
    acc.lo = _mm_xor_si128(acc.lo, fold_lanes(w.lo));
    acc.hi = _mm_xor_si128(acc.hi, fold_lanes(w.hi));
    acc.mid = _mm_xor_si128(acc.mid, fold_lanes(w.mid));
}

// Blocks first..m-1 of an m-block group: pairs in ymm, a last odd one in
// xmm.
HWACCEL_YMM_INLINE void accumulate_pairs(Wide& acc, const GhashKey* key, const uint8_t* data, size_t m,
                                         size_t first) {
    const __m256i reverse = _mm256_broadcastsi128_si256(byte_reverse_mask());
    Wide256 w = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    size_t i = first;
    for (; i + 2 <= m; i += 2) {
        const __m256i x = _mm256_shuffle_epi8(load256(data + 16 * i), reverse);
        accumulate256(w, x, load256(key->engine_data + power_slot(m, i)),
                      load256(key->engine_data + karatsuba_slot(m, i)));
    }
    fold_into(acc, w);
    accumulate_blocks(acc, key, data, m, i);
}

// Not inlined: vpclmul-avx512 calls it for fewer blocks than kZmmFrom, and
// inlined there it could use xmm16-31, which its clear (vzeroall) misses.
__attribute__((noinline, target(HWACCEL_VPCLMUL_AVX2))) void update_avx2(GhashKey* key, uint8_t y_bytes[16],
                                                               const uint8_t* data, size_t nblocks) {
    if (nblocks < kFewBlocks) return pclmul_update(key, y_bytes, data, nblocks);
    ensure_powers(key, nblocks < kGroup ? nblocks : kGroup);
    __m128i y = load_reversed(y_bytes);
    for (; nblocks >= kGroup; nblocks -= kGroup, data += 16 * kGroup) {
        const GhashKey* k = per_group(key);
        Wide acc = zero_wide();
        accumulate_pairs(acc, k, data, kGroup, 0);
        y = finish_group(acc, k, y, kGroup);
    }
    if (nblocks > 0) {
        Wide acc = zero_wide();
        accumulate_pairs(acc, key, data, nblocks, 0);
        y = finish_group(acc, key, y, nblocks);
    }
    store_reversed(y_bytes, y);
    _mm256_zeroall();  // H's powers, Y and the products were in ymm0-15
#if defined(__AVX512F__)
    clear_xmm16_31();  // a build for AVX-512 as a whole may use them here too
#endif
}

// ------------------------------------------------------------ zmm: 4 blocks

#define HWACCEL_ZMM_INLINE inline __attribute__((always_inline, target(HWACCEL_VPCLMUL_AVX512)))

struct Wide512 {
    __m512i lo, hi, mid;
};

HWACCEL_ZMM_INLINE __m512i load512(const uint8_t* p) { return _mm512_loadu_si512(p); }

HWACCEL_ZMM_INLINE void accumulate512(Wide512& acc, __m512i a, __m512i h, __m512i k) {
    acc.lo = _mm512_xor_si512(acc.lo, _mm512_clmulepi64_epi128(a, h, 0x00));
    acc.hi = _mm512_xor_si512(acc.hi, _mm512_clmulepi64_epi128(a, h, 0x11));
    const __m512i a_sum = _mm512_xor_si512(a, _mm512_shuffle_epi32(a, _MM_PERM_BADC));
    acc.mid = _mm512_xor_si512(acc.mid, _mm512_clmulepi64_epi128(a_sum, k, 0x00));
}

HWACCEL_ZMM_INLINE __m128i fold_lanes512(__m512i v) {
    const __m256i halves = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    return _mm_xor_si128(_mm256_castsi256_si128(halves), _mm256_extracti128_si256(halves, 1));
}

// Below 16 blocks vpclmul-avx512 runs vpclmul-avx2's code (and that, up to
// 4, the xmm code): 6-12 ticks fewer a call at 4-15 blocks, the same at 16;
// from 24 blocks zmm is ahead (its four blocks an op outweigh the wider
// fold and the clear of xmm16-31). Intel Emerald Rapids, held key; not
// measured on AMD.
constexpr size_t kZmmFrom = 16;

// Blocks of an m-block group: fours in zmm, then the pairs path.
HWACCEL_ZMM_INLINE void accumulate_quads(Wide& acc, const GhashKey* key, const uint8_t* data, size_t m) {
    const __m512i reverse = _mm512_broadcast_i32x4(byte_reverse_mask());
    Wide512 w = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    size_t i = 0;
    for (; i + 4 <= m; i += 4) {
        const __m512i x = _mm512_shuffle_epi8(load512(data + 16 * i), reverse);
        accumulate512(w, x, load512(key->engine_data + power_slot(m, i)),
                      load512(key->engine_data + karatsuba_slot(m, i)));
    }
    acc.lo = _mm_xor_si128(acc.lo, fold_lanes512(w.lo));
    acc.hi = _mm_xor_si128(acc.hi, fold_lanes512(w.hi));
    acc.mid = _mm_xor_si128(acc.mid, fold_lanes512(w.mid));
    accumulate_pairs(acc, key, data, m, i);
}


__attribute__((target(HWACCEL_VPCLMUL_AVX512))) void update_avx512(GhashKey* key, uint8_t y_bytes[16],
                                                                   const uint8_t* data, size_t nblocks) {
    if (nblocks < kFewBlocks) return pclmul_update(key, y_bytes, data, nblocks);  // not via update_avx2
    if (nblocks < kZmmFrom) {
        update_avx2(key, y_bytes, data, nblocks);
        return;
    }
    ensure_powers(key, nblocks < kGroup ? nblocks : kGroup);
    __m128i y = load_reversed(y_bytes);
    for (; nblocks >= kGroup; nblocks -= kGroup, data += 16 * kGroup) {
        const GhashKey* k = per_group(key);
        Wide acc = zero_wide();
        accumulate_quads(acc, k, data, kGroup);
        y = finish_group(acc, k, y, kGroup);
    }
    if (nblocks > 0) {
        Wide acc = zero_wide();
        accumulate_quads(acc, key, data, nblocks);
        y = finish_group(acc, key, y, nblocks);
    }
    store_reversed(y_bytes, y);
    clear_xmm16_31();
    _mm256_zeroall();  // and zmm0-15 whole
}

HWACCEL_CLMUL void set_key_entry(GhashKey* key, const uint8_t h[16]) {
    set_key(key, h);
    clear_xmm_registers();
}

}  // namespace

const GhashEngine ghash_vpclmul_avx2 = {
    .name = "vpclmul-avx2",
    .available = avx2_available,
    .set_key = set_key_entry,
    .update = update_avx2,
};

const GhashEngine ghash_vpclmul_avx512 = {
    .name = "vpclmul-avx512",
    .available = avx512_available,
    .set_key = set_key_entry,
    .update = update_avx512,
};

}  // namespace hwaccel::x86
