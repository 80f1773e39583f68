// PHE detection from synthetic CPUID values (CPUID cannot be faked for a
// process on this machine: HARDWARE.md section 7), the registry's priority
// with synthetic feature sets, and refusals of a forced PHE engine. Linked
// against the production backends: nothing here executes a PHE instruction.
#include <catch2/catch.hpp>

#include <cpuid.h>

#include <cstring>
#include <string>

#include "cpu/detect.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/registry.hpp"
#include "zhaoxin/phe_detect.hpp"

using namespace hwaccel;
using zhaoxin::CpuidVendor;

namespace {

// The 12-character vendor string as leaf 0 returns it.
CpuidVendor vendor(const char* name) {
    CpuidVendor v;
    std::memcpy(&v.ebx, name, 4);
    std::memcpy(&v.edx, name + 4, 4);
    std::memcpy(&v.ecx, name + 8, 4);
    return v;
}

// Leaf 1 EAX: stepping 3:0, model 7:4, family 11:8, extended model 19:16,
// extended family 27:20.
constexpr uint32_t signature(uint32_t family, uint32_t model, uint32_t ext_family = 0) {
    return (ext_family << 20) | ((model >> 4) << 16) | (family << 8) | ((model & 0xf) << 4) | 1;
}

constexpr uint32_t kPhe = 1u << 10, kPheEn = 1u << 11;
constexpr uint32_t kRng = 0x0c, kAce = 0xc0;  // other PadLock bits, present on real parts
const CpuidVendor kZhaoxin = vendor("  Shanghai  ");
const CpuidVendor kCentaur = vendor("CentaurHauls");
constexpr uint32_t kFamily7 = signature(7, 0x5b);    // a KX-7000-like signature
constexpr uint32_t kNano = signature(6, 0x0f);       // VIA Nano: family 6
constexpr uint32_t kMaxLeaf = 0xC0000004u;

CpuFeatures features(bool phe, bool sha_ni) {
    CpuFeatures f;
    f.phe = phe;
    f.sha_ni = f.sse41 = f.ssse3 = sha_ni;
    return f;
}

}  // namespace

TEST_CASE("phe detection: family as the kernel computes it", "[phe][detect]") {
    CHECK(zhaoxin::cpu_family(kFamily7) == 7);
    CHECK(zhaoxin::cpu_family(kNano) == 6);
    CHECK(zhaoxin::cpu_family(0x00a20f10) == 0x19);  // AMD Zen3: 0xF + 0x0A
    CHECK(zhaoxin::cpu_family(signature(0xf, 0, 0)) == 0xf);
}

TEST_CASE("phe detection: vendors", "[phe][detect]") {
    CHECK(zhaoxin::is_centaur_vendor(kZhaoxin));
    CHECK(zhaoxin::is_centaur_vendor(kCentaur));
    CHECK_FALSE(zhaoxin::is_centaur_vendor(vendor("AuthenticAMD")));
    CHECK_FALSE(zhaoxin::is_centaur_vendor(vendor("GenuineIntel")));
    CHECK_FALSE(zhaoxin::is_centaur_vendor(vendor("HygonGenuine")));
    CHECK_FALSE(zhaoxin::is_centaur_vendor(vendor("Shanghai    ")));  // spaces matter
    CHECK_FALSE(zhaoxin::is_centaur_vendor(CpuidVendor{}));
}

TEST_CASE("phe detection: Zhaoxin family 7 with PHE and PHE_EN is chosen", "[phe][detect]") {
    for (const CpuidVendor& v : {kZhaoxin, kCentaur}) {
        CHECK(zhaoxin::phe_usable(v, kFamily7, kMaxLeaf, kPhe | kPheEn));
        CHECK(zhaoxin::phe_usable(v, kFamily7, 0xC0000001u, kPhe | kPheEn | kRng | kAce));
        CHECK(zhaoxin::phe_usable(v, signature(8, 0x10), kMaxLeaf, kPhe | kPheEn));
    }
}

TEST_CASE("phe detection: everything else is not", "[phe][detect]") {
    const uint32_t both = kPhe | kPheEn | kRng | kAce;
    SECTION("PHE present but not enabled, or the reverse") {
        CHECK_FALSE(zhaoxin::phe_usable(kZhaoxin, kFamily7, kMaxLeaf, kPhe | kRng | kAce));
        CHECK_FALSE(zhaoxin::phe_usable(kZhaoxin, kFamily7, kMaxLeaf, kPheEn));
        CHECK_FALSE(zhaoxin::phe_usable(kZhaoxin, kFamily7, kMaxLeaf, kRng | kAce));
    }
    SECTION("family 6 (VIA Nano: the old PHE whose self-tests fail)") {
        CHECK_FALSE(zhaoxin::phe_usable(kZhaoxin, kNano, kMaxLeaf, both));
        CHECK_FALSE(zhaoxin::phe_usable(kCentaur, kNano, kMaxLeaf, both));
        CHECK_FALSE(zhaoxin::phe_usable(kCentaur, signature(6, 0x09), kMaxLeaf, both));
    }
    SECTION("a vendor other than Centaur/Zhaoxin, with every other value right") {
        for (const char* name : {"AuthenticAMD", "GenuineIntel", "HygonGenuine"}) {
            INFO(name);
            CHECK_FALSE(zhaoxin::phe_usable(vendor(name), kFamily7, kMaxLeaf, both));
        }
    }
    SECTION("no Centaur feature leaf") {
        CHECK_FALSE(zhaoxin::phe_usable(kZhaoxin, kFamily7, 0xC0000000u, both));
        CHECK_FALSE(zhaoxin::phe_usable(kZhaoxin, kFamily7, 0, both));
        // Garbage from a CPU without the range (e.g. the last basic leaf's EAX).
        CHECK_FALSE(zhaoxin::phe_usable(kZhaoxin, kFamily7, 0x00000016u, both));
        CHECK_FALSE(zhaoxin::phe_usable(kZhaoxin, kFamily7, 0xffffffffu, both));
    }
}

TEST_CASE("phe detection: SHA-NI wins over PHE, PHE over the portable engine", "[phe][detect]") {
    const Selection both = best_selection(features(true, true));
    CHECK(std::string(both.sha1->name) == "sha-ni");
    CHECK(std::string(both.sha256->name) == "sha-ni");
    const Selection phe_only = best_selection(features(true, false));
    CHECK(std::string(phe_only.sha1->name) == "phe");
    CHECK(std::string(phe_only.sha256->name) == "phe");
    const Selection none = best_selection(features(false, false));
    CHECK(std::string(none.sha1->name) == "generic");
    CHECK(std::string(none.sha256->name) == "generic");
    // PHE has no SHA-3 or SM4 engine.
    CHECK(std::string(phe_only.keccak->name) == "generic");
    CHECK(std::string(phe_only.sm4->name) == "generic");
}

TEST_CASE("phe detection: forcing PHE on a CPU without it is refused, not crashed",
          "[phe][detect]") {
    const CpuFeatures without = features(false, true);
    for (const char* spec : {"sha256=phe", "sha1=phe", "sha224=phe", "sha1=generic,sha256=phe"}) {
        INFO(spec);
        Selection sel = best_selection(without);
        const Selection before = sel;
        std::string error;
        CHECK_FALSE(apply_overrides(sel, spec, without, error));
        CHECK(error.find("'phe'") != std::string::npos);
        CHECK(error.find("not supported by this CPU") != std::string::npos);
        CHECK(sel.sha1 == before.sha1);
        CHECK(sel.sha256 == before.sha256);
    }
    // With PHE it is accepted, even when SHA-NI would be the automatic choice.
    const CpuFeatures with = features(true, true);
    Selection sel = best_selection(with);
    std::string error;
    CHECK(apply_overrides(sel, "sha1=phe,sha256=phe", with, error));
    CHECK(describe(sel).find("sha1=phe,sha256=phe") == 0);
    // There is no PHE engine for other families.
    CHECK_FALSE(apply_overrides(sel, "all=phe", with, error));
    CHECK(error.find("unknown engine 'phe'") != std::string::npos);
}

// On this machine's real CPU: the production detection only reports PHE on a
// Centaur/Zhaoxin CPU, and then exactly as phe_usable() says.
TEST_CASE("phe detection: the real CPU", "[phe][detect]") {
    unsigned a = 0, b = 0, c = 0, d = 0;
    REQUIRE(__get_cpuid(0, &a, &b, &c, &d));
    CpuidVendor v{b, d, c};
    const unsigned max_basic = a;
    REQUIRE(max_basic >= 1);
    REQUIRE(__get_cpuid(1, &a, &b, &c, &d));
    const uint32_t leaf1_eax = a;
    bool expected = false;
    if (zhaoxin::is_centaur_vendor(v)) {
        const uint32_t max_centaur = __get_cpuid_max(0xC0000000u, nullptr);
        uint32_t edx = 0;
        if (max_centaur >= 0xC0000001u) {
            __cpuid(0xC0000001u, a, b, c, d);
            edx = d;
        }
        expected = zhaoxin::phe_usable(v, leaf1_eax, max_centaur, edx);
    }
    INFO("family " << zhaoxin::cpu_family(leaf1_eax));
    CHECK(detect_cpu().phe == expected);
    // CTest runs this with HWACCEL_TEST_CPU=+phe: production backends ignore it.
    CHECK(cpu_features().phe == expected);
}
