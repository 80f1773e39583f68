// The property hwaccel's algorithms carry follows the instance name, and
// must parse whatever that name is: OpenSSL drops an algorithm whose
// property definition does not parse, so a provider that loaded would serve
// nothing. A name with a '/' is the module's path
// (OSSL_PROVIDER_load(ctx, "/dir/hwaccel.so"), `openssl -provider /dir/hwaccel.so`).
#include <dlfcn.h>
#include <openssl/core.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <catch2/catch.hpp>
#include <string>

#include "provider_fixture.hpp"

using namespace hwaccel::test;

namespace {

const char* const kCiphers[] = {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB",
                                "SM4-CTR", "SM4-CCM", "SM4-GCM", "SM4-XTS"};

// Every algorithm is fetched from the one provider loaded in `ctx`, without
// a query and with `query`; each must come from the provider named `name`.
void check_serves_everything(OSSL_LIB_CTX* ctx, const std::string& name, const std::string& query) {
    for (const char* q : {static_cast<const char*>(nullptr), query.c_str()}) {
        INFO("query: " << (q ? q : "(none)"));
        for (const auto& d : all_digests()) {
            INFO(d.name);
            MdPtr md(EVP_MD_fetch(ctx, d.name, q));
            INFO(take_errors());
            REQUIRE(md != nullptr);
            CHECK(provider_of(md.get()) == name);
        }
        for (const char* c : kCiphers) {
            INFO(c);
            CipherPtr cipher(EVP_CIPHER_fetch(ctx, c, q));
            INFO(take_errors());
            REQUIRE(cipher != nullptr);
            CHECK(provider_of(cipher.get()) == name);
        }
    }
    CHECK(take_errors().empty());
}

}  // namespace

TEST_CASE("loaded by its path, hwaccel serves everything as provider=hwaccel", "[loading][property]") {
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    REQUIRE(ctx != nullptr);
    OSSL_PROVIDER* prov = OSSL_PROVIDER_load(ctx, HWACCEL_MODULE_PATH);
    INFO(take_errors());
    REQUIRE(prov != nullptr);
    CHECK(std::string(OSSL_PROVIDER_get0_name(prov)) == HWACCEL_MODULE_PATH);
    check_serves_everything(ctx, HWACCEL_MODULE_PATH, "provider=hwaccel");
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(ctx);
}

TEST_CASE("a name that is no plain property value is quoted, or else hwaccel", "[loading][property]") {
    void* dl = dlopen(HWACCEL_MODULE_PATH, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(dl != nullptr);
    auto* init = reinterpret_cast<OSSL_provider_init_fn*>(dlsym(dl, "OSSL_provider_init"));
    REQUIRE(init != nullptr);
    const std::string too_long(1200, 'h');
    struct Case {
        std::string name, query;
    };
    const Case cases[] = {
        {"hw accel", "provider='hw accel'"},   // a space ends an unquoted value
        {"2hw", "provider='2hw'"},             // a digit starts a number
        {"_hw", "provider='_hw'"},             // a value starts with a letter
        {"hw,accel", "provider='hw,accel'"},   // a comma ends it
        {"'hw", "provider=\"'hw\""},
        {"2'\"hw", "provider=hwaccel"},        // no quote can hold it
        {too_long, "provider=hwaccel"},        // OpenSSL takes 999 characters
        {"MyAccel", "provider=myaccel"},       // as OpenSSL parses any name: no case
    };
    for (const Case& c : cases) {
        INFO("instance name: " << c.name);
        OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
        REQUIRE(ctx != nullptr);
        REQUIRE(OSSL_PROVIDER_add_builtin(ctx, c.name.c_str(), init) == 1);
        OSSL_PROVIDER* prov = OSSL_PROVIDER_load(ctx, c.name.c_str());
        INFO(take_errors());
        REQUIRE(prov != nullptr);
        check_serves_everything(ctx, c.name, c.query);
        OSSL_PROVIDER_unload(prov);
        OSSL_LIB_CTX_free(ctx);
    }
    dlclose(dl);
}
