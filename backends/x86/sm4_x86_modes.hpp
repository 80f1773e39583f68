// The parallel modes of the x86 SM4 engines over a bulk kernel: ECB, CTR,
// CBC and CFB decryption, in batches of up to 8 K::kMaxGroups blocks (groups
// of 8).
// Private to the engine files, to be included inside their "#pragma GCC
// target" region after every shared header (hence the unnamed namespace).
//
// A kernel K (sm4_x86_kernel.hpp's AesKernel is one) provides:
//   K::kMaxGroups                the groups of 8 blocks in a full batch
//   K::Keys                      one direction's round keys in the kernel's
//                                form, built from rk[32], wiped on destruction
//   K::enter(w), K::leave(w)     a state word (__m256i: word j of a group's
//                                8 blocks, memory byte order) into the
//                                kernel's domain and back
//   K::rounds<G>(x, keys)        the 32 rounds on G groups x[0..G-1] (Rows,
//                                word j in r[j]), in place
//   K::wipe<G>(x)                wipes what rounds left of the state in memory
//   K::one_block(key, dir, b)    one block, the lowest-latency way
//   K::clear_registers()         zeroes every vector register the kernel and
//                                one_block may have used (round keys and
//                                state stay in them otherwise)
// so an engine with another round function reuses these modes with its own
// kernel and its own small engine file.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"
#include "x86/sm4_x86_maths.hpp"
#include "x86/sm4_x86_simd.hpp"

namespace hwaccel::x86::sm4x {
namespace {

// --- a kernel's round keys ---------------------------------------------------------

// K::Keys for a kernel whose round keys are one word per round (broadcast
// when used): the standard round keys, bytes in memory order, through
// Form::words (8 at a time) into the kernel's form. Wiped on destruction.
template <class Form>
struct KernelRoundKeys {
    alignas(32) uint32_t k[32];
    explicit KernelRoundKeys(const uint32_t rk[32]) {
        const __m256i bs = bc(kBswap32);
        for (int j = 0; j < 4; ++j) {
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rk + 8 * j));
            _mm256_store_si256(reinterpret_cast<__m256i*>(k + 8 * j), Form::words(_mm256_shuffle_epi8(v, bs)));
        }
    }
    ~KernelRoundKeys() { wipe32(k, sizeof k / 32); }
    KernelRoundKeys(const KernelRoundKeys&) = delete;
    KernelRoundKeys& operator=(const KernelRoundKeys&) = delete;
};

// --- groups in memory --------------------------------------------------------------

HWACCEL_SM4_INLINE Rows load_rows(const uint8_t* p) {
    return {{loadu256(p), loadu256(p + 32), loadu256(p + 64), loadu256(p + 96)}};
}
HWACCEL_SM4_INLINE void store_rows(uint8_t* p, const Rows& v) {
    for (int k = 0; k < 4; ++k) storeu256(p + 32 * k, v.r[k]);
}
HWACCEL_SM4_INLINE Rows xor_rows(const Rows& a, const Rows& b) {
    Rows r;
    for (int k = 0; k < 4; ++k) r.r[k] = xor256(a.r[k], b.r[k]);
    return r;
}
// m < 8 blocks (a batch's last group), block by block: no stack copy to wipe.
// The branches are on the length only.
HWACCEL_SM4_INLINE Rows rows_of(const __m128i (&b)[8]) {
    Rows r;
    for (int k = 0; k < 4; ++k) r.r[k] = _mm256_inserti128_si256(_mm256_castsi128_si256(b[2 * k]), b[2 * k + 1], 1);
    return r;
}
HWACCEL_SM4_INLINE Rows load_rows_partial(const uint8_t* p, size_t m) {
    __m128i b[8];
    for (size_t i = 0; i < 8; ++i) b[i] = i < m ? loadu128(p + 16 * i) : _mm_setzero_si128();
    return rows_of(b);
}
HWACCEL_SM4_INLINE void store_rows_partial(uint8_t* p, const Rows& v, size_t m) {
    for (size_t i = 0; i < m; ++i) {
        const __m256i r = v.r[i / 2];
        storeu128(p + 16 * i, (i & 1) ? _mm256_extracti128_si256(r, 1) : _mm256_castsi256_si128(r));
    }
}
// The same with constant row indices, for ECB and CBC and CFB decryption:
// with v.r[i / 2] GCC indexed a frame copy of v there (ECB's output, which
// is H or keystream when the provider makes them with it; the unused lanes'
// D_K(0) in CBC decryption) and kept the keystream rows v was made from in
// the frame too (message_stack_residue_test). Not used everywhere: in CTR,
// which left nothing, it made the whole-group path 2-3% slower (8 and 16
// KiB, gfni-avx512, Zen 5), code placement alone; CFB decryption on
// vaes-avx2 runs 1.6-2.5% slower at 256 B and 8-16 KiB than before it
// (Zen 4), put down to the same (the store out of line in a cold function
// gave back 0.5-2.4% depending on the build and cost 1.7-2.7% at 64 B:
// not kept; docs/DESIGN.md).
// Its callers choose between it and store_rows themselves: folded into one
// helper taking the rows by reference, GCC made a frame copy again (GCM's
// keystream at 256 bytes on gfni-avx512, message_stack_residue_test).
HWACCEL_SM4_INLINE void store_rows_partial_in_registers(uint8_t* p, const Rows& v, size_t m) {
    for (int k = 0; k < 4; ++k) {
        if (static_cast<size_t>(2 * k) < m) storeu128(p + 32 * k, _mm256_castsi256_si128(v.r[k]));
        if (static_cast<size_t>(2 * k + 1) < m) storeu128(p + 32 * k + 16, _mm256_extracti128_si256(v.r[k], 1));
    }
}
HWACCEL_SM4_INLINE Rows load_rows_any(const uint8_t* p, size_t m) {
    return m == 8 ? load_rows(p) : load_rows_partial(p, m);
}
HWACCEL_SM4_INLINE void store_rows_any(uint8_t* p, const Rows& v, size_t m) {
    if (m == 8) store_rows(p, v);
    else store_rows_partial(p, v, m);
}
// The "previous block" rows of CBC/CFB decryption for blocks base..base+m-1
// of `in`: block i -> in[i - 1], block 0 -> iv.
HWACCEL_SM4_INLINE Rows load_prev_rows(const uint8_t* in, size_t base, size_t m, const uint8_t* iv) {
    if (base != 0 && m == 8) return load_rows(in + 16 * base - 16);
    __m128i b[8];
    b[0] = loadu128(base ? in + 16 * base - 16 : iv);
    for (size_t i = 1; i < 8; ++i) b[i] = i < m ? loadu128(in + 16 * (base + i - 1)) : _mm_setzero_si128();
    return rows_of(b);
}

// Rows -> kernel-domain words, and back (output words in SM4's reversed order).
template <class K>
HWACCEL_SM4_INLINE Rows to_state(Rows v) {
    transpose(v.r[0], v.r[1], v.r[2], v.r[3]);
    for (int j = 0; j < 4; ++j) v.r[j] = K::enter(v.r[j]);
    return v;
}
template <class K>
HWACCEL_SM4_INLINE Rows from_state(const Rows& x) {
    Rows v{{K::leave(x.r[3]), K::leave(x.r[2]), K::leave(x.r[1]), K::leave(x.r[0])}};
    transpose(v.r[0], v.r[1], v.r[2], v.r[3]);
    return v;
}

// --- batches ----------------------------------------------------------------------
// Each batch: read every input block of the batch, run the rounds, then write
// (so in == out works); m blocks, 8(G-1) < m <= 8G.

template <class K, int G>
void ecb_batch(const typename K::Keys& keys, uint8_t* out, const uint8_t* in, size_t m) {
    Rows x[G];
    for (int g = 0; g < G; ++g) x[g] = to_state<K>(load_rows_any(in + 128 * g, m - 8 * g < 8 ? m - 8 * g : 8));
    K::template rounds<G>(x, keys);
    // ECB's output is keystream or H where the provider makes them with it
    // (GCM, CCM, XTS): the constant-index store (store_rows_partial_in_registers).
    for (int g = 0; g < G; ++g) {
        const size_t mg = m - 8 * g < 8 ? m - 8 * g : 8;
        if (mg == 8) store_rows(out + 128 * g, from_state<K>(x[g]));
        else store_rows_partial_in_registers(out + 128 * g, from_state<K>(x[g]), mg);
    }
    K::wipe(x);
}

// Counter blocks counter + first + i (128-bit big-endian, wrapping) for the
// 8 blocks of group g, directly in the transposed layout; no branch on the
// counter value.
struct Counter {
    uint32_t w[4];  // native values of the four big-endian words
};
// The same blocks' words before K::enter (memory byte order).
HWACCEL_SM4_INLINE Rows counter_words(const Counter& c, uint32_t first) {
    // Lane k of word j is block 2k (low lane) or 2(k-4)+1 (high lane).
    const __m256i idx = _mm256_add_epi32(_mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7),
                                         _mm256_set1_epi32(static_cast<int>(first)));
    const __m256i bias = _mm256_set1_epi32(INT32_MIN);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i w3 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(c.w[3])), idx);
    // Unsigned w3 < idx: the low word wrapped.
    const __m256i c3 = _mm256_cmpgt_epi32(_mm256_xor_si256(idx, bias), _mm256_xor_si256(w3, bias));
    const __m256i w2 = _mm256_sub_epi32(_mm256_set1_epi32(static_cast<int>(c.w[2])), c3);
    const __m256i c2 = _mm256_and_si256(c3, _mm256_cmpeq_epi32(w2, zero));
    const __m256i w1 = _mm256_sub_epi32(_mm256_set1_epi32(static_cast<int>(c.w[1])), c2);
    const __m256i c1 = _mm256_and_si256(c2, _mm256_cmpeq_epi32(w1, zero));
    const __m256i w0 = _mm256_sub_epi32(_mm256_set1_epi32(static_cast<int>(c.w[0])), c1);
    const __m256i bs = bc(kBswap32);
    return {{_mm256_shuffle_epi8(w0, bs), _mm256_shuffle_epi8(w1, bs), _mm256_shuffle_epi8(w2, bs),
             _mm256_shuffle_epi8(w3, bs)}};
}
template <class K>
HWACCEL_SM4_INLINE Rows counter_state(const Counter& c, uint32_t first) {
    Rows v = counter_words(c, first);
    for (int j = 0; j < 4; ++j) v.r[j] = K::enter(v.r[j]);
    return v;
}

template <class K, int G>
void ctr_batch(const typename K::Keys& keys, uint8_t* out, const uint8_t* in, size_t m, const Counter& c,
               uint32_t first) {
    Rows x[G];
    for (int g = 0; g < G; ++g) x[g] = counter_state<K>(c, first + 8 * g);
    K::template rounds<G>(x, keys);
    for (int g = 0; g < G; ++g) {
        const size_t mg = m - 8 * g < 8 ? m - 8 * g : 8;
        store_rows_any(out + 128 * g, xor_rows(from_state<K>(x[g]), load_rows_any(in + 128 * g, mg)), mg);
    }
    K::wipe(x);
}

// ctr_batch over m text blocks (counter c + i) with one more block in the
// lane after them, counter j0 (c - 1, GCM's J0), whose keystream goes to
// first, unXOR-ed. The text keeps ctr's groups and alignment; the extra
// block takes a spare lane, or a group of its own when m is a multiple of 8.
template <class K, int G>
void ctr_first_batch(const typename K::Keys& keys, uint8_t first[16], uint8_t* out, const uint8_t* in,
                     size_t m, const Counter& c, const Counter& j0) {
    const size_t gj = m / 8, bj = m % 8;
    const int lane = static_cast<int>((bj & 1) ? 4 + bj / 2 : bj / 2);
    const __m256i pick = _mm256_cmpeq_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(lane));
    const __m256i bs = bc(kBswap32);
    Rows x[G];
    // Blended before K::enter, which need not keep a word's bytes in its lane.
    for (int g = 0; g < G; ++g) {
        x[g] = counter_words(c, 8 * g);
        for (int j = 0; j < 4; ++j) {
            if (static_cast<size_t>(g) == gj) {
                const __m256i w = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(j0.w[j])), bs);
                x[g].r[j] = _mm256_blendv_epi8(x[g].r[j], w, pick);
            }
            x[g].r[j] = K::enter(x[g].r[j]);
        }
    }
    K::template rounds<G>(x, keys);
    for (int g = 0; g < G; ++g) {
        const Rows k = from_state<K>(x[g]);
        if (static_cast<size_t>(g) == gj) {
            const __m256i r = k.r[bj / 2];
            storeu128(first, (bj & 1) ? _mm256_extracti128_si256(r, 1) : _mm256_castsi256_si128(r));
        }
        if (8 * static_cast<size_t>(g) >= m) continue;
        const size_t mg = m - 8 * g < 8 ? m - 8 * g : 8;
        store_rows_any(out + 128 * g, xor_rows(k, load_rows_any(in + 128 * g, mg)), mg);
    }
    K::wipe(x);
}

template <class K, int G>
void cbc_dec_batch(const typename K::Keys& keys, uint8_t* out, const uint8_t* in, size_t m, const uint8_t* iv) {
    Rows x[G];
    for (int g = 0; g < G; ++g) x[g] = to_state<K>(load_rows_any(in + 128 * g, m - 8 * g < 8 ? m - 8 * g : 8));
    K::template rounds<G>(x, keys);
    // Last group first: in place, group g overwrites ciphertext that only
    // groups <= g still read.
    for (int g = G - 1; g >= 0; --g) {
        const size_t mg = m - 8 * g < 8 ? m - 8 * g : 8;
        const Rows prev = load_prev_rows(in, 8 * g, mg, iv);
        // A partial group's unused lanes hold D_K(0): XORed row by row in
        // place and stored with constant row indices, as CFB's keystream
        // below (gfni-avx512 left them in a frame copy at 64 and 112 bytes
        // otherwise, message_stack_residue_test).
        Rows v = from_state<K>(x[g]);
        for (int k = 0; k < 4; ++k) v.r[k] = xor256(v.r[k], prev.r[k]);
        if (mg == 8) store_rows(out + 128 * g, v);
        else store_rows_partial_in_registers(out + 128 * g, v, mg);
    }
    K::wipe(x);
}

template <class K, int G>
void cfb_dec_batch(const typename K::Keys& keys, uint8_t* out, const uint8_t* in, size_t m, const uint8_t* iv) {
    Rows x[G];
    for (int g = 0; g < G; ++g) {
        const size_t mg = m - 8 * g < 8 ? m - 8 * g : 8;
        x[g] = to_state<K>(load_prev_rows(in, 8 * g, mg, iv));
    }
    K::template rounds<G>(x, keys);
    for (int g = 0; g < G; ++g) {
        const size_t mg = m - 8 * g < 8 ? m - 8 * g : 8;
        // The keystream XORed row by row in place: through xor_rows' references
        // GCC kept a frame copy of the keystream rows (message_stack_residue_test).
        Rows v = from_state<K>(x[g]);
        const Rows c = load_rows_any(in + 128 * g, mg);
        for (int k = 0; k < 4; ++k) v.r[k] = xor256(v.r[k], c.r[k]);
        if (mg == 8) store_rows(out + 128 * g, v);
        else store_rows_partial_in_registers(out + 128 * g, v, mg);
    }
    K::wipe(x);
}
// --- XTS tweaks ---------------------------------------------------------------
// A group's tweaks as 4 rows (row k: blocks 2k and 2k+1, one tweak per
// 128-bit lane, in memory byte order). The next group's are these times x^8:
// each lane shifted by a byte, and the byte that falls off (byte 15 in both
// orders) folded back in as a carry-less product with the field polynomial's
// low terms (shifts and XORs: nothing depends on the tweak's value). The 8
// products of a group are made at once: the 4 rows' byte 15 gathered into
// one register, a 16-bit slot per row, then spread back, 22 vector ops for
// the group instead of 9-11 per row.

template <XtsStandard S>
HWACCEL_SM4_INLINE void tweaks_times_x8(__m256i (&w)[4]) {
    // Bytes 12..15 of each lane: byte 15 of rows 0..3.
    const __m256i top = _mm256_unpackhi_epi16(_mm256_unpackhi_epi8(w[0], w[1]), _mm256_unpackhi_epi8(w[2], w[3]));
    constexpr char z = -1;  // PSHUFB: a zero byte
    __m256i f;
    if constexpr (S == XtsStandard::kIeee) {
        // Little-endian: x^128..x^135 = b * (x^7 + x^2 + x + 1) into bytes
        // 0-1; b in the low byte of slot k.
        const __m256i b = _mm256_shuffle_epi8(top, _mm256_setr_epi8(12, z, 13, z, 14, z, 15, z, z, z, z, z, z, z, z, z,
                                                                     12, z, 13, z, 14, z, 15, z, z, z, z, z, z, z, z, z));
        f = xor256(xor256(b, _mm256_slli_epi16(b, 1)), xor256(_mm256_slli_epi16(b, 2), _mm256_slli_epi16(b, 7)));
    } else {
        // Reflected, big-endian: b * 0xe1 (b ^ b<<5 ^ b<<6 ^ b<<7) lands in
        // the top 15 bits of bytes 0-1 of the big-endian number: that
        // product shifted left by one (b<<8 ^ b<<7 ^ b<<6 ^ b<<1), its two
        // bytes swapped when spread back; b << 8 in slot k.
        const __m256i b = _mm256_shuffle_epi8(top, _mm256_setr_epi8(z, 12, z, 13, z, 14, z, 15, z, z, z, z, z, z, z, z,
                                                                     z, 12, z, 13, z, 14, z, 15, z, z, z, z, z, z, z, z));
        f = xor256(xor256(b, _mm256_srli_epi16(b, 1)), xor256(_mm256_srli_epi16(b, 2), _mm256_srli_epi16(b, 7)));
    }
    // Slot k to bytes 0-1 of row k (little-endian: as is; big-endian: swapped).
    constexpr char lo = S == XtsStandard::kIeee ? 0 : 1, hi = S == XtsStandard::kIeee ? 1 : 0;
    const __m256i spread[4] = {
        _mm256_setr_epi8(lo, hi, z, z, z, z, z, z, z, z, z, z, z, z, z, z, lo, hi, z, z, z, z, z, z, z, z, z, z, z, z, z, z),
        _mm256_setr_epi8(lo + 2, hi + 2, z, z, z, z, z, z, z, z, z, z, z, z, z, z, lo + 2, hi + 2, z, z, z, z, z, z, z, z,
                         z, z, z, z, z, z),
        _mm256_setr_epi8(lo + 4, hi + 4, z, z, z, z, z, z, z, z, z, z, z, z, z, z, lo + 4, hi + 4, z, z, z, z, z, z, z, z,
                         z, z, z, z, z, z),
        _mm256_setr_epi8(lo + 6, hi + 6, z, z, z, z, z, z, z, z, z, z, z, z, z, z, lo + 6, hi + 6, z, z, z, z, z, z, z, z,
                         z, z, z, z, z, z)};
    for (int k = 0; k < 4; ++k) w[k] = xor256(_mm256_slli_si256(w[k], 1), _mm256_shuffle_epi8(f, spread[k]));
}

// A tweak per 128-bit lane (memory byte order) times x^k, k in 0..7 given per
// 64-bit element (the same in a lane's two): the lane shifted by k bits and
// the k bits shifted out folded back in, as tweaks_times_x8 does for 8. No
// chain from one power to the next, so the first group's eight tweaks come
// from T_0 at once (one multiplication's latency, not seven).
template <XtsStandard S>
HWACCEL_SM4_INLINE __m256i tweak_times_xk(__m256i t, __m256i k) {
    const __m256i k_rest = _mm256_sub_epi64(_mm256_set1_epi64x(64), k);  // 64 - k: a zero result at k = 0
    if constexpr (S == XtsStandard::kIeee) {
        // Little-endian [lo, hi]: left shift; hi's top k bits b come back as
        // b * (x^7 + x^2 + x + 1) in lo.
        const __m256i out = _mm256_srlv_epi64(t, k_rest);  // [lo >> (64-k), hi >> (64-k)]
        const __m256i b = _mm256_srli_si256(out, 8);
        const __m256i r = xor256(xor256(b, _mm256_slli_epi64(b, 1)),
                                 xor256(_mm256_slli_epi64(b, 2), _mm256_slli_epi64(b, 7)));
        return xor256(xor256(_mm256_sllv_epi64(t, k), _mm256_slli_si256(out, 8)), r);
    } else {
        // Big-endian: byte-reversed to [lo, hi], right shift; lo's low k
        // bits b come back as (b * 0xe1) << (57 - k) in hi (the scalar
        // times_x8's rule, for k bits), then reversed back.
        const __m256i rev = _mm256_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
                                             15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        const __m256i u = _mm256_shuffle_epi8(t, rev);
        const __m256i out = _mm256_sllv_epi64(u, k_rest);  // [lo << (64-k), hi << (64-k)]
        const __m256i low_bits = _mm256_srlv_epi64(_mm256_set1_epi64x(-1), k_rest);
        const __m256i b = _mm256_slli_si256(_mm256_and_si256(u, low_bits), 8);  // lo's k bits, in hi
        const __m256i r = xor256(xor256(b, _mm256_slli_epi64(b, 5)),
                                 xor256(_mm256_slli_epi64(b, 6), _mm256_slli_epi64(b, 7)));
        const __m256i shifted = xor256(_mm256_srlv_epi64(u, k), _mm256_srli_si256(out, 8));
        const __m256i v = xor256(shifted, _mm256_sllv_epi64(r, _mm256_sub_epi64(_mm256_set1_epi64x(57), k)));
        return _mm256_shuffle_epi8(v, rev);
    }
}

// The tweaks of a group, or a batch's, as 32-byte-aligned rows (tweak row k
// of a group: its blocks 2k and 2k+1). Only ever loaded and stored as whole
// ymm words: copied as a struct, GCC moved them in 16-byte halves, and the
// 32-byte loads that read them back stalled on store forwarding: the
// larger part of the 11-14% the fused XTS ran behind ECB with the same
// kernel (vaes-avx2, 16 KiB; `hwaccel-engine-bench sm4-xts` times both).
struct TweakRows {
    __m256i r[4];
};
// Four stores in assembly: GCC 12 (AVX-512 targets) merged the intrinsics'
// stores into two zmm stores through a copy in the red zone, which kept the
// next group's tweaks, a secret, below the stack pointer
// (message_stack_residue_test).
HWACCEL_SM4_INLINE void store_tweaks(__m256i* dst, const __m256i (&w)[4]) {
    __asm__("vmovdqa %1, (%0)\n\t"
            "vmovdqa %2, 32(%0)\n\t"
            "vmovdqa %3, 64(%0)\n\t"
            "vmovdqa %4, 96(%0)"
            :
            : "r"(dst), "x"(w[0]), "x"(w[1]), "x"(w[2]), "x"(w[3])
            : "memory");
}

// The first group's tweaks T_0 .. T_7 from T_0 (memory byte order).
template <XtsStandard S>
HWACCEL_SM4_INLINE void first_group_tweaks(__m256i* dst, const uint8_t t0[16]) {
    const __m256i t = _mm256_broadcastsi128_si256(loadu128(t0));
    for (int j = 0; j < 4; ++j)
        _mm256_store_si256(dst + j, tweak_times_xk<S>(t, _mm256_setr_epi64x(2 * j, 2 * j, 2 * j + 1, 2 * j + 1)));
}

// m blocks from group tweaks tw (advanced past the batch's groups). The
// batch's tweaks go to t[0..G-1] while they are made and are xored back in
// from there after the rounds; they stay there for the caller (the last
// batch's give the next tweak), which wipes t once at the end.
template <class K, XtsStandard S, int G>
void xts_batch(const typename K::Keys& keys, uint8_t* out, const uint8_t* in, size_t m, TweakRows& tw,
               TweakRows* t) {
    Rows x[G];
    __m256i w[4];
    for (int k = 0; k < 4; ++k) w[k] = _mm256_load_si256(&tw.r[k]);
    for (int g = 0; g < G; ++g) {
        Rows v = load_rows_any(in + 128 * g, m - 8 * g < 8 ? m - 8 * g : 8);
        store_tweaks(t[g].r, w);
        for (int k = 0; k < 4; ++k) v.r[k] = xor256(v.r[k], w[k]);
        tweaks_times_x8<S>(w);
        x[g] = to_state<K>(v);
    }
    store_tweaks(tw.r, w);
    K::template rounds<G>(x, keys);
    for (int g = 0; g < G; ++g) {
        const size_t mg = m - 8 * g < 8 ? m - 8 * g : 8;
        Rows v = from_state<K>(x[g]);
        for (int k = 0; k < 4; ++k) v.r[k] = xor256(v.r[k], _mm256_load_si256(&t[g].r[k]));
        store_rows_any(out + 128 * g, v, mg);
    }
    K::wipe(x);
}

// --- engine entry points, for a kernel ---------------------------------------------

HWACCEL_SM4_INLINE Counter load_counter(const uint8_t c[16]) {
    return {{load_be32(c), load_be32(c + 4), load_be32(c + 8), load_be32(c + 12)}};
}
HWACCEL_SM4_INLINE void store_counter(uint8_t c[16], const Counter& v) {
    for (int j = 0; j < 4; ++j) store_be32(c + 4 * j, v.w[j]);
}
// counter + n mod 2^128, without branches on the counter.
HWACCEL_SM4_INLINE Counter counter_add(const Counter& c, uint64_t n) {
    const uint64_t hi = uint64_t{c.w[0]} << 32 | c.w[1];
    const uint64_t lo = uint64_t{c.w[2]} << 32 | c.w[3];
    const uint64_t sum = lo + n;
    const uint64_t h = hi + (sum < lo);
    return {{static_cast<uint32_t>(h >> 32), static_cast<uint32_t>(h), static_cast<uint32_t>(sum >> 32),
             static_cast<uint32_t>(sum)}};
}

// Calls f(std::integral_constant<int, G>{}) for the G that covers m
// (1..8 Max) blocks.
template <int G, int Max, class F>
HWACCEL_SM4_INLINE void by_groups_from(size_t groups, F& f) {
    if constexpr (G == Max) {
        f(std::integral_constant<int, G>{});
    } else {
        if (groups == static_cast<size_t>(G)) f(std::integral_constant<int, G>{});
        else by_groups_from<G + 1, Max>(groups, f);
    }
}
template <int Max, class F>
HWACCEL_SM4_INLINE void by_groups(size_t m, F&& f) {
    by_groups_from<1, Max>((m + 7) / 8, f);
}

// The entry points are never inlined, so a caller can wipe the stack they
// used once they return (burn_stack; WipedModes, where needed). Each ends
// with K::clear_registers(), once per call, on every path that ran the cipher:
// the last round keys and block words are still in registers there.
template <class K>
struct BulkModes {
    static constexpr size_t kBatch = 8 * K::kMaxGroups;

    // One block goes K::one_block (cheaper than an 8-block group with either
    // kernel); from two blocks on one group is cheaper than two single
    // blocks. Same rule in every mode (`hwaccel-engine-bench` at 16 and 32 B).
    [[gnu::noinline]] static void ecb(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t n) {
        if (n == 1) {
            storeu128(out, K::one_block(key, direction, loadu128(in)));
            K::clear_registers();
            return;
        }
        const typename K::Keys keys(direction == Sm4Direction::kDecrypt ? key->dec : key->enc);
        while (n != 0) {
            const size_t m = n < kBatch ? n : kBatch;
            by_groups<K::kMaxGroups>(m, [&](auto g) { ecb_batch<K, decltype(g)::value>(keys, out, in, m); });
            in += 16 * m;
            out += 16 * m;
            n -= m;
        }
        K::clear_registers();
    }

    [[gnu::noinline]] static void ctr(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t counter[16]) {
        Counter c = load_counter(counter);
        if (n == 1) {
            const __m128i k = K::one_block(key, Sm4Direction::kEncrypt, loadu128(counter));
            storeu128(out, _mm_xor_si128(k, loadu128(in)));
            store_counter(counter, counter_add(c, 1));
            K::clear_registers();
            return;
        }
        const typename K::Keys keys(key->enc);
        while (n != 0) {
            const size_t m = n < kBatch ? n : kBatch;
            by_groups<K::kMaxGroups>(m, [&](auto g) { ctr_batch<K, decltype(g)::value>(keys, out, in, m, c, 0); });
            in += 16 * m;
            out += 16 * m;
            c = counter_add(c, m);
            n -= m;
        }
        store_counter(counter, c);
        K::clear_registers();
    }

    // The extra block (the counter as given) takes a spare lane of the last
    // batch; with none (n a multiple of kBatch) it is a block of its own.
    // Measured on Zen 5 (TSC ticks, gfni-avx512): 64 blocks 546 against 702
    // for ctr and encrypt_block; taking a batch of its own cost more than
    // encrypt_block (96 blocks: 858 against 806).
    [[gnu::noinline]] static void ctr_with_first(const Sm4Key* key, uint8_t first[16], uint8_t* out, const uint8_t* in,
                                                 size_t n, uint8_t counter[16]) {
        const Counter j0 = load_counter(counter);
        Counter c = counter_add(j0, 1);
        if (n % kBatch == 0) {
            storeu128(first, K::one_block(key, Sm4Direction::kEncrypt, loadu128(counter)));
            store_counter(counter, c);
            if (n != 0) ctr(key, out, in, n, counter);
            K::clear_registers();
            return;
        }
        const typename K::Keys keys(key->enc);
        while (n > kBatch) {
            by_groups<K::kMaxGroups>(kBatch, [&](auto g) { ctr_batch<K, decltype(g)::value>(keys, out, in, kBatch, c, 0); });
            in += 16 * kBatch;
            out += 16 * kBatch;
            c = counter_add(c, kBatch);
            n -= kBatch;
        }
        by_groups<K::kMaxGroups>(n + 1, [&](auto g) { ctr_first_batch<K, decltype(g)::value>(keys, first, out, in, n, c, j0); });
        store_counter(counter, counter_add(c, n));
        K::clear_registers();
    }

    // CBC and CFB decryption: the chaining block of a batch is the previous
    // batch's last ciphertext block, saved before the batch overwrote it.
    template <bool Cbc>
    [[gnu::noinline]] static void chained(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
        const uint32_t* rk = Cbc ? key->dec : key->enc;
        if (n == 1) {
            const __m128i c = loadu128(in);
            const __m128i v = loadu128(iv);
            const __m128i p = Cbc ? _mm_xor_si128(K::one_block(key, Sm4Direction::kDecrypt, c), v)
                                  : _mm_xor_si128(K::one_block(key, Sm4Direction::kEncrypt, v), c);
            storeu128(out, p);
            storeu128(iv, c);
            K::clear_registers();
            return;
        }
        const typename K::Keys keys(rk);
        uint8_t prev[16];
        std::memcpy(prev, iv, 16);
        while (n != 0) {
            const size_t m = n < kBatch ? n : kBatch;
            uint8_t last[16];
            std::memcpy(last, in + 16 * (m - 1), 16);
            by_groups<K::kMaxGroups>(m, [&](auto g) {
                if (Cbc) cbc_dec_batch<K, decltype(g)::value>(keys, out, in, m, prev);
                else cfb_dec_batch<K, decltype(g)::value>(keys, out, in, m, prev);
            });
            std::memcpy(prev, last, 16);
            in += 16 * m;
            out += 16 * m;
            n -= m;
        }
        std::memcpy(iv, prev, 16);
        K::clear_registers();
    }
    template <XtsStandard S>
    [[gnu::noinline]] static void xts_body(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in,
                                           size_t n, uint8_t tweak[16]) {
        if (n == 0) return;
        TweakRows tw, t[K::kMaxGroups];
        first_group_tweaks<S>(tw.r, tweak);
        const typename K::Keys keys(direction == Sm4Direction::kDecrypt ? key->dec : key->enc);
        const size_t total = n;
        while (n != 0) {
            const size_t m = n < kBatch ? n : kBatch;
            by_groups<K::kMaxGroups>(m, [&](auto g) { xts_batch<K, S, decltype(g)::value>(keys, out, in, m, tw, t); });
            in += 16 * m;
            out += 16 * m;
            n -= m;
        }
        // T_total: the first tweak of the group after the last, or inside
        // the last (the last batch's group (total - 1) / 8 % kMaxGroups).
        const TweakRows& from = total % 8 == 0 ? tw : t[(total - 1) / 8 % K::kMaxGroups];
        std::memcpy(tweak, reinterpret_cast<const uint8_t*>(from.r) + 16 * (total % 8), 16);
        wipe32(&tw, 4);
        wipe32(t, 4 * K::kMaxGroups);
        K::clear_registers();
    }
    static void xts(const Sm4Key* key, Sm4Direction direction, XtsStandard standard, uint8_t* out, const uint8_t* in,
                    size_t n, uint8_t tweak[16]) {
        if (standard == XtsStandard::kIeee) xts_body<XtsStandard::kIeee>(key, direction, out, in, n, tweak);
        else xts_body<XtsStandard::kGb>(key, direction, out, in, n, tweak);
    }
    static void cbc_decrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
        chained<true>(key, out, in, n, iv);
    }
    static void cfb_decrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
        chained<false>(key, out, in, n, iv);
    }
};

// The modes, each followed by a wipe of K::kStackBurn bytes of the stack it
// used, where the kernel needs one (none: no call): a kernel in intrinsics
// with more live state vectors than registers makes the compiler spill
// state words and round keys into the mode function's frame, out of reach
// of K::wipe. The x86 kernels leave neither there (assembly, or gfni-avx512's
// intrinsics batches that do not spill); the AESENCLAST and gfni-avx2
// kernels burn only in -O0 and sanitizer builds, whose frames spill what Release
// keeps in registers. One block goes to the one-block path, which wipes its
// own.
template <class K>
struct WipedModes {
    using Modes = BulkModes<K>;
    static constexpr size_t kBatch = Modes::kBatch;
    static HWACCEL_SM4_INLINE void burn(size_t n) {
        if constexpr (K::kStackBurn > 0)
            if (n > 1) burn_stack(K::kStackBurn);
    }
    static void ecb(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t n) {
        Modes::ecb(key, direction, out, in, n);
        burn(n);
    }
    static void ctr(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t counter[16]) {
        Modes::ctr(key, out, in, n, counter);
        burn(n);
    }
    static void ctr_with_first(const Sm4Key* key, uint8_t first[16], uint8_t* out, const uint8_t* in, size_t n,
                               uint8_t counter[16]) {
        Modes::ctr_with_first(key, first, out, in, n, counter);
        burn(n + 1);
    }
    static void xts(const Sm4Key* key, Sm4Direction direction, XtsStandard standard, uint8_t* out,
                    const uint8_t* in, size_t n, uint8_t tweak[16]) {
        Modes::xts(key, direction, standard, out, in, n, tweak);
        burn(n);
    }
    static void cbc_decrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
        Modes::cbc_decrypt(key, out, in, n, iv);
        burn(n);
    }
    static void cfb_decrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
        Modes::cfb_decrypt(key, out, in, n, iv);
        burn(n);
    }
};

}  // namespace
}  // namespace hwaccel::x86::sm4x
