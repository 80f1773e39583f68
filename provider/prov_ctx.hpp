// The provider instance: what the core handed us, our property string, and
// the engines chosen for this instance. Immutable after init, so any number
// of threads may use it; the one exception, the spare digest contexts, is
// lock-free (spare_contexts.hpp).
#pragma once

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include <string>
#include <vector>

#include "hwaccel/registry.hpp"
#include "spare_contexts.hpp"

namespace hwaccel {

struct CoreUpcalls {
    OSSL_FUNC_core_get_params_fn* get_params = nullptr;
    OSSL_FUNC_core_new_error_fn* new_error = nullptr;
    OSSL_FUNC_core_set_error_debug_fn* set_error_debug = nullptr;
    OSSL_FUNC_core_vset_error_fn* vset_error = nullptr;
};

struct ProvCtx {
    const OSSL_CORE_HANDLE* handle = nullptr;
    CoreUpcalls core;
    std::string instance_name;  // "hwaccel", or the config's identity
    std::string property;       // "provider=<instance_name>" (property_name.hpp)
    Selection engines;
    std::vector<OSSL_ALGORITHM> digests;  // tables carry `property`, so per instance
    std::vector<OSSL_ALGORITHM> ciphers;
    std::vector<OSSL_ALGORITHM> skeymgmt;  // OpenSSL 3.5+ asks for it
    mutable SpareContexts spare_digest_contexts;
};

}  // namespace hwaccel
