// What the x86 carry-less-multiply GHASH engines share (ghash_pclmul.cpp,
// ghash_vpclmul.cpp): the field arithmetic on xmm registers, the key
// schedule, and the aggregated update of up to 32 blocks with 128-bit
// registers (their tails, and the whole of the PCLMULQDQ engine).
//
// Representation. A block is loaded with its 16 bytes reversed, so the xmm
// register holds GCM's 128-bit string as one big-endian integer: the
// coefficient of x^i is at bit 127 - i. For such bit-reversed operands a and
// b, PCLMULQDQ's 255-bit product a*b is the reversal of the field product,
// and reducing it modulo GCM's polynomial P becomes a Montgomery reduction
// modulo the reversed polynomial P' = x^128 + x^127 + x^126 + x^121 + 1:
// with D the 256-bit product, D * x^-128 mod P' in two 64-bit folds, each
// one PCLMULQDQ of the low quadword by x^63 + x^62 + x^57 (0xc2 << 56; the
// x^128 term is the quadword swap). Reversed field product and Montgomery
// result differ by one factor x, which the key schedule puts into H once:
// the table holds H^k * x mod P' ("H'^k"), so (bit-reversed Y) * H'^k,
// reduced, is the bit-reversed Y * H^k.
//
// Aggregation. GHASH over blocks X_0..X_{m-1} from Y is
//     sum_i (X_i ^ [i = 0] Y) * H^(m - i),
// so the m products are summed unreduced (carry-less sums are XORs) and
// reduced once per group; Y's product is added last (finish_group). Each
// 128x128 product is Karatsuba's three 64x64 products; the table keeps the
// XOR of each power's halves.
//
// Table (GhashKey::engine_data, all 1024 bytes), 16-byte slots: slot s
// holds H'^(32 - s) (s = 0..31), then slot 32 + s the Karatsuba word of the
// same power in both quadwords; only the first GhashKey::engine_count
// powers are computed (ensure_powers extends them). Descending powers make the m blocks of a
// group (m <= 32) read slots 32 - m + i: block i meets H'^(m - i), and a
// 32- or 64-byte load at a block's slot fetches the powers of it and its
// next 1 or 3 blocks in lane order.
//
// Constant-time: no branch or address depends on H, Y or the data (the
// group sizes depend on the block count only). H is key material: the
// engines clear the vector registers they used before returning, and keep
// everything in registers: none of their functions writes to the stack
// besides the return address and the caller's callee-saved registers
// (push; GCC 12, -O2; check after changes with
//   objdump -d -C build/backends/CMakeFiles/hwaccel_backend_objects.dir/x86/ghash_*.o | grep 'rsp\|rbp'
// which should show only push/pop and frame set-up, no load or store).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"

#define HWACCEL_CLMUL_INLINE inline __attribute__((always_inline, target("pclmul,ssse3")))
#define HWACCEL_CLMUL __attribute__((target("pclmul,ssse3")))

namespace hwaccel::x86::ghash_clmul {

constexpr size_t kPowers = 32;
static_assert(kPowers <= 255, "GhashKey::engine_count is a byte");
constexpr size_t kKaratsubaSlots = kPowers;  // first Karatsuba slot
static_assert(16 * (kPowers + kKaratsubaSlots) <= GhashKey::kEngineDataSize, "engine_data too small");

// Offset in engine_data of the slot of block i in a group of m blocks.
inline size_t power_slot(size_t m, size_t i) { return 16 * (kPowers - m + i); }
inline size_t karatsuba_slot(size_t m, size_t i) { return 16 * (kKaratsubaSlots + kPowers - m + i); }

HWACCEL_CLMUL_INLINE __m128i byte_reverse_mask() {
    return _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

HWACCEL_CLMUL_INLINE __m128i load_reversed(const uint8_t* p) {
    return _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), byte_reverse_mask());
}
HWACCEL_CLMUL_INLINE void store_reversed(uint8_t* p, __m128i v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_shuffle_epi8(v, byte_reverse_mask()));
}

// x^63 + x^62 + x^57 in the low quadword: P' without x^128 and 1, over x^64.
HWACCEL_CLMUL_INLINE __m128i fold_constant() { return _mm_set_epi64x(0, int64_t(0xc200000000000000ull)); }

// Unreduced 256-bit product hi:lo, with Karatsuba's middle product folded in.
struct Wide {
    __m128i lo, hi, mid;
};

HWACCEL_CLMUL_INLINE Wide zero_wide() {
    return {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()};
}

// acc += a * h, where k is h's Karatsuba word (the XOR of its quadwords).
HWACCEL_CLMUL_INLINE void accumulate(Wide& acc, __m128i a, __m128i h, __m128i k) {
    acc.lo = _mm_xor_si128(acc.lo, _mm_clmulepi64_si128(a, h, 0x00));
    acc.hi = _mm_xor_si128(acc.hi, _mm_clmulepi64_si128(a, h, 0x11));
    const __m128i a_sum = _mm_xor_si128(a, _mm_shuffle_epi32(a, 0x4e));
    acc.mid = _mm_xor_si128(acc.mid, _mm_clmulepi64_si128(a_sum, k, 0x00));
}

// (hi:lo) * x^-128 mod P', given Karatsuba's three sums.
HWACCEL_CLMUL_INLINE __m128i reduce(const Wide& w) {
    const __m128i mid = _mm_xor_si128(w.mid, _mm_xor_si128(w.lo, w.hi));
    __m128i lo = _mm_xor_si128(w.lo, _mm_slli_si128(mid, 8));
    const __m128i hi = _mm_xor_si128(w.hi, _mm_srli_si128(mid, 8));
    const __m128i c = fold_constant();
    // Each fold cancels the low quadword q (adding q * P') and divides by
    // x^64: q * (x^63 + x^62 + x^57) lands in place, q * x^128 / x^64 is
    // the swap.
    lo = _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e), _mm_clmulepi64_si128(lo, c, 0x00));
    lo = _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e), _mm_clmulepi64_si128(lo, c, 0x00));
    return _mm_xor_si128(lo, hi);
}

HWACCEL_CLMUL_INLINE __m128i karatsuba_word(__m128i h) { return _mm_xor_si128(h, _mm_shuffle_epi32(h, 0x4e)); }

HWACCEL_CLMUL_INLINE __m128i multiply(__m128i a, __m128i h) {
    Wide w = zero_wide();
    accumulate(w, a, h, karatsuba_word(h));
    return reduce(w);
}

HWACCEL_CLMUL_INLINE void store_power(GhashKey* key, size_t k, __m128i power) {
    uint8_t* slot = key->engine_data + 16 * (kPowers - k);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(slot), power);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(slot + 16 * kKaratsubaSlots), karatsuba_word(power));
}

// The key schedule every CLMUL engine uses: H' = H * x mod P' (a shift,
// then P' - x^128 added when a bit left the top, by mask) and nothing more:
// its powers come when an update first needs them (ensure_powers), so a
// message of a few blocks under a new key (openssl speed's, TLS's) does not
// pay for 31 products. engine_count is the number of powers in the table.
// The previous key's powers are wiped whatever the key held before (a
// 1 KiB memset, cheap beside one product chain; reading the old count
// would trust memory a caller may not have initialised).
HWACCEL_CLMUL inline void set_key(GhashKey* key, const uint8_t h[16]) {
    secure_zero(key->engine_data, sizeof key->engine_data);
    std::memcpy(key->h, h, 16);
    const __m128i v = load_reversed(h);
    const __m128i top = _mm_shuffle_epi32(_mm_srai_epi32(v, 31), 0xff);  // all ones if bit 127 set
    const __m128i poly = _mm_set_epi64x(int64_t(0xc200000000000000ull), 1);
    const __m128i shifted = _mm_or_si128(_mm_slli_epi64(v, 1), _mm_srli_epi64(_mm_slli_si128(v, 8), 63));
    store_power(key, 1, _mm_xor_si128(shifted, _mm_and_si128(top, poly)));
    key->engine_count = 1;
}

HWACCEL_CLMUL_INLINE __m128i load_slot(const GhashKey* key, size_t offset) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(key->engine_data + offset));
}

// H'^1..H'^n (n <= kPowers) in the table, the missing ones as products of
// two lower ones (Montgomery keeps the single factor x): H'^k = H'^(k - b) *
// H'^b with b the largest power of two below k, so that the products of
// k = b+1..2b read only powers up to b and run side by side, log2(n)
// products deep instead of n - 1 (a new key per message, as in openssl
// speed or a TLS handshake's first records, pays this chain on its first
// update). Depends on n and the counts of earlier updates only, never on H.
// Call before any load of an m-block group's powers with n >= m.
HWACCEL_CLMUL_INLINE void ensure_powers(GhashKey* key, size_t n) {
    if (n <= key->engine_count) return;
    for (size_t k = key->engine_count + size_t{1}; k <= n; ++k) {  // k >= 2: set_key stored H'^1
        const size_t b = size_t{1} << (63 - __builtin_clzll(k - 1));
        store_power(key, k, multiply(load_slot(key, 16 * (kPowers - (k - b))), load_slot(key, 16 * (kPowers - b))));
    }
    key->engine_count = static_cast<uint8_t>(n);  // n <= kPowers = 32
}

// The key pointer, made opaque to the compiler once per group: otherwise it
// hoists the table's loads out of the loop and, short of registers, copies
// H's powers to the stack, where they would outlive the call. clang hoists
// a plain asm with a loop-invariant operand out of the loop, and the loads
// with it (vpclmul-avx512 then spilled a zmm of powers): volatile there.
// GCC keeps the plain asm in the loop; volatile would move its register
// copies around, so its code stays as it was.
inline const GhashKey* per_group(const GhashKey* key) {
#if defined(__clang__)
    __asm__ volatile("" : "+r"(key));
#else
    __asm__("" : "+r"(key));
#endif
    return key;
}

// Blocks first..m-1 of an m-block group (m <= kPowers) into acc, one per xmm.
HWACCEL_CLMUL_INLINE void accumulate_blocks(Wide& acc, const GhashKey* key, const uint8_t* data, size_t m,
                                            size_t first) {
    for (size_t i = first; i < m; ++i)
        accumulate(acc, load_reversed(data + 16 * i), load_slot(key, power_slot(m, i)),
                   load_slot(key, karatsuba_slot(m, i)));
}

// Ends an m-block group whose data products are in acc: the new Y. Y's own
// product, (X_0 ^ Y) * H^m = X_0 * H^m ^ Y * H^m, joins last, so the data's
// products do not wait for the previous group: only this product, the
// Karatsuba combination and the reduction lie on the chain from Y to Y.
HWACCEL_CLMUL_INLINE __m128i finish_group(Wide acc, const GhashKey* key, __m128i y, size_t m) {
    accumulate(acc, y, load_slot(key, power_slot(m, 0)), load_slot(key, karatsuba_slot(m, 0)));
    return reduce(acc);
}

// Zeroes xmm0-15 (legacy SSE encoding, so any x86-64 CPU), where H's
// powers, Y and the products were, and xmm16-31 too when the whole build
// targets AVX-512 (-march=native on such a CPU): only then may the
// compiler put values there in SSE-target code. The clobbers tell the
// compiler nothing it holds survives.
inline void clear_xmm_registers() {
    __asm__ volatile(
        "pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\tpxor %%xmm3, %%xmm3\n\t"
        "pxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\tpxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\t"
        "pxor %%xmm8, %%xmm8\n\tpxor %%xmm9, %%xmm9\n\tpxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"
        "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\tpxor %%xmm14, %%xmm14\n\tpxor %%xmm15, %%xmm15"
        ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
            "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#if defined(__AVX512F__)
    __asm__ volatile(
        ".irp r, 16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
        "vpxord %%xmm\\r, %%xmm\\r, %%xmm\\r\n"
        ".endr" ::
            : "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm24", "xmm25",
              "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31");
#endif
}

}  // namespace hwaccel::x86::ghash_clmul
