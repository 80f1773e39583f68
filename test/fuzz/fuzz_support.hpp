// What every differential fuzz target shares: hwaccel.so and OpenSSL's
// default provider loaded into one library context (with the engine
// selection of HWACCEL_ENGINES, as the provider reads it), a check that the
// selection really took, and a failure that libFuzzer records as a crash.
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace hwaccel::fuzz {

// Prints the message (and a hex dump of the two results, when given) and
// aborts: libFuzzer saves the input that got here.
[[noreturn]] void fail(const char* what, const uint8_t* ours = nullptr,
                       const uint8_t* theirs = nullptr, size_t len = 0);
inline void check(bool ok, const char* what) {
    if (!ok) fail(what);
}
void check_same(const uint8_t* ours, const uint8_t* theirs, size_t len, const char* what);

// Which hwaccel.so: the production module, or with HWACCEL_TEST_CPU set the
// test-only module whose CPU features follow that variable (then the PHE
// instruction model is installed too, so "+phe" runs the real PHE engine).
std::string module_dir();

// The library context both providers live in, created on first use and
// never freed (the module's coverage counters must outlive the run).
struct Providers {
    OSSL_LIB_CTX* libctx;
    std::string engines;  // hwaccel's "engines" parameter
};
const Providers& providers();

EVP_MD* fetch_md(const char* name, bool hwaccel);
EVP_CIPHER* fetch_cipher(const char* name, bool hwaccel);

// With HWACCEL_FUZZ_TRACE set, the targets print each operation they run
// (for reading a crash input).
bool tracing();
#define HWACCEL_FUZZ_TRACE(...) \
    do { \
        if (::hwaccel::fuzz::tracing()) std::fprintf(stderr, __VA_ARGS__); \
    } while (0)

// Bytes for long updates without spending the fuzzer's input on them.
void fill_pattern(uint8_t* p, size_t len, uint8_t seed);

}  // namespace hwaccel::fuzz
