// The SM4 modes hwaccel serves, as the residue and wipe tests drive them:
// one message of `len` bytes each (a partial last block where the mode takes
// one, so tails and ciphertext stealing run too), at the mode's default IV
// length (CCM's 7-byte nonce, L = 8; GCM also with a 16-byte IV), padding
// off for ECB and CBC.
#pragma once

#include <cstddef>

namespace hwaccel::test {

struct Sm4ModeCase {
    const char* name;
    size_t key_len;
    size_t iv_len;
    size_t len;
    bool stream;  // ciphertext ^ plaintext is keystream
    bool gcm, ccm, xts;
    bool aead() const { return gcm || ccm; }
};

inline constexpr Sm4ModeCase kSm4ModeCases[] = {
    {"SM4-ECB", 16, 0, 160, false, false, false, false},  {"SM4-CBC", 16, 16, 160, false, false, false, false},
    {"SM4-CFB", 16, 16, 150, true, false, false, false},  {"SM4-OFB", 16, 16, 150, true, false, false, false},
    {"SM4-CTR", 16, 16, 150, true, false, false, false},  {"SM4-GCM", 16, 12, 150, true, true, false, false},
    {"SM4-CCM", 16, 7, 150, true, false, true, false},    {"SM4-XTS", 32, 16, 150, false, false, false, true},
    // GCM with an IV other than 12 bytes: J0 = GHASH(IV), a secret counter
    // whose blocks go through ECB (another path).
    {"SM4-GCM", 16, 16, 150, true, true, false, false},
};
inline constexpr size_t kSm4ModeCaseMaxLen = 160;

}  // namespace hwaccel::test
