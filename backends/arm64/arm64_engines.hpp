// arm64 engines (ARMv8 Crypto Extensions), one file each with its -march
// flags set in backends/CMakeLists.txt; available() checks the HWCAP-derived
// features before any of their instructions runs. The registry lists them
// under #if defined(__aarch64__), best first.
#pragma once

#include "hwaccel/engines.hpp"

namespace hwaccel::arm64 {
extern const KeccakEngine keccak_sha3;  // keccak_sha3.cpp: eor3/rax1/xar/bcax (FEAT_SHA3)

extern const GhashEngine ghash_pmull;  // PMULL/PMULL2 (cpu.arm_pmull): ghash_pmull.cpp, "arm64-pmull"

extern const Sm4Engine sm4_ce;  // SM4E/SM4EKEY (cpu.arm_sm4): sm4_ce.cpp, "arm64-sm4e"

extern const Sha1Engine sha1_ce;      // sha_ce.cpp: SHA1C/P/M/H, SHA1SU0/SU1 (cpu.arm_sha1)
extern const Sha256Engine sha256_ce;  // sha_ce.cpp: SHA256H/H2, SHA256SU0/SU1 (cpu.arm_sha256)

}  // namespace hwaccel::arm64
