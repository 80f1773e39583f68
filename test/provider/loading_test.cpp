// Loading paths a user takes: a config file in a fresh library context,
// explicit loads in several contexts, unload and reload.
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "provider_fixture.hpp"

using namespace hwaccel::test;

TEST_CASE("the example config activates hwaccel and prefers it", "[loading][config]") {
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    REQUIRE(ctx != nullptr);
    REQUIRE(OSSL_LIB_CTX_load_config(ctx, HWACCEL_BUILD_CONFIG) == 1);
    CHECK(OSSL_PROVIDER_available(ctx, "hwaccel") == 1);
    CHECK(OSSL_PROVIDER_available(ctx, "default") == 1);
    // No property query: the config's default_properties routes us.
    for (const auto& d : all_digests()) {
        MdPtr md(EVP_MD_fetch(ctx, d.name, nullptr));
        REQUIRE(md != nullptr);
        CHECK(provider_of(md.get()) == "hwaccel");
    }
    // What hwaccel lacks still comes from default ("?" makes us preferred, not required).
    MdPtr sha512(EVP_MD_fetch(ctx, "SHA512", nullptr));
    REQUIRE(sha512 != nullptr);
    CHECK(provider_of(sha512.get()) == "default");
    OSSL_LIB_CTX_free(ctx);
}

TEST_CASE("two library contexts, unload and reload", "[loading]") {
    for (int round = 0; round < 3; ++round) {
        LoadedProvider a, b("all=generic");
        MdPtr ma = a.md("SHA256"), mb = b.md("SHA256");
        unsigned char da[32], db[32];
        REQUIRE(EVP_Digest("abc", 3, da, nullptr, ma.get(), nullptr) == 1);
        REQUIRE(EVP_Digest("abc", 3, db, nullptr, mb.get(), nullptr) == 1);
        CHECK(std::memcmp(da, db, 32) == 0);
    }
}
