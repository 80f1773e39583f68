#include "fake_core.hpp"

#include <dlfcn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <catch2/catch.hpp>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace hwaccel::test {

FakeCore g_core;

namespace {

int core_get_params(const OSSL_CORE_HANDLE*, OSSL_PARAM params[]) {
    for (OSSL_PARAM* p = params; p->key != nullptr; ++p) {
        if (std::strcmp(p->key, OSSL_PROV_PARAM_CORE_PROV_NAME) == 0)
            OSSL_PARAM_set_utf8_ptr(p, g_core.name.c_str());
        // The real version: the module may already be loaded in this process
        // by a real core, and version-dependent behaviour is per process.
        else if (std::strcmp(p->key, OSSL_PROV_PARAM_CORE_VERSION) == 0)
            OSSL_PARAM_set_utf8_ptr(p, OpenSSL_version(OPENSSL_VERSION_STRING));
        else if (std::strcmp(p->key, "engines") == 0 && !g_core.engines.empty())
            OSSL_PARAM_set_utf8_ptr(p, g_core.engines.c_str());
    }
    return 1;
}
void core_new_error(const OSSL_CORE_HANDLE*) {
    g_core.errors.emplace_back();
    g_core.reasons.push_back(0);
}
void core_set_error_debug(const OSSL_CORE_HANDLE*, const char*, int, const char*) {}
void core_vset_error(const OSSL_CORE_HANDLE*, uint32_t reason, const char* fmt, va_list args) {
    char buf[512] = "";
    if (fmt) vsnprintf(buf, sizeof buf, fmt, args);
    g_core.reason = static_cast<int>(reason);
    if (!g_core.errors.empty()) {
        g_core.errors.back() = std::to_string(reason) + ": " + buf;
        g_core.reasons.back() = static_cast<int>(reason);
    }
}

const OSSL_DISPATCH kCore[] = {
    {OSSL_FUNC_CORE_GET_PARAMS, reinterpret_cast<void (*)(void)>(core_get_params)},
    {OSSL_FUNC_CORE_NEW_ERROR, reinterpret_cast<void (*)(void)>(core_new_error)},
    {OSSL_FUNC_CORE_SET_ERROR_DEBUG, reinterpret_cast<void (*)(void)>(core_set_error_debug)},
    {OSSL_FUNC_CORE_VSET_ERROR, reinterpret_cast<void (*)(void)>(core_vset_error)},
    // The allocator, as a real core offers it: the module may already be
    // loaded in this process by one, and it keeps the first set it is given.
    {OSSL_FUNC_CRYPTO_MALLOC, reinterpret_cast<void (*)(void)>(CRYPTO_malloc)},
    {OSSL_FUNC_CRYPTO_ZALLOC, reinterpret_cast<void (*)(void)>(CRYPTO_zalloc)},
    {OSSL_FUNC_CRYPTO_FREE, reinterpret_cast<void (*)(void)>(CRYPTO_free)},
    {OSSL_FUNC_CRYPTO_CLEAR_FREE, reinterpret_cast<void (*)(void)>(CRYPTO_clear_free)},
    {0, nullptr},
};

const OSSL_DISPATCH* find_by_first_name(const OSSL_ALGORITHM* a, const char* first_name) {
    const size_t n = std::strlen(first_name);
    for (; a->algorithm_names != nullptr; ++a)
        if (std::strncmp(a->algorithm_names, first_name, n) == 0 && a->algorithm_names[n] == ':')
            return a->implementation;
    return nullptr;
}

}  // namespace

Module::Module() {
    dl = dlopen(HWACCEL_MODULE_PATH, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(dl != nullptr);
    auto* init = reinterpret_cast<OSSL_provider_init_fn*>(dlsym(dl, "OSSL_provider_init"));
    REQUIRE(init != nullptr);
    init_result = init(reinterpret_cast<const OSSL_CORE_HANDLE*>(&g_core), kCore, &out, &provctx);
}

Module::~Module() {
    if (init_result)
        find_fn<OSSL_FUNC_provider_teardown_fn>(out, OSSL_FUNC_PROVIDER_TEARDOWN)(provctx);
    dlclose(dl);
}

const OSSL_ALGORITHM* Module::algorithms(int op) {
    int no_cache = 1;
    auto* query = find_fn<OSSL_FUNC_provider_query_operation_fn>(out, OSSL_FUNC_PROVIDER_QUERY_OPERATION);
    const OSSL_ALGORITHM* a = query(provctx, op, &no_cache);
    CHECK(no_cache == 0);
    return a;
}

const OSSL_DISPATCH* Module::digest(const char* first_name) {
    const OSSL_DISPATCH* t = find_by_first_name(algorithms(OSSL_OP_DIGEST), first_name);
    if (t == nullptr) FAIL("no digest " << first_name);
    return t;
}

const OSSL_DISPATCH* Module::cipher(const char* first_name) {
    const OSSL_DISPATCH* t = find_by_first_name(algorithms(OSSL_OP_CIPHER), first_name);
    if (t == nullptr) FAIL("no cipher " << first_name);
    return t;
}

DigestFns::DigestFns(const OSSL_DISPATCH* t)
    : newctx(find_fn<OSSL_FUNC_digest_newctx_fn>(t, OSSL_FUNC_DIGEST_NEWCTX)),
      freectx(find_fn<OSSL_FUNC_digest_freectx_fn>(t, OSSL_FUNC_DIGEST_FREECTX)),
      dupctx(find_fn<OSSL_FUNC_digest_dupctx_fn>(t, OSSL_FUNC_DIGEST_DUPCTX)),
      copyctx(find_fn<OSSL_FUNC_digest_copyctx_fn>(t, OSSL_FUNC_DIGEST_COPYCTX)),
      init(find_fn<OSSL_FUNC_digest_init_fn>(t, OSSL_FUNC_DIGEST_INIT)),
      update(find_fn<OSSL_FUNC_digest_update_fn>(t, OSSL_FUNC_DIGEST_UPDATE)),
      final(find_fn<OSSL_FUNC_digest_final_fn>(t, OSSL_FUNC_DIGEST_FINAL)),
      squeeze(find_fn<OSSL_FUNC_digest_squeeze_fn>(t, OSSL_FUNC_DIGEST_SQUEEZE)),
      get_params(find_fn<OSSL_FUNC_digest_get_params_fn>(t, OSSL_FUNC_DIGEST_GET_PARAMS)),
      set_ctx_params(find_fn<OSSL_FUNC_digest_set_ctx_params_fn>(t, OSSL_FUNC_DIGEST_SET_CTX_PARAMS)),
      get_ctx_params(find_fn<OSSL_FUNC_digest_get_ctx_params_fn>(t, OSSL_FUNC_DIGEST_GET_CTX_PARAMS)),
      serialize(find_fn<OSSL_FUNC_digest_serialize_fn>(t, OSSL_FUNC_DIGEST_SERIALIZE)),
      deserialize(find_fn<OSSL_FUNC_digest_deserialize_fn>(t, OSSL_FUNC_DIGEST_DESERIALIZE)) {}

CipherFns::CipherFns(const OSSL_DISPATCH* t)
    : newctx(find_fn<OSSL_FUNC_cipher_newctx_fn>(t, OSSL_FUNC_CIPHER_NEWCTX)),
      freectx(find_fn<OSSL_FUNC_cipher_freectx_fn>(t, OSSL_FUNC_CIPHER_FREECTX)),
      dupctx(find_fn<OSSL_FUNC_cipher_dupctx_fn>(t, OSSL_FUNC_CIPHER_DUPCTX)),
      einit(find_fn<OSSL_FUNC_cipher_encrypt_init_fn>(t, OSSL_FUNC_CIPHER_ENCRYPT_INIT)),
      dinit(find_fn<OSSL_FUNC_cipher_decrypt_init_fn>(t, OSSL_FUNC_CIPHER_DECRYPT_INIT)),
      update(find_fn<OSSL_FUNC_cipher_update_fn>(t, OSSL_FUNC_CIPHER_UPDATE)),
      final(find_fn<OSSL_FUNC_cipher_final_fn>(t, OSSL_FUNC_CIPHER_FINAL)),
      cipher(find_fn<OSSL_FUNC_cipher_cipher_fn>(t, OSSL_FUNC_CIPHER_CIPHER)),
      get_params(find_fn<OSSL_FUNC_cipher_get_params_fn>(t, OSSL_FUNC_CIPHER_GET_PARAMS)),
      get_ctx_params(find_fn<OSSL_FUNC_cipher_get_ctx_params_fn>(t, OSSL_FUNC_CIPHER_GET_CTX_PARAMS)),
      set_ctx_params(find_fn<OSSL_FUNC_cipher_set_ctx_params_fn>(t, OSSL_FUNC_CIPHER_SET_CTX_PARAMS)) {}

}  // namespace hwaccel::test
