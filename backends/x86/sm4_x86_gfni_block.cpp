// The one-block path of the x86 GFNI SM4 engines (declared in
// sm4_x86_gfni_block.hpp): the VEX rounds for the key schedule
// (sm4_x86_gfni_schedule.hpp) and for one block through 32 folded rounds
// (sm4_x86_gfni_maths.hpp) and the serial modes (sm4_x86_gfni_serial.hpp).
// gfni-avx2 uses all of it; gfni-avx512 has its EVEX forms
// (sm4_x86_gfni512_block.cpp). No look-up, no
// secret-dependent branch or address: constant time by construction.
//
// Layout: each of the four words in its own xmm register, in all four
// 32-bit lanes, memory byte order, A1 domain. Per round the chain is one
// GF2P8AFFINEINVQB, a byte rotation (PSHUFB) and two XORs: with
// u_i = Y_{i+1} ^ Y_{i+2} ^ Y_{i+3} ^ rk'_i the S-box input of round i and
// Y_{i+4} = Y_i ^ V(u_i), Y_{i+2} ^ Y_{i+3} = u_i ^ Y_{i+1} ^ rk'_i, so
//     u_{i+1} = (u_i ^ b_i) ^ V(u_i),  b_i = Y_i ^ Y_{i+1} ^ rk'_i ^ rk'_{i+1}
// where b_i depends on words computed at least three rounds before (the
// key words hold rk'_i ^ rk'_{i+1}): u_i ^ b_i is one XOR after u_i, done
// while the GFNI ops run, and V's five terms are summed as
// ((u_i ^ b_i ^ v0) ^ rol24 v3) ^ (rol8 v1 ^ rol16 v1). The new word
// Y_{i+4} = Y_i ^ V(u_i) = Y_i ^ u_{i+1} ^ (u_i ^ b_i) follows off the chain.
// (The earlier form, u_{i+1} = (Y_i ^ Y_{i+2} ^ Y_{i+3} ^ rk'_{i+1}) ^ V(u_i),
// waited for Y_{i+3}, one XOR after u_i, and two XORs more: on Zen 5 12.0
// cycles a round in a microbenchmark, this form 9.7.)
//
// No per-file compile flags: the code below the includes is compiled for
// GFNI + AVX2 through #pragma GCC target, VEX encodings only (no AVX-512 in
// the target, so the compiler cannot pick EVEX forms): what a GFNI instruction
// model can run on CPUs without GFNI. The shared headers, included first,
// stay baseline.
#include "x86/sm4_x86_gfni_block.hpp"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/sm4_key_schedule.hpp"
#include "x86/sm4_x86_gfni_maths.hpp"
#include "x86/sm4_x86_maths.hpp"

// clang ignores "#pragma GCC target": the same target on every function
// defined in the region (lambdas and templates too).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("gfni,avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("gfni,avx2")
#endif

#include "x86/sm4_x86_simd.hpp"
#include "x86/sm4_x86_gfni_serial.hpp"
#include "x86/sm4_x86_gfni_schedule.hpp"

namespace hwaccel::x86::sm4x::gfni {
namespace {

// The VEX round of the key schedule (sm4_x86_gfni_schedule.hpp): the
// one-block round (below) with L' for L, four GFNI ops.
struct VexScheduleRound {
    struct Consts {
        __m256i g0, g1, g2, g3, r8, r16, r24;
    };
    static HWACCEL_SM4_INLINE Consts consts() {
        return {mat256(kG0), mat256(kG1), mat256(kG2), mat256(kG3), bcast128(kRol8.b), bcast128(kRol16.b),
                bcast128(kRol24.b)};
    }
    static HWACCEL_SM4_INLINE void round(const Consts& c, __m256i& u, __m256i& ya, __m256i b) {
        const ScheduleMaps w = schedule_maps(u, c);
        const __m256i ub = _mm256_xor_si256(u, b);
        // Opaque to the compiler, as in VexRound: the sums stay as written.
        __m256i a = _mm256_xor_si256(ub, w.w0);
        __asm__("" : "+x"(a));
        __m256i x = _mm256_xor_si256(_mm256_shuffle_epi8(w.w1, c.r8), _mm256_shuffle_epi8(w.w2, c.r16));
        __m256i z = _mm256_xor_si256(a, _mm256_shuffle_epi8(w.w3, c.r24));
        __asm__("" : "+x"(x), "+x"(z));
        end_schedule_round(u, ya, ub, _mm256_xor_si256(z, x));
    }
};

// The VEX round (see the top of the file).
struct VexRound {
    struct Consts {
        __m128i f0, f1, f3, r8, r16, r24;
    };
    static HWACCEL_SM4_INLINE Consts consts() {
        return {mat(kF0), mat(kF1), mat(kF3), ld(kRol8), ld(kRol16), ld(kRol24)};
    }

    // Round i: u is its S-box input; ya = Y_i becomes Y_{i+4}; yb = Y_{i+1};
    // kk = rk'_i ^ rk'_{i+1}. Leaves u_{i+1} in u. kFirst (round 0): Y_0 joins
    // last, as u_{i+1} = ((u_i ^ Y_1 ^ kk) ^ V(u_i)) ^ Y_0, since in the serial
    // modes Y_0 is the previous block's last word, still being computed while
    // this block's u_0 (from its other three words) is ready.
    template <bool kFirst = false>
    static HWACCEL_SM4_INLINE void round(const Consts& c, __m128i& u, __m128i& ya, __m128i yb, __m128i kk) {
        // Each of v0, v1, v3 has three operations after it before u_{i+1}.
        const __m128i v1 = _mm_gf2p8affineinv_epi64_epi8(u, c.f1, kF1c);
        const __m128i v3 = _mm_gf2p8affineinv_epi64_epi8(u, c.f3, kF3c);
        const __m128i v0 = _mm_gf2p8affineinv_epi64_epi8(u, c.f0, kF0c);
        // Opaque to the compiler, like a, w and z below: otherwise it
        // reassociates the XORs into a longer chain (u ^ Y first, the key last).
        __m128i b = kFirst ? _mm_xor_si128(yb, kk) : _mm_xor_si128(_mm_xor_si128(ya, yb), kk);
        __asm__("" : "+x"(b));
        const __m128i ub = _mm_xor_si128(u, b);
        __m128i a = _mm_xor_si128(ub, v0);  // early: ub and v0 come first
        __asm__("" : "+x"(a));
        __m128i w = _mm_xor_si128(_mm_shuffle_epi8(v1, c.r8), _mm_shuffle_epi8(v1, c.r16));
        __m128i z = _mm_xor_si128(a, _mm_shuffle_epi8(v3, c.r24));
        __asm__("" : "+x"(w), "+x"(z));  // the two halves as written, each two deep
        end_round<kFirst>(u, ya, ub, _mm_xor_si128(z, w));
    }
};

using OneBlockRound = VexRound;
using ScheduleRound = VexScheduleRound;
// VEX code cannot reach xmm16-31: nothing beyond VZEROALL to clear.
HWACCEL_SM4_INLINE void clear_extra_registers() {}

}  // namespace

#include "x86/sm4_x86_gfni_block_functions.inc"

}  // namespace hwaccel::x86::sm4x::gfni

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
