// SM4-XTS over an engine's block functions: one data unit per call, with
// ciphertext stealing. OpenSSL-free, like sm4_modes.
//
// Two tweak conventions, as OpenSSL's default provider offers them:
//  - IEEE Std 1619: the tweak is a little-endian 128-bit polynomial and each
//    block's is the previous one times x modulo x^128 + x^7 + x^2 + x + 1
//    (a left shift; 0x87 into byte 0 on carry).
//  - GB/T 17964-2021: the same field in GCM's bit-reflected order: the tweak
//    read as a big-endian 128-bit number is shifted right by one, and 0xe1
//    goes into byte 0 when a bit falls off byte 15.
// Block i of the unit is C_i = E_K1(P_i ^ T_i) ^ T_i with T_0 = E_K2(IV)
// (XtsStandard: hwaccel/engines.hpp, where engines with a fused XTS see it).
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwaccel/engines.hpp"

namespace hwaccel {

// Both halves' schedules: K1 (data, both directions) and K2 (tweak, always
// encryption). Key material: callers wipe it.
struct Sm4XtsKey {
    const Sm4Engine* engine;
    Sm4Key data;
    Sm4Key tweak;
};

constexpr size_t kXtsMinLength = 16;
// IEEE Std 1619-2018 and NIST SP 800-38E: at most 2^20 blocks per data unit;
// the default provider refuses more.
constexpr size_t kXtsMaxLength = size_t{16} << 20;

// One data unit of len bytes, kXtsMinLength <= len (the caller checks the
// upper limit). in == out is allowed, any other overlap is not.
void sm4_xts(const Sm4XtsKey& key, XtsStandard standard, Sm4Direction direction,
             const uint8_t iv[16], uint8_t* out, const uint8_t* in, size_t len);

}  // namespace hwaccel
