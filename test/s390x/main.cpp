// Test main of the s390x binary: installs the CPACF instruction model before
// Catch runs, and reports what the model did. The backend suites in this
// binary run over hwaccel_backends_testing, so HWACCEL_TEST_CPU (for example
// "+cpacf-sha1,+cpacf-sha256,+cpacf-sha3,+cpacf-shake,+cpacf-ghash") makes the registry
// offer the CPACF engines and every suite runs them under the model.
//
//   HWACCEL_MODEL_PARTIAL=n   every n-th trapped instruction completes only
//                             part of its work (cc 3); default 5, 0 = never.
//
// Catch's own signal handlers are off (CATCH_CONFIG_NO_POSIX_SIGNALS): they
// would replace the model's SIGILL handler around every test case.
#define CATCH_CONFIG_RUNNER
#define CATCH_CONFIG_NO_POSIX_SIGNALS
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>

#include "hwaccel/cpu.hpp"
#include "s390x/cpacf_model.hpp"

int main(int argc, char** argv) {
    namespace model = hwaccel::test::cpacf_model;
    unsigned partial_every = 5;
    if (const char* p = std::getenv("HWACCEL_MODEL_PARTIAL")) partial_every = std::atoi(p);
    model::install(partial_every);

    const hwaccel::CpuFeatures& cpu = hwaccel::cpu_features();
    std::printf("s390x tests: CPU features %s; CPACF model installed (cc=3 every %u traps)\n",
                hwaccel::describe(cpu).c_str(), partial_every);

    const int failed = Catch::Session().run(argc, argv);

    const model::Stats& s = model::stats();
    std::printf("CPACF model: %llu KIMD/KLMD executed from traps, %llu ended in cc=3 (by code:",
                static_cast<unsigned long long>(s.traps),
                static_cast<unsigned long long>(s.partial));
    for (unsigned fc = 0; fc < 128; ++fc)
        if (s.by_code[fc] != 0)
            std::printf(" 0x%02x=%llu", fc, static_cast<unsigned long long>(s.by_code[fc]));
    std::printf(")\n");
    return failed;
}
