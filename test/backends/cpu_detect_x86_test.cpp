// x86-64 detection against the kernel's view: every feature hwaccel detects
// must agree with the matching flag of /proc/cpuinfo (the kernel also clears
// AVX-family flags when the OS does not save their registers, as
// detect_x86.cpp does with XGETBV). Production detection is checked
// (detect_cpu, not the test-adjustable cpu_features). Under an emulator
// whose CPUID is not the host's (test/cpu_sets/: qemu-x86_64 -cpu ...),
// HWACCEL_EXPECTED_CPU_FLAGS gives the flags of the emulated CPU instead.
#include <catch2/catch.hpp>

#if defined(__x86_64__) && defined(__linux__)
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "cpu/detect.hpp"  // backend internals (hwaccel_backend_internals)
#include "hwaccel/cpu.hpp"

namespace {

std::set<std::string> words_of(const std::string& text) {
    std::istringstream words(text);
    std::set<std::string> out;
    for (std::string w; words >> w;) out.insert(w);
    return out;
}

// The "flags" line of the first processor, or empty if unreadable.
std::set<std::string> kernel_flags() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("flags", 0) != 0) continue;
        return words_of(line.substr(line.find(':') + 1));
    }
    return {};
}

// The value of the first processor's FIELD ("vendor_id"), or empty.
std::string kernel_field(const std::string& field) {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(field, 0) != 0) continue;
        const std::set<std::string> words = words_of(line.substr(line.find(':') + 1));
        return words.size() == 1 ? *words.begin() : std::string();
    }
    return {};
}

}  // namespace

TEST_CASE("x86 detection: each feature agrees with /proc/cpuinfo", "[cpu][detect]") {
    const char* emulated = std::getenv("HWACCEL_EXPECTED_CPU_FLAGS");
    INFO("flags of " << (emulated ? std::string("the emulated CPU: ") + emulated : std::string("/proc/cpuinfo")));
    const std::set<std::string> flags = emulated ? words_of(emulated) : kernel_flags();
    if (flags.empty() && !emulated) {
        WARN("no /proc/cpuinfo flags: nothing to compare");
        return;
    }
    const hwaccel::CpuFeatures f = hwaccel::detect_cpu();
    const struct {
        const char* kernel_name;
        bool detected;
    } features[] = {
        {"ssse3", f.ssse3},         {"sse4_1", f.sse41},       {"avx", f.avx},
        {"avx2", f.avx2},           {"bmi1", f.bmi1},          {"bmi2", f.bmi2},
        {"aes", f.aesni},           {"vaes", f.vaes},          {"sha_ni", f.sha_ni},
        {"gfni", f.gfni},           {"avx512f", f.avx512f},    {"avx512vl", f.avx512vl},
        {"avx512bw", f.avx512bw},   {"avx512dq", f.avx512dq},  {"pclmulqdq", f.pclmulqdq},
        {"vpclmulqdq", f.vpclmulqdq},
    };
    for (const auto& feature : features) {
        INFO(feature.kernel_name);
        CHECK(feature.detected == (flags.count(feature.kernel_name) == 1));
    }
    // The registry's preference for AVX-512 Keccak follows the vendor: AMD
    // with AVX-512F/VL only (an emulator's vendor is its own: not checked).
    if (!emulated) {
        const bool amd = kernel_field("vendor_id") == "AuthenticAMD";
        INFO("vendor_id " << kernel_field("vendor_id"));
        CHECK(f.avx512_keccak_fast == (amd && flags.count("avx512f") == 1 && flags.count("avx512vl") == 1));
    } else {
        CHECK((!f.avx512_keccak_fast || f.avx512vl));
    }
}
#endif
