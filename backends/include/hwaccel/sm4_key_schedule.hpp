// The SM4 key schedule (GB/T 32907-2016, 7.3), written once for every engine.
// Engines differ only in how they compute the S-box on a word in constant
// time (bitsliced, through the AES S-box, through GFNI) and in what extra
// layout they derive from the round keys afterwards.
#pragma once

#include <cstdint>

#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"

namespace hwaccel::sm4_schedule {

// System parameter FK.
inline constexpr uint32_t kFK[4] = {0xA3B1BAC6, 0x56AA3350, 0x677D9197, 0xB27022DC};

// CK_i: byte j of CK_i is (4i + j) * 7 mod 256.
inline constexpr uint32_t ck_word(int i) {
    uint32_t w = 0;
    for (int j = 0; j < 4; ++j) w = (w << 8) | (((4 * i + j) * 7) & 0xFF);
    return w;
}

// Fills key->enc and key->dec (the same keys reversed) from the 16-byte user
// key; sbox_word applies the S-box to each byte of a word. The working words
// are wiped; engine_data is the caller's business.
template <class SboxWord>
inline void expand(Sm4Key* key, const uint8_t user_key[16], SboxWord sbox_word) {
    uint32_t k[4];
    for (int i = 0; i < 4; ++i) k[i] = load_be32(user_key + 4 * i) ^ kFK[i];
    for (int i = 0; i < 32; ++i) {
        const uint32_t t = sbox_word(k[(i + 1) & 3] ^ k[(i + 2) & 3] ^ k[(i + 3) & 3] ^ ck_word(i));
        k[i & 3] ^= t ^ rotl32(t, 13) ^ rotl32(t, 23);
        key->enc[i] = k[i & 3];
    }
    for (int i = 0; i < 32; ++i) key->dec[i] = key->enc[31 - i];
    secure_zero(k, sizeof k);
}

}  // namespace hwaccel::sm4_schedule
