// Load/unload cycles must not grow the heap. Each cycle is a fresh library
// context that loads hwaccel, digests once and is freed, so the module is
// dlclose'd and dlopen'ed again (the pattern of a program that makes a
// context per job). A private C++ runtime inside the module brings static
// state that is allocated at every load: GCC 12's libstdc++ mallocs its
// 72,704-byte emergency exception pool in a static constructor and never
// frees it, so each reload of an unloadable module lost that much.
#include <malloc.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdio>

namespace {

bool cycle(const char* dir) {
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    if (ctx == nullptr || !OSSL_PROVIDER_set_default_search_path(ctx, dir)) return false;
    OSSL_PROVIDER* prov = OSSL_PROVIDER_load(ctx, "hwaccel");
    bool ok = prov != nullptr;
    if (ok) {
        EVP_MD* md = EVP_MD_fetch(ctx, "SHA2-256", "provider=hwaccel");
        unsigned char out[32];
        unsigned int len = 0;
        ok = md != nullptr && EVP_Digest("abc", 3, out, &len, md, nullptr) == 1 && out[0] == 0xba;
        EVP_MD_free(md);
        ok = OSSL_PROVIDER_unload(prov) == 1 && ok;
    }
    OSSL_LIB_CTX_free(ctx);
    if (!ok) ERR_print_errors_fp(stderr);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s MODULE_DIR\n", argv[0]);
        return 2;
    }
    // Warm-up: OpenSSL's own once-per-process state, the error strings.
    for (int i = 0; i < 10; ++i)
        if (!cycle(argv[1])) return 1;
    const size_t before = mallinfo2().uordblks;
    constexpr int kCycles = 100;
    for (int i = 0; i < kCycles; ++i)
        if (!cycle(argv[1])) return 1;
    const size_t after = mallinfo2().uordblks;
    const double per_cycle = (static_cast<double>(after) - static_cast<double>(before)) / kCycles;
    // With the shared libstdc++ about 65 bytes a cycle (OpenSSL's caches).
    constexpr double kLimit = 4096;
    std::printf("heap in use grew %.0f bytes per load/unload cycle (limit %.0f)\n", per_cycle, kLimit);
    return per_cycle <= kLimit ? 0 : 1;
}
