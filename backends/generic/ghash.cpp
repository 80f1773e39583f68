// GHASH (NIST SP 800-38D, 6.4), portable C++ and constant-time.
//
// No tables and no branches on H, Y or the data: the carry-less products are
// built from ordinary 64-bit integer multiplies whose operands have "holes".
// Keeping only every fourth bit of each operand (bit positions i mod 4 in x,
// j mod 4 in y), every partial product of x_i * y_j lands on positions
// (i + j) mod 4, and at most 15 of them add up at any such position below
// bit 60, so the sum there (at most 4 bits) never carries into the next
// position of the same class; each position's parity is then its bit of
// the carry-less product. Positions 60..63 may gather 16 terms, whose carry
// leaves the 64-bit word, so the low 64 bits are still exact. The high half
// comes from the same multiply on bit-reversed operands (reversal turns the
// top of the product into the bottom).
//
// Field elements are held with the coefficient of x^i at bit i (lo: x^0..63,
// hi: x^64..127); GCM's byte order puts x^0 at the top bit of byte 0, so a
// big-endian 64-bit load is the bit reversal of that. 128x128 products use
// Karatsuba (three 64x64 products), then reduction modulo
// x^128 + x^7 + x^2 + x + 1.
//
// Integer multiplication takes constant time on the CPUs this engine is meant
// for (x86-64, IBM Z, 64-bit Arm); see BearSSL's notes on constant-time
// multiplication for the small cores where it does not.
#include <cstring>

#include "generic/generic_engines.hpp"
#include "hwaccel/bytes.hpp"
#include "hwaccel/clear_vector_registers.hpp"

namespace hwaccel::generic {
namespace {

constexpr uint64_t kClass0 = 0x1111111111111111ull;
constexpr uint64_t kClass1 = kClass0 << 1;
constexpr uint64_t kClass2 = kClass0 << 2;
constexpr uint64_t kClass3 = kClass0 << 3;

// The low 64 bits of the carry-less product x * y.
uint64_t clmul_low(uint64_t x, uint64_t y) {
    const uint64_t x0 = x & kClass0, x1 = x & kClass1, x2 = x & kClass2, x3 = x & kClass3;
    const uint64_t y0 = y & kClass0, y1 = y & kClass1, y2 = y & kClass2, y3 = y & kClass3;
    // Position class c collects the operand classes (i, j) with i + j = c mod 4.
    const uint64_t z0 = (x0 * y0) ^ (x1 * y3) ^ (x2 * y2) ^ (x3 * y1);
    const uint64_t z1 = (x0 * y1) ^ (x1 * y0) ^ (x2 * y3) ^ (x3 * y2);
    const uint64_t z2 = (x0 * y2) ^ (x1 * y1) ^ (x2 * y0) ^ (x3 * y3);
    const uint64_t z3 = (x0 * y3) ^ (x1 * y2) ^ (x2 * y1) ^ (x3 * y0);
    return (z0 & kClass0) | (z1 & kClass1) | (z2 & kClass2) | (z3 & kClass3);
}

uint64_t reverse_bits(uint64_t v) {
    v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
    v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) | ((v & 0x0f0f0f0f0f0f0f0full) << 4);
    return __builtin_bswap64(v);
}

// A 64x64 product, given each operand and its bit reversal.
struct Product {
    uint64_t lo, hi;
};
Product clmul(uint64_t x, uint64_t x_rev, uint64_t y, uint64_t y_rev) {
    // reverse(low64(rev(x) * rev(y))) holds product bits 63..126: shift once.
    return {clmul_low(x, y), reverse_bits(clmul_low(x_rev, y_rev)) >> 1};
}

// What set_key keeps in engine_data: H's halves, their sum (Karatsuba's
// middle operand) and the bit reversal of each.
struct Prepared {
    uint64_t h[3];
    uint64_t h_rev[3];
};
static_assert(sizeof(Prepared) <= GhashKey::kEngineDataSize, "engine_data too small");

// Overwrites the stack just below the caller's frame, where the functions
// it called before left spilled H- and Y-derived words (GPR code spills).
// Called through a volatile pointer so it is neither inlined nor dropped.
void burn_stack() {
    uint8_t area[1024];
    secure_zero(area, sizeof area);
}
void (*volatile const burn_stack_call)() = burn_stack;

[[gnu::noinline]] void prepare(GhashKey* key, const uint8_t h[16]) {
    std::memcpy(key->h, h, 16);
    Prepared p;
    p.h_rev[0] = load_be64(h);
    p.h_rev[1] = load_be64(h + 8);
    p.h_rev[2] = p.h_rev[0] ^ p.h_rev[1];
    for (int i = 0; i < 3; ++i) p.h[i] = reverse_bits(p.h_rev[i]);
    std::memcpy(key->engine_data, &p, sizeof p);
    secure_zero(&p, sizeof p);
}

void set_key(GhashKey* key, const uint8_t h[16]) {
    prepare(key, h);
    burn_stack_call();
    clear_vector_registers();  // H's forms, copied through vector registers
}

// y (in this file's bit order) times H, reduced.
void multiply(uint64_t& y_lo, uint64_t& y_hi, const Prepared& p) {
    const uint64_t y_mid = y_lo ^ y_hi;
    const uint64_t r_lo = reverse_bits(y_lo), r_hi = reverse_bits(y_hi);
    const Product low = clmul(y_lo, r_lo, p.h[0], p.h_rev[0]);
    const Product high = clmul(y_hi, r_hi, p.h[1], p.h_rev[1]);
    Product mid = clmul(y_mid, r_lo ^ r_hi, p.h[2], p.h_rev[2]);
    mid.lo ^= low.lo ^ high.lo;
    mid.hi ^= low.hi ^ high.hi;
    // The 255-bit product z3:z2:z1:z0 (z0 holds x^0..x^63).
    const uint64_t z0 = low.lo, z1 = low.hi ^ mid.lo, z2 = high.lo ^ mid.hi, z3 = high.hi;
    // x^128 = x^7 + x^2 + x + 1: fold z3:z2 down once; the few bits that
    // the shifts push past x^127 (from the top of z3) are folded again.
    const uint64_t over = (z3 >> 63) ^ (z3 >> 62) ^ (z3 >> 57);
    y_lo = z0 ^ z2 ^ (z2 << 1) ^ (z2 << 2) ^ (z2 << 7) ^ over ^ (over << 1) ^ (over << 2) ^ (over << 7);
    y_hi = z1 ^ z3 ^ (z3 << 1 | z2 >> 63) ^ (z3 << 2 | z2 >> 62) ^ (z3 << 7 | z2 >> 57);
}

[[gnu::noinline]] void update_blocks(const GhashKey* key, uint8_t y[16], const uint8_t* data,
                                     size_t nblocks) {
    Prepared p;
    std::memcpy(&p, key->engine_data, sizeof p);
    uint64_t y_lo = reverse_bits(load_be64(y)), y_hi = reverse_bits(load_be64(y + 8));
    for (size_t i = 0; i < nblocks; ++i, data += 16) {
        y_lo ^= reverse_bits(load_be64(data));
        y_hi ^= reverse_bits(load_be64(data + 8));
        multiply(y_lo, y_hi, p);
    }
    store_be64(y, reverse_bits(y_lo));
    store_be64(y + 8, reverse_bits(y_hi));
    secure_zero(&p, sizeof p);  // the stack copy of H's forms
}

void update(GhashKey* key, uint8_t y[16], const uint8_t* data, size_t nblocks) {
    if (nblocks == 0) return;
    update_blocks(key, y, data, nblocks);
    burn_stack_call();
    clear_vector_registers();
}

bool always(const CpuFeatures&) { return true; }

}  // namespace

const GhashEngine ghash = {
    .name = "generic",
    .available = always,
    .set_key = set_key,
    .update = update,
};

}  // namespace hwaccel::generic
