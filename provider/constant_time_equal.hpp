// Tag comparison in constant time (CRYPTO_memcmp's job; the module calls no
// libcrypto function): every byte is read, the answer depends on none of
// them until the end, and the asm barrier keeps the compiler from turning
// the loop into an early-exit memcmp.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwaccel {

inline bool constant_time_equal(const void* a, const void* b, size_t n) {
    const auto* x = static_cast<const uint8_t*>(a);
    const auto* y = static_cast<const uint8_t*>(b);
    uint8_t diff = 0;
    for (size_t i = 0; i < n; ++i) {
        diff |= static_cast<uint8_t>(x[i] ^ y[i]);
        __asm__("" : "+r"(diff));
    }
    return diff == 0;
}

}  // namespace hwaccel
