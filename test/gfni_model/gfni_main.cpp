// Catch2's runner for the binaries that may execute GFNI instructions on a
// CPU without them: the instruction model's SIGILL handler is installed
// before any test runs (Catch's own POSIX signal handling is off, as it
// would take the SIGILL first; see test/zhaoxin/phe_main.cpp).
//
// Built twice: for the model's own tests (always run), and with
// HWACCEL_GFNI_MODEL_SUITE for the engine suites, which exist for CPUs
// without GFNI only: where the CPU has it, the ordinary suites already run
// the engine natively, so they report a skip (exit 77) and run nothing.
// Both link hwaccel_catch_session_no_signals (test/catch_session.cpp).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "catch_session.hpp"
#include "gfni_model.hpp"

int main(int argc, char* argv[]) {
#ifdef HWACCEL_GFNI_MODEL_SUITE
    if (hwaccel::test::gfni::cpu_has_gfni_natively()) {
        std::printf("skipped: this CPU has GFNI, so the ordinary suites run gfni-avx2 natively; "
                    "this suite is for CPUs without it (the instruction model)\n");
        return 77;
    }
    if (!hwaccel::test::gfni::cpu_has_avx_natively()) {
        std::printf("skipped: no AVX (ymm state) on this CPU: gfni-avx2 cannot run even under the model\n");
        return 77;
    }
#endif
    hwaccel::test::gfni::install();
    // The engine manifest (support/engine_manifest.hpp): what the suites
    // record for gfni-avx2 here ran under the model, not natively.
    if (hwaccel::test::gfni::model_active()) {
        const char* models = std::getenv("HWACCEL_ENGINE_MANIFEST_MODELS");
        std::string all = models && *models ? std::string(models) + ";" : "";
        // Under qemu (the *_qemu ctest entries) the manifest says that too.
        const char* how = std::getenv("HWACCEL_ENGINE_MANIFEST_HOW");
        const std::string where = how && *how ? std::string(", ") + how : "";
        setenv("HWACCEL_ENGINE_MANIFEST_MODELS",
               (all + "gfni-avx2=GFNI SIGILL instruction model" + where).c_str(), 1);
    }
    const int result = hwaccel::test::run_catch_session(argc, argv);
    if (hwaccel::test::gfni::model_active()) {
        const auto c = hwaccel::test::gfni::counters();
        std::printf("gfni model: %llu instructions performed (%llu affine, %llu affine-inverse; "
                    "%llu ymm, %llu with a memory operand)\n",
                    static_cast<unsigned long long>(c.affine + c.affine_inverse),
                    static_cast<unsigned long long>(c.affine),
                    static_cast<unsigned long long>(c.affine_inverse),
                    static_cast<unsigned long long>(c.ymm),
                    static_cast<unsigned long long>(c.memory_operand));
    }
    return result;
}
