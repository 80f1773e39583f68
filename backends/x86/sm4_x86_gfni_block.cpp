// The one-block path of the x86 GFNI SM4 engines (declared in
// sm4_x86_gfni_block.hpp): the key schedule, and the VEX round for one block
// through 32 folded rounds (sm4_x86_gfni_maths.hpp) and the serial modes
// (sm4_x86_gfni_serial.hpp). gfni-avx2 uses all of it, gfni-avx512 the key
// schedule (its round: sm4_x86_gfni512_block.cpp). No look-up, no
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

#pragma GCC push_options
#pragma GCC target("gfni,avx2")

#include "x86/sm4_x86_simd.hpp"
#include "x86/sm4_x86_gfni_serial.hpp"

namespace hwaccel::x86::sm4x::gfni {
namespace {

// The key words of sm4_x86_gfni_serial.hpp from the standard round keys.
void write_domain_keys(uint8_t* dst, const uint32_t rk[32]) {
    const __m256i bs = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(kBswap32.b)));
    const __m256i a1 = _mm256_set1_epi64x(static_cast<long long>(kA1));
    for (int j = 0; j < 4; ++j) {
        const __m256i v = _mm256_shuffle_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(rk + 8 * j)), bs);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 32 * j), _mm256_gf2p8affine_epi64_epi8(v, a1, kC1));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 128), _mm_setzero_si128());
    // Words 1..32 become rk'_{i} ^ rk'_{i+1} in place, from the top down (a
    // chunk's stores land above what the next chunk down reads).
    for (int j = 3; j >= 0; --j) {
        const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dst + 32 * j));
        const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(dst + 32 * j + 4));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 32 * j + 4), _mm256_xor_si256(lo, hi));
    }
}

// The key schedule (sm4_schedule::expand's rounds) on words broadcast in
// xmm registers: the S-box's two GFNI instructions and L' act in place, so
// no word crosses to the integer registers and back on the serial chain
// (the schedule was a third of a 16-byte SM4-GCM message under a new key).
HWACCEL_SM4_INLINE __m128i rotl_lanes(__m128i x, int n) {
    return _mm_or_si128(_mm_slli_epi32(x, n), _mm_srli_epi32(x, 32 - n));
}
// CK_0..CK_31, one table (the loop is not unrolled: no constant folding).
struct CkTable {
    uint32_t w[32];
    constexpr CkTable() : w{} {
        for (int i = 0; i < 32; ++i) w[i] = sm4_schedule::ck_word(i);
    }
};
constexpr CkTable kCk;
// Round i: k_i ^= L'(S(k_{i+1} ^ k_{i+2} ^ k_{i+3} ^ CK_i)), k_{i+3} the newest.
HWACCEL_SM4_INLINE void schedule_round(Sm4Key* key, int i, __m128i& ka, __m128i kb, __m128i kc, __m128i kd) {
    const __m128i early = _mm_xor_si128(_mm_xor_si128(kb, kc), _mm_set1_epi32(static_cast<int>(kCk.w[i])));
    __m128i x = _mm_xor_si128(early, kd);
    x = _mm_gf2p8affine_epi64_epi8(x, mat(kA1), kC1);
    const __m128i t = _mm_gf2p8affineinv_epi64_epi8(x, mat(kA2), kC2);
    ka = _mm_xor_si128(ka, _mm_xor_si128(t, _mm_xor_si128(rotl_lanes(t, 13), rotl_lanes(t, 23))));
    key->enc[i] = static_cast<uint32_t>(_mm_cvtsi128_si32(ka));
}
void expand(Sm4Key* key, const uint8_t user_key[16]) {
    __m128i k0 = _mm_set1_epi32(static_cast<int>(load_be32(user_key) ^ sm4_schedule::kFK[0]));
    __m128i k1 = _mm_set1_epi32(static_cast<int>(load_be32(user_key + 4) ^ sm4_schedule::kFK[1]));
    __m128i k2 = _mm_set1_epi32(static_cast<int>(load_be32(user_key + 8) ^ sm4_schedule::kFK[2]));
    __m128i k3 = _mm_set1_epi32(static_cast<int>(load_be32(user_key + 12) ^ sm4_schedule::kFK[3]));
    for (int i = 0; i < 32; i += 4) {
        schedule_round(key, i, k0, k1, k2, k3);
        schedule_round(key, i + 1, k1, k2, k3, k0);
        schedule_round(key, i + 2, k2, k3, k0, k1);
        schedule_round(key, i + 3, k3, k0, k1, k2);
    }
    for (int i = 0; i < 32; ++i) key->dec[i] = key->enc[31 - i];
}

// Two schedules in one chain: key a's words in lanes 0-1, key b's in lanes
// 2-3 (every step acts lane by lane), so the pair costs one chain.
HWACCEL_SM4_INLINE __m128i pair_word(const uint8_t* ka, const uint8_t* kb, int j) {
    const int wa = static_cast<int>(load_be32(ka + 4 * j) ^ sm4_schedule::kFK[j]);
    const int wb = static_cast<int>(load_be32(kb + 4 * j) ^ sm4_schedule::kFK[j]);
    return _mm_set_epi32(wb, wb, wa, wa);
}
HWACCEL_SM4_INLINE void schedule_round_pair(Sm4Key* a, Sm4Key* b, int i, __m128i& ka, __m128i kb, __m128i kc,
                                            __m128i kd) {
    const __m128i early = _mm_xor_si128(_mm_xor_si128(kb, kc), _mm_set1_epi32(static_cast<int>(kCk.w[i])));
    __m128i x = _mm_xor_si128(early, kd);
    x = _mm_gf2p8affine_epi64_epi8(x, mat(kA1), kC1);
    const __m128i t = _mm_gf2p8affineinv_epi64_epi8(x, mat(kA2), kC2);
    ka = _mm_xor_si128(ka, _mm_xor_si128(t, _mm_xor_si128(rotl_lanes(t, 13), rotl_lanes(t, 23))));
    a->enc[i] = static_cast<uint32_t>(_mm_cvtsi128_si32(ka));
    b->enc[i] = static_cast<uint32_t>(_mm_extract_epi32(ka, 2));
}
void expand_pair(Sm4Key* a, const uint8_t ka[16], Sm4Key* b, const uint8_t kb[16]) {
    __m128i k0 = pair_word(ka, kb, 0), k1 = pair_word(ka, kb, 1), k2 = pair_word(ka, kb, 2),
            k3 = pair_word(ka, kb, 3);
    for (int i = 0; i < 32; i += 4) {
        schedule_round_pair(a, b, i, k0, k1, k2, k3);
        schedule_round_pair(a, b, i + 1, k1, k2, k3, k0);
        schedule_round_pair(a, b, i + 2, k2, k3, k0, k1);
        schedule_round_pair(a, b, i + 3, k3, k0, k1, k2);
    }
    for (int i = 0; i < 32; ++i) {
        a->dec[i] = a->enc[31 - i];
        b->dec[i] = b->enc[31 - i];
    }
}

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
        const __m128i next = _mm_xor_si128(z, w);
        if constexpr (kFirst) {
            u = _mm_xor_si128(next, ya);
            ya = _mm_xor_si128(u, ub);  // Y_0 ^ V(u_0)
        } else {
            __m128i e = _mm_xor_si128(ub, ya);
            __asm__("" : "+x"(e));
            ya = _mm_xor_si128(e, next);  // Y_i ^ V(u_i), one XOR after u_{i+1}
            u = next;
        }
    }
};

}  // namespace

// Constant time: the S-box is two GFNI instructions.
void set_key(Sm4Key* key, const uint8_t user_key[16]) {
    expand(key, user_key);
    write_domain_keys(key->engine_data + kEncOffset, key->enc);
    write_domain_keys(key->engine_data + kDecOffset, key->dec);
    _mm256_zeroall();  // the schedule's words and the round keys were in ymm0-15
}

void set_key_pair(Sm4Key* a, const uint8_t ka[16], Sm4Key* b, const uint8_t kb[16]) {
    expand_pair(a, ka, b, kb);
    write_domain_keys(a->engine_data + kEncOffset, a->enc);
    write_domain_keys(a->engine_data + kDecOffset, a->dec);
    write_domain_keys(b->engine_data + kEncOffset, b->enc);
    write_domain_keys(b->engine_data + kDecOffset, b->dec);
    _mm256_zeroall();  // as set_key
}

__m128i crypt_block(const Sm4Key* key, Sm4Direction direction, __m128i block) {
    return crypt<VexRound>(domain_keys(key, direction), block);
}

void encrypt_block(const Sm4Key* key, uint8_t out[16], const uint8_t in[16]) {
    storeu128(out, crypt<VexRound>(domain_keys(key, Sm4Direction::kEncrypt), loadu128(in)));
}

void cbc_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    serial_chain<VexRound, Serial::kCbc>(key, out, in, n, iv);
    burn_stack(kSerialBurn);
}
void cfb_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    serial_chain<VexRound, Serial::kCfb>(key, out, in, n, iv);
    burn_stack(kSerialBurn);
}
void ofb(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    serial_chain<VexRound, Serial::kOfb>(key, out, in, n, iv);
    burn_stack(kSerialBurn);
}
void ccm(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t n,
         uint8_t counter[16], uint8_t mac[16]) {
    if (n == 0) return;
    ccm_lanes<VexRound>(key, direction, out, in, n, counter, mac);
    burn_stack(kSerialBurn);
}

}  // namespace hwaccel::x86::sm4x::gfni

#pragma GCC pop_options
