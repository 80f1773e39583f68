#include "zhaoxin/phe_detect.hpp"

#include <cstring>

namespace hwaccel::zhaoxin {
namespace {

bool vendor_is(const CpuidVendor& v, const char (&name)[13]) {
    char got[12];
    std::memcpy(got, &v.ebx, 4);
    std::memcpy(got + 4, &v.edx, 4);
    std::memcpy(got + 8, &v.ecx, 4);
    return std::memcmp(got, name, 12) == 0;
}

constexpr uint32_t kCentaurLeafBase = 0xC0000000u;
constexpr uint32_t kCentaurFeatureLeaf = 0xC0000001u;
constexpr uint32_t kPhe = 1u << 10;    // XSHA1/XSHA256 present
constexpr uint32_t kPheEn = 1u << 11;  // ... and enabled

}  // namespace

bool is_centaur_vendor(const CpuidVendor& vendor) {
    return vendor_is(vendor, "CentaurHauls") || vendor_is(vendor, "  Shanghai  ");
}

unsigned cpu_family(uint32_t leaf1_eax) {
    unsigned family = (leaf1_eax >> 8) & 0xf;
    if (family == 0xf) family += (leaf1_eax >> 20) & 0xff;
    return family;
}

bool phe_usable(const CpuidVendor& vendor, uint32_t leaf1_eax, uint32_t max_centaur_leaf,
                uint32_t leaf_c0000001_edx) {
    if (!is_centaur_vendor(vendor)) return false;
    // A CPU without the Centaur range answers with unrelated values; only a
    // maximum inside 0xC000xxxx that reaches the feature leaf counts.
    if ((max_centaur_leaf & 0xffff0000u) != kCentaurLeafBase ||
        max_centaur_leaf < kCentaurFeatureLeaf)
        return false;
    // PHE alone means "present"; PHE_EN means "enabled" (the BIOS may disable it).
    if ((leaf_c0000001_edx & (kPhe | kPheEn)) != (kPhe | kPheEn)) return false;
    return cpu_family(leaf1_eax) >= 7;
}

}  // namespace hwaccel::zhaoxin
