// hwaccel-engines: which engines this build has, which this CPU can run, and
// which one serves each algorithm family (after HWACCEL_ENGINES, if set).
// The provider reports the same through its "engines" and "buildinfo"
// parameters (`openssl list -providers -verbose`).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "hwaccel/registry.hpp"
#include "hwaccel/selftest.hpp"

namespace {

template <class Engine>
void print_family(const char* family, const char* algorithms, hwaccel::EngineList<Engine> list,
                  const Engine* chosen, const hwaccel::CpuFeatures& cpu) {
    std::printf("%-7s (%s)\n", family, algorithms);
    for (const Engine* e : list) {
        const char* mark = e == chosen ? "*" : " ";
        if (!e->available(cpu)) {
            std::printf("  %s %-14s not supported by this CPU\n", mark, e->name);
            continue;
        }
        // The provider's self-test at load, run here on every engine the CPU has.
        const std::string failure = hwaccel::self_test(*e);
        if (failure.empty())
            std::printf("  %s %-14s available\n", mark, e->name);
        else
            std::printf("  %s %-14s FAILED its self-test: %s\n", mark, e->name, failure.c_str());
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0)) {
        std::printf(
            "usage: hwaccel-engines\n"
            "Lists the engines per algorithm family; * marks the one hwaccel uses.\n"
            "Every engine this CPU runs is self-tested as the provider does at load:\n"
            "\"available\" means it runs here and passed; one that fails is marked\n"
            "and not used.\n"
            "HWACCEL_ENGINES (same syntax as the provider config key `engines`),\n"
            "e.g. HWACCEL_ENGINES=sha256=generic,sm4=generic or all=generic, is applied.\n");
        return 0;
    }
    const hwaccel::CpuFeatures& cpu = hwaccel::cpu_features();
    hwaccel::Selection sel = hwaccel::best_selection(cpu);
    const char* spec = secure_getenv("HWACCEL_ENGINES");
    std::string error;
    hwaccel::Forced forced;
    if (!hwaccel::apply_overrides(sel, spec, cpu, error, &forced)) {
        std::fprintf(stderr, "hwaccel-engines: HWACCEL_ENGINES=\"%s\": %s\n", spec, error.c_str());
        return 2;
    }
    hwaccel::SelfTestNotes notes;
    const bool passed = hwaccel::apply_self_tests(sel, forced, cpu, notes, error);
    std::printf("cpu features: %s\n", hwaccel::describe(cpu).c_str());
    if (spec != nullptr && *spec != '\0') std::printf("HWACCEL_ENGINES=%s\n", spec);
    print_family("sha1", "SHA-1", hwaccel::sha1_engines(), sel.sha1, cpu);
    print_family("sha256", "SHA-224, SHA-256", hwaccel::sha256_engines(), sel.sha256, cpu);
    print_family("sha3", "SHA3-224/256/384/512, SHAKE128/256", hwaccel::keccak_engines(),
                 sel.keccak, cpu);
    print_family("sm4", "SM4-ECB/CBC/CFB/OFB/CTR", hwaccel::sm4_engines(), sel.sm4, cpu);
    if (!passed) {
        std::printf("selection: none, the provider would not load: %s\n", error.c_str());
        return 1;
    }
    std::printf("selection: %s\n", hwaccel::describe(sel, notes).c_str());
    return 0;
}
