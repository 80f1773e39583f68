// arm64 feature detection from the kernel's AT_HWCAP word and the core's
// MIDR_EL1, as a pure function so tests can feed it synthetic values (qemu
// and real cores report only their own).
#pragma once

#include <cstdint>

#include "hwaccel/cpu.hpp"

namespace hwaccel::arm64 {

// AT_HWCAP bits, from the kernel's arch/arm64/include/uapi/asm/hwcap.h
// (glibc's <sys/auxv.h> has them only on arm64 hosts; these are the ABI).
constexpr unsigned long kHwcapAsimd = 1ul << 1;
constexpr unsigned long kHwcapPmull = 1ul << 4;
constexpr unsigned long kHwcapSha1 = 1ul << 5;
constexpr unsigned long kHwcapSha2 = 1ul << 6;
constexpr unsigned long kHwcapSha3 = 1ul << 17;
constexpr unsigned long kHwcapSm4 = 1ul << 19;
// The kernel emulates `mrs` of the ID registers (MIDR_EL1 among them) for
// user space.
constexpr unsigned long kHwcapCpuid = 1ul << 11;

// MIDR_EL1's implementer field (bits 31:24), from the Arm ARM's MIDR_EL1
// description and the kernel's arch/arm64/include/asm/cputype.h.
constexpr unsigned kImplementerArm = 0x41;
constexpr unsigned kImplementerApple = 0x61;
constexpr unsigned midr_implementer(uint64_t midr) { return (midr >> 24) & 0xff; }
// Not used by hwaccel; named for the tests (neighbours that must not count).
constexpr unsigned long kHwcapAes = 1ul << 3;
constexpr unsigned long kHwcapSm3 = 1ul << 18;
constexpr unsigned long kHwcapSha512 = 1ul << 21;

// The features hwaccel uses, from an AT_HWCAP value and, when that has
// HWCAP_CPUID, the MIDR_EL1 value read (0: not read, an unknown core). Each
// needs ASIMD too: the engines keep their state in its registers.
// arm_sha3_fast, SHA-3 worth using, holds only on Apple cores: on Arm's
// Neoverse V1/V2/N2 the SHA-3 instructions issue on a quarter to half of the
// vector pipes and Keccak with them runs about 2x slower than scalar code
// (OpenSSL 3.2+ uses them only on Apple cores too:
// ARMV8_HAVE_SHA3_AND_WORTH_USING).
CpuFeatures features_from_hwcap(unsigned long hwcap, uint64_t midr = 0);

}  // namespace hwaccel::arm64
