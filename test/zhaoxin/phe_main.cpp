// Catch2's runner for the binaries that execute PHE instructions: the
// instruction model's SIGILL handler is installed before any test runs.
//
// Catch's own POSIX signal handling is switched off: it installs a SIGILL
// handler around every test case, which would take the trap before the model.
// A crash still fails the test run (CTest sees the signal), without Catch's
// report of the test case it happened in. (These binaries link
// hwaccel_catch_session_no_signals, test/catch_session.cpp.)
#include <cstdlib>
#include <string>

#include "catch_session.hpp"
#include "phe_model.hpp"

int main(int argc, char* argv[]) {
    hwaccel::test::phe::install();
    // The engine manifest (support/engine_manifest.hpp): what the suites
    // record for the PHE engine here ran under the model, not natively.
    if (hwaccel::test::phe::model_active()) {
        const char* models = std::getenv("HWACCEL_ENGINE_MANIFEST_MODELS");
        std::string all = models && *models ? std::string(models) + ";" : "";
        setenv("HWACCEL_ENGINE_MANIFEST_MODELS", (all + "phe=PHE SIGILL instruction model").c_str(), 1);
    }
    return hwaccel::test::run_catch_session(argc, argv);
}
