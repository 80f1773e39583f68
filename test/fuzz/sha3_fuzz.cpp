// Differential fuzz target: SHA3-224/256/384/512, SHAKE-128/256 (hwaccel vs
// default). Squeeze is not in OpenSSL 3.0's EVP: dispatch_fuzz drives it.
#include "digest_driver.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    hwaccel::fuzz::providers();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::vector<hwaccel::fuzz::DigestChoice> digests = {
        {"SHA3-224", false}, {"SHA3-256", false}, {"SHA3-384", false},
        {"SHA3-512", false}, {"SHAKE-128", true}, {"SHAKE-256", true}};
    hwaccel::fuzz::run_digest_input(digests, data, size);
    return 0;
}
