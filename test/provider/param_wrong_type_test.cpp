// Every gettable parameter of every hwaccel cipher and digest (the
// algorithm's and a context's), asked for with a type that cannot hold it: an
// integer as a UTF-8 string, anything else as an unsigned integer. The
// answer is 0, never 1 with nothing written, and for a context's parameter
// with an error on the queue (an algorithm's get_params has no provider
// context to raise one through). Where hwaccel is stricter: OpenSSL 3.5's
// default SM4-CCM lists "tlsivgen" and "iv-generated" as gettable and then
// answers 1 for them without writing anything.
// Written after scripts/mutation-sweep.py found "iv-generated"'s refusal
// untested.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <catch2/catch.hpp>
#include <string>

#include "provider_fixture.hpp"

using namespace hwaccel::test;

namespace {

struct Asked {
    int rc;
    bool error_queued;
};

// `getter` asked for `g` under a type it cannot be.
template <class Get>
Asked ask_wrong_type(const OSSL_PARAM& g, Get getter) {
    alignas(16) unsigned char buffer[64] = {};
    const bool integer = g.data_type == OSSL_PARAM_INTEGER || g.data_type == OSSL_PARAM_UNSIGNED_INTEGER;
    const unsigned int type = integer ? OSSL_PARAM_UTF8_STRING : OSSL_PARAM_UNSIGNED_INTEGER;
    OSSL_PARAM p[] = {{g.key, type, buffer, integer ? sizeof buffer : sizeof(unsigned int), OSSL_PARAM_UNMODIFIED},
                      OSSL_PARAM_END};
    ERR_clear_error();
    const int rc = getter(p);
    const bool queued = ERR_peek_error() != 0;
    ERR_clear_error();
    return {rc, queued};
}

const char* const kCiphers[] = {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB",
                                "SM4-CTR", "SM4-GCM", "SM4-CCM", "SM4-XTS"};

CipherCtxPtr keyed(const EVP_CIPHER* c) {
    static const unsigned char key[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                          17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
    static const unsigned char iv[16] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6};
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_EncryptInit_ex2(ctx.get(), c, key, EVP_CIPHER_get_iv_length(c) > 0 ? iv : nullptr, nullptr) == 1);
    return ctx;
}

}  // namespace

TEST_CASE("a parameter asked for as a type that cannot hold it is refused with an error", "[params]") {
    LoadedProvider prov;
    for (const char* name : kCiphers) {
        CipherPtr c = prov.cipher(name);
        for (const OSSL_PARAM* g = EVP_CIPHER_gettable_params(c.get()); g != nullptr && g->key != nullptr; ++g) {
            INFO(name << " algorithm parameter " << g->key);
            CHECK(ask_wrong_type(*g, [&](OSSL_PARAM* p) { return EVP_CIPHER_get_params(c.get(), p); }).rc == 0);
        }
        for (const OSSL_PARAM* g = EVP_CIPHER_gettable_ctx_params(c.get()); g != nullptr && g->key != nullptr; ++g) {
            INFO(name << " context parameter " << g->key);
            CipherCtxPtr ctx = keyed(c.get());
            Asked a = ask_wrong_type(*g, [&](OSSL_PARAM* p) { return EVP_CIPHER_CTX_get_params(ctx.get(), p); });
            CHECK(a.rc == 0);
            CHECK(a.error_queued);
        }
    }
    for (const auto& d : all_digests()) {
        MdPtr md = prov.md(d.name);
        for (const OSSL_PARAM* g = EVP_MD_gettable_params(md.get()); g != nullptr && g->key != nullptr; ++g) {
            INFO(d.name << " algorithm parameter " << g->key);
            CHECK(ask_wrong_type(*g, [&](OSSL_PARAM* p) { return EVP_MD_get_params(md.get(), p); }).rc == 0);
        }
        for (const OSSL_PARAM* g = EVP_MD_gettable_ctx_params(md.get()); g != nullptr && g->key != nullptr; ++g) {
            INFO(d.name << " context parameter " << g->key);
            MdCtxPtr ctx(EVP_MD_CTX_new());
            REQUIRE(EVP_DigestInit_ex2(ctx.get(), md.get(), nullptr) == 1);
            Asked a = ask_wrong_type(*g, [&](OSSL_PARAM* p) { return EVP_MD_CTX_get_params(ctx.get(), p); });
            CHECK(a.rc == 0);
            CHECK(a.error_queued);
        }
    }
}
