// SM4 on x86-64 through the AES S-box: the maths, ISA-free and constexpr,
// shared by the one-block path (sm4_x86_block.cpp), the bulk kernel
// (sm4_x86_kernel.hpp) and the modes (sm4_x86_modes.hpp), and checked on its
// own by test/backends/sm4_x86_maths_test.cpp. No intrinsics here: the
// engine files include it before their "#pragma GCC target" region.
//
// The S-box. Both S-boxes are affine maps around inversion in GF(2^8) (two
// different polynomials), so (Saarinen, mjosaarinen/sm4ni)
//     SM4_S(x) = N * AES_S(M * x ^ c1) ^ c2
// with M, N 8x8 bit matrices. AESENCLAST computes AES_S (plus ShiftRows and
// a key XOR); an 8x8 matrix applied bytewise is two 16-entry nibble look-ups
// with PSHUFB, register-only and so constant time. M, N, c1, c2 are derived
// below at compile time from the two S-boxes' definitions (static_asserts
// check them; the tests check every engine against the standard table).
//
// Folding. The state words are kept multiplied by M ("M domain": Y = M X
// bytewise) and the round keys as rk' = M rk ^ c1, so the round input
// Y1^Y2^Y3^rk' is already M(X1^X2^X3^rk) ^ c1: no look-up before AESENCLAST.
// After it, N, SM4's linear transform L, the return to the M domain and AES's
// ShiftRows are all linear in the AESENCLAST output s, and L only moves bytes
// by whole-byte rotations plus a per-byte linear map T_d that depends on the
// byte distance d, with T_3 = T_2 and T_1 = T_0 ^ T_2. So
//     M L N SR^-1 (s) = P0(u0) ^ P1(u0 ^ u2) ^ P2(u2) ^ P3(u2),  u_d = U_d(s)
// with U_d = M T_d N as nibble tables (4 PSHUFB) and P_d byte shuffles (4
// PSHUFB, ShiftRows undone inside them). N's constant c2 is cancelled through
// the AESENCLAST key (kc = N^-1 c2), so everything after AESENCLAST is linear.
// A bulk round is 25 vector ops per 8 blocks, loads and stores included; an
// unfolded round (the input affine map before AESENCLAST, as in the Linux
// kernel's sm4-aesni-avx) needs its 5 more.
//
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwaccel::x86::sm4x {

// --- compile-time derivation of the affine maps ---------------------------------

constexpr uint8_t rotl8(unsigned x, int n) {
    return static_cast<uint8_t>(((x << n) | ((x & 0xFF) >> (8 - n))) & 0xFF);
}
constexpr unsigned parity8(unsigned x) {
    x ^= x >> 4;
    x ^= x >> 2;
    x ^= x >> 1;
    return x & 1;
}
constexpr uint8_t gf_mul(unsigned a, unsigned b, unsigned poly) {
    unsigned r = 0;
    for (int i = 0; i < 8; ++i) {
        if (b & (1u << i)) r ^= a;
        a <<= 1;
        if (a & 0x100) a ^= poly;
    }
    return static_cast<uint8_t>(r);
}
constexpr uint8_t gf_inv(unsigned a, unsigned poly) {  // a^254, 0 -> 0
    unsigned r = 1, p = a;
    for (int e = 254; e != 0; e >>= 1) {
        if (e & 1) r = gf_mul(r, p, poly);
        p = gf_mul(p, p, poly);
    }
    return static_cast<uint8_t>(r);
}

// An 8x8 bit matrix as the images of the 8 unit vectors.
struct Lin {
    uint8_t col[8];
    constexpr uint8_t operator()(unsigned x) const {
        unsigned r = 0;
        for (int i = 0; i < 8; ++i)
            if (x & (1u << i)) r ^= col[i];
        return static_cast<uint8_t>(r);
    }
};
template <class F>
constexpr Lin lin_of(F f) {
    Lin m{};
    for (int i = 0; i < 8; ++i) m.col[i] = f(1u << i);
    return m;
}
constexpr Lin compose(Lin a, Lin b) {  // a after b
    Lin m{};
    for (int i = 0; i < 8; ++i) m.col[i] = a(b.col[i]);
    return m;
}
constexpr Lin inverse(Lin m) {  // by search: 8 x 256 evaluations
    Lin r{};
    for (int i = 0; i < 8; ++i)
        for (unsigned x = 0; x < 256; ++x)
            if (m(x) == (1u << i)) r.col[i] = static_cast<uint8_t>(x);
    return r;
}

constexpr unsigned kAesPoly = 0x11B;  // x^8+x^4+x^3+x+1
constexpr unsigned kSm4Poly = 0x1F5;  // x^8+x^7+x^6+x^5+x^4+x^2+1
// SM4_S(x) = As * inv(As * x ^ 0xD3) ^ 0xD3 (inversion mod kSm4Poly), As the
// circulant matrix whose row i is 0xA7 rotated left by i (same as the comment
// in backends/generic/sm4.cpp). AES_S(y) = Aa * inv(y) ^ 0x63, Aa(b) = b ^
// rotl 1..4 (FIPS-197).
constexpr Lin kAs = lin_of([](unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 8; ++i) r |= parity8(x & rotl8(0xA7, i)) << i;
    return static_cast<uint8_t>(r);
});
constexpr Lin kAa = lin_of([](unsigned b) {
    return static_cast<uint8_t>(b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4));
});
// Field isomorphism GF(2^8)/kSm4Poly -> GF(2^8)/kAesPoly: x -> beta, beta a
// root of kSm4Poly in the AES field (0x23 is one of its eight roots).
constexpr uint8_t kBeta = 0x23;
constexpr Lin kPhi = [] {
    Lin m{};
    unsigned p = 1;
    for (int i = 0; i < 8; ++i) {
        m.col[i] = static_cast<uint8_t>(p);
        p = gf_mul(p, kBeta, kAesPoly);
    }
    return m;
}();
constexpr bool beta_is_root() {
    unsigned v = 0, p = 1;
    for (int i = 0; i <= 8; ++i) {
        if (kSm4Poly & (1u << i)) v ^= p;
        p = gf_mul(p, kBeta, kAesPoly);
    }
    return v == 0;
}
static_assert(beta_is_root(), "beta must be a root of the SM4 field polynomial");

// SM4_S(x) = N * AES_S(M x ^ c1) ^ c2.
constexpr Lin kM = compose(kPhi, kAs);
constexpr uint8_t kC1 = kPhi(0xD3);
constexpr Lin kN = compose(kAs, compose(inverse(kPhi), inverse(kAa)));
constexpr uint8_t kC2 = static_cast<uint8_t>(kN(0x63) ^ 0xD3);
constexpr Lin kMinv = inverse(kM);
// AESENCLAST key byte that cancels c2: N (AES_S ^ kc) = N AES_S ^ c2.
constexpr uint8_t kKc = inverse(kN)(kC2);

constexpr uint8_t aes_sbox(unsigned y) { return static_cast<uint8_t>(kAa(gf_inv(y, kAesPoly)) ^ 0x63); }
constexpr uint8_t sm4_sbox(unsigned x) { return static_cast<uint8_t>(kN(aes_sbox(kM(x) ^ kC1)) ^ kC2); }
// A few entries of the GB/T 32907-2016 table (the tests check all 256
// through the engines).
static_assert(aes_sbox(0x00) == 0x63 && aes_sbox(0x53) == 0xED, "AES S-box");
static_assert(sm4_sbox(0x00) == 0xD6 && sm4_sbox(0x01) == 0x90 && sm4_sbox(0x10) == 0x2B &&
                  sm4_sbox(0x7F) == 0x9E && sm4_sbox(0xA5) == 0x66 && sm4_sbox(0xFF) == 0x48,
              "SM4 S-box through the AES S-box");

// SM4's L on a word whose memory byte p (p = 0 most significant) is b: the
// contribution to memory byte p + d (mod 4) is T_d(b), the same for every p
// (L commutes with byte rotation).
constexpr uint32_t rotl32c(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
constexpr uint32_t sm4_l(uint32_t b) {
    return b ^ rotl32c(b, 2) ^ rotl32c(b, 10) ^ rotl32c(b, 18) ^ rotl32c(b, 24);
}
constexpr uint8_t t_d(int d, unsigned b) {
    return static_cast<uint8_t>(sm4_l(uint32_t{b} << 24) >> (24 - 8 * d));
}
constexpr bool t_identities() {
    for (unsigned b = 0; b < 256; ++b)
        if (t_d(3, b) != t_d(2, b) || t_d(1, b) != (t_d(0, b) ^ t_d(2, b))) return false;
    return true;
}
static_assert(t_identities(), "T_3 = T_2 and T_1 = T_0 ^ T_2: two tables serve all four");

// --- tables -------------------------------------------------------------------

struct Table16 {
    alignas(16) uint8_t b[16];
};
// Entry n of the low table is f(n), of the high table f(n << 4).
template <class F>
constexpr Table16 nibble_lo(F f) {
    Table16 t{};
    for (unsigned n = 0; n < 16; ++n) t.b[n] = f(n);
    return t;
}
template <class F>
constexpr Table16 nibble_hi(F f) {
    Table16 t{};
    for (unsigned n = 0; n < 16; ++n) t.b[n] = f(n << 4);
    return t;
}
constexpr uint8_t u_d(int d, unsigned s) { return kM(t_d(d, kN(s))); }

// X -> M X (data), rk -> M rk ^ c1 (round keys: c1 rides on the low table),
// M^-1, N (key schedule), and the round tables U_d = M T_d N.
constexpr Table16 kMLo = nibble_lo([](unsigned x) { return kM(x); });
constexpr Table16 kMHi = nibble_hi([](unsigned x) { return kM(x); });
constexpr Table16 kMC1Lo = nibble_lo([](unsigned x) { return static_cast<uint8_t>(kM(x) ^ kC1); });
constexpr Table16 kMinvLo = nibble_lo([](unsigned x) { return kMinv(x); });
constexpr Table16 kMinvHi = nibble_hi([](unsigned x) { return kMinv(x); });
constexpr Table16 kNLo = nibble_lo([](unsigned x) { return kN(x); });
constexpr Table16 kNHi = nibble_hi([](unsigned x) { return kN(x); });
constexpr Table16 kU0Lo = nibble_lo([](unsigned s) { return u_d(0, s); });
constexpr Table16 kU0Hi = nibble_hi([](unsigned s) { return u_d(0, s); });
constexpr Table16 kU2Lo = nibble_lo([](unsigned s) { return u_d(2, s); });
constexpr Table16 kU2Hi = nibble_hi([](unsigned s) { return u_d(2, s); });

// Dense layout (AES state byte 4c + r is byte r, MSB first, of word column
// c): term d takes its byte for (c, q) from U_d(s) at the place where
// AESENCLAST's ShiftRows put byte (c, q - d): P_d = rot_d o SR^-1. P0 is the
// kernel's .Linv_shift_row.
constexpr Table16 dense_shuffle(int d) {
    Table16 t{};
    for (int c = 0; c < 4; ++c)
        for (int q = 0; q < 4; ++q) {
            const int p = (q - d + 4) % 4;
            t.b[4 * c + q] = static_cast<uint8_t>(4 * ((c - p + 4) % 4) + p);
        }
    return t;
}
constexpr Table16 kP0 = dense_shuffle(0), kP1 = dense_shuffle(1), kP2 = dense_shuffle(2),
                  kP3 = dense_shuffle(3);
static_assert(kP0.b[1] == 0x0D && kP0.b[2] == 0x0A && kP0.b[15] == 0x03, "inverse ShiftRows");
constexpr Table16 kBswap32 = {{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12}};

// --- the serial layout (sm4_x86_block.cpp) ------------------------------------
//
// One block (encrypt_block): a state word's 4 bytes sit at the even bytes of
// each 64-bit half, the odd bytes zero, both halves equal. Then ShiftRows is
// the identity (row 0 stays, row 2 moves by 8 bytes = the other, equal
// half), the AESENCLAST key turns the odd bytes back into zero (AES_S(0) =
// 0x63), and the high nibble is a bare PSRLW (the odd neighbour shifts in
// zeros).
// Serial layout: slot v (v = 0..3) of a word is its little-endian byte v
// (memory byte 3 - v), at bytes 2v and 8 + 2v; odd bytes zero. Little-endian
// slots let PUNPCKLBW/PUNPCKHBW with zero spread round keys two at a time.
constexpr uint8_t kZ = 0x80;  // PSHUFB: zero this byte
// Word j of a block (memory order) into the serial layout.
constexpr Table16 spread_block(int j) {
    Table16 t{};
    for (int i = 0; i < 16; ++i) t.b[i] = (i & 1) ? kZ : static_cast<uint8_t>(4 * j + 3 - (i & 7) / 2);
    return t;
}
// Memory byte q takes memory byte q - d: slot v takes slot v + d.
constexpr Table16 serial_rot(int d) {
    Table16 t{};
    for (int i = 0; i < 16; ++i)
        t.b[i] = (i & 1) ? kZ : static_cast<uint8_t>((i & 8) + 2 * (((i & 7) / 2 + d) % 4));
    return t;
}
// Serial layout back to word j of a dense block.
constexpr Table16 gather_word(int j) {
    Table16 t{};
    for (int i = 0; i < 16; ++i) t.b[i] = (i / 4 == j) ? static_cast<uint8_t>(2 * (3 - i % 4)) : kZ;
    return t;
}
constexpr Table16 kSpreadBlock[4] = {spread_block(0), spread_block(1), spread_block(2), spread_block(3)};
constexpr Table16 kR1 = serial_rot(1), kR2 = serial_rot(2), kR3 = serial_rot(3);
constexpr Table16 kGather[4] = {gather_word(0), gather_word(1), gather_word(2), gather_word(3)};
// AESENCLAST key of the serial layout: kc on the data bytes, 0x63 on the zero
// bytes so they stay zero.
constexpr Table16 kSerialKey = [] {
    Table16 t{};
    for (int i = 0; i < 16; ++i) t.b[i] = (i & 1) ? 0x63 : kKc;
    return t;
}();

}  // namespace hwaccel::x86::sm4x
