// Every settable and gettable context parameter of SM4-GCM, SM4-CCM and
// SM4-XTS, given with NULL data or with a buffer, as every OSSL_PARAM type,
// at sizes from 0 to SIZE_MAX (NULL data only where no buffer is that
// large), in six states of a context, both directions: hwaccel answers each
// without crashing (a "tlsivinv" with NULL data was read through the NULL
// pointer). OpenSSL 4.0.2's default provider crashes in 354 of these calls,
// so it is not run here. A buffer is filled with a pattern first, so what a
// set reads is defined.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "provider_fixture.hpp"

using namespace hwaccel::test;

namespace {

// The context in state 0..5: new; keyed; with an IV; a fixed TLS IV; a TLS
// record header; a message through final.
CipherCtxPtr in_state(const EVP_CIPHER* c, int state, int enc) {
    static const unsigned char key[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                          17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
    static const unsigned char iv[16] = {0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
                                         0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f};
    CipherCtxPtr x(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_CipherInit_ex2(x.get(), c, nullptr, nullptr, enc, nullptr) == 1);
    if (state >= 1) (void)EVP_CipherInit_ex2(x.get(), nullptr, key, nullptr, enc, nullptr);
    if (state >= 2) (void)EVP_CipherInit_ex2(x.get(), nullptr, nullptr, iv, enc, nullptr);
    if (state == 3) (void)EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_GCM_SET_IV_FIXED, 4, const_cast<unsigned char*>(iv));
    if (state == 4) {
        unsigned char aad[13] = {0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, 0, 40};
        (void)EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad);
    }
    if (state == 5) {
        unsigned char in[32] = {}, out[64];
        int n = 0;
        (void)EVP_CipherUpdate(x.get(), out, &n, in, 32);
        (void)EVP_CipherFinal_ex(x.get(), out, &n);
    }
    ERR_clear_error();
    return x;
}

std::vector<std::string> keys_of(const OSSL_PARAM* p) {
    std::vector<std::string> keys;
    for (; p != nullptr && p->key != nullptr; ++p) keys.emplace_back(p->key);
    return keys;
}

}  // namespace

TEST_CASE("SM4-GCM/CCM/XTS parameters: NULL data, every type and size, every state: no crash",
          "[gcm][ccm][xts][params][bad-input]") {
    LoadedProvider prov;
    const unsigned types[] = {OSSL_PARAM_INTEGER,     OSSL_PARAM_UNSIGNED_INTEGER, OSSL_PARAM_REAL,
                              OSSL_PARAM_UTF8_STRING, OSSL_PARAM_OCTET_STRING,     OSSL_PARAM_UTF8_PTR,
                              OSSL_PARAM_OCTET_PTR};
    const size_t sizes[] = {0, 1, 4, 8, 13, 16, 17, 100, SIZE_MAX};
    size_t calls = 0;
    for (const char* alg : {"SM4-GCM", "SM4-CCM", "SM4-XTS"}) {
        CipherPtr c = prov.cipher(alg);
        // The TLS IV parameters under the other direction's name too.
        std::vector<std::string> settable = keys_of(EVP_CIPHER_settable_ctx_params(c.get()));
        std::vector<std::string> gettable = keys_of(EVP_CIPHER_gettable_ctx_params(c.get()));
        settable.emplace_back(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN);
        gettable.emplace_back(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV);
        for (int state = 0; state < 6; ++state)
            for (int enc = 0; enc < 2; ++enc)
                for (int get = 0; get < 2; ++get)
                    for (const std::string& key : get ? gettable : settable)
                        for (unsigned type : types)
                            for (size_t size : sizes)
                                for (int null_data = 0; null_data < 2; ++null_data) {
                                    alignas(16) unsigned char buf[128];
                                    if (!null_data && size > sizeof buf) continue;
                                    INFO(alg << " state " << state << " enc " << enc << (get ? " get " : " set ")
                                             << key << " type " << type << " size " << size
                                             << (null_data ? " NULL" : " buffer"));
                                    for (size_t i = 0; i < sizeof buf; ++i) buf[i] = static_cast<unsigned char>(i);
                                    CipherCtxPtr x = in_state(c.get(), state, enc);
                                    OSSL_PARAM p[] = {{key.c_str(), type, null_data ? nullptr : buf, size, 0},
                                                      OSSL_PARAM_END};
                                    if (get)
                                        (void)EVP_CIPHER_CTX_get_params(x.get(), p);
                                    else
                                        (void)EVP_CIPHER_CTX_set_params(x.get(), p);
                                    ERR_clear_error();
                                    ++calls;
                                }
    }
    CHECK(calls > 40000);
}
