#include "hwaccel/cpu.hpp"

#include "cpu/detect.hpp"

namespace hwaccel {

const CpuFeatures& cpu_features() {
    // A function-local static: detected once, thread-safely, on first use.
    static const CpuFeatures features = detect_cpu();
    return features;
}

std::string describe(const CpuFeatures& f) {
    std::string out;
    auto add = [&out](bool present, const char* name) {
        if (!present) return;
        if (!out.empty()) out += ' ';
        out += name;
    };
    add(f.ssse3, "ssse3");
    add(f.sse41, "sse4.1");
    add(f.avx, "avx");
    add(f.avx2, "avx2");
    add(f.bmi1, "bmi1");
    add(f.bmi2, "bmi2");
    add(f.aesni, "aesni");
    add(f.vaes, "vaes");
    add(f.sha_ni, "sha_ni");
    add(f.phe, "phe");
    add(f.cpacf_sha1, "cpacf-sha1");
    add(f.cpacf_sha256, "cpacf-sha256");
    add(f.cpacf_sha3, "cpacf-sha3");
    add(f.cpacf_shake, "cpacf-shake");
    return out.empty() ? "(none used by hwaccel)" : out;
}

}  // namespace hwaccel
