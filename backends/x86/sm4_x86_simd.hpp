// Vector helpers of the x86 SM4 code (sm4_x86_block.cpp, sm4_x86_kernel.hpp,
// sm4_x86_modes.hpp): loads, stores, bytewise affine maps by nibble look-up,
// the 4x4 word transpose and the 8-block group. AVX2: to be included only
// inside a "#pragma GCC target" region that has it, after every shared
// header, hence the unnamed namespace (no inline function of it may be merged
// with a copy built for another ISA).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "x86/clear_upper_vector_registers.hpp"
#include "x86/sm4_x86_maths.hpp"

#define HWACCEL_SM4_INLINE inline __attribute__((always_inline))

namespace hwaccel::x86::sm4x {
namespace {

HWACCEL_SM4_INLINE __m128i ld(const Table16& t) { return _mm_load_si128(reinterpret_cast<const __m128i*>(t.b)); }
HWACCEL_SM4_INLINE __m128i loadu128(const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
HWACCEL_SM4_INLINE void storeu128(uint8_t* p, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }

// Bytewise 8x8 matrix (plus the low table's constant) on a dense register.
HWACCEL_SM4_INLINE __m128i affine128(__m128i x, const Table16& lo, const Table16& hi) {
    const __m128i m = _mm_set1_epi8(0x0F);
    const __m128i l = _mm_and_si128(x, m);
    const __m128i h = _mm_and_si128(_mm_srli_epi16(x, 4), m);
    return _mm_xor_si128(_mm_shuffle_epi8(ld(lo), l), _mm_shuffle_epi8(ld(hi), h));
}

// A 128-bit big-endian counter (CCM's CTR blocks, sm4_x86_block.cpp and
// sm4_x86_gfni_serial.hpp) held as two host integers.
struct Counter128 {
    uint64_t hi, lo;
    // The current counter block (big-endian), then one up, mod 2^128.
    HWACCEL_SM4_INLINE __m128i next() {
        const __m128i b = _mm_set_epi64x(static_cast<long long>(__builtin_bswap64(lo)),
                                         static_cast<long long>(__builtin_bswap64(hi)));
        lo += 1;
        hi += lo == 0;
        return b;
    }
};

HWACCEL_SM4_INLINE __m256i bc(const Table16& t) {
    return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(t.b)));
}
HWACCEL_SM4_INLINE __m256i loadu256(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
HWACCEL_SM4_INLINE void storeu256(uint8_t* p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
HWACCEL_SM4_INLINE __m256i xor256(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }

HWACCEL_SM4_INLINE __m256i affine256(__m256i x, const Table16& lo, const Table16& hi) {
    const __m256i m = _mm256_set1_epi8(0x0F);
    const __m256i l = _mm256_and_si256(x, m);
    const __m256i h = _mm256_and_si256(_mm256_srli_epi16(x, 4), m);
    return xor256(_mm256_shuffle_epi8(bc(lo), l), _mm256_shuffle_epi8(bc(hi), h));
}

// VZEROALL, and xmm16-31 in a build that targets AVX-512F (-march=native
// on such a CPU): GCC then allocates them in these AVX2 files too (it left
// key words in zmm17 after gfni-avx2's and vaes-avx2's set_key,
// scripts/flags-matrix.sh), and VZEROALL does not reach them. Any other
// build cannot use them: there this is VZEROALL alone.
HWACCEL_SM4_INLINE void zeroall() {
    _mm256_zeroall();
#if defined(__AVX512F__)
    clear_xmm16_31();
#endif
}

// Wipes n 32-byte-aligned 32-byte slots with vector stores. In assembly:
// GCC turns store loops and memset of these sizes into rep stosq, whose
// start-up cost showed in profiles (a few percent of a 32-block batch).
HWACCEL_SM4_INLINE void wipe32(void* p, size_t n) {
    __asm__ volatile(
        "vpxor %%xmm0, %%xmm0, %%xmm0\n\t"
        "1:\n\t"
        "vmovdqa %%ymm0, (%[p])\n\t"
        "add $32, %[p]\n\t"
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        : [p] "+r"(p), [n] "+r"(n)
        :
        : "cc", "memory", "xmm0");
}

// Zeroes the `bytes` (a positive multiple of 128: four stores an iteration,
// so that the loop runs at the stores' rate) of stack just below its
// return address, that is just below its caller: where the functions the
// caller called before kept their frames, spill slots and red zones, which
// no wipe of theirs can reach (the compiler spills state of intrinsics code
// that has more live vectors than registers). In assembly, from the stack
// pointer down, so that no frame layout or alignment of its own leaves a
// gap; not inlined, so the stack pointer is the caller's minus the return
// address. The stack pointer is lowered over the area while it is written
// (and restored): stores below it are invalid to valgrind, which runs the
// AES-NI engine in the constant-time check and extends the stack only as
// the pointer moves.
[[gnu::noinline]] inline void burn_stack(size_t bytes) {
    __asm__ volatile(
        "vpxor %%xmm0, %%xmm0, %%xmm0\n\t"
        "mov %%rsp, %%rax\n\t"
        "sub %[n], %%rsp\n\t"
        "1:\n\t"
        "sub $128, %%rax\n\t"
        "vmovdqu %%ymm0, (%%rax)\n\t"
        "vmovdqu %%ymm0, 32(%%rax)\n\t"
        "vmovdqu %%ymm0, 64(%%rax)\n\t"
        "vmovdqu %%ymm0, 96(%%rax)\n\t"
        "cmp %%rsp, %%rax\n\t"
        "ja 1b\n\t"
        "add %[n], %%rsp\n\t"
        "vzeroupper\n\t"
        : [n] "+r"(bytes)
        :
        : "cc", "memory", "rax", "xmm0");
}

// 4x4 transpose of 32-bit words in each 128-bit lane (its own inverse).
HWACCEL_SM4_INLINE void transpose(__m256i& a, __m256i& b, __m256i& c, __m256i& d) {
    const __m256i t0 = _mm256_unpacklo_epi32(a, b), t1 = _mm256_unpackhi_epi32(a, b);
    const __m256i t2 = _mm256_unpacklo_epi32(c, d), t3 = _mm256_unpackhi_epi32(c, d);
    a = _mm256_unpacklo_epi64(t0, t2);
    b = _mm256_unpackhi_epi64(t0, t2);
    c = _mm256_unpacklo_epi64(t1, t3);
    d = _mm256_unpackhi_epi64(t1, t3);
}

// A group: 8 blocks as 4 "rows" of two blocks (row k = blocks 2k, 2k+1) or,
// once transposed, as 4 words (word j of blocks 0,2,4,6 | 1,3,5,7).
struct Rows {
    __m256i r[4];
};

}  // namespace
}  // namespace hwaccel::x86::sm4x
