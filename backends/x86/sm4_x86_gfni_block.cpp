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

// The key schedule (sm4_schedule::expand's rounds) the way the one-block
// path runs its rounds (see the top of the file), on the words
// Y_i = A1 K_i kept in the A1 domain, broadcast in ymm lanes (set_key_pair:
// key a in lanes 0-3, key b in 4-7; every step acts lane by lane). With
// u_i = Y_{i+1} ^ Y_{i+2} ^ Y_{i+3} ^ ck'_i, ck'_i = A1 CK_i ^ c1, the S-box
// input of round i, and V' = A1 L' S A1inv folded into the matrices G_d
// (sm4_x86_gfni_maths.hpp),
//     u_{i+1} = (u_i ^ b_i) ^ V'(u_i),  b_i = Y_i ^ Y_{i+1} ^ ck'_i ^ ck'_{i+1}
//     Y_{i+4} = Y_i ^ V'(u_i) = (Y_i ^ u_i ^ b_i) ^ u_{i+1}
// so the chain per round is a GFNI op, a byte rotation and two XORs (was:
// three XORs, two GFNI ops, L' as shifts and ORs, an XOR); the words leave
// the domain (A1inv, four at a time) off the chain.
struct CkDomain {
    uint32_t first;   // ck'_0
    uint32_t kk[32];  // ck'_i ^ ck'_{i+1}, ck'_32 = 0
    // A1 CK ^ c1 bytewise, in memory byte order (a little-endian lane's value).
    static constexpr uint32_t domain(uint32_t w) {
        uint32_t r = 0;
        for (int q = 0; q < 4; ++q) r |= uint32_t{static_cast<uint8_t>(affine(kA1, (w >> (24 - 8 * q)) & 0xFF) ^ kC1)} << (8 * q);
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

HWACCEL_SM4_INLINE __m256i bcast_word(const uint32_t* p) {
    return _mm256_castps_si256(_mm256_broadcast_ss(reinterpret_cast<const float*>(p)));
}
HWACCEL_SM4_INLINE __m256i mat256(uint64_t a) { return _mm256_set1_epi64x(static_cast<long long>(a)); }
HWACCEL_SM4_INLINE __m256i bcast128(const uint8_t* p) {
    return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(p)));
}

struct VexScheduleRound {
    struct Consts {
        __m256i g0, g1, g2, g3, r8, r16, r24;
    };
    static HWACCEL_SM4_INLINE Consts consts() {
        return {mat256(kG0), mat256(kG1), mat256(kG2), mat256(kG3), bcast128(kRol8.b), bcast128(kRol16.b),
                bcast128(kRol24.b)};
    }
    // Round i: u = u_i becomes u_{i+1}, ya = Y_i becomes Y_{i+4}, b = b_i.
    static HWACCEL_SM4_INLINE void round(const Consts& c, __m256i& u, __m256i& ya, __m256i b) {
        const __m256i w1 = _mm256_gf2p8affineinv_epi64_epi8(u, c.g1, kG1c);
        const __m256i w2 = _mm256_gf2p8affineinv_epi64_epi8(u, c.g2, kG2c);
        const __m256i w3 = _mm256_gf2p8affineinv_epi64_epi8(u, c.g3, kG3c);
        const __m256i w0 = _mm256_gf2p8affineinv_epi64_epi8(u, c.g0, kG0c);
        const __m256i ub = _mm256_xor_si256(u, b);
        // Opaque to the compiler, as in VexRound: the sums stay as written.
        __m256i a = _mm256_xor_si256(ub, w0);
        __asm__("" : "+x"(a));
        __m256i x = _mm256_xor_si256(_mm256_shuffle_epi8(w1, c.r8), _mm256_shuffle_epi8(w2, c.r16));
        __m256i z = _mm256_xor_si256(a, _mm256_shuffle_epi8(w3, c.r24));
        __asm__("" : "+x"(x), "+x"(z));
        const __m256i next = _mm256_xor_si256(z, x);
        __m256i e = _mm256_xor_si256(ub, ya);
        __asm__("" : "+x"(e));
        ya = _mm256_xor_si256(e, next);
        u = next;
    }
};

// b_i from Y_i, Y_{i+1} (both off the chain by then).
HWACCEL_SM4_INLINE __m256i b_word(__m256i ya, __m256i yb, int i) {
    __m256i b = _mm256_xor_si256(_mm256_xor_si256(ya, yb), bcast_word(kCkDomain.kk + i));
    __asm__("" : "+x"(b));
    return b;
}

// Rounds 4j..4j+3 leave rk_{4j..4j+3} (A1 domain) in y0..y3: gathered into
// one register (lane k of each half from y_k), out of the domain, to native
// words; enc in order, dec reversed.
HWACCEL_SM4_INLINE __m256i round_keys_of(__m256i y0, __m256i y1, __m256i y2, __m256i y3) {
    const __m256i y = _mm256_blend_epi32(_mm256_blend_epi32(y0, y1, 0x22), _mm256_blend_epi32(y2, y3, 0x88), 0xCC);
    const __m256i k = _mm256_gf2p8affine_epi64_epi8(y, mat256(kA1inv), 0);
    return _mm256_shuffle_epi8(k, bcast128(kBswap32.b));
}
HWACCEL_SM4_INLINE void store_round_keys(Sm4Key* key, int j, __m128i k) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(key->enc + 4 * j), k);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(key->dec + 28 - 4 * j), _mm_shuffle_epi32(k, 0x1B));
}

// The schedule on z: the user key(s) XOR FK in memory order, key a in the
// low half, key b (or a again) in the high half.
template <class R, bool kPair>
HWACCEL_SM4_INLINE void schedule(Sm4Key* a, Sm4Key* b, __m256i z) {
    const typename R::Consts c = R::consts();
    z = _mm256_gf2p8affine_epi64_epi8(z, mat256(kA1), 0);
    __m256i y0 = _mm256_shuffle_epi32(z, 0x00), y1 = _mm256_shuffle_epi32(z, 0x55),
            y2 = _mm256_shuffle_epi32(z, 0xAA), y3 = _mm256_shuffle_epi32(z, 0xFF);
    __m256i u = _mm256_xor_si256(_mm256_xor_si256(y1, y2), _mm256_xor_si256(y3, bcast_word(&kCkDomain.first)));
    for (int j = 0; j < 8; ++j) {
        const int i = 4 * j;
        R::round(c, u, y0, b_word(y0, y1, i));
        R::round(c, u, y1, b_word(y1, y2, i + 1));
        R::round(c, u, y2, b_word(y2, y3, i + 2));
        R::round(c, u, y3, b_word(y3, y0, i + 3));
        const __m256i k = round_keys_of(y0, y1, y2, y3);
        store_round_keys(a, j, _mm256_castsi256_si128(k));
        if constexpr (kPair) store_round_keys(b, j, _mm256_extracti128_si256(k, 1));
    }
}

void expand(Sm4Key* key, const uint8_t user_key[16]) {
    const __m128i fk = _mm_load_si128(reinterpret_cast<const __m128i*>(kFkBytes.b));
    const __m128i k = _mm_xor_si128(loadu128(user_key), fk);
    schedule<VexScheduleRound, false>(key, nullptr, _mm256_broadcastsi128_si256(k));
}
void expand_pair(Sm4Key* a, const uint8_t ka[16], Sm4Key* b, const uint8_t kb[16]) {
    const __m256i z = _mm256_inserti128_si256(_mm256_castsi128_si256(loadu128(ka)), loadu128(kb), 1);
    schedule<VexScheduleRound, true>(a, b, _mm256_xor_si256(z, bcast128(kFkBytes.b)));
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
