// The core's allocator, or libc's when the core offers none (memory.hpp).
#include "memory.hpp"

#include <openssl/core_dispatch.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "wipe.hpp"

namespace hwaccel::mem {
namespace {

struct Allocator {
    OSSL_FUNC_CRYPTO_malloc_fn* malloc;
    OSSL_FUNC_CRYPTO_zalloc_fn* zalloc;
    OSSL_FUNC_CRYPTO_free_fn* free;
    OSSL_FUNC_CRYPTO_clear_free_fn* clear_free;
};

void* libc_malloc(size_t n, const char*, int) { return std::malloc(n); }
void* libc_zalloc(size_t n, const char*, int) { return std::calloc(1, n); }
void libc_free(void* p, const char*, int) { std::free(p); }
void libc_clear_free(void* p, size_t n, const char*, int) {
    if (p == nullptr) return;
    wipe(p, n);
    std::free(p);
}

const Allocator kLibc{libc_malloc, libc_zalloc, libc_free, libc_clear_free};
Allocator g_core{};  // written once, before g_active points at it
std::once_flag g_core_once;
std::atomic<const Allocator*> g_active{&kLibc};

const Allocator& active() { return *g_active.load(std::memory_order_acquire); }

}  // namespace

void use_core(const OSSL_DISPATCH* in) {
    Allocator found{};
    for (; in != nullptr && in->function_id != 0; ++in) {
        switch (in->function_id) {
        case OSSL_FUNC_CRYPTO_MALLOC:
            found.malloc = OSSL_FUNC_CRYPTO_malloc(in);
            break;
        case OSSL_FUNC_CRYPTO_ZALLOC:
            found.zalloc = OSSL_FUNC_CRYPTO_zalloc(in);
            break;
        case OSSL_FUNC_CRYPTO_FREE:
            found.free = OSSL_FUNC_CRYPTO_free(in);
            break;
        case OSSL_FUNC_CRYPTO_CLEAR_FREE:
            found.clear_free = OSSL_FUNC_CRYPTO_clear_free(in);
            break;
        default:
            break;
        }
    }
    // Half a set would mix allocators within one block's life.
    if (!found.malloc || !found.zalloc || !found.free || !found.clear_free) return;
    std::call_once(g_core_once, [&] {
        g_core = found;
        g_active.store(&g_core, std::memory_order_release);
    });
}

bool using_core() { return &active() == &g_core; }

void* malloc(size_t n, const char* file, int line) noexcept { return active().malloc(n, file, line); }
void* zalloc(size_t n, const char* file, int line) noexcept { return active().zalloc(n, file, line); }
void free(void* p, const char* file, int line) noexcept { active().free(p, file, line); }
void clear_free(void* p, size_t n, const char* file, int line) noexcept {
    active().clear_free(p, n, file, line);
}

}  // namespace hwaccel::mem
