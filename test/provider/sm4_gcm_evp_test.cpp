// SM4-GCM through EVP: OpenSSL 4.0's vectors (RFC 8998's example), the
// parameter lists of the default provider of 3.6/4.0, and a differential test
// over every SM4 and GHASH engine against a reference: the default provider's
// SM4-GCM where the running OpenSSL has one (3.5, 3.6 and 4.0 here; 3.2 and later), otherwise
// libgcrypt's GCM over SM4 (OpenSSL 3.0) when the suite was built with it.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/proverr.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#ifdef HWACCEL_TEST_GCRYPT
#include <gcrypt.h>
#endif

#include "hwaccel/cpu.hpp"
#include "hwaccel/registry.hpp"
#include "errors.hpp"
#include "fake_core.hpp"
#include "provider_fixture.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

constexpr size_t kTag = 16;

// The automatic choice, then every SM4 and every GHASH engine this CPU runs,
// one family forced at a time.
std::vector<std::string> gcm_selections() { return engine_selections({"sm4", "ghash"}); }

CipherPtr default_gcm(const LoadedProvider& prov) { return prov.default_cipher_if_any("SM4-GCM"); }

// How a message goes through one context.
struct GcmFeed {
    std::vector<size_t> aad_pieces;   // sum to the AAD length
    std::vector<size_t> text_pieces;  // sum to the text length
    bool in_place = false;
    int copy_at = -1;  // continue on EVP_CIPHER_CTX_copy after this text piece
    bool copy_in_aad = false;  // ... or after the first AAD piece
};

std::vector<size_t> random_pieces(Lcg& rng, size_t len) {
    std::vector<size_t> pieces;
    while (len > 0) {
        size_t p;
        switch (rng.below(5)) {
        case 0: p = 0; break;
        case 1: p = 1 + rng.below(16); break;
        case 2: p = len; break;
        case 3: p = 16 * (1 + rng.below(300)); break;
        default: p = rng.below(700); break;
        }
        p = std::min(p, len);
        pieces.push_back(p);
        len -= p;
    }
    return pieces;
}

GcmFeed random_feed(Lcg& rng, size_t aad_len, size_t text_len) {
    GcmFeed f;
    f.aad_pieces = random_pieces(rng, aad_len);
    f.text_pieces = random_pieces(rng, text_len);
    f.in_place = rng.below(2) == 0;
    if (!f.text_pieces.empty() && rng.below(2) == 0)
        f.copy_at = static_cast<int>(rng.below(f.text_pieces.size()));
    f.copy_in_aad = !f.aad_pieces.empty() && rng.below(4) == 0;
    return f;
}

GcmFeed one_piece(size_t aad_len, size_t text_len) {
    GcmFeed f;
    if (aad_len) f.aad_pieces = {aad_len};
    if (text_len) f.text_pieces = {text_len};
    return f;
}

void copy_context(CipherCtxPtr& ctx) {
    CipherCtxPtr copy(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_CIPHER_CTX_copy(copy.get(), ctx.get()) == 1);
    ctx = std::move(copy);  // the original is freed: the copy must stand alone
}

struct Result {
    bool ok = false;  // every call, final included, succeeded
    Bytes text;       // what update and final wrote
    Bytes tag;        // encryption: the 16-byte tag
};

// Encrypts (tag empty) or decrypts against `tag`.
Result run(const EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& iv, const Bytes& aad,
           const Bytes& in, const GcmFeed& feed, const Bytes& tag = {}) {
    Result r;
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_CipherInit_ex2(ctx.get(), c, nullptr, nullptr, enc, nullptr) == 1);
    size_t ivlen = iv.size();
    OSSL_PARAM set_ivlen[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                              OSSL_PARAM_END};
    REQUIRE(EVP_CIPHER_CTX_set_params(ctx.get(), set_ivlen) == 1);
    REQUIRE(EVP_CipherInit_ex2(ctx.get(), nullptr, key.data(), iv.data(), enc, nullptr) == 1);
    if (!enc) {
        Bytes expected = tag;
        OSSL_PARAM set_tag[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG,
                                                                  expected.data(), expected.size()),
                                OSSL_PARAM_END};
        REQUIRE(EVP_CIPHER_CTX_set_params(ctx.get(), set_tag) == 1);
    }
    size_t done = 0;
    for (size_t i = 0; i < feed.aad_pieces.size(); ++i) {
        int outl = -1;
        if (EVP_CipherUpdate(ctx.get(), nullptr, &outl, aad.data() + done,
                             static_cast<int>(feed.aad_pieces[i])) != 1)
            return r;
        done += feed.aad_pieces[i];
        if (i == 0 && feed.copy_in_aad) copy_context(ctx);
    }
    Bytes buf(in.size() + 16);
    if (!in.empty()) std::memcpy(buf.data(), in.data(), in.size());
    Bytes out_space(in.size() + 16);
    unsigned char* out = feed.in_place ? buf.data() : out_space.data();
    size_t pos = 0, written = 0;
    for (size_t i = 0; i < feed.text_pieces.size(); ++i) {
        int outl = -1;
        if (EVP_CipherUpdate(ctx.get(), out + written, &outl, buf.data() + pos,
                             static_cast<int>(feed.text_pieces[i])) != 1)
            return r;
        pos += feed.text_pieces[i];
        written += static_cast<size_t>(outl);
        if (static_cast<int>(i) == feed.copy_at) copy_context(ctx);
    }
    int outl = -1;
    const int final_ok = EVP_CipherFinal_ex(ctx.get(), out + written, &outl);
    r.text.assign(out, out + written + (final_ok == 1 ? outl : 0));
    if (final_ok != 1) return r;
    if (enc) {
        r.tag.resize(kTag);
        OSSL_PARAM get_tag[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG,
                                                                  r.tag.data(), r.tag.size()),
                                OSSL_PARAM_END};
        REQUIRE(EVP_CIPHER_CTX_get_params(ctx.get(), get_tag) == 1);
    }
    // The message is over: more text is refused until a new IV.
    unsigned char more[1] = {0};
    int more_len = -1;
    CHECK(EVP_CipherUpdate(ctx.get(), more, &more_len, more, 1) != 1);
    ERR_clear_error();
    r.ok = true;
    return r;
}

#ifdef HWACCEL_TEST_GCRYPT
std::optional<Result> gcrypt_seal(const Bytes& key, const Bytes& iv, const Bytes& aad,
                                  const Bytes& msg) {
    if (!gcry_check_version(nullptr)) return std::nullopt;
    gcry_cipher_hd_t h;
    if (gcry_cipher_open(&h, GCRY_CIPHER_SM4, GCRY_CIPHER_MODE_GCM, 0) != 0) return std::nullopt;
    Result r;
    r.text.resize(msg.size());
    r.tag.resize(kTag);
    r.ok = gcry_cipher_setkey(h, key.data(), key.size()) == 0 &&
           gcry_cipher_setiv(h, iv.data(), iv.size()) == 0 &&
           gcry_cipher_authenticate(h, aad.data(), aad.size()) == 0 &&
           gcry_cipher_final(h) == 0 &&
           gcry_cipher_encrypt(h, r.text.data(), r.text.size(), msg.data(), msg.size()) == 0 &&
           gcry_cipher_gettag(h, r.tag.data(), r.tag.size()) == 0;
    gcry_cipher_close(h);
    if (!r.ok) return std::nullopt;
    return r;
}
#endif

// The reference's encryption, and its name; nullopt where there is none.
std::optional<Result> reference_seal(const EVP_CIPHER* theirs, const Bytes& key, const Bytes& iv,
                                     const Bytes& aad, const Bytes& msg) {
    if (theirs != nullptr) return run(theirs, true, key, iv, aad, msg, one_piece(aad.size(), msg.size()));
#ifdef HWACCEL_TEST_GCRYPT
    return gcrypt_seal(key, iv, aad, msg);
#else
    return std::nullopt;
#endif
}

std::string reference_name(const EVP_CIPHER* theirs) {
    if (theirs != nullptr) return "the default provider";
#ifdef HWACCEL_TEST_GCRYPT
    return "libgcrypt";
#else
    return "";
#endif
}

std::set<std::string> keys_of(const OSSL_PARAM* p) {
    std::set<std::string> keys;
    for (; p != nullptr && p->key != nullptr; ++p)
        keys.insert(std::string(p->key) + "/" + std::to_string(p->data_type));
    return keys;
}

std::set<std::string> typed(std::initializer_list<std::pair<const char*, unsigned>> list) {
    std::set<std::string> keys;
    for (const auto& [key, type] : list) keys.insert(std::string(key) + "/" + std::to_string(type));
    return keys;
}

}  // namespace

TEST_CASE("SM4-GCM: names and parameter lists as OpenSSL 4.0's default provider", "[gcm][params]") {
    LoadedProvider prov;
    CipherPtr ours = prov.cipher("SM4-GCM");
    CHECK(prov.cipher("1.2.156.10197.1.104.8") != nullptr);
    CHECK(EVP_CIPHER_get_mode(ours.get()) == EVP_CIPH_GCM_MODE);
    CHECK(EVP_CIPHER_get_iv_length(ours.get()) == 12);
    CHECK(EVP_CIPHER_get_key_length(ours.get()) == 16);
    CHECK(EVP_CIPHER_get_block_size(ours.get()) == 1);
    CHECK((EVP_CIPHER_get_flags(ours.get()) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0);
    CHECK((EVP_CIPHER_get_flags(ours.get()) & EVP_CIPH_CUSTOM_IV) != 0);
    // OpenSSL 4.0.2's default provider, as it lists them (3.6 lists the same).
    constexpr unsigned kInt = OSSL_PARAM_INTEGER, kUint = OSSL_PARAM_UNSIGNED_INTEGER,
                       kOct = OSSL_PARAM_OCTET_STRING;
    std::set<std::string> gettable = typed({{"mode", kUint}, {"keylen", kUint}, {"ivlen", kUint},
                                            {"blocksize", kUint}, {"aead", kInt}, {"custom-iv", kInt},
                                            {"cts", kInt}, {"tls-multi", kInt}, {"has-randkey", kInt}});
    // "encrypt-then-mac" came with 3.6, for every cipher.
    if (OPENSSL_version_major() * 100 + OPENSSL_version_minor() >= 306)
        gettable.insert(std::string("encrypt-then-mac/") + std::to_string(kInt));
    const std::set<std::string> gettable_ctx =
        typed({{"keylen", kUint}, {"ivlen", kUint}, {"taglen", kUint}, {"iv", kOct},
               {"updated-iv", kOct}, {"tag", kOct}, {"tlsaadpad", kUint}, {"tlsivgen", kOct},
               {"iv-generated", kUint}});
    const std::set<std::string> settable_ctx = typed(
        {{"ivlen", kUint}, {"tag", kOct}, {"tlsaad", kOct}, {"tlsivfixed", kOct}, {"tlsivinv", kOct}});
    CHECK(keys_of(EVP_CIPHER_gettable_params(ours.get())) == gettable);
    CHECK(keys_of(EVP_CIPHER_gettable_ctx_params(ours.get())) == gettable_ctx);
    CHECK(keys_of(EVP_CIPHER_settable_ctx_params(ours.get())) == settable_ctx);
    CipherPtr theirs = default_gcm(prov);
    if (theirs == nullptr) {
        WARN("this OpenSSL's default provider has no SM4-GCM: lists compared with 4.0's only");
        return;
    }
    CHECK(keys_of(EVP_CIPHER_gettable_params(ours.get())) ==
          keys_of(EVP_CIPHER_gettable_params(theirs.get())));
    CHECK(keys_of(EVP_CIPHER_gettable_ctx_params(ours.get())) ==
          keys_of(EVP_CIPHER_gettable_ctx_params(theirs.get())));
    CHECK(keys_of(EVP_CIPHER_settable_ctx_params(ours.get())) ==
          keys_of(EVP_CIPHER_settable_ctx_params(theirs.get())));
    CHECK(EVP_CIPHER_get_flags(ours.get()) == EVP_CIPHER_get_flags(theirs.get()));
    EVP_CIPHER_names_do_all(theirs.get(), [](const char* alias, void* arg) {
        auto* p = static_cast<LoadedProvider*>(arg);
        CipherPtr m(EVP_CIPHER_fetch(p->libctx(), alias, "provider=hwaccel"));
        INFO("alias " << alias);
        CHECK(m != nullptr);
    }, &prov);
}

TEST_CASE("SM4-GCM: OpenSSL 4.0's evpciph_sm4.txt (RFC 8998's example), every engine", "[gcm][vectors]") {
    const auto vectors = load_evp_cipher_tests(vector_path("sm4/evpciph_sm4-openssl-4.0.txt"));
    for (const std::string& sel : gcm_selections()) {
        LoadedProvider prov(sel);
        CipherPtr c = prov.cipher("SM4-GCM");
        int checked = 0;
        for (const CipherVector& v : vectors) {
            if (v.cipher != "SM4-GCM") continue;
            INFO(v.where << " engines " << prov.engines());
            Bytes aad, tag;
            for (const auto& [key, value] : v.other) {
                if (key == "AAD") aad = from_hex(value);
                else if (key == "Tag") tag = from_hex(value);
                else FAIL("unexpected field " << key);
            }
            Result e = run(c.get(), true, v.key, v.iv, aad, v.plaintext,
                           one_piece(aad.size(), v.plaintext.size()));
            CHECK(e.ok);
            CHECK(to_hex(e.text) == to_hex(v.ciphertext));
            CHECK(to_hex(e.tag) == to_hex(tag));
            Result d = run(c.get(), false, v.key, v.iv, aad, v.ciphertext,
                           one_piece(aad.size(), v.ciphertext.size()), tag);
            CHECK(d.ok);
            CHECK(to_hex(d.text) == to_hex(v.plaintext));
            tag[15] ^= 1;
            CHECK_FALSE(run(c.get(), false, v.key, v.iv, aad, v.ciphertext,
                            one_piece(aad.size(), v.ciphertext.size()), tag).ok);
            ERR_clear_error();
            ++checked;
        }
        CHECK(checked >= 1);
    }
}

TEST_CASE("SM4-GCM equals the reference: random IVs, AAD, texts, pieces, in place, copies, tags",
          "[gcm][differential]") {
    Lcg rng(8998);
    for (const std::string& sel : gcm_selections()) {
        LoadedProvider prov(sel);
        CipherPtr ours = prov.cipher("SM4-GCM");
        CipherPtr theirs = default_gcm(prov);
        if (theirs == nullptr && reference_name(nullptr).empty()) {
            WARN("no reference SM4-GCM (default provider or libgcrypt): differential skipped");
            return;
        }
        for (int iter = 0; iter < 40; ++iter) {
            const size_t iv_len = rng.below(3) == 0 ? 12 : 1 + rng.below(64);
            const size_t aad_len = iter < 8 ? iter : (rng.below(2) ? rng.below(40) : rng.below(5001));
            const size_t text_len = iter < 8 ? 8 - iter : rng.below(5001);
            const Bytes key = rng.bytes(16), iv = rng.bytes(iv_len), aad = rng.bytes(aad_len),
                        msg = rng.bytes(text_len);
            INFO("engines " << prov.engines() << " against " << reference_name(theirs.get())
                            << ": iv " << iv_len << " aad " << aad_len << " text " << text_len);
            const std::optional<Result> want = reference_seal(theirs.get(), key, iv, aad, msg);
            REQUIRE(want.has_value());
            REQUIRE(want->ok);
            GcmFeed feed = random_feed(rng, aad_len, text_len);
            INFO("in place " << feed.in_place << " copy at " << feed.copy_at << " copy in aad "
                             << feed.copy_in_aad);
            Result got = run(ours.get(), true, key, iv, aad, msg, feed);
            CHECK(got.ok);
            CHECK(got.text == want->text);
            CHECK(got.tag == want->tag);
            // Decryption with the tag cut to 4..16 bytes.
            const size_t tag_len = 4 + rng.below(13);
            const Bytes tag(want->tag.begin(), want->tag.begin() + tag_len);
            Result plain = run(ours.get(), false, key, iv, aad, want->text,
                               random_feed(rng, aad_len, text_len), tag);
            CHECK(plain.ok);
            CHECK(plain.text == msg);
            // Any change to tag, ciphertext or AAD fails the final.
            Bytes bad_tag = tag, bad_text = want->text, bad_aad = aad;
            bad_tag[rng.below(tag_len)] ^= static_cast<uint8_t>(1 + rng.below(255));
            CHECK_FALSE(run(ours.get(), false, key, iv, aad, want->text,
                            random_feed(rng, aad_len, text_len), bad_tag).ok);
            if (text_len != 0) {
                bad_text[rng.below(text_len)] ^= static_cast<uint8_t>(1 + rng.below(255));
                CHECK_FALSE(run(ours.get(), false, key, iv, aad, bad_text,
                                random_feed(rng, aad_len, text_len), tag).ok);
            }
            if (aad_len != 0) {
                bad_aad[rng.below(aad_len)] ^= static_cast<uint8_t>(1 + rng.below(255));
                CHECK_FALSE(run(ours.get(), false, key, iv, bad_aad, want->text,
                                random_feed(rng, aad_len, text_len), tag).ok);
            }
            ERR_clear_error();
        }
    }
}

TEST_CASE("SM4-GCM: the counter's low 32 bits wrap without carry (inc32)", "[gcm][differential]") {
    // A 16-byte IV makes J0 a GHASH output. Under this key, IV
    // 0^64 || 50025143 (64-bit big-endian) gives J0 a low word of 0xffffffc3
    // (found by searching with the mode's own code; the reference decides
    // what is right): the counter wraps 60 blocks into the message, where a
    // 128-bit increment would carry into the upper 96 bits.
    Bytes key(16), iv(16, 0);
    for (size_t i = 0; i < 16; ++i) key[i] = static_cast<uint8_t>(i);
    const uint64_t index = 50025143;
    for (int i = 0; i < 8; ++i) iv[15 - i] = static_cast<uint8_t>(index >> (8 * i));
    Lcg rng(32);
    const Bytes aad = rng.bytes(20), msg = rng.bytes(4000);
    for (const std::string& sel : gcm_selections()) {
        LoadedProvider prov(sel);
        CipherPtr ours = prov.cipher("SM4-GCM");
        CipherPtr theirs = default_gcm(prov);
        const std::optional<Result> want = reference_seal(theirs.get(), key, iv, aad, msg);
        if (!want) {
            WARN("no reference SM4-GCM: inc32 test skipped");
            return;
        }
        for (int round = 0; round < 4; ++round) {
            INFO("engines " << prov.engines() << " round " << round);
            const GcmFeed feed = round == 0 ? one_piece(aad.size(), msg.size())
                                            : random_feed(rng, aad.size(), msg.size());
            Result got = run(ours.get(), true, key, iv, aad, msg, feed);
            CHECK(got.ok);
            CHECK(got.text == want->text);
            CHECK(got.tag == want->tag);
        }
    }
}

namespace {

struct Sentinel {
    Bytes buf = Bytes(64, 0xa5);
    bool untouched() const {
        for (uint8_t b : buf)
            if (b != 0xa5) return false;
        return true;
    }
};

// One error on the queue, from hwaccel; the queue is emptied.
bool raised_error() {
    const bool any = ERR_peek_error() != 0;
    ERR_clear_error();
    return any;
}

CipherCtxPtr started(const EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& iv) {
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_CipherInit_ex2(ctx.get(), c, key.data(), iv.data(), enc, nullptr) == 1);
    return ctx;
}

}  // namespace

TEST_CASE("SM4-GCM refuses bad input: an error, nothing written", "[gcm][bad-input]") {
    LoadedProvider prov;
    CipherPtr c = prov.cipher("SM4-GCM");
    Lcg rng(11);
    const Bytes key = rng.bytes(16), iv = rng.bytes(12), msg = rng.bytes(40);
    int outl = 7;
    Sentinel s;

    SECTION("AAD after text") {
        CipherCtxPtr ctx = started(c.get(), true, key, iv);
        REQUIRE(EVP_EncryptUpdate(ctx.get(), s.buf.data(), &outl, msg.data(), 5) == 1);
        CHECK(EVP_EncryptUpdate(ctx.get(), nullptr, &outl, msg.data(), 5) != 1);
        CHECK(raised_error());
    }
    SECTION("negative lengths through EVP, NULL with a length") {
        CipherCtxPtr ctx = started(c.get(), true, key, iv);
        CHECK(EVP_EncryptUpdate(ctx.get(), s.buf.data(), &outl, msg.data(), -1) != 1);
        CHECK(raised_error());
        CHECK(EVP_EncryptUpdate(ctx.get(), nullptr, &outl, msg.data(), -16) != 1);
        CHECK(raised_error());
        CHECK(EVP_EncryptUpdate(ctx.get(), s.buf.data(), &outl, nullptr, 5) != 1);
        CHECK(raised_error());
        CHECK(s.untouched());
        // The context is as it was: the message still matches the reference.
        CipherCtxPtr fresh = started(c.get(), true, key, iv);
        unsigned char a[40], b[40];
        int la = 0, lb = 0;
        REQUIRE(EVP_EncryptUpdate(ctx.get(), a, &la, msg.data(), 40) == 1);
        REQUIRE(EVP_EncryptUpdate(fresh.get(), b, &lb, msg.data(), 40) == 1);
        CHECK(Bytes(a, a + la) == Bytes(b, b + lb));
    }
    SECTION("update and final after final; final again") {
        CipherCtxPtr ctx = started(c.get(), true, key, iv);
        REQUIRE(EVP_EncryptUpdate(ctx.get(), s.buf.data(), &outl, msg.data(), 5) == 1);
        REQUIRE(EVP_EncryptFinal_ex(ctx.get(), s.buf.data(), &outl) == 1);
        Sentinel t;
        CHECK(EVP_EncryptUpdate(ctx.get(), t.buf.data(), &outl, msg.data(), 5) != 1);
        CHECK(raised_error());
        CHECK(EVP_EncryptFinal_ex(ctx.get(), t.buf.data(), &outl) != 1);
        CHECK(raised_error());
        CHECK(t.untouched());
        // A new IV starts a new message.
        REQUIRE(EVP_EncryptInit_ex2(ctx.get(), nullptr, nullptr, iv.data(), nullptr) == 1);
        CHECK(EVP_EncryptUpdate(ctx.get(), t.buf.data(), &outl, msg.data(), 5) == 1);
    }
    SECTION("tags: get only after an encryption's final, set only for decryption, 1..16 bytes") {
        CipherCtxPtr enc = started(c.get(), true, key, iv);
        unsigned char tag[17] = {};
        CHECK(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag) <= 0);
        CHECK(raised_error());
        CHECK(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag) <= 0);
        CHECK(raised_error());
        REQUIRE(EVP_EncryptFinal_ex(enc.get(), s.buf.data(), &outl) == 1);
        CHECK(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_GET_TAG, 17, tag) <= 0);
        CHECK(raised_error());
        CHECK(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_GET_TAG, 4, tag) == 1);
        CipherCtxPtr dec = started(c.get(), false, key, iv);
        CHECK(EVP_CIPHER_CTX_ctrl(dec.get(), EVP_CTRL_AEAD_SET_TAG, 17, tag) <= 0);
        CHECK(raised_error());
        CHECK(EVP_CIPHER_CTX_ctrl(dec.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag) <= 0);
        CHECK(raised_error());
        // Decryption's final without an expected tag.
        CHECK(EVP_DecryptFinal_ex(dec.get(), s.buf.data(), &outl) != 1);
        CHECK(raised_error());
        CHECK(s.untouched());
    }
    SECTION("IV lengths 1..128") {
        CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_EncryptInit_ex2(ctx.get(), c.get(), nullptr, nullptr, nullptr) == 1);
        for (size_t bad : {size_t{0}, size_t{129}}) {
            size_t len = bad;
            OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &len),
                              OSSL_PARAM_END};
            CHECK(EVP_CIPHER_CTX_set_params(ctx.get(), p) != 1);
            CHECK(raised_error());
        }
        CHECK(EVP_CIPHER_CTX_get_iv_length(ctx.get()) == 12);
        size_t len = 128;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &len),
                          OSSL_PARAM_END};
        CHECK(EVP_CIPHER_CTX_set_params(ctx.get(), p) == 1);
        CHECK(EVP_CIPHER_CTX_get_iv_length(ctx.get()) == 128);
    }
    SECTION("an IV length change mid-message ends the message") {
        CipherCtxPtr enc = started(c.get(), true, key, iv);
        REQUIRE(EVP_EncryptUpdate(enc.get(), s.buf.data(), &outl, msg.data(), 16) == 1);
        size_t len = 16;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &len),
                          OSSL_PARAM_END};
        REQUIRE(EVP_CIPHER_CTX_set_params(enc.get(), p) == 1);
        // The old IV no longer fits: no more data, no tag, until a new IV.
        Sentinel t;
        CHECK(EVP_EncryptUpdate(enc.get(), t.buf.data(), &outl, msg.data(), 16) != 1);
        CHECK(raised_error());
        CHECK(EVP_EncryptFinal_ex(enc.get(), t.buf.data(), &outl) != 1);
        CHECK(raised_error());
        CHECK(t.untouched());
        const Bytes iv16(16, 7);
        REQUIRE(EVP_EncryptInit_ex2(enc.get(), nullptr, nullptr, iv16.data(), nullptr) == 1);
        CHECK(EVP_EncryptUpdate(enc.get(), t.buf.data(), &outl, msg.data(), 16) == 1);
        CHECK(EVP_EncryptFinal_ex(enc.get(), t.buf.data() + 16, &outl) == 1);
    }
    SECTION("a failed tag check ends the message") {
        CipherCtxPtr dec = started(c.get(), false, key, iv);
        unsigned char tag[16] = {};
        REQUIRE(EVP_CIPHER_CTX_ctrl(dec.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag) == 1);
        REQUIRE(EVP_DecryptUpdate(dec.get(), s.buf.data(), &outl, msg.data(), 16) == 1);
        CHECK(EVP_DecryptFinal_ex(dec.get(), s.buf.data() + 16, &outl) != 1);
        CHECK(raised_error());
        Sentinel t;
        CHECK(EVP_DecryptUpdate(dec.get(), t.buf.data(), &outl, msg.data(), 16) != 1);
        CHECK(raised_error());
        CHECK(EVP_DecryptFinal_ex(dec.get(), t.buf.data(), &outl) != 1);
        CHECK(raised_error());
        CHECK(t.untouched());
    }
    SECTION("decryption without an IV; another key length") {
        CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_DecryptInit_ex2(ctx.get(), c.get(), key.data(), nullptr, nullptr) == 1);
        CHECK(EVP_DecryptUpdate(ctx.get(), s.buf.data(), &outl, msg.data(), 16) != 1);
        CHECK(raised_error());
        CHECK(s.untouched());
        const Bytes short_key(15, 1);
        CHECK(EVP_CIPHER_CTX_set_key_length(ctx.get(), 15) != 1);
        ERR_clear_error();
    }
}

TEST_CASE("SM4-GCM: an IV drawn at random when encryption starts without one", "[gcm][params]") {
    LoadedProvider prov;
    CipherPtr c = prov.cipher("SM4-GCM");
    Lcg rng(3);
    const Bytes key = rng.bytes(16), msg = rng.bytes(33);
    CipherCtxPtr enc(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_EncryptInit_ex2(enc.get(), c.get(), key.data(), nullptr, nullptr) == 1);
    unsigned int generated = 7;
    OSSL_PARAM q[] = {OSSL_PARAM_construct_uint("iv-generated", &generated), OSSL_PARAM_END};
    REQUIRE(EVP_CIPHER_CTX_get_params(enc.get(), q) == 1);
    CHECK(generated == 0);
    Bytes ct(msg.size()), tag(16), iv(12);
    int outl = 0;
    REQUIRE(EVP_EncryptUpdate(enc.get(), ct.data(), &outl, msg.data(), 33) == 1);
    REQUIRE(EVP_EncryptFinal_ex(enc.get(), ct.data(), &outl) == 1);
    REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) == 1);
    REQUIRE(EVP_CIPHER_CTX_get_original_iv(enc.get(), iv.data(), iv.size()) == 1);
    REQUIRE(EVP_CIPHER_CTX_get_params(enc.get(), q) == 1);
    CHECK(generated == 1);
    CHECK(iv != Bytes(12, 0));
    Result d = run(c.get(), false, key, iv, {}, ct, one_piece(0, ct.size()), tag);
    CHECK(d.ok);
    CHECK(d.text == msg);
}

TEST_CASE("SM4-GCM TLS records (tlsivfixed, tlsaad, tlsivgen/tlsivinv) equal the reference's",
          "[gcm][tls]") {
    Lcg rng(1246);
    for (const std::string& sel : gcm_selections()) {
        LoadedProvider prov(sel);
        CipherPtr ours = prov.cipher("SM4-GCM");
        CipherPtr theirs = default_gcm(prov);
        const Bytes key = rng.bytes(16), iv = rng.bytes(12);
        // Encrypts one record of `payload` bytes in place, with the whole IV
        // given (tlsivfixed of length -1 restores it: both sides agree).
        auto seal = [&](const EVP_CIPHER* c, size_t payload, uint8_t seq) {
            CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
            REQUIRE(EVP_EncryptInit_ex2(ctx.get(), c, key.data(), nullptr, nullptr) == 1);
            Bytes whole_iv = iv;
            REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IV_FIXED, -1, whole_iv.data()) == 1);
            const size_t len = 8 + payload + 16;
            // The header's length as TLS passes it when encrypting: explicit IV and payload.
            const size_t header_len = 8 + payload;
            unsigned char aad[13] = {0, 0, 0, 0, 0, 0, 0, seq, 23, 3, 3,
                                     static_cast<unsigned char>(header_len >> 8),
                                     static_cast<unsigned char>(header_len)};
            CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16);
            Bytes record(len);
            Bytes text = rng.bytes(payload);
            if (payload != 0) std::memcpy(record.data() + 8, text.data(), payload);
            // Through update, as libssl does (EVP_Cipher reports the input length).
            int n = -1;
            CHECK(EVP_EncryptUpdate(ctx.get(), record.data(), &n, record.data(), static_cast<int>(len)) == 1);
            CHECK(n == static_cast<int>(len));
            return std::make_pair(text, record);
        };
        for (size_t payload : {0u, 1u, 16u, 100u, 1500u}) {
            INFO("engines " << prov.engines() << " payload " << payload);
            Lcg saved = rng;
            auto [text, record] = seal(ours.get(), payload, 1);
            if (theirs != nullptr) {
                rng = saved;
                auto [text2, record2] = seal(theirs.get(), payload, 1);
                CHECK(record == record2);
            }
            // Decryption: explicit IV taken from the record, tag checked.
            for (const EVP_CIPHER* c : {ours.get(), theirs.get()}) {
                if (c == nullptr) continue;
                for (bool tamper : {false, true}) {
                    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                    REQUIRE(EVP_DecryptInit_ex2(ctx.get(), c, key.data(), nullptr, nullptr) == 1);
                    Bytes fixed(iv.begin(), iv.begin() + 4);
                    REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed.data()) == 1);
                    const size_t len = record.size();
                    unsigned char aad[13] = {0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3,
                                             static_cast<unsigned char>(len >> 8), static_cast<unsigned char>(len)};
                    CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16);
                    Bytes r = record;
                    if (tamper) r[len - 1] ^= 1;
                    int n = -1;
                    const int ok = EVP_DecryptUpdate(ctx.get(), r.data(), &n, r.data(), static_cast<int>(len));
                    if (tamper) {
                        CHECK(ok != 1);
                        CHECK(Bytes(r.begin() + 8, r.end() - 16) == Bytes(payload, 0));
                        ERR_clear_error();
                    } else {
                        CHECK(ok == 1);
                        CHECK(n == static_cast<int>(payload));
                        CHECK(Bytes(r.begin() + 8, r.begin() + 8 + payload) == text);
                    }
                }
            }
        }
    }
}

// A TLS record ends its message: the IV it used is spent, so text through
// update afterwards is refused (nothing written) until an IV is set, as the
// default provider does (its IV state "finished"). Found by
// scripts/mutation-sweep.py: without the record's end the context went on
// encrypting under the record's IV.
TEST_CASE("SM4-GCM: after a TLS record, text needs a new IV", "[gcm][tls][bad-input]") {
    LoadedProvider prov;
    CipherPtr ours = prov.cipher("SM4-GCM");
    CipherPtr theirs = default_gcm(prov);
    Lcg rng(1250);
    const Bytes key = rng.bytes(16), iv = rng.bytes(12);
    for (const EVP_CIPHER* c : {ours.get(), theirs.get()}) {
        if (c == nullptr) continue;
        INFO((c == ours.get() ? "hwaccel" : "default"));
        for (bool encrypting : {true, false}) {
            INFO((encrypting ? "encrypting" : "decrypting"));
            CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
            REQUIRE(EVP_CipherInit_ex2(ctx.get(), c, key.data(), nullptr, encrypting ? 1 : 0, nullptr) == 1);
            Bytes whole_iv = iv;
            REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IV_FIXED, -1, whole_iv.data()) == 1);
            const size_t len = 8 + 32 + 16;
            const size_t header_len = encrypting ? 8 + 32 : len;
            unsigned char aad[13] = {0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, 0, static_cast<unsigned char>(header_len)};
            REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16);
            Bytes record = rng.bytes(len);
            int n = -1;
            // Decryption fails its tag on these random bytes; the message ends all the same.
            const int rc = EVP_CipherUpdate(ctx.get(), record.data(), &n, record.data(), static_cast<int>(len));
            CHECK(rc == (encrypting ? 1 : 0));
            ERR_clear_error();
            Bytes in = rng.bytes(32), out(32, 0xA5);
            n = -1;
            CHECK(EVP_CipherUpdate(ctx.get(), out.data(), &n, in.data(), 32) != 1);
            CHECK(out == Bytes(32, 0xA5));
            ERR_clear_error();
            // A new IV starts a new message.
            REQUIRE(EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, iv.data(), -1, nullptr) == 1);
            CHECK(EVP_CipherUpdate(ctx.get(), out.data(), &n, in.data(), 32) == 1);
            CHECK(n == 32);
        }
    }
}

TEST_CASE("SM4-GCM tlsivgen counts the invocation field; tlsivinv takes it", "[gcm][tls]") {
    LoadedProvider prov;
    CipherPtr c = prov.cipher("SM4-GCM");
    Lcg rng(77);
    const Bytes key = rng.bytes(16), fixed = rng.bytes(4), msg = rng.bytes(50);
    CipherCtxPtr enc(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_EncryptInit_ex2(enc.get(), c.get(), key.data(), nullptr, nullptr) == 1);
    Bytes f = fixed;
    REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_GCM_SET_IV_FIXED, 4, f.data()) == 1);
    unsigned int generated = 0;
    OSSL_PARAM q[] = {OSSL_PARAM_construct_uint("iv-generated", &generated), OSSL_PARAM_END};
    REQUIRE(EVP_CIPHER_CTX_get_params(enc.get(), q) == 1);
    CHECK(generated == 1);  // the invocation field came from RAND
    Bytes first(8), second(8);
    REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_GCM_IV_GEN, 8, first.data()) == 1);
    // The message under `first`: encrypt it, then the next IV is first + 1.
    Bytes ct(msg.size()), tag(16);
    int outl = 0;
    REQUIRE(EVP_EncryptUpdate(enc.get(), ct.data(), &outl, msg.data(), static_cast<int>(msg.size())) == 1);
    REQUIRE(EVP_EncryptFinal_ex(enc.get(), ct.data(), &outl) == 1);
    REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) == 1);
    REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_GCM_IV_GEN, 8, second.data()) == 1);
    Bytes next = first;
    for (int i = 7; i >= 0 && ++next[i] == 0; --i) {}
    CHECK(second == next);
    // An empty buffer is refused, not written.
    unsigned char none[1] = {0xa5};
    OSSL_PARAM empty[] = {OSSL_PARAM_construct_octet_string("tlsivgen", none, 0), OSSL_PARAM_END};
    CHECK(EVP_CIPHER_CTX_get_params(enc.get(), empty) != 1);
    CHECK(none[0] == 0xa5);
    ERR_clear_error();
    // Decryption: the fixed part, then the invocation field as received.
    Bytes iv = fixed;
    iv.insert(iv.end(), first.begin(), first.end());
    CipherCtxPtr dec(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_DecryptInit_ex2(dec.get(), c.get(), key.data(), nullptr, nullptr) == 1);
    f = fixed;
    REQUIRE(EVP_CIPHER_CTX_ctrl(dec.get(), EVP_CTRL_GCM_SET_IV_FIXED, 4, f.data()) == 1);
    Bytes inv = first;
    REQUIRE(EVP_CIPHER_CTX_ctrl(dec.get(), EVP_CTRL_GCM_SET_IV_INV, 8, inv.data()) == 1);
    REQUIRE(EVP_CIPHER_CTX_ctrl(dec.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag.data()) == 1);
    Bytes pt(msg.size());
    REQUIRE(EVP_DecryptUpdate(dec.get(), pt.data(), &outl, ct.data(), static_cast<int>(ct.size())) == 1);
    CHECK(EVP_DecryptFinal_ex(dec.get(), pt.data(), &outl) == 1);
    CHECK(pt == msg);
    // The same through a plain IV: the records' IV is fixed || invocation.
    Result again = run(c.get(), false, key, iv, {}, ct, one_piece(0, ct.size()), tag);
    CHECK(again.ok);
}

namespace {

// The default provider's GCM as 4.0 has it (3.6's refuses an IV request
// before the IV is there and keeps "iv-generated" at 1 after a caller's IV):
// null before 4.0, so only hwaccel is checked there; hwaccel behaves as 4.0
// on every release.
CipherPtr default_gcm_40(const LoadedProvider& prov) {
    if (OPENSSL_version_major() < 4) return nullptr;
    return default_gcm(prov);
}

// "iv-generated" of a context.
unsigned int iv_generated(EVP_CIPHER_CTX* ctx) {
    unsigned int generated = 7;
    OSSL_PARAM q[] = {OSSL_PARAM_construct_uint("iv-generated", &generated), OSSL_PARAM_END};
    REQUIRE(EVP_CIPHER_CTX_get_params(ctx, q) == 1);
    return generated;
}

}  // namespace

// The default provider's on_preupdate_generate_iv (ciphercommon_gcm.c): an
// encryption without an IV that is asked for it draws it then, so the
// caller can learn the IV before sending anything; the message uses it.
TEST_CASE("SM4-GCM: the IV asked for before encryption starts is drawn then and used",
          "[gcm][params]") {
    LoadedProvider prov;
    Lcg rng(38);
    const Bytes key = rng.bytes(16), msg = rng.bytes(40);
    CipherPtr ours = prov.cipher("SM4-GCM"), theirs = default_gcm_40(prov);
    for (const EVP_CIPHER* c : {ours.get(), theirs.get()}) {
        if (c == nullptr) continue;
        INFO(provider_of(c));
        CipherCtxPtr enc(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_EncryptInit_ex2(enc.get(), c, key.data(), nullptr, nullptr) == 1);
        Bytes iv(12), again(12), updated(12);
        REQUIRE(EVP_CIPHER_CTX_get_original_iv(enc.get(), iv.data(), iv.size()) == 1);
        CHECK(iv_generated(enc.get()) == 1);
        REQUIRE(EVP_CIPHER_CTX_get_updated_iv(enc.get(), updated.data(), updated.size()) == 1);
        CHECK(updated == iv);
        Bytes ct(msg.size()), tag(16);
        int outl = 0;
        REQUIRE(EVP_EncryptUpdate(enc.get(), ct.data(), &outl, msg.data(), 40) == 1);
        REQUIRE(EVP_EncryptFinal_ex(enc.get(), ct.data(), &outl) == 1);
        REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) == 1);
        REQUIRE(EVP_CIPHER_CTX_get_original_iv(enc.get(), again.data(), again.size()) == 1);
        CHECK(again == iv);
        Result d = run(c, false, key, iv, {}, ct, one_piece(0, ct.size()), tag);
        CHECK(d.ok);
        CHECK(d.text == msg);

        // Decryption has no IV to give; nor has a TLS record before its update.
        CipherCtxPtr dec(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_DecryptInit_ex2(dec.get(), c, key.data(), nullptr, nullptr) == 1);
        CHECK(EVP_CIPHER_CTX_get_original_iv(dec.get(), iv.data(), iv.size()) != 1);
        CipherCtxPtr tls(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_EncryptInit_ex2(tls.get(), c, key.data(), nullptr, nullptr) == 1);
        unsigned char aad[13] = {0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, 0, 40};
        REQUIRE(EVP_CIPHER_CTX_ctrl(tls.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16);
        CHECK(EVP_CIPHER_CTX_get_original_iv(tls.get(), iv.data(), iv.size()) != 1);
        // Too short an IV length to draw one (under 96 bits).
        CipherCtxPtr short_iv(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_EncryptInit_ex2(short_iv.get(), c, key.data(), nullptr, nullptr) == 1);
        REQUIRE(EVP_CIPHER_CTX_ctrl(short_iv.get(), EVP_CTRL_AEAD_SET_IVLEN, 8, nullptr) == 1);
        CHECK(EVP_CIPHER_CTX_get_original_iv(short_iv.get(), iv.data(), 8) != 1);
        ERR_clear_error();
    }
}

TEST_CASE("SM4-GCM: an IV given at init is not a generated one", "[gcm][params]") {
    LoadedProvider prov;
    Lcg rng(39);
    const Bytes key = rng.bytes(16), iv = rng.bytes(12), fixed = rng.bytes(4), msg = rng.bytes(16);
    CipherPtr ours = prov.cipher("SM4-GCM"), theirs = default_gcm_40(prov);
    for (const EVP_CIPHER* c : {ours.get(), theirs.get()}) {
        if (c == nullptr) continue;
        INFO(provider_of(c));
        CipherCtxPtr enc(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_EncryptInit_ex2(enc.get(), c, key.data(), nullptr, nullptr) == 1);
        Bytes out(16);
        int outl = 0;
        REQUIRE(EVP_EncryptUpdate(enc.get(), out.data(), &outl, msg.data(), 16) == 1);
        REQUIRE(EVP_EncryptFinal_ex(enc.get(), out.data(), &outl) == 1);
        CHECK(iv_generated(enc.get()) == 1);
        REQUIRE(EVP_EncryptInit_ex2(enc.get(), nullptr, nullptr, iv.data(), nullptr) == 1);
        CHECK(iv_generated(enc.get()) == 0);
        // The same after a TLS fixed IV whose invocation field came from RAND.
        Bytes f = fixed;
        REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_GCM_SET_IV_FIXED, 4, f.data()) == 1);
        CHECK(iv_generated(enc.get()) == 1);
        REQUIRE(EVP_EncryptInit_ex2(enc.get(), nullptr, key.data(), iv.data(), nullptr) == 1);
        CHECK(iv_generated(enc.get()) == 0);
    }
}

// OSSL_PARAM's size query: NULL data asks how many bytes the answer takes.
// The default provider answers it from 3.6 (3.5's refuses the IV's).
TEST_CASE("SM4-GCM: the IV and the tag answer a size query (NULL data)", "[gcm][params]") {
    LoadedProvider prov;
    Lcg rng(40);
    const Bytes key = rng.bytes(16), iv = rng.bytes(16), msg = rng.bytes(16);
    CipherPtr ours = prov.cipher("SM4-GCM"), theirs;
    if (OPENSSL_version_major() * 100 + OPENSSL_version_minor() >= 306) theirs = default_gcm(prov);
    for (const EVP_CIPHER* c : {ours.get(), theirs.get()}) {
        if (c == nullptr) continue;
        INFO(provider_of(c));
        CipherCtxPtr enc(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_EncryptInit_ex2(enc.get(), c, nullptr, nullptr, nullptr) == 1);
        REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_SET_IVLEN, 16, nullptr) == 1);
        REQUIRE(EVP_EncryptInit_ex2(enc.get(), nullptr, key.data(), iv.data(), nullptr) == 1);
        for (const char* key_name : {OSSL_CIPHER_PARAM_IV, OSSL_CIPHER_PARAM_UPDATED_IV}) {
            OSSL_PARAM q[] = {OSSL_PARAM_construct_octet_string(key_name, nullptr, 0), OSSL_PARAM_END};
            CHECK(EVP_CIPHER_CTX_get_params(enc.get(), q) == 1);
            CHECK(q[0].return_size == 16);
        }
        Bytes out(16);
        int outl = 0;
        REQUIRE(EVP_EncryptUpdate(enc.get(), out.data(), &outl, msg.data(), 16) == 1);
        REQUIRE(EVP_EncryptFinal_ex(enc.get(), out.data(), &outl) == 1);
        // A prefix of the tag is asked for by its length.
        OSSL_PARAM q[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 8),
                          OSSL_PARAM_END};
        CHECK(EVP_CIPHER_CTX_get_params(enc.get(), q) == 1);
        CHECK(q[0].return_size == 8);
        ERR_clear_error();
    }
}

// A tag request with no size (EVP_CTRL_AEAD_GET_TAG with 0 and NULL, or a
// NULL-data OSSL_PARAM of size 0) is a size query: the default provider of
// 3.6/4.0 answers it (3.5's refuses), with return_size 0; hwaccel with the
// whole tag's size, as "taglen" says. Refused by both before an
// encryption's final, when decrypting, and with a buffer of 0 bytes;
// NULL data of more than 16 bytes hwaccel refuses (default echoes the size).
TEST_CASE("SM4-GCM: a tag size query with no size answers the whole tag's", "[gcm][params]") {
    LoadedProvider prov;
    Lcg rng(45);
    const Bytes key = rng.bytes(16), iv = rng.bytes(12), msg = rng.bytes(16);
    CipherPtr ours = prov.cipher("SM4-GCM"), theirs;
    if (OPENSSL_version_major() * 100 + OPENSSL_version_minor() >= 306) theirs = default_gcm(prov);
    auto query = [](EVP_CIPHER_CTX* ctx, void* data, size_t size, size_t* return_size) {
        OSSL_PARAM q[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, data, size),
                          OSSL_PARAM_END};
        q[0].return_size = 777;
        const int ok = EVP_CIPHER_CTX_get_params(ctx, q);
        *return_size = q[0].return_size;
        ERR_clear_error();
        return ok;
    };
    for (const EVP_CIPHER* c : {ours.get(), theirs.get()}) {
        if (c == nullptr) continue;
        const bool hwaccel = c == ours.get();
        INFO(provider_of(c));
        size_t n = 0;
        CipherCtxPtr enc = started(c, true, key, iv);
        CHECK(query(enc.get(), nullptr, 0, &n) != 1);  // no tag yet
        CHECK(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_GET_TAG, 0, nullptr) <= 0);
        ERR_clear_error();
        Bytes out(16);
        int outl = 0;
        REQUIRE(EVP_EncryptUpdate(enc.get(), out.data(), &outl, msg.data(), 16) == 1);
        REQUIRE(EVP_EncryptFinal_ex(enc.get(), out.data(), &outl) == 1);
        CHECK(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_GET_TAG, 0, nullptr) == 1);
        CHECK(query(enc.get(), nullptr, 0, &n) == 1);
        CHECK(n == (hwaccel ? 16u : 0u));
        for (size_t size = 1; size <= 16; ++size) {
            CHECK(query(enc.get(), nullptr, size, &n) == 1);
            CHECK(n == size);
        }
        unsigned char buf[17];
        CHECK(query(enc.get(), buf, 0, &n) != 1);
        CHECK(query(enc.get(), buf, 17, &n) != 1);
        if (hwaccel) CHECK(query(enc.get(), nullptr, 17, &n) != 1);
        // The tag itself is as before.
        Bytes tag(16), again(16);
        REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) == 1);
        REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_GET_TAG, 16, again.data()) == 1);
        CHECK(tag == again);

        CipherCtxPtr dec = started(c, false, key, iv);
        REQUIRE(EVP_CIPHER_CTX_ctrl(dec.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag.data()) == 1);
        CHECK(query(dec.get(), nullptr, 0, &n) != 1);
    }
}

// The tag a context gives is an encryption's own, and the tag a decryption
// checks is one the caller set. The default provider of 3.6/4.0 keeps one
// buffer for both: after a decryption's expected tag and an encrypting
// re-init it "reads" that expected tag as the tag of an encryption that has
// not run; after an encryption and a decrypting re-init, a final with no
// expected tag checks against the encryption's tag. hwaccel refuses both
// (INVALID_TAG, TAG_NOT_SET); a finished encryption's tag stays readable
// through a re-init, as the default's.
TEST_CASE("SM4-GCM: a tag read is an encryption's own, a tag checked is the caller's", "[gcm][params]") {
    LoadedProvider prov;
    Lcg rng(46);
    const Bytes key = rng.bytes(16), iv = rng.bytes(12), iv2 = rng.bytes(12), msg = rng.bytes(32);
    CipherPtr c = prov.cipher("SM4-GCM");
    const Result sealed = run(c.get(), true, key, iv, {}, msg, one_piece(0, 32));
    REQUIRE(sealed.ok);
    Bytes out(32), tag(16);
    int outl = 0;
    SECTION("an expected tag is not read back after an encrypting re-init") {
        CipherCtxPtr ctx = started(c.get(), false, key, iv);
        Bytes expected = sealed.tag;
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, expected.data()) == 1);
        REQUIRE(EVP_CipherInit_ex2(ctx.get(), nullptr, key.data(), iv2.data(), 1, nullptr) == 1);
        CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) <= 0);
        CHECK(is_openssl_error(ERR_peek_last_error(), ERR_LIB_PROV, PROV_R_INVALID_TAG));
        ERR_clear_error();
        // Its own encryption's tag, once it has one.
        REQUIRE(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, msg.data(), 32) == 1);
        REQUIRE(EVP_EncryptFinal_ex(ctx.get(), out.data(), &outl) == 1);
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) == 1);
        CHECK(tag == run(c.get(), true, key, iv2, {}, msg, one_piece(0, 32)).tag);
    }
    SECTION("an encryption's tag is not the expected one after a decrypting re-init") {
        CipherCtxPtr ctx = started(c.get(), true, key, iv);
        REQUIRE(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, msg.data(), 32) == 1);
        REQUIRE(EVP_EncryptFinal_ex(ctx.get(), out.data(), &outl) == 1);
        // Kept through a re-init while the context encrypts.
        REQUIRE(EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, iv2.data(), 1, nullptr) == 1);
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) == 1);
        CHECK(tag == sealed.tag);
        // The same message decrypted with no expected tag: refused, though the
        // context holds the right one.
        REQUIRE(EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, iv.data(), 0, nullptr) == 1);
        Bytes plain(32);
        REQUIRE(EVP_DecryptUpdate(ctx.get(), plain.data(), &outl, sealed.text.data(), 32) == 1);
        CHECK(EVP_DecryptFinal_ex(ctx.get(), plain.data(), &outl) != 1);
        CHECK(is_openssl_error(ERR_peek_last_error(), ERR_LIB_PROV, PROV_R_TAG_NOT_SET));
        ERR_clear_error();
        CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) <= 0);
        ERR_clear_error();
        // With the tag set, the same decryption verifies.
        REQUIRE(EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, iv.data(), 0, nullptr) == 1);
        Bytes expected = sealed.tag;
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, expected.data()) == 1);
        REQUIRE(EVP_DecryptUpdate(ctx.get(), plain.data(), &outl, sealed.text.data(), 32) == 1);
        CHECK(EVP_DecryptFinal_ex(ctx.get(), plain.data(), &outl) == 1);
        CHECK(plain == msg);
    }
}

// README: "init and set_ctx_params check everything before changing
// anything: a refused init keeps the context as it was". The default
// provider's GCM installs the key and IV (and the direction) before it
// refuses a parameter; hwaccel's keeps the message under way.
TEST_CASE("SM4-GCM: a refused init keeps the context as it was", "[gcm][bad-input]") {
    LoadedProvider prov;
    CipherPtr c = prov.cipher("SM4-GCM");
    Lcg rng(41);
    const Bytes key = rng.bytes(16), iv = rng.bytes(12), other_key = rng.bytes(16),
                other_iv = rng.bytes(12), msg = rng.bytes(32);
    const Result want = run(c.get(), true, key, iv, {}, msg, one_piece(0, 32));
    REQUIRE(want.ok);
    unsigned char tag16[16] = {};
    unsigned char short_aad[5] = {};
    OSSL_PARAM tag_param[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag16, 16),
                              OSSL_PARAM_END};
    // (Not ivlen: EVP sets that one itself before it calls init.)
    OSSL_PARAM aad_param[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, short_aad, 5),
                              OSSL_PARAM_END};
    auto finish = [&](EVP_CIPHER_CTX* ctx) {
        Result r;
        Bytes out(16), tag(16);
        int outl = 0;
        if (EVP_EncryptUpdate(ctx, out.data(), &outl, msg.data() + 16, 16) != 1 ||
            EVP_EncryptFinal_ex(ctx, out.data(), &outl) != 1 ||
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) != 1)
            return r;
        r.ok = true;
        r.text = out;
        r.tag = tag;
        return r;
    };
    SECTION("a new key and IV with a parameter refused: the message goes on under the old ones") {
        CipherCtxPtr ctx = started(c.get(), true, key, iv);
        Bytes first(16);
        int outl = 0;
        REQUIRE(EVP_EncryptUpdate(ctx.get(), first.data(), &outl, msg.data(), 16) == 1);
        CHECK(EVP_EncryptInit_ex2(ctx.get(), nullptr, other_key.data(), other_iv.data(), tag_param) != 1);
        CHECK(raised_error());
        const Result rest = finish(ctx.get());
        CHECK(rest.ok);
        CHECK(rest.text == Bytes(want.text.begin() + 16, want.text.end()));
        CHECK(rest.tag == want.tag);
    }
    SECTION("the direction with a parameter refused: still encrypting") {
        CipherCtxPtr ctx = started(c.get(), true, key, iv);
        Bytes first(16);
        int outl = 0;
        REQUIRE(EVP_EncryptUpdate(ctx.get(), first.data(), &outl, msg.data(), 16) == 1);
        CHECK(EVP_DecryptInit_ex2(ctx.get(), nullptr, nullptr, nullptr, aad_param) != 1);
        CHECK(raised_error());
        // EVP_Cipher, which does not check EVP's own direction, sees the provider's.
        Bytes out(16), tag(16);
        CHECK(EVP_Cipher(ctx.get(), out.data(), msg.data() + 16, 16) == 16);
        CHECK(out == Bytes(want.text.begin() + 16, want.text.end()));
        CHECK(EVP_Cipher(ctx.get(), nullptr, nullptr, 0) == 0);  // final
        OSSL_PARAM get_tag[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag.data(), 16),
                                OSSL_PARAM_END};
        CHECK(EVP_CIPHER_CTX_get_params(ctx.get(), get_tag) == 1);
        CHECK(tag == want.tag);
    }
    SECTION("a new context: no key left behind") {
        CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
        CHECK(EVP_EncryptInit_ex2(ctx.get(), c.get(), key.data(), iv.data(), tag_param) != 1);
        CHECK(raised_error());
        Bytes out(16);
        int outl = 0;
        // No cipher given: EVP keeps the provider's context.
        REQUIRE(EVP_EncryptInit_ex2(ctx.get(), nullptr, nullptr, iv.data(), nullptr) == 1);
        CHECK(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, msg.data(), 16) != 1);
        CHECK(raised_error());
    }
}

// README: set_ctx_params, like init, checks everything before changing
// anything. The default provider of 3.6/4.0 applies the parameters in a
// fixed order (tag, ivlen, tlsaad, tlsivfixed, tlsivinv) and keeps those it
// applied before a refusal; hwaccel applies them in that order too, each
// checked against what those before it set, but all or none.
TEST_CASE("SM4-GCM: set_ctx_params applies all its parameters or none, in the default's order",
          "[gcm][params][bad-input]") {
    LoadedProvider prov;
    Lcg rng(44);
    const Bytes key = rng.bytes(16), iv = rng.bytes(12), msg = rng.bytes(32);
    CipherPtr ours = prov.cipher("SM4-GCM"), theirs;
    if (OPENSSL_version_major() * 100 + OPENSSL_version_minor() >= 306) theirs = default_gcm(prov);
    SECTION("whatever the array's order: tlsivinv after the tlsivfixed it needs, tlsivfixed under the new ivlen") {
        for (const EVP_CIPHER* c : {ours.get(), theirs.get()}) {
            if (c == nullptr) continue;
            INFO(provider_of(c));
            Bytes fixed = rng.bytes(4), inv = rng.bytes(8);
            CipherCtxPtr dec(EVP_CIPHER_CTX_new());
            REQUIRE(EVP_DecryptInit_ex2(dec.get(), c, key.data(), nullptr, nullptr) == 1);
            OSSL_PARAM inv_first[] = {
                OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, inv.data(), 8),
                OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, fixed.data(), 4),
                OSSL_PARAM_END};
            CHECK(EVP_CIPHER_CTX_set_params(dec.get(), inv_first) == 1);
            Bytes got(12), want = fixed;
            want.insert(want.end(), inv.begin(), inv.end());
            CHECK(EVP_CIPHER_CTX_get_original_iv(dec.get(), got.data(), 12) == 1);
            CHECK(got == want);

            CipherCtxPtr enc(EVP_CIPHER_CTX_new());
            REQUIRE(EVP_EncryptInit_ex2(enc.get(), c, key.data(), nullptr, nullptr) == 1);
            size_t sixteen = 16;
            OSSL_PARAM fixed_first[] = {
                OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, fixed.data(), 4),
                OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &sixteen), OSSL_PARAM_END};
            CHECK(EVP_CIPHER_CTX_set_params(enc.get(), fixed_first) == 1);
            // A 16-byte IV, fixed part first, starts the message.
            Bytes iv16(16), out(16);
            CHECK(EVP_CIPHER_CTX_get_original_iv(enc.get(), iv16.data(), 16) == 1);
            CHECK(Bytes(iv16.begin(), iv16.begin() + 4) == fixed);
            int outl = 0;
            CHECK(EVP_EncryptUpdate(enc.get(), out.data(), &outl, msg.data(), 16) == 1);
            ERR_clear_error();
        }
    }
    // The rest is hwaccel's alone: the default keeps what it applied first.
    SECTION("a good tag before a refused ivlen: the tag length stays") {
        CipherCtxPtr dec = started(ours.get(), false, key, iv);
        Bytes tag(8, 1);
        size_t zero = 0;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag.data(), 8),
                          OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &zero), OSSL_PARAM_END};
        CHECK(EVP_CIPHER_CTX_set_params(dec.get(), p) != 1);
        CHECK(raised_error());
        size_t taglen = 0;
        OSSL_PARAM q[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, &taglen), OSSL_PARAM_END};
        REQUIRE(EVP_CIPHER_CTX_get_params(dec.get(), q) == 1);
        CHECK(taglen == 16);
    }
    SECTION("a good ivlen before a refused tlsaad: the message goes on under its IV") {
        const Result want = run(ours.get(), true, key, iv, {}, msg, one_piece(0, 32));
        REQUIRE(want.ok);
        CipherCtxPtr enc = started(ours.get(), true, key, iv);
        Bytes first(16), rest(16), tag(16);
        int outl = 0;
        REQUIRE(EVP_EncryptUpdate(enc.get(), first.data(), &outl, msg.data(), 16) == 1);
        size_t sixteen = 16;
        unsigned char short_aad[5] = {};
        OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &sixteen),
                          OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, short_aad, 5),
                          OSSL_PARAM_END};
        CHECK(EVP_CIPHER_CTX_set_params(enc.get(), p) != 1);
        CHECK(raised_error());
        size_t ivlen = 0;
        OSSL_PARAM q[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &ivlen), OSSL_PARAM_END};
        REQUIRE(EVP_CIPHER_CTX_get_params(enc.get(), q) == 1);
        CHECK(ivlen == 12);
        REQUIRE(EVP_EncryptUpdate(enc.get(), rest.data(), &outl, msg.data() + 16, 16) == 1);
        REQUIRE(EVP_EncryptFinal_ex(enc.get(), rest.data(), &outl) == 1);
        REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) == 1);
        first.insert(first.end(), rest.begin(), rest.end());
        CHECK(first == want.text);
        CHECK(tag == want.tag);
    }
}

// A "tlsivinv" with no data (an octet string whose pointer is NULL, as
// EVP_CTRL_GCM_SET_IV_INV with a NULL pointer makes) is refused, as the
// default provider refuses it; it was read through the NULL pointer.
TEST_CASE("SM4-GCM: tlsivinv with NULL data is refused", "[gcm][tls][bad-input]") {
    LoadedProvider prov;
    CipherPtr c = prov.cipher("SM4-GCM");
    Lcg rng(42);
    const Bytes key = rng.bytes(16);
    Bytes fixed = rng.bytes(4);
    CipherCtxPtr dec(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_DecryptInit_ex2(dec.get(), c.get(), key.data(), nullptr, nullptr) == 1);
    REQUIRE(EVP_CIPHER_CTX_ctrl(dec.get(), EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed.data()) == 1);
    for (size_t len : {size_t{1}, size_t{4}, size_t{8}}) {
        OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, nullptr, len),
                          OSSL_PARAM_END};
        CHECK(EVP_CIPHER_CTX_set_params(dec.get(), p) != 1);
        CHECK(raised_error());
    }
    CHECK(EVP_CIPHER_CTX_ctrl(dec.get(), EVP_CTRL_GCM_SET_IV_INV, 8, nullptr) <= 0);
    ERR_clear_error();
    // The context goes on: the invocation field as received starts a message.
    Bytes inv = rng.bytes(8);
    CHECK(EVP_CIPHER_CTX_ctrl(dec.get(), EVP_CTRL_GCM_SET_IV_INV, 8, inv.data()) == 1);
    Bytes iv(12);
    REQUIRE(EVP_CIPHER_CTX_get_original_iv(dec.get(), iv.data(), 12) == 1);
    Bytes want = fixed;
    want.insert(want.end(), inv.begin(), inv.end());
    CHECK(iv == want);
}

// "tlsivgen" counts the IV's last 8 bytes (the TLS invocation field): an IV
// shorter than that, reached by an ivlen set after the fixed part or by
// tlsivfixed of length -1 under a short ivlen, has no such field. The
// default provider increments 8 bytes ending at the IV's end, in front of
// its IV buffer; hwaccel refuses.
TEST_CASE("SM4-GCM: tlsivgen refuses an IV shorter than the invocation field", "[gcm][tls][bad-input]") {
    LoadedProvider prov;
    CipherPtr c = prov.cipher("SM4-GCM");
    Lcg rng(43);
    const Bytes key = rng.bytes(16);
    Bytes fixed = rng.bytes(16);
    for (int how = 0; how < 2; ++how) {
        INFO((how == 0 ? "ivlen after tlsivfixed" : "tlsivfixed -1 under ivlen 4"));
        CipherCtxPtr enc(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_EncryptInit_ex2(enc.get(), c.get(), key.data(), nullptr, nullptr) == 1);
        if (how == 0) {
            REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed.data()) == 1);
            REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_SET_IVLEN, 4, nullptr) == 1);
        } else {
            REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_SET_IVLEN, 4, nullptr) == 1);
            REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_GCM_SET_IV_FIXED, -1, fixed.data()) == 1);
        }
        unsigned char out[8] = {};
        CHECK(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_GCM_IV_GEN, 4, out) <= 0);
        ERR_clear_error();
        // A whole TLS record asks for the same: refused too.
        unsigned char aad[13] = {0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, 0, 8};
        REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16);
        unsigned char record[24] = {};
        int n = 0;
        CHECK(EVP_EncryptUpdate(enc.get(), record, &n, record, 24) != 1);
        ERR_clear_error();
        // With an IV long enough again, it works.
        REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr) == 1);
        REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed.data()) == 1);
        CHECK(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_GCM_IV_GEN, 8, out) == 1);
    }
}

// An update of 0 bytes does nothing, a pending TLS record included, as in
// the default provider (its update answers 1 for 0 bytes before anything
// else): the record that follows goes through. hwaccel took it for the
// record, refused it and ended the message, the tlsaad gone.
TEST_CASE("SM4-GCM: an empty update leaves a pending TLS record alone", "[gcm][tls]") {
    LoadedProvider prov;
    CipherPtr c = prov.cipher("SM4-GCM");
    Lcg rng(47);
    const Bytes key = rng.bytes(16), fixed = rng.bytes(4), payload = rng.bytes(20);
    unsigned char aad[13] = {0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, 0, 8 + 20};
    // A record: explicit IV (8) || payload || tag (16).
    Bytes record(8 + 20 + 16);
    std::memcpy(record.data() + 8, payload.data(), payload.size());
    CipherCtxPtr enc(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_EncryptInit_ex2(enc.get(), c.get(), key.data(), nullptr, nullptr) == 1);
    REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_GCM_SET_IV_FIXED, 4, const_cast<uint8_t*>(fixed.data())) == 1);
    REQUIRE(EVP_CIPHER_CTX_ctrl(enc.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16);
    int n = -1;
    unsigned char none[1];
    CHECK(EVP_EncryptUpdate(enc.get(), none, &n, none, 0) == 1);
    CHECK(n == 0);
    REQUIRE(EVP_EncryptUpdate(enc.get(), record.data(), &n, record.data(), static_cast<int>(record.size())) == 1);
    CHECK(n == static_cast<int>(record.size()));

    aad[12] = 8 + 20 + 16;  // the received record's length
    CipherCtxPtr dec(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_DecryptInit_ex2(dec.get(), c.get(), key.data(), nullptr, nullptr) == 1);
    REQUIRE(EVP_CIPHER_CTX_ctrl(dec.get(), EVP_CTRL_GCM_SET_IV_FIXED, 4, const_cast<uint8_t*>(fixed.data())) == 1);
    REQUIRE(EVP_CIPHER_CTX_ctrl(dec.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad) == 16);
    n = -1;
    CHECK(EVP_DecryptUpdate(dec.get(), nullptr, &n, none, 0) == 1);  // as AAD
    CHECK(EVP_DecryptUpdate(dec.get(), none, &n, none, 0) == 1);
    REQUIRE(EVP_DecryptUpdate(dec.get(), record.data(), &n, record.data(), static_cast<int>(record.size())) == 1);
    CHECK(n == 20);
    CHECK(Bytes(record.begin() + 8, record.begin() + 28) == payload);
}

// README: a tlsivfixed longer than the IV is refused (the default's check,
// ivlen - (int)len with a size_t ivlen, wraps and takes it; encrypting, it
// then asks RAND for about 2^64 bytes), and so is tlsivgen into an empty
// buffer (the default writes the whole IV there). Neither changes the context.
TEST_CASE("SM4-GCM: tlsivfixed longer than the IV and tlsivgen into no buffer are refused",
          "[gcm][tls][bad-input]") {
    LoadedProvider prov;
    CipherPtr c = prov.cipher("SM4-GCM");
    Lcg rng(48);
    const Bytes key = rng.bytes(16);
    Bytes fixed = rng.bytes(16);
    for (int enc = 0; enc < 2; ++enc) {
        INFO((enc ? "encrypting" : "decrypting"));
        CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_CipherInit_ex2(ctx.get(), c.get(), key.data(), nullptr, enc, nullptr) == 1);
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, 2, nullptr) == 1);
        CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed.data()) <= 0);
        CHECK(raised_error());
        // With room for the invocation field it is taken; tlsivgen of 0
        // bytes is still refused, then one of 8 bytes works.
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr) == 1);
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IV_FIXED, 4, fixed.data()) == 1);
        unsigned char out[16] = {};
        OSSL_PARAM gen[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, out, 0),
                            OSSL_PARAM_END};
        CHECK(EVP_CIPHER_CTX_get_params(ctx.get(), gen) != 1);
        ERR_clear_error();
        CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_IV_GEN, 8, out) == 1);
    }
}

// Refusals the EVP cases do not reach, through the dispatch table (the raised
// reason read off the fake core), each leaving the message as it was.
TEST_CASE("SM4-GCM dispatch: final with a TLS record pending, EVP_Cipher's NULL input, TLS records",
          "[dispatch][gcm][tls][bad-input]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    CipherFns f(m.cipher("SM4-GCM"));
    const unsigned char key[16] = {1, 2, 3}, iv[12] = {4, 5, 6}, aad[5] = {9}, msg[40] = {7, 8, 9};
    unsigned char fixed[4] = {0xa, 0xb, 0xc, 0xd};
    size_t n = 0;
    auto seal = [&](void* ctx, unsigned char* out) {
        REQUIRE(f.update(ctx, nullptr, &n, 0, aad, sizeof aad) == 1);
        REQUIRE(f.update(ctx, out, &n, 64, msg, sizeof msg) == 1);
        REQUIRE(f.final(ctx, out + sizeof msg, &n, 16) == 1);
        OSSL_PARAM get[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, out + sizeof msg, 16),
                            OSSL_PARAM_END};
        REQUIRE(f.get_ctx_params(ctx, get) == 1);
    };
    unsigned char expect[64], out[64];
    void* ref = f.newctx(m.provctx);
    REQUIRE(f.einit(ref, key, 16, iv, 12, nullptr) == 1);
    seal(ref, expect);
    f.freectx(ref);

    SECTION("EVP_Cipher with a NULL input and a length, and a length past GCM's limit") {
        void* ctx = f.newctx(m.provctx);
        REQUIRE(f.einit(ctx, key, 16, iv, 12, nullptr) == 1);
        g_core.clear_errors();
        n = 777;
        CHECK(f.cipher(ctx, out, &n, sizeof out, nullptr, 16) == 0);
        CHECK(g_core.reasons == std::vector<int>{static_cast<int>(hwaccel::kErrInvalidLength)});
        CHECK(n == 0);
        // 2^36 bytes claimed (more than GCM's 2^36 - 32): refused before a
        // byte is read or written, so these small buffers are never touched.
        std::memset(out, 0xee, sizeof out);
        const size_t huge = size_t{1} << 36;
        g_core.clear_errors();
        n = 777;
        CHECK(f.cipher(ctx, out, &n, huge, msg, huge) == 0);
        CHECK(g_core.reasons == std::vector<int>{static_cast<int>(hwaccel::kErrCipherOperationFailed)});
        if (!g_core.errors.empty()) CHECK(g_core.errors[0].find("message too long") != std::string::npos);
        CHECK(n == 0);
        for (unsigned char c : out) CHECK(c == 0xee);
        seal(ctx, out);
        CHECK(std::memcmp(out, expect, sizeof msg + 16) == 0);
        f.freectx(ctx);
    }
    SECTION("TLS records: final refused while one is pending; EVP_Cipher takes it; no fixed IV") {
        // A record sealed through update: explicit IV (8) || payload (20) || tag (16).
        unsigned char tls_aad[13] = {0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, 0, 8 + 20};
        OSSL_PARAM tls[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, fixed, 4),
                            OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, tls_aad, 13),
                            OSSL_PARAM_END};
        Bytes record(8 + 20 + 16);
        std::memcpy(record.data() + 8, msg, 20);
        void* enc = f.newctx(m.provctx);
        REQUIRE(f.einit(enc, key, 16, nullptr, 0, nullptr) == 1);
        REQUIRE(f.set_ctx_params(enc, tls) == 1);
        REQUIRE(f.update(enc, record.data(), &n, record.size(), record.data(), record.size()) == 1);
        f.freectx(enc);

        tls_aad[12] = 8 + 20 + 16;  // as received
        void* dec = f.newctx(m.provctx);
        REQUIRE(f.dinit(dec, key, 16, nullptr, 0, nullptr) == 1);
        REQUIRE(f.set_ctx_params(dec, tls) == 1);
        g_core.clear_errors();
        n = 777;
        CHECK(f.final(dec, out, &n, sizeof out) == 0);
        CHECK(g_core.reasons == std::vector<int>{static_cast<int>(hwaccel::kErrInvalidParameter)});
        CHECK(n == 777);
        // The record is still pending: EVP_Cipher opens it in place.
        Bytes opened = record;
        g_core.clear_errors();
        CHECK(f.cipher(dec, opened.data(), &n, opened.size(), opened.data(), opened.size()) == 1);
        CHECK(g_core.errors.empty());
        CHECK(n == opened.size());  // EVP_Cipher reports inl, as the default's
        CHECK(std::memcmp(opened.data() + 8, msg, 20) == 0);
        f.freectx(dec);

        // Without the fixed part there is no IV to take the explicit part
        // into: refused, the record left as it came.
        void* nofixed = f.newctx(m.provctx);
        REQUIRE(f.dinit(nofixed, key, 16, nullptr, 0, nullptr) == 1);
        OSSL_PARAM only_aad[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, tls_aad, 13),
                                 OSSL_PARAM_END};
        REQUIRE(f.set_ctx_params(nofixed, only_aad) == 1);
        Bytes same = record;
        g_core.clear_errors();
        CHECK(f.cipher(nofixed, same.data(), &n, same.size(), same.data(), same.size()) == 0);
        CHECK(g_core.reasons == std::vector<int>{static_cast<int>(hwaccel::kErrCipherOperationFailed)});
        CHECK(same == record);
        CHECK(n == 0);
        f.freectx(nofixed);
    }
}
