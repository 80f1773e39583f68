// SM4-GCM and SM4-CCM keep their key schedule (GCM: and H) when init gives
// the key in place again (cipher/key_memo.hpp). Whatever order keys come
// in, each message must equal a fresh context's under the key given last:
// the same key again, another key, the first key back, a copy re-keyed, a
// key given again in the middle of a message (which restarts it from its
// IV), and a decryption under a key the encryption left in place.
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fake_core.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

const unsigned char kKey1[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
const unsigned char kKey2[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17};
const unsigned char kIv[12] = {0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88};

struct Mode {
    const char* name;
    size_t iv_len;   // GCM: 12; CCM: its default L = 8, a 7-byte nonce
    size_t tag_len;  // the tag read after final (CCM's default M)
};
const Mode kModes[] = {{"SM4-GCM", 12, 16}, {"SM4-CCM", 7, 12}};

std::vector<unsigned char> text(size_t len) {
    std::vector<unsigned char> in(len);
    for (size_t i = 0; i < len; ++i) in[i] = static_cast<unsigned char>(i * 13 + 7);
    return in;
}

// One whole message on a context whose key and IV are set: ciphertext || tag, in hex.
std::string seal(const CipherFns& f, void* ctx, const Mode& m, size_t len) {
    const std::vector<unsigned char> in = text(len);
    std::vector<unsigned char> out(len + 16);
    size_t outl = 0, finl = 0;
    REQUIRE(f.update(ctx, out.data(), &outl, out.size(), in.data(), len) == 1);
    REQUIRE(f.final(ctx, out.data() + outl, &finl, out.size() - outl) == 1);
    unsigned char tag[16] = {};
    OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, m.tag_len),
                      OSSL_PARAM_END};
    REQUIRE(f.get_ctx_params(ctx, p) == 1);
    return to_hex(out.data(), outl + finl) + "/" + to_hex(tag, m.tag_len);
}

std::string fresh_seal(const CipherFns& f, void* provctx, const Mode& m, const unsigned char* key,
                       size_t len) {
    void* ctx = f.newctx(provctx);
    REQUIRE(f.einit(ctx, key, 16, kIv, m.iv_len, nullptr) == 1);
    std::string s = seal(f, ctx, m, len);
    f.freectx(ctx);
    return s;
}

}  // namespace

TEST_CASE("SM4-GCM and SM4-CCM: a key given again, or another, seals as a fresh context",
          "[gcm][ccm][dispatch]") {
    g_core = FakeCore{};
    Module mod;
    REQUIRE(mod.init_result == 1);
    for (const Mode& m : kModes) {
        INFO(m.name);
        CipherFns f(mod.cipher(m.name));
        const std::string want1 = fresh_seal(f, mod.provctx, m, kKey1, 100);
        const std::string want2 = fresh_seal(f, mod.provctx, m, kKey2, 100);
        REQUIRE(want1 != want2);

        void* ctx = f.newctx(mod.provctx);
        const unsigned char* keys[] = {kKey1, kKey1, kKey2, kKey2, kKey1, kKey2, kKey1, kKey1};
        for (const unsigned char* key : keys) {
            REQUIRE(f.einit(ctx, key, 16, kIv, m.iv_len, nullptr) == 1);
            CHECK(seal(f, ctx, m, 100) == (key == kKey1 ? want1 : want2));
        }

        // A copy re-keyed leaves the original's key alone, and back.
        void* copy = f.dupctx(ctx);
        REQUIRE(f.einit(copy, kKey2, 16, kIv, m.iv_len, nullptr) == 1);
        REQUIRE(f.einit(ctx, kKey1, 16, kIv, m.iv_len, nullptr) == 1);
        CHECK(seal(f, copy, m, 100) == want2);
        CHECK(seal(f, ctx, m, 100) == want1);
        f.freectx(copy);

        // Decryption under the key the encryptions left in place.
        const std::vector<unsigned char> ct = from_hex(want1.substr(0, want1.find('/')));
        const std::vector<unsigned char> tag = from_hex(want1.substr(want1.find('/') + 1));
        OSSL_PARAM tp[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG,
                                                   const_cast<unsigned char*>(tag.data()), tag.size()),
                           OSSL_PARAM_END};
        REQUIRE(f.dinit(ctx, kKey1, 16, kIv, m.iv_len, tp) == 1);
        std::vector<unsigned char> pt(ct.size() + 16);
        size_t outl = 0, finl = 0;
        REQUIRE(f.update(ctx, pt.data(), &outl, pt.size(), ct.data(), ct.size()) == 1);
        CHECK(f.final(ctx, pt.data() + outl, &finl, pt.size() - outl) == 1);
        pt.resize(outl + finl);
        CHECK(pt == text(100));
        f.freectx(ctx);
    }
}

TEST_CASE("SM4-GCM: the same key given in the middle of a message restarts it from its IV",
          "[gcm][dispatch]") {
    g_core = FakeCore{};
    Module mod;
    REQUIRE(mod.init_result == 1);
    const Mode& m = kModes[0];
    CipherFns f(mod.cipher(m.name));
    void* ctx = f.newctx(mod.provctx);
    REQUIRE(f.einit(ctx, kKey1, 16, kIv, m.iv_len, nullptr) == 1);
    const std::vector<unsigned char> in = text(20);
    std::vector<unsigned char> out(20);
    size_t outl = 0;
    REQUIRE(f.update(ctx, out.data(), &outl, out.size(), in.data(), in.size()) == 1);
    REQUIRE(f.einit(ctx, kKey1, 16, nullptr, 0, nullptr) == 1);
    CHECK(seal(f, ctx, m, 100) == fresh_seal(f, mod.provctx, m, kKey1, 100));
    f.freectx(ctx);
}
