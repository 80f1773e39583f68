// SM4-CCM: an encryption's tag read after a re-init. OpenSSL's default
// provider (3.6 and 4.0.2, probed) keeps a finished message's tag readable,
// once, through any encrypting re-init before the read: a new IV, a key, both,
// neither, parameters, a decrypting init and back. hwaccel does the same,
// and drops the tag when the next message begins or a read takes it; what a
// decryption computed is never given out (3.6's default gives the real tag
// of a ciphertext whose forged tag it just refused).
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "provider_fixture.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

struct Message {
    Bytes key, nonce, aad, msg;
    size_t tag_len;
};

CipherPtr default_ccm(const LoadedProvider& prov) { return prov.default_cipher_if_any("SM4-CCM"); }

// Nonce length and tag length, then key and nonce (the default provider's
// order: it checks the nonce against the length in force).
CipherCtxPtr start(const EVP_CIPHER* c, bool enc, const Message& m, const Bytes* tag) {
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    size_t ivlen = m.nonce.size();
    OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG,
                                              tag ? const_cast<uint8_t*>(tag->data()) : nullptr,
                                              m.tag_len),
                      OSSL_PARAM_END};
    REQUIRE(EVP_CipherInit_ex2(ctx.get(), c, nullptr, nullptr, enc ? 1 : 0, p) == 1);
    REQUIRE(EVP_CipherInit_ex2(ctx.get(), nullptr, m.key.data(), m.nonce.data(), -1, nullptr) == 1);
    return ctx;
}

// Declaration, AAD, payload and final on a started context; the output
// (empty when refused). An empty AAD or payload is left out: final runs the
// empty payload.
Bytes run(EVP_CIPHER_CTX* ctx, const Message& m, const Bytes& in) {
    int n = 0;
    REQUIRE(EVP_CipherUpdate(ctx, nullptr, &n, nullptr, static_cast<int>(in.size())) == 1);
    if (!m.aad.empty())
        REQUIRE(EVP_CipherUpdate(ctx, nullptr, &n, m.aad.data(), static_cast<int>(m.aad.size())) == 1);
    Bytes out(in.size());
    if (!in.empty() && EVP_CipherUpdate(ctx, out.data(), &n, in.data(), static_cast<int>(in.size())) != 1)
        return {};
    unsigned char fin[16];
    if (EVP_CipherFinal_ex(ctx, fin, &n) != 1) return {};
    return out;
}

// The tag through get_params, tag_len bytes; empty when refused.
Bytes read_tag(EVP_CIPHER_CTX* ctx, size_t tag_len) {
    Bytes t(tag_len);
    OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, t.data(), t.size()),
                      OSSL_PARAM_END};
    const bool ok = EVP_CIPHER_CTX_get_params(ctx, p) == 1;
    take_errors();
    return ok ? t : Bytes{};
}

// A fresh context's ciphertext || tag.
Bytes seal(const EVP_CIPHER* c, const Message& m) {
    CipherCtxPtr ctx = start(c, true, m, nullptr);
    Bytes out = run(ctx.get(), m, m.msg);
    Bytes tag = read_tag(ctx.get(), m.tag_len);
    REQUIRE(tag.size() == m.tag_len);
    out.insert(out.end(), tag.begin(), tag.end());
    return out;
}

struct Form {
    const char* name;
    // The re-init after the final; true if it succeeded.
    bool (*reinit)(EVP_CIPHER_CTX*, const Message& old, const Message& next);
};

bool init(EVP_CIPHER_CTX* ctx, const unsigned char* key, const unsigned char* iv,
          const OSSL_PARAM* p = nullptr) {
    return EVP_EncryptInit_ex2(ctx, nullptr, key, iv, p) == 1;
}

const Form kForms[] = {
    {"no re-init", [](EVP_CIPHER_CTX*, const Message&, const Message&) { return true; }},
    {"init with nothing", [](EVP_CIPHER_CTX* c, const Message&, const Message&) { return init(c, nullptr, nullptr); }},
    {"init with a new IV", [](EVP_CIPHER_CTX* c, const Message&, const Message& n) { return init(c, nullptr, n.nonce.data()); }},
    {"init with the same key", [](EVP_CIPHER_CTX* c, const Message& o, const Message&) { return init(c, o.key.data(), nullptr); }},
    {"init with another key", [](EVP_CIPHER_CTX* c, const Message&, const Message& n) { return init(c, n.key.data(), nullptr); }},
    {"init with another key and IV", [](EVP_CIPHER_CTX* c, const Message&, const Message& n) {
         return init(c, n.key.data(), n.nonce.data()); }},
    {"EVP_CipherInit_ex2(-1) with a new IV", [](EVP_CIPHER_CTX* c, const Message&, const Message& n) {
         return EVP_CipherInit_ex2(c, nullptr, nullptr, n.nonce.data(), -1, nullptr) == 1; }},
    {"init with another ivlen", [](EVP_CIPHER_CTX* c, const Message&, const Message&) {
         size_t ivlen = 9;
         OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen), OSSL_PARAM_END};
         return init(c, nullptr, nullptr, p); }},
    {"init with another tag length", [](EVP_CIPHER_CTX* c, const Message&, const Message&) {
         OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 6), OSSL_PARAM_END};
         return init(c, nullptr, nullptr, p); }},
    {"set_params with another ivlen", [](EVP_CIPHER_CTX* c, const Message&, const Message&) {
         size_t ivlen = 9;
         OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen), OSSL_PARAM_END};
         return EVP_CIPHER_CTX_set_params(c, p) == 1; }},
    {"a decrypting init, then an encrypting one", [](EVP_CIPHER_CTX* c, const Message&, const Message&) {
         return EVP_DecryptInit_ex2(c, nullptr, nullptr, nullptr, nullptr) == 1 && init(c, nullptr, nullptr); }},
};

}  // namespace

TEST_CASE("SM4-CCM: a re-init before the tag is read keeps the finished message's tag, as the default's",
          "[cipher][ccm][ccm-reinit-tag]") {
    LoadedProvider prov;
    CipherPtr ours = prov.cipher("SM4-CCM");
    CipherPtr theirs = default_ccm(prov);
    if (!theirs) WARN("this OpenSSL's default provider has no SM4-CCM: compared in the 3.6/4.0 runs");
    Lcg rng(2209);
    const Message old{rng.bytes(16), rng.bytes(12), rng.bytes(20), rng.bytes(50), 16};
    const Message next{rng.bytes(16), rng.bytes(12), rng.bytes(7), rng.bytes(33), 16};
    const Bytes sealed = seal(ours.get(), old);
    const Bytes old_tag(sealed.end() - 16, sealed.end());
    for (const Form& f : kForms) {
        INFO(f.name);
        std::vector<const EVP_CIPHER*> ciphers{ours.get()};
        if (theirs) ciphers.push_back(theirs.get());
        std::vector<Bytes> got;
        for (const EVP_CIPHER* c : ciphers) {
            INFO((c == ours.get() ? "hwaccel" : "default"));
            CipherCtxPtr ctx = start(c, true, old, nullptr);
            CHECK(run(ctx.get(), old, old.msg) == Bytes(sealed.begin(), sealed.end() - 16));
            REQUIRE(f.reinit(ctx.get(), old, next));
            take_errors();
            // The old message's tag at its own length, once.
            got.push_back(read_tag(ctx.get(), 16));
            CHECK(read_tag(ctx.get(), 16).empty());
        }
        CHECK(got[0] == old_tag);
        if (theirs) CHECK(got[1] == got[0]);
    }
    // Through the control too (libcrypto turns it into the same get_params).
    CipherCtxPtr ctx = start(ours.get(), true, old, nullptr);
    run(ctx.get(), old, old.msg);
    REQUIRE(init(ctx.get(), nullptr, next.nonce.data()));
    Bytes tag(16);
    CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) == 1);
    CHECK(tag == old_tag);
}

TEST_CASE("SM4-CCM: a kept tag is the finished message's, and no decryption's", "[cipher][ccm][ccm-reinit-tag]") {
    LoadedProvider prov;
    CipherPtr c = prov.cipher("SM4-CCM");
    Lcg rng(2210);
    const Message old{rng.bytes(16), rng.bytes(12), rng.bytes(20), rng.bytes(50), 16};
    const Message next{rng.bytes(16), rng.bytes(12), rng.bytes(7), rng.bytes(33), 16};
    const Bytes sealed = seal(c.get(), old);
    const Bytes old_ct(sealed.begin(), sealed.end() - 16), old_tag(sealed.end() - 16, sealed.end());
    auto finished = [&] {
        CipherCtxPtr ctx = start(c.get(), true, old, nullptr);
        REQUIRE(run(ctx.get(), old, old.msg) == old_ct);
        return ctx;
    };

    SECTION("at its own length only") {
        CipherCtxPtr ctx = finished();
        OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 6), OSSL_PARAM_END};
        REQUIRE(init(ctx.get(), nullptr, next.nonce.data(), p));
        CHECK(read_tag(ctx.get(), 6).empty());
        CHECK(read_tag(ctx.get(), 16) == old_tag);
    }
    SECTION("the next message's declaration drops it; that message's final gives its own") {
        CipherCtxPtr ctx = finished();
        REQUIRE(init(ctx.get(), next.key.data(), next.nonce.data()));
        int n = 0;
        REQUIRE(EVP_EncryptUpdate(ctx.get(), nullptr, &n, nullptr, static_cast<int>(next.msg.size())) == 1);
        CHECK(read_tag(ctx.get(), 16).empty());  // the default's gives its CBC-MAC register here
        REQUIRE(EVP_EncryptUpdate(ctx.get(), nullptr, &n, next.aad.data(), static_cast<int>(next.aad.size())) == 1);
        Bytes ct(next.msg.size());
        REQUIRE(EVP_EncryptUpdate(ctx.get(), ct.data(), &n, next.msg.data(), static_cast<int>(next.msg.size())) == 1);
        REQUIRE(EVP_EncryptFinal_ex(ctx.get(), ct.data(), &n) == 1);
        Bytes want = seal(c.get(), next);
        CHECK(ct == Bytes(want.begin(), want.end() - 16));
        CHECK(read_tag(ctx.get(), 16) == Bytes(want.end() - 16, want.end()));
    }
    SECTION("an AAD-only message's final replaces it") {
        CipherCtxPtr ctx = finished();
        REQUIRE(init(ctx.get(), nullptr, next.nonce.data()));
        unsigned char fin[16];
        int n = 0;
        REQUIRE(EVP_EncryptFinal_ex(ctx.get(), fin, &n) == 1);
        Message empty = next;
        empty.key = old.key;
        empty.aad.clear();
        empty.msg.clear();
        CHECK(read_tag(ctx.get(), 16) == seal(c.get(), empty));
    }
    SECTION("reading it leaves the nonce a re-init gave for the next message") {
        // (The default's read drops that nonce too, so its next payload is refused.)
        CipherCtxPtr ctx = finished();
        REQUIRE(init(ctx.get(), next.key.data(), next.nonce.data()));
        CHECK(read_tag(ctx.get(), 16) == old_tag);
        const Bytes want = seal(c.get(), next);
        CHECK(run(ctx.get(), next, next.msg) == Bytes(want.begin(), want.end() - 16));
        // The old nonce stays spent: a re-init without an IV cannot encrypt.
        REQUIRE(init(ctx.get(), nullptr, nullptr));
        int n = 0;
        Bytes out(next.msg.size());
        CHECK(EVP_EncryptUpdate(ctx.get(), out.data(), &n, next.msg.data(), static_cast<int>(next.msg.size())) != 1);
        CHECK_FALSE(take_errors().empty());
    }
    SECTION("a decryption, right or wrong, then an encrypting init: nothing to read") {
        for (bool right : {true, false}) {
            INFO((right ? "right tag" : "forged tag"));
            Bytes tag = old_tag;
            if (!right) tag[3] ^= 0x10;
            CipherCtxPtr ctx = finished();  // an encryption's tag is there before
            size_t ivlen = old.nonce.size();
            OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                              OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag.data(), tag.size()),
                              OSSL_PARAM_END};
            REQUIRE(EVP_DecryptInit_ex2(ctx.get(), nullptr, old.key.data(), old.nonce.data(), p) == 1);
            const Bytes plain = run(ctx.get(), old, old_ct);
            CHECK(plain == (right ? old.msg : Bytes{}));
            take_errors();
            REQUIRE(init(ctx.get(), nullptr, nullptr));
            CHECK(read_tag(ctx.get(), 16).empty());
            CHECK(read_tag(ctx.get(), 6).empty());
        }
    }
    SECTION("a decrypting context reads none") {
        CipherCtxPtr ctx = finished();
        REQUIRE(EVP_DecryptInit_ex2(ctx.get(), nullptr, nullptr, nullptr, nullptr) == 1);
        CHECK(read_tag(ctx.get(), 16).empty());
        // Back to encrypting before any decryption began: the tag is there (as the default's).
        REQUIRE(init(ctx.get(), nullptr, nullptr));
        CHECK(read_tag(ctx.get(), 16) == old_tag);
    }
}
