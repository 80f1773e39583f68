// The serial modes of the x86 GFNI one-block path, over a round given as a
// policy R (the VEX round of sm4_x86_gfni_block.cpp, the EVEX round of
// sm4_x86_gfni512_block.cpp): the key words' layout, one block's 32 rounds,
// CBC/CFB encryption, OFB and CCM's CBC-MAC beside its CTR block. R has
//   struct Consts;  static Consts consts();
//   template <bool kFirst = false>
//   static void round(const Consts&, __m128i& u, __m128i& ya, __m128i yb, __m128i kk);
// (round i: u = u_i becomes u_{i+1}, ya = Y_i becomes Y_{i+4}, yb = Y_{i+1},
// kk = rk'_i ^ rk'_{i+1}; see sm4_x86_gfni_block.cpp). Include inside the
// file's "#pragma GCC target" region, after every shared header: hence the
// unnamed namespace (each ISA its own copy).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"
#include "x86/sm4_x86_gfni_maths.hpp"
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

HWACCEL_SM4_INLINE const uint32_t* domain_keys(const Sm4Key* key, Sm4Direction direction) {
    return reinterpret_cast<const uint32_t*>(key->engine_data +
                                             (direction == Sm4Direction::kDecrypt ? kDecOffset : kEncOffset));
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

// VBROADCASTSS from memory: a load alone (GCC makes _mm_set1_epi32 of a
// loaded word a VMOVD and a VPSHUFD, the latter on the GFNI ops' pipes).
HWACCEL_SM4_INLINE __m128i key_at(const uint32_t* k, int i) {
    return _mm_castps_si128(_mm_broadcast_ss(reinterpret_cast<const float*>(k + i)));
}

// The end of a round, shared by the policies: next = (u_i ^ b_i) ^ V(u_i)
// (for round 0 without Y_0, see kFirst in sm4_x86_gfni_block.cpp) and
// ub = u_i ^ b_i give u_{i+1} in u and Y_{i+4} = Y_i ^ V(u_i) in ya, the
// latter off the chain: one XOR after u_{i+1}.
template <bool kFirst>
HWACCEL_SM4_INLINE void end_round(__m128i& u, __m128i& ya, __m128i ub, __m128i next) {
    if constexpr (kFirst) {
        u = _mm_xor_si128(next, ya);
        ya = _mm_xor_si128(u, ub);  // Y_0 ^ V(u_0)
    } else {
        __m128i e = _mm_xor_si128(ub, ya);
        __asm__("" : "+v"(e));  // opaque, as in the policies: the sums stay as written
        ya = _mm_xor_si128(e, next);  // Y_i ^ V(u_i)
        u = next;
    }
}

// The 32 rounds on one block's words; returns the output words in block
// order, (Y35, Y34, Y33, Y32).
template <class R>
HWACCEL_SM4_INLINE Words rounds(const uint32_t* k, const Words& x) {
    const typename R::Consts c = R::consts();
    __m128i y0 = x.w[0], y1 = x.w[1], y2 = x.w[2], y3 = x.w[3];
    // Y_1 last (the newest of the three when the words are the previous
    // block's output).
    __m128i t = _mm_xor_si128(_mm_xor_si128(y3, key_at(k, 0)), y2);
    __asm__("" : "+v"(t));  // "v": any xmm the target has
    __m128i u = _mm_xor_si128(t, y1);
    R::template round<true>(c, u, y0, y1, key_at(k, 1));
    for (int i = 0; i < 32; i += 4) {
        if (i > 0) R::round(c, u, y0, y1, key_at(k, i + 1));
        R::round(c, u, y1, y2, key_at(k, i + 2));
        R::round(c, u, y2, y3, key_at(k, i + 3));
        R::round(c, u, y3, y0, key_at(k, i + 4));  // i + 4 = 32: rk'_31 alone
    }
    return {{y3, y2, y1, y0}};
}

template <class R>
HWACCEL_SM4_INLINE __m128i crypt(const uint32_t* k, __m128i block) { return gather(rounds<R>(k, spread(block))); }

// The serial modes, fused: the chaining value stays in the register layout
// and domain from block to block (as in sm4_x86_block.cpp).
//   CBC encrypt: c_i = E(p_i ^ c_{i-1})
//   CFB encrypt: c_i = p_i ^ E(c_{i-1})
//   OFB:         o_i = E(o_{i-1}), out_i = in_i ^ o_i
// Not inlined: its callers wipe the stack below them after it (the compiler
// spills a chaining word or two there).
enum class Serial { kCbc, kCfb, kOfb };
template <class R, Serial kMode>
[[gnu::noinline]] void serial_chain(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    const uint32_t* k = domain_keys(key, Sm4Direction::kEncrypt);
    Words c = spread(loadu128(iv));
    for (size_t i = 0; i < n; ++i) {
        const __m128i p = loadu128(in + 16 * i);
        if constexpr (kMode == Serial::kCbc) {
            c = rounds<R>(k, xor_words(spread(p), c));
        } else if constexpr (kMode == Serial::kCfb) {
            c = xor_words(spread(p), rounds<R>(k, c));
        } else {
            c = rounds<R>(k, c);
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
template <class R>
[[gnu::noinline]] void ccm_lanes(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in,
                                 size_t n, uint8_t counter[16], uint8_t mac[16]) {
    const uint32_t* k = domain_keys(key, Sm4Direction::kEncrypt);
    Counter128 ctr{load_be64(counter), load_be64(counter + 8)};
    Words r = spread(loadu128(mac));  // lane 0: the MAC's chaining value
    if (direction == Sm4Direction::kEncrypt) {
        for (size_t i = 0; i < n; ++i) {
            const __m128i p = loadu128(in + 16 * i);
            r = rounds<R>(k, mac_and_counter(xor_words(r, spread(p)), spread(ctr.next())));
            storeu128(out + 16 * i, _mm_xor_si128(p, gather_lane2(r)));
        }
    } else {
        r = mac_and_counter(r, rounds<R>(k, spread(ctr.next())));  // the MAC beside keystream 0
        for (size_t i = 0; i < n; ++i) {
            const __m128i c = loadu128(in + 16 * i);
            storeu128(out + 16 * i, _mm_xor_si128(c, gather_lane2(r)));
            // MAC ^ plaintext i = MAC ^ c_i ^ keystream i, in the domain.
            const Words x = xor_words(mac_xor_keystream(r), spread(c));
            r = rounds<R>(k, i + 1 < n ? mac_and_counter(x, spread(ctr.next())) : x);
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
}  // namespace hwaccel::x86::sm4x::gfni
