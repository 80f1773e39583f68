// SHA-1 and SHA-256 (hence SHA-224) with the x86 SHA extensions (SHA-NI),
// after the instruction sequences in Intel's white paper "Intel SHA
// Extensions" (2013).
//
// Only the functions below are compiled for SHA-NI/SSE4.1/SSSE3 (the target
// attribute), so the rest of the file, and available() in particular, stays
// baseline x86-64; no per-file compile flags are needed.
//
// One hash stream is bound by the latency of the round instructions
// (sha256rnds2, sha1rnds4), which form one dependency chain through the
// state. Everything else (loads, byte swaps, message schedule, constant
// adds) is off that chain, so the code keeps the state in registers across
// all blocks of a call and writes the rounds out with the schedule
// interleaved, letting out-of-order execution hide it behind the rounds
// (including the next block's loads behind this block's last rounds).
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "x86/x86_engines.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/sha256_constants.hpp"

#define HWACCEL_SHANI __attribute__((target("sha,sse4.1,ssse3")))
#define HWACCEL_SHANI_INLINE inline __attribute__((always_inline, target("sha,sse4.1,ssse3")))

namespace hwaccel::x86 {
namespace {

bool available(const CpuFeatures& cpu) { return cpu.sha_ni && cpu.sse41 && cpu.ssse3; }

// The registers held the chaining value (key-derived under HMAC) and the
// message schedule: clear them before returning, once per call. Legacy-SSE
// PXOR, not VZEROALL: SHA-NI exists on CPUs without AVX (Goldmont), where a
// VEX instruction faults. All sixteen, not just those this build's register
// allocation happened to use; xmm16-31 too when the whole build targets
// AVX-512 (only then may the compiler use them). Naming every register as
// clobbered keeps no live value in one across the asm; "memory" keeps the
// state's stores before it.
HWACCEL_SHANI_INLINE void clear_vector_registers() {
    __asm__ volatile(
        ".irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
        "pxor %%xmm\\r, %%xmm\\r\n"
        ".endr"
        :
        :
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
          "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory");
#if defined(__AVX512F__)
    __asm__ volatile(
        ".irp r, 16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
        "vpxord %%xmm\\r, %%xmm\\r, %%xmm\\r\n"
        ".endr"
        :
        :
        : "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25",
          "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31", "memory");
#endif
}

HWACCEL_SHANI_INLINE __m128i load(const uint8_t* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}

// ---------------------------------------------------------------- SHA-256

// Rounds 4I..4I+3. sha256rnds2 does two rounds on the state split as ABEF /
// CDGH and takes W+K for those rounds in the low two lanes; the two halves
// swap roles every call, so no moves are needed. W[t] lives in a ring of four
// vectors, W[4I..4I+3] in w[I % 4]. For groups j >= 4 the schedule is
//   w_j = msg2(msg1(w_{j-4}, w_{j-3}) + alignr(w_{j-1}, w_{j-2}, 4), w_{j-1})
// (the alignr supplies the W[t-7] words), and it
// is spread over the groups: msg1 for group I+3 and msg2 for group I+1 are
// issued here, as soon as their inputs exist.
template <int I>
HWACCEL_SHANI_INLINE void sha256_group(__m128i& abef, __m128i& cdgh, __m128i w[4],
                                       const uint8_t* data, __m128i bswap) {
    __m128i& cur = w[I & 3];
    if constexpr (I < 4) cur = _mm_shuffle_epi8(load(data + 16 * I), bswap);
    const auto* k = reinterpret_cast<const __m128i*>(kSha256RoundConstants + 4 * I);
    __m128i wk = _mm_add_epi32(cur, _mm_load_si128(k));
    cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
    if constexpr (I >= 3 && I <= 14) {
        __m128i& next = w[(I + 1) & 3];  // holds msg1(W[4I-12..], W[4I-8..])
        next = _mm_add_epi32(next, _mm_alignr_epi8(cur, w[(I - 1) & 3], 4));
        next = _mm_sha256msg2_epu32(next, cur);
    }
    // cdgh now holds the new ABEF and abef the new CDGH; the second call
    // puts them back under their names.
    abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0e));
    if constexpr (I >= 1 && I <= 12) w[(I - 1) & 3] = _mm_sha256msg1_epu32(w[(I - 1) & 3], cur);
}

template <int... I>
HWACCEL_SHANI_INLINE void sha256_all_groups(__m128i& abef, __m128i& cdgh, const uint8_t* data,
                                            __m128i bswap, std::integer_sequence<int, I...>) {
    __m128i w[4];
    (sha256_group<I>(abef, cdgh, w, data, bswap), ...);
}

HWACCEL_SHANI void sha256_blocks(uint32_t state[8], const uint8_t* data, size_t nblocks) {
    // Byte-swap each 32-bit word: the message is big-endian.
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);

    // state (a b c d | e f g h) into the instruction's ABEF / CDGH halves
    // (lanes high to low: A B E F, C D G H).
    __m128i dcba = load(reinterpret_cast<const uint8_t*>(state));      // lanes d c b a
    __m128i hgfe = load(reinterpret_cast<const uint8_t*>(state + 4));  // lanes h g f e
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xb1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1b);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xf0);

    for (; nblocks != 0; --nblocks, data += 64) {
        const __m128i abef_in = abef, cdgh_in = cdgh;
        sha256_all_groups(abef, cdgh, data, bswap, std::make_integer_sequence<int, 16>());
        abef = _mm_add_epi32(abef, abef_in);
        cdgh = _mm_add_epi32(cdgh, cdgh_in);
    }

    __m128i feba = _mm_shuffle_epi32(abef, 0x1b);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_blend_epi16(feba, dchg, 0xf0));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(state + 4), _mm_alignr_epi8(dchg, feba, 8));
    clear_vector_registers();
}

// ---------------------------------------------------------------- SHA-1

// Rounds 4I..4I+3. The state is A B C D (high lane to low) in one vector;
// E enters each sha1rnds4 added to the top message word: for the first group
// by a plain add, afterwards by sha1nexte, which also rotates the A of four
// rounds before into that E. The two E vectors alternate roles. The schedule
//   w_j = msg2(msg1(w_{j-4}, w_{j-3}) ^ w_{j-2}, w_{j-1})
// is spread over the groups like SHA-256's: msg2 for group I+1, the XOR for
// group I+2 and msg1 for group I+3 are issued here.
template <int I>
HWACCEL_SHANI_INLINE void sha1_group(__m128i& abcd, __m128i& e_in, __m128i& e_out, __m128i w[4],
                                     const uint8_t* data, __m128i bswap) {
    __m128i& cur = w[I & 3];
    if constexpr (I < 4) cur = _mm_shuffle_epi8(load(data + 16 * I), bswap);
    if constexpr (I == 0)
        e_in = _mm_add_epi32(e_in, cur);
    else
        e_in = _mm_sha1nexte_epu32(e_in, cur);
    e_out = abcd;
    if constexpr (I >= 3 && I <= 18) w[(I + 1) & 3] = _mm_sha1msg2_epu32(w[(I + 1) & 3], cur);
    abcd = _mm_sha1rnds4_epu32(abcd, e_in, I / 5);
    if constexpr (I >= 1 && I <= 16) w[(I - 1) & 3] = _mm_sha1msg1_epu32(w[(I - 1) & 3], cur);
    if constexpr (I >= 2 && I <= 17) w[(I + 2) & 3] = _mm_xor_si128(w[(I + 2) & 3], cur);
}

template <int... I>
HWACCEL_SHANI_INLINE void sha1_all_groups(__m128i& abcd, __m128i& e0, __m128i& e1,
                                          const uint8_t* data, __m128i bswap,
                                          std::integer_sequence<int, I...>) {
    __m128i w[4];
    ((I % 2 == 0 ? sha1_group<I>(abcd, e0, e1, w, data, bswap)
                 : sha1_group<I>(abcd, e1, e0, w, data, bswap)),
     ...);
}

HWACCEL_SHANI void sha1_blocks(uint32_t state[5], const uint8_t* data, size_t nblocks) {
    // Reverse all 16 bytes: big-endian words, and W[0] in the top lane.
    const __m128i bswap = _mm_set_epi64x(0x0001020304050607ULL, 0x08090a0b0c0d0e0fULL);

    __m128i abcd = _mm_shuffle_epi32(load(reinterpret_cast<const uint8_t*>(state)), 0x1b);
    // E in the top lane, zeros below so that adding it to W[0..3] leaves W[1..3].
    __m128i e0 = _mm_set_epi32(static_cast<int>(state[4]), 0, 0, 0);
    __m128i e1;

    for (; nblocks != 0; --nblocks, data += 64) {
        const __m128i abcd_in = abcd, e_in = e0;
        sha1_all_groups(abcd, e0, e1, data, bswap, std::make_integer_sequence<int, 20>());
        // After group 19, e0 holds the A of four rounds before the end;
        // sha1nexte rotates it into the final E and adds the E of the block
        // start (whose low lanes are zero, so they stay zero).
        e0 = _mm_sha1nexte_epu32(e0, e_in);
        abcd = _mm_add_epi32(abcd, abcd_in);
    }

    _mm_storeu_si128(reinterpret_cast<__m128i*>(state), _mm_shuffle_epi32(abcd, 0x1b));
    state[4] = static_cast<uint32_t>(_mm_extract_epi32(e0, 3));
    clear_vector_registers();
}

}  // namespace

const Sha1Engine sha1_sha_ni = {.name = "sha-ni", .available = available, .blocks = sha1_blocks};
const Sha256Engine sha256_sha_ni = {
    .name = "sha-ni", .available = available, .blocks = sha256_blocks};

}  // namespace hwaccel::x86
