// The one-block path of the gfni-avx512 engine: sm4_x86_gfni_block.cpp's
// rounds (see there) with AVX-512VL's three-input XOR and VPROLD, through the
// same serial modes (sm4_x86_gfni_serial.hpp), key schedule
// (sm4_x86_gfni_schedule.hpp) and key words. Per block round the chain is
// a GFNI op, a rotation, an XOR and a VPTERNLOGD:
//     u_{i+1} = (rol8 v1 ^ rol16 v1) ^ (u_i ^ b_i ^ v0) ^ rol24 v3
// with the first bracket as VPTERNLOGD's destination: on AMD Zen 5 its tied
// operand is forwarded in 2 cycles, the other two in 3 (measured). The
// rotations run beside the GFNI ops (PSHUFB shares their two pipes on
// Zen 5, VPROLD only partly). Measured on Zen 5 in a throw-away
// microbenchmark: 9.3 cycles a round against the VEX round's 10.0.
// (Four byte-rotated copies of u, which take the rotations off the chain,
// need 12 GFNI ops a round on Zen 5's two GFNI pipes, and two copies 6:
// both measured slower.)
//
// No per-file compile flags: compiled for GFNI + AVX-512F/VL through
// #pragma GCC target below; the shared headers, included first, stay
// baseline. Only the gfni-avx512 engine calls it (after its available()).
#include "x86/sm4_x86_gfni512_block.hpp"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/sm4_key_schedule.hpp"
#include "x86/clear_upper_vector_registers.hpp"
#include "x86/sm4_x86_gfni_maths.hpp"
#include "x86/sm4_x86_maths.hpp"

// clang ignores "#pragma GCC target": the same target on every function
// defined in the region (lambdas and templates too).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("gfni,avx2,avx512f,avx512vl"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("gfni,avx2,avx512f,avx512vl")
#endif
// GCC 12's AVX-512 intrinsics initialise their "undefined" pass-through
// operands from themselves, which -Wuninitialized reports once inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#if !defined(__clang__)  // GCC's own warning
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "x86/sm4_x86_simd.hpp"
#include "x86/sm4_x86_gfni_serial.hpp"
#include "x86/sm4_x86_gfni_schedule.hpp"

namespace hwaccel::x86::sm4x::gfni512 {
namespace {

using namespace gfni;

// The round of sm4_x86_gfni_serial.hpp's policy, EVEX.
struct EvexRound {
    struct Consts {
        __m128i f0, f1, f3;
    };
    static HWACCEL_SM4_INLINE Consts consts() { return {mat(kF0), mat(kF1), mat(kF3)}; }

    // As VexRound::round (sm4_x86_gfni_block.cpp).
    template <bool kFirst = false>
    static HWACCEL_SM4_INLINE void round(const Consts& c, __m128i& u, __m128i& ya, __m128i yb, __m128i kk) {
        const __m128i v1 = _mm_gf2p8affineinv_epi64_epi8(u, c.f1, kF1c);
        const __m128i v3 = _mm_gf2p8affineinv_epi64_epi8(u, c.f3, kF3c);
        const __m128i v0 = _mm_gf2p8affineinv_epi64_epi8(u, c.f0, kF0c);
        // Opaque to the compiler (as in VexRound), so the sums stay as written.
        __m128i b = kFirst ? _mm_xor_si128(yb, kk) : _mm_ternarylogic_epi32(ya, yb, kk, 0x96);
        __asm__("" : "+v"(b));
        const __m128i ub = _mm_xor_si128(u, b);
        __m128i a = _mm_xor_si128(ub, v0);
        __m128i x = _mm_xor_si128(_mm_rol_epi32(v1, kLaneRol8), _mm_rol_epi32(v1, kLaneRol16));
        const __m128i r = _mm_rol_epi32(v3, kLaneRol24);
        // x ^= a ^ r, x the destination (the late operand: see the top).
        __asm__("vpternlogd $0x96, %[r], %[a], %[x]" : [x] "+v"(x) : [a] "v"(a), [r] "v"(r));
        end_round<kFirst>(u, ya, ub, x);
    }
};

// The key schedule's round (sm4_x86_gfni_schedule.hpp), EVEX: the
// rotations by VPROLD, off the GFNI ops' pipes, and the last two XORs as
// one VPTERNLOGD, the late operand as destination (as in EvexRound).
struct EvexScheduleRound {
    struct Consts {
        __m256i g0, g1, g2, g3;
    };
    static HWACCEL_SM4_INLINE Consts consts() { return {mat256(kG0), mat256(kG1), mat256(kG2), mat256(kG3)}; }
    static HWACCEL_SM4_INLINE void round(const Consts& c, __m256i& u, __m256i& ya, __m256i b) {
        const ScheduleMaps w = schedule_maps(u, c);
        const __m256i ub = _mm256_xor_si256(u, b);
        __m256i a = _mm256_xor_si256(ub, w.w0);
        __asm__("" : "+v"(a));
        __m256i x = _mm256_xor_si256(_mm256_rol_epi32(w.w1, kLaneRol8), _mm256_rol_epi32(w.w2, kLaneRol16));
        const __m256i r = _mm256_rol_epi32(w.w3, kLaneRol24);
        // x ^= a ^ r, x the destination.
        __asm__("vpternlogd $0x96, %[r], %[a], %[x]" : [x] "+v"(x) : [a] "v"(a), [r] "v"(r));
        end_schedule_round(u, ya, ub, x);
    }
};

using OneBlockRound = EvexRound;
using ScheduleRound = EvexScheduleRound;
// VZEROALL does not reach xmm16-31, where EVEX code may keep round state.
HWACCEL_SM4_INLINE void clear_extra_registers() { clear_xmm16_31(); }

}  // namespace

#include "x86/sm4_x86_gfni_block_functions.inc"

}  // namespace hwaccel::x86::sm4x::gfni512

#pragma GCC diagnostic pop
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
