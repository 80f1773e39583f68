// What OpenSSL 3.3-4.0 added or changed, checked on whichever OpenSSL runs
// the suite (the test command runs it under 3.0, 3.5, 3.6 and 4.0); the
// differences by release are listed in docs/openssl-versions.md.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <openssl/provider.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
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

// EVP_MD_CTX_serialize / _deserialize exist from 4.0 on; looked up likewise.
using SerializeFn = int (*)(EVP_MD_CTX*, unsigned char*, size_t*);
using DeserializeFn = int (*)(EVP_MD_CTX*, const unsigned char*, size_t);
struct SerializeApi {
    SerializeFn save = reinterpret_cast<SerializeFn>(dlsym(RTLD_DEFAULT, "EVP_MD_CTX_serialize"));
    DeserializeFn load =
        reinterpret_cast<DeserializeFn>(dlsym(RTLD_DEFAULT, "EVP_MD_CTX_deserialize"));
    bool present() const { return save != nullptr && load != nullptr; }
};

// A saved state, or empty if refused.
Bytes save_state(const SerializeApi& api, EVP_MD_CTX* ctx) {
    size_t len = 0;
    if (api.save(ctx, nullptr, &len) != 1 || len == 0 || len > 4096) return {};
    Bytes out(len);
    if (api.save(ctx, out.data(), &len) != 1) return {};
    out.resize(len);
    return out;
}

// Where the buffered message bytes start in each format, and how many there
// are; the rest of that region is stale bytes in OpenSSL's states and zeros
// in hwaccel's (digest/serialized_state.hpp), so comparisons blank it.
Bytes without_stale_bytes(Bytes state) {
    size_t start = 0, used = 0;
    if (state.size() == 120 && std::memcmp(state.data(), "SHA256v1", 8) == 0) {
        start = 56;
        used = state[12] | state[13] << 8;
    } else if (state.size() == 424 && std::memcmp(state.data(), "KECCAKv1", 8) == 0) {
        start = 256;
        used = state[32] | state[33] << 8;
    } else {
        return state;
    }
    for (size_t i = start + used; i < state.size(); ++i) state[i] = 0;
    return state;
}

void init_update(EVP_MD_CTX* ctx, const EVP_MD* md, const Bytes& msg, size_t from, size_t to) {
    REQUIRE(EVP_DigestInit_ex(ctx, md, nullptr) == 1);
    REQUIRE(EVP_DigestUpdate(ctx, msg.data() + from, to - from) == 1);
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

TEST_CASE("EVP_MD_CTX_serialize: states move between default and hwaccel (OpenSSL 4.0+)",
          "[versions][serialize]") {
    const SerializeApi api;
    if (!api.present()) {
        WARN("EVP_MD_CTX_serialize absent in " << OpenSSL_version(OPENSSL_VERSION));
        return;
    }
    LoadedProvider prov;
    Lcg rng(40);
    for (const auto& d : all_digests()) {
        INFO(d.name);
        MdPtr ours = prov.md(d.name), theirs = prov.default_md(d.name);
        const size_t block = EVP_MD_get_block_size(theirs.get());
        const size_t n = d.xof ? 100 : EVP_MD_get_size(theirs.get());
        MdCtxPtr a(EVP_MD_CTX_new()), b(EVP_MD_CTX_new());
        init_update(a.get(), theirs.get(), Bytes(), 0, 0);
        init_update(b.get(), ours.get(), Bytes(), 0, 0);
        const bool default_can = !save_state(api, a.get()).empty();
        ERR_clear_error();
        // Offered exactly where the default provider offers it (SHA-1: neither).
        CHECK(!save_state(api, b.get()).empty() == default_can);
        ERR_clear_error();
        if (!default_can) continue;

        for (size_t total : {size_t{0}, size_t{1}, block - 1, block, block + 1, 3 * block + 7,
                             rng.below(2000)}) {
            Bytes msg = rng.bytes(total);
            const size_t cut = total == 0 ? 0 : rng.below(total + 1);
            INFO("message " << total << " bytes, saved after " << cut);
            Bytes want(n);
            MdCtxPtr r(EVP_MD_CTX_new());
            init_update(r.get(), theirs.get(), msg, 0, total);
            final_digest(r.get(), want.data(), n, d.xof);

            MdCtxPtr from_default(EVP_MD_CTX_new()), from_ours(EVP_MD_CTX_new());
            init_update(from_default.get(), theirs.get(), msg, 0, cut);
            init_update(from_ours.get(), ours.get(), msg, 0, cut);
            const Bytes saved_default = save_state(api, from_default.get());
            const Bytes saved_ours = save_state(api, from_ours.get());
            REQUIRE(!saved_default.empty());
            REQUIRE(!saved_ours.empty());
            // The same format, byte for byte where either holds message data.
            CHECK(to_hex(without_stale_bytes(saved_ours)) == to_hex(without_stale_bytes(saved_default)));

            // Saved by default, continued in hwaccel; and the other way round.
            for (bool into_ours : {true, false}) {
                INFO((into_ours ? "default's state into hwaccel" : "hwaccel's state into default"));
                MdCtxPtr c(EVP_MD_CTX_new());
                init_update(c.get(), into_ours ? ours.get() : theirs.get(), Bytes(), 0, 0);
                const Bytes& state = into_ours ? saved_default : saved_ours;
                REQUIRE(api.load(c.get(), state.data(), state.size()) == 1);
                REQUIRE(EVP_DigestUpdate(c.get(), msg.data() + cut, total - cut) == 1);
                Bytes got(n);
                final_digest(c.get(), got.data(), n, d.xof);
                CHECK(to_hex(got) == to_hex(want));
            }
        }
    }
}

TEST_CASE("EVP_MD_CTX_deserialize refuses what default refuses and changes nothing (OpenSSL 4.0+)",
          "[versions][serialize][errors]") {
    const SerializeApi api;
    if (!api.present()) {
        WARN("EVP_MD_CTX_deserialize absent in " << OpenSSL_version(OPENSSL_VERSION));
        return;
    }
    LoadedProvider prov;
    const Bytes msg(300, 0x5a);
    struct Case {
        const char* what;
        const char* saved_by;  // the digest whose state is offered
        const char* loaded_into;
        void (*spoil)(Bytes&);
    };
    const Case cases[] = {
        {"one byte short", "SHA2-256", "SHA2-256", [](Bytes& s) { s.pop_back(); }},
        {"wrong magic", "SHA2-256", "SHA2-256", [](Bytes& s) { s[0] ^= 1; }},
        {"SHA-224 state into SHA-256", "SHA2-224", "SHA2-256", [](Bytes&) {}},
        {"buffered count 64", "SHA2-256", "SHA2-256", [](Bytes& s) { s[12] = 64; }},
        {"SHA3-256 state into SHAKE-256", "SHA3-256", "SHAKE-256", [](Bytes&) {}},
        {"SHA3-224 state into SHA3-256", "SHA3-224", "SHA3-256", [](Bytes&) {}},
        {"bufsz beyond the rate", "SHA3-256", "SHA3-256", [](Bytes& s) { s[32] = 200; }},
        {"another block size", "SHA3-256", "SHA3-256", [](Bytes& s) { s[24] ^= 8; }},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        for (bool ours : {true, false}) {
            INFO((ours ? "hwaccel" : "default"));
            MdPtr src = ours ? prov.md(c.saved_by) : prov.default_md(c.saved_by);
            MdPtr dst = ours ? prov.md(c.loaded_into) : prov.default_md(c.loaded_into);
            MdCtxPtr s(EVP_MD_CTX_new()), t(EVP_MD_CTX_new());
            init_update(s.get(), src.get(), msg, 0, 100);
            Bytes state = save_state(api, s.get());
            REQUIRE(!state.empty());
            c.spoil(state);
            init_update(t.get(), dst.get(), msg, 0, 123);
            CHECK(api.load(t.get(), state.data(), state.size()) == 0);
            if (ours) CHECK(!take_errors().empty());
            ERR_clear_error();
            if (!ours) continue;
            // The refused context goes on with its own message.
            REQUIRE(EVP_DigestUpdate(t.get(), msg.data() + 123, msg.size() - 123) == 1);
            MdPtr ref_md = prov.default_md(c.loaded_into);
            MdCtxPtr r(EVP_MD_CTX_new());
            init_update(r.get(), ref_md.get(), msg, 0, msg.size());
            const bool xof = EVP_MD_get_flags(ref_md.get()) & EVP_MD_FLAG_XOF;
            const size_t n = xof ? 50 : EVP_MD_get_size(ref_md.get());
            Bytes got(n), want(n);
            final_digest(t.get(), got.data(), n, xof);
            final_digest(r.get(), want.data(), n, xof);
            CHECK(got == want);
        }
    }
}

TEST_CASE("EVP_MD_CTX_serialize after squeezing began: default saves, hwaccel refuses (OpenSSL 4.0+)",
          "[versions][serialize][differs]") {
    const SerializeApi api;
    SqueezeFn squeeze = evp_digest_squeeze();
    if (!api.present() || squeeze == nullptr) {
        WARN("EVP_MD_CTX_serialize absent in " << OpenSSL_version(OPENSSL_VERSION));
        return;
    }
    LoadedProvider prov;
    MdPtr ours = prov.md("SHAKE-128");
    MdCtxPtr ctx(EVP_MD_CTX_new());
    init_update(ctx.get(), ours.get(), Bytes(10, 1), 0, 10);
    unsigned char out[20];
    REQUIRE(squeeze(ctx.get(), out, sizeof out) == 1);
    CHECK(save_state(api, ctx.get()).empty());
    CHECK(take_errors().find("serialize after squeeze") != std::string::npos);
    // Still squeezing as before.
    REQUIRE(squeeze(ctx.get(), out, sizeof out) == 1);
}

// OpenSSL 4.0 frees its global state (providers included: teardown) from a
// destructor after exit, or not at all; explicit OPENSSL_cleanup() only asks
// for that. hwaccel activated from a config file (the library's store holds
// the only reference, so teardown runs then), used and released, must let
// the process exit with status 0 however it ends; and so must a process that
// leaks a context half-way (which keeps the provider, so no teardown).
// (Checked to fail: a teardown that aborts fails the first two.)
TEST_CASE("a process ending with hwaccel loaded exits cleanly (OPENSSL_cleanup at exit, 4.0)",
          "[versions][teardown]") {
    enum How { kExit, kCleanupThenExit, kLeakedContext };
    for (How how : {kExit, kCleanupThenExit, kLeakedContext}) {
        const char* what = how == kExit             ? "all freed, exit()"
                           : how == kCleanupThenExit ? "all freed, OPENSSL_cleanup(), exit()"
                                                     : "a context left half-way, exit()";
        INFO(what << " on " << OpenSSL_version(OPENSSL_VERSION));
        std::cout.flush();
        std::fflush(nullptr);
        const pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            if (OSSL_LIB_CTX_load_config(nullptr, HWACCEL_BUILD_CONFIG) != 1) std::_Exit(2);
            EVP_MD* md = EVP_MD_fetch(nullptr, "SHA2-256", "provider=hwaccel");
            if (md == nullptr) std::_Exit(3);
            unsigned char digest[32];
            unsigned int len = 0;
            if (EVP_Digest("abc", 3, digest, &len, md, nullptr) != 1 || digest[0] != 0xba)
                std::_Exit(4);
            EVP_MD_CTX* ctx = EVP_MD_CTX_new();
            if (EVP_DigestInit_ex(ctx, md, nullptr) != 1 || EVP_DigestUpdate(ctx, "ab", 2) != 1)
                std::_Exit(5);
            if (how != kLeakedContext) EVP_MD_CTX_free(ctx);
            EVP_MD_free(md);
            if (how == kCleanupThenExit) OPENSSL_cleanup();
            std::exit(0);  // runs atexit handlers and destructors, OpenSSL's included
        }
        int status = 0;
        REQUIRE(waitpid(pid, &status, 0) == pid);
        if (WIFSIGNALED(status)) FAIL("child died of signal " << WTERMSIG(status));
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
}

// OpenSSL 3.6's own providers read parameters with generated decoders that
// refuse a key named twice (and SHAKE's "size" with "xoflen"); up to 3.5 the
// first one wins. hwaccel answers as default does on the running release.
TEST_CASE("a parameter named twice: refused from OpenSSL 3.6 on, as by default",
          "[versions][params]") {
    LoadedProvider prov;
    const bool refused = OpenSSL_version_num() >= 0x30600000L;
    INFO("on " << OpenSSL_version(OPENSSL_VERSION));
    size_t twenty = 20, thirty = 30;
    struct MdCase {
        const char* what;
        OSSL_PARAM params[3];
        bool set;
    };
    MdCase md_cases[] = {
        {"set xoflen twice",
         {OSSL_PARAM_size_t("xoflen", &twenty), OSSL_PARAM_size_t("xoflen", &thirty), OSSL_PARAM_END},
         true},
        {"set xoflen and size",
         {OSSL_PARAM_size_t("xoflen", &twenty), OSSL_PARAM_size_t("size", &thirty), OSSL_PARAM_END},
         true},
        {"get xoflen twice",
         {OSSL_PARAM_size_t("xoflen", &twenty), OSSL_PARAM_size_t("xoflen", &thirty), OSSL_PARAM_END},
         false},
    };
    for (MdCase& c : md_cases) {
        INFO(c.what);
        // Default's SHAKE answers get_ctx_params from 3.4 on only.
        const bool default_gets = EVP_MD_gettable_ctx_params(prov.default_md("SHAKE-128").get()) != nullptr;
        if (!c.set && !default_gets) continue;
        size_t got[2] = {};
        for (bool ours : {true, false}) {
            MdPtr md = ours ? prov.md("SHAKE-128") : prov.default_md("SHAKE-128");
            MdCtxPtr ctx(EVP_MD_CTX_new());
            REQUIRE(EVP_DigestInit_ex(ctx.get(), md.get(), nullptr) == 1);
            const int rc = c.set ? EVP_MD_CTX_set_params(ctx.get(), c.params)
                                 : EVP_MD_CTX_get_params(ctx.get(), c.params);
            CHECK(rc == (refused ? 0 : 1));
            if (ours && refused) CHECK(take_errors().find("repeated") != std::string::npos);
            ERR_clear_error();
            size_t len = 0;
            OSSL_PARAM q[] = {OSSL_PARAM_size_t("xoflen", &len), OSSL_PARAM_END};
            if (default_gets) REQUIRE(EVP_MD_CTX_get_params(ctx.get(), q) == 1);
            got[ours ? 0 : 1] = len;
        }
        CHECK(got[0] == got[1]);  // the same length afterwards (the first one, or unchanged)
    }

    unsigned zero = 0, one = 1;
    const Bytes key(16, 7), iv(16, 9);
    for (const char* name : {"SM4-CBC", "SM4-CTR"}) {
        INFO(name);
        for (bool set : {true, false}) {
            INFO((set ? "set padding twice" : "get ivlen twice"));
            size_t ivlen1 = 0, ivlen2 = 0;
            OSSL_PARAM set_params[] = {OSSL_PARAM_uint("padding", &zero),
                                       OSSL_PARAM_uint("padding", &one), OSSL_PARAM_END};
            OSSL_PARAM get_params[] = {OSSL_PARAM_size_t("ivlen", &ivlen1),
                                       OSSL_PARAM_size_t("ivlen", &ivlen2), OSSL_PARAM_END};
            for (bool ours : {true, false}) {
                CipherPtr cipher = ours ? prov.cipher(name) : prov.default_cipher(name);
                CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                REQUIRE(EVP_EncryptInit_ex2(ctx.get(), cipher.get(), key.data(), iv.data(), nullptr) == 1);
                const int rc = set ? EVP_CIPHER_CTX_set_params(ctx.get(), set_params)
                                   : EVP_CIPHER_CTX_get_params(ctx.get(), get_params);
                CHECK(rc == (refused ? 0 : 1));
                ERR_clear_error();
            }
        }
    }

    // The SM4 modes with parameters of their own. Default has them from 3.6
    // (CCM from 3.5), ours answers as it does there (3.6's SM4-XTS still
    // takes a repeated one, 4.0's refuses it); before, ours takes both.
    size_t twelve = 12;
    char gb[] = "GB", ieee[] = "IEEE";
    struct ModeCase {
        const char* name;
        OSSL_PARAM set_twice[3];
    };
    ModeCase modes[] = {
        {"SM4-GCM",
         {OSSL_PARAM_size_t("ivlen", &twelve), OSSL_PARAM_size_t("ivlen", &twelve), OSSL_PARAM_END}},
        {"SM4-CCM",
         {OSSL_PARAM_size_t("ivlen", &twelve), OSSL_PARAM_size_t("ivlen", &twelve), OSSL_PARAM_END}},
        {"SM4-XTS",
         {OSSL_PARAM_utf8_string("xts_standard", gb, 2), OSSL_PARAM_utf8_string("xts_standard", ieee, 4),
          OSSL_PARAM_END}},
    };
    for (ModeCase& m : modes) {
        INFO(m.name);
        CipherPtr theirs(EVP_CIPHER_fetch(prov.libctx(), m.name, "provider=default"));
        for (bool set : {true, false}) {
            INFO((set ? "set twice" : "get ivlen twice"));
            size_t ivlen1 = 0, ivlen2 = 0;
            OSSL_PARAM get_params[] = {OSSL_PARAM_size_t("ivlen", &ivlen1),
                                       OSSL_PARAM_size_t("ivlen", &ivlen2), OSSL_PARAM_END};
            int rc[2] = {1, 1};  // ours, default's (taken where default lacks the mode)
            for (bool ours : {true, false}) {
                if (!ours && theirs == nullptr) continue;
                CipherPtr cipher = ours ? prov.cipher(m.name) : std::move(theirs);
                CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                REQUIRE(EVP_EncryptInit_ex2(ctx.get(), cipher.get(), nullptr, nullptr, nullptr) == 1);
                rc[ours ? 0 : 1] = set ? EVP_CIPHER_CTX_set_params(ctx.get(), m.set_twice)
                                       : EVP_CIPHER_CTX_get_params(ctx.get(), get_params);
                if (ours && rc[0] == 0) CHECK(take_errors().find("repeated") != std::string::npos);
                ERR_clear_error();
                if (!ours) theirs = std::move(cipher);
            }
            CHECK(rc[0] == rc[1]);
            if (!refused) CHECK(rc[0] == 1);
        }
    }
}

// Every parameter the AEAD modes answer, asked for twice: refused where
// default refuses it (SM4-GCM answers nine, one more than the groups
// params::repeated once looked at: "iv-generated" twice went through).
TEST_CASE("each AEAD gettable asked for twice: refused as by default", "[versions][params]") {
    if (OpenSSL_version_num() < 0x30600000L) return;  // up to 3.5 the first one wins
    LoadedProvider prov;
    INFO("on " << OpenSSL_version(OPENSSL_VERSION));
    const Bytes key(16, 7), iv(12, 9);
    for (const char* name : {"SM4-GCM", "SM4-CCM"}) {
        CipherPtr ours = prov.cipher(name), theirs = prov.default_cipher_if_any(name);
        if (theirs == nullptr) continue;
        for (const OSSL_PARAM* g = EVP_CIPHER_gettable_ctx_params(ours.get()); g->key != nullptr; ++g) {
            INFO(name << ": " << g->key << " twice");
            int rc[2] = {};
            for (bool mine : {true, false}) {
                CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                REQUIRE(EVP_EncryptInit_ex2(ctx.get(), mine ? ours.get() : theirs.get(), key.data(),
                                            std::string(name) == "SM4-GCM" ? iv.data() : nullptr,
                                            nullptr) == 1);
                alignas(16) unsigned char a[64] = {}, b[64] = {};
                const size_t size = g->data_size != 0 ? g->data_size : sizeof a;
                OSSL_PARAM twice[] = {{g->key, g->data_type, a, size, 0}, {g->key, g->data_type, b, size, 0},
                                      OSSL_PARAM_END};
                rc[mine ? 0 : 1] = EVP_CIPHER_CTX_get_params(ctx.get(), twice);
                ERR_clear_error();
            }
            CHECK(rc[0] == rc[1]);
        }
    }
}

// OpenSSL 3.6 added the cipher parameter "encrypt-then-mac" (0 for SM4):
// listed and answered where the running release's default lists it.
TEST_CASE("encrypt-then-mac: listed as by default on the running OpenSSL (3.6+)",
          "[versions][params]") {
    LoadedProvider prov;
    INFO("on " << OpenSSL_version(OPENSSL_VERSION));
    for (const char* name : {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB", "SM4-CTR"}) {
        INFO(name);
        CipherPtr ours = prov.cipher(name), theirs = prov.default_cipher(name);
        auto lists = [](const EVP_CIPHER* c) {
            return OSSL_PARAM_locate_const(EVP_CIPHER_gettable_params(c), "encrypt-then-mac") != nullptr;
        };
        CHECK(lists(ours.get()) == lists(theirs.get()));
        CHECK(lists(ours.get()) == (OpenSSL_version_num() >= 0x30600000L));
        int ours_etm = -1, theirs_etm = -1;
        OSSL_PARAM a[] = {OSSL_PARAM_int("encrypt-then-mac", &ours_etm), OSSL_PARAM_END};
        OSSL_PARAM b[] = {OSSL_PARAM_int("encrypt-then-mac", &theirs_etm), OSSL_PARAM_END};
        EVP_CIPHER_get_params(ours.get(), a);
        EVP_CIPHER_get_params(theirs.get(), b);
        if (lists(theirs.get())) CHECK(ours_etm == theirs_etm);
        CHECK((EVP_CIPHER_get_flags(ours.get()) & 0x10000000) ==
              (EVP_CIPHER_get_flags(theirs.get()) & 0x10000000));  // EVP_CIPH_FLAG_ENC_THEN_MAC
    }
}
