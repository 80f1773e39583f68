// A re-init in the other direction without a key keeps the key and turns
// round with it: ECB and CBC decrypt what the same context encrypted (and
// the reverse). OpenSSL's default provider keeps the first direction's key
// schedule and gives wrong output there; hwaccel's key serves both ways.
// CFB, OFB and CTR use the forward cipher both ways anyway.
#include <openssl/evp.h>

#include <catch2/catch.hpp>

#include "provider_fixture.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

TEST_CASE("re-init in the other direction without a key keeps working", "[cipher][init]") {
    Lcg rng(5150);
    for (const std::string& sel : engine_selections()) {
        LoadedProvider prov(sel);
        INFO(sel);
        for (const char* name : {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB", "SM4-CTR"}) {
            INFO(name);
            CipherPtr c = prov.cipher(name);
            for (int first = 0; first <= 1; ++first) {
                INFO("first direction " << (first ? "encrypt" : "decrypt"));
                const Bytes key = rng.bytes(16), iv = rng.bytes(16), msg = rng.bytes(16 * (1 + rng.below(20)));
                CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                Bytes there(msg.size()), back(msg.size());
                int n = 0;
                REQUIRE(EVP_CipherInit_ex2(ctx.get(), c.get(), key.data(), iv.data(), first, nullptr) == 1);
                EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
                REQUIRE(EVP_CipherUpdate(ctx.get(), there.data(), &n, msg.data(), static_cast<int>(msg.size())) == 1);
                REQUIRE(EVP_CipherFinal_ex(ctx.get(), there.data() + n, &n) == 1);
                // Same context, other direction, IV only.
                REQUIRE(EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, iv.data(), !first, nullptr) == 1);
                REQUIRE(EVP_CipherUpdate(ctx.get(), back.data(), &n, there.data(), static_cast<int>(there.size())) == 1);
                REQUIRE(EVP_CipherFinal_ex(ctx.get(), back.data() + n, &n) == 1);
                CHECK(back == msg);
            }
        }
    }
}
