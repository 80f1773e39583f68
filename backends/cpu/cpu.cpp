#include "hwaccel/cpu.hpp"

#include <cstdlib>

#include "cpu/detect.hpp"

namespace hwaccel {
namespace {

struct FeatureName {
    const char* name;
    bool CpuFeatures::*flag;
};

// One table for printing and for the test-only adjustments.
constexpr FeatureName kFeatureNames[] = {
    {"ssse3", &CpuFeatures::ssse3},
    {"sse4.1", &CpuFeatures::sse41},
    {"avx", &CpuFeatures::avx},
    {"avx2", &CpuFeatures::avx2},
    {"bmi1", &CpuFeatures::bmi1},
    {"bmi2", &CpuFeatures::bmi2},
    {"aesni", &CpuFeatures::aesni},
    {"vaes", &CpuFeatures::vaes},
    {"sha_ni", &CpuFeatures::sha_ni},
    {"gfni", &CpuFeatures::gfni},
    {"pclmulqdq", &CpuFeatures::pclmulqdq},
    {"vpclmulqdq", &CpuFeatures::vpclmulqdq},
    {"avx512f", &CpuFeatures::avx512f},
    {"avx512vl", &CpuFeatures::avx512vl},
    {"avx512bw", &CpuFeatures::avx512bw},
    {"avx512dq", &CpuFeatures::avx512dq},
    {"avx512-keccak-fast", &CpuFeatures::avx512_keccak_fast},
    {"phe", &CpuFeatures::phe},
    {"cpacf-sha1", &CpuFeatures::cpacf_sha1},
    {"cpacf-sha256", &CpuFeatures::cpacf_sha256},
    {"cpacf-sha3", &CpuFeatures::cpacf_sha3},
    {"cpacf-shake", &CpuFeatures::cpacf_shake},
    {"cpacf-ghash", &CpuFeatures::cpacf_ghash},
    {"arm-sha1", &CpuFeatures::arm_sha1},
    {"arm-sha256", &CpuFeatures::arm_sha256},
    {"arm-sha3", &CpuFeatures::arm_sha3},
    {"arm-sha3-fast", &CpuFeatures::arm_sha3_fast},
    {"arm-sm4", &CpuFeatures::arm_sm4},
    {"arm-pmull", &CpuFeatures::arm_pmull},
};

// The CPU's own features and, in test builds, the ones the engines are
// chosen by: detected once per process, CPUID being slow under a hypervisor
// (about 7 us a call on the development VM).
struct Detected {
    CpuFeatures real;
    CpuFeatures served;
};

Detected detect_once() {
    Detected d;
    d.real = detect_cpu();
    d.served = d.real;
#ifdef HWACCEL_TESTING
    // Test builds only (hwaccel_backends_testing): lets a test process claim
    // features this CPU lacks, to run an engine under an instruction model,
    // or hide features it has. Production builds never read this.
    std::string error;
    if (!adjust_features(d.served, secure_getenv("HWACCEL_TEST_CPU"), error)) std::abort();
#endif
    return d;
}

const Detected& detected() {
    // A function-local static: detected once, thread-safely, on first use.
    static const Detected d = detect_once();
    return d;
}

}  // namespace

const CpuFeatures& cpu_features() { return detected().served; }

bool cpu_has_xmm16_31() { return detected().real.avx512f; }

bool adjust_features(CpuFeatures& features, const char* spec, std::string& error) {
    if (spec == nullptr) return true;
    CpuFeatures result = features;
    std::string all(spec);
    size_t pos = 0;
    while (pos < all.size()) {
        size_t comma = all.find(',', pos);
        if (comma == std::string::npos) comma = all.size();
        std::string item = all.substr(pos, comma - pos);
        pos = comma + 1;
        if (item.empty()) continue;
        const char sign = item[0];
        const std::string name = item.substr(1);
        const FeatureName* found = nullptr;
        for (const FeatureName& f : kFeatureNames)
            if (name == f.name) found = &f;
        if ((sign != '+' && sign != '-') || found == nullptr) {
            error = "bad feature adjustment '" + item + "' (want +name or -name)";
            return false;
        }
        result.*(found->flag) = sign == '+';
    }
    features = result;
    return true;
}

std::string describe(const CpuFeatures& f) {
    std::string out;
    for (const FeatureName& name : kFeatureNames) {
        if (!(f.*(name.flag))) continue;
        if (!out.empty()) out += ' ';
        out += name.name;
    }
    return out.empty() ? "(none used by hwaccel)" : out;
}

}  // namespace hwaccel
