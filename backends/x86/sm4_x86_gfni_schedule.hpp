// The key schedule of the x86 GFNI one-block path (sm4_schedule::expand's
// rounds), over a round given as a policy R (the VEX round of
// sm4_x86_gfni_block.cpp, the EVEX round of sm4_x86_gfni512_block.cpp):
// the standard round keys into key->enc/dec and the one-block path's key
// words (sm4_x86_gfni_serial.hpp) into key->engine_data. R has
//   struct Consts;  static Consts consts();
//   static void round(const Consts&, __m256i& u, __m256i& ya, __m256i b);
// (round i: u = u_i becomes u_{i+1}, ya = Y_i becomes Y_{i+4}, b = b_i).
//
// The schedule is run the way the one-block path runs its rounds, on the
// words Y_i = A1 K_i kept in the A1 domain, each broadcast in a ymm register
// (set_key_pair: key a in lanes 0-3, key b in lanes 4-7; every step acts
// lane by lane, so the pair costs one chain). With
// u_i = Y_{i+1} ^ Y_{i+2} ^ Y_{i+3} ^ ck'_i (ck'_i = A1 CK_i ^ c1) the S-box
// input of round i, and V' = A1 L' S A1inv folded into the matrices G_d
// (sm4_x86_gfni_maths.hpp),
//     u_{i+1} = (u_i ^ b_i) ^ V'(u_i),  b_i = Y_i ^ Y_{i+1} ^ ck'_i ^ ck'_{i+1}
//     Y_{i+4} = Y_i ^ V'(u_i) = (Y_i ^ u_i ^ b_i) ^ u_{i+1}
// so the chain per round is a GFNI op, a byte rotation and two XORs (the
// former schedule: three XORs, two GFNI ops, L' as shifts and ORs, an XOR):
// b_i needs words made three rounds before, the new word leaves the chain.
// Y_{i+4} is rk_i in the domain, so the one-block path's key words
// (rk'_i = Y_{i+4} ^ c1) come straight from the registers, four rounds at a
// time; the standard round keys take A1inv and a byte swap. All off the
// chain. Include inside the file's "#pragma GCC target" region, after every
// shared header (hence the unnamed namespace: each ISA its own copy).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "hwaccel/engines.hpp"
#include "hwaccel/sm4_key_schedule.hpp"
#include "x86/sm4_x86_gfni_maths.hpp"
#include "x86/sm4_x86_gfni_serial.hpp"
#include "x86/sm4_x86_maths.hpp"
#include "x86/sm4_x86_simd.hpp"

namespace hwaccel::x86::sm4x::gfni {
namespace {

// The round constants in the domain, as lane values (memory byte order).
struct CkDomain {
    uint32_t first;   // ck'_0
    uint32_t kk[32];  // ck'_i ^ ck'_{i+1}, ck'_32 = 0 (b_31 cancels out of Y_35)
    static constexpr uint32_t domain(uint32_t w) {
        uint32_t r = 0;
        for (int q = 0; q < 4; ++q)
            r |= uint32_t{static_cast<uint8_t>(affine(kA1, (w >> (24 - 8 * q)) & 0xFF) ^ kC1)} << (8 * q);
        return r;
    }
    constexpr CkDomain() : first(domain(sm4_schedule::ck_word(0))), kk{} {
        for (int i = 0; i < 32; ++i)
            kk[i] = domain(sm4_schedule::ck_word(i)) ^ (i < 31 ? domain(sm4_schedule::ck_word(i + 1)) : 0u);
    }
};
constexpr CkDomain kCkDomain;
// FK in memory byte order, XORed into the user key before the domain.
struct FkBytes {
    alignas(16) uint8_t b[16];
    constexpr FkBytes() : b{} {
        for (int i = 0; i < 16; ++i) b[i] = static_cast<uint8_t>(sm4_schedule::kFK[i / 4] >> (24 - 8 * (i % 4)));
    }
};
constexpr FkBytes kFkBytes;

HWACCEL_SM4_INLINE __m256i mat256(uint64_t a) { return _mm256_set1_epi64x(static_cast<long long>(a)); }
HWACCEL_SM4_INLINE __m256i bcast128(const uint8_t* p) {
    return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(p)));
}
HWACCEL_SM4_INLINE __m256i bcast_word(const uint32_t* p) {
    return _mm256_castps_si256(_mm256_broadcast_ss(reinterpret_cast<const float*>(p)));
}

// b_i from Y_i and Y_{i+1}; opaque, so that the compiler keeps it off the
// chain (u_i ^ b_i one XOR after u_i).
HWACCEL_SM4_INLINE __m256i b_word(__m256i ya, __m256i yb, int i) {
    __m256i b = _mm256_xor_si256(_mm256_xor_si256(ya, yb), bcast_word(kCkDomain.kk + i));
    __asm__("" : "+v"(b));  // "v": any register the target has
    return b;
}

// What the policies' rounds share: u_i's four affine-inverse maps (G_d from
// R::Consts' g0-g3; V'(u_i) is their rotations summed), and the round's end:
// u_{i+1} = next into u, Y_{i+4} = (Y_i ^ u_i ^ b_i) ^ u_{i+1} into ya
// (ub = u_i ^ b_i), one XOR after u_{i+1}.
struct ScheduleMaps {
    __m256i w0, w1, w2, w3;
};
template <class Consts>
HWACCEL_SM4_INLINE ScheduleMaps schedule_maps(__m256i u, const Consts& c) {
    const __m256i w1 = _mm256_gf2p8affineinv_epi64_epi8(u, c.g1, kG1c);
    const __m256i w2 = _mm256_gf2p8affineinv_epi64_epi8(u, c.g2, kG2c);
    const __m256i w3 = _mm256_gf2p8affineinv_epi64_epi8(u, c.g3, kG3c);
    const __m256i w0 = _mm256_gf2p8affineinv_epi64_epi8(u, c.g0, kG0c);
    return {w0, w1, w2, w3};
}
HWACCEL_SM4_INLINE void end_schedule_round(__m256i& u, __m256i& ya, __m256i ub, __m256i next) {
    __m256i e = _mm256_xor_si256(ub, ya);
    __asm__("" : "+v"(e));  // opaque: the sums stay as written
    ya = _mm256_xor_si256(e, next);  // Y_i ^ V'(u_i)
    u = next;
}

HWACCEL_SM4_INLINE void store128(void* p, __m128i v) { _mm_storeu_si128(static_cast<__m128i*>(p), v); }
// Each half of v to its key (set_key: the low half only).
template <bool kPair>
HWACCEL_SM4_INLINE void store_halves(Sm4Key* a, Sm4Key* b, size_t offset, __m256i v) {
    store128(reinterpret_cast<uint8_t*>(a) + offset, _mm256_castsi256_si128(v));
    if constexpr (kPair) store128(reinterpret_cast<uint8_t*>(b) + offset, _mm256_extracti128_si256(v, 1));
}
constexpr size_t kEncAt = offsetof(Sm4Key, enc), kDecAt = offsetof(Sm4Key, dec);
constexpr size_t kEncWordsAt = offsetof(Sm4Key, engine_data) + kEncOffset;
constexpr size_t kDecWordsAt = offsetof(Sm4Key, engine_data) + kDecOffset;
// The one-block path's key words 1 + 4m .. 4 + 4m from its rk' words
// 4m .. 4m + 3 (g) and 4m + 4 .. 4m + 7 (next, zero past the end).
HWACCEL_SM4_INLINE __m256i adjacent_xor(__m256i g, __m256i next) {
    return _mm256_xor_si256(g, _mm256_alignr_epi8(next, g, 4));
}

template <class R, bool kPair>
HWACCEL_SM4_INLINE void schedule(Sm4Key* a, Sm4Key* b, __m256i z) {
    const typename R::Consts c = R::consts();
    z = _mm256_gf2p8affine_epi64_epi8(z, mat256(kA1), 0);
    __m256i y0 = _mm256_shuffle_epi32(z, 0x00), y1 = _mm256_shuffle_epi32(z, 0x55),
            y2 = _mm256_shuffle_epi32(z, 0xAA), y3 = _mm256_shuffle_epi32(z, 0xFF);
    __m256i u = _mm256_xor_si256(_mm256_xor_si256(y1, y2), _mm256_xor_si256(y3, bcast_word(&kCkDomain.first)));
    const __m256i zero = _mm256_setzero_si256();
    store_halves<kPair>(a, b, kEncWordsAt + 128, zero);  // words 32-35 (32 rewritten below)
    store_halves<kPair>(a, b, kDecWordsAt + 128, zero);
    __m256i prev = zero;  // the rk' words of the four rounds before
    for (int j = 0; j < 8; ++j) {
        const int i = 4 * j;
        R::round(c, u, y0, b_word(y0, y1, i));
        R::round(c, u, y1, b_word(y1, y2, i + 1));
        R::round(c, u, y2, b_word(y2, y3, i + 2));
        R::round(c, u, y3, b_word(y3, y0, i + 3));
        // y0..y3 hold rk_{4j}..rk_{4j+3} in the domain: lane k of each half
        // from y_k.
        const __m256i y = _mm256_blend_epi32(_mm256_blend_epi32(y0, y1, 0x22), _mm256_blend_epi32(y2, y3, 0x88), 0xCC);
        const __m256i k =
            _mm256_shuffle_epi8(_mm256_gf2p8affine_epi64_epi8(y, mat256(kA1inv), 0), bcast128(kBswap32.b));
        store_halves<kPair>(a, b, kEncAt + 16 * j, k);
        store_halves<kPair>(a, b, kDecAt + 16 * (7 - j), _mm256_shuffle_epi32(k, 0x1B));
        // The one-block path's words: rk'_{4j..4j+3}, and reversed for decryption.
        const __m256i g = _mm256_xor_si256(y, _mm256_set1_epi8(static_cast<char>(kC1)));
        const __m256i r = _mm256_shuffle_epi32(g, 0x1B);
        // Decryption: words 1 + 4m .. 4 + 4m, m = 7 - j; word 0 = rk'_31 first.
        if (j == 7) store_halves<kPair>(a, b, kDecWordsAt, r);
        store_halves<kPair>(a, b, kDecWordsAt + 4 * (1 + 4 * (7 - j)),
                            adjacent_xor(r, _mm256_shuffle_epi32(prev, 0x1B)));
        // Encryption: word 0 = rk'_0 first, then words 1 + 4(j-1) .. 4j.
        if (j == 0) store_halves<kPair>(a, b, kEncWordsAt, g);
        else store_halves<kPair>(a, b, kEncWordsAt + 4 * (1 + 4 * (j - 1)), adjacent_xor(prev, g));
        prev = g;
    }
    store_halves<kPair>(a, b, kEncWordsAt + 4 * 29, adjacent_xor(prev, zero));
}

// set_key and set_key_pair less the wipes: the vector registers (the
// caller's: it knows which its ISA touched) and the stack below the caller,
// burn_stack(kScheduleBurn), where the compiler spills words (GCC 12 puts
// one group of round keys there in the VEX build: 16 registers are short).
constexpr size_t kScheduleBurn = 256;
template <class R>
HWACCEL_SM4_INLINE void set_key_with(Sm4Key* key, const uint8_t user_key[16]) {
    const __m128i k = _mm_xor_si128(loadu128(user_key), _mm_load_si128(reinterpret_cast<const __m128i*>(kFkBytes.b)));
    schedule<R, false>(key, nullptr, _mm256_broadcastsi128_si256(k));
}
template <class R>
HWACCEL_SM4_INLINE void set_key_pair_with(Sm4Key* a, const uint8_t ka[16], Sm4Key* b, const uint8_t kb[16]) {
    const __m256i z = _mm256_inserti128_si256(_mm256_castsi128_si256(loadu128(ka)), loadu128(kb), 1);
    schedule<R, true>(a, b, _mm256_xor_si256(z, bcast128(kFkBytes.b)));
}

}  // namespace
}  // namespace hwaccel::x86::sm4x::gfni
