// SM4-GCM through EVP: OpenSSL 4.0's vectors (RFC 8998's example), the
// parameter lists of the default provider of 3.6/4.0, and a differential test
// over every SM4 and GHASH engine against a reference: the default provider's
// SM4-GCM where the running OpenSSL has one (3.6 and later), otherwise
// libgcrypt's GCM over SM4 (OpenSSL 3.0) when the suite was built with it.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

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
#include "provider_fixture.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

constexpr size_t kTag = 16;

// The automatic choice, then every SM4 and every GHASH engine this CPU runs,
// one family forced at a time.
std::vector<std::string> gcm_selections() {
    const hwaccel::CpuFeatures& cpu = hwaccel::cpu_features();
    std::vector<std::string> out = {""};
    for (const auto* e : hwaccel::sm4_engines())
        if (e->available(cpu)) out.push_back(std::string("sm4=") + e->name);
    for (const auto* e : hwaccel::ghash_engines())
        if (e->available(cpu)) out.push_back(std::string("ghash=") + e->name);
    return out;
}

CipherPtr default_gcm(const LoadedProvider& prov) {
    return CipherPtr(EVP_CIPHER_fetch(prov.libctx(), "SM4-GCM", "provider=default"));
}

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
