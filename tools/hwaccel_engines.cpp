// hwaccel-engines: which engines this build has, which this CPU can run, and
// which one serves each algorithm family (after HWACCEL_ENGINES, if set).
// The provider reports the same through its "engines" and "buildinfo"
// parameters (`openssl list -providers -verbose`).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "hwaccel/registry.hpp"

namespace {

void print_family(const hwaccel::EngineFamily& f, const hwaccel::Selection& sel,
                  const hwaccel::CpuFeatures& cpu) {
    std::printf("%-7s (%s)\n", f.name, f.algorithms);
    const size_t chosen = f.chosen(sel);
    for (size_t i = 0; i < f.count(); ++i) {
        const char* mark = i == chosen ? "*" : " ";
        const char* name = f.engine_name(i);
        if (!f.available(i, cpu)) {
            std::printf("  %s %-14s not supported by this CPU\n", mark, name);
            continue;
        }
        // The provider's self-test at load, run here on every engine the CPU has.
        const std::string failure = f.self_test(i);
        if (failure.empty())
            std::printf("  %s %-14s available\n", mark, name);
        else
            std::printf("  %s %-14s FAILED its self-test: %s\n", mark, name, failure.c_str());
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
    for (const hwaccel::EngineFamily& f : hwaccel::engine_families()) print_family(f, sel, cpu);
    if (!passed) {
        std::printf("selection: none, the provider would not load: %s\n", error.c_str());
        return 1;
    }
    std::printf("selection: %s\n", hwaccel::describe(sel, notes).c_str());
    return 0;
}
