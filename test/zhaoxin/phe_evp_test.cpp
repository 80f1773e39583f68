// EVP-level checks that belong to the PHE engine, next to the EVP suites of
// test/provider/ that this binary runs with the test module and the model:
// that PHE really is what those suites exercised, and that the production
// module, which ignores HWACCEL_TEST_CPU, refuses a forced PHE on this CPU.
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "cpu/detect.hpp"
#include "hwaccel/cpu.hpp"
#include "phe_model.hpp"
#include "provider_fixture.hpp"

using namespace hwaccel::test;

TEST_CASE("phe evp: the selections include PHE, and so does the automatic choice",
          "[phe][provider]") {
    REQUIRE(hwaccel::cpu_features().phe);  // HWACCEL_TEST_CPU=+phe...
    const std::vector<std::string> sels = engine_selections();
    for (const char* want : {"sha1=phe", "sha256=phe"}) {
        INFO(want);
        CHECK(std::find(sels.begin(), sels.end(), want) != sels.end());
    }
    // ... and with -sha_ni as well, every EVP test that takes the automatic
    // choice runs on PHE too.
    LoadedProvider prov;
    const std::string best = hwaccel::cpu_features().sha_ni ? "sha-ni" : "phe";
    CHECK(prov.engines().find("sha1=" + best + ",sha256=" + best + ",") == 0);
}

TEST_CASE("phe evp: digests through the provider are computed by the model", "[phe][provider]") {
    LoadedProvider prov("sha1=phe,sha256=phe");
    const std::vector<unsigned char> data(1000, 0x5a);
    for (const char* name : {"SHA1", "SHA2-224", "SHA2-256"}) {
        INFO(name);
        MdPtr ours = prov.md(name), theirs = prov.default_md(name);
        unsigned char a[EVP_MAX_MD_SIZE], b[EVP_MAX_MD_SIZE];
        unsigned int la = 0, lb = 0;
        hwaccel::test::phe::reset_counters();
        REQUIRE(EVP_Digest(data.data(), data.size(), a, &la, ours.get(), nullptr) == 1);
        const auto c = hwaccel::test::phe::counters();
        REQUIRE(EVP_Digest(data.data(), data.size(), b, &lb, theirs.get(), nullptr) == 1);
        CHECK(std::string(a, a + la) == std::string(b, b + lb));
        if (!hwaccel::test::phe::model_active()) continue;  // PHE ran natively
        // 1000 bytes: 15 whole blocks in update, 1 padded block in final.
        CHECK(c.xsha1 + c.xsha256 == 2);
        CHECK(c.blocks == 16);
        CHECK((std::string(name) == "SHA1" ? c.xsha1 : c.xsha256) == 2);
    }
}

// An ordinary user on a CPU without PHE asking for it gets a refusal with
// the reason, never a SIGILL: the production module does not honour
// HWACCEL_TEST_CPU, so the "+phe" this process runs with changes nothing.
TEST_CASE("phe evp: the production module refuses a forced PHE this CPU lacks",
          "[phe][provider][engines]") {
    if (hwaccel::detect_cpu().phe) {
        WARN("this CPU has PHE: nothing to refuse");
        return;
    }
    REQUIRE(std::getenv("HWACCEL_TEST_CPU") != nullptr);
    for (const char* spec : {"sha256=phe", "sha1=phe", "sha224=phe"}) {
        INFO(spec);
        setenv("HWACCEL_ENGINES", spec, 1);
        OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
        REQUIRE(ctx != nullptr);
        OSSL_PROVIDER_set_default_search_path(ctx, HWACCEL_PRODUCTION_MODULE_DIR);
        take_errors();
        OSSL_PROVIDER* p = OSSL_PROVIDER_load(ctx, "hwaccel");
        const std::string errors = take_errors();
        unsetenv("HWACCEL_ENGINES");
        INFO(errors);
        CHECK(p == nullptr);
        CHECK(errors.find("invalid engine selection") != std::string::npos);
        CHECK(errors.find("'phe'") != std::string::npos);
        CHECK(errors.find("not supported by this CPU") != std::string::npos);
        if (p) OSSL_PROVIDER_unload(p);
        OSSL_LIB_CTX_free(ctx);
    }
    // Without the override it loads and does not pick PHE.
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER_set_default_search_path(ctx, HWACCEL_PRODUCTION_MODULE_DIR);
    OSSL_PROVIDER* p = OSSL_PROVIDER_load(ctx, "hwaccel");
    REQUIRE(p != nullptr);
    char* engines = nullptr;
    OSSL_PARAM request[] = {OSSL_PARAM_utf8_ptr("engines", &engines, 0), OSSL_PARAM_END};
    REQUIRE(OSSL_PROVIDER_get_params(p, request) == 1);
    REQUIRE(engines != nullptr);
    CHECK(std::string(engines).find("phe") == std::string::npos);
    OSSL_PROVIDER_unload(p);
    OSSL_LIB_CTX_free(ctx);
}
