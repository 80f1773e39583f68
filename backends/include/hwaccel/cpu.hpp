// What the CPU offers, detected once per process.
#pragma once

#include <string>

namespace hwaccel {

struct CpuFeatures {
    // x86-64 (CPUID leaf 1, 7; XGETBV for the OS's AVX state)
    bool sse41 = false;
    bool ssse3 = false;
    bool avx = false;
    bool avx2 = false;
    bool bmi1 = false;
    bool bmi2 = false;
    bool aesni = false;
    bool vaes = false;
    bool sha_ni = false;
    bool gfni = false;  // GF2P8AFFINE(INV)QB; VEX-encoded ymm forms need avx too
    bool pclmulqdq = false;   // carry-less multiply, xmm (CPUID 1 ECX bit 1)
    bool vpclmulqdq = false;  // its ymm/zmm forms (CPUID 7 ECX bit 10), with AVX state only
    // AVX-512 foundation, vector length (ymm/xmm forms), byte/word and
    // dword/qword extensions; each only when the OS saves the zmm state
    // (XCR0 bits 5-7).
    bool avx512f = false;
    bool avx512vl = false;
    bool avx512bw = false;
    bool avx512dq = false;
    // ... and known to run x86-avx512's Keccak (one lane per xmm register)
    // faster than the scalar x86-bmi2 code: AMD cores with AVX-512F/VL (Zen 4
    // 1.20-1.25x; on Intel Emerald Rapids, three vector pipes against five
    // integer ones, 0.93-0.98x; other Intel cores unmeasured). Only then the
    // registry picks x86-avx512 by itself.
    bool avx512_keccak_fast = false;
    // Zhaoxin/Centaur PadLock Hash Engine (leaf 0xC0000001 EDX bits 10/11)
    bool phe = false;
    // IBM Z CPACF function codes (KIMD/KLMD query bitmaps)
    bool cpacf_sha1 = false;
    bool cpacf_sha256 = false;
    bool cpacf_sha3 = false;
    bool cpacf_shake = false;
    bool cpacf_ghash = false;  // KIMD-GHASH (code 65, MSA 4)
    // arm64 (getauxval(AT_HWCAP)); each also requires ASIMD, which every
    // engine here uses for its registers.
    bool arm_sha1 = false;    // SHA1C/P/M/H, SHA1SU0/SU1 (HWCAP_SHA1)
    bool arm_sha256 = false;  // SHA256H/H2, SHA256SU0/SU1 (HWCAP_SHA2)
    bool arm_sha3 = false;    // EOR3, RAX1, XAR, BCAX (HWCAP_SHA3)
    // ... and known to beat scalar Keccak on this core (Apple, by MIDR_EL1):
    // only then the registry picks arm64-sha3 by itself.
    bool arm_sha3_fast = false;
    bool arm_sm4 = false;     // SM4E, SM4EKEY (HWCAP_SM4)
    bool arm_pmull = false;   // PMULL/PMULL2 on 64-bit lanes (HWCAP_PMULL)
};

// The features of the running CPU, detected on first use (thread-safe).
const CpuFeatures& cpu_features();

// Whether this CPU has xmm16-31 (AVX-512F, with the OS saving their state):
// the CPU's own answer, never a test build's adjusted one, for
// clear_vector_registers() (which declares it itself, to stay light).
bool cpu_has_xmm16_31();

// "sha_ni aesni avx2 ..." for humans.
std::string describe(const CpuFeatures& f);

// Applies "+name,-name,..." (names as describe() prints them) to a feature
// set: tests use it to mask features ("-sha_ni") and, in test builds only,
// to claim features for instruction models ("+phe"). Returns false with a
// message for an unknown name; `features` is then unchanged.
bool adjust_features(CpuFeatures& features, const char* spec, std::string& error);

}  // namespace hwaccel
