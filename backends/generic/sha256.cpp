// Portable SHA-256 compression (FIPS 180-4, section 6.2.2); SHA-224 shares it
// and differs only in the initial state the provider supplies.
//
// The eight working variables stay in locals and the rounds are written out so
// the variables rotate by renaming arguments instead of by moves; the message
// schedule is a 16-word ring computed as the rounds consume it.
#include "generic/generic_engines.hpp"
#include "hwaccel/bytes.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "hwaccel/wipe_stack.hpp"
#include "hwaccel/sha256_constants.hpp"

namespace hwaccel::generic {
namespace {

// The stack compress uses below its caller: about 190 bytes with GCC 12 -O2
// (its frame, saved registers, red zone and return address), 320 with
// Fedora's package flags (frame pointers, LTO: scripts/flags-matrix.sh).
// 512 leaves room for other flags, for about 8 cycles more than 256.
constexpr size_t kWipeBytes = wipe_bytes(512);

// The sigma functions with their rotations nested, e.g. ROTR2(x) ^ ROTR13(x) ^
// ROTR22(x) as ROTR2(ROTR11(ROTR9(x) ^ x) ^ x): the same operation count but
// each step works on the previous result, which saves register copies on
// two-operand ISAs (about 10% faster on x86-64; `build/tools/hwaccel-engine-bench
// generic` measures it).
inline uint32_t big_sigma0(uint32_t x) { return rotr32(rotr32(rotr32(x, 9) ^ x, 11) ^ x, 2); }
inline uint32_t big_sigma1(uint32_t x) { return rotr32(rotr32(rotr32(x, 14) ^ x, 5) ^ x, 6); }
inline uint32_t small_sigma0(uint32_t x) { return rotr32(rotr32(x, 11) ^ x, 7) ^ (x >> 3); }
inline uint32_t small_sigma1(uint32_t x) { return rotr32(rotr32(x, 2) ^ x, 17) ^ (x >> 10); }

// Ch(e, f, g) with one operation fewer than (e & f) ^ (~e & g).
inline uint32_t ch(uint32_t e, uint32_t f, uint32_t g) { return g ^ (e & (f ^ g)); }

// W[t]: the loaded word for the first 16 rounds, then W[t-16] replaced in the
// ring by sigma1(W[t-2]) + W[t-7] + sigma0(W[t-15]) + W[t-16]. T is a
// template argument so the choice and the ring indices fold at compile time.
template <int T>
inline uint32_t word(uint32_t w[16]) {
    if constexpr (T < 16) {
        return w[T];
    } else {
        w[T & 15] += small_sigma1(w[(T - 2) & 15]) + w[(T - 7) & 15] +
                     small_sigma0(w[(T - 15) & 15]);
        return w[T & 15];
    }
}

// One round. Instead of shifting all eight variables, d receives d + T1 (the
// new e) and h receives T1 + T2 (the new a); the caller renames the rest.
// Maj(a, b, c) is b ^ ((a ^ b) & (b ^ c)), and this round's a ^ b is the next
// round's b ^ c, so bc carries it over and Maj costs three operations.
template <int T>
inline void step(uint32_t a, uint32_t b, uint32_t& bc, uint32_t& d, uint32_t e, uint32_t f,
                 uint32_t g, uint32_t& h, uint32_t w[16]) {
    uint32_t t1 = h + big_sigma1(e) + ch(e, f, g) + kSha256RoundConstants[T] + word<T>(w);
    d += t1;
    uint32_t ab = a ^ b;
    h = t1 + big_sigma0(a) + (b ^ (ab & bc));
    bc = ab;
}

// Rounds T..T+7, after which the variables are back in their original roles.
template <int T>
inline void eight(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d, uint32_t& e, uint32_t& f,
                  uint32_t& g, uint32_t& h, uint32_t& bc, uint32_t w[16]) {
    step<T + 0>(a, b, bc, d, e, f, g, h, w);
    step<T + 1>(h, a, bc, c, d, e, f, g, w);
    step<T + 2>(g, h, bc, b, c, d, e, f, w);
    step<T + 3>(f, g, bc, a, b, c, d, e, w);
    step<T + 4>(e, f, bc, h, a, b, c, d, w);
    step<T + 5>(d, e, bc, g, h, a, b, c, w);
    step<T + 6>(c, d, bc, f, g, h, a, b, w);
    step<T + 7>(b, c, bc, e, f, g, h, a, w);
}

// The rounds, not inlined into blocks: their frame (where the compiler keeps
// the chaining value and the schedule) then lies below blocks', where its
// wipe reaches.
[[gnu::noinline]] void compress(uint32_t state[8], const uint8_t* data, size_t nblocks) {
    uint32_t h0 = state[0], h1 = state[1], h2 = state[2], h3 = state[3];
    uint32_t h4 = state[4], h5 = state[5], h6 = state[6], h7 = state[7];
    for (; nblocks > 0; --nblocks, data += 64) {
        uint32_t w[16];
        for (int i = 0; i < 16; ++i) w[i] = load_be32(data + 4 * i);

        uint32_t a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
        uint32_t bc = b ^ c;
        eight<0>(a, b, c, d, e, f, g, h, bc, w);
        eight<8>(a, b, c, d, e, f, g, h, bc, w);
        eight<16>(a, b, c, d, e, f, g, h, bc, w);
        eight<24>(a, b, c, d, e, f, g, h, bc, w);
        eight<32>(a, b, c, d, e, f, g, h, bc, w);
        eight<40>(a, b, c, d, e, f, g, h, bc, w);
        eight<48>(a, b, c, d, e, f, g, h, bc, w);
        eight<56>(a, b, c, d, e, f, g, h, bc, w);

        h0 += a;
        h1 += b;
        h2 += c;
        h3 += d;
        h4 += e;
        h5 += f;
        h6 += g;
        h7 += h;
    }
    state[0] = h0;
    state[1] = h1;
    state[2] = h2;
    state[3] = h3;
    state[4] = h4;
    state[5] = h5;
    state[6] = h6;
    state[7] = h7;
}

void blocks(uint32_t state[8], const uint8_t* data, size_t nblocks) {
    compress(state, data, nblocks);
    clear_vector_registers();  // the chaining value (key-derived under HMAC)
    hwaccel_wipe_stack_and_scratch_registers(kWipeBytes);  // and in GPRs and compress's frame
}

bool available(const CpuFeatures&) { return true; }

}  // namespace

const Sha256Engine sha256 = {.name = "generic", .available = available, .blocks = blocks};

}  // namespace hwaccel::generic
