// arm64 feature detection from the kernel's AT_HWCAP word, as a pure function
// so tests can feed it synthetic values (qemu and real cores report only
// their own).
#pragma once

#include "hwaccel/cpu.hpp"

namespace hwaccel::arm64 {

// AT_HWCAP bits, from the kernel's arch/arm64/include/uapi/asm/hwcap.h
// (glibc's <sys/auxv.h> has them only on arm64 hosts; these are the ABI).
constexpr unsigned long kHwcapAsimd = 1ul << 1;
constexpr unsigned long kHwcapSha1 = 1ul << 5;
constexpr unsigned long kHwcapSha2 = 1ul << 6;
constexpr unsigned long kHwcapSha3 = 1ul << 17;
constexpr unsigned long kHwcapSm4 = 1ul << 19;
// Not used by hwaccel; named for the tests (neighbours that must not count).
constexpr unsigned long kHwcapSm3 = 1ul << 18;
constexpr unsigned long kHwcapSha512 = 1ul << 21;

// The features hwaccel uses, from an AT_HWCAP value. Each needs ASIMD too:
// the engines keep their state in its registers.
CpuFeatures features_from_hwcap(unsigned long hwcap);

}  // namespace hwaccel::arm64
