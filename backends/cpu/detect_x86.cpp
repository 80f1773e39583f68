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

// XCR0 bits 1 (SSE) and 2 (AVX): the OS saves ymm registers on context switch.
bool os_saves_ymm() {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0x6u) == 0x6u;
}

}  // namespace

CpuFeatures detect_cpu() {
    CpuFeatures f;
    const Regs l0 = cpuid(0);
    const uint32_t max_leaf = l0.a;
    if (max_leaf < 1) return f;
    const Regs l1 = cpuid(1);
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
