// arm64 detection from synthetic AT_HWCAP and MIDR_EL1 values (each qemu -cpu model or
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
    const unsigned long all = kHwcapAsimd | kHwcapSha1 | kHwcapSha2 | kHwcapSha3 | kHwcapSm4 | kHwcapPmull;
    CHECK(describe(features_from_hwcap(all)) == "arm-sha1 arm-sha256 arm-sha3 arm-sm4 arm-pmull");
    CHECK(describe(features_from_hwcap(kHwcapAsimd | kHwcapSha1)) == "arm-sha1");
    CHECK(describe(features_from_hwcap(kHwcapAsimd | kHwcapSha2)) == "arm-sha256");
    CHECK(describe(features_from_hwcap(kHwcapAsimd | kHwcapSha3)) == "arm-sha3");
    CHECK(describe(features_from_hwcap(kHwcapAsimd | kHwcapSm4)) == "arm-sm4");
    CHECK(describe(features_from_hwcap(kHwcapAsimd | kHwcapPmull)) == "arm-pmull");
    // PMULL's neighbour AES (the same ID field, but its own bit) does not count.
    CHECK(describe(features_from_hwcap(kHwcapAsimd | kHwcapAes)) == "(none used by hwaccel)");
    // A Cortex-A72-like word: FP, ASIMD, AES, PMULL, SHA1, SHA2, CRC32, CPUID.
    CHECK(describe(features_from_hwcap(0x8fful)) == "arm-sha1 arm-sha256 arm-pmull");
    // Without ASIMD the extensions' registers are not there to use.
    CHECK(describe(features_from_hwcap(all & ~kHwcapAsimd)) == "(none used by hwaccel)");
    // SHA-512 and SM3 sit next to SHA-3 and SM4: they must not count.
    CHECK(describe(features_from_hwcap(kHwcapAsimd | kHwcapSha512 | kHwcapSm3)) ==
          "(none used by hwaccel)");
    CHECK(describe(features_from_hwcap(~0ul & ~(kHwcapSha1 | kHwcapSha2 | kHwcapSha3 | kHwcapSm4 | kHwcapPmull))) ==
          "(none used by hwaccel)");
}

// MIDR_EL1 values (implementer 31:24, variant 23:20, architecture 19:16,
// part 15:4, revision 3:0), parts from the kernel's asm/cputype.h.
constexpr uint64_t kMidrAppleM1Firestorm = 0x611f0231;  // Apple 0x61, part 0x023
constexpr uint64_t kMidrNeoverseV2 = 0x410fd4f1;       // Arm 0x41, part 0xd4f
constexpr uint64_t kMidrNeoverseV1 = 0x411fd401;       // Arm 0x41, part 0xd40
constexpr uint64_t kMidrQemuMax = 0x000f0510;          // what qemu-aarch64 7.2 -cpu max reads

TEST_CASE("arm64 detection: arm-sha3-fast only with SHA-3 on an Apple core, MIDR read by HWCAP_CPUID",
          "[arm64][detect]") {
    const unsigned long sha3 = kHwcapAsimd | kHwcapSha3 | kHwcapCpuid;
    CHECK(midr_implementer(kMidrAppleM1Firestorm) == kImplementerApple);
    CHECK(midr_implementer(kMidrNeoverseV2) == kImplementerArm);
    CHECK(describe(features_from_hwcap(sha3, kMidrAppleM1Firestorm)) == "arm-sha3 arm-sha3-fast");
    // Neoverse V1/V2 have SHA-3, slower than scalar code there.
    CHECK(describe(features_from_hwcap(sha3, kMidrNeoverseV2)) == "arm-sha3");
    CHECK(describe(features_from_hwcap(sha3, kMidrNeoverseV1)) == "arm-sha3");
    CHECK(describe(features_from_hwcap(sha3, kMidrQemuMax)) == "arm-sha3");
    CHECK(describe(features_from_hwcap(sha3, 0)) == "arm-sha3");
    // Without HWCAP_CPUID no MIDR was read from the core: not trusted.
    CHECK(describe(features_from_hwcap(sha3 & ~kHwcapCpuid, kMidrAppleM1Firestorm)) == "arm-sha3");
    // An Apple core without SHA-3 (or without ASIMD) has nothing to be fast at.
    CHECK(describe(features_from_hwcap(kHwcapAsimd | kHwcapCpuid, kMidrAppleM1Firestorm)) ==
          "(none used by hwaccel)");
    CHECK(describe(features_from_hwcap(sha3 & ~kHwcapAsimd, kMidrAppleM1Firestorm)) ==
          "(none used by hwaccel)");
    // Other fields of an Apple MIDR do not matter; other implementers' do not help.
    CHECK(features_from_hwcap(sha3, 0x61000000).arm_sha3_fast);
    CHECK_FALSE(features_from_hwcap(sha3, 0x60ffffff).arm_sha3_fast);
    CHECK_FALSE(features_from_hwcap(sha3, 0x62000000).arm_sha3_fast);
    CHECK_FALSE(features_from_hwcap(sha3, 0x00000061).arm_sha3_fast);
    CHECK_FALSE(features_from_hwcap(sha3, 0x6100000000ull).arm_sha3_fast);
}

TEST_CASE("arm64 detection: this process's features are the kernel's AT_HWCAP word and MIDR_EL1",
          "[arm64][detect]") {
    const unsigned long hwcap = getauxval(AT_HWCAP);
    uint64_t midr = 0;
    if (hwcap & kHwcapCpuid) asm volatile("mrs %0, MIDR_EL1" : "=r"(midr));
    INFO("AT_HWCAP 0x" << std::hex << hwcap << ", MIDR_EL1 0x" << midr);
    CHECK(describe(detect_cpu()) == describe(features_from_hwcap(hwcap, midr)));
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
