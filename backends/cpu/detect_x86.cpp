// x86-64 feature detection with CPUID and XGETBV.
#include <cpuid.h>

#include <cstdint>

#include "cpu/detect.hpp"
#include "zhaoxin/phe_detect.hpp"

namespace hwaccel {
namespace {

struct Regs {
    uint32_t a = 0, b = 0, c = 0, d = 0;
};

Regs cpuid(uint32_t leaf, uint32_t subleaf = 0) {
    Regs r;
    __cpuid_count(leaf, subleaf, r.a, r.b, r.c, r.d);
    return r;
}

bool bit(uint32_t word, int n) { return (word >> n) & 1u; }

// CPUID leaf 0's vendor string "AuthenticAMD", as <cpuid.h> spells it.
bool is_amd(const Regs& l0) {
    return l0.b == signature_AMD_ebx && l0.d == signature_AMD_edx && l0.c == signature_AMD_ecx;
}

uint32_t xcr0() {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return lo;
}
// XCR0 bits 1 (SSE) and 2 (AVX): the OS saves ymm registers on context switch.
bool os_saves_ymm() { return (xcr0() & 0x6u) == 0x6u; }
// Plus bits 5-7 (opmask, upper halves of zmm0-15, zmm16-31).
bool os_saves_zmm() { return (xcr0() & 0xE6u) == 0xE6u; }

}  // namespace

CpuFeatures detect_cpu() {
    CpuFeatures f;
    const Regs l0 = cpuid(0);
    const uint32_t max_leaf = l0.a;
    if (max_leaf < 1) return f;
    const Regs l1 = cpuid(1);
    f.pclmulqdq = bit(l1.c, 1);
    f.ssse3 = bit(l1.c, 9);
    f.sse41 = bit(l1.c, 19);
    f.aesni = bit(l1.c, 25);
    const bool ymm_ok = bit(l1.c, 27) /* OSXSAVE */ && os_saves_ymm();
    f.avx = bit(l1.c, 28) && ymm_ok;
    if (max_leaf >= 7) {
        const Regs l7 = cpuid(7, 0);
        f.bmi1 = bit(l7.b, 3);
        f.avx2 = bit(l7.b, 5) && f.avx;
        f.bmi2 = bit(l7.b, 8);
        f.sha_ni = bit(l7.b, 29);
        f.vaes = bit(l7.c, 9) && f.avx;
        // GFNI's legacy-SSE form needs no OS support; hwaccel uses the VEX
        // and EVEX forms, so it is reported with AVX state only.
        f.gfni = bit(l7.c, 8) && f.avx;
        // Like VAES: VEX/EVEX only, so reported with AVX state only.
        f.vpclmulqdq = bit(l7.c, 10) && f.avx;
        const bool zmm_ok = ymm_ok && os_saves_zmm();
        f.avx512f = bit(l7.b, 16) && zmm_ok;
        f.avx512dq = bit(l7.b, 17) && f.avx512f;
        f.avx512bw = bit(l7.b, 30) && f.avx512f;
        f.avx512vl = bit(l7.b, 31) && f.avx512f;
        // Measured, not derived: see avx512_keccak_fast in cpu.hpp.
        f.avx512_keccak_fast = is_amd(l0) && f.avx512vl;
    }
    // Zhaoxin PHE: the vendor, leaf and family rules live in phe_usable(),
    // which the tests feed with synthetic values.
    const zhaoxin::CpuidVendor vendor{l0.b, l0.d, l0.c};
    if (zhaoxin::is_centaur_vendor(vendor)) {
        const uint32_t max_centaur = cpuid(0xC0000000u).a;
        const uint32_t centaur_edx = max_centaur >= 0xC0000001u ? cpuid(0xC0000001u).d : 0;
        f.phe = zhaoxin::phe_usable(vendor, l1.a, max_centaur, centaur_edx);
    }
    return f;
}

}  // namespace hwaccel
