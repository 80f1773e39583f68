// "tls-version" on SM4-ECB/CBC/CFB/OFB/CTR. The default provider then
// treats every update as a TLS record: it pads in place (block modes) and,
// decrypting, strips the padding, the explicit IV and the MAC from the
// output length. hwaccel has no TLS record mode for these ciphers (no TLS
// cipher suite uses them), so a nonzero version is refused and changes
// nothing: taking it silently would hand back whole records where the
// caller expects the payload.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/prov_ssl.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "errors.hpp"
#include "provider_fixture.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {
const char* const kModes[] = {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB", "SM4-CTR"};
}

TEST_CASE("tls-version is refused and changes nothing; 0 is accepted", "[cipher][params][tls]") {
    LoadedProvider prov;
    const Bytes key(16, 7), iv(16, 9), msg(48, 0x41);
    for (const char* name : kModes) {
        INFO(name);
        CipherPtr ours = prov.cipher(name), theirs = prov.default_cipher(name);
        for (int enc = 0; enc <= 1; ++enc) {
            INFO("enc " << enc);
            for (unsigned version : {unsigned{TLS1_2_VERSION}, unsigned{SSL3_VERSION}}) {
                CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                REQUIRE(EVP_CipherInit_ex2(ctx.get(), ours.get(), key.data(), iv.data(), enc, nullptr) == 1);
                unsigned v = version;
                size_t mac = 20;
                unsigned pad = 0;
                // With a padding change beside it: that is not applied either.
                OSSL_PARAM set[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &pad),
                                    OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &v),
                                    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &mac), OSSL_PARAM_END};
                CHECK(EVP_CIPHER_CTX_set_params(ctx.get(), set) == 0);
                CHECK(has_hwaccel_error(take_error_codes(), hwaccel::kErrInvalidParameter));
                unsigned got_pad = 9;
                OSSL_PARAM get[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &got_pad), OSSL_PARAM_END};
                REQUIRE(EVP_CIPHER_CTX_get_params(ctx.get(), get) == 1);
                CHECK(got_pad == 1);
                // An init carrying it is refused too.
                OSSL_PARAM init_params[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &v), OSSL_PARAM_END};
                CHECK(EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, nullptr, enc, init_params) == 0);
                take_errors();

                // The context goes on as an ordinary one: the default's
                // output for the same message.
                Bytes out(msg.size() + 32), expect(msg.size() + 32);
                int l1 = 0, l2 = 0, r1 = 0, r2 = 0;
                REQUIRE(EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, iv.data(), enc, nullptr) == 1);
                EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
                REQUIRE(EVP_CipherUpdate(ctx.get(), out.data(), &l1, msg.data(), static_cast<int>(msg.size())) == 1);
                REQUIRE(EVP_CipherFinal_ex(ctx.get(), out.data() + l1, &l2) == 1);
                CipherCtxPtr ref(EVP_CIPHER_CTX_new());
                REQUIRE(EVP_CipherInit_ex2(ref.get(), theirs.get(), key.data(), iv.data(), enc, nullptr) == 1);
                EVP_CIPHER_CTX_set_padding(ref.get(), 0);
                REQUIRE(EVP_CipherUpdate(ref.get(), expect.data(), &r1, msg.data(), static_cast<int>(msg.size())) == 1);
                REQUIRE(EVP_CipherFinal_ex(ref.get(), expect.data() + r1, &r2) == 1);
                CHECK(Bytes(out.begin(), out.begin() + l1 + l2) == Bytes(expect.begin(), expect.begin() + r1 + r2));
            }
            // Version 0 (no TLS) and a MAC size alone are accepted, as by
            // the default provider, and change nothing.
            CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
            REQUIRE(EVP_CipherInit_ex2(ctx.get(), ours.get(), key.data(), iv.data(), enc, nullptr) == 1);
            unsigned zero = 0;
            size_t mac = 20;
            OSSL_PARAM off[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &zero),
                                OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &mac), OSSL_PARAM_END};
            CHECK(EVP_CIPHER_CTX_set_params(ctx.get(), off) == 1);
            // A version that is not an integer is refused as by the default.
            const char* text = "771";
            OSSL_PARAM bad[] = {OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_TLS_VERSION, const_cast<char*>(text), 3),
                                OSSL_PARAM_END};
            CHECK(EVP_CIPHER_CTX_set_params(ctx.get(), bad) == 0);
            CipherCtxPtr dctx(EVP_CIPHER_CTX_new());
            REQUIRE(EVP_CipherInit_ex2(dctx.get(), theirs.get(), key.data(), iv.data(), enc, nullptr) == 1);
            CHECK(EVP_CIPHER_CTX_set_params(dctx.get(), bad) == 0);
            take_errors();
        }
    }
}
