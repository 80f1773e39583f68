// GF(2^128) as GCM writes it (SP 800-38D 6.3: bit 0 is the MSB of byte 0),
// bit by bit: the reference GHASH of the mode tests, slow and obviously right.
#pragma once

#include <cstdint>

#include "hwaccel/bytes.hpp"

namespace hwaccel::test {

struct Gf {
    uint64_t hi = 0, lo = 0;
};

inline Gf gf_load(const uint8_t b[16]) { return {hwaccel::load_be64(b), hwaccel::load_be64(b + 8)}; }

inline void gf_store(Gf x, uint8_t b[16]) {
    hwaccel::store_be64(b, x.hi);
    hwaccel::store_be64(b + 8, x.lo);
}

// SP 800-38D algorithm 1: x * y, the reduction polynomial as R = 0xe1 || 0^120.
inline Gf gf_mul(Gf x, Gf y) {
    Gf z, v = y;
    for (int i = 0; i < 128; ++i) {
        const uint64_t bit = i < 64 ? (x.hi >> (63 - i)) & 1 : (x.lo >> (127 - i)) & 1;
        if (bit) z = {z.hi ^ v.hi, z.lo ^ v.lo};
        const bool carry = v.lo & 1;
        v = {v.hi >> 1, (v.lo >> 1) | (v.hi << 63)};
        if (carry) v.hi ^= 0xe100000000000000ULL;
    }
    return z;
}

}  // namespace hwaccel::test
