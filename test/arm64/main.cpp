// Test main of the arm64 binaries: says which features the process sees
// (after any HWACCEL_TEST_CPU adjustment) and which engines the registry
// chose for them, so a log shows what ran.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>

#include "hwaccel/cpu.hpp"
#include "hwaccel/registry.hpp"

int main(int argc, char** argv) {
    const hwaccel::CpuFeatures& cpu = hwaccel::cpu_features();
    std::printf("arm64 tests: CPU features %s; engines %s\n", hwaccel::describe(cpu).c_str(),
                hwaccel::describe(hwaccel::best_selection(cpu)).c_str());
    return Catch::Session().run(argc, argv);
}
