#include "gfni_affine.hpp"

#include <cstring>

namespace hwaccel::test::gfni {
namespace {

// Carry-less product modulo x^8 + x^4 + x^3 + x + 1.
uint8_t gf_multiply(uint8_t a, uint8_t b) {
    uint8_t product = 0;
    for (int i = 0; i < 8; ++i) {
        if (b & 1) product ^= a;
        const bool carry = a & 0x80;
        a = static_cast<uint8_t>(a << 1);
        if (carry) a ^= 0x1b;
        b >>= 1;
    }
    return product;
}

int parity(uint8_t v) {
    v ^= v >> 4;
    v ^= v >> 2;
    v ^= v >> 1;
    return v & 1;
}

}  // namespace

uint8_t gf_inverse(uint8_t x) {
    // x^254 = x^-1 in GF(2^8) (the group of units has order 255), and 0^254 = 0.
    uint8_t result = 1, power = x;
    for (int e = 254; e != 0; e >>= 1) {
        if (e & 1) result = gf_multiply(result, power);
        power = gf_multiply(power, power);
    }
    return x == 0 ? 0 : result;
}

uint8_t affine_byte(uint64_t matrix, uint8_t x, uint8_t imm8) {
    uint8_t out = 0;
    for (int i = 0; i < 8; ++i) {
        const uint8_t row = static_cast<uint8_t>(matrix >> (8 * (7 - i)));  // A.byte[7 - i]
        const int bit = parity(row & x) ^ ((imm8 >> i) & 1);
        out = static_cast<uint8_t>(out | (bit << i));
    }
    return out;
}

void gf2p8affine(Op op, const uint8_t* src1, const uint8_t* src2, uint8_t imm8, size_t bytes,
                 uint8_t* dst) {
    // Qword by qword, each read whole before its result is written, so dst
    // may alias either source.
    for (size_t j = 0; j < bytes / 8; ++j) {
        uint64_t matrix = 0;
        for (int k = 7; k >= 0; --k) matrix = (matrix << 8) | src2[8 * j + k];  // little-endian
        uint8_t lane[8];
        for (int b = 0; b < 8; ++b) {
            uint8_t x = src1[8 * j + b];
            if (op == Op::kAffineInverse) x = gf_inverse(x);
            lane[b] = affine_byte(matrix, x, imm8);
        }
        std::memcpy(dst + 8 * j, lane, 8);
    }
}

}  // namespace hwaccel::test::gfni
