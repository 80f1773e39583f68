// arm64 detection from synthetic AT_HWCAP values (each qemu -cpu model or
// real core reports only its own), this process's detection against the
// kernel's word, and the registry's choice as a run expects it.
#include <catch2/catch.hpp>

#include <sys/auxv.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "cpu/detect.hpp"
#include "cpu/detect_arm64.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/registry.hpp"

using namespace hwaccel;
using namespace hwaccel::arm64;

TEST_CASE("arm64 detection: each extension with ASIMD, nothing from other bits",
          "[arm64][detect]") {
    const unsigned long all = kHwcapAsimd | kHwcapSha1 | kHwcapSha2 | kHwcapSha3 | kHwcapSm4;
    CHECK(describe(features_from_hwcap(all)) == "arm-sha1 arm-sha256 arm-sha3 arm-sm4");
    CHECK(describe(features_from_hwcap(kHwcapAsimd | kHwcapSha1)) == "arm-sha1");
    CHECK(describe(features_from_hwcap(kHwcapAsimd | kHwcapSha2)) == "arm-sha256");
    CHECK(describe(features_from_hwcap(kHwcapAsimd | kHwcapSha3)) == "arm-sha3");
    CHECK(describe(features_from_hwcap(kHwcapAsimd | kHwcapSm4)) == "arm-sm4");
    // A Cortex-A72-like word: FP, ASIMD, AES, PMULL, SHA1, SHA2, CRC32, CPUID.
    CHECK(describe(features_from_hwcap(0x8fful)) == "arm-sha1 arm-sha256");
    // Without ASIMD the extensions' registers are not there to use.
    CHECK(describe(features_from_hwcap(all & ~kHwcapAsimd)) == "(none used by hwaccel)");
    // SHA-512 and SM3 sit next to SHA-3 and SM4: they must not count.
    CHECK(describe(features_from_hwcap(kHwcapAsimd | kHwcapSha512 | kHwcapSm3)) ==
          "(none used by hwaccel)");
    CHECK(describe(features_from_hwcap(~0ul & ~(kHwcapSha1 | kHwcapSha2 | kHwcapSha3 | kHwcapSm4))) ==
          "(none used by hwaccel)");
}

TEST_CASE("arm64 detection: this process's features are the kernel's AT_HWCAP word",
          "[arm64][detect]") {
    const unsigned long hwcap = getauxval(AT_HWCAP);
    INFO("AT_HWCAP 0x" << std::hex << hwcap);
    CHECK(describe(detect_cpu()) == describe(features_from_hwcap(hwcap)));
}

// The engines a run expects, from the cross script (so that a -cpu model
// without an extension proves the choice falls back):
//   HWACCEL_TEST_EXPECT_ENGINES="sha1=arm64-ce,sha3=generic,sm4=generic"
// Each named family must hold that engine in the registry's choice for this
// process's features; families not named are not checked.
TEST_CASE("arm64 choice: the registry picks the engines this run expects", "[arm64][choice]") {
    const char* expect = std::getenv("HWACCEL_TEST_EXPECT_ENGINES");
    if (expect == nullptr) {
        WARN("HWACCEL_TEST_EXPECT_ENGINES not set: no expectation to check");
        return;
    }
    const std::string chosen = "," + describe(best_selection(cpu_features())) + ",";
    INFO("features " << describe(cpu_features()) << "; chosen " << chosen);
    std::istringstream items(expect);
    int checked = 0;
    for (std::string item; std::getline(items, item, ',');) {
        if (item.empty()) continue;
        INFO("expected " << item);
        CHECK(chosen.find("," + item + ",") != std::string::npos);
        ++checked;
    }
    CHECK(checked > 0);
}
