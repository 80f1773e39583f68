// hwaccel::params::locate: the first parameter named `key`, as
// OSSL_PARAM_locate (the module calls no libcrypto function).
#pragma once

#include <openssl/core.h>

#include <cstring>

namespace hwaccel::params {

inline OSSL_PARAM* locate(OSSL_PARAM* params, const char* key) {
    if (params == nullptr || key == nullptr) return nullptr;
    for (; params->key != nullptr; ++params)
        if (std::strcmp(params->key, key) == 0) return params;
    return nullptr;
}

inline const OSSL_PARAM* locate(const OSSL_PARAM* params, const char* key) {
    return locate(const_cast<OSSL_PARAM*>(params), key);
}

}  // namespace hwaccel::params
