// Differential fuzz target: SHA-1, SHA-224, SHA-256 (hwaccel vs default).
#include "digest_driver.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    hwaccel::fuzz::providers();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::vector<hwaccel::fuzz::DigestChoice> digests = {
        {"SHA1", false}, {"SHA2-224", false}, {"SHA2-256", false}};
    hwaccel::fuzz::run_digest_input(digests, data, size);
    return 0;
}
