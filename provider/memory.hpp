// hwaccel::mem: the module's heap for contexts and other OpenSSL-visible
// objects. It allocates through the core's memory upcalls
// (OSSL_FUNC_CRYPTO_MALLOC, _ZALLOC, _FREE, _CLEAR_FREE in the dispatch table
// OSSL_provider_init receives), as OpenSSL's FIPS provider does, so an
// application's CRYPTO_set_mem_functions governs our allocations without the
// module linking libcrypto.
//
// A core that offers none of them (a test harness) gets libc's malloc,
// calloc and free, with clear_free wiping first. The first core that offers
// all four fixes them for the process: every core in one process is the same
// libcrypto, and a block must be freed by the allocator that made it.
//
// file/line default to the caller's, as OPENSSL_malloc's macros pass them.
#pragma once

#include <openssl/core.h>

#include <cstddef>

namespace hwaccel::mem {

// Reads the memory upcalls from OSSL_provider_init's `in` table.
void use_core(const OSSL_DISPATCH* in);

// True when the core's allocator is in use (tests).
bool using_core();

void* malloc(size_t n, const char* file = __builtin_FILE(), int line = __builtin_LINE()) noexcept;
void* zalloc(size_t n, const char* file = __builtin_FILE(), int line = __builtin_LINE()) noexcept;
void free(void* p, const char* file = __builtin_FILE(), int line = __builtin_LINE()) noexcept;
// Wipes n bytes at p, then frees it.
void clear_free(void* p, size_t n, const char* file = __builtin_FILE(),
                int line = __builtin_LINE()) noexcept;

}  // namespace hwaccel::mem
