// SM4-CCM and SM4-XTS against libgcrypt's (1.10+), every SM4 engine: an
// implementation independent of both hwaccel and OpenSSL, on every OpenSSL
// release (3.0's default provider has neither mode). Mirrors the SM4-GCM
// differential of sm4_gcm_evp_test.cpp.
//  - CCM: random keys, nonces of 7..13 bytes (L = 8..2), tags of 4..16
//    bytes, AAD and payloads of 0..5000 bytes, in place or not, the context
//    copied after init, the length, the AAD or the payload; a changed tag,
//    ciphertext or AAD byte must fail with nothing written. (CCM takes the
//    AAD and the payload in one update each: no chunking to vary.)
//  - XTS: libgcrypt has IEEE Std 1619's only: random keys, tweaks and data
//    units of 16..5000 bytes (stolen tails), both directions, several units
//    through one context, in place or not, copies between units. GB/T
//    17964's XTS differs only in the order of the tweak's multiplication by
//    alpha; sm4_xts_evp_test.cpp checks it against a reference over the
//    default provider's SM4-ECB, and against the default provider's own
//    SM4-XTS in the OpenSSL 3.6/4.0 runs (scripts/test-against.sh).
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#ifdef HWACCEL_TEST_GCRYPT
#include <gcrypt.h>
#endif

#include "provider_fixture.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

#ifdef HWACCEL_TEST_GCRYPT
namespace {

std::vector<std::string> sm4_selections() {
    std::vector<std::string> out;
    for (const std::string& s : engine_selections())
        if (s.empty() || s.rfind("sm4=", 0) == 0) out.push_back(s);
    return out;
}

struct Gcry {
    gcry_cipher_hd_t h = nullptr;
    Gcry(int mode, const Bytes& key) {
        REQUIRE(gcry_check_version(nullptr) != nullptr);
        REQUIRE(gcry_cipher_open(&h, GCRY_CIPHER_SM4, mode, 0) == 0);
        REQUIRE(gcry_cipher_setkey(h, key.data(), key.size()) == 0);
    }
    ~Gcry() { gcry_cipher_close(h); }
    Gcry(const Gcry&) = delete;
    Gcry& operator=(const Gcry&) = delete;
};

// Never a null pointer, even when empty (EVP reads NULL input specially).
struct Buf {
    Bytes b;
    explicit Buf(Bytes bytes) : b(std::move(bytes)) { b.reserve(b.size() + 1); }
    unsigned char* p() { return b.data(); }
};

void continue_on_copy(CipherCtxPtr& ctx) {
    CipherCtxPtr copy(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_CIPHER_CTX_copy(copy.get(), ctx.get()) == 1);
    ctx = std::move(copy);  // the original is freed: the copy stands alone
}

// ---------------------------------------------------------------- CCM

struct Ccm {
    Bytes key, nonce, aad, msg;
    size_t tag_len;
};

// libgcrypt's ciphertext || tag.
Bytes gcrypt_ccm_seal(const Ccm& t) {
    Gcry g(GCRY_CIPHER_MODE_CCM, t.key);
    Bytes out(t.msg.size() + t.tag_len);
    uint64_t lengths[3] = {t.msg.size(), t.aad.size(), t.tag_len};
    REQUIRE(gcry_cipher_setiv(g.h, t.nonce.data(), t.nonce.size()) == 0);
    REQUIRE(gcry_cipher_ctl(g.h, GCRYCTL_SET_CCM_LENGTHS, lengths, sizeof lengths) == 0);
    REQUIRE(gcry_cipher_authenticate(g.h, t.aad.data(), t.aad.size()) == 0);
    REQUIRE(gcry_cipher_encrypt(g.h, out.data(), t.msg.size(), t.msg.data(), t.msg.size()) == 0);
    REQUIRE(gcry_cipher_gettag(g.h, out.data() + t.msg.size(), t.tag_len) == 0);
    return out;
}

struct CcmRun {
    bool ok = false;
    Bytes out;  // encryption: ciphertext || tag; decryption: the whole output buffer
};

// copy_at: after init (0), the length (1), the AAD (2), the payload (3); 4: none.
CcmRun ccm(const EVP_CIPHER* c, bool enc, const Ccm& t, const Bytes& in, const Bytes& tag, bool in_place,
           int copy_at) {
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    size_t ivlen = t.nonce.size();
    Bytes expected = tag;
    OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                      OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, enc ? nullptr : expected.data(), t.tag_len),
                      OSSL_PARAM_END};
    REQUIRE(EVP_CipherInit_ex2(ctx.get(), c, nullptr, nullptr, enc, p) == 1);
    REQUIRE(EVP_CipherInit_ex2(ctx.get(), nullptr, t.key.data(), t.nonce.data(), enc, nullptr) == 1);
    Buf src(in), dst(Bytes(in.size() + 16, 0xee)), aad(t.aad);
    Buf& out = in_place ? src : dst;
    CcmRun r;
    auto done = [&](bool ok) {
        ERR_clear_error();
        r.ok = ok;
        if (!enc || !ok) r.out = out.b;
        return r;
    };
    int n = -1;
    if (copy_at == 0) continue_on_copy(ctx);
    if (EVP_CipherUpdate(ctx.get(), nullptr, &n, nullptr, static_cast<int>(in.size())) != 1) return done(false);
    if (copy_at == 1) continue_on_copy(ctx);
    if (!t.aad.empty() && EVP_CipherUpdate(ctx.get(), nullptr, &n, aad.p(), static_cast<int>(t.aad.size())) != 1)
        return done(false);
    if (copy_at == 2) continue_on_copy(ctx);
    if (EVP_CipherUpdate(ctx.get(), out.p(), &n, src.p(), static_cast<int>(in.size())) != 1) return done(false);
    REQUIRE(n == static_cast<int>(in.size()));
    if (copy_at == 3) continue_on_copy(ctx);
    int fin = -1;
    if (EVP_CipherFinal_ex(ctx.get(), out.p() + in.size(), &fin) != 1) return done(false);
    REQUIRE(fin == 0);
    if (enc) {
        r.out.assign(out.b.begin(), out.b.begin() + in.size());
        r.out.resize(in.size() + t.tag_len);
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(t.tag_len),
                                    r.out.data() + in.size()) == 1);
    }
    return done(true);
}

Ccm random_ccm(Lcg& rng, int iter) {
    Ccm t;
    t.key = rng.bytes(16);
    t.nonce = rng.bytes(7 + rng.below(7));
    t.tag_len = 4 + 2 * rng.below(7);
    auto length = [&] { return rng.below(3) == 0 ? rng.below(40) : rng.below(5001); };
    t.aad = rng.bytes(iter < 4 ? 0 : rng.below(4) == 0 ? 0 : length());
    t.msg = rng.bytes(iter % 4 == 1 ? 0 : length());
    return t;
}

// ---------------------------------------------------------------- XTS

Bytes gcrypt_xts(bool enc, const Bytes& key, const Bytes& iv, const Bytes& in) {
    Gcry g(GCRY_CIPHER_MODE_XTS, key);
    Bytes out(in.size());
    REQUIRE(gcry_cipher_setiv(g.h, iv.data(), iv.size()) == 0);
    REQUIRE((enc ? gcry_cipher_encrypt(g.h, out.data(), out.size(), in.data(), in.size())
                 : gcry_cipher_decrypt(g.h, out.data(), out.size(), in.data(), in.size())) == 0);
    return out;
}

size_t random_unit_length(Lcg& rng) {
    switch (rng.below(4)) {
    case 0: return 16 + rng.below(64);             // one to five blocks, stealing
    case 1: return 16 * (1 + rng.below(300));      // whole blocks: the fused batches
    default: return 16 + rng.below(5000 - 15);
    }
}

}  // namespace

TEST_CASE("SM4-CCM equals libgcrypt's: random nonces, tag lengths, AAD, payloads, in place, copies, tampering",
          "[cipher][ccm][differential][gcrypt]") {
    Lcg rng(38);
    for (const std::string& sel : sm4_selections()) {
        LoadedProvider prov(sel);
        CipherPtr c = prov.cipher("SM4-CCM");
        for (int iter = 0; iter < 24; ++iter) {
            const Ccm t = random_ccm(rng, iter);
            const bool in_place = rng.below(2) == 0;
            const int copy_at = static_cast<int>(rng.below(6));
            INFO("engines " << prov.engines() << ": nonce " << t.nonce.size() << " tag " << t.tag_len << " aad "
                            << t.aad.size() << " payload " << t.msg.size() << " in place " << in_place
                            << " copy at " << copy_at);
            const Bytes want = gcrypt_ccm_seal(t);
            const CcmRun sealed = ccm(c.get(), true, t, t.msg, {}, in_place, copy_at);
            REQUIRE(sealed.ok);
            CHECK(sealed.out == want);
            const Bytes ct(want.begin(), want.begin() + t.msg.size()), tag(want.begin() + t.msg.size(), want.end());
            const CcmRun opened = ccm(c.get(), false, t, ct, tag, !in_place, copy_at);
            CHECK(opened.ok);
            CHECK(Bytes(opened.out.begin(), opened.out.begin() + t.msg.size()) == t.msg);
            // One bit changed in the tag, the ciphertext or the AAD: refused,
            // nothing written (the sentinels, or in place the input, intact).
            for (int what = 0; what < 3; ++what) {
                Ccm bad = t;
                Bytes bad_ct = ct, bad_tag = tag;
                Bytes& target = what == 0 ? bad_tag : what == 1 ? bad_ct : bad.aad;
                if (target.empty()) continue;
                target[rng.below(target.size())] ^= static_cast<uint8_t>(1u << rng.below(8));
                INFO("changed: " << (what == 0 ? "tag" : what == 1 ? "ciphertext" : "AAD"));
                const CcmRun refused = ccm(c.get(), false, bad, bad_ct, bad_tag, in_place, copy_at);
                CHECK_FALSE(refused.ok);
                CHECK((in_place ? refused.out == bad_ct : refused.out == Bytes(bad_ct.size() + 16, 0xee)));
            }
        }
    }
}

TEST_CASE("SM4-XTS (IEEE) equals libgcrypt's: random keys, tweaks, unit lengths, directions, in place, copies",
          "[cipher][xts][differential][gcrypt]") {
    Lcg rng(1619);
    for (const std::string& sel : sm4_selections()) {
        LoadedProvider prov(sel);
        CipherPtr c = prov.cipher("SM4-XTS");
        for (int iter = 0; iter < 12; ++iter) {
            Bytes key = rng.bytes(32);
            if (std::memcmp(key.data(), key.data() + 16, 16) == 0) key[0] ^= 1;  // encryption refuses equal halves
            const Bytes iv = rng.bytes(16);
            const bool enc = rng.below(2) == 0;
            CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
            char ieee[] = "IEEE";
            OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_string("xts_standard", ieee, 0), OSSL_PARAM_END};
            REQUIRE(EVP_CipherInit_ex2(ctx.get(), c.get(), key.data(), iv.data(), enc, p) == 1);
            // Several data units through the one context, each under the IV.
            for (int unit = 0; unit < 3; ++unit) {
                const Bytes data = rng.bytes(iter == 0 && unit == 0 ? 16 : random_unit_length(rng));
                const bool in_place = rng.below(2) == 0;
                INFO("engines " << prov.engines() << (enc ? " encrypt " : " decrypt ") << data.size()
                                << " bytes, in place " << in_place << ", unit " << unit);
                Bytes buf = data, out(data.size());
                unsigned char* dst = in_place ? buf.data() : out.data();
                int n = -1;
                REQUIRE(EVP_CipherUpdate(ctx.get(), dst, &n, buf.data(), static_cast<int>(data.size())) == 1);
                REQUIRE(n == static_cast<int>(data.size()));
                const Bytes got(dst, dst + n);
                CHECK(got == gcrypt_xts(enc, key, iv, data));
                if (rng.below(2) == 0) continue_on_copy(ctx);
            }
            int fin = -1;
            unsigned char last[16];
            CHECK(EVP_CipherFinal_ex(ctx.get(), last, &fin) == 1);
            CHECK(fin == 0);
        }
    }
}

#else
TEST_CASE("SM4-CCM and SM4-XTS against libgcrypt", "[cipher][ccm][xts][differential][gcrypt]") {
    WARN("built without libgcrypt (libgcrypt20-dev): the CCM/XTS differential against it is skipped");
}
#endif
