// What OpenSSL 3.3-3.5 added or changed, checked on whichever OpenSSL runs
// the suite (the test command runs it under 3.0 and 3.5).
#include <dlfcn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "provider_fixture.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

// EVP_DigestSqueeze exists from 3.3 on; the suite is built against 3.0
// headers too, so look it up in the running libcrypto.
using SqueezeFn = int (*)(EVP_MD_CTX*, unsigned char*, size_t);
SqueezeFn evp_digest_squeeze() {
    return reinterpret_cast<SqueezeFn>(dlsym(RTLD_DEFAULT, "EVP_DigestSqueeze"));
}

}  // namespace

TEST_CASE("EVP_DigestSqueeze: random pieces equal one FinalXOF (OpenSSL 3.3+)", "[versions][squeeze]") {
    SqueezeFn squeeze = evp_digest_squeeze();
    if (squeeze == nullptr) {
        WARN("EVP_DigestSqueeze absent in " << OpenSSL_version(OPENSSL_VERSION)
                                            << ": checked through dispatch instead");
        return;
    }
    LoadedProvider prov;
    Lcg rng(2024);
    for (const char* name : {"SHAKE-128", "SHAKE-256"}) {
        INFO(name);
        MdPtr ours = prov.md(name), theirs = prov.default_md(name);
        for (int iter = 0; iter < 40; ++iter) {
            Bytes msg(rng.below(500));
            rng.fill(msg.data(), msg.size());
            size_t total = rng.below(1000) + 1;
            Bytes want(total), got(total);
            MdCtxPtr ref(EVP_MD_CTX_new()), ctx(EVP_MD_CTX_new());
            REQUIRE(EVP_DigestInit_ex(ref.get(), theirs.get(), nullptr) == 1);
            REQUIRE(EVP_DigestUpdate(ref.get(), msg.data(), msg.size()) == 1);
            REQUIRE(EVP_DigestFinalXOF(ref.get(), want.data(), total) == 1);
            REQUIRE(EVP_DigestInit_ex(ctx.get(), ours.get(), nullptr) == 1);
            REQUIRE(EVP_DigestUpdate(ctx.get(), msg.data(), msg.size()) == 1);
            size_t done = 0;
            while (done < total) {
                size_t piece = std::min<size_t>(rng.below(200) + 1, total - done);
                REQUIRE(squeeze(ctx.get(), got.data() + done, piece) == 1);
                done += piece;
            }
            CHECK(got == want);
            // Update after a squeeze is refused.
            CHECK(EVP_DigestUpdate(ctx.get(), msg.data(), 1) == 0);
            ERR_clear_error();
        }
    }
}

TEST_CASE("EVP_MD_CTX_copy_ex into a context of the same digest (copyctx on 3.5)", "[versions][copy]") {
    LoadedProvider prov;
    for (const auto& d : all_digests()) {
        INFO(d.name);
        MdPtr ours = prov.md(d.name), theirs = prov.default_md(d.name);
        Bytes msg(333, 0x3c);
        MdCtxPtr a(EVP_MD_CTX_new()), b(EVP_MD_CTX_new());
        REQUIRE(EVP_DigestInit_ex(a.get(), ours.get(), nullptr) == 1);
        REQUIRE(EVP_DigestInit_ex(b.get(), ours.get(), nullptr) == 1);  // same digest: copyctx path
        REQUIRE(EVP_DigestUpdate(b.get(), "stale", 5) == 1);
        REQUIRE(EVP_DigestUpdate(a.get(), msg.data(), 100) == 1);
        REQUIRE(EVP_MD_CTX_copy_ex(b.get(), a.get()) == 1);
        REQUIRE(EVP_DigestUpdate(b.get(), msg.data() + 100, msg.size() - 100) == 1);
        Bytes got(64), want(64);
        size_t n = d.xof ? 64 : EVP_MD_get_size(ours.get());
        MdCtxPtr r(EVP_MD_CTX_new());
        REQUIRE(EVP_DigestInit_ex(r.get(), theirs.get(), nullptr) == 1);
        REQUIRE(EVP_DigestUpdate(r.get(), msg.data(), msg.size()) == 1);
        final_digest(b.get(), got.data(), n, d.xof);
        final_digest(r.get(), want.data(), n, d.xof);
        CHECK(Bytes(got.begin(), got.begin() + n) == Bytes(want.begin(), want.begin() + n));
    }
}

TEST_CASE("a fixed-size digest never writes more than asked, on every version", "[versions][errors]") {
    LoadedProvider prov;
    for (const auto& d : all_digests()) {
        if (d.xof) continue;
        INFO(d.name << " on " << OpenSSL_version(OPENSSL_VERSION));
        MdPtr ours = prov.md(d.name);
        MdCtxPtr ctx(EVP_MD_CTX_new());
        REQUIRE(EVP_DigestInit_ex(ctx.get(), ours.get(), nullptr) == 1);
        REQUIRE(EVP_DigestUpdate(ctx.get(), "abc", 3) == 1);
        unsigned char out[80];
        std::memset(out, 0xa5, sizeof out);
        // 3.0 refuses in EVP; 3.5 passes the request on and we must refuse.
        CHECK(EVP_DigestFinalXOF(ctx.get(), out, 1) == 0);
        ERR_clear_error();
        for (unsigned char c : out) CHECK(c == 0xa5);
    }
}

TEST_CASE("SHAKE's size and length parameters follow the running OpenSSL", "[versions][xof]") {
    LoadedProvider prov;
    for (const char* name : {"SHAKE-128", "SHAKE-256"}) {
        INFO(name << " on " << OpenSSL_version(OPENSSL_VERSION));
        MdPtr ours = prov.md(name), theirs = prov.default_md(name);
        CHECK(EVP_MD_get_size(ours.get()) == EVP_MD_get_size(theirs.get()));
        CHECK(EVP_MD_get_size(ours.get()) == (shake_has_default_length() ? (name[6] == '1' ? 16 : 32) : 0));
        MdCtxPtr a(EVP_MD_CTX_new()), b(EVP_MD_CTX_new());
        REQUIRE(EVP_DigestInit_ex(a.get(), ours.get(), nullptr) == 1);
        REQUIRE(EVP_DigestInit_ex(b.get(), theirs.get(), nullptr) == 1);
        CHECK(EVP_MD_CTX_get_size(a.get()) == EVP_MD_CTX_get_size(b.get()));
        size_t len = 77;
        OSSL_PARAM p[] = {OSSL_PARAM_size_t("xoflen", &len), OSSL_PARAM_END};
        REQUIRE(EVP_MD_CTX_set_params(a.get(), p) == 1);
        REQUIRE(EVP_MD_CTX_set_params(b.get(), p) == 1);
        CHECK(EVP_MD_CTX_get_size(a.get()) == EVP_MD_CTX_get_size(b.get()));
    }
}
