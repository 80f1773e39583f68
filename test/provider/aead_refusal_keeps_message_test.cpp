// A refused AEAD call leaves the message as it was, where OpenSSL's default
// provider (4.0.2, probed) changes it: a refused "tlsaad" switches its GCM
// and CCM into TLS record mode anyway, GCM takes an update with a NULL input
// and a length for its final, and CCM drops the computed tag when a later
// update is refused. Each case finishes the message after the refusal and
// compares it with the same message in a context that saw no refusal.
#include <openssl/evp.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "provider_fixture.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

struct Aead {
    const char* name;
    size_t iv_len, tag_len;
};

struct Sealed {
    bool ok = false;
    Bytes ct, tag;
};

// Key and IV; for CCM the tag length first, and the payload length declared.
CipherCtxPtr begin(const EVP_CIPHER* c, const Aead& a, const Bytes& key, const Bytes& iv, size_t len) {
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_EncryptInit_ex2(ctx.get(), c, nullptr, nullptr, nullptr) == 1);
    REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(a.iv_len), nullptr) == 1);
    const bool ccm = std::strcmp(a.name, "SM4-CCM") == 0;
    if (ccm) REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, static_cast<int>(a.tag_len), nullptr) == 1);
    REQUIRE(EVP_EncryptInit_ex2(ctx.get(), nullptr, key.data(), iv.data(), nullptr) == 1);
    int n = 0;
    if (ccm) REQUIRE(EVP_EncryptUpdate(ctx.get(), nullptr, &n, nullptr, static_cast<int>(len)) == 1);
    return ctx;
}

// AAD, payload, final, tag on a context begin() made.
Sealed finish(EVP_CIPHER_CTX* ctx, const Aead& a, const Bytes& aad, const Bytes& msg) {
    Sealed r;
    int n = 0;
    if (EVP_EncryptUpdate(ctx, nullptr, &n, aad.data(), static_cast<int>(aad.size())) != 1) return r;
    r.ct.assign(msg.size() + 16, 0);
    if (EVP_EncryptUpdate(ctx, r.ct.data(), &n, msg.data(), static_cast<int>(msg.size())) != 1) return r;
    int fin = 0;
    if (EVP_EncryptFinal_ex(ctx, r.ct.data() + n, &fin) != 1) return r;
    r.ct.resize(static_cast<size_t>(n + fin));
    r.tag.resize(a.tag_len);
    r.ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(a.tag_len), r.tag.data()) == 1;
    return r;
}

// The message as a context that saw no refusal seals it.
Sealed sealed_without_refusal(const EVP_CIPHER* c, const Aead& a, const Bytes& key, const Bytes& iv,
                              const Bytes& aad, const Bytes& msg) {
    CipherCtxPtr clean = begin(c, a, key, iv, msg.size());
    Sealed want = finish(clean.get(), a, aad, msg);
    REQUIRE(want.ok);
    return want;
}

}  // namespace

TEST_CASE("SM4-GCM/CCM: a refused tlsaad leaves TLS record mode off", "[cipher][gcm][ccm][errors]") {
    LoadedProvider prov;
    Lcg rng(1313);
    for (const Aead& a : {Aead{"SM4-GCM", 12, 16}, Aead{"SM4-CCM", 12, 16}}) {
        INFO(a.name);
        CipherPtr c = prov.cipher(a.name);
        const Bytes key = rng.bytes(16), iv = rng.bytes(12), aad = rng.bytes(13), msg = rng.bytes(40);
        const Sealed want = sealed_without_refusal(c.get(), a, key, iv, aad, msg);
        // Too short for a TLS header, and a header whose record length (2)
        // cannot hold the 8-byte explicit IV.
        Bytes five = rng.bytes(5), short_record = rng.bytes(13);
        short_record[11] = 0;
        short_record[12] = 2;
        for (Bytes* bad : {&five, &short_record}) {
            CipherCtxPtr ctx = begin(c.get(), a, key, iv, msg.size());
            CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_TLS1_AAD, static_cast<int>(bad->size()),
                                      bad->data()) <= 0);
            CHECK_FALSE(take_errors().empty());
            const Sealed got = finish(ctx.get(), a, aad, msg);
            CHECK(got.ok);
            CHECK(got.ct == want.ct);
            CHECK(got.tag == want.tag);
        }
    }
}

TEST_CASE("SM4-GCM: an update with a NULL input and a length is refused, not taken for final",
          "[cipher][gcm][errors]") {
    LoadedProvider prov;
    CipherPtr c = prov.cipher("SM4-GCM");
    const Aead a{"SM4-GCM", 12, 16};
    Lcg rng(1414);
    const Bytes key = rng.bytes(16), iv = rng.bytes(12), aad = rng.bytes(20), msg = rng.bytes(33);
    const Sealed want = sealed_without_refusal(c.get(), a, key, iv, aad, msg);
    CipherCtxPtr ctx = begin(c.get(), a, key, iv, msg.size());
    unsigned char out[64];
    int n = -1;
    CHECK(EVP_EncryptUpdate(ctx.get(), out, &n, nullptr, 16) != 1);
    CHECK_FALSE(take_errors().empty());
    const Sealed got = finish(ctx.get(), a, aad, msg);
    CHECK(got.ok);
    CHECK(got.ct == want.ct);
    CHECK(got.tag == want.tag);
}

TEST_CASE("SM4-CCM: a refused update after the payload leaves the tag readable", "[cipher][ccm][errors]") {
    LoadedProvider prov;
    CipherPtr c = prov.cipher("SM4-CCM");
    const Aead a{"SM4-CCM", 12, 16};
    Lcg rng(1515);
    const Bytes key = rng.bytes(16), iv = rng.bytes(12), aad = rng.bytes(20), msg = rng.bytes(33);
    const Sealed want = sealed_without_refusal(c.get(), a, key, iv, aad, msg);
    CipherCtxPtr ctx = begin(c.get(), a, key, iv, msg.size());
    int n = 0;
    REQUIRE(EVP_EncryptUpdate(ctx.get(), nullptr, &n, aad.data(), static_cast<int>(aad.size())) == 1);
    Bytes ct(msg.size());
    REQUIRE(EVP_EncryptUpdate(ctx.get(), ct.data(), &n, msg.data(), static_cast<int>(msg.size())) == 1);
    CHECK(ct == want.ct);
    // A second payload (CCM takes one per nonce) is refused...
    Bytes more(msg.size());
    CHECK(EVP_EncryptUpdate(ctx.get(), more.data(), &n, msg.data(), static_cast<int>(msg.size())) != 1);
    CHECK_FALSE(take_errors().empty());
    // ...and the message's tag is still there.
    int fin = 0;
    REQUIRE(EVP_EncryptFinal_ex(ctx.get(), more.data(), &fin) == 1);
    Bytes tag(a.tag_len);
    REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(a.tag_len), tag.data()) == 1);
    CHECK(tag == want.tag);
}
