// The allocation-failure suite's own main: OpenSSL's allocator must be
// replaced before libcrypto allocates anything in this process.
#include <sched.h>

#include <cstdio>

#include "catch_session.hpp"
#include "failing_allocator.hpp"

int main(int argc, char** argv) {
    if (!hwaccel::test::install_failing_allocator()) {
        std::fprintf(stderr, "CRYPTO_set_mem_functions refused: libcrypto allocated before main\n");
        return 2;
    }
    // One CPU for the whole run: the instance keeps spare digest contexts
    // per CPU (provider/spare_contexts.hpp), so a run that moved to another
    // CPU would leave a second spare there, which the suite's block count
    // would take for a leak.
    const int cpu = sched_getcpu();
    cpu_set_t one;
    CPU_ZERO(&one);
    if (cpu >= 0) CPU_SET(cpu, &one);
    if (cpu < 0 || sched_setaffinity(0, sizeof one, &one) != 0)
        std::fprintf(stderr, "alloc_failure_tests: could not stay on one CPU; a CPU change "
                             "mid-run may count a spare context as a leak\n");
    return hwaccel::test::run_catch_session(argc, argv);
}
