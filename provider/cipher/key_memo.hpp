// The key a context's schedule was made from, so an init that gives the
// same key again keeps the schedule (and SM4-GCM's H with the GHASH
// engine's powers of it) instead of redoing them. OpenSSL 3.5+'s
// `openssl speed` re-sets the key with every message's IV (EVP_CipherInit_ex
// with key and IV), as do applications that re-init a context per message;
// measured on Zen 5 (gfni-avx512), the SM4 key schedule was a quarter of a
// 256-byte SM4-GCM message and the H powers another tenth.
//
// The comparison reads every byte whatever they hold; only its verdict (the
// key is, or is not, the one in place) decides anything, and timing reveals
// it: the equality of two whole 128-bit keys, nothing about their bits (as
// SM4-XTS's check reveals whether its key halves are equal). The copy is key
// material like the schedule beside it, and wiped with it when the
// context is freed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "constant_time_equal.hpp"

namespace hwaccel {

template <size_t N>
struct KeyMemo {
    uint8_t key[N];
    bool held;  // key is the one the schedule was made from

    bool same(const uint8_t* k) const { return held && constant_time_equal(key, k, N); }
    void remember(const uint8_t* k) {
        std::memcpy(key, k, N);
        held = true;
    }
};

}  // namespace hwaccel
