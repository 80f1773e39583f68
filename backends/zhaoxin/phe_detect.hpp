// Whether the Zhaoxin PadLock Hash Engine (rep xsha1 / rep xsha256) may be
// used, decided from raw CPUID register values only. Kept pure so the tests
// can feed it synthetic CPUID results: this machine has no Zhaoxin CPU, and
// CPUID cannot be faked for a whole process (HARDWARE.md section 7).
#pragma once

#include <cstdint>

namespace hwaccel::zhaoxin {

// CPUID leaf 0: EBX, EDX, ECX spell the vendor string in that order.
struct CpuidVendor {
    uint32_t ebx = 0, edx = 0, ecx = 0;
};

// "CentaurHauls" (VIA/Centaur, older Zhaoxin) or "  Shanghai  " (Zhaoxin).
// The leaves 0xC0000000/0xC0000001 mean something only on these CPUs.
bool is_centaur_vendor(const CpuidVendor& vendor);

// The family as the kernel computes it (x86_family()): base family, plus the
// extended family when the base family is 0xF.
unsigned cpu_family(uint32_t leaf1_eax);

// True when the PHE SHA-1/SHA-256 instructions are present and enabled:
//   - vendor Centaur or Zhaoxin,
//   - leaf 0xC0000000 EAX (max Centaur leaf) reaches 0xC0000001,
//   - leaf 0xC0000001 EDX has PHE (bit 10) and PHE_EN (bit 11) both set,
//   - family >= 7, as the kernel patch requires: on the older VIA/Nano PHE
//     (family 6) the padlock-sha self-tests fail (Debian bug #1103397).
// leaf_c0000001_edx is ignored when max_centaur_leaf < 0xC0000001.
bool phe_usable(const CpuidVendor& vendor, uint32_t leaf1_eax, uint32_t max_centaur_leaf,
                uint32_t leaf_c0000001_edx);

}  // namespace hwaccel::zhaoxin
