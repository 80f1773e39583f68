// Final blocks for the constant-time checks of the provider's PKCS#7 unpad
// (hwaccel::pkcs7_unpad, provider/cipher/pkcs7.hpp): every valid padding,
// pad bytes no padding has (0, above 16), and every valid padding but 1 with
// one of its other bytes a bit off, at each position.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwaccel::test {

struct UnpadCase {
    unsigned pad;  // the last byte, repeated over min(pad, 16) bytes
    int wrong_at;  // a pad byte with one bit flipped, or -1
};

constexpr int kUnpadValid = 16, kUnpadBadPad = 4, kUnpadOneWrong = 120;  // 1 + 2 + ... + 15
constexpr int kUnpadCases = kUnpadValid + kUnpadBadPad + kUnpadOneWrong;

inline UnpadCase unpad_case(int i) {
    if (i < kUnpadValid) return {static_cast<unsigned>(i) + 1, -1};
    i -= kUnpadValid;
    if (i < kUnpadBadPad) {
        const unsigned bad[kUnpadBadPad] = {0, 17, 0x80, 0xFF};
        return {bad[i], -1};
    }
    i -= kUnpadBadPad;
    for (unsigned pad = 2;; ++pad) {  // pad - 1 positions each: 16 - pad .. 14
        if (i < static_cast<int>(pad) - 1) return {pad, static_cast<int>(16 - pad) + i};
        i -= pad - 1;
    }
}

// Writes the case's padding over the end of `block`; the bytes before it
// stay as the caller filled them.
inline void make_unpad_block(const UnpadCase& c, uint8_t block[16]) {
    for (unsigned i = 16 - (c.pad < 16 ? c.pad : 16); i < 16; ++i) block[i] = static_cast<uint8_t>(c.pad);
    block[15] = static_cast<uint8_t>(c.pad);
    if (c.wrong_at >= 0) block[c.wrong_at] ^= static_cast<uint8_t>(1u << (c.wrong_at & 7));
}

inline bool unpad_is_valid(const UnpadCase& c) { return c.pad >= 1 && c.pad <= 16 && c.wrong_at < 0; }

}  // namespace hwaccel::test
