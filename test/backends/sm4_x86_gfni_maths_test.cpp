// The maths of the x86 GFNI SM4 engines (backends/x86/sm4_x86_gfni_maths.hpp),
// on its own and on any CPU: GFNI's two instructions modelled in plain C++
// from Intel's description (matrix row of output bit i in qword byte 7 - i,
// inverse in GF(2^8) mod 0x11B), the S-box constants checked on all 256
// inputs against GB/T 32907's table, and the folded round (A1 domain, three
// affine-inverse maps, byte rotations as lane shuffles) run on the
// registers' byte layout against the GB/T 32907 example.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

#include "support/sm4_sbox.hpp"
#include "x86/sm4_x86_gfni_maths.hpp"  // backend internals (hwaccel_backend_internals)

namespace {

namespace g = hwaccel::x86::sm4x::gfni;
using hwaccel::test::kSm4Sbox;  // GB/T 32907-2016, section 6.2

using hwaccel::test::reference_round_keys;
const auto& kExampleKey = hwaccel::test::kSm4ExampleKey;
const auto& kExampleCipher = hwaccel::test::kSm4ExampleCipher;

// AES's inverse from the field's multiplication table, by search: not from
// the header's exponentiation.
uint8_t inverse_by_search(unsigned x) {
    for (unsigned y = 1; y < 256; ++y)
        if (g::gf_mul(x, y) == 1) return static_cast<uint8_t>(y);
    return 0;
}

using V = uint8_t[16];
void pshufb(V out, const V a, const g::Shuffle16& idx) {
    V r;
    for (int i = 0; i < 16; ++i) r[i] = a[idx.b[i] & 15];
    std::memcpy(out, r, 16);
}

// One block as the kernels compute it: each register holds one word in
// memory byte order (4 copies, one per 32-bit lane), A1 domain.
void folded_encrypt(const uint32_t rk[32], const uint8_t in[16], uint8_t out[16]) {
    V y[4];
    for (int j = 0; j < 4; ++j)
        for (int b = 0; b < 16; ++b) y[j][b] = g::affine(g::kA1, in[4 * j + (b & 3)]);
    for (int i = 0; i < 32; ++i) {
        V u, v0, v1, v3, r8, r16, r24;
        for (int b = 0; b < 16; ++b) {
            const uint8_t key = static_cast<uint8_t>(g::affine(g::kA1, (rk[i] >> (24 - 8 * (b & 3))) & 0xFF) ^ g::kC1);
            u[b] = static_cast<uint8_t>(y[(i + 1) % 4][b] ^ y[(i + 2) % 4][b] ^ y[(i + 3) % 4][b] ^ key);
            v0[b] = static_cast<uint8_t>(g::affine_inv(g::kF0, u[b]) ^ g::kF0c);
            v1[b] = static_cast<uint8_t>(g::affine_inv(g::kF1, u[b]) ^ g::kF1c);
            v3[b] = static_cast<uint8_t>(g::affine_inv(g::kF3, u[b]) ^ g::kF3c);
        }
        pshufb(r8, v1, g::kRol8);
        pshufb(r16, v1, g::kRol16);
        pshufb(r24, v3, g::kRol24);
        for (int b = 0; b < 16; ++b) y[i % 4][b] ^= v0[b] ^ r8[b] ^ r16[b] ^ r24[b];
    }
    for (int j = 0; j < 4; ++j)  // output words in reverse order, out of the domain
        for (int q = 0; q < 4; ++q) out[4 * j + q] = g::affine(g::kA1inv, y[3 - j][q]);
}

}  // namespace

TEST_CASE("sm4 gfni maths: the field inverse is AES's", "[sm4][gfni-maths]") {
    CHECK(g::gf_inv(0) == 0);
    for (unsigned x = 1; x < 256; ++x) {
        INFO("x = " << x);
        CHECK(int(g::gf_inv(x)) == int(inverse_by_search(x)));
    }
}

TEST_CASE("sm4 gfni maths: the two GFNI ops give SM4's S-box, all 256 inputs", "[sm4][gfni-maths]") {
    for (unsigned x = 0; x < 256; ++x) {
        INFO("x = " << x);
        CHECK(int(g::sbox(x)) == int(kSm4Sbox[x]));
        CHECK(int(g::affine(g::kA1inv, g::affine(g::kA1, x))) == int(x));
    }
}

TEST_CASE("sm4 gfni maths: the folded maps are A1 E_d S", "[sm4][gfni-maths]") {
    // v_d(A1 x ^ c1) = A1 E_d S(x): with t = x, the S-box input in the domain.
    for (unsigned x = 0; x < 256; ++x) {
        INFO("x = " << x);
        const unsigned u = g::affine(g::kA1, x) ^ g::kC1;
        const unsigned s = kSm4Sbox[x];
        CHECK(int(g::affine_inv(g::kF0, u) ^ g::kF0c) == int(g::affine(g::kA1, (s ^ (s << 2)) & 0xFF)));
        CHECK(int(g::affine_inv(g::kF1, u) ^ g::kF1c) == int(g::affine(g::kA1, ((s << 2) | (s >> 6)) & 0xFF)));
        CHECK(int(g::affine_inv(g::kF3, u) ^ g::kF3c) == int(g::affine(g::kA1, s ^ (s >> 6))));
    }
}

TEST_CASE("sm4 gfni maths: the folded round gives the GB/T 32907 example", "[sm4][gfni-maths]") {
    uint32_t rk[32];
    reference_round_keys(kExampleKey, rk);
    CHECK(rk[0] == 0xf12186f9);  // GB/T 32907-2016 Appendix A
    CHECK(rk[31] == 0x9124a012);
    uint8_t out[16], back[16];
    folded_encrypt(rk, kExampleKey, out);
    CHECK(std::memcmp(out, kExampleCipher, 16) == 0);
    uint32_t dk[32];
    for (int i = 0; i < 32; ++i) dk[i] = rk[31 - i];
    folded_encrypt(dk, out, back);
    CHECK(std::memcmp(back, kExampleKey, 16) == 0);
}

TEST_CASE("sm4 gfni maths: the folded key schedule gives GB/T 32907's round keys", "[sm4][gfni-maths]") {
    // The schedule as the GFNI one-block path runs it (one word per
    // register, 4 lanes, memory byte order, A1 domain): the S-box input
    // Y1^Y2^Y3^ck', the new word Y0 ^ w0 ^ rol8 w1 ^ rol16 w2 ^ rol24 w3.
    uint32_t want[32];
    reference_round_keys(kExampleKey, want);
    const uint32_t fk[4] = {0xA3B1BAC6, 0x56AA3350, 0x677D9197, 0xB27022DC};  // GB/T 32907-2016, 7.3
    V y[4];
    for (int j = 0; j < 4; ++j)
        for (int b = 0; b < 16; ++b)
            y[j][b] = g::affine(g::kA1, kExampleKey[4 * j + (b & 3)] ^ ((fk[j] >> (24 - 8 * (b & 3))) & 0xFF));
    for (int i = 0; i < 32; ++i) {
        uint32_t ck = 0;  // CK_i byte q = (4i + q) * 7 mod 256
        for (int q = 0; q < 4; ++q) ck = ck << 8 | ((4 * i + q) * 7 & 0xFF);
        V u, w0, w1, w2, w3, r8, r16, r24;
        for (int b = 0; b < 16; ++b) {
            const uint8_t c = static_cast<uint8_t>(g::affine(g::kA1, (ck >> (24 - 8 * (b & 3))) & 0xFF) ^ g::kC1);
            u[b] = static_cast<uint8_t>(y[(i + 1) % 4][b] ^ y[(i + 2) % 4][b] ^ y[(i + 3) % 4][b] ^ c);
            w0[b] = static_cast<uint8_t>(g::affine_inv(g::kG0, u[b]) ^ g::kG0c);
            w1[b] = static_cast<uint8_t>(g::affine_inv(g::kG1, u[b]) ^ g::kG1c);
            w2[b] = static_cast<uint8_t>(g::affine_inv(g::kG2, u[b]) ^ g::kG2c);
            w3[b] = static_cast<uint8_t>(g::affine_inv(g::kG3, u[b]) ^ g::kG3c);
        }
        pshufb(r8, w1, g::kRol8);
        pshufb(r16, w2, g::kRol16);
        pshufb(r24, w3, g::kRol24);
        for (int b = 0; b < 16; ++b) y[i % 4][b] ^= w0[b] ^ r8[b] ^ r16[b] ^ r24[b];
        uint32_t rk = 0;  // rk_i = K_{i+4}, out of the domain
        for (int q = 0; q < 4; ++q) rk = rk << 8 | g::affine(g::kA1inv, y[i % 4][q]);
        INFO("round " << i);
        CHECK(rk == want[i]);
    }
}
