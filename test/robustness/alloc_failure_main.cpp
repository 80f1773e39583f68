// The allocation-failure suite's own main: OpenSSL's allocator must be
// replaced before libcrypto allocates anything in this process.
#include <cstdio>

#include "catch_session.hpp"
#include "failing_allocator.hpp"

int main(int argc, char** argv) {
    if (!hwaccel::test::install_failing_allocator()) {
        std::fprintf(stderr, "CRYPTO_set_mem_functions refused: libcrypto allocated before main\n");
        return 2;
    }
    return hwaccel::test::run_catch_session(argc, argv);
}
