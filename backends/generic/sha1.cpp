// Portable SHA-1 compression (FIPS 180-4, section 6.1.2).
//
// The five working variables stay in locals and the rounds are written out so
// the variables rotate by renaming arguments instead of by moves; the message
// schedule is a 16-word ring computed as the rounds consume it.
#include "generic/generic_engines.hpp"
#include "hwaccel/bytes.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "hwaccel/wipe_stack.hpp"

namespace hwaccel::generic {
namespace {

// The stack compress uses below its caller: about 160 bytes with GCC 12 -O2
// (its frame, saved registers, red zone and return address); 512, as
// SHA-256's, leaves room for other flags (scripts/flags-matrix.sh).
constexpr size_t kWipeBytes = wipe_bytes(512);

constexpr uint32_t kK0 = 0x5a827999;
constexpr uint32_t kK1 = 0x6ed9eba1;
constexpr uint32_t kK2 = 0x8f1bbcdc;
constexpr uint32_t kK3 = 0xca62c1d6;

// Ch and Maj in forms with one operation fewer than the textbook ones.
inline uint32_t f_ch(uint32_t b, uint32_t c, uint32_t d) { return d ^ (b & (c ^ d)); }
inline uint32_t f_parity(uint32_t b, uint32_t c, uint32_t d) { return b ^ c ^ d; }
inline uint32_t f_maj(uint32_t b, uint32_t c, uint32_t d) { return (b & c) | (d & (b | c)); }

// W[t] for t >= 16, written over W[t-16] in the ring.
inline uint32_t expand(uint32_t w[16], int t) {
    uint32_t v = w[(t + 13) & 15] ^ w[(t + 8) & 15] ^ w[(t + 2) & 15] ^ w[t & 15];
    return w[t & 15] = rotl32(v, 1);
}

// W[T]: the loaded word for the first 16 rounds, then the expanded one. T is
// a template argument so the choice and the ring indices fold at compile time.
template <int T>
inline uint32_t word(uint32_t w[16]) {
    if constexpr (T < 16)
        return w[T];
    else
        return expand(w, T);
}

using BoolFn = uint32_t (*)(uint32_t, uint32_t, uint32_t);

// One round: T = ROTL5(a) + f(b,c,d) + e + K + W; the caller's renaming then
// makes "e" the new a, and b becomes ROTL30(b) in place.
template <BoolFn F>
inline void step(uint32_t a, uint32_t& b, uint32_t c, uint32_t d, uint32_t& e, uint32_t k,
                 uint32_t w) {
    e += rotl32(a, 5) + F(b, c, d) + k + w;
    b = rotl32(b, 30);
}

// Rounds T..T+4, after which the variables are back in their original roles.
template <BoolFn F, uint32_t K, int T>
inline void five(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d, uint32_t& e,
                 uint32_t w[16]) {
    step<F>(a, b, c, d, e, K, word<T + 0>(w));
    step<F>(e, a, b, c, d, K, word<T + 1>(w));
    step<F>(d, e, a, b, c, K, word<T + 2>(w));
    step<F>(c, d, e, a, b, K, word<T + 3>(w));
    step<F>(b, c, d, e, a, K, word<T + 4>(w));
}

// Rounds T..T+19, which share one function and one constant.
template <BoolFn F, uint32_t K, int T>
inline void twenty(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d, uint32_t& e,
                   uint32_t w[16]) {
    five<F, K, T + 0>(a, b, c, d, e, w);
    five<F, K, T + 5>(a, b, c, d, e, w);
    five<F, K, T + 10>(a, b, c, d, e, w);
    five<F, K, T + 15>(a, b, c, d, e, w);
}

// The rounds, not inlined into blocks: their frame (where the compiler keeps
// the chaining value and the schedule) then lies below blocks', where its
// wipe reaches.
[[gnu::noinline]] void compress(uint32_t state[5], const uint8_t* data, size_t nblocks) {
    uint32_t h0 = state[0], h1 = state[1], h2 = state[2], h3 = state[3], h4 = state[4];
    for (; nblocks > 0; --nblocks, data += 64) {
        uint32_t w[16];
        for (int i = 0; i < 16; ++i) w[i] = load_be32(data + 4 * i);

        uint32_t a = h0, b = h1, c = h2, d = h3, e = h4;
        twenty<f_ch, kK0, 0>(a, b, c, d, e, w);
        twenty<f_parity, kK1, 20>(a, b, c, d, e, w);
        twenty<f_maj, kK2, 40>(a, b, c, d, e, w);
        twenty<f_parity, kK3, 60>(a, b, c, d, e, w);

        h0 += a;
        h1 += b;
        h2 += c;
        h3 += d;
        h4 += e;
    }
    state[0] = h0;
    state[1] = h1;
    state[2] = h2;
    state[3] = h3;
    state[4] = h4;
}

void blocks(uint32_t state[5], const uint8_t* data, size_t nblocks) {
    compress(state, data, nblocks);
    clear_vector_registers();  // the chaining value (key-derived under HMAC)
    hwaccel_wipe_stack_and_scratch_registers(kWipeBytes);  // and in GPRs and compress's frame
}

bool available(const CpuFeatures&) { return true; }

}  // namespace

const Sha1Engine sha1 = {.name = "generic", .available = available, .blocks = blocks};

}  // namespace hwaccel::generic
