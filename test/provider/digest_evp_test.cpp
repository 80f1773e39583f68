// Digests through EVP: hwaccel (every engine selection this CPU can run)
// against OpenSSL's default provider in the same library context.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "provider_fixture.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

// One-shot digest of `data`; for XOFs `outlen` bytes through FinalXOF.
Bytes digest(const EVP_MD* md, const Bytes& data, size_t outlen = 0) {
    MdCtxPtr ctx(EVP_MD_CTX_new());
    REQUIRE(EVP_DigestInit_ex(ctx.get(), md, nullptr) == 1);
    REQUIRE(EVP_DigestUpdate(ctx.get(), data.data(), data.size()) == 1);
    const bool xof = (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF) != 0;
    Bytes out(xof ? outlen : static_cast<size_t>(EVP_MD_get_size(md)));
    final_digest(ctx.get(), out.data(), out.size(), xof);
    return out;
}

// Updates in random pieces, zero-length ones included.
void update_in_pieces(EVP_MD_CTX* ctx, const unsigned char* p, size_t n, Lcg& rng) {
    while (n > 0) {
        size_t piece = rng.below(4) == 0 ? 0 : rng.below(n < 300 ? n + 1 : 300);
        if (rng.below(8) == 0) piece = n;
        REQUIRE(EVP_DigestUpdate(ctx, p, piece) == 1);
        p += piece;
        n -= piece;
    }
}

}  // namespace

TEST_CASE("provider reports name, version, buildinfo, status and engines", "[provider]") {
    LoadedProvider prov;
    const char *name = nullptr, *version = nullptr, *buildinfo = nullptr;
    int status = 0;
    OSSL_PARAM request[] = {
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, const_cast<char**>(&name), 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, const_cast<char**>(&version), 0),
        OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, const_cast<char**>(&buildinfo), 0),
        OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, &status),
        OSSL_PARAM_END,
    };
    REQUIRE(OSSL_PROVIDER_get_params(prov.hwaccel(), request) == 1);
    REQUIRE(name != nullptr);
    CHECK(std::string(name).find("hwaccel") != std::string::npos);
    REQUIRE(version != nullptr);
    CHECK(std::string(version).size() >= 5);
    REQUIRE(buildinfo != nullptr);
    CHECK(std::string(buildinfo).find("engines: sha1=") != std::string::npos);
    CHECK(status == 1);
    CHECK(prov.engines().find("sha256=") != std::string::npos);
}

TEST_CASE("forced engines are what the provider reports", "[provider][engines]") {
    for (const std::string& sel : engine_selections()) {
        if (sel.empty()) continue;
        LoadedProvider prov(sel);
        INFO("HWACCEL_ENGINES=" << sel << " -> " << prov.engines());
        CHECK(prov.engines().find(sel) != std::string::npos);
    }
    LoadedProvider all("all=generic");
    CHECK(all.engines() == "sha1=generic,sha256=generic,sha3=generic,sm4=generic,ghash=generic");
}

TEST_CASE("an unknown engine or family refuses to load, with a readable error", "[provider][engines]") {
    for (const char* bad : {"sha256=nosuchengine", "md5=generic", "sha256", "sha1=generic,sm4=bogus"}) {
        INFO(bad);
        take_errors();
        CHECK_THROWS_WITH(LoadedProvider(bad), Catch::Contains("invalid engine selection") &&
                                                  Catch::Contains(bad));
    }
}

TEST_CASE("digest parameters equal the default provider's", "[digest]") {
    LoadedProvider prov;
    for (const auto& d : all_digests()) {
        INFO(d.name);
        MdPtr ours = prov.md(d.name), theirs = prov.default_md(d.name);
        CHECK(EVP_MD_get_size(ours.get()) == EVP_MD_get_size(theirs.get()));
        CHECK(EVP_MD_get_block_size(ours.get()) == EVP_MD_get_block_size(theirs.get()));
        CHECK(EVP_MD_get_flags(ours.get()) == EVP_MD_get_flags(theirs.get()));
        CHECK(EVP_MD_get_type(ours.get()) == EVP_MD_get_type(theirs.get()));
        // Every alias the default provider answers to reaches us too.
        EVP_MD_names_do_all(theirs.get(), [](const char* alias, void* arg) {
            auto* p = static_cast<LoadedProvider*>(arg);
            MdPtr m(EVP_MD_fetch(p->libctx(), alias, "provider=hwaccel"));
            INFO("alias " << alias);
            CHECK(m != nullptr);
        }, &prov);
    }
}

TEST_CASE("digests equal the default provider's: random lengths and splits", "[digest]") {
    Lcg rng(20261130);
    for (const std::string& sel : engine_selections()) {
        LoadedProvider prov(sel);
        for (const auto& d : all_digests()) {
            INFO("engines " << prov.engines() << ", " << d.name);
            MdPtr ours = prov.md(d.name), theirs = prov.default_md(d.name);
            for (int iter = 0; iter < 40; ++iter) {
                size_t len = iter < 10 ? iter * 37 % 200 : rng.below(5001);
                size_t outlen = d.xof ? rng.below(700) : 0;
                Bytes msg = rng.bytes(len);
                INFO("length " << len << " xoflen " << outlen);
                Bytes expect = digest(theirs.get(), msg, outlen);
                CHECK(digest(ours.get(), msg, outlen) == expect);

                MdCtxPtr ctx(EVP_MD_CTX_new());
                REQUIRE(EVP_DigestInit_ex(ctx.get(), ours.get(), nullptr) == 1);
                update_in_pieces(ctx.get(), msg.data(), msg.size(), rng);
                Bytes got(expect.size());
                final_digest(ctx.get(), got.data(), got.size(), d.xof);
                CHECK(got == expect);
            }
        }
    }
}

TEST_CASE("EVP_Digest one-shot, and SHAKE's default length as the running OpenSSL's", "[digest][versions]") {
    LoadedProvider prov;
    Bytes msg(1000, 0x5a);
    for (const auto& d : all_digests()) {
        INFO(d.name << " on " << OpenSSL_version(OPENSSL_VERSION));
        MdPtr ours = prov.md(d.name), theirs = prov.default_md(d.name);
        CHECK(EVP_MD_get_size(ours.get()) == EVP_MD_get_size(theirs.get()));
        unsigned char a[64], b[64];
        unsigned int alen = 0, blen = 0;
        const int ra = EVP_Digest(msg.data(), msg.size(), a, &alen, ours.get(), nullptr);
        const int rb = EVP_Digest(msg.data(), msg.size(), b, &blen, theirs.get(), nullptr);
        take_errors();
        // 3.0-3.3: SHAKE has a default length (16/32); 3.4+: none, both refuse.
        const bool refused = d.xof && !shake_has_default_length();
        CHECK(ra == (refused ? 0 : 1));
        CHECK(ra == rb);
        if (ra == 1 && rb == 1) {
            REQUIRE(alen == blen);
            CHECK(std::memcmp(a, b, alen) == 0);
        }
    }
}

TEST_CASE("a copied context continues independently", "[digest]") {
    Lcg rng(7);
    LoadedProvider prov;
    for (const auto& d : all_digests()) {
        INFO(d.name);
        MdPtr ours = prov.md(d.name), theirs = prov.default_md(d.name);
        for (size_t cut : {0, 1, 63, 64, 65, 135, 136, 137, 168, 500}) {
            Bytes msg = rng.bytes(600), tail = rng.bytes(77);
            MdCtxPtr a(EVP_MD_CTX_new()), b(EVP_MD_CTX_new());
            REQUIRE(EVP_DigestInit_ex(a.get(), ours.get(), nullptr) == 1);
            REQUIRE(EVP_DigestUpdate(a.get(), msg.data(), cut) == 1);
            REQUIRE(EVP_MD_CTX_copy_ex(b.get(), a.get()) == 1);
            // a: the whole message; b: the prefix plus a different tail.
            REQUIRE(EVP_DigestUpdate(a.get(), msg.data() + cut, msg.size() - cut) == 1);
            REQUIRE(EVP_DigestUpdate(b.get(), tail.data(), tail.size()) == 1);
            Bytes prefix_tail(msg.begin(), msg.begin() + cut);
            prefix_tail.insert(prefix_tail.end(), tail.begin(), tail.end());
            size_t n = d.xof ? 100 : EVP_MD_get_size(ours.get());
            Bytes ga(n), gb(n);
            final_digest(a.get(), ga.data(), n, d.xof);
            final_digest(b.get(), gb.data(), n, d.xof);
            CHECK(ga == digest(theirs.get(), msg, n));
            CHECK(gb == digest(theirs.get(), prefix_tail, n));
        }
    }
}

TEST_CASE("init resets everything, the XOF length included", "[digest]") {
    LoadedProvider prov;
    for (const auto& d : all_digests()) {
        INFO(d.name);
        MdPtr ours = prov.md(d.name), theirs = prov.default_md(d.name);
        Bytes msg(300, 0x11);
        MdCtxPtr ctx(EVP_MD_CTX_new());
        REQUIRE(EVP_DigestInit_ex(ctx.get(), ours.get(), nullptr) == 1);
        REQUIRE(EVP_DigestUpdate(ctx.get(), "junk", 4) == 1);
        if (d.xof) {
            size_t big = 99;
            OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &big), OSSL_PARAM_END};
            REQUIRE(EVP_MD_CTX_set_params(ctx.get(), p) == 1);
        }
        // Re-init mid-stream, and again after a final: each starts afresh.
        for (int round = 0; round < 2; ++round) {
            REQUIRE(EVP_DigestInit_ex(ctx.get(), ours.get(), nullptr) == 1);
            REQUIRE(EVP_DigestUpdate(ctx.get(), msg.data(), msg.size()) == 1);
            unsigned char out[128];
            unsigned int len = 0;
            if (d.xof && !shake_has_default_length()) {
                // The 99 set before init is gone: no length, so final refuses.
                CHECK(EVP_DigestFinal_ex(ctx.get(), out, &len) == 0);
                take_errors();
                continue;
            }
            REQUIRE(EVP_DigestFinal_ex(ctx.get(), out, &len) == 1);
            CHECK(len == static_cast<unsigned>(EVP_MD_get_size(theirs.get())));
            CHECK(Bytes(out, out + len) == digest(theirs.get(), msg, len));
        }
    }
}

TEST_CASE("SHAKE output of any length, 0 and beyond the rate included", "[digest][xof]") {
    LoadedProvider prov;
    for (const char* name : {"SHAKE-128", "SHAKE-256"}) {
        INFO(name);
        MdPtr ours = prov.md(name), theirs = prov.default_md(name);
        Bytes msg(200, 0xa3);  // FIPS 202's customary test message
        for (size_t n : {0, 1, 15, 16, 31, 32, 135, 136, 137, 167, 168, 169, 336, 1000, 4097}) {
            INFO("xoflen " << n);
            CHECK(digest(ours.get(), msg, n) == digest(theirs.get(), msg, n));
        }
    }
}

// OpenSSL 3.0-3.3's EVP_DigestFinal_ex tells the provider the default size
// (16/32) whatever xoflen the caller set, which its manual allows; 3.4+'s
// passes xoflen. Up to EVP_MAX_MD_SIZE both providers give the same bytes on
// every release; beyond it hwaccel refuses where the size is unknown (the
// default provider writes them all) and agrees where it is known.
TEST_CASE("SHAKE: EVP_DigestFinal_ex after xoflen set longer than the default", "[digest][xof][versions]") {
    LoadedProvider prov;
    Bytes msg(100, 0x3c);
    for (const char* name : {"SHAKE-128", "SHAKE-256"}) {
        MdPtr ours = prov.md(name), theirs = prov.default_md(name);
        for (size_t n : {16, 17, 32, 33, 48, 63, 64, 65, 100}) {
            INFO(name << ", xoflen " << n << " on " << OpenSSL_version(OPENSSL_VERSION));
            unsigned char got[128], want[128];
            unsigned int got_len = 0, want_len = 0;
            for (int which = 0; which < 2; ++which) {
                MdCtxPtr ctx(EVP_MD_CTX_new());
                size_t xoflen = n;
                const OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t("xoflen", &xoflen), OSSL_PARAM_END};
                REQUIRE(EVP_DigestInit_ex2(ctx.get(), which == 0 ? ours.get() : theirs.get(), params) == 1);
                REQUIRE(EVP_DigestUpdate(ctx.get(), msg.data(), msg.size()) == 1);
                const int rc = EVP_DigestFinal_ex(ctx.get(), which == 0 ? got : want, which == 0 ? &got_len : &want_len);
                if (which == 1) {
                    REQUIRE(rc == 1);  // the default provider writes xoflen bytes
                } else if (n > 64 && shake_has_default_length()) {
                    CHECK(rc == 0);
                    CHECK_THAT(take_errors(), Catch::Contains("EVP_DigestFinalXOF"));
                } else {
                    CHECK(rc == 1);
                }
            }
            if (n <= 64 || !shake_has_default_length()) {
                CHECK(got_len == n);
                CHECK(Bytes(got, got + got_len) == Bytes(want, want + want_len));
            }
        }
    }
}

TEST_CASE("errors: second final, update after final, too-small output", "[digest][errors]") {
    LoadedProvider prov;
    for (const auto& d : all_digests()) {
        INFO(d.name);
        MdPtr ours = prov.md(d.name);
        MdCtxPtr ctx(EVP_MD_CTX_new());
        unsigned char out[200];
        REQUIRE(EVP_DigestInit_ex(ctx.get(), ours.get(), nullptr) == 1);
        REQUIRE(EVP_DigestUpdate(ctx.get(), "abc", 3) == 1);
        if (d.xof)
            REQUIRE(EVP_DigestFinalXOF(ctx.get(), out, 50) == 1);
        else
            REQUIRE(EVP_DigestFinal_ex(ctx.get(), out, nullptr) == 1);
        take_errors();
        // Whichever layer refuses (EVP on 3.5, us on 3.0), it must be an error;
        // the dispatch test checks our own refusal and its message.
        if (d.xof) {
            CHECK(EVP_DigestFinalXOF(ctx.get(), out, 50) == 0);
            take_errors();
        } else {
            CHECK(EVP_DigestFinal_ex(ctx.get(), out, nullptr) == 0);
            take_errors();
        }
        CHECK(EVP_DigestUpdate(ctx.get(), "abc", 3) == 0);
        take_errors();
    }
}

TEST_CASE("HMAC and HKDF of the default provider over our digests agree", "[digest][hmac]") {
    LoadedProvider prov;
    Lcg rng(99);
    for (const char* name : {"SHA1", "SHA2-224", "SHA2-256", "SHA3-224", "SHA3-256", "SHA3-384", "SHA3-512"}) {
        INFO(name);
        EVP_MAC* mac = EVP_MAC_fetch(prov.libctx(), "HMAC", "provider=default");
        REQUIRE(mac != nullptr);
        for (size_t len : {0, 1, 64, 200, 3000}) {
            Bytes key = rng.bytes(len % 293 + 1), msg = rng.bytes(len);
            Bytes result[2];
            const char* props[2] = {"provider=hwaccel", "provider=default"};
            for (int i = 0; i < 2; ++i) {
                EVP_MAC_CTX* mctx = EVP_MAC_CTX_new(mac);
                OSSL_PARAM p[] = {
                    OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, const_cast<char*>(name), 0),
                    OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_PROPERTIES, const_cast<char*>(props[i]), 0),
                    OSSL_PARAM_END,
                };
                REQUIRE(EVP_MAC_init(mctx, key.data(), key.size(), p) == 1);
                REQUIRE(EVP_MAC_update(mctx, msg.data(), msg.size()) == 1);
                result[i].resize(EVP_MAX_MD_SIZE);
                size_t outl = 0;
                REQUIRE(EVP_MAC_final(mctx, result[i].data(), &outl, result[i].size()) == 1);
                result[i].resize(outl);
                EVP_MAC_CTX_free(mctx);
            }
            CHECK(result[0] == result[1]);
        }
        EVP_MAC_free(mac);

        EVP_KDF* kdf = EVP_KDF_fetch(prov.libctx(), "HKDF", "provider=default");
        REQUIRE(kdf != nullptr);
        Bytes ikm = rng.bytes(40), salt = rng.bytes(13), info = rng.bytes(9);
        Bytes okm[2];
        const char* props[2] = {"provider=hwaccel", "provider=default"};
        for (int i = 0; i < 2; ++i) {
            EVP_KDF_CTX* kctx = EVP_KDF_CTX_new(kdf);
            OSSL_PARAM p[] = {
                OSSL_PARAM_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(name), 0),
                OSSL_PARAM_utf8_string(OSSL_KDF_PARAM_PROPERTIES, const_cast<char*>(props[i]), 0),
                OSSL_PARAM_octet_string(OSSL_KDF_PARAM_KEY, ikm.data(), ikm.size()),
                OSSL_PARAM_octet_string(OSSL_KDF_PARAM_SALT, salt.data(), salt.size()),
                OSSL_PARAM_octet_string(OSSL_KDF_PARAM_INFO, info.data(), info.size()),
                OSSL_PARAM_END,
            };
            okm[i].resize(77);
            REQUIRE(EVP_KDF_derive(kctx, okm[i].data(), okm[i].size(), p) == 1);
            EVP_KDF_CTX_free(kctx);
        }
        CHECK(okm[0] == okm[1]);
        EVP_KDF_free(kdf);
    }
}

TEST_CASE("8 threads share one fetched EVP_MD", "[digest][threads]") {
    LoadedProvider prov;
    for (const auto& d : all_digests()) {
        INFO(d.name);
        MdPtr ours = prov.md(d.name), theirs = prov.default_md(d.name);
        Lcg rng(1234);
        std::vector<Bytes> msgs, expect;
        for (int i = 0; i < 64; ++i) {
            msgs.push_back(rng.bytes(rng.below(3000)));
            expect.push_back(digest(theirs.get(), msgs.back(), 48));
        }
        std::vector<int> mismatches(8, 0);
        std::vector<std::thread> threads;
        for (int t = 0; t < 8; ++t) {
            threads.emplace_back([&, t] {
                for (int round = 0; round < 20; ++round) {
                    for (size_t i = t % 3; i < msgs.size(); i += 3) {
                        MdCtxPtr ctx(EVP_MD_CTX_new());
                        unsigned char out[64];
                        size_t n = d.xof ? 48 : EVP_MD_get_size(ours.get());
                        bool ok = EVP_DigestInit_ex(ctx.get(), ours.get(), nullptr) == 1 &&
                                  EVP_DigestUpdate(ctx.get(), msgs[i].data(), msgs[i].size()) == 1 &&
                                  (d.xof ? EVP_DigestFinalXOF(ctx.get(), out, n)
                                         : EVP_DigestFinal_ex(ctx.get(), out, nullptr)) == 1;
                        if (!ok || Bytes(out, out + n) != expect[i]) ++mismatches[t];
                    }
                }
            });
        }
        for (auto& th : threads) th.join();
        for (int t = 0; t < 8; ++t) CHECK(mismatches[t] == 0);
    }
}

namespace {

std::vector<std::string> keys_of(const OSSL_PARAM* table) {
    std::vector<std::string> keys;
    for (const OSSL_PARAM* p = table; p != nullptr && p->key != nullptr; ++p) keys.emplace_back(p->key);
    return keys;
}

bool lists(const std::vector<std::string>& keys, const std::string& key) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
}

// Every parameter a table lists, asked for with its listed type and size:
// each must be answered.
void query_each(const OSSL_PARAM* table, const std::function<int(OSSL_PARAM*)>& get) {
    for (const OSSL_PARAM* t = table; t != nullptr && t->key != nullptr; ++t) {
        INFO("param " << t->key);
        unsigned char buf[16] = {};
        REQUIRE(t->data_size <= sizeof buf);
        OSSL_PARAM q[] = {{t->key, t->data_type, buf, t->data_size, OSSL_PARAM_UNMODIFIED}, OSSL_PARAM_END};
        CHECK(get(q) == 1);
        CHECK(OSSL_PARAM_modified(q));
    }
}

}  // namespace

// EVP_MD_gettable_params and, for SHAKE, EVP_MD_{gettable,settable}_ctx_params:
// every key the default provider lists is listed, and every key listed is answered.
TEST_CASE("digest parameter lists hold the default provider's keys and each is answered", "[digest][params]") {
    LoadedProvider prov;
    for (const auto& d : all_digests()) {
        INFO(d.name);
        MdPtr ours = prov.md(d.name), theirs = prov.default_md(d.name);
        const OSSL_PARAM* gettable = EVP_MD_gettable_params(ours.get());
        REQUIRE(gettable != nullptr);
        for (const std::string& k : keys_of(EVP_MD_gettable_params(theirs.get()))) CHECK(lists(keys_of(gettable), k));
        query_each(gettable, [&](OSSL_PARAM* q) { return EVP_MD_get_params(ours.get(), q); });
        if (!d.xof) continue;
        const OSSL_PARAM* settable = EVP_MD_settable_ctx_params(ours.get());
        REQUIRE(settable != nullptr);
        for (const std::string& k : keys_of(EVP_MD_settable_ctx_params(theirs.get())))
            CHECK(lists(keys_of(settable), k));
        CHECK(lists(keys_of(settable), OSSL_DIGEST_PARAM_XOFLEN));
        const OSSL_PARAM* ctx_gettable = EVP_MD_gettable_ctx_params(ours.get());
        REQUIRE(ctx_gettable != nullptr);
        for (const std::string& k : keys_of(EVP_MD_gettable_ctx_params(theirs.get())))
            CHECK(lists(keys_of(ctx_gettable), k));
        MdCtxPtr ctx(EVP_MD_CTX_new());
        REQUIRE(EVP_DigestInit_ex(ctx.get(), ours.get(), nullptr) == 1);
        size_t len = 20;
        OSSL_PARAM set[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &len), OSSL_PARAM_END};
        REQUIRE(EVP_MD_CTX_set_params(ctx.get(), set) == 1);
        query_each(ctx_gettable, [&](OSSL_PARAM* q) {
            const int rc = EVP_MD_CTX_get_params(ctx.get(), q);
            size_t got = 0;
            CHECK(OSSL_PARAM_get_size_t(q, &got) == 1);
            CHECK(got == 20);
            return rc;
        });
    }
}
