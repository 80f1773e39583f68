// Small helpers over OSSL_PARAM for the types our algorithms use, on top of
// our own OSSL_PARAM functions (the module calls no libcrypto function).
#pragma once

#include <openssl/core.h>

#include <cstddef>
#include <cstring>
#include <initializer_list>

#include "param_integers.hpp"
#include "param_locate.hpp"
#include "param_strings.hpp"

namespace hwaccel::params {

// Each setter answers only if the caller asked for the key; it returns false
// when the key is present but cannot hold the value.
inline bool set_size(OSSL_PARAM* params, const char* key, size_t value) {
    OSSL_PARAM* p = locate(params, key);
    return p == nullptr || set_size_t(p, value);
}

inline bool set_int(OSSL_PARAM* params, const char* key, int value) {
    OSSL_PARAM* p = locate(params, key);
    return p == nullptr || params::set_int(p, value);
}

inline bool set_uint(OSSL_PARAM* params, const char* key, unsigned value) {
    OSSL_PARAM* p = locate(params, key);
    return p == nullptr || params::set_uint(p, value);
}

inline bool set_utf8(OSSL_PARAM* params, const char* key, const char* value) {
    OSSL_PARAM* p = locate(params, key);
    return p == nullptr || set_utf8_ptr(p, value) || set_utf8_string(p, value);
}

// IVs are asked for both ways: EVP_CIPHER_CTX_iv() wants a pointer,
// EVP_CIPHER_CTX_get_updated_iv() a copy (PROVIDER-NOTES B3).
inline bool set_octets(OSSL_PARAM* params, const char* key, const void* data, size_t len) {
    OSSL_PARAM* p = locate(params, key);
    return p == nullptr || set_octet_ptr(p, data, len) || set_octet_string(p, data, len);
}

// OpenSSL 3.6 and later refuse a request that names one of an operation's
// parameters twice (their generated decoders raise "param ... is repeated");
// keys in one group are one parameter (SHAKE's "size" aliases "xoflen" when
// set). Returns the repeated key, or null.
using KeyGroups = std::initializer_list<std::initializer_list<const char*>>;
inline const char* repeated(const OSSL_PARAM* params, KeyGroups groups) {
    // One parameter (EVP's per-message tag and ivlen requests) repeats none.
    if (params == nullptr || params[0].key == nullptr || params[1].key == nullptr) return nullptr;
    // Each parameter against those before it, group by group: any number of
    // groups (a count per group in a fixed array once skipped those past the
    // eighth, and SM4-GCM's get_ctx_params has nine).
    auto in = [](const char* key, std::initializer_list<const char*> group) {
        for (const char* k : group)
            if (std::strcmp(key, k) == 0) return true;
        return false;
    };
    for (const OSSL_PARAM* p = params + 1; p->key != nullptr; ++p)
        for (const auto& group : groups) {
            if (!in(p->key, group)) continue;
            for (const OSSL_PARAM* q = params; q != p; ++q)
                if (in(q->key, group)) return p->key;
        }
    return nullptr;
}

}  // namespace hwaccel::params
