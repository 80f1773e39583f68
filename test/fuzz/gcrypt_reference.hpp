// The reference the AEAD fuzz target compares hwaccel with: libgcrypt's
// SM4-GCM, SM4-CCM and SM4-XTS (OpenSSL 3.0's default provider has none of
// them). libgcrypt's XTS is IEEE Std 1619's only; GB/T 17964's XTS differs
// from it just in the order of the tweak's multiplication by alpha, so it is
// built here over libgcrypt's SM4-ECB, and that construction is checked
// against libgcrypt's own XTS on every IEEE call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hwaccel::fuzz {

using Bytes = std::vector<uint8_t>;

// Aborts (a fuzz failure) if libgcrypt lacks SM4 or a mode.
void gcrypt_init();

// Ciphertext and the full 16-byte tag.
struct Sealed {
    Bytes text, tag;
};
Sealed gcrypt_gcm_seal(const Bytes& key, const Bytes& iv, const Bytes& aad, const Bytes& msg);
// tag_len: 4..16, even; nonce: 7..13 bytes.
Sealed gcrypt_ccm_seal(const Bytes& key, const Bytes& nonce, const Bytes& aad, const Bytes& msg,
                       size_t tag_len);
// One data unit (16 bytes or more) under a 32-byte key.
Bytes gcrypt_xts(bool encrypt, bool ieee, const Bytes& key, const uint8_t iv[16], const Bytes& in);

}  // namespace hwaccel::fuzz
