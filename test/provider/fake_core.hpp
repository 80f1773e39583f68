// hwaccel.so driven directly through its dispatch tables, against a fake
// core that records every error the provider raises. Shared by the dispatch
// tests and the entry-point rules.
#pragma once

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include <string>
#include <vector>

#include "digest/newer_dispatch_ids.hpp"  // squeeze and copyctx ids on 3.0 headers

namespace hwaccel::test {

// What the core hands the provider, and what the provider raised.
struct FakeCore {
    std::string name = "hwaccel";
    std::string engines;              // the config key, if not empty
    std::vector<std::string> errors;  // "<reason>: <detail>", one per error raised
    std::vector<int> reasons;         // the reason of each error, in order
    int reason = 0;                   // the last reason raised

    void clear_errors() {
        errors.clear();
        reasons.clear();
        reason = 0;
    }
};
extern FakeCore g_core;

template <class Fn>
Fn* find_fn(const OSSL_DISPATCH* table, int id) {
    for (; table->function_id != 0; ++table)
        if (table->function_id == id) return reinterpret_cast<Fn*>(table->function);
    return nullptr;
}

// The module, initialised against the fake core (torn down and closed with
// the object).
struct Module {
    void* dl = nullptr;
    const OSSL_DISPATCH* out = nullptr;
    void* provctx = nullptr;
    int init_result = 0;

    Module();
    ~Module();
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    const OSSL_ALGORITHM* algorithms(int op);
    // The implementation whose first name is `first_name`; FAILs if none.
    const OSSL_DISPATCH* digest(const char* first_name);
    const OSSL_DISPATCH* cipher(const char* first_name);
};

// Every digest entry point; the XOF-only ones are null for fixed digests.
struct DigestFns {
    OSSL_FUNC_digest_newctx_fn* newctx;
    OSSL_FUNC_digest_freectx_fn* freectx;
    OSSL_FUNC_digest_dupctx_fn* dupctx;
    OSSL_FUNC_digest_copyctx_fn* copyctx;
    OSSL_FUNC_digest_init_fn* init;
    OSSL_FUNC_digest_update_fn* update;
    OSSL_FUNC_digest_final_fn* final;
    OSSL_FUNC_digest_squeeze_fn* squeeze;
    OSSL_FUNC_digest_get_params_fn* get_params;
    OSSL_FUNC_digest_set_ctx_params_fn* set_ctx_params;
    OSSL_FUNC_digest_get_ctx_params_fn* get_ctx_params;
    OSSL_FUNC_digest_serialize_fn* serialize;  // OpenSSL 4.0's; null for SHA-1
    OSSL_FUNC_digest_deserialize_fn* deserialize;

    explicit DigestFns(const OSSL_DISPATCH* t);
};

struct CipherFns {
    OSSL_FUNC_cipher_newctx_fn* newctx;
    OSSL_FUNC_cipher_freectx_fn* freectx;
    OSSL_FUNC_cipher_dupctx_fn* dupctx;
    OSSL_FUNC_cipher_encrypt_init_fn* einit;
    OSSL_FUNC_cipher_decrypt_init_fn* dinit;
    OSSL_FUNC_cipher_update_fn* update;
    OSSL_FUNC_cipher_final_fn* final;
    OSSL_FUNC_cipher_cipher_fn* cipher;
    OSSL_FUNC_cipher_get_params_fn* get_params;
    OSSL_FUNC_cipher_get_ctx_params_fn* get_ctx_params;
    OSSL_FUNC_cipher_set_ctx_params_fn* set_ctx_params;

    explicit CipherFns(const OSSL_DISPATCH* t);
};

}  // namespace hwaccel::test
