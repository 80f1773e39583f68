#include "fuzz_fake_core.hpp"

#include <dlfcn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace hwaccel::fuzz {
namespace {

size_t g_errors = 0;

int core_get_params(const OSSL_CORE_HANDLE*, OSSL_PARAM params[]) {
    for (OSSL_PARAM* p = params; p->key != nullptr; ++p) {
        if (std::strcmp(p->key, OSSL_PROV_PARAM_CORE_PROV_NAME) == 0)
            OSSL_PARAM_set_utf8_ptr(p, "hwaccel");
        else if (std::strcmp(p->key, OSSL_PROV_PARAM_CORE_VERSION) == 0)
            OSSL_PARAM_set_utf8_ptr(p, OpenSSL_version(OPENSSL_VERSION_STRING));
    }
    return 1;
}
void core_new_error(const OSSL_CORE_HANDLE*) { ++g_errors; }
void core_set_error_debug(const OSSL_CORE_HANDLE*, const char*, int, const char*) {}
void core_vset_error(const OSSL_CORE_HANDLE*, uint32_t, const char*, va_list) {}

const OSSL_DISPATCH kCore[] = {
    {OSSL_FUNC_CORE_GET_PARAMS, reinterpret_cast<void (*)(void)>(core_get_params)},
    {OSSL_FUNC_CORE_NEW_ERROR, reinterpret_cast<void (*)(void)>(core_new_error)},
    {OSSL_FUNC_CORE_SET_ERROR_DEBUG, reinterpret_cast<void (*)(void)>(core_set_error_debug)},
    {OSSL_FUNC_CORE_VSET_ERROR, reinterpret_cast<void (*)(void)>(core_vset_error)},
    {0, nullptr},
};

int g_handle;  // the core handle only has to be a distinct pointer

}  // namespace

FakeCoreModule::FakeCoreModule(const char* dir) {
    const std::string path = std::string(dir) + "/hwaccel.so";
    // Never closed: libFuzzer keeps pointers to the module's coverage counters.
    void* dl = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    auto* init = dl ? reinterpret_cast<OSSL_provider_init_fn*>(dlsym(dl, "OSSL_provider_init")) : nullptr;
    if (init == nullptr || !init(reinterpret_cast<const OSSL_CORE_HANDLE*>(&g_handle), kCore, &out_, &provctx_)) {
        std::fprintf(stderr, "cannot load and initialise %s: %s\n", path.c_str(), dl ? "init failed" : dlerror());
        std::abort();
    }
}

const OSSL_DISPATCH* FakeCoreModule::find(int operation, const char* first_name) const {
    auto* query = find_function<OSSL_FUNC_provider_query_operation_fn>(out_, OSSL_FUNC_PROVIDER_QUERY_OPERATION);
    int no_cache = 0;
    const size_t n = std::strlen(first_name);
    for (const OSSL_ALGORITHM* a = query(provctx_, operation, &no_cache); a && a->algorithm_names; ++a)
        if (std::strncmp(a->algorithm_names, first_name, n) == 0 && a->algorithm_names[n] == ':')
            return a->implementation;
    std::fprintf(stderr, "hwaccel offers no %s\n", first_name);
    std::abort();
}

const OSSL_DISPATCH* FakeCoreModule::digest(const char* name) const { return find(OSSL_OP_DIGEST, name); }
const OSSL_DISPATCH* FakeCoreModule::cipher(const char* name) const { return find(OSSL_OP_CIPHER, name); }

size_t FakeCoreModule::errors() { return g_errors; }

}  // namespace hwaccel::fuzz
