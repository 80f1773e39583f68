// OpenSSL 3.6+'s refusal of a request that names a parameter twice, shared by
// the cipher and digest dispatch code.
#pragma once

#include <openssl/core.h>

#include "errors.hpp"
#include "openssl_version.hpp"
#include "params.hpp"
#include "prov_ctx.hpp"

namespace hwaccel {

// Where the running OpenSSL's default provider makes this refusal: true
// (error raised) if params names one of `keys` twice.
inline bool refuse_repeated(const ProvCtx* prov, const OSSL_PARAM* params, params::KeyGroups keys) {
    if (!refuses_repeated_params()) return false;
    const char* key = params::repeated(params, keys);
    if (key == nullptr) return false;
    raise_error(prov, kErrRepeatedParameter, "param %s is repeated", key);
    return true;
}

}  // namespace hwaccel
