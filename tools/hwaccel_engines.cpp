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

template <class Engine>
void print_family(const char* family, const char* algorithms, hwaccel::EngineList<Engine> list,
                  const Engine* chosen, const hwaccel::CpuFeatures& cpu) {
    std::printf("%-7s (%s)\n", family, algorithms);
    for (const Engine* e : list) {
        const char* mark = e == chosen ? "*" : " ";
        std::printf("  %s %-14s %s\n", mark, e->name,
                    e->available(cpu) ? "available" : "not supported by this CPU");
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0)) {
        std::printf(
            "usage: hwaccel-engines\n"
            "Lists the engines per algorithm family; * marks the one hwaccel uses.\n"
            "HWACCEL_ENGINES (same syntax as the provider config key `engines`),\n"
            "e.g. HWACCEL_ENGINES=sha256=generic,sm4=generic or all=generic, is applied.\n");
        return 0;
    }
    const hwaccel::CpuFeatures& cpu = hwaccel::cpu_features();
    hwaccel::Selection sel = hwaccel::best_selection(cpu);
    const char* spec = std::getenv("HWACCEL_ENGINES");
    std::string error;
    if (!hwaccel::apply_overrides(sel, spec, cpu, error)) {
        std::fprintf(stderr, "hwaccel-engines: HWACCEL_ENGINES=\"%s\": %s\n", spec, error.c_str());
        return 2;
    }
    std::printf("cpu features: %s\n", hwaccel::describe(cpu).c_str());
    if (spec != nullptr && *spec != '\0') std::printf("HWACCEL_ENGINES=%s\n", spec);
    print_family("sha1", "SHA-1", hwaccel::sha1_engines(), sel.sha1, cpu);
    print_family("sha256", "SHA-224, SHA-256", hwaccel::sha256_engines(), sel.sha256, cpu);
    print_family("sha3", "SHA3-224/256/384/512, SHAKE128/256", hwaccel::keccak_engines(),
                 sel.keccak, cpu);
    print_family("sm4", "SM4-ECB/CBC/CFB/OFB/CTR", hwaccel::sm4_engines(), sel.sm4, cpu);
    std::printf("selection: %s\n", hwaccel::describe(sel).c_str());
    return 0;
}
