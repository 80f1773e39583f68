// Checks that belong to the gfni-avx2 engine under the model, next to the
// backend SM4 suites this binary runs: that the claim made it available,
// and that its work really went through the model (it issued GFNI
// instructions, the VEX.256 form among them).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>

#include "gfni_model.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"

namespace {

const hwaccel::Sm4Engine* gfni_avx2() {
    for (const hwaccel::Sm4Engine* e : hwaccel::sm4_engines())
        if (std::string(e->name) == "gfni-avx2") return e;
    return nullptr;
}

}  // namespace

TEST_CASE("gfni-avx2 under the model: available, and computed by the model", "[sm4][gfni][model]") {
    const hwaccel::Sm4Engine* e = gfni_avx2();
    if (e == nullptr) FAIL("the SM4 registry has no engine named gfni-avx2 (renamed? this suite must follow)");
    REQUIRE(hwaccel::cpu_features().gfni);  // HWACCEL_TEST_CPU=+gfni
    REQUIRE(e->available(hwaccel::cpu_features()));
    GFNI_MODEL_ONLY();
    hwaccel::Sm4Key key;
    const uint8_t raw[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                             0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
    e->set_key(&key, raw);
    uint8_t data[1024] = {};
    const auto before = hwaccel::test::gfni::counters();
    e->ecb(&key, hwaccel::Sm4Direction::kEncrypt, data, data, sizeof data / 16);
    const auto after = hwaccel::test::gfni::counters();
    CHECK(after.affine + after.affine_inverse > before.affine + before.affine_inverse);
    CHECK(after.ymm > before.ymm);
}
