// What every cipher of ours answers to get_params, and the list it names in
// gettable_params: the same keys for each, only the values differ. OpenSSL
// 3.6 added "encrypt-then-mac" (0 for all of ours), listed where the
// running OpenSSL's default provider lists it.
#pragma once

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstddef>

#include "openssl_version.hpp"
#include "params.hpp"

namespace hwaccel {

// OSSL_CIPHER_PARAM_ENCRYPT_THEN_MAC, OpenSSL 3.6+ (not in 3.0's headers).
inline constexpr const char kEncryptThenMacParam[] = "encrypt-then-mac";

struct CipherFacts {
    unsigned mode;  // EVP_CIPH_*_MODE
    size_t key_len, iv_len, block_size;
    bool aead, custom_iv;
};

inline bool set_cipher_params(OSSL_PARAM params[], const CipherFacts& f) {
    return params::set_uint(params, OSSL_CIPHER_PARAM_MODE, f.mode) &&
           params::set_size(params, OSSL_CIPHER_PARAM_KEYLEN, f.key_len) &&
           params::set_size(params, OSSL_CIPHER_PARAM_IVLEN, f.iv_len) &&
           params::set_size(params, OSSL_CIPHER_PARAM_BLOCK_SIZE, f.block_size) &&
           params::set_int(params, OSSL_CIPHER_PARAM_AEAD, f.aead ? 1 : 0) &&
           params::set_int(params, OSSL_CIPHER_PARAM_CUSTOM_IV, f.custom_iv ? 1 : 0) &&
           params::set_int(params, OSSL_CIPHER_PARAM_CTS, 0) &&
           params::set_int(params, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, 0) &&
           params::set_int(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY, 0) &&
           params::set_int(params, kEncryptThenMacParam, 0);
}

inline const OSSL_PARAM* cipher_gettable_params() {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, nullptr),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, nullptr),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, nullptr),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, nullptr),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, nullptr),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, nullptr),
        OSSL_PARAM_int(kEncryptThenMacParam, nullptr),
        OSSL_PARAM_END,
    };
    // The same list without its last key (an END in its place).
    static const OSSL_PARAM without_etm[] = {
        table[0], table[1], table[2], table[3], table[4], table[5], table[6], table[7], table[8],
        OSSL_PARAM_END,
    };
    return has_encrypt_then_mac_param() ? table : without_etm;
}

// The context parameters of the generic (non-AEAD) cipher modes, as the
// default provider's ciphercommon.c lists them.
inline constexpr size_t kGenericGettableCtxCount = 6;
inline const OSSL_PARAM* generic_gettable_ctx_params() {
    static const OSSL_PARAM table[kGenericGettableCtxCount + 1] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, nullptr, 0),
        OSSL_PARAM_END,
    };
    return table;
}

}  // namespace hwaccel
