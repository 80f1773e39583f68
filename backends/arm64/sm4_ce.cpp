// SM4 with the ARMv8.2 SM4 instructions (FEAT_SM4, HWCAP_SM4): SM4E runs
// four rounds on one block, SM4EKEY four steps of the key schedule. The
// S-box is in the instruction, so the engine is constant-time by
// construction: no tables, no branch on keys or data.
//
// Layout. SM4E keeps a block as four 32-bit lanes, word X_i (a native
// integer) in lane i, and takes four round keys the same way, so
// Sm4Key::enc/dec load as they are (vld1q_u32). SM4's words are big-endian
// and arm64 is little-endian: REV32 brings a block in (enter); after the 32
// rounds the lanes hold X32..X35 and the output is X35 X34 X33 X32 in
// big-endian, which is the 16 bytes reversed (leave).
//
// Parallel modes (ECB, CTR, CBC and CFB decryption, XTS): up to 16 blocks
// per batch, in groups of four that share each round-key register, so four
// to sixteen independent SM4E chains are in flight (the instruction's
// latency is several cycles, its throughput about one per cycle on the cores
// that have it). 16 states and the 8 round-key registers fit the 32 vector
// registers; XTS, which also keeps the tweaks, goes 8 at a time. One block
// and the serial modes (CBC/CFB encryption, OFB) run the one-block chain.
//
// Compiled with -march=armv8.2-a+sm4 (backends/CMakeLists.txt, this file
// only); available() keeps the functions off CPUs without HWCAP_SM4. The
// object exports only the engine table (everything else is internal and
// inlined: no weak symbols), so the linker can never pick code built with
// that flag for another file.
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "arm64/arm64_engines.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "hwaccel/bytes.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/sm4_key_schedule.hpp"

namespace hwaccel::arm64 {
namespace {

#define HWACCEL_SM4CE_INLINE inline __attribute__((always_inline))

// The key schedule's CK_0..CK_31 as SM4EKEY takes them, four per register.
struct CkTable {
    uint32_t w[32];
};
constexpr CkTable make_ck() {
    CkTable t{};
    for (int i = 0; i < 32; ++i) t.w[i] = sm4_schedule::ck_word(i);
    return t;
}
constexpr CkTable kCk = make_ck();

// One direction's round keys, four per register: eight named registers
// rather than an array, which GCC copied to the stack (key material left
// behind) when it was a returned or captured aggregate.
struct RoundKeys {
    uint32x4_t k0, k1, k2, k3, k4, k5, k6, k7;
};
HWACCEL_SM4CE_INLINE RoundKeys load_keys(const uint32_t rk[32]) {
    return {vld1q_u32(rk), vld1q_u32(rk + 4), vld1q_u32(rk + 8), vld1q_u32(rk + 12),
            vld1q_u32(rk + 16), vld1q_u32(rk + 20), vld1q_u32(rk + 24), vld1q_u32(rk + 28)};
}

// Bytes -> the rounds' lanes, and back (see the layout note above).
HWACCEL_SM4CE_INLINE uint32x4_t enter(uint8x16_t b) { return vreinterpretq_u32_u8(vrev32q_u8(b)); }
HWACCEL_SM4CE_INLINE uint8x16_t leave(uint32x4_t x) {
    const uint8x16_t r = vrev64q_u8(vreinterpretq_u8_u32(x));
    return vextq_u8(r, r, 8);
}

// The 32 rounds on N independent blocks; round-key register by round-key
// register, so the N chains interleave.
template <int N>
HWACCEL_SM4CE_INLINE void four_rounds(uint32x4_t (&x)[N], uint32x4_t k) {
#pragma GCC unroll 16
    for (int b = 0; b < N; ++b) x[b] = vsm4eq_u32(x[b], k);
}
template <int N>
HWACCEL_SM4CE_INLINE void rounds(uint32x4_t (&x)[N], const RoundKeys& keys) {
    four_rounds(x, keys.k0);
    four_rounds(x, keys.k1);
    four_rounds(x, keys.k2);
    four_rounds(x, keys.k3);
    four_rounds(x, keys.k4);
    four_rounds(x, keys.k5);
    four_rounds(x, keys.k6);
    four_rounds(x, keys.k7);
}

HWACCEL_SM4CE_INLINE uint8x16_t crypt1(const RoundKeys& keys, uint8x16_t block) {
    uint32x4_t x[1] = {enter(block)};
    rounds<1>(x, keys);
    return leave(x[0]);
}

HWACCEL_SM4CE_INLINE uint8x16_t load(const uint8_t* p) { return vld1q_u8(p); }
HWACCEL_SM4CE_INLINE void store(uint8_t* p, uint8x16_t v) { vst1q_u8(p, v); }

// --- batches ------------------------------------------------------------------------
// A batch of m blocks runs the N-block kernel, N = m for one block, else m
// rounded up to whole groups of four (the blocks past m are zeros, never
// stored). Branches are on lengths only.

constexpr size_t kBatch = 16;     // ECB, CTR, CBC/CFB decryption
constexpr size_t kXtsBatch = 8;   // XTS keeps the tweaks as well

// Calls f(std::integral_constant<int, N>{}) for the kernel width N of m
// (1..Max) blocks.
template <int Max, class F>
HWACCEL_SM4CE_INLINE void by_width(size_t m, F&& f) {
    if (m == 1) return f(std::integral_constant<int, 1>{});
    if (m <= 4) return f(std::integral_constant<int, 4>{});
    if (m <= 8 || Max == 8) return f(std::integral_constant<int, 8>{});
    if constexpr (Max > 8) {
        if (m <= 12) return f(std::integral_constant<int, 12>{});
        return f(std::integral_constant<int, 16>{});
    }
}

template <int N>
HWACCEL_SM4CE_INLINE void load_states(uint32x4_t (&x)[N], const uint8_t* in, size_t m) {
#pragma GCC unroll 16
    for (int b = 0; b < N; ++b) x[b] = static_cast<size_t>(b) < m ? enter(load(in + 16 * b)) : vdupq_n_u32(0);
}

template <int N>
void ecb_batch(const uint32_t* rk, uint8_t* out, const uint8_t* in, size_t m) {
    uint32x4_t x[N];
    load_states(x, in, m);
    rounds(x, load_keys(rk));
#pragma GCC unroll 16
    for (int b = 0; b < N; ++b)
        if (static_cast<size_t>(b) < m) store(out + 16 * b, leave(x[b]));
}

// The counter block as lanes: memory holds hi then lo big-endian, so lane 0
// is hi's top half, lane 1 its bottom half, and so on: each 64-bit lane is
// the half rotated by 32. No byte swap needed.
HWACCEL_SM4CE_INLINE uint32x4_t counter_state(uint64_t hi, uint64_t lo) {
    return vreinterpretq_u32_u64(vcombine_u64(vcreate_u64(rotl64(hi, 32)), vcreate_u64(rotl64(lo, 32))));
}

// counter += 1 mod 2^128 without a branch (the counter is IV material): the
// carry out of lo is the top bit of lo & ~(lo + 1).
HWACCEL_SM4CE_INLINE void counter_next(uint64_t& hi, uint64_t& lo) {
    const uint64_t next = lo + 1;
    hi += (lo & ~next) >> 63;
    lo = next;
}

template <int N>
void ctr_batch(const uint32_t* rk, uint8_t* out, const uint8_t* in, size_t m, uint64_t& hi, uint64_t& lo) {
    uint32x4_t x[N];
#pragma GCC unroll 16
    for (int b = 0; b < N; ++b) {
        x[b] = counter_state(hi, lo);
        if (static_cast<size_t>(b) < m) counter_next(hi, lo);
    }
    rounds(x, load_keys(rk));
#pragma GCC unroll 16
    for (int b = 0; b < N; ++b)
        if (static_cast<size_t>(b) < m) store(out + 16 * b, veorq_u8(leave(x[b]), load(in + 16 * b)));
}

// CBC decryption: P_i = D(C_i) ^ C_{i-1}. Written last block first, so in
// place every ciphertext block is read before its plaintext replaces it.
template <int N>
void cbc_dec_batch(const uint32_t* rk, uint8_t* out, const uint8_t* in, size_t m, uint8x16_t prev) {
    uint32x4_t x[N];
    load_states(x, in, m);
    rounds(x, load_keys(rk));
#pragma GCC unroll 16
    for (int b = N - 1; b > 0; --b)
        if (static_cast<size_t>(b) < m) store(out + 16 * b, veorq_u8(leave(x[b]), load(in + 16 * (b - 1))));
    store(out, veorq_u8(leave(x[0]), prev));
}

// CFB decryption: P_i = C_i ^ E(C_{i-1}), every E input known up front.
template <int N>
void cfb_dec_batch(const uint32_t* rk, uint8_t* out, const uint8_t* in, size_t m, uint8x16_t prev) {
    uint32x4_t x[N];
    x[0] = enter(prev);
#pragma GCC unroll 16
    for (int b = 1; b < N; ++b) x[b] = static_cast<size_t>(b) < m ? enter(load(in + 16 * (b - 1))) : vdupq_n_u32(0);
    rounds(x, load_keys(rk));
#pragma GCC unroll 16
    for (int b = 0; b < N; ++b)
        if (static_cast<size_t>(b) < m) store(out + 16 * b, veorq_u8(leave(x[b]), load(in + 16 * b)));
}

// --- XTS tweaks ---------------------------------------------------------------------
// IEEE 1619's T * x on the tweak as a little-endian 128-bit number (64-bit
// lane 0 the low half): shift left by one, the bit out of lane 0 into lane
// 1, x^128 = x^7 + x^2 + x + 1 (0x87) into lane 0 on carry. Masks, not
// branches.
HWACCEL_SM4CE_INLINE uint8x16_t ieee_times_x(uint8x16_t t) {
    const uint64x2_t v = vreinterpretq_u64_u8(t);
    const uint64x2_t top = vreinterpretq_u64_s64(vshrq_n_s64(vreinterpretq_s64_u64(v), 63));
    const uint64x2_t low_terms = vcombine_u64(vcreate_u64(1), vcreate_u64(0x87));
    const uint64x2_t carries = vandq_u64(top, low_terms);  // {lane 0's carry: 1, lane 1's: 0x87}
    return vreinterpretq_u8_u64(veorq_u64(vshlq_n_u64(v, 1), vextq_u64(carries, carries, 1)));
}
// GB/T 17964's order is IEEE's with the bits of every byte reversed (a right
// shift of the big-endian number becomes a left shift of the little-endian
// one; 0xe1 reversed is 0x87), so GB tweaks are kept bit-reversed and RBIT
// converts them where they meet the data.
template <XtsStandard S>
HWACCEL_SM4CE_INLINE uint8x16_t tweak_domain(uint8x16_t t) {
    if constexpr (S == XtsStandard::kGb) return vrbitq_u8(t);
    else return t;
}

// out_i = E(in_i ^ T_i) ^ T_i for m blocks; tw (the tweak domain's T_0) is
// advanced to T_m.
template <XtsStandard S, int N>
void xts_batch(const uint32_t* rk, uint8_t* out, const uint8_t* in, size_t m, uint8x16_t& tw) {
    uint32x4_t x[N];
    uint8x16_t t[N];
#pragma GCC unroll 16
    for (int b = 0; b < N; ++b) {
        if (static_cast<size_t>(b) < m) {
            t[b] = tweak_domain<S>(tw);
            tw = ieee_times_x(tw);
            x[b] = enter(veorq_u8(load(in + 16 * b), t[b]));
        } else {
            t[b] = vdupq_n_u8(0);
            x[b] = vdupq_n_u32(0);
        }
    }
    rounds(x, load_keys(rk));
#pragma GCC unroll 16
    for (int b = 0; b < N; ++b)
        if (static_cast<size_t>(b) < m) store(out + 16 * b, veorq_u8(leave(x[b]), t[b]));
}

// --- entry points -------------------------------------------------------------------
// Each ends with clear_vector_registers(): the round keys (and the user key,
// the blocks and counters) stay in v0-v7/v16-v31 otherwise, which the
// register residue test found in every entry point.

bool available(const CpuFeatures& c) { return c.arm_sm4; }

// Four schedule steps per SM4EKEY: K_{i+4..i+7} from K_{i..i+3} and CK.
void set_key(Sm4Key* key, const uint8_t user_key[16]) {
    uint32x4_t k = veorq_u32(enter(load(user_key)), vld1q_u32(sm4_schedule::kFK));
    for (int i = 0; i < 8; ++i) {
        k = vsm4ekeyq_u32(k, vld1q_u32(kCk.w + 4 * i));
        vst1q_u32(key->enc + 4 * i, k);
    }
    for (int i = 0; i < 32; ++i) key->dec[i] = key->enc[31 - i];
    clear_vector_registers();
}

void encrypt_block(const Sm4Key* key, uint8_t out[16], const uint8_t in[16]) {
    store(out, crypt1(load_keys(key->enc), load(in)));
    clear_vector_registers();
}

void ecb(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t n) {
    const uint32_t* rk = direction == Sm4Direction::kDecrypt ? key->dec : key->enc;
    while (n != 0) {
        const size_t m = n < kBatch ? n : kBatch;
        by_width<16>(m, [&](auto w) { ecb_batch<decltype(w)::value>(rk, out, in, m); });
        in += 16 * m;
        out += 16 * m;
        n -= m;
    }
    clear_vector_registers();
}

void ctr(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t counter[16]) {
    const uint32_t* rk = key->enc;
    uint64_t hi = load_be64(counter), lo = load_be64(counter + 8);
    while (n != 0) {
        const size_t m = n < kBatch ? n : kBatch;
        by_width<16>(m, [&](auto w) { ctr_batch<decltype(w)::value>(rk, out, in, m, hi, lo); });
        in += 16 * m;
        out += 16 * m;
        n -= m;
    }
    store_be64(counter, hi);
    store_be64(counter + 8, lo);
    clear_vector_registers();
}

// The chaining block of a batch is the previous batch's last ciphertext
// block, read before the batch (in place) overwrote it.
void cbc_decrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    const uint32_t* rk = key->dec;
    uint8x16_t prev = load(iv);
    while (n != 0) {
        const size_t m = n < kBatch ? n : kBatch;
        const uint8x16_t last = load(in + 16 * (m - 1));
        by_width<16>(m, [&](auto w) { cbc_dec_batch<decltype(w)::value>(rk, out, in, m, prev); });
        prev = last;
        in += 16 * m;
        out += 16 * m;
        n -= m;
    }
    store(iv, prev);
    clear_vector_registers();
}

void cfb_decrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    const uint32_t* rk = key->enc;
    uint8x16_t prev = load(iv);
    while (n != 0) {
        const size_t m = n < kBatch ? n : kBatch;
        const uint8x16_t last = load(in + 16 * (m - 1));
        by_width<16>(m, [&](auto w) { cfb_dec_batch<decltype(w)::value>(rk, out, in, m, prev); });
        prev = last;
        in += 16 * m;
        out += 16 * m;
        n -= m;
    }
    store(iv, prev);
    clear_vector_registers();
}

// The serial modes: one chain, the round keys loaded once per call.
void cbc_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    const RoundKeys keys = load_keys(key->enc);
    uint8x16_t c = load(iv);
    for (size_t i = 0; i < n; ++i) {
        c = crypt1(keys, veorq_u8(load(in + 16 * i), c));
        store(out + 16 * i, c);
    }
    store(iv, c);
    clear_vector_registers();
}

void cfb_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    const RoundKeys keys = load_keys(key->enc);
    uint8x16_t c = load(iv);
    for (size_t i = 0; i < n; ++i) {
        c = veorq_u8(load(in + 16 * i), crypt1(keys, c));
        store(out + 16 * i, c);
    }
    store(iv, c);
    clear_vector_registers();
}

void ofb(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    const RoundKeys keys = load_keys(key->enc);
    uint8x16_t o = load(iv);
    for (size_t i = 0; i < n; ++i) {
        o = crypt1(keys, o);
        store(out + 16 * i, veorq_u8(load(in + 16 * i), o));
    }
    store(iv, o);
    clear_vector_registers();
}

template <XtsStandard S>
void xts_body(const uint32_t* rk, uint8_t* out, const uint8_t* in, size_t n, uint8_t tweak[16]) {
    uint8x16_t tw = tweak_domain<S>(load(tweak));
    while (n != 0) {
        const size_t m = n < kXtsBatch ? n : kXtsBatch;
        by_width<8>(m, [&](auto w) { xts_batch<S, decltype(w)::value>(rk, out, in, m, tw); });
        in += 16 * m;
        out += 16 * m;
        n -= m;
    }
    store(tweak, tweak_domain<S>(tw));
}

void xts(const Sm4Key* key, Sm4Direction direction, XtsStandard standard, uint8_t* out, const uint8_t* in,
         size_t n, uint8_t tweak[16]) {
    const uint32_t* rk = direction == Sm4Direction::kDecrypt ? key->dec : key->enc;
    if (standard == XtsStandard::kIeee) xts_body<XtsStandard::kIeee>(rk, out, in, n, tweak);
    else xts_body<XtsStandard::kGb>(rk, out, in, n, tweak);
    clear_vector_registers();
}

}  // namespace

const Sm4Engine sm4_ce = {
    .name = "arm64-sm4e",
    .available = available,
    .set_key = set_key,
    .ecb = ecb,
    .encrypt_block = encrypt_block,
    .ctr = ctr,
    .cbc_decrypt = cbc_decrypt,
    .cfb_decrypt = cfb_decrypt,
    .cbc_encrypt = cbc_encrypt,
    .cfb_encrypt = cfb_encrypt,
    .ofb = ofb,
    .xts = xts,
    .ccm = nullptr,  // sm4_ccm_blocks over ctr and cbc_encrypt
};

}  // namespace hwaccel::arm64
