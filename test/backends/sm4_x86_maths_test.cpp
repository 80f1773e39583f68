// The maths of the x86 SM4 engines (backends/x86/sm4_x86_maths.hpp), on its
// own and on any CPU: no intrinsics, every table checked against the two
// standards' S-box tables, and the folded round (M domain, U_d tables, P_d
// shuffles, AESENCLAST key) run in plain C++ against the GB/T 32907 example.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

#include "support/sm4_sbox.hpp"
#include "x86/sm4_x86_maths.hpp"  // backend internals (hwaccel_backend_internals)

namespace {

namespace m = hwaccel::x86::sm4x;

// FIPS-197, Figure 7 (the AES S-box).
constexpr uint8_t kAesSbox[256] = {
    0x63, 0x7c, 0x77, 0x7b, 0xf2, 0x6b, 0x6f, 0xc5, 0x30, 0x01, 0x67, 0x2b, 0xfe, 0xd7, 0xab, 0x76,
    0xca, 0x82, 0xc9, 0x7d, 0xfa, 0x59, 0x47, 0xf0, 0xad, 0xd4, 0xa2, 0xaf, 0x9c, 0xa4, 0x72, 0xc0,
    0xb7, 0xfd, 0x93, 0x26, 0x36, 0x3f, 0xf7, 0xcc, 0x34, 0xa5, 0xe5, 0xf1, 0x71, 0xd8, 0x31, 0x15,
    0x04, 0xc7, 0x23, 0xc3, 0x18, 0x96, 0x05, 0x9a, 0x07, 0x12, 0x80, 0xe2, 0xeb, 0x27, 0xb2, 0x75,
    0x09, 0x83, 0x2c, 0x1a, 0x1b, 0x6e, 0x5a, 0xa0, 0x52, 0x3b, 0xd6, 0xb3, 0x29, 0xe3, 0x2f, 0x84,
    0x53, 0xd1, 0x00, 0xed, 0x20, 0xfc, 0xb1, 0x5b, 0x6a, 0xcb, 0xbe, 0x39, 0x4a, 0x4c, 0x58, 0xcf,
    0xd0, 0xef, 0xaa, 0xfb, 0x43, 0x4d, 0x33, 0x85, 0x45, 0xf9, 0x02, 0x7f, 0x50, 0x3c, 0x9f, 0xa8,
    0x51, 0xa3, 0x40, 0x8f, 0x92, 0x9d, 0x38, 0xf5, 0xbc, 0xb6, 0xda, 0x21, 0x10, 0xff, 0xf3, 0xd2,
    0xcd, 0x0c, 0x13, 0xec, 0x5f, 0x97, 0x44, 0x17, 0xc4, 0xa7, 0x7e, 0x3d, 0x64, 0x5d, 0x19, 0x73,
    0x60, 0x81, 0x4f, 0xdc, 0x22, 0x2a, 0x90, 0x88, 0x46, 0xee, 0xb8, 0x14, 0xde, 0x5e, 0x0b, 0xdb,
    0xe0, 0x32, 0x3a, 0x0a, 0x49, 0x06, 0x24, 0x5c, 0xc2, 0xd3, 0xac, 0x62, 0x91, 0x95, 0xe4, 0x79,
    0xe7, 0xc8, 0x37, 0x6d, 0x8d, 0xd5, 0x4e, 0xa9, 0x6c, 0x56, 0xf4, 0xea, 0x65, 0x7a, 0xae, 0x08,
    0xba, 0x78, 0x25, 0x2e, 0x1c, 0xa6, 0xb4, 0xc6, 0xe8, 0xdd, 0x74, 0x1f, 0x4b, 0xbd, 0x8b, 0x8a,
    0x70, 0x3e, 0xb5, 0x66, 0x48, 0x03, 0xf6, 0x0e, 0x61, 0x35, 0x57, 0xb9, 0x86, 0xc1, 0x1d, 0x9e,
    0xe1, 0xf8, 0x98, 0x11, 0x69, 0xd9, 0x8e, 0x94, 0x9b, 0x1e, 0x87, 0xe9, 0xce, 0x55, 0x28, 0xdf,
    0x8c, 0xa1, 0x89, 0x0d, 0xbf, 0xe6, 0x42, 0x68, 0x41, 0x99, 0x2d, 0x0f, 0xb0, 0x54, 0xbb, 0x16,
};

using hwaccel::test::kSm4Sbox;  // GB/T 32907-2016, section 6.2

// The maps with the AES S-box taken from its table, not from the header's
// own field arithmetic: SM4_S(x) = N AES_S(M x ^ c1) ^ c2.
constexpr uint8_t sm4_through_aes(unsigned x) {
    return static_cast<uint8_t>(m::kN(kAesSbox[m::kM(x) ^ m::kC1]) ^ m::kC2);
}
constexpr bool sm4_sbox_matches() {
    for (unsigned x = 0; x < 256; ++x)
        if (sm4_through_aes(x) != kSm4Sbox[x]) return false;
    return true;
}
static_assert(sm4_sbox_matches(), "the affine maps around the AES S-box give SM4's, all 256 inputs");

// A nibble-table pair (PSHUFB look-ups) applied to one byte.
uint8_t look_up(const m::Table16& lo, const m::Table16& hi, uint8_t x) {
    return static_cast<uint8_t>(lo.b[x & 15] ^ hi.b[x >> 4]);
}

// --- the instructions, in plain C++ ------------------------------------------------

using V = uint8_t[16];

// One byte of PSHUFB: index bit 7 zeroes, the low nibble picks.
uint8_t shuffle_byte(const m::Table16& table, uint8_t index) { return (index & 0x80) ? 0 : table.b[index & 15]; }
void pshufb(V out, const V a, const m::Table16& idx) {
    V r;
    for (int i = 0; i < 16; ++i) r[i] = (idx.b[i] & 0x80) ? 0 : a[idx.b[i] & 15];
    std::memcpy(out, r, 16);
}
// AESENCLAST: SubBytes, ShiftRows (byte 4c + r from column c + r), key.
void aesenclast(V x, const V key) {
    V r;
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row) r[4 * c + row] = kAesSbox[x[4 * ((c + row) % 4) + row]];
    for (int i = 0; i < 16; ++i) x[i] = r[i] ^ key[i];
}

using hwaccel::test::reference_round_keys;
const auto& kExampleKey = hwaccel::test::kSm4ExampleKey;
const auto& kExampleCipher = hwaccel::test::kSm4ExampleCipher;

// The bulk kernel's round on one 128-bit lane: 4 blocks, register j holding
// word j of block c at bytes 4c..4c+3 (memory order), in the M domain; the
// round key M rk ^ c1 in every column.
void dense_encrypt4(const uint32_t rk[32], const uint8_t in[4][16], uint8_t out[4][16]) {
    V y[4];
    for (int j = 0; j < 4; ++j)
        for (int c = 0; c < 4; ++c)
            for (int q = 0; q < 4; ++q) y[j][4 * c + q] = m::kM(in[c][4 * j + q]);
    V key;
    std::memset(key, m::kKc, 16);
    for (int i = 0; i < 32; ++i) {
        V t, u0, u1, u2, o, s;
        for (int c = 0; c < 4; ++c)
            for (int q = 0; q < 4; ++q)
                t[4 * c + q] = static_cast<uint8_t>(y[(i + 1) % 4][4 * c + q] ^ y[(i + 2) % 4][4 * c + q] ^
                                                    y[(i + 3) % 4][4 * c + q] ^
                                                    look_up(m::kMC1Lo, m::kMHi, (rk[i] >> (24 - 8 * q)) & 0xFF));
        aesenclast(t, key);
        for (int b = 0; b < 16; ++b) {
            u0[b] = look_up(m::kU0Lo, m::kU0Hi, t[b]);
            u2[b] = look_up(m::kU2Lo, m::kU2Hi, t[b]);
            u1[b] = u0[b] ^ u2[b];
        }
        pshufb(o, u0, m::kP0);
        pshufb(s, u1, m::kP1);
        for (int b = 0; b < 16; ++b) o[b] ^= s[b];
        pshufb(s, u2, m::kP2);
        for (int b = 0; b < 16; ++b) o[b] ^= s[b];
        pshufb(s, u2, m::kP3);
        for (int b = 0; b < 16; ++b) y[i % 4][b] ^= o[b] ^ s[b];
    }
    for (int j = 0; j < 4; ++j)  // output words in reverse order, out of the M domain
        for (int c = 0; c < 4; ++c)
            for (int q = 0; q < 4; ++q) out[c][4 * j + q] = look_up(m::kMinvLo, m::kMinvHi, y[3 - j][4 * c + q]);
}

// The one-block path's round (serial layout: slot v of a word at bytes 2v
// and 8 + 2v, odd bytes zero), as sm4_x86_block.cpp's assembly computes it:
// AESENCLAST with the serial key, PSRLW for the high nibbles (no mask),
// u0 ^ R1(u0 ^ u2) ^ R2(u2) ^ R3(u2).
void serial_encrypt(const uint32_t rk[32], const uint8_t in[16], uint8_t out[16]) {
    V dense, y[4];
    for (int b = 0; b < 16; ++b) dense[b] = m::kM(in[b]);
    for (int j = 0; j < 4; ++j) pshufb(y[j], dense, m::kSpreadBlock[j]);
    for (int i = 0; i < 32; ++i) {
        V t, lo, hi, u0, u1, u2, s;
        for (int b = 0; b < 16; ++b) {
            // Round key slot v (little-endian byte v), as write_serial_keys spreads it.
            const uint8_t k = (b & 1) ? 0 : look_up(m::kMC1Lo, m::kMHi, (rk[i] >> (8 * ((b & 7) / 2))) & 0xFF);
            t[b] = static_cast<uint8_t>(y[(i + 1) % 4][b] ^ y[(i + 2) % 4][b] ^ y[(i + 3) % 4][b] ^ k);
        }
        aesenclast(t, m::kSerialKey.b);
        for (int b = 0; b < 16; b += 2) {
            const unsigned w = (t[b] | t[b + 1] << 8) >> 4;  // PSRLW $4
            hi[b] = w & 0xFF, hi[b + 1] = static_cast<uint8_t>(w >> 8);
        }
        for (int b = 0; b < 16; ++b) {
            lo[b] = t[b] & 0x0F;
            u0[b] = shuffle_byte(m::kU0Lo, lo[b]) ^ shuffle_byte(m::kU0Hi, hi[b]);
            u2[b] = shuffle_byte(m::kU2Lo, lo[b]) ^ shuffle_byte(m::kU2Hi, hi[b]);
            u1[b] = u0[b] ^ u2[b];
        }
        for (int b = 0; b < 16; ++b) y[i % 4][b] ^= u0[b];
        pshufb(s, u1, m::kR1);
        for (int b = 0; b < 16; ++b) y[i % 4][b] ^= s[b];
        pshufb(s, u2, m::kR2);
        for (int b = 0; b < 16; ++b) y[i % 4][b] ^= s[b];
        pshufb(s, u2, m::kR3);
        for (int b = 0; b < 16; ++b) y[i % 4][b] ^= s[b];
    }
    V g, part;
    std::memset(g, 0, 16);
    for (int j = 0; j < 4; ++j) {
        pshufb(part, y[3 - j], m::kGather[j]);
        for (int b = 0; b < 16; ++b) g[b] |= part[b];
    }
    for (int b = 0; b < 16; ++b) out[b] = look_up(m::kMinvLo, m::kMinvHi, g[b]);
}

}  // namespace

TEST_CASE("sm4 x86 maths: the AES S-box from its field definition is FIPS-197's", "[sm4][x86-maths]") {
    for (unsigned y = 0; y < 256; ++y) CHECK(int(m::aes_sbox(y)) == int(kAesSbox[y]));
}

TEST_CASE("sm4 x86 maths: SM4's S-box through the AES S-box, all 256 inputs", "[sm4][x86-maths]") {
    for (unsigned x = 0; x < 256; ++x) {
        INFO("x = " << x);
        CHECK(int(sm4_through_aes(x)) == int(kSm4Sbox[x]));
        CHECK(int(m::sm4_sbox(x)) == int(kSm4Sbox[x]));
        // c2 cancelled through the AESENCLAST key: everything after it is linear.
        CHECK(int(m::kN(kAesSbox[m::kM(x) ^ m::kC1] ^ m::kKc)) == int(kSm4Sbox[x]));
    }
}

TEST_CASE("sm4 x86 maths: nibble tables are their maps", "[sm4][x86-maths]") {
    for (unsigned x = 0; x < 256; ++x) {
        const auto b = static_cast<uint8_t>(x);
        INFO("x = " << x);
        CHECK(int(look_up(m::kMLo, m::kMHi, b)) == int(m::kM(x)));
        CHECK(int(look_up(m::kMC1Lo, m::kMHi, b)) == int(m::kM(x) ^ m::kC1));
        CHECK(int(m::kMinv(m::kM(x))) == int(x));
        CHECK(int(look_up(m::kMinvLo, m::kMinvHi, b)) == int(m::kMinv(x)));
        CHECK(int(look_up(m::kNLo, m::kNHi, b)) == int(m::kN(x)));
        CHECK(int(look_up(m::kU0Lo, m::kU0Hi, b)) == int(m::u_d(0, x)));
        CHECK(int(look_up(m::kU2Lo, m::kU2Hi, b)) == int(m::u_d(2, x)));
    }
}

TEST_CASE("sm4 x86 maths: the folded bulk round gives the GB/T 32907 example", "[sm4][x86-maths]") {
    uint32_t rk[32];
    reference_round_keys(kExampleKey, rk);
    CHECK(rk[0] == 0xf12186f9);  // GB/T 32907-2016 Appendix A
    CHECK(rk[31] == 0x9124a012);
    uint8_t in[4][16], out[4][16];
    for (auto& block : in) std::memcpy(block, kExampleKey, 16);
    dense_encrypt4(rk, in, out);
    for (const auto& block : out) CHECK(std::memcmp(block, kExampleCipher, 16) == 0);
    // Decryption: the round keys reversed.
    uint32_t dk[32];
    for (int i = 0; i < 32; ++i) dk[i] = rk[31 - i];
    dense_encrypt4(dk, out, in);
    for (const auto& block : in) CHECK(std::memcmp(block, kExampleKey, 16) == 0);
}

TEST_CASE("sm4 x86 maths: the serial-layout round gives the GB/T 32907 example", "[sm4][x86-maths]") {
    uint32_t rk[32];
    reference_round_keys(kExampleKey, rk);
    uint8_t out[16];
    serial_encrypt(rk, kExampleKey, out);
    CHECK(std::memcmp(out, kExampleCipher, 16) == 0);
}
