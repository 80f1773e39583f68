#include "fuzz_support.hpp"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/provider.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#if defined(HWACCEL_FUZZ_PHE_MODEL)
#include "phe_model.hpp"
#endif

namespace hwaccel::fuzz {

namespace {

void hex(const char* label, const uint8_t* p, size_t len) {
    std::fprintf(stderr, "%s:", label);
    for (size_t i = 0; i < len && i < 256; ++i) std::fprintf(stderr, "%s%02x", i % 32 ? "" : "\n  ", p[i]);
    std::fprintf(stderr, "%s\n", len > 256 ? " ..." : "");
}

// Every "family=engine" of HWACCEL_ENGINES must appear in what the provider
// reports, or the run would fuzz another engine than it claims.
void check_selection(const std::string& wanted, const std::string& reported) {
    std::stringstream items(wanted);
    std::string item;
    while (std::getline(items, item, ',')) {
        if (item.empty()) continue;
        const std::string have = "," + reported + ",";
        if (item.rfind("all=", 0) == 0) {
            const std::string engine = item.substr(4);
            for (const char* family : {"sha1=", "sha256=", "sha3=", "sm4=", "ghash="})
                if (have.find("," + std::string(family) + engine + ",") == std::string::npos)
                    fail(("engine selection did not take: " + item + " vs " + reported).c_str());
        } else if (have.find("," + item + ",") == std::string::npos) {
            fail(("engine selection did not take: " + item + " vs " + reported).c_str());
        }
    }
}

}  // namespace

void fail(const char* what, const uint8_t* ours, const uint8_t* theirs, size_t len) {
    std::fprintf(stderr, "\n*** hwaccel fuzz failure: %s (engines %s)\n", what,
                 providers().engines.c_str());
    if (ours) hex("hwaccel", ours, len);
    if (theirs) hex("default", theirs, len);
    ERR_print_errors_fp(stderr);
    std::abort();
}

void check_same(const uint8_t* ours, const uint8_t* theirs, size_t len, const char* what) {
    if (len != 0 && std::memcmp(ours, theirs, len) != 0) fail(what, ours, theirs, len);
}

std::string module_dir() {
    return std::getenv("HWACCEL_TEST_CPU") ? HWACCEL_FUZZ_TESTING_MODULE_DIR : HWACCEL_FUZZ_MODULE_DIR;
}

const Providers& providers() {
    static const Providers p = [] {
#if defined(HWACCEL_FUZZ_PHE_MODEL)
        // Before libFuzzer sets its own signal handlers (it leaves an
        // installed SA_SIGINFO handler for SIGILL alone).
        if (std::getenv("HWACCEL_TEST_CPU")) {
            hwaccel::test::phe::install();
            // Proof that the engine ran under the model, not around it.
            std::atexit([] {
                const auto c = hwaccel::test::phe::counters();
                std::fprintf(stderr, "phe model: %llu rep xsha1, %llu rep xsha256 performed\n",
                             static_cast<unsigned long long>(c.xsha1),
                             static_cast<unsigned long long>(c.xsha256));
            });
        }
#endif
        Providers out{OSSL_LIB_CTX_new(), ""};
        const std::string dir = module_dir();
        OSSL_PROVIDER_set_default_search_path(out.libctx, dir.c_str());
        OSSL_PROVIDER* ours = OSSL_PROVIDER_load(out.libctx, "hwaccel");
        OSSL_PROVIDER* theirs = OSSL_PROVIDER_load(out.libctx, "default");
        if (ours == nullptr || theirs == nullptr) {
            ERR_print_errors_fp(stderr);
            std::fprintf(stderr, "cannot load hwaccel from %s and default\n", dir.c_str());
            std::abort();
        }
        char* engines = nullptr;
        OSSL_PARAM req[] = {OSSL_PARAM_utf8_ptr("engines", &engines, 0), OSSL_PARAM_END};
        if (!OSSL_PROVIDER_get_params(ours, req) || engines == nullptr) {
            std::fprintf(stderr, "hwaccel does not report its engines\n");
            std::abort();
        }
        out.engines = engines;
        std::fprintf(stderr, "hwaccel fuzz: module %s, engines %s%s%s\n", dir.c_str(), engines,
                     std::getenv("HWACCEL_TEST_CPU") ? ", HWACCEL_TEST_CPU=" : "",
                     std::getenv("HWACCEL_TEST_CPU") ? std::getenv("HWACCEL_TEST_CPU") : "");
        return out;
    }();
    static const bool checked = [] {
        if (const char* wanted = std::getenv("HWACCEL_ENGINES")) check_selection(wanted, p.engines);
        return true;
    }();
    (void)checked;
    return p;
}

EVP_MD* fetch_md(const char* name, bool hwaccel) {
    EVP_MD* md = EVP_MD_fetch(providers().libctx, name, hwaccel ? "provider=hwaccel" : "provider=default");
    if (md == nullptr) fail(name);
    const char* prov = OSSL_PROVIDER_get0_name(EVP_MD_get0_provider(md));
    check(std::strcmp(prov, hwaccel ? "hwaccel" : "default") == 0, "fetched from the wrong provider");
    return md;
}

EVP_CIPHER* fetch_cipher(const char* name, bool hwaccel) {
    EVP_CIPHER* c =
        EVP_CIPHER_fetch(providers().libctx, name, hwaccel ? "provider=hwaccel" : "provider=default");
    if (c == nullptr) fail(name);
    const char* prov = OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c));
    check(std::strcmp(prov, hwaccel ? "hwaccel" : "default") == 0, "fetched from the wrong provider");
    return c;
}

bool tracing() {
    static const bool on = std::getenv("HWACCEL_FUZZ_TRACE") != nullptr;
    return on;
}

// Not instrumented, and 8 bytes per step: its per-byte loop taught the
// fuzzer nothing and cost a fifth of sm4_fuzz's time.
__attribute__((no_sanitize("coverage"))) void fill_pattern(uint8_t* p, size_t len, uint8_t seed) {
    uint64_t x = 0x9e3779b97f4a7c15u * (seed + 1u);
    for (size_t i = 0; i < len; i += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64
        std::memcpy(p + i, &x, len - i < 8 ? len - i : 8);
    }
}

}  // namespace hwaccel::fuzz
