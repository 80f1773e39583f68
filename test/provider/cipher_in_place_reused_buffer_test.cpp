// In place with input still buffered: a caller that reads each piece into
// one buffer and passes it as both input and output (out == in) gets the
// same stream as from separate buffers. The bytes held over from the
// previous update come out first, so the output runs ahead of the input in
// that buffer; OpenSSL's default provider writes that first block over
// input it has not read yet and gives wrong output (AES as well as SM4;
// 1.1.1's EVP refused the call as partially overlapping).
#include <openssl/evp.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "provider_fixture.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

TEST_CASE("in place into one reused buffer with bytes held over", "[cipher][in-place]") {
    Lcg rng(1000);
    for (const std::string& sel : engine_selections()) {
        LoadedProvider prov(sel);
        INFO(sel);
        for (const char* name : {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB", "SM4-CTR"}) {
            INFO(name);
            CipherPtr ours = prov.cipher(name), theirs = prov.default_cipher(name);
            for (int trial = 0; trial < 24; ++trial) {
                const int enc = trial & 1;
                const int padding = (trial >> 1) & 1;
                const Bytes key = rng.bytes(16), iv = rng.bytes(16);
                const size_t len = 16 * (1 + rng.below(40));  // whole blocks: padding off works both ways
                const Bytes msg = rng.bytes(len);
                INFO("enc " << enc << " padding " << padding << " len " << len);

                // The reference: one update from a separate buffer (the
                // default provider gets that right).
                Bytes expect(len + 16);
                int n = 0, total = 0;
                CipherCtxPtr ref(EVP_CIPHER_CTX_new());
                REQUIRE(EVP_CipherInit_ex2(ref.get(), theirs.get(), key.data(), iv.data(), enc, nullptr) == 1);
                EVP_CIPHER_CTX_set_padding(ref.get(), padding);
                REQUIRE(EVP_CipherUpdate(ref.get(), expect.data(), &n, msg.data(), static_cast<int>(len)) == 1);
                total = n;
                const int ref_final = EVP_CipherFinal_ex(ref.get(), expect.data() + total, &n);
                if (ref_final == 1) total += n;
                expect.resize(total);
                take_errors();

                CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                REQUIRE(EVP_CipherInit_ex2(ctx.get(), ours.get(), key.data(), iv.data(), enc, nullptr) == 1);
                EVP_CIPHER_CTX_set_padding(ctx.get(), padding);
                Bytes got, buffer(len + 16);
                for (size_t pos = 0; pos < len;) {
                    const size_t piece = std::min<size_t>(1 + rng.below(50), len - pos);
                    std::memcpy(buffer.data(), msg.data() + pos, piece);
                    REQUIRE(EVP_CipherUpdate(ctx.get(), buffer.data(), &n, buffer.data(), static_cast<int>(piece)) == 1);
                    got.insert(got.end(), buffer.begin(), buffer.begin() + n);
                    pos += piece;
                }
                const int our_final = EVP_CipherFinal_ex(ctx.get(), buffer.data(), &n);
                CHECK(our_final == ref_final);
                if (our_final == 1) got.insert(got.end(), buffer.begin(), buffer.begin() + n);
                take_errors();
                CHECK(got == expect);
            }
        }
    }
}
