// What SM4-GCM and SM4-CCM share above their mode maths, as the default
// provider's GCM and CCM do (ciphercommon_gcm.c, ciphercommon_ccm.c): the
// TLS 1.2 record header made into the AAD the tag covers, and the context
// parameters both list, in the default provider's order (each mode lists
// its own after them).
#pragma once

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace hwaccel {

inline constexpr size_t kTlsAadLen = 13;        // EVP_AEAD_TLS1_AAD_LEN
inline constexpr size_t kTlsExplicitIvLen = 8;  // EVP_{GCM,CCM}_TLS_EXPLICIT_IV_LEN

// "tlsaad": the 13-byte header's length field counts the record as it
// travels (explicit IV, payload and, received, the tag); the tag covers the
// payload's length. False, and `aad` untouched, when the record is too short
// to hold what surrounds a payload.
inline bool tls_record_aad(const uint8_t header[kTlsAadLen], size_t received_tag_len,
                           uint8_t aad[kTlsAadLen]) {
    size_t len = size_t{header[kTlsAadLen - 2]} << 8 | header[kTlsAadLen - 1];
    const size_t overhead = kTlsExplicitIvLen + received_tag_len;
    if (len < overhead) return false;
    len -= overhead;
    std::memcpy(aad, header, kTlsAadLen);
    aad[kTlsAadLen - 2] = static_cast<uint8_t>(len >> 8);
    aad[kTlsAadLen - 1] = static_cast<uint8_t>(len);
    return true;
}

inline constexpr size_t kAeadGettableCount = 7;
inline const OSSL_PARAM* aead_gettable_ctx_params() {
    static const OSSL_PARAM table[kAeadGettableCount + 1] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, nullptr),
        OSSL_PARAM_END,
    };
    return table;
}

inline constexpr size_t kAeadSettableCount = 4;
inline const OSSL_PARAM* aead_settable_ctx_params() {
    static const OSSL_PARAM table[kAeadSettableCount + 1] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, nullptr, 0),
        OSSL_PARAM_END,
    };
    return table;
}

}  // namespace hwaccel
