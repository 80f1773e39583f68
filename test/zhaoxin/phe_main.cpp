// Catch2's runner for the binaries that execute PHE instructions: the
// instruction model's SIGILL handler is installed before any test runs.
//
// Catch's own POSIX signal handling is switched off: it installs a SIGILL
// handler around every test case, which would take the trap before the model.
// A crash still fails the test run (CTest sees the signal), without Catch's
// report of the test case it happened in.
#define CATCH_CONFIG_RUNNER
#define CATCH_CONFIG_NO_POSIX_SIGNALS
#include <catch2/catch.hpp>

#include "phe_model.hpp"

int main(int argc, char* argv[]) {
    hwaccel::test::phe::install();
    return Catch::Session().run(argc, argv);
}
