// arm64 feature detection: the kernel reports the crypto extensions in
// AT_HWCAP (the documented interface); which core it is comes from MIDR_EL1,
// whose `mrs` from user space traps to the kernel, which emulates it when it
// sets HWCAP_CPUID (qemu-aarch64's user mode does the same).
#include "cpu/detect_arm64.hpp"

#include <sys/auxv.h>

#include "cpu/detect.hpp"

namespace hwaccel {
namespace arm64 {

CpuFeatures features_from_hwcap(unsigned long hwcap, uint64_t midr) {
    auto has = [hwcap](unsigned long bit) { return (hwcap & bit) == bit; };
    CpuFeatures f;
    const bool asimd = has(kHwcapAsimd);
    f.arm_sha1 = asimd && has(kHwcapSha1);
    f.arm_sha256 = asimd && has(kHwcapSha2);
    f.arm_sha3 = asimd && has(kHwcapSha3);
    f.arm_sm4 = asimd && has(kHwcapSm4);
    f.arm_pmull = asimd && has(kHwcapPmull);
    // A MIDR without HWCAP_CPUID was not read from this core: ignored.
    f.arm_sha3_fast = f.arm_sha3 && has(kHwcapCpuid) && midr_implementer(midr) == kImplementerApple;
    return f;
}

}  // namespace arm64

CpuFeatures detect_cpu() {
    const unsigned long hwcap = getauxval(AT_HWCAP);
    uint64_t midr = 0;
    // Without HWCAP_CPUID the read would be an illegal instruction.
    if (hwcap & arm64::kHwcapCpuid) asm volatile("mrs %0, MIDR_EL1" : "=r"(midr));
    return arm64::features_from_hwcap(hwcap, midr);
}

}  // namespace hwaccel
