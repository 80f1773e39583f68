// The registry's choice for a given CPU: the best engine whose features are
// present, the next best when one is masked, the portable engine always last.
#include <catch2/catch.hpp>
#include <string>

#include "hwaccel/registry.hpp"

using namespace hwaccel;

namespace {

CpuFeatures zen3_like() {
    CpuFeatures f;
    std::string error;
    REQUIRE(adjust_features(f, "+ssse3,+sse4.1,+avx,+avx2,+bmi1,+bmi2,+aesni,+vaes,+sha_ni", error));
    return f;
}

CpuFeatures masked(const char* spec) {
    CpuFeatures f = zen3_like();
    std::string error;
    INFO(error);
    REQUIRE(adjust_features(f, spec, error));
    return f;
}

}  // namespace

TEST_CASE("registry: nothing detected means the portable engines", "[registry]") {
    Selection s = best_selection(CpuFeatures{});
    CHECK(describe(s) == "sha1=generic,sha256=generic,sha3=generic,sm4=generic");
}

#if defined(__x86_64__)
TEST_CASE("registry: best engine per family for an x86-64 feature set, next best when masked", "[registry]") {
    CHECK(describe(best_selection(zen3_like())) == "sha1=sha-ni,sha256=sha-ni,sha3=x86-bmi2,sm4=vaes-avx2");
    // As BOTAN_CLEAR_CPUID / OPENSSL_ia32cap would: one feature hidden at a time.
    CHECK(describe(best_selection(masked("-sha_ni"))) == "sha1=generic,sha256=generic,sha3=x86-bmi2,sm4=vaes-avx2");
    CHECK(describe(best_selection(masked("-vaes"))) == "sha1=sha-ni,sha256=sha-ni,sha3=x86-bmi2,sm4=aesni-avx2");
    CHECK(describe(best_selection(masked("-vaes,-aesni"))).find("sm4=generic") != std::string::npos);
    CHECK(describe(best_selection(masked("-avx2"))).find("sm4=generic") != std::string::npos);
    CHECK(describe(best_selection(masked("-bmi2"))).find("sha3=generic") != std::string::npos);
    CHECK(describe(best_selection(masked("-sse4.1"))).find("sha256=generic") != std::string::npos);
}
#endif

TEST_CASE("registry: overrides name a family and an engine this CPU can run", "[registry]") {
    const CpuFeatures none{};
    Selection s = best_selection(none);
    std::string error;
    CHECK(apply_overrides(s, "all=generic", none, error));
    CHECK(apply_overrides(s, " sha224 = generic , shake=generic ", none, error));
    CHECK(apply_overrides(s, "", none, error));
    CHECK(apply_overrides(s, nullptr, none, error));
    const Selection before = s;
    for (const char* bad : {"sha256=nonesuch", "md5=generic", "sha1", "=generic", "sha1=generic,sm4=x"}) {
        INFO(bad);
        CHECK_FALSE(apply_overrides(s, bad, none, error));
        CHECK_FALSE(error.empty());
        CHECK(describe(s) == describe(before));  // a refusal changes nothing
    }
#if defined(__x86_64__)
    // An engine the CPU lacks is refused, not silently replaced.
    CHECK_FALSE(apply_overrides(s, "sha256=sha-ni", none, error));
    CHECK_THAT(error, Catch::Contains("not supported by this CPU"));
    CpuFeatures zen3 = zen3_like();
    Selection z = best_selection(zen3);
    CHECK(apply_overrides(z, "sm4=aesni-avx2,sha3=generic", zen3, error));
    CHECK(describe(z) == "sha1=sha-ni,sha256=sha-ni,sha3=generic,sm4=aesni-avx2");
#endif
}

TEST_CASE("registry: feature adjustments reject unknown names", "[registry]") {
    CpuFeatures f;
    std::string error;
    CHECK_FALSE(adjust_features(f, "+warp", error));
    CHECK_FALSE(adjust_features(f, "sha_ni", error));
    CHECK(adjust_features(f, "+phe,-phe,+cpacf-sha3", error));
    CHECK_FALSE(f.phe);
    CHECK(f.cpacf_sha3);
}
