// The one-block path of the x86 GFNI SM4 engines (declared in
// sm4_x86_gfni_block.hpp): the key schedule, one block through 32 folded
// rounds (sm4_x86_gfni_maths.hpp), and the serial modes. No look-up, no
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
// (Summing from Y_{i+4} instead, as the bulk kernels do, puts two more XORs
// on the chain: Zen 5, 12 cycles a round instead of 9.7.)
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

namespace hwaccel::x86::sm4x::gfni {
namespace {

HWACCEL_SM4_INLINE __m128i ld(const Shuffle16& s) { return _mm_load_si128(reinterpret_cast<const __m128i*>(s.b)); }
HWACCEL_SM4_INLINE __m128i mat(uint64_t a) { return _mm_set1_epi64x(static_cast<long long>(a)); }

// The one-block path's key words, from rk' = A1 rk ^ c1 in memory byte
// order: word 0 is rk'_0 (for u_0), word 1 + i is rk'_i ^ rk'_{i+1} (for b_i,
// with rk'_32 = 0: round 31's "next key" is none), then zero padding. Both
// directions, written by set_key into the key's engine data.
constexpr size_t kKeyWords = 36;
constexpr size_t kEncOffset = 0, kDecOffset = 4 * kKeyWords;
static_assert(2 * 4 * kKeyWords <= Sm4Key::kEngineDataSize, "one-block keys fit the key's engine data");

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
HWACCEL_SM4_INLINE const uint32_t* domain_keys(const Sm4Key* key, Sm4Direction direction) {
    return reinterpret_cast<const uint32_t*>(key->engine_data +
                                             (direction == Sm4Direction::kDecrypt ? kDecOffset : kEncOffset));
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

struct Words {
    __m128i w[4];
};
// A block (memory order) into the domain, one word per register; and back.
HWACCEL_SM4_INLINE Words spread(__m128i block) {
    const __m128i y = _mm_gf2p8affine_epi64_epi8(block, mat(kA1), 0);
    return {{_mm_shuffle_epi32(y, 0x00), _mm_shuffle_epi32(y, 0x55), _mm_shuffle_epi32(y, 0xAA),
             _mm_shuffle_epi32(y, 0xFF)}};
}
HWACCEL_SM4_INLINE __m128i gather(const Words& v) {
    const __m128i y = _mm_unpacklo_epi64(_mm_unpacklo_epi32(v.w[0], v.w[1]), _mm_unpacklo_epi32(v.w[2], v.w[3]));
    return _mm_gf2p8affine_epi64_epi8(y, mat(kA1inv), 0);
}
HWACCEL_SM4_INLINE Words xor_words(const Words& a, const Words& b) {
    return {{_mm_xor_si128(a.w[0], b.w[0]), _mm_xor_si128(a.w[1], b.w[1]), _mm_xor_si128(a.w[2], b.w[2]),
             _mm_xor_si128(a.w[3], b.w[3])}};
}

struct RoundConsts {
    __m128i f0, f1, f3, r8, r16, r24;
};
HWACCEL_SM4_INLINE RoundConsts round_consts() {
    return {mat(kF0), mat(kF1), mat(kF3), ld(kRol8), ld(kRol16), ld(kRol24)};
}

// Round i: u is its S-box input; ya = Y_i becomes Y_{i+4}; yb = Y_{i+1};
// kk = rk'_i ^ rk'_{i+1}. Leaves u_{i+1} in u. kFirst (round 0): Y_0 joins
// last, as u_{i+1} = ((u_i ^ Y_1 ^ kk) ^ V(u_i)) ^ Y_0, since in the serial
// modes Y_0 is the previous block's last word, still being computed while
// this block's u_0 (from its other three words) is ready.
template <bool kFirst = false>
HWACCEL_SM4_INLINE void round(const RoundConsts& c, __m128i& u, __m128i& ya, __m128i yb, __m128i kk) {
    // v0 last: it has one operation fewer after it than v1 and v3.
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

// VBROADCASTSS from memory: a load alone (GCC makes _mm_set1_epi32 of a
// loaded word a VMOVD and a VPSHUFD, the latter on the GFNI ops' pipes).
HWACCEL_SM4_INLINE __m128i key_at(const uint32_t* k, int i) {
    return _mm_castps_si128(_mm_broadcast_ss(reinterpret_cast<const float*>(k + i)));
}

// The 32 rounds on one block's words; returns the output words in block
// order, (Y35, Y34, Y33, Y32).
HWACCEL_SM4_INLINE Words rounds(const uint32_t* k, const Words& x) {
    const RoundConsts c = round_consts();
    __m128i y0 = x.w[0], y1 = x.w[1], y2 = x.w[2], y3 = x.w[3];
    // Y_1 last (the newest of the three when the words are the previous
    // block's output).
    __m128i t = _mm_xor_si128(_mm_xor_si128(y3, key_at(k, 0)), y2);
    __asm__("" : "+x"(t));
    __m128i u = _mm_xor_si128(t, y1);
    round<true>(c, u, y0, y1, key_at(k, 1));
    for (int i = 0; i < 32; i += 4) {
        if (i > 0) round(c, u, y0, y1, key_at(k, i + 1));
        round(c, u, y1, y2, key_at(k, i + 2));
        round(c, u, y2, y3, key_at(k, i + 3));
        round(c, u, y3, y0, key_at(k, i + 4));  // i + 4 = 32: rk'_31 alone
    }
    return {{y3, y2, y1, y0}};
}

HWACCEL_SM4_INLINE __m128i crypt(const uint32_t* k, __m128i block) { return gather(rounds(k, spread(block))); }

// The serial modes, fused: the chaining value stays in the register layout
// and domain from block to block (as in sm4_x86_block.cpp).
//   CBC encrypt: c_i = E(p_i ^ c_{i-1})
//   CFB encrypt: c_i = p_i ^ E(c_{i-1})
//   OFB:         o_i = E(o_{i-1}), out_i = in_i ^ o_i
// Not inlined: its callers wipe the stack below them after it (the compiler
// spills a chaining word or two there).
enum class Serial { kCbc, kCfb, kOfb };
template <Serial kMode>
[[gnu::noinline]] void serial_chain(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    const uint32_t* k = domain_keys(key, Sm4Direction::kEncrypt);
    Words c = spread(loadu128(iv));
    for (size_t i = 0; i < n; ++i) {
        const __m128i p = loadu128(in + 16 * i);
        if constexpr (kMode == Serial::kCbc) {
            c = rounds(k, xor_words(spread(p), c));
        } else if constexpr (kMode == Serial::kCfb) {
            c = xor_words(spread(p), rounds(k, c));
        } else {
            c = rounds(k, c);
        }
        const __m128i o = gather(c);
        storeu128(out + 16 * i, kMode == Serial::kOfb ? _mm_xor_si128(o, p) : o);
    }
    storeu128(iv, gather(c));
}

// CCM (Sm4Engine::ccm): every instruction of the rounds works on each 32-bit
// lane alone, so lanes 0-1 carry the CBC-MAC's block and lanes 2-3 a CTR
// block: the keystream rides along the MAC's serial chain for nothing.
// Encryption MACs plaintext block i beside keystream block i; decryption
// needs keystream i for plaintext i, so its MAC runs one block behind (one
// step more). The plaintext enters the MAC in the domain (its words plus the
// keystream's, moved from lane 2 to lane 0), not through memory, to keep the
// chain short. Branches on positions only.
HWACCEL_SM4_INLINE Words mac_and_counter(const Words& mac, const Words& ctr) {
    Words r;
    for (int j = 0; j < 4; ++j) r.w[j] = _mm_blend_epi32(mac.w[j], ctr.w[j], 0xC);
    return r;
}
HWACCEL_SM4_INLINE __m128i gather_lane2(const Words& v) {
    const __m128i y = _mm_unpacklo_epi64(_mm_unpackhi_epi32(v.w[0], v.w[1]), _mm_unpackhi_epi32(v.w[2], v.w[3]));
    return _mm_gf2p8affine_epi64_epi8(y, mat(kA1inv), 0);
}
// Lane 2 (the keystream) into lane 0, XORed with lane 0 (the MAC).
HWACCEL_SM4_INLINE Words mac_xor_keystream(const Words& v) {
    Words r;
    for (int j = 0; j < 4; ++j) r.w[j] = _mm_xor_si128(v.w[j], _mm_shuffle_epi32(v.w[j], 0xAA));
    return r;
}
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

[[gnu::noinline]] void ccm_lanes(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in,
                                 size_t n, uint8_t counter[16], uint8_t mac[16]) {
    const uint32_t* k = domain_keys(key, Sm4Direction::kEncrypt);
    Counter128 ctr{load_be64(counter), load_be64(counter + 8)};
    Words r = spread(loadu128(mac));  // lane 0: the MAC's chaining value
    if (direction == Sm4Direction::kEncrypt) {
        for (size_t i = 0; i < n; ++i) {
            const __m128i p = loadu128(in + 16 * i);
            r = rounds(k, mac_and_counter(xor_words(r, spread(p)), spread(ctr.next())));
            storeu128(out + 16 * i, _mm_xor_si128(p, gather_lane2(r)));
        }
    } else {
        r = mac_and_counter(r, rounds(k, spread(ctr.next())));  // the MAC beside keystream 0
        for (size_t i = 0; i < n; ++i) {
            const __m128i c = loadu128(in + 16 * i);
            storeu128(out + 16 * i, _mm_xor_si128(c, gather_lane2(r)));
            // MAC ^ plaintext i = MAC ^ c_i ^ keystream i, in the domain.
            const Words x = xor_words(mac_xor_keystream(r), spread(c));
            r = rounds(k, i + 1 < n ? mac_and_counter(x, spread(ctr.next())) : x);
        }
    }
    storeu128(mac, gather(r));
    store_be64(counter, ctr.hi);
    store_be64(counter + 8, ctr.lo);
}

// The serial functions' frames and red zones (where the compiler spills a
// plaintext block or chaining word): within this.
constexpr size_t kSerialBurn = 256;

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
    return crypt(domain_keys(key, direction), block);
}

void encrypt_block(const Sm4Key* key, uint8_t out[16], const uint8_t in[16]) {
    storeu128(out, crypt(domain_keys(key, Sm4Direction::kEncrypt), loadu128(in)));
}

void cbc_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    serial_chain<Serial::kCbc>(key, out, in, n, iv);
    burn_stack(kSerialBurn);
}
void cfb_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    serial_chain<Serial::kCfb>(key, out, in, n, iv);
    burn_stack(kSerialBurn);
}
void ofb(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    serial_chain<Serial::kOfb>(key, out, in, n, iv);
    burn_stack(kSerialBurn);
}
void ccm(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t n,
         uint8_t counter[16], uint8_t mac[16]) {
    if (n == 0) return;
    ccm_lanes(key, direction, out, in, n, counter, mac);
    burn_stack(kSerialBurn);
}

}  // namespace hwaccel::x86::sm4x::gfni

#pragma GCC pop_options
