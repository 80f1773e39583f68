// SM4 (GB/T 32907-2016), portable C++ and constant-time.
//
// No table lookups and no branches on key- or data-dependent values anywhere,
// the key schedule included: the S-box is a boolean circuit evaluated on
// bit-planes. Three ways of feeding it, picked by block count (Kernels):
//   - Bulk, from 64 blocks (ecb, ctr, cbc_decrypt, cfb_decrypt): 128 blocks
//     fully bitsliced, one 128-bit lane word (two uint64_t) per bit position
//     of the state, so the word rotations of L cost nothing and one circuit
//     evaluation serves 128 bytes. The lane word is a plain struct whose
//     element-wise operations compilers map onto SSE2/NEON registers;
//   - Small, 2 to 63 blocks: 8 blocks byte-sliced, one uint32_t per (word,
//     bit) holding that bit of all 32 bytes of the word;
//   - one block (encrypt_block, the key schedule, single blocks): bit j of
//     each byte of the round word goes to plane j (bits 0, 8, 16, 24 of a
//     uint32_t) and the circuit runs once per round.
//
// The circuit. The SM4 S-box is affine-equivalent to inversion in GF(2^8):
//     S(x) = A * inv(A * x + C) + C,  inversion modulo x^8+x^7+x^6+x^5+x^4+x^2+1,
// C = 0xD3, A the 8x8 bit matrix whose row i (output bit i, bits LSB first)
// is 11100101 11110010 01111001 10111100 01011110 00101111 10010111 11001011
// (column j = input bit j). Rewritten as S(x) = S'(x ^ 0x75) ^ 0xD3 where S'
// is linear -> inversion -> linear with no constants (0x75 = A^-1 * C). The
// inversion is done in the tower field GF(((2^2)^2)^2), W^2 = W + 1,
// Z^2 = Z + W, Y^2 = Y + (W*Z + 1), in the normal bases {W, W^2}, {Z, Z^4},
// {Y, Y^16}, reached through the isomorphism that sends x to
// (W*Z)*Y + W*Z + W + 1.
// With a = a1*Y + a0*Y^16: a^-1 = (a0 * D^-1)*Y + (a1 * D^-1)*Y^16 where
// D = a*a^16 = t*a1*a0 + linear terms lies in GF(16), and D^-1 is found the
// same way one level down (in GF(4) the inverse is the square). Products use
// Karatsuba (3 ANDs per GF(4) product): 9 + 9 + 18 = 36 ANDs, and the three
// products with a0 and a1 share their operand sums. The linear layers around
// the AND stages (the basis changes and A included) were reduced with Paar's
// greedy common-subexpression heuristic. Result: 36 AND + 91 XOR, depth 23.
// The backend tests check it against the standard table for all 256 inputs.
//
// The constants 0x75 and 0xD3 never cost a gate: they are folded into the
// round keys (see kRoundConst).

#include <cstring>
#include <optional>
#include <utility>

#include "generic/generic_engines.hpp"
#include "generic/sm4_internal.hpp"
#include "hwaccel/bytes.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "hwaccel/wipe_stack.hpp"
#include "hwaccel/sm4_key_schedule.hpp"

namespace hwaccel::generic {
namespace {

constexpr uint32_t kSboxIn = 0x75757575;  // S(x) = S'(x ^ 0x75) ^ 0xD3, per byte
constexpr uint32_t kSboxOut = 0xD3D3D3D3;

constexpr uint32_t linear_l(uint32_t b) {
    return b ^ rotl32(b, 2) ^ rotl32(b, 10) ^ rotl32(b, 18) ^ rotl32(b, 24);
}

// Running the rounds with S' instead of S: L(S(u)) = L(S'(u ^ kSboxIn)) ^ K
// with K = L(kSboxOut). Track X'_j = X_j ^ o_j with o_j = K when j/4 is odd,
// else 0: then X'_{j+4} = X'_j ^ L(S'(X'_{j+1} ^ X'_{j+2} ^ X'_{j+3} ^ rk_j ^ c_j))
// with c_j = kSboxIn ^ o_{j+1} ^ o_{j+2} ^ o_{j+3}, which repeats every 8
// rounds, and o_32..o_35 = 0 so the output needs no correction.
constexpr uint32_t kOffset = linear_l(kSboxOut);
constexpr uint32_t kRoundConst[8] = {
    kSboxIn,           kSboxIn ^ kOffset, kSboxIn,           kSboxIn ^ kOffset,
    kSboxIn ^ kOffset, kSboxIn,           kSboxIn ^ kOffset, kSboxIn,
};

// out = S'(in) on 8 bit-planes: in[j] holds bit j of every byte lane.
// Generated circuit (see the derivation note above): 36 AND + 91 XOR, in an
// order that keeps few values live (fewer register spills).
template <class T>
inline void sbox_circuit(const T* in, T* out) {
    const T x0 = in[0], x1 = in[1], x2 = in[2], x3 = in[3];
    const T x4 = in[4], x5 = in[5], x6 = in[6], x7 = in[7];
    const T t1 = x0 ^ x6;
    const T t10 = x1 ^ x4;
    const T t20 = x3 ^ x4;
    const T t2 = x2 ^ x5;
    const T t6 = t1 ^ x1;
    const T t4 = t1 ^ x4;
    const T t24 = t6 ^ x2;
    const T t17 = t2 ^ x1;
    const T t25 = t4 ^ x2;
    const T t22 = t10 ^ x5;
    const T t16 = t2 ^ t6;
    const T t3 = t2 ^ x7;
    const T t11 = x1 ^ x7;
    const T t28 = t4 & t11;
    const T t8 = x2 ^ x6;
    const T t5 = x5 ^ x6;
    const T t14 = t5 ^ t10;
    const T t9 = t5 ^ x3;
    const T t7 = t3 ^ x3;
    const T t26 = t9 ^ x1;
    const T t21 = t7 ^ x6;
    const T t12 = t9 ^ x7;
    const T t19 = t8 ^ x7;
    const T t23 = t8 ^ x4;
    const T t13 = t7 ^ x4;
    const T t27 = x2 & t12;
    const T t32 = t22 & t14;
    const T t35 = t16 & t20;
    const T t18 = t4 ^ x5;
    const T t30 = t6 & t23;
    const T t15 = t11 ^ t4;
    const T t34 = x5 & t3;
    const T t37 = t34 ^ t35;
    const T t40 = t37 ^ t15;
    const T t41 = t37 ^ t19;
    const T t43 = t41 ^ t27;
    const T t45 = t40 ^ t32;
    const T t49 = t45 ^ t30;
    const T t33 = t24 & t13;
    const T t36 = t33 ^ t34;
    const T t38 = t36 ^ t28;
    const T t39 = t38 ^ t7;
    const T t29 = t25 & t26;
    const T t48 = t43 ^ t29;
    const T t46 = t39 ^ t29;
    const T t52 = t48 ^ t49;
    const T t51 = t48 ^ t46;
    const T t54 = t48 & t49;
    const T t31 = t18 & t17;
    const T t42 = t21 ^ t31;
    const T t44 = t36 ^ t42;
    const T t47 = t44 ^ t32;
    const T t55 = t46 & t47;
    const T t50 = t49 ^ t47;
    const T t56 = t51 & t50;
    const T t58 = t52 ^ t56;
    const T t59 = t58 ^ t54;
    const T t66 = t59 & t46;
    const T t63 = t59 & t47;
    const T t53 = t50 ^ t51;
    const T t57 = t53 ^ t56;
    const T t60 = t57 ^ t55;
    const T t62 = t60 & t49;
    const T t61 = t59 ^ t60;
    const T t65 = t60 & t48;
    const T t67 = t61 & t51;
    const T t64 = t61 & t50;
    const T t69 = t65 ^ t67;
    const T t71 = t66 ^ t67;
    const T t89 = t69 & t6;
    const T t68 = t62 ^ t64;
    const T t70 = t63 ^ t64;
    const T t87 = t70 & t4;
    const T t77 = t68 & t12;
    const T t80 = t69 & t23;
    const T t90 = t71 & t18;
    const T t86 = t68 & x2;
    const T t78 = t70 & t11;
    const T t99 = t86 ^ t89;
    const T t81 = t71 & t17;
    const T t95 = t80 ^ t81;
    const T t109 = t81 ^ t87;
    const T t96 = t95 ^ t90;
    const T t76 = t68 ^ t70;
    const T t72 = t70 ^ t71;
    const T t73 = t68 ^ t69;
    const T t74 = t69 ^ t71;
    const T t91 = t74 & t22;
    const T t82 = t74 & t14;
    const T t83 = t73 & t13;
    const T t101 = t99 ^ t83;
    const T t93 = t72 & x5;
    const T t88 = t76 & t25;
    const T t79 = t76 & t26;
    const T t92 = t73 & t24;
    const T t112 = t95 ^ t88;
    const T t111 = t79 ^ t82;
    const T t75 = t72 ^ t73;
    const T t84 = t72 & t3;
    const T t98 = t79 ^ t84;
    const T t85 = t75 & t20;
    const T t94 = t75 & t16;
    const T t105 = t89 ^ t94;
    const T t120 = t98 ^ t83;
    const T t100 = t96 ^ t85;
    const T t104 = t88 ^ t93;
    const T t127 = t120 ^ t78;
    const T t103 = t91 ^ t93;
    const T t97 = t78 ^ t92;
    const T t118 = t104 ^ t92;
    const T t113 = t109 ^ t104;
    const T t117 = t111 ^ t97;
    const T t125 = t113 ^ t117;
    const T t126 = t105 ^ t103;
    const T t106 = t97 ^ t103;
    const T t107 = t97 ^ t77;
    const T t114 = t105 ^ t107;
    const T t115 = t96 ^ t114;
    const T t119 = t106 ^ t100;
    const T t102 = t100 ^ t101;
    const T t122 = t102 ^ t87;
    const T t124 = t118 ^ t102;
    const T t108 = t98 ^ t77;
    const T t121 = t119 ^ t98;
    const T t110 = t108 ^ t91;
    const T t116 = t110 ^ t101;
    const T t123 = t112 ^ t116;
    out[0] = t127;
    out[1] = t125;
    out[2] = t121;
    out[3] = t123;
    out[4] = t115;
    out[5] = t122;
    out[6] = t126;
    out[7] = t124;
}

// --- one block ----------------------------------------------------------------

// S' on the four bytes of t. Plane j is t >> j: bits 0, 8, 16 and 24 hold
// bit j of the four bytes. The other bits are don't-cares (the circuit is
// bitwise, so they never reach the four that count) and are masked off once
// at the end.
inline uint32_t sbox_prime_word(uint32_t t) {
    constexpr uint32_t m = 0x01010101;
    uint32_t in[8], out[8];
    for (int j = 0; j < 8; ++j) in[j] = t >> j;
    sbox_circuit(in, out);
    uint32_t r = 0;
    for (int j = 0; j < 8; ++j) r |= (out[j] & m) << j;
    return r;
}

inline uint32_t sbox_word(uint32_t x) { return sbox_prime_word(x ^ kSboxIn) ^ kSboxOut; }

// Not inlined: its frame then lies below its caller's, where
// encrypt_block_wiped's wipe reaches.
[[gnu::noinline]] void encrypt_block(const uint32_t rk[32], uint8_t out[16], const uint8_t in[16]) {
    uint32_t x0 = load_be32(in), x1 = load_be32(in + 4);
    uint32_t x2 = load_be32(in + 8), x3 = load_be32(in + 12);
    for (int i = 0; i < 32; i += 8) {
        x0 ^= linear_l(sbox_prime_word(x1 ^ x2 ^ x3 ^ rk[i + 0] ^ kRoundConst[0]));
        x1 ^= linear_l(sbox_prime_word(x2 ^ x3 ^ x0 ^ rk[i + 1] ^ kRoundConst[1]));
        x2 ^= linear_l(sbox_prime_word(x3 ^ x0 ^ x1 ^ rk[i + 2] ^ kRoundConst[2]));
        x3 ^= linear_l(sbox_prime_word(x0 ^ x1 ^ x2 ^ rk[i + 3] ^ kRoundConst[3]));
        x0 ^= linear_l(sbox_prime_word(x1 ^ x2 ^ x3 ^ rk[i + 4] ^ kRoundConst[4]));
        x1 ^= linear_l(sbox_prime_word(x2 ^ x3 ^ x0 ^ rk[i + 5] ^ kRoundConst[5]));
        x2 ^= linear_l(sbox_prime_word(x3 ^ x0 ^ x1 ^ rk[i + 6] ^ kRoundConst[6]));
        x3 ^= linear_l(sbox_prime_word(x0 ^ x1 ^ x2 ^ rk[i + 7] ^ kRoundConst[7]));
    }
    store_be32(out, x3);
    store_be32(out + 4, x2);
    store_be32(out + 8, x1);
    store_be32(out + 12, x0);
}

// One block, then the stack and scratch registers it used wiped: GCC 12 for
// arm64 kept the last round keys (rk[29..31]) in encrypt_block's frame.
// 256 bytes: its frame is under 100 (arm64 and x86-64, -O2).
void encrypt_block_wiped(const uint32_t rk[32], uint8_t out[16], const uint8_t in[16]) {
    encrypt_block(rk, out, in);
    hwaccel_wipe_stack_and_scratch_registers(wipe_bytes(256));
}

// The schedule in a frame of its own, below set_key's, where the wipe
// reaches.
[[gnu::noinline]] void expand_key(Sm4Key* key, const uint8_t user_key[16]) {
    sm4_schedule::expand(key, user_key, [](uint32_t x) { return sbox_word(x); });
}

// Then the scratch registers and the stack: GCC 12 at -O1 left dec[31] in
// rcx after the copy of the reversed keys (scripts/flags-matrix.sh), which
// -O2 and -O3 happen to overwrite. 256 bytes, as encrypt_block_wiped.
void set_key(Sm4Key* key, const uint8_t user_key[16]) {
    expand_key(key, user_key);
    clear_vector_registers();  // GCC vectorises the round keys' copies
    hwaccel_wipe_stack_and_scratch_registers(wipe_bytes(256));
}

// --- bitsliced bulk kernel ------------------------------------------------------

// 128 lanes as two 64-bit words with element-wise operations: plain C++ that
// compilers keep in one vector register where they have 128-bit ones, and
// two scalar operations elsewhere.
struct alignas(16) Lanes {
    uint64_t w[2];
};
inline Lanes operator^(Lanes a, Lanes b) { return Lanes{{a.w[0] ^ b.w[0], a.w[1] ^ b.w[1]}}; }
inline Lanes operator&(Lanes a, Lanes b) { return Lanes{{a.w[0] & b.w[0], a.w[1] & b.w[1]}}; }
inline Lanes operator<<(Lanes a, unsigned n) { return Lanes{{a.w[0] << n, a.w[1] << n}}; }
inline Lanes operator>>(Lanes a, unsigned n) { return Lanes{{a.w[0] >> n, a.w[1] >> n}}; }
inline Lanes& operator^=(Lanes& a, Lanes b) { return a = a ^ b; }
inline Lanes splat(uint64_t x) { return Lanes{{x, x}}; }

constexpr size_t kWords = 2;             // 64-bit words per lane word
constexpr size_t kBatch = 64 * kWords;   // blocks per bitsliced batch

// One stage of a 64 x 64 bit-matrix transpose, in both words at once: swaps
// bit c + J of a[k] with bit c of a[k + J] for every k and c with bit J clear.
// The shift is a template argument so it compiles to vector shifts by an
// immediate.
template <unsigned J, uint64_t M>
inline void transpose_stage(Lanes* a) {
    const Lanes m = splat(M);
    for (unsigned k = 0; k < 64; k = (k + J + 1) & ~J) {
        const Lanes t = ((a[k] >> J) ^ a[k + J]) & m;
        a[k] ^= t << J;
        a[k + J] ^= t;
    }
}

// In place, for each of the two words: transpose the 64 x 64 bit matrix
// (a[r] bit c <-> a[c] bit r).
inline void transpose64(Lanes* a) {
    transpose_stage<32, 0x00000000FFFFFFFFull>(a);
    transpose_stage<16, 0x0000FFFF0000FFFFull>(a);
    transpose_stage<8, 0x00FF00FF00FF00FFull>(a);
    transpose_stage<4, 0x0F0F0F0F0F0F0F0Full>(a);
    transpose_stage<2, 0x3333333333333333ull>(a);
    transpose_stage<1, 0x5555555555555555ull>(a);
}

// Bitsliced state of up to kBatch blocks: p[8 * B + j] holds bit j of byte B
// of every block, block 64 * i + b in bit b of word i. Word w of the block,
// bit n of its big-endian value, is therefore p[32 * w + (n ^ 24)].
struct Planes {
    Lanes p[128];

    void load(const uint8_t* in, size_t n) {
        for (size_t h = 0; h < 2; ++h) {
            Lanes* a = p + 64 * h;
            for (size_t b = 0; b < 64; ++b) {
                for (size_t i = 0; i < kWords; ++i) {
                    const size_t blk = 64 * i + b;
                    a[b].w[i] = blk < n ? load_le64(in + 16 * blk + 8 * h) : 0;
                }
            }
            transpose64(a);
        }
    }

    // Stores words in reverse order (the final R of SM4).
    void store_reversed(uint8_t* out, size_t n) {
        for (int q = 0; q < 32; ++q) {
            Lanes t = p[q];
            p[q] = p[96 + q];
            p[96 + q] = t;
            t = p[32 + q];
            p[32 + q] = p[64 + q];
            p[64 + q] = t;
        }
        for (size_t h = 0; h < 2; ++h) {
            Lanes* a = p + 64 * h;
            transpose64(a);
            for (size_t b = 0; b < 64; ++b) {
                for (size_t i = 0; i < kWords; ++i) {
                    const size_t blk = 64 * i + b;
                    if (blk < n) store_le64(out + 16 * blk + 8 * h, a[b].w[i]);
                }
            }
        }
    }
};

// A round's temporaries. The last round's S-box input is X32 ^ X33 ^ X34 ^
// rk31 with X32..X34 in the ciphertext, i.e. round-key material: they live
// in one struct that is wiped after the batch.
struct RoundScratch {
    Lanes x[32];  // S-box inputs
    Lanes s[32];  // S-box outputs
    Lanes a[32];  // s ^ s<<<8
};

// One round on slots (A, B, C, D) = (X0, X1, X2, X3); mk: the 32 round-key
// bit masks of this round, indexed by bit n. N... = 0..31 unrolls every
// per-bit loop at compile time, so all plane indices are constants.
template <int A, int B, int C, int D, size_t... N>
inline void round_bitsliced(Lanes* p, const Lanes* mk, RoundScratch& t, std::index_sequence<N...>) {
    ((t.x[N] = p[32 * B + (N ^ 24)] ^ p[32 * C + (N ^ 24)] ^ p[32 * D + (N ^ 24)] ^ mk[N]), ...);
    for (int m = 0; m < 4; ++m) sbox_circuit(t.x + 8 * m, t.s + 8 * m);
    // L(s) = s ^ s<<<2 ^ s<<<10 ^ s<<<18 ^ s<<<24; with a = s ^ s<<<8 that is
    // a<<<24 ^ a<<<2 ^ s<<<18, 3 XORs per bit, and a rotation is only a
    // choice of index.
    ((t.a[N] = t.s[N] ^ t.s[(N - 8) & 31]), ...);
    ((p[32 * A + (N ^ 24)] ^= t.a[(N - 24) & 31] ^ t.a[(N - 2) & 31] ^ t.s[(N - 18) & 31]), ...);
}

// Overwrites the stack just below the caller's frame, where the circuit's
// register spills from the last rounds were left. Called through a volatile
// pointer so it is neither inlined nor dropped.
void burn_stack() {
    uint8_t area[1024];
    secure_zero(area, sizeof area);
}
void (*volatile const burn_stack_call)() = burn_stack;

class Bulk {
public:
    explicit Bulk(const uint32_t rk[32]) {
        for (int r = 0; r < 32; ++r) {
            const uint32_t k = rk[r] ^ kRoundConst[r & 7];
            for (int n = 0; n < 32; ++n) mk_[r][n] = splat(0 - uint64_t{(k >> n) & 1});
        }
    }
    ~Bulk() { secure_zero(mk_, sizeof mk_); }
    Bulk(const Bulk&) = delete;
    Bulk& operator=(const Bulk&) = delete;

    // n <= kBatch blocks; in == out allowed (all input is read first).
    void crypt(uint8_t* out, const uint8_t* in, size_t n) const {
        Planes st;
        RoundScratch t;
        st.load(in, n);
        Lanes* p = st.p;
        for (int r = 0; r < 32; r += 4) {
            constexpr auto bits = std::make_index_sequence<32>();
            round_bitsliced<0, 1, 2, 3>(p, mk_[r], t, bits);
            round_bitsliced<1, 2, 3, 0>(p, mk_[r + 1], t, bits);
            round_bitsliced<2, 3, 0, 1>(p, mk_[r + 2], t, bits);
            round_bitsliced<3, 0, 1, 2>(p, mk_[r + 3], t, bits);
        }
        secure_zero(&t, sizeof t);
        burn_stack_call();
        st.store_reversed(out, n);
        // The state now holds only the output, which is keystream where the
        // caller makes it (CTR, GCM's H and counters, CCM, XTS's tweaks).
        secure_zero(&st, sizeof st);
    }

private:
    Lanes mk_[32][32];  // round-key bits as all-zero / all-one lane words
};

// --- byte-sliced kernel for a few blocks ----------------------------------------

// Up to 8 blocks, one uint32_t plane per (word, bit j): bit 8k + b of plane
// (w, j) is bit j of byte k (k = 0 least significant) of word w of block b.
// The circuit then runs once per round for all 32 bytes, and a rotation of
// the round word by 8 is a rotation of each plane by 8. Far cheaper than a
// 128-block batch when there are only a handful of blocks.
class Small {
public:
    static constexpr size_t kBlocks = 8;

    explicit Small(const uint32_t rk[32]) {
        for (int r = 0; r < 32; ++r) {
            const uint32_t k = rk[r] ^ kRoundConst[r & 7];
            for (int j = 0; j < 8; ++j) mk_[r][j] = ((k >> j) & 0x01010101) * 0xFF;
        }
    }
    ~Small() { secure_zero(mk_, sizeof mk_); }
    Small(const Small&) = delete;
    Small& operator=(const Small&) = delete;

    // n <= kBlocks blocks; in == out allowed (all input is read first).
    void crypt(uint8_t* out, const uint8_t* in, size_t n) const {
        uint32_t p[32];
        for (int w = 0; w < 4; ++w) {
            uint32_t* a = p + 8 * w;
            for (size_t b = 0; b < kBlocks; ++b) a[b] = b < n ? load_be32(in + 16 * b + 4 * w) : 0;
            transpose8(a);
        }
        uint32_t x[8], s[8];
        for (int r = 0; r < 32; r += 4) {
            one_round<0, 1, 2, 3>(p, mk_[r], x, s);
            one_round<1, 2, 3, 0>(p, mk_[r + 1], x, s);
            one_round<2, 3, 0, 1>(p, mk_[r + 2], x, s);
            one_round<3, 0, 1, 2>(p, mk_[r + 3], x, s);
        }
        secure_zero(x, sizeof x);  // the last round's S-box input holds rk31
        secure_zero(s, sizeof s);
        // Slot w holds X(32 + w); the output is X35 X34 X33 X32.
        for (int w = 0; w < 4; ++w) {
            uint32_t* a = p + 8 * (3 - w);
            transpose8(a);
            for (size_t b = 0; b < n; ++b) store_be32(out + 16 * b + 4 * w, a[b]);
        }
        secure_zero(p, sizeof p);  // the output: keystream where the caller makes it (CTR, GCM, CCM)
    }

private:
    // Transposes the 8 x 8 bit matrix in each byte lane of a[0..7]
    // (a[r] bit 8k + c <-> a[c] bit 8k + r); its own inverse.
    static void transpose8(uint32_t* a) {
        swap_stage<4>(a, 0x0F0F0F0F);
        swap_stage<2>(a, 0x33333333);
        swap_stage<1>(a, 0x55555555);
    }
    template <unsigned J>
    static void swap_stage(uint32_t* a, uint32_t m) {
        for (unsigned k = 0; k < 8; k = (k + J + 1) & ~J) {
            const uint32_t t = ((a[k] >> J) ^ a[k + J]) & m;
            a[k] ^= t << J;
            a[k + J] ^= t;
        }
    }

    // One round on slots (A, B, C, D) = (X0, X1, X2, X3).
    template <int A, int B, int C, int D>
    static void one_round(uint32_t* p, const uint32_t* mk, uint32_t* x, uint32_t* s) {
        for (int j = 0; j < 8; ++j) x[j] = p[8 * B + j] ^ p[8 * C + j] ^ p[8 * D + j] ^ mk[j];
        sbox_circuit(x, s);
        // L = a<<<24 ^ a<<<2 ^ s<<<18 with a = s ^ s<<<8 (as in the bulk
        // kernel). Rotating by 8r rotates every plane by 8r; rotating by 2
        // moves plane j - 2 to plane j, and planes 6 and 7 to 0 and 1 of the
        // next byte up.
        uint32_t a[8];
        for (int j = 0; j < 8; ++j) a[j] = s[j] ^ rotl32(s[j], 8);
        for (int j = 0; j < 2; ++j)
            p[8 * A + j] ^= rotl32(a[j], 24) ^ rotl32(a[j + 6], 8) ^ rotl32(s[j + 6], 24);
        for (int j = 2; j < 8; ++j)
            p[8 * A + j] ^= rotl32(a[j], 24) ^ a[j - 2] ^ rotl32(s[j - 2], 16);
    }

    uint32_t mk_[32][8];  // round-key bits j of each byte, spread over the byte
};

// --- choosing a kernel ----------------------------------------------------------

// Each kernel costs about the same per call whatever the number of blocks up
// to its width, masks included: Small (8 blocks) about 1.7 one-block calls,
// Bulk (128 blocks) about 6 Small calls (x86-64, g++ 12 -O3). So one block
// goes alone, and Bulk pays from half its width on. Measure with
// `build/tools/hwaccel-engine-bench generic` (SM4 modes per length).
constexpr size_t kSerialMax = 1;  // up to this many blocks: one at a time
constexpr size_t kBulkMin = 64;   // from this many blocks: the 128-block kernel

// The round-key masks each kernel needs, built once per call and only for
// the kernels the call will use; the destructors wipe them.
class Kernels {
public:
    Kernels(const uint32_t rk[32], size_t nblocks) : rk_(rk) {
        if (nblocks > kSerialMax) small_.emplace(rk);
        if (nblocks >= kBulkMin) bulk_.emplace(rk);
    }

    // Encrypts (or decrypts, by rk) m <= kBatch blocks.
    void crypt(uint8_t* out, const uint8_t* in, size_t m) const {
        if (bulk_ && m >= kBulkMin) {
            bulk_->crypt(out, in, m);
            return;
        }
        while (small_ && m > kSerialMax) {
            const size_t c = m < Small::kBlocks ? m : Small::kBlocks;
            small_->crypt(out, in, c);
            in += 16 * c;
            out += 16 * c;
            m -= c;
        }
        for (size_t i = 0; i < m; ++i) encrypt_block_wiped(rk_, out + 16 * i, in + 16 * i);
    }

private:
    const uint32_t* rk_;
    std::optional<Small> small_;
    std::optional<Bulk> bulk_;
};

inline void xor16(uint8_t* out, const uint8_t* a, const uint8_t* b) {
    store_le64(out, load_le64(a) ^ load_le64(b));
    store_le64(out + 8, load_le64(a + 8) ^ load_le64(b + 8));
}

// Returns x, but the compiler cannot see that it does.
inline uint64_t value_barrier(uint64_t x) {
    volatile uint64_t v = x;
    return v;
}

inline uint64_t load_be64(const uint8_t* p) {
    return (uint64_t{load_be32(p)} << 32) | load_be32(p + 4);
}

// --- modes ------------------------------------------------------------------------

// Every mode ends with the scratch registers and the stack below it wiped:
// ecb makes keystream for the provider's modes (GCM's H and counter blocks,
// CCM, XTS's tweaks), and a GPR held a word of it after the call
// (message_stack_residue_test). The kernels' states are wiped by themselves.
constexpr size_t kModeWipeBytes = wipe_bytes(512);

void ecb(const uint32_t rk[32], uint8_t* out, const uint8_t* in, size_t nblocks) {
    const Kernels kernels(rk, nblocks);
    while (nblocks > 0) {
        const size_t m = nblocks < kBatch ? nblocks : kBatch;
        kernels.crypt(out, in, m);
        in += 16 * m;
        out += 16 * m;
        nblocks -= m;
    }
}

void ctr(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t nblocks, uint8_t counter[16]) {
    const Kernels kernels(key->enc, nblocks);
    uint64_t hi = load_be64(counter), lo = load_be64(counter + 8);
    uint8_t buf[16 * kBatch];
    while (nblocks > 0) {
        const size_t m = nblocks < kBatch ? nblocks : kBatch;
        for (size_t i = 0; i < m; ++i) {
            store_be64(buf + 16 * i, hi);
            store_be64(buf + 16 * i + 8, lo);
            // 128-bit increment without a branch (the counter is IV material):
            // the carry out of lo is the top bit of lo & ~(lo + 1). The
            // barrier stops the compiler from making lo the loop's induction
            // variable, which turned the loop exit into a test on the counter.
            const uint64_t next = value_barrier(lo) + 1;
            hi += (lo & ~next) >> 63;
            lo = next;
        }
        kernels.crypt(buf, buf, m);
        for (size_t i = 0; i < m; ++i) xor16(out + 16 * i, in + 16 * i, buf + 16 * i);
        in += 16 * m;
        out += 16 * m;
        nblocks -= m;
    }
    store_be64(counter, hi);
    store_be64(counter + 8, lo);
    secure_zero(buf, sizeof buf);
    clear_vector_registers();  // the bitsliced state and round keys
    hwaccel_wipe_stack_and_scratch_registers(kModeWipeBytes);
}

void cbc_decrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t nblocks, uint8_t iv[16]) {
    const Kernels kernels(key->dec, nblocks);
    uint8_t buf[16 * kBatch];
    while (nblocks > 0) {
        const size_t m = nblocks < kBatch ? nblocks : kBatch;
        kernels.crypt(buf, in, m);
        uint8_t last[16];
        std::memcpy(last, in + 16 * (m - 1), 16);
        // Backwards, so in place each ciphertext block is read before the
        // plaintext overwrites it.
        for (size_t i = m - 1; i > 0; --i) xor16(out + 16 * i, buf + 16 * i, in + 16 * (i - 1));
        xor16(out, buf, iv);
        std::memcpy(iv, last, 16);
        in += 16 * m;
        out += 16 * m;
        nblocks -= m;
    }
    secure_zero(buf, sizeof buf);
    clear_vector_registers();  // the bitsliced state and round keys
    hwaccel_wipe_stack_and_scratch_registers(kModeWipeBytes);
}

// CFB128: P_i = C_i ^ E(C_{i-1}), all E inputs known up front.
void cfb_decrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t nblocks, uint8_t iv[16]) {
    const Kernels kernels(key->enc, nblocks);
    uint8_t buf[16 * kBatch];
    while (nblocks > 0) {
        const size_t m = nblocks < kBatch ? nblocks : kBatch;
        std::memcpy(buf, iv, 16);
        std::memcpy(buf + 16, in, 16 * (m - 1));
        kernels.crypt(buf, buf, m);
        std::memcpy(iv, in + 16 * (m - 1), 16);
        for (size_t i = 0; i < m; ++i) xor16(out + 16 * i, in + 16 * i, buf + 16 * i);
        in += 16 * m;
        out += 16 * m;
        nblocks -= m;
    }
    secure_zero(buf, sizeof buf);
    clear_vector_registers();  // the bitsliced state and round keys
    hwaccel_wipe_stack_and_scratch_registers(kModeWipeBytes);
}

bool always(const CpuFeatures&) { return true; }

// The interface's entry points over the functions above, which work on
// one round-key array (the direction is the array).
void ecb_entry(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t nblocks) {
    ecb(direction == Sm4Direction::kDecrypt ? key->dec : key->enc, out, in, nblocks);
    clear_vector_registers();
    hwaccel_wipe_stack_and_scratch_registers(kModeWipeBytes);
}
void encrypt_block_entry(const Sm4Key* key, uint8_t out[16], const uint8_t in[16]) {
    encrypt_block_wiped(key->enc, out, in);
    clear_vector_registers();
}

}  // namespace

const Sm4Engine sm4 = {
    .name = "generic",
    .available = always,
    .set_key = set_key,
    .ecb = ecb_entry,
    .encrypt_block = encrypt_block_entry,
    .ctr = ctr,
    .cbc_decrypt = cbc_decrypt,
    .cfb_decrypt = cfb_decrypt,
    // Serial modes: the provider's loop over encrypt_block.
    .cbc_encrypt = nullptr,
    .cfb_encrypt = nullptr,
    .ofb = nullptr,
    .xts = nullptr,  // the provider's XORs around ecb
    .ccm = nullptr,
};

namespace sm4_detail {

uint32_t sbox_word(uint32_t x) { return generic::sbox_word(x); }

void byteslice_blocks(const uint32_t rk[32], uint8_t* out, const uint8_t* in, size_t nblocks) {
    const Small small(rk);
    while (nblocks > 0) {
        const size_t m = nblocks < Small::kBlocks ? nblocks : Small::kBlocks;
        small.crypt(out, in, m);
        in += 16 * m;
        out += 16 * m;
        nblocks -= m;
    }
}

void bitsliced_blocks(const uint32_t rk[32], uint8_t* out, const uint8_t* in, size_t nblocks) {
    const Bulk bulk(rk);
    while (nblocks > 0) {
        const size_t m = nblocks < kBatch ? nblocks : kBatch;
        bulk.crypt(out, in, m);
        in += 16 * m;
        out += 16 * m;
        nblocks -= m;
    }
}

}  // namespace sm4_detail
}  // namespace hwaccel::generic
