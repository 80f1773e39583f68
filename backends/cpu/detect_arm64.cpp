// arm64 feature detection: the kernel reports the crypto extensions in
// AT_HWCAP (reading the ID registers from user space traps to the kernel,
// which emulates them; HWCAP is the documented interface).
#include "cpu/detect_arm64.hpp"

#include <sys/auxv.h>

#include "cpu/detect.hpp"

namespace hwaccel {
namespace arm64 {

CpuFeatures features_from_hwcap(unsigned long hwcap) {
    auto has = [hwcap](unsigned long bit) { return (hwcap & bit) == bit; };
    CpuFeatures f;
    const bool asimd = has(kHwcapAsimd);
    f.arm_sha1 = asimd && has(kHwcapSha1);
    f.arm_sha256 = asimd && has(kHwcapSha2);
    f.arm_sha3 = asimd && has(kHwcapSha3);
    f.arm_sm4 = asimd && has(kHwcapSm4);
    return f;
}

}  // namespace arm64

CpuFeatures detect_cpu() { return arm64::features_from_hwcap(getauxval(AT_HWCAP)); }

}  // namespace hwaccel
