// SM4 with GFNI: the maths, ISA-free and constexpr, shared by the GFNI bulk
// kernels (sm4_x86_gfni_kernel.hpp) and the GFNI one-block path
// (sm4_x86_gfni_block.cpp), checked on its own by
// test/backends/sm4_x86_gfni_maths_test.cpp. No intrinsics here.
//
// The S-box. GF2P8AFFINEQB computes A x ^ b bytewise, GF2P8AFFINEINVQB
// A inv(x) ^ b (inverse in AES's field), with A an 8x8 bit matrix given as a
// qword (byte 7 - i is the row of output bit i). SM4's S-box is
//     S(x) = A2 inv(A1 x ^ c1) ^ c2
// with the matrices and constants below (issue 13; the test checks all 256
// inputs against GB/T 32907's table).
//
// Folding. As in the AES method (sm4_x86_maths.hpp), the state words are
// kept multiplied by A1 bytewise ("A1 domain": Y = A1 X) and the round keys as
// rk' = A1 rk ^ c1, so the round's S-box input A1 (X1^X2^X3^rk) ^ c1 is
// Y1^Y2^Y3^rk': the first affine map disappears. SM4's L moves bits across
// bytes only by whole bytes plus a bytewise map that depends on the byte
// distance d (rol2 = byte b << 2 ^ the byte below >> 6), so
//     L(s) = E0 s ^ rol8(E1 s) ^ rol16(E1 s) ^ rol24(E3 s)
// with E0 = I ^ shl2, E1 = rotl2 (bytewise), E3 = I ^ shr6. A1 commutes with
// the byte rotations, so the new word A1 (X0 ^ L(s)) is
//     Y0 ^ v0 ^ rol8(v1) ^ rol16(v1) ^ rol24(v3),  v_d = A1 E_d s,
// and each v_d is one GF2P8AFFINEINVQB of the S-box input, matrix
// F_d = A1 E_d A2, constant A1 E_d c2. A round is then the key XOR, three
// GFNI ops, three byte rotations and the XORs, with no byte swap: byte
// rotations of a big-endian word are byte rotations of the register's
// little-endian lane too (true rol8 = lane rol24, rol16 = rol16, rol24 =
// lane rol8). One block's chain per round is one GFNI op, a rotation and
// two XORs.
#pragma once

#include <cstdint>

namespace hwaccel::x86::sm4x::gfni {

// --- GFNI's matrix convention, in plain C++ ----------------------------------------

// A matrix as GFNI takes it, applied to one byte.
constexpr uint8_t affine(uint64_t a, unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 8; ++i) {
        unsigned row = static_cast<unsigned>(a >> (8 * (7 - i))) & x & 0xFF;
        row ^= row >> 4;
        row ^= row >> 2;
        row ^= row >> 1;
        r |= (row & 1u) << i;
    }
    return static_cast<uint8_t>(r);
}
// The GFNI qword of a bytewise linear map f (f(0) = 0).
template <class F>
constexpr uint64_t matrix_of(F f) {
    uint64_t a = 0;
    for (int i = 0; i < 8; ++i) {
        uint64_t row = 0;
        for (int j = 0; j < 8; ++j) row |= uint64_t{(f(1u << j) >> i) & 1u} << j;
        a |= row << (8 * (7 - i));
    }
    return a;
}
// Inversion in GF(2^8) mod x^8+x^4+x^3+x+1 (AES's field), 0 -> 0: what
// GF2P8AFFINEINVQB inverts in.
constexpr uint8_t gf_mul(unsigned a, unsigned b) {
    unsigned r = 0;
    for (int i = 0; i < 8; ++i) {
        if (b & (1u << i)) r ^= a;
        a <<= 1;
        if (a & 0x100) a ^= 0x11B;
    }
    return static_cast<uint8_t>(r);
}
constexpr uint8_t gf_inv(unsigned a) {  // a^254
    unsigned r = 1, p = a;
    for (int e = 254; e != 0; e >>= 1) {
        if (e & 1) r = gf_mul(r, p);
        p = gf_mul(p, p);
    }
    return static_cast<uint8_t>(r);
}
constexpr uint8_t affine_inv(uint64_t a, unsigned x) { return affine(a, gf_inv(x)); }

// --- SM4's S-box ------------------------------------------------------------------

constexpr uint64_t kA1 = 0x4c287db91a22505dULL;
constexpr uint8_t kC1 = 0x3e;
constexpr uint64_t kA2 = 0xf3ab34a974a6b589ULL;
constexpr uint8_t kC2 = 0xd3;

constexpr uint8_t sbox(unsigned x) { return static_cast<uint8_t>(affine_inv(kA2, affine(kA1, x) ^ kC1) ^ kC2); }

// A1's inverse (leaving the domain), by search over the unit vectors' images.
constexpr uint64_t inverse_of(uint64_t a) {
    return matrix_of([a](unsigned y) {
        for (unsigned x = 0; x < 256; ++x)
            if (affine(a, x) == y) return x;
        return 0u;
    });
}
constexpr uint64_t kA1inv = inverse_of(kA1);

// --- the folded round -------------------------------------------------------------

constexpr unsigned e_map(int d, unsigned b) {
    b &= 0xFF;
    if (d == 0) return (b ^ (b << 2)) & 0xFF;
    if (d == 1) return ((b << 2) | (b >> 6)) & 0xFF;
    return b ^ (b >> 6);  // d == 3
}
// F_d = A1 E_d A2 and its constant A1 E_d c2.
constexpr uint64_t f_matrix(int d) {
    return matrix_of([d](unsigned y) { return unsigned{affine(kA1, e_map(d, affine(kA2, y)))}; });
}
constexpr uint8_t f_constant(int d) { return affine(kA1, e_map(d, kC2)); }

constexpr uint64_t kF0 = f_matrix(0), kF1 = f_matrix(1), kF3 = f_matrix(3);
constexpr uint8_t kF0c = f_constant(0), kF1c = f_constant(1), kF3c = f_constant(3);

// The key schedule's L'(x) = x ^ x<<<13 ^ x<<<23 the same way: output byte j
// (byte 0 the most significant) is b_j ^ b_{j+1}<<5 ^ (b_{j+2}>>3 ^ b_{j+2}<<7)
// ^ b_{j+3}>>1, so
//     L'(s) = s ^ rol8(E'1 s) ^ rol16(E'2 s) ^ rol24(E'3 s)
// with E'1 = shl5, E'2 = shr3 ^ shl7, E'3 = shr1 (bytewise), and the new
// key word in the A1 domain is Y0 ^ w0 ^ rol8(w1) ^ rol16(w2) ^ rol24(w3),
// w_d = A1 E'_d s: one GF2P8AFFINEINVQB each, matrix G_d = A1 E'_d A2,
// constant A1 E'_d c2.
constexpr unsigned e_prime_map(int d, unsigned b) {
    b &= 0xFF;
    if (d == 0) return b;
    if (d == 1) return (b << 5) & 0xFF;
    if (d == 2) return (b >> 3) ^ ((b << 7) & 0xFF);
    return b >> 1;  // d == 3
}
constexpr uint64_t g_matrix(int d) {
    return matrix_of([d](unsigned y) { return unsigned{affine(kA1, e_prime_map(d, affine(kA2, y)))}; });
}
constexpr uint8_t g_constant(int d) { return affine(kA1, e_prime_map(d, kC2)); }

constexpr uint64_t kG0 = g_matrix(0), kG1 = g_matrix(1), kG2 = g_matrix(2), kG3 = g_matrix(3);
constexpr uint8_t kG0c = g_constant(0), kG1c = g_constant(1), kG2c = g_constant(2), kG3c = g_constant(3);

// Byte rotations of the words of SM4 (big-endian in memory), as PSHUFB masks
// on the registers' little-endian lanes: word rol8 takes lane byte k from
// lane byte k + 1, rol16 from k + 2, rol24 from k + 3 (mod 4).
struct Shuffle16 {
    alignas(16) uint8_t b[16];
};
constexpr Shuffle16 word_rotation(int bytes) {
    Shuffle16 s{};
    for (int i = 0; i < 16; ++i) s.b[i] = static_cast<uint8_t>((i & ~3) | ((i + bytes) & 3));
    return s;
}
constexpr Shuffle16 kRol8 = word_rotation(1), kRol16 = word_rotation(2), kRol24 = word_rotation(3);
// The same rotations as VPROLD counts on the lanes.
constexpr int kLaneRol8 = 24, kLaneRol16 = 16, kLaneRol24 = 8;

static_assert(affine(matrix_of([](unsigned x) { return x; }), 0xA5) == 0xA5, "identity matrix");
static_assert(affine(kA1inv, affine(kA1, 0x5C)) == 0x5C, "A1 inverse");

}  // namespace hwaccel::x86::sm4x::gfni
