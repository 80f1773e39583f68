// EVP-level checks that belong to gfni-avx2 under the model, next to the
// cipher suites this binary runs with the test module: that gfni-avx2 really
// is what they exercised (forced and as the automatic choice), that the
// provider's SM4 went through the model, and that the production module,
// which ignores HWACCEL_TEST_CPU, refuses a forced gfni-avx2 on this CPU.
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "gfni_model.hpp"
#include "hwaccel/cpu.hpp"
#include "provider_fixture.hpp"

using namespace hwaccel::test;

TEST_CASE("gfni evp: gfni-avx2 is among the selections and the automatic choice",
          "[cipher][gfni][provider]") {
    REQUIRE(hwaccel::cpu_features().gfni);  // HWACCEL_TEST_CPU=+gfni,-avx512...
    const std::vector<std::string> sels = engine_selections();
    CHECK(std::find(sels.begin(), sels.end(), "sm4=gfni-avx2") != sels.end());
    LoadedProvider prov;
    INFO(prov.engines());
    CHECK(prov.engines().find("sm4=gfni-avx2") != std::string::npos);
}

TEST_CASE("gfni evp: SM4 through the provider is computed by the model", "[cipher][gfni][provider]") {
    LoadedProvider prov("sm4=gfni-avx2");
    const std::vector<unsigned char> key(16, 0x11), iv(16, 0x22), msg(4096, 0x5a);
    for (const char* name : {"SM4-ECB", "SM4-CTR", "SM4-CBC"}) {
        INFO(name);
        CipherPtr ours = prov.cipher(name), theirs = prov.default_cipher(name);
        std::vector<unsigned char> a(msg.size() + 16), b(msg.size() + 16);
        int la = 0, lb = 0, fa = 0, fb = 0;
        const auto before = gfni::counters();
        EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
        REQUIRE(EVP_DecryptInit_ex2(ctx, ours.get(), key.data(), iv.data(), nullptr) == 1);  // bulk path
        EVP_CIPHER_CTX_set_padding(ctx, 0);
        REQUIRE(EVP_DecryptUpdate(ctx, a.data(), &la, msg.data(), static_cast<int>(msg.size())) == 1);
        REQUIRE(EVP_DecryptFinal_ex(ctx, a.data() + la, &fa) == 1);
        REQUIRE(EVP_DecryptInit_ex2(ctx, theirs.get(), key.data(), iv.data(), nullptr) == 1);
        EVP_CIPHER_CTX_set_padding(ctx, 0);
        REQUIRE(EVP_DecryptUpdate(ctx, b.data(), &lb, msg.data(), static_cast<int>(msg.size())) == 1);
        REQUIRE(EVP_DecryptFinal_ex(ctx, b.data() + lb, &fb) == 1);
        EVP_CIPHER_CTX_free(ctx);
        const auto after = gfni::counters();
        CHECK(la + fa == lb + fb);
        CHECK(std::equal(a.begin(), a.begin() + la + fa, b.begin()));
        if (!gfni::model_active()) continue;
        CHECK(after.ymm > before.ymm);
    }
}

// An ordinary user on a CPU without GFNI asking for gfni-avx2 gets a
// refusal with the reason, never a SIGILL.
TEST_CASE("gfni evp: the production module refuses a forced gfni-avx2 this CPU lacks",
          "[cipher][gfni][provider][engines]") {
    if (gfni::cpu_has_gfni_natively()) {
        WARN("this CPU has GFNI: nothing to refuse");
        return;
    }
    REQUIRE(std::getenv("HWACCEL_TEST_CPU") != nullptr);
    const char* saved = std::getenv("HWACCEL_ENGINES");
    const std::string restore = saved ? saved : "";
    setenv("HWACCEL_ENGINES", "sm4=gfni-avx2", 1);
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    REQUIRE(ctx != nullptr);
    OSSL_PROVIDER_set_default_search_path(ctx, HWACCEL_PRODUCTION_MODULE_DIR);
    take_errors();
    OSSL_PROVIDER* p = OSSL_PROVIDER_load(ctx, "hwaccel");
    const std::string errors = take_errors();
    if (saved) setenv("HWACCEL_ENGINES", restore.c_str(), 1);
    else unsetenv("HWACCEL_ENGINES");
    INFO(errors);
    CHECK(p == nullptr);
    CHECK(errors.find("'gfni-avx2'") != std::string::npos);
    CHECK(errors.find("not supported by this CPU") != std::string::npos);
    if (p) OSSL_PROVIDER_unload(p);
    OSSL_LIB_CTX_free(ctx);
}
