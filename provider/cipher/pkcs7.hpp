// PKCS#7 padding check of a decrypted final block, without a branch or a
// table look-up on its bytes. OpenSSL-free, so the constant-time checks
// (test/ct) run this very code.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwaccel {

// True when `block` ends in a valid padding; `*len` is then the number of
// message bytes in it (also written, meaninglessly, when the padding is bad).
inline bool pkcs7_unpad(const uint8_t block[16], size_t* len) {
    constexpr size_t kBlock = 16;
    const unsigned pad = block[kBlock - 1];
    unsigned bad = static_cast<unsigned>((pad - 1) >> 8) |      // pad == 0
                   static_cast<unsigned>((kBlock - pad) >> 8);  // pad > 16
    for (unsigned i = 0; i < kBlock; ++i) {
        unsigned in_pad = static_cast<unsigned>((kBlock - 1 - i - pad) >> 8) & 1;  // i >= 16 - pad
        bad |= in_pad & static_cast<unsigned>(((block[i] ^ pad) + 0xff) >> 8);
    }
    *len = kBlock - pad;
    return (bad & 1) == 0;
}

}  // namespace hwaccel
