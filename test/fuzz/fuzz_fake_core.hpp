// A minimal OpenSSL core for driving hwaccel.so's dispatch tables directly
// (no libcrypto between the fuzzer and the provider): the module is
// dlopen'ed, OSSL_provider_init is called with these upcalls, and every error
// the provider raises is counted.
#pragma once

#include <openssl/core.h>
#include <openssl/core_dispatch.h>

#include <cstddef>

namespace hwaccel::fuzz {

class FakeCoreModule {
public:
    // Loads <dir>/hwaccel.so and initialises it; aborts on failure.
    explicit FakeCoreModule(const char* dir);

    const OSSL_DISPATCH* digest(const char* first_name) const;
    const OSSL_DISPATCH* cipher(const char* first_name) const;
    void* provctx() const { return provctx_; }

    // Errors raised through the core since the process started.
    static size_t errors();

private:
    const OSSL_DISPATCH* find(int operation, const char* first_name) const;
    const OSSL_DISPATCH* out_ = nullptr;
    void* provctx_ = nullptr;
};

template <class Fn>
Fn* find_function(const OSSL_DISPATCH* table, int id) {
    for (; table->function_id != 0; ++table)
        if (table->function_id == id) return reinterpret_cast<Fn*>(table->function);
    return nullptr;
}

}  // namespace hwaccel::fuzz
