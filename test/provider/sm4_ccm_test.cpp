// SM4-CCM through EVP, every SM4 engine: RFC 8998's example (OpenSSL 4.0's
// evpciph_sm4.txt CCM stanza), a CCM written here from NIST SP 800-38C over
// the default provider's SM4-ECB (every OpenSSL release has that), and, where
// the default provider has SM4-CCM (3.6, 4.0), that too; parameters compared
// with it; tampering and misuse refused with nothing written.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/proverr.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <climits>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "errors.hpp"
#include "fake_core.hpp"
#include "provider_fixture.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

struct Ccm {
    Bytes key, nonce, aad, msg;
    size_t tag_len = 16;
};

struct Sealed {
    bool ok = false;
    Bytes ct, tag;
};

// The SM4 engine selections: the automatic choice and each engine forced.
std::vector<std::string> sm4_selections() { return engine_selections({"sm4"}); }

// ---------------------------------------------------------------- reference

// CCM as NIST SP 800-38C writes it (A.2 formatting, 6.1 generation), one
// block at a time over the default provider's SM4-ECB.
class ReferenceCcm {
public:
    ReferenceCcm(const LoadedProvider& prov, const Bytes& key) : ecb_(prov.default_cipher("SM4-ECB")) {
        ctx_.reset(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_EncryptInit_ex2(ctx_.get(), ecb_.get(), key.data(), nullptr, nullptr) == 1);
        EVP_CIPHER_CTX_set_padding(ctx_.get(), 0);
    }

    // Returns ciphertext || tag.
    Bytes seal(const Bytes& nonce, const Bytes& aad, const Bytes& msg, size_t tag_len) {
        const size_t l = 15 - nonce.size();
        Bytes b(16, 0);
        b[0] = static_cast<uint8_t>((aad.empty() ? 0 : 0x40) | ((tag_len - 2) / 2) << 3 | (l - 1));
        std::copy(nonce.begin(), nonce.end(), b.begin() + 1);
        for (size_t i = 0, v = msg.size(); i < l; ++i, v >>= 8) b[15 - i] = static_cast<uint8_t>(v);
        Bytes mac = e(b);
        if (!aad.empty()) {
            Bytes a;
            const uint64_t n = aad.size();
            if (n < 0xff00) {
                a = {static_cast<uint8_t>(n >> 8), static_cast<uint8_t>(n)};
            } else {
                a = {0xff, 0xfe};
                for (int s = 24; s >= 0; s -= 8) a.push_back(static_cast<uint8_t>(n >> s));
            }
            a.insert(a.end(), aad.begin(), aad.end());
            absorb(mac, a);
        }
        absorb(mac, msg);
        Bytes ctr(16, 0);
        ctr[0] = static_cast<uint8_t>(l - 1);
        std::copy(nonce.begin(), nonce.end(), ctr.begin() + 1);
        const Bytes s0 = e(ctr);
        Bytes out(msg.size());
        for (size_t i = 0; i < msg.size(); i += 16) {
            increment(ctr);
            const Bytes s = e(ctr);
            for (size_t j = i; j < msg.size() && j < i + 16; ++j) out[j] = msg[j] ^ s[j - i];
        }
        for (size_t i = 0; i < tag_len; ++i) out.push_back(mac[i] ^ s0[i]);
        return out;
    }

private:
    Bytes e(const Bytes& block) {
        Bytes out(16);
        int n = 0;
        REQUIRE(EVP_EncryptUpdate(ctx_.get(), out.data(), &n, block.data(), 16) == 1);
        REQUIRE(n == 16);
        return out;
    }
    void absorb(Bytes& mac, const Bytes& data) {
        for (size_t i = 0; i < data.size(); i += 16) {
            for (size_t j = i; j < data.size() && j < i + 16; ++j) mac[j - i] ^= data[j];
            mac = e(mac);
        }
    }
    static void increment(Bytes& ctr) {
        for (size_t i = 16; i-- > 0;)
            if (++ctr[i] != 0) break;
    }
    CipherPtr ecb_;
    CipherCtxPtr ctx_;
};

// ---------------------------------------------------------------- through EVP

// A buffer that is never NULL, even when empty: the default provider takes
// an update with in == NULL for its final.
struct Buffer {
    Bytes bytes;
    explicit Buffer(const Bytes& b) : bytes(b) { bytes.reserve(b.size() + 1); }
    unsigned char* data() { return bytes.data() != nullptr ? bytes.data() : dummy; }
    unsigned char dummy[1] = {0};
};

CipherCtxPtr start(const EVP_CIPHER* c, bool enc, const Ccm& t, const Bytes* tag) {
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    size_t ivlen = t.nonce.size();
    OSSL_PARAM params[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG,
                                tag ? const_cast<uint8_t*>(tag->data()) : nullptr, t.tag_len),
        OSSL_PARAM_END};
    REQUIRE(EVP_CipherInit_ex2(ctx.get(), c, nullptr, nullptr, enc ? 1 : 0, params) == 1);
    REQUIRE(EVP_CipherInit_ex2(ctx.get(), nullptr, t.key.data(), t.nonce.data(), -1, nullptr) == 1);
    return ctx;
}

// Declare (or not), AAD, payload (in place or not); copy_mid: continue on a
// copy of the context after the AAD.
Sealed seal(const EVP_CIPHER* c, const Ccm& t, bool in_place = false, bool declare = true,
            bool copy_mid = false) {
    CipherCtxPtr ctx = start(c, true, t, nullptr);
    Sealed r;
    int n = 0;
    if (declare && EVP_EncryptUpdate(ctx.get(), nullptr, &n, nullptr, static_cast<int>(t.msg.size())) != 1)
        return r;
    Buffer aad(t.aad);
    if (!t.aad.empty() && EVP_EncryptUpdate(ctx.get(), nullptr, &n, aad.data(), static_cast<int>(t.aad.size())) != 1)
        return r;
    if (copy_mid) {
        CipherCtxPtr copy(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_CIPHER_CTX_copy(copy.get(), ctx.get()) == 1);
        ctx = std::move(copy);
    }
    Buffer in(t.msg);
    Bytes out_space(t.msg.size() + 1);
    unsigned char* out = in_place ? in.data() : out_space.data();
    if (EVP_EncryptUpdate(ctx.get(), out, &n, in.data(), static_cast<int>(t.msg.size())) != 1) return r;
    REQUIRE(n == static_cast<int>(t.msg.size()));
    int fin = 0;
    if (EVP_EncryptFinal_ex(ctx.get(), out + n, &fin) != 1) return r;
    REQUIRE(fin == 0);
    r.tag.resize(t.tag_len);
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(t.tag_len), r.tag.data()) != 1)
        return r;
    r.ct.assign(out, out + t.msg.size());
    r.ok = true;
    return r;
}

struct Opened {
    bool ok = false;
    Bytes out;  // the whole output buffer, sentinels included
};

// Decrypts into a buffer of 0xee sentinels (or in place); the buffer comes
// back whole, so a failure can be checked to have written nothing.
Opened open(const EVP_CIPHER* c, const Ccm& t, const Bytes& ct, const Bytes& tag,
            bool in_place = false) {
    CipherCtxPtr ctx = start(c, false, t, &tag);
    Opened r;
    int n = 0;
    Buffer in(ct);
    Bytes sentinel(ct.size() + 16, 0xee);
    unsigned char* out = in_place ? in.data() : sentinel.data();
    auto result = [&](bool ok) {
        r.ok = ok;
        r.out = in_place ? in.bytes : sentinel;
        return r;
    };
    if (EVP_DecryptUpdate(ctx.get(), nullptr, &n, nullptr, static_cast<int>(ct.size())) != 1) return result(false);
    Buffer aad(t.aad);
    if (!t.aad.empty() && EVP_DecryptUpdate(ctx.get(), nullptr, &n, aad.data(), static_cast<int>(t.aad.size())) != 1)
        return result(false);
    if (EVP_DecryptUpdate(ctx.get(), out, &n, in.data(), static_cast<int>(ct.size())) != 1) return result(false);
    int fin = 0;
    return result(EVP_DecryptFinal_ex(ctx.get(), out + n, &fin) == 1);
}

Ccm random_case(Lcg& rng, size_t max_len) {
    Ccm t;
    t.key = rng.bytes(16);
    const size_t l = 2 + rng.below(7);
    t.nonce = rng.bytes(15 - l);
    t.tag_len = 4 + 2 * rng.below(7);
    size_t len = rng.below(4) == 0 ? rng.below(40) : rng.below(max_len + 1);
    if (l == 2 && len > 65535) len = 65535;
    t.msg = rng.bytes(len);
    const size_t alen = rng.below(3) == 0 ? 0 : rng.below(4) == 0 ? rng.below(300) : rng.below(max_len + 1);
    t.aad = rng.bytes(alen);
    return t;
}

CipherPtr default_ccm(const LoadedProvider& prov) { return prov.default_cipher_if_any("SM4-CCM"); }

Bytes joined(const Sealed& s) {
    Bytes out = s.ct;
    out.insert(out.end(), s.tag.begin(), s.tag.end());
    return out;
}

}  // namespace

TEST_CASE("SM4-CCM: RFC 8998's example (OpenSSL 4.0's evpciph_sm4.txt CCM stanza), every engine", "[cipher][ccm][vectors]") {
    std::vector<std::pair<CipherVector, Ccm>> cases;
    for (const CipherVector& v : load_evp_cipher_tests(vector_path("openssl/4.0/evpciph_sm4.txt"))) {
        if (v.cipher != "SM4-CCM") continue;
        Ccm t{v.key, v.iv, {}, v.plaintext, 0};
        Bytes tag;
        for (const auto& [k, value] : v.other) {
            if (k == "AAD") t.aad = parse_evp_value(value);
            else if (k == "Tag") tag = parse_evp_value(value);
            else FAIL("unknown key " << k << " at " << v.where);
        }
        t.tag_len = tag.size();
        CipherVector with_tag = v;
        with_tag.other = {{"Tag", to_hex(tag)}};
        cases.emplace_back(with_tag, t);
    }
    REQUIRE(cases.size() == 1);
    for (const std::string& sel : sm4_selections()) {
        LoadedProvider prov(sel);
        CipherPtr c = prov.cipher("SM4-CCM");
        for (const auto& [v, t] : cases) {
            INFO(v.where << " engines " << prov.engines());
            const Bytes tag = from_hex(v.other[0].second);
            for (bool in_place : {false, true}) {
                Sealed s = seal(c.get(), t, in_place);
                REQUIRE(s.ok);
                CHECK(s.ct == v.ciphertext);
                CHECK(s.tag == tag);
                Opened o = open(c.get(), t, v.ciphertext, tag, in_place);
                CHECK(o.ok);
                CHECK(Bytes(o.out.begin(), o.out.begin() + v.plaintext.size()) == v.plaintext);
            }
            ReferenceCcm ref(prov, t.key);  // the reference must agree too
            CHECK(ref.seal(t.nonce, t.aad, t.msg, t.tag_len) == joined(Sealed{true, v.ciphertext, tag}));
        }
    }
}

TEST_CASE("SM4-CCM equals SP 800-38C and the default provider: random L, tags, AAD and lengths, in place, copies", "[cipher][ccm][ccm-bulk]") {
    Lcg rng(8998);
    for (const std::string& sel : sm4_selections()) {
        LoadedProvider prov(sel);
        CipherPtr ours = prov.cipher("SM4-CCM");
        CipherPtr theirs = default_ccm(prov);  // none in OpenSSL 3.0
        int compared_with_default = 0;
        for (int iter = 0; iter < 60; ++iter) {
            Ccm t = random_case(rng, 5000);
            // Around the provider's short-message path (up to 2032 bytes).
            if (iter < 6) t.msg = rng.bytes(size_t{2030} + iter);
            // Undeclared, the payload gives the length; AAD needs it declared first.
            const bool in_place = rng.below(3) == 0, copy = rng.below(4) == 0;
            const bool declare = !t.aad.empty() || rng.below(3) != 0;
            INFO("engines " << prov.engines() << " iter " << iter << " L " << 15 - t.nonce.size()
                            << " M " << t.tag_len << " aad " << t.aad.size() << " len " << t.msg.size()
                            << " in place " << in_place << " declared " << declare << " copy " << copy);
            ReferenceCcm ref(prov, t.key);
            const Bytes want = ref.seal(t.nonce, t.aad, t.msg, t.tag_len);
            Sealed got = seal(ours.get(), t, in_place, declare, copy);
            REQUIRE(got.ok);
            CHECK(joined(got) == want);
            if (theirs) {
                Sealed d = seal(theirs.get(), t);
                REQUIRE(d.ok);
                CHECK(joined(d) == want);
                ++compared_with_default;
            }
            Opened o = open(ours.get(), t, got.ct, got.tag, rng.below(2) == 0);
            CHECK(o.ok);
            CHECK(Bytes(o.out.begin(), o.out.begin() + t.msg.size()) == t.msg);
        }
        if (theirs) CHECK(compared_with_default == 60);
    }
}

TEST_CASE("SM4-CCM at its paths' edges (96 and 2032 bytes): AAD or not, copies, tampering", "[cipher][ccm][ccm-bulk]") {
    Lcg rng(2032);
    for (const std::string& sel : sm4_selections()) {
        LoadedProvider prov(sel);
        CipherPtr ours = prov.cipher("SM4-CCM");
        int iter = 0;
        for (size_t len : {0, 1, 15, 16, 17, 33, 64, 80, 95, 96, 97, 111, 112, 113, 2031, 2032, 2033})
            for (size_t aad_len : {0, 13, 14, 40}) {
                Ccm t = random_case(rng, 0);
                t.msg = rng.bytes(len);
                t.aad = rng.bytes(aad_len);
                // In place or not; continued on a copy made between the AAD
                // and the payload (the keystream ahead is in the context then).
                const bool in_place = iter % 2 == 0, copy = iter % 3 == 0;
                ++iter;
                INFO("engines " << prov.engines() << " len " << len << " aad " << aad_len << " M " << t.tag_len
                                << " L " << 15 - t.nonce.size() << " in place " << in_place << " copy " << copy);
                ReferenceCcm ref(prov, t.key);
                const Sealed got = seal(ours.get(), t, in_place, true, copy);
                REQUIRE(got.ok);
                CHECK(joined(got) == ref.seal(t.nonce, t.aad, t.msg, t.tag_len));
                Opened o = open(ours.get(), t, got.ct, got.tag, !in_place);
                CHECK(o.ok);
                CHECK(Bytes(o.out.begin(), o.out.begin() + len) == t.msg);
                Bytes tag = got.tag;
                tag[rng.below(tag.size())] ^= static_cast<uint8_t>(1u << rng.below(8));
                o = open(ours.get(), t, got.ct, tag, in_place);
                CHECK_FALSE(o.ok);
                // The default provider's code for a CCM update it refuses.
                CHECK(is_openssl_error(take_error_codes().last(), ERR_LIB_PROV, PROV_R_CIPHER_OPERATION_FAILED));
                CHECK(o.out == (in_place ? got.ct : Bytes(len + 16, 0xee)));
            }
    }
}

TEST_CASE("SM4-CCM: tampered tag, ciphertext or AAD fails and releases nothing", "[cipher][ccm][errors][ccm-bulk]") {
    Lcg rng(3610);
    for (const std::string& sel : sm4_selections()) {
        LoadedProvider prov(sel);
        CipherPtr ours = prov.cipher("SM4-CCM");
        CipherPtr theirs = default_ccm(prov);
        for (int iter = 0; iter < 24; ++iter) {
            Ccm t = random_case(rng, 2000);
            if (t.msg.empty()) t.msg = rng.bytes(1 + rng.below(100));
            if (t.aad.empty()) t.aad = rng.bytes(1 + rng.below(100));
            Sealed s = seal(ours.get(), t);
            REQUIRE(s.ok);
            const bool in_place = iter % 2 == 1;
            for (int what = 0; what < 3; ++what) {
                INFO("engines " << prov.engines() << " iter " << iter << " tamper " << what
                                << " in place " << in_place);
                Ccm bad = t;
                Bytes ct = s.ct, tag = s.tag;
                const uint8_t bit = static_cast<uint8_t>(1u << rng.below(8));
                if (what == 0) tag[rng.below(tag.size())] ^= bit;
                if (what == 1) ct[rng.below(ct.size())] ^= bit;
                if (what == 2) bad.aad[rng.below(bad.aad.size())] ^= bit;
                Opened o = open(ours.get(), bad, ct, tag, in_place);
                CHECK_FALSE(o.ok);
                // The default provider's code for a CCM update it refuses.
                CHECK(is_openssl_error(take_error_codes().last(), ERR_LIB_PROV, PROV_R_CIPHER_OPERATION_FAILED));
                // Nothing written: the sentinels, or in place the ciphertext, remain.
                Bytes expect = in_place ? ct : Bytes(ct.size() + 16, 0xee);
                CHECK(o.out == expect);
                if (theirs) {
                    CHECK_FALSE(open(theirs.get(), bad, ct, tag).ok);
                    take_errors();
                }
            }
        }
    }
}

TEST_CASE("SM4-CCM: the counter stays in its L bytes up to the longest message; long AAD", "[cipher][ccm][ccm-bulk]") {
    // L = 2 allows 65535 bytes: the last counter is 4096, far from the 2^16
    // wrap of the field, and never carries into the nonce. 65536 is refused.
    Lcg rng(2);
    for (const std::string& sel : sm4_selections()) {
        LoadedProvider prov(sel);
        CipherPtr ours = prov.cipher("SM4-CCM");
        Ccm t;
        t.key = rng.bytes(16);
        t.nonce = Bytes(13, 0xff);  // all-ones nonce: a carry out of the field would show
        t.tag_len = 16;
        t.msg = rng.bytes(65535);
        t.aad = rng.bytes(7);
        INFO("engines " << prov.engines());
        ReferenceCcm ref(prov, t.key);
        Sealed got = seal(ours.get(), t);
        REQUIRE(got.ok);
        CHECK(joined(got) == ref.seal(t.nonce, t.aad, t.msg, 16));
        // AAD of 2^16 - 2^8 bytes and more takes the 6-byte length encoding.
        Ccm big = t;
        big.nonce = rng.bytes(12);
        big.msg = rng.bytes(100);
        big.aad = rng.bytes(0xff00 + rng.below(300));
        Sealed b = seal(ours.get(), big);
        REQUIRE(b.ok);
        CHECK(joined(b) == ref.seal(big.nonce, big.aad, big.msg, 16));
        CHECK(open(ours.get(), big, b.ct, b.tag).ok);
        t.msg.push_back(0);
        CHECK_FALSE(seal(ours.get(), t).ok);
        CHECK_THAT(take_errors(), Catch::Contains("does not fit"));
        CHECK_FALSE(seal(ours.get(), t, false, false).ok);  // undeclared: the payload is the length
        take_errors();
    }
}

TEST_CASE("SM4-CCM parameters equal the default provider's (OpenSSL 3.6+)", "[cipher][ccm][params]") {
    LoadedProvider prov;
    CipherPtr ours = prov.cipher("SM4-CCM");
    CipherPtr theirs = default_ccm(prov);
    if (!theirs) {
        WARN("this OpenSSL's default provider has no SM4-CCM: compared in the 3.6/4.0 runs");
        CHECK(EVP_CIPHER_get_mode(ours.get()) == EVP_CIPH_CCM_MODE);
        return;
    }
    auto keys = [](const OSSL_PARAM* p) {
        std::vector<std::pair<std::string, unsigned>> out;
        for (; p != nullptr && p->key != nullptr; ++p) out.emplace_back(p->key, p->data_type);
        return out;
    };
    auto sorted = [&](const OSSL_PARAM* p) {
        auto v = keys(p);
        return std::set<std::pair<std::string, unsigned>>(v.begin(), v.end());
    };
    CHECK(sorted(EVP_CIPHER_gettable_params(ours.get())) == sorted(EVP_CIPHER_gettable_params(theirs.get())));
    auto get_ours = sorted(EVP_CIPHER_gettable_ctx_params(ours.get()));
    auto set_ours = sorted(EVP_CIPHER_settable_ctx_params(ours.get()));
    auto get_theirs = sorted(EVP_CIPHER_gettable_ctx_params(theirs.get()));
    auto set_theirs = sorted(EVP_CIPHER_settable_ctx_params(theirs.get()));
    if (OpenSSL_version_num() < 0x30600000L) {
        // Before 3.6 the default provider's CCM lists GCM's too (its shared
        // AEAD tables), parameters its CCM does not answer; hwaccel lists
        // 3.6's exact ones on every release.
        get_ours.insert({{OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, OSSL_PARAM_OCTET_STRING},
                         {"iv-generated", OSSL_PARAM_UNSIGNED_INTEGER}});
        set_ours.insert({OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, OSSL_PARAM_OCTET_STRING});
    }
    CHECK(get_ours == get_theirs);
    CHECK(set_ours == set_theirs);
    CHECK(EVP_CIPHER_get_block_size(ours.get()) == EVP_CIPHER_get_block_size(theirs.get()));
    CHECK(EVP_CIPHER_get_key_length(ours.get()) == EVP_CIPHER_get_key_length(theirs.get()));
    CHECK(EVP_CIPHER_get_iv_length(ours.get()) == EVP_CIPHER_get_iv_length(theirs.get()));
    CHECK(EVP_CIPHER_get_mode(ours.get()) == EVP_CIPHER_get_mode(theirs.get()));
    CHECK(EVP_CIPHER_get_flags(ours.get()) == EVP_CIPHER_get_flags(theirs.get()));
    CHECK(EVP_CIPHER_get_type(ours.get()) == EVP_CIPHER_get_type(theirs.get()));
    EVP_CIPHER_names_do_all(theirs.get(), [](const char* alias, void* arg) {
        auto* p = static_cast<LoadedProvider*>(arg);
        CipherPtr m(EVP_CIPHER_fetch(p->libctx(), alias, "provider=hwaccel"));
        INFO("alias " << alias);
        CHECK(m != nullptr);
    }, &prov);
    // A fresh context's lengths, and after the nonce length changes.
    for (size_t ivlen : {size_t{0}, size_t{7}, size_t{12}, size_t{13}}) {
        size_t got[2][3];
        const EVP_CIPHER* both[2] = {ours.get(), theirs.get()};
        for (int k = 0; k < 2; ++k) {
            CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
            REQUIRE(EVP_EncryptInit_ex2(ctx.get(), both[k], nullptr, nullptr, nullptr) == 1);
            if (ivlen) REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(ivlen), nullptr) == 1);
            size_t pad = 99;
            OSSL_PARAM q[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, &got[k][0]),
                              OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, &got[k][1]),
                              OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, &pad), OSSL_PARAM_END};
            REQUIRE(EVP_CIPHER_CTX_get_params(ctx.get(), q) == 1);
            got[k][2] = pad;
        }
        INFO("ivlen " << ivlen);
        CHECK(got[0][0] == got[1][0]);
        CHECK(got[0][1] == got[1][1]);
        CHECK(got[0][2] == got[1][2]);
    }
}

TEST_CASE("SM4-CCM: TLS 1.2 records (tlsaad, tlsivfixed) as the default provider's", "[cipher][ccm][tls][ccm-bulk]") {
    Lcg rng(5288);
    for (const std::string& sel : sm4_selections()) {
        LoadedProvider prov(sel);
        CipherPtr ours = prov.cipher("SM4-CCM");
        CipherPtr theirs = default_ccm(prov);
        for (int iter = 0; iter < 8; ++iter) {
            const Bytes key = rng.bytes(16), fixed = rng.bytes(4), seq = rng.bytes(8);
            const size_t tag_len = iter % 2 ? 16 : 8, payload = rng.below(600);
            // The record: explicit IV (filled in when sending) | payload | room for the tag.
            Bytes record = rng.bytes(8 + payload + tag_len);
            Bytes aad(13);
            std::copy(seq.begin(), seq.end(), aad.begin());
            aad[8] = 23, aad[9] = 3, aad[10] = 3;
            auto run = [&](const EVP_CIPHER* c, bool enc, Bytes rec, Bytes* out_rec) {
                CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                size_t ivlen = 12;
                OSSL_PARAM p1[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                                   OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, tag_len),
                                   OSSL_PARAM_END};
                REQUIRE(EVP_CipherInit_ex2(ctx.get(), c, nullptr, nullptr, enc, p1) == 1);
                REQUIRE(EVP_CipherInit_ex2(ctx.get(), nullptr, key.data(), nullptr, enc, nullptr) == 1);
                Bytes a = aad;
                const size_t rec_len = enc ? 8 + payload : rec.size();
                a[11] = static_cast<uint8_t>(rec_len >> 8), a[12] = static_cast<uint8_t>(rec_len);
                size_t pad = 0;
                OSSL_PARAM p2[] = {
                    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, const_cast<uint8_t*>(fixed.data()), 4),
                    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, a.data(), 13), OSSL_PARAM_END};
                REQUIRE(EVP_CIPHER_CTX_set_params(ctx.get(), p2) == 1);
                OSSL_PARAM p3[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, &pad), OSSL_PARAM_END};
                REQUIRE(EVP_CIPHER_CTX_get_params(ctx.get(), p3) == 1);
                CHECK(pad == tag_len);
                const int n = EVP_Cipher(ctx.get(), rec.data(), rec.data(), static_cast<unsigned>(rec.size()));
                *out_rec = rec;
                return n;
            };
            INFO("engines " << prov.engines() << " payload " << payload << " tag " << tag_len);
            Bytes sealed, opened;
            CHECK(run(ours.get(), true, record, &sealed) == static_cast<int>(record.size()));
            // Against SP 800-38C: nonce fixed || explicit (= seq), AAD with the payload length.
            Ccm t{key, fixed, aad, Bytes(record.begin() + 8, record.begin() + 8 + payload), tag_len};
            t.nonce.insert(t.nonce.end(), seq.begin(), seq.end());
            t.aad[11] = static_cast<uint8_t>(payload >> 8), t.aad[12] = static_cast<uint8_t>(payload);
            ReferenceCcm ref(prov, key);
            CHECK(Bytes(sealed.begin() + 8, sealed.end()) == ref.seal(t.nonce, t.aad, t.msg, tag_len));
            CHECK(Bytes(sealed.begin(), sealed.begin() + 8) == seq);
            if (theirs) {
                Bytes d;
                CHECK(run(theirs.get(), true, record, &d) == static_cast<int>(record.size()));
                CHECK(d == sealed);
            }
            // EVP_Cipher returns the record's length both ways, as default's
            // (EVP_CipherUpdate gives the payload's when receiving).
            CHECK(run(ours.get(), false, sealed, &opened) == static_cast<int>(sealed.size()));
            CHECK(Bytes(opened.begin() + 8, opened.begin() + 8 + payload) == t.msg);
            if (theirs) {
                Bytes d;
                CHECK(run(theirs.get(), false, sealed, &d) == static_cast<int>(sealed.size()));
                CHECK(Bytes(d.begin(), d.begin() + 8 + payload) == Bytes(opened.begin(), opened.begin() + 8 + payload));
            }
            Bytes forged = sealed;
            forged[8 + rng.below(payload + tag_len)] ^= 1;
            CHECK(run(ours.get(), false, forged, &opened) < 0);
            CHECK(opened == forged);  // nothing written
            take_errors();
        }
    }
}

TEST_CASE("SM4-CCM misuse is refused with nothing written", "[cipher][ccm][errors]") {
    LoadedProvider prov;
    CipherPtr c = prov.cipher("SM4-CCM");
    Lcg rng(11);
    Ccm t{rng.bytes(16), rng.bytes(12), rng.bytes(20), rng.bytes(50), 16};
    unsigned char out[128];
    int n = 0;
    auto untouched = [&] {
        for (unsigned char b : out)
            if (b != 0xee) return false;
        return true;
    };
    auto refused = [&](bool ok, const char* why) {
        INFO(why);
        CHECK_FALSE(ok);
        CHECK_FALSE(take_errors().empty());
        CHECK(untouched());
    };
    std::memset(out, 0xee, sizeof out);
    const int len = static_cast<int>(t.msg.size());

    SECTION("payload length other than declared") {
        CipherCtxPtr ctx = start(c.get(), true, t, nullptr);
        REQUIRE(EVP_EncryptUpdate(ctx.get(), nullptr, &n, nullptr, len) == 1);
        refused(EVP_EncryptUpdate(ctx.get(), out, &n, t.msg.data(), len - 1) == 1, "shorter");
        refused(EVP_EncryptUpdate(ctx.get(), out, &n, t.msg.data(), len + 1) == 1, "longer");
        // The context goes on as if those never happened.
        REQUIRE(EVP_EncryptUpdate(ctx.get(), out, &n, t.msg.data(), len) == 1);
    }
    SECTION("AAD before the length, AAD twice, payload twice, AAD after payload") {
        CipherCtxPtr ctx = start(c.get(), true, t, nullptr);
        refused(EVP_EncryptUpdate(ctx.get(), nullptr, &n, t.aad.data(), 20) == 1, "undeclared AAD");
        REQUIRE(EVP_EncryptUpdate(ctx.get(), nullptr, &n, nullptr, len) == 1);
        REQUIRE(EVP_EncryptUpdate(ctx.get(), nullptr, &n, t.aad.data(), 20) == 1);
        refused(EVP_EncryptUpdate(ctx.get(), nullptr, &n, t.aad.data(), 20) == 1, "second AAD");
        refused(EVP_EncryptUpdate(ctx.get(), nullptr, &n, nullptr, len) == 1, "declared after AAD");
        REQUIRE(EVP_EncryptUpdate(ctx.get(), out + 64, &n, t.msg.data(), len) == 1);
        std::memset(out, 0xee, sizeof out);
        refused(EVP_EncryptUpdate(ctx.get(), out, &n, t.msg.data(), len) == 1, "second payload");
        refused(EVP_EncryptUpdate(ctx.get(), out, &n, t.msg.data(), 0) == 1, "empty second payload");
        refused(EVP_EncryptUpdate(ctx.get(), nullptr, &n, t.aad.data(), 20) == 1, "AAD after payload");
        REQUIRE(EVP_EncryptFinal_ex(ctx.get(), out, &n) == 1);
        refused(EVP_EncryptFinal_ex(ctx.get(), out, &n) == 1, "final twice");
        refused(EVP_EncryptUpdate(ctx.get(), out, &n, t.msg.data(), len) == 1, "update after final");
        unsigned char tag[16];
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag) == 1);
        CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1);  // read once
        take_errors();
        // Re-init without an IV: the nonce is spent.
        REQUIRE(EVP_EncryptInit_ex2(ctx.get(), nullptr, nullptr, nullptr, nullptr) == 1);
        refused(EVP_EncryptUpdate(ctx.get(), out, &n, t.msg.data(), len) == 1, "nonce reuse");
    }
    SECTION("NULL with a length, negative lengths, too small output") {
        CipherCtxPtr ctx = start(c.get(), true, t, nullptr);
        refused(EVP_EncryptUpdate(ctx.get(), out, &n, nullptr, 16) == 1, "NULL input");
        refused(EVP_EncryptUpdate(ctx.get(), nullptr, &n, nullptr, -1) == 1, "negative declaration");
        refused(EVP_EncryptUpdate(ctx.get(), nullptr, &n, t.aad.data(), -5) == 1, "negative AAD");
        refused(EVP_EncryptUpdate(ctx.get(), out, &n, t.msg.data(), INT_MIN) == 1, "negative payload");
        REQUIRE(EVP_EncryptUpdate(ctx.get(), nullptr, &n, nullptr, len) == 1);
        REQUIRE(EVP_EncryptUpdate(ctx.get(), out + 64, &n, t.msg.data(), len) == 1);
    }
    SECTION("tag misuse and final without the declared payload") {
        CipherCtxPtr ctx = start(c.get(), true, t, nullptr);
        unsigned char tag[16];
        CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1);  // before the payload
        REQUIRE(EVP_EncryptUpdate(ctx.get(), nullptr, &n, nullptr, len) == 1);
        // Final's empty payload is not the declared length.
        refused(EVP_EncryptFinal_ex(ctx.get(), out, &n) == 1, "final without the declared payload");
        CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag) != 1);  // a value when encrypting
        CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 5, nullptr) != 1);
        CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 18, nullptr) != 1);
        CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, 6, nullptr) != 1);
        CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, 14, nullptr) != 1);
        take_errors();
        REQUIRE(EVP_EncryptUpdate(ctx.get(), out, &n, t.msg.data(), len) == 1);
        CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 12, tag) != 1);  // the wrong length
        take_errors();
        CHECK(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag) == 1);
    }
    SECTION("decryption without a tag, and final after a failed one") {
        Sealed s = seal(c.get(), t);
        REQUIRE(s.ok);
        CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
        size_t ivlen = 12;
        OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen), OSSL_PARAM_END};
        REQUIRE(EVP_DecryptInit_ex2(ctx.get(), c.get(), t.key.data(), nullptr, p) == 1);
        REQUIRE(EVP_DecryptInit_ex2(ctx.get(), nullptr, nullptr, t.nonce.data(), nullptr) == 1);
        refused(EVP_DecryptUpdate(ctx.get(), out, &n, s.ct.data(), len) == 1, "no tag");
        Bytes bad = s.tag;
        bad[0] ^= 1;
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, bad.data()) == 1);
        refused(EVP_DecryptUpdate(ctx.get(), out, &n, s.ct.data(), len) == 1, "wrong tag");
        refused(EVP_DecryptFinal_ex(ctx.get(), out, &n) == 1, "final after a failed decryption");
    }
    SECTION("EVP_Cipher runs the same sequence") {
        CipherCtxPtr ctx = start(c.get(), true, t, nullptr);
        CHECK(EVP_Cipher(ctx.get(), nullptr, nullptr, static_cast<unsigned>(len)) == len);
        CHECK(EVP_Cipher(ctx.get(), nullptr, t.aad.data(), 20) == 20);
        CHECK(EVP_Cipher(ctx.get(), out, t.msg.data(), static_cast<unsigned>(len)) == len);
        CHECK(EVP_Cipher(ctx.get(), out + 64, nullptr, 0) == 0);  // its final
        unsigned char tag[16];
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag) == 1);
        Sealed s = seal(c.get(), t);
        CHECK(Bytes(out, out + len) == s.ct);
        CHECK(Bytes(tag, tag + 16) == s.tag);
    }
}

// Through the dispatch table with lengths EVP never passes: a negative int
// turned size_t, a range that wraps, NULL with a length. Refused before
// anything is read or written; the message then goes on as if they never came.
// OpenSSL 4.0's default provider runs final with no payload as the empty
// payload (3.x's answered 1 and computed nothing): hwaccel does so on every
// release, so a message of AAD only needs no zero-length update.
TEST_CASE("SM4-CCM: final with no payload is the empty payload (AAD-only messages)", "[cipher][ccm]") {
    for (const std::string& sel : sm4_selections()) {
        INFO("engines: " << sel);
        LoadedProvider prov(sel);
        CipherPtr ours = prov.cipher("SM4-CCM");
        CipherPtr theirs = default_ccm(prov);
        const bool default_runs_empty_payload = theirs && OpenSSL_version_num() >= 0x40000000L;
        Lcg rng(4040);
        for (size_t aad_len : {size_t{0}, size_t{5}, size_t{14}, size_t{40}}) {
            for (bool declare : {false, true}) {
                INFO("AAD " << aad_len << (declare ? ", length 0 declared" : ", no declaration"));
                Ccm t{rng.bytes(16), rng.bytes(7 + aad_len % 7), rng.bytes(aad_len), {}, 4 + 2 * (aad_len % 7)};
                const Bytes want = ReferenceCcm(prov, t.key).seal(t.nonce, t.aad, {}, t.tag_len);
                // Init, (declaration,) AAD, final; the tag then (encrypting).
                auto run = [&](const EVP_CIPHER* c, bool enc, const Bytes* tag, const Bytes& aad) {
                    CipherCtxPtr ctx = start(c, enc, t, tag);
                    int n = -1;
                    if (declare && EVP_CipherUpdate(ctx.get(), nullptr, &n, nullptr, 0) != 1) return Bytes{0xff};
                    Buffer a(aad);
                    if (!aad.empty() && EVP_CipherUpdate(ctx.get(), nullptr, &n, a.data(), static_cast<int>(aad.size())) != 1)
                        return Bytes{0xff};
                    unsigned char fin[16];
                    n = -1;
                    if (EVP_CipherFinal_ex(ctx.get(), fin, &n) != 1) return Bytes{0xfe};
                    CHECK(n == 0);
                    if (!enc) return Bytes{};
                    Bytes got(t.tag_len);
                    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(t.tag_len), got.data()) != 1)
                        return Bytes{0xfd};
                    // Final twice is refused, as after any payload (4.0's default answers 1).
                    if (c == ours.get()) {
                        CHECK(EVP_CipherFinal_ex(ctx.get(), fin, &n) != 1);
                        take_errors();
                    }
                    return got;
                };
                if (!declare && aad_len != 0) {
                    // AAD needs the length declared first (as in the default provider).
                    CHECK(run(ours.get(), true, nullptr, t.aad) == Bytes{0xff});
                    CHECK_FALSE(take_errors().empty());
                    continue;
                }
                const Bytes tag = run(ours.get(), true, nullptr, t.aad);
                CHECK(tag == want);
                if (default_runs_empty_payload) CHECK(run(theirs.get(), true, nullptr, t.aad) == want);
                CHECK(run(ours.get(), false, &want, t.aad) == Bytes{});
                // A wrong tag, or other AAD, fails at final with an error.
                Bytes bad = want;
                bad[bad.size() - 1] ^= 0x80;
                CHECK(run(ours.get(), false, &bad, t.aad) == Bytes{0xfe});
                CHECK_FALSE(take_errors().empty());
                if (declare) {
                    Bytes other_aad = t.aad;
                    other_aad.push_back(0x01);
                    CHECK(run(ours.get(), false, &want, other_aad) == Bytes{0xfe});
                    CHECK_FALSE(take_errors().empty());
                }
                if (default_runs_empty_payload) {
                    CHECK(run(theirs.get(), false, &want, t.aad) == Bytes{});
                    CHECK(run(theirs.get(), false, &bad, t.aad) == Bytes{0xfe});
                    take_errors();
                }
            }
        }
        // Decrypting with no expected tag, or without a nonce, is still refused.
        Ccm t{rng.bytes(16), rng.bytes(12), rng.bytes(9), {}, 16};
        CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
        size_t ivlen = 12;
        OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen), OSSL_PARAM_END};
        REQUIRE(EVP_DecryptInit_ex2(ctx.get(), ours.get(), t.key.data(), t.nonce.data(), p) == 1);
        unsigned char fin[16];
        int n = 0;
        CHECK(EVP_DecryptFinal_ex(ctx.get(), fin, &n) != 1);
        CHECK_FALSE(take_errors().empty());
        CipherCtxPtr no_nonce(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_EncryptInit_ex2(no_nonce.get(), ours.get(), t.key.data(), nullptr, p) == 1);
        CHECK(EVP_EncryptFinal_ex(no_nonce.get(), fin, &n) != 1);
        CHECK_FALSE(take_errors().empty());
    }
}

TEST_CASE("SM4-CCM dispatch: impossible lengths are refused and change nothing", "[dispatch][errors][ccm]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    CipherFns f(m.cipher("SM4-CCM"));
    const unsigned char key[16] = {1, 2, 3}, nonce[7] = {4, 5, 6}, aad[5] = {9};
    const unsigned char msg[48] = {7, 8, 9};
    auto seal_all = [&](void* ctx, unsigned char* out) {
        size_t n = 0;
        REQUIRE(f.update(ctx, nullptr, &n, 0, nullptr, sizeof msg) == 1);
        REQUIRE(f.update(ctx, nullptr, &n, sizeof aad, aad, sizeof aad) == 1);
        REQUIRE(f.update(ctx, out, &n, 64, msg, sizeof msg) == 1);
        CHECK(n == sizeof msg);
        REQUIRE(f.final(ctx, out + n, &n, 16) == 1);
        unsigned char* tag = out + sizeof msg;
        OSSL_PARAM get[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 12), OSSL_PARAM_END};
        REQUIRE(f.get_ctx_params(ctx, get) == 1);
    };
    unsigned char expect[64], out[64];
    void* ref = f.newctx(m.provctx);
    REQUIRE(f.einit(ref, key, 16, nonce, 7, nullptr) == 1);
    seal_all(ref, expect);

    void* ctx = f.newctx(m.provctx);
    REQUIRE(f.einit(ctx, key, 16, nonce, 7, nullptr) == 1);
    for (size_t bad : {SIZE_MAX, SIZE_MAX - 15, size_t{1} << 63, static_cast<size_t>(INT_MAX) + 1}) {
        INFO("length " << bad);
        g_core.clear_errors();
        unsigned char sink[64];
        std::memset(sink, 0xee, sizeof sink);
        size_t outl = 777;
        CHECK(f.update(ctx, nullptr, &outl, bad, nullptr, bad) == 0);  // declaration
        CHECK(f.update(ctx, nullptr, &outl, bad, aad, bad) == 0);      // AAD
        CHECK(f.update(ctx, sink, &outl, bad, msg, bad) == 0);         // payload
        // EVP_Cipher passes an unsigned int: its entry refuses only what no
        // buffer can be.
        const bool impossible = bad > static_cast<size_t>(PTRDIFF_MAX) ||
                                reinterpret_cast<uintptr_t>(msg) + bad < bad;
        if (impossible) {
            CHECK(f.cipher(ctx, sink, &outl, bad, msg, bad) == 0);
            CHECK(f.cipher(ctx, nullptr, &outl, bad, aad, bad) == 0);
        }
        CHECK(g_core.errors.size() == (impossible ? 5u : 3u));
        CHECK(outl == 777);
        for (unsigned char c : sink) CHECK(c == 0xee);
    }
    g_core.clear_errors();
    size_t outl = 0;
    CHECK(f.update(ctx, out, &outl, 64, nullptr, 16) == 0);       // NULL input with a length
    CHECK(f.update(ctx, nullptr, &outl, 64, nullptr, 0) == 1);  // a zero-length declaration is fine
    CHECK(f.update(ctx, out, &outl, 8, msg, 16) == 0);            // output too small
    CHECK(g_core.errors.size() == 2);
    seal_all(ctx, out);
    CHECK(std::memcmp(out, expect, sizeof msg + 12) == 0);

    // A TLS record whose length wraps the address space.
    unsigned char tls_aad[13] = {0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, 0, 40};
    unsigned char fixed[4] = {1, 2, 3, 4};
    OSSL_PARAM tls[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, fixed, 4),
                        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, tls_aad, 13), OSSL_PARAM_END};
    REQUIRE(f.einit(ctx, key, 16, nonce, 7, tls) == 1);
    unsigned char rec[64];
    std::memset(rec, 0xee, sizeof rec);
    g_core.clear_errors();
    CHECK(f.cipher(ctx, rec, &outl, SIZE_MAX, rec, SIZE_MAX) == 0);
    CHECK(f.update(ctx, rec, &outl, SIZE_MAX, rec, SIZE_MAX - 7) == 0);
    CHECK(g_core.errors.size() == 2);
    for (unsigned char c : rec) CHECK(c == 0xee);
    f.freectx(ctx);
    f.freectx(ref);
}

// Every OpenSSL 3/4 default CCM reports the length declared, and the AAD
// taken, as its update's output length (ciphercommon_ccm.c: olen = len), as
// its EVP_Cipher does; hwaccel's GCM reports AAD so too.
TEST_CASE("SM4-CCM: the declaration and the AAD update report their length, as the default's",
          "[cipher][ccm][params]") {
    LoadedProvider prov;
    Lcg rng(12);
    Ccm t{rng.bytes(16), rng.bytes(12), rng.bytes(20), rng.bytes(50), 16};
    CipherPtr ours = prov.cipher("SM4-CCM"), theirs = default_ccm(prov);
    for (const EVP_CIPHER* c : {ours.get(), theirs.get()}) {
        if (c == nullptr) continue;
        INFO(provider_of(c));
        CipherCtxPtr ctx = start(c, true, t, nullptr);
        int n = -1;
        REQUIRE(EVP_EncryptUpdate(ctx.get(), nullptr, &n, nullptr, 50) == 1);
        CHECK(n == 50);
        n = -1;
        REQUIRE(EVP_EncryptUpdate(ctx.get(), nullptr, &n, t.aad.data(), 20) == 1);
        CHECK(n == 20);
        Bytes out(50);
        REQUIRE(EVP_EncryptUpdate(ctx.get(), out.data(), &n, t.msg.data(), 50) == 1);
        CHECK(n == 50);
        Sealed s = seal(c, t);
        REQUIRE(s.ok);
        CHECK(out == s.ct);
    }
}

// Refusals the other cases do not reach, each through the dispatch table
// (the raised reason read off the fake core), each leaving the message as it
// was: the sealed result equals a context that saw no refusal.
TEST_CASE("SM4-CCM dispatch: refusals of tag length, TLS records, init params and final",
          "[dispatch][errors][ccm]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    CipherFns f(m.cipher("SM4-CCM"));
    const unsigned char key[16] = {1, 2, 3}, nonce[7] = {4, 5, 6}, aad[5] = {9};
    const unsigned char msg[48] = {7, 8, 9};
    size_t n = 0;
    // Declared, AAD, payload, final, 12-byte tag (the default for this test's contexts).
    auto seal_rest = [&](void* ctx, unsigned char* out, bool declared) {
        if (!declared) REQUIRE(f.update(ctx, nullptr, &n, 0, nullptr, sizeof msg) == 1);
        REQUIRE(f.update(ctx, nullptr, &n, sizeof aad, aad, sizeof aad) == 1);
        REQUIRE(f.update(ctx, out, &n, 64, msg, sizeof msg) == 1);
        REQUIRE(f.final(ctx, out + sizeof msg, &n, 16) == 1);
        OSSL_PARAM get[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, out + sizeof msg, 12),
                            OSSL_PARAM_END};
        REQUIRE(f.get_ctx_params(ctx, get) == 1);
    };
    unsigned char expect[64], out[64];
    void* ref = f.newctx(m.provctx);
    REQUIRE(f.einit(ref, key, 16, nonce, 7, nullptr) == 1);
    seal_rest(ref, expect, false);
    f.freectx(ref);

    SECTION("the tag length cannot change once the length is declared") {
        void* ctx = f.newctx(m.provctx);
        REQUIRE(f.einit(ctx, key, 16, nonce, 7, nullptr) == 1);
        REQUIRE(f.update(ctx, nullptr, &n, 0, nullptr, sizeof msg) == 1);
        g_core.clear_errors();
        OSSL_PARAM tag8[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 8), OSSL_PARAM_END};
        CHECK(f.set_ctx_params(ctx, tag8) == 0);
        CHECK(g_core.reasons == std::vector<int>{static_cast<int>(hwaccel::kErrInvalidParameter)});
        CHECK(g_core.errors.size() == 1);
        if (!g_core.errors.empty())
            CHECK(g_core.errors[0].find("the tag length cannot change once the message has begun") !=
                  std::string::npos);
        // The same length is no change and is taken.
        OSSL_PARAM tag12[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 12), OSSL_PARAM_END};
        CHECK(f.set_ctx_params(ctx, tag12) == 1);
        size_t taglen = 0;
        OSSL_PARAM get[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, &taglen), OSSL_PARAM_END};
        REQUIRE(f.get_ctx_params(ctx, get) == 1);
        CHECK(taglen == 12);
        seal_rest(ctx, out, true);
        CHECK(std::memcmp(out, expect, sizeof msg + 12) == 0);
        f.freectx(ctx);
    }
    SECTION("a refused init's params leave the direction as it was") {
        void* ctx = f.newctx(m.provctx);
        REQUIRE(f.einit(ctx, key, 16, nonce, 7, nullptr) == 1);
        g_core.clear_errors();
        // A tag value is for decryption, but this ivlen is refused: the init
        // fails, and the context still encrypts.
        unsigned char tag[12] = {};
        size_t bad_ivlen = 14;
        OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, sizeof tag),
                          OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &bad_ivlen), OSSL_PARAM_END};
        CHECK(f.dinit(ctx, nullptr, 0, nullptr, 0, p) == 0);
        CHECK(g_core.reasons == std::vector<int>{static_cast<int>(hwaccel::kErrInvalidIvLength)});
        // Still encrypting: a tag value is refused as not needed.
        g_core.clear_errors();
        OSSL_PARAM q[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, sizeof tag), OSSL_PARAM_END};
        CHECK(f.set_ctx_params(ctx, q) == 0);
        CHECK(g_core.reasons == std::vector<int>{static_cast<int>(hwaccel::kErrTagNotNeeded)});
        seal_rest(ctx, out, false);
        CHECK(std::memcmp(out, expect, sizeof msg + 12) == 0);
        f.freectx(ctx);
    }
    SECTION("final with no key") {
        void* ctx = f.newctx(m.provctx);
        REQUIRE(f.einit(ctx, nullptr, 0, nonce, 7, nullptr) == 1);
        g_core.clear_errors();
        n = 777;
        CHECK(f.final(ctx, out, &n, sizeof out) == 0);
        CHECK(g_core.reasons == std::vector<int>{static_cast<int>(hwaccel::kErrNoKeySet)});
        CHECK(n == 777);
        // The key comes later; the message goes on.
        REQUIRE(f.einit(ctx, key, 16, nullptr, 0, nullptr) == 1);
        seal_rest(ctx, out, false);
        CHECK(std::memcmp(out, expect, sizeof msg + 12) == 0);
        f.freectx(ctx);
    }
    SECTION("TLS records: no key, and a payload longer than L allows") {
        unsigned char fixed[4] = {1, 2, 3, 4};
        unsigned char tls_aad[13] = {0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, 0, 40};
        OSSL_PARAM tls[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, fixed, 4),
                            OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, tls_aad, 13),
                            OSSL_PARAM_END};
        void* ctx = f.newctx(m.provctx);
        // The TLS nonce is 12 bytes (L = 3); with no key set.
        size_t ivlen = 12;
        OSSL_PARAM iv12[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen), OSSL_PARAM_END};
        REQUIRE(f.einit(ctx, nullptr, 0, nullptr, 0, iv12) == 1);
        REQUIRE(f.set_ctx_params(ctx, tls) == 1);
        // A refused record: one error naming why, the record and n untouched.
        auto check_refused = [&](size_t payload, const char* why) {
            Bytes rec(8 + payload + 12, 0x5a);
            const Bytes before = rec;
            g_core.clear_errors();
            n = 777;
            CHECK(f.cipher(ctx, rec.data(), &n, rec.size(), rec.data(), rec.size()) == 0);
            CHECK(g_core.reasons == std::vector<int>{static_cast<int>(hwaccel::kErrCipherOperationFailed)});
            if (!g_core.errors.empty()) CHECK(g_core.errors[0].find(why) != std::string::npos);
            CHECK(rec == before);
            CHECK(n == 777);
        };
        check_refused(40, "no key set");

        // A 13-byte nonce leaves L = 2: at most 65535 bytes of payload. The
        // TLS path takes ivlen as set (its fixed and explicit parts fill the
        // first 12 bytes), so a record of 65536 bytes of payload is refused.
        ivlen = 13;
        OSSL_PARAM iv13[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen), OSSL_PARAM_END};
        REQUIRE(f.einit(ctx, key, 16, nullptr, 0, iv13) == 1);
        REQUIRE(f.set_ctx_params(ctx, tls) == 1);
        check_refused(65536, "record too long");
        // One byte less fits.
        Bytes fits(8 + 65535 + 12, 0x5a);
        g_core.clear_errors();
        CHECK(f.cipher(ctx, fits.data(), &n, fits.size(), fits.data(), fits.size()) == 1);
        CHECK(g_core.errors.empty());
        f.freectx(ctx);
    }
}
