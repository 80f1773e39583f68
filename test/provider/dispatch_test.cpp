// hwaccel.so driven directly through its dispatch tables, with a fake core
// that records every error raised. This reaches paths EVP guards itself
// (too-small buffers, NULL pointers) and checks that each refusal is an
// error with a reason and that it changes nothing.
#include <dlfcn.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "errors.hpp"
#include "fake_core.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

TEST_CASE("dispatch: the module exports only OSSL_provider_init", "[dispatch]") {
    void* dl = dlopen(HWACCEL_MODULE_PATH, RTLD_NOW | RTLD_LOCAL);
    REQUIRE(dl != nullptr);
    CHECK(dlsym(dl, "OSSL_provider_init") != nullptr);
    // A few internal names that would leak without the version script.
    CHECK(dlsym(dl, "_ZN7hwaccel12cpu_featuresEv") == nullptr);
    // libhwaccel.a's entry point is in the module too, but stays inside.
    CHECK(dlsym(dl, "hwaccel_provider_init") == nullptr);
    dlclose(dl);
}

TEST_CASE("dispatch: property follows the instance name", "[dispatch]") {
    g_core = FakeCore{};
    g_core.name = "myaccel";
    Module m;
    REQUIRE(m.init_result == 1);
    const OSSL_ALGORITHM* a = m.algorithms(OSSL_OP_DIGEST);
    REQUIRE(a != nullptr);
    CHECK(std::string(a->property_definition) == "provider=myaccel");
}

TEST_CASE("dispatch: config key engines is honoured and checked", "[dispatch][engines]") {
    g_core = FakeCore{};
    g_core.engines = "all=generic";
    {
        Module m;
        REQUIRE(m.init_result == 1);
        char* engines = nullptr;
        OSSL_PARAM req[] = {OSSL_PARAM_utf8_ptr("engines", &engines, 0), OSSL_PARAM_END};
        auto* gp = find_fn<OSSL_FUNC_provider_get_params_fn>(m.out, OSSL_FUNC_PROVIDER_GET_PARAMS);
        REQUIRE(gp(m.provctx, req) == 1);
        CHECK(std::string(engines) == "sha1=generic,sha256=generic,sha3=generic,sm4=generic,ghash=generic");
    }
    g_core.engines = "sha256=warp-drive";
    Module bad;
    CHECK(bad.init_result == 0);
    REQUIRE(g_core.errors.size() == 1);
    CHECK_THAT(g_core.errors[0], Catch::Contains("unknown engine 'warp-drive' for sha256"));
}

TEST_CASE("dispatch: refusals raise an error and change nothing", "[dispatch][errors]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    for (const char* name : {"SHA1", "SHA2-224", "SHA2-256", "SHA3-256", "SHA3-512", "SHAKE-128", "SHAKE-256"}) {
        INFO(name);
        DigestFns f(m.digest(name));
        const bool xof = f.set_ctx_params != nullptr;
        void* ctx = f.newctx(m.provctx);
        REQUIRE(ctx != nullptr);
        // An explicit XOF length (OpenSSL 3.4+ has no default), below both
        // SHAKEs' default sizes: the probe below then never offers the one
        // buffer size that 3.0-3.3's EVP_DigestFinal_ex passes whatever the
        // length (the next test case).
        size_t xoflen = 12;
        OSSL_PARAM len_param[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &xoflen), OSSL_PARAM_END};
        REQUIRE(f.init(ctx, xof ? len_param : nullptr) == 1);
        REQUIRE(f.update(ctx, reinterpret_cast<const unsigned char*>("abc"), 3) == 1);
        size_t size = 0;
        {
            // The size the provider wants: try ever larger buffers, counting errors.
            unsigned char probe[64];
            for (size = 1; size <= 64; ++size) {
                size_t outl = 0;
                g_core.errors.clear();
                void* copy = f.dupctx(ctx);
                int ok = f.final(copy, probe, &outl, size);
                f.freectx(copy);
                if (ok) {
                    CHECK(outl == size);
                    break;
                }
                CHECK(g_core.errors.size() == 1);
                CHECK_THAT(g_core.errors.back(), Catch::Contains("need"));
            }
        }
        // A too-small buffer: error, nothing written, and the context still works.
        unsigned char out[100];
        std::memset(out, 0xee, sizeof out);
        size_t outl = 12345;
        g_core.errors.clear();
        CHECK(f.final(ctx, out, &outl, size - 1) == 0);
        CHECK(g_core.errors.size() == 1);
        CHECK(outl == 12345);
        for (unsigned char c : out) CHECK(c == 0xee);
        CHECK(f.final(ctx, nullptr, &outl, 100) == 0);  // no buffer at all
        // Reference result from a duplicate, then the original must agree.
        void* dup = f.dupctx(ctx);
        unsigned char a[64], b[64];
        REQUIRE(f.final(dup, a, &outl, size) == 1);
        REQUIRE(f.final(ctx, b, &outl, sizeof b) == 1);
        CHECK(std::memcmp(a, b, size) == 0);
        // Final twice, update after final: errors.
        g_core.errors.clear();
        CHECK(f.final(ctx, b, &outl, sizeof b) == 0);
        CHECK(f.update(ctx, a, 1) == 0);
        CHECK(g_core.errors.size() == 2);
        if (xof) {
            // xoflen of the wrong type is refused; zero is a valid length.
            int wrong = -1;
            OSSL_PARAM bad[] = {OSSL_PARAM_int(OSSL_DIGEST_PARAM_XOFLEN, &wrong), OSSL_PARAM_END};
            REQUIRE(f.init(ctx, nullptr) == 1);
            CHECK(f.set_ctx_params(ctx, bad) == 0);
            size_t zero = 0;
            OSSL_PARAM z[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &zero), OSSL_PARAM_END};
            REQUIRE(f.set_ctx_params(ctx, z) == 1);
            CHECK(f.final(ctx, nullptr, &outl, 0) == 1);
            CHECK(outl == 0);
        }
        f.freectx(dup);
        f.freectx(ctx);
    }
}

TEST_CASE("dispatch: cipher refusals raise an error and write nothing", "[dispatch][errors][cipher]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    const unsigned char key[32] = {1, 2, 3}, iv[32] = {4, 5, 6};
    for (const char* name : {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB", "SM4-CTR"}) {
        INFO(name);
        CipherFns f(m.cipher(name));
        const bool has_iv = std::strcmp(name, "SM4-ECB") != 0;
        void* ctx = f.newctx(m.provctx);
        REQUIRE(ctx != nullptr);
        unsigned char in[64] = {0}, out[64];
        std::memset(out, 0xee, sizeof out);
        size_t outl = 777;
        g_core.errors.clear();
        // No key yet.
        CHECK(f.update(ctx, out, &outl, sizeof out, in, 16) == 0);
        CHECK(f.cipher(ctx, out, &outl, sizeof out, in, 16) == 0);
        CHECK(f.final(ctx, out, &outl, sizeof out) == 0);
        CHECK(g_core.errors.size() == 3);
        // Wrong key lengths, wrong IV lengths.
        CHECK(f.einit(ctx, key, 15, iv, 16, nullptr) == 0);
        CHECK(f.einit(ctx, key, 32, iv, 16, nullptr) == 0);
        CHECK(f.dinit(ctx, key, 0, iv, 16, nullptr) == 0);
        if (has_iv) {
            CHECK(f.einit(ctx, key, 16, iv, 8, nullptr) == 0);
            CHECK(f.dinit(ctx, key, 16, iv, 17, nullptr) == 0);
        }
        CHECK_THAT(g_core.errors.back(), Catch::Contains(has_iv ? "IV" : "key"));
        // A refused init leaves the context without a key.
        CHECK(f.update(ctx, out, &outl, sizeof out, in, 16) == 0);
        // Output buffers that are too small.
        REQUIRE(f.einit(ctx, key, 16, iv, 16, nullptr) == 1);
        g_core.errors.clear();
        CHECK(f.update(ctx, out, &outl, 15, in, 16) == 0);
        CHECK(f.cipher(ctx, out, &outl, 31, in, 32) == 0);
        CHECK(g_core.errors.size() == 2);
        CHECK(outl == 777);
        for (unsigned char c : out) CHECK(c == 0xee);
        f.freectx(ctx);
    }
}

// OpenSSL 3.0-3.3's EVP_DigestFinal_ex passes SHAKE's default size (16 or
// 32) as the buffer size whatever xoflen the caller set: on those releases
// that size with a longer xoflen up to EVP_MAX_MD_SIZE writes xoflen bytes;
// one byte less, or a longer xoflen, is refused. On 3.4+ the size is real.
TEST_CASE("dispatch: SHAKE final with the default size as outsz, per running OpenSSL", "[dispatch][xof][versions]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    const bool old_evp = OpenSSL_version_num() < 0x30400000L;
    INFO(OpenSSL_version(OPENSSL_VERSION));
    for (const auto& [name, default_size] : {std::pair<const char*, size_t>{"SHAKE-128", 16}, {"SHAKE-256", 32}}) {
        INFO(name);
        DigestFns f(m.digest(name));
        for (size_t xoflen : {default_size + 1, size_t{48}, size_t{64}, size_t{65}}) {
            INFO("xoflen " << xoflen);
            OSSL_PARAM len_param[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &xoflen), OSSL_PARAM_END};
            void* ctx = f.newctx(m.provctx);
            REQUIRE(ctx != nullptr);
            REQUIRE(f.init(ctx, len_param) == 1);
            REQUIRE(f.update(ctx, reinterpret_cast<const unsigned char*>("abc"), 3) == 1);
            unsigned char out[100], want[100];
            size_t outl = 12345;
            g_core.errors.clear();
            void* dup = f.dupctx(ctx);
            CHECK(f.final(dup, out, &outl, default_size - 1) == 0);  // on no release
            f.freectx(dup);
            const int rc = f.final(ctx, out, &outl, default_size);
            if (old_evp && xoflen <= 64) {
                REQUIRE(rc == 1);
                CHECK(outl == xoflen);
                void* ref = f.newctx(m.provctx);
                REQUIRE(f.init(ref, len_param) == 1);
                REQUIRE(f.update(ref, reinterpret_cast<const unsigned char*>("abc"), 3) == 1);
                REQUIRE(f.final(ref, want, &outl, sizeof want) == 1);
                CHECK(std::memcmp(out, want, xoflen) == 0);
                f.freectx(ref);
            } else {
                CHECK(rc == 0);
                CHECK(outl == 12345);
                REQUIRE(!g_core.errors.empty());
                if (old_evp) CHECK_THAT(g_core.errors.back(), Catch::Contains("EVP_DigestFinalXOF"));
            }
            f.freectx(ctx);
        }
    }
}

TEST_CASE("dispatch: squeeze in random pieces equals one final; its refusals", "[dispatch][xof][squeeze]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    Lcg rng(314);
    for (const char* name : {"SHAKE-128", "SHAKE-256"}) {
        INFO(name);
        const OSSL_DISPATCH* t = m.digest(name);
        DigestFns f(t);
        auto* squeeze = find_fn<OSSL_FUNC_digest_squeeze_fn>(t, OSSL_FUNC_DIGEST_SQUEEZE);
        auto* copyctx = find_fn<OSSL_FUNC_digest_copyctx_fn>(t, OSSL_FUNC_DIGEST_COPYCTX);
        REQUIRE(squeeze != nullptr);
        REQUIRE(copyctx != nullptr);
        for (int iter = 0; iter < 50; ++iter) {
            std::vector<unsigned char> msg(rng.below(400));
            rng.fill(msg.data(), msg.size());
            size_t total = rng.below(1200);
            // Reference: one final of `total` bytes.
            void* ref = f.newctx(m.provctx);
            OSSL_PARAM len[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &total), OSSL_PARAM_END};
            REQUIRE(f.init(ref, len) == 1);
            REQUIRE(f.update(ref, msg.data(), msg.size()) == 1);
            std::vector<unsigned char> want(total + 1), got(total + 1);
            size_t outl = 0;
            REQUIRE(f.final(ref, want.data(), &outl, total) == 1);
            // The same output squeezed in random pieces (zero-length ones too),
            // on a copy made with copyctx mid-message.
            void* a = f.newctx(m.provctx);
            void* b = f.newctx(m.provctx);
            REQUIRE(f.init(a, nullptr) == 1);
            size_t cut = msg.empty() ? 0 : rng.below(msg.size());
            REQUIRE(f.update(a, msg.data(), cut) == 1);
            copyctx(b, a);
            f.freectx(a);
            REQUIRE(f.update(b, msg.data() + cut, msg.size() - cut) == 1);
            size_t done = 0;
            while (done < total) {
                size_t piece = std::min<size_t>(rng.below(300), total - done);
                REQUIRE(squeeze(b, got.data() + done, &outl, piece) == 1);
                CHECK(outl == piece);
                done += piece;
            }
            CHECK(std::memcmp(got.data(), want.data(), total) == 0);
            // After a squeeze: no update, no final. After a final: no squeeze.
            g_core.errors.clear();
            CHECK(f.update(b, msg.data(), 1) == 0);
            CHECK(f.final(b, got.data(), &outl, got.size()) == 0);
            CHECK(squeeze(ref, got.data(), &outl, 1) == 0);
            CHECK(g_core.errors.size() == 3);
            f.freectx(b);
            f.freectx(ref);
        }
    }
}

// Lengths no buffer can have (a negative int turned size_t, a range that
// wraps the address space, NULL with a length) are refused before anything
// is read or written; the context then goes on as if the call never happened.
TEST_CASE("dispatch: impossible lengths are refused and change nothing", "[dispatch][errors][regression]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    const unsigned char key[16] = {1, 2, 3}, iv[16] = {4, 5, 6};
    const unsigned char msg[48] = {7, 8, 9};
    const size_t bad_lengths[] = {SIZE_MAX, SIZE_MAX - 15, size_t{1} << 63,
                                  static_cast<size_t>(INT_MAX) + 1};
    for (const char* name : {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB", "SM4-CTR"}) {
        INFO(name);
        CipherFns f(m.cipher(name));
        unsigned char expect[64], out[64];
        size_t outl = 0, total = 0;
        void* ref = f.newctx(m.provctx);
        REQUIRE(f.einit(ref, key, 16, iv, 16, nullptr) == 1);
        REQUIRE(f.update(ref, expect, &outl, sizeof expect, msg, sizeof msg) == 1);

        void* ctx = f.newctx(m.provctx);
        REQUIRE(f.einit(ctx, key, 16, iv, 16, nullptr) == 1);
        REQUIRE(f.update(ctx, out, &outl, sizeof out, msg, 5) == 1);  // 5 bytes buffered
        total = outl;
        for (size_t bad : bad_lengths) {
            INFO("length " << bad);
            g_core.errors.clear();
            unsigned char sink[64];
            std::memset(sink, 0xee, sizeof sink);
            size_t bad_outl = 777;
            CHECK(f.update(ctx, sink, &bad_outl, bad, msg + 5, bad) == 0);
            CHECK(f.update(ctx, sink, &bad_outl, bad + 16, msg + 5, bad) == 0);
            // EVP_Cipher passes an unsigned int, so only update is capped at
            // INT_MAX; cipher refuses what no buffer can be.
            const bool impossible = bad > static_cast<size_t>(PTRDIFF_MAX) ||
                                    reinterpret_cast<uintptr_t>(msg + 5) + bad < bad;
            if (impossible) CHECK(f.cipher(ctx, sink, &bad_outl, bad, msg + 5, bad) == 0);
            REQUIRE(g_core.errors.size() == (impossible ? 3u : 2u));
            CHECK_THAT(g_core.errors[0], Catch::Contains("cannot be a buffer"));
            CHECK(bad_outl == 777);
            for (unsigned char c : sink) CHECK(c == 0xee);
        }
        g_core.errors.clear();
        CHECK(f.update(ctx, out + total, &outl, sizeof out - total, nullptr, 16) == 0);  // NULL input
        CHECK(f.update(ctx, nullptr, &outl, 64, msg + 5, 32) == 0);                      // NULL output
        CHECK(g_core.errors.size() == 2);
        REQUIRE(f.update(ctx, out + total, &outl, sizeof out - total, msg + 5, sizeof msg - 5) == 1);
        total += outl;
        CHECK(total == sizeof msg);
        CHECK(std::memcmp(out, expect, sizeof msg) == 0);
        f.freectx(ctx);
        f.freectx(ref);
    }
    for (const char* name : {"SHA1", "SHA2-256", "SHA3-256", "SHAKE-128"}) {
        INFO(name);
        DigestFns f(m.digest(name));
        void* ctx = f.newctx(m.provctx);
        size_t xoflen = 32;
        OSSL_PARAM len_param[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &xoflen), OSSL_PARAM_END};
        REQUIRE(f.init(ctx, f.set_ctx_params ? len_param : nullptr) == 1);
        REQUIRE(f.update(ctx, msg, 5) == 1);
        void* ref = f.dupctx(ctx);
        g_core.errors.clear();
        // EVP_DigestUpdate takes a size_t: only what no buffer can be is refused.
        const size_t impossible[] = {SIZE_MAX, SIZE_MAX - 15, size_t{1} << 63};
        for (size_t bad : impossible) CHECK(f.update(ctx, msg + 5, bad) == 0);
        CHECK(f.update(ctx, nullptr, 1) == 0);
        CHECK(g_core.errors.size() == std::size(impossible) + 1);
        CHECK_THAT(g_core.errors[0], Catch::Contains("cannot be a buffer"));
        unsigned char a[32], b[32];
        REQUIRE(f.update(ctx, msg + 5, 10) == 1);
        REQUIRE(f.update(ref, msg + 5, 10) == 1);
        size_t outl = 0;
        REQUIRE(f.final(ctx, a, &outl, sizeof a) == 1);
        REQUIRE(f.final(ref, b, &outl, sizeof b) == 1);
        CHECK(std::memcmp(a, b, outl) == 0);
        f.freectx(ctx);
        f.freectx(ref);
    }
}

// init brings a context back to the start from wherever it is (EVP 3.0 makes
// a new context for every init, later releases reuse one, a direct caller
// may do anything); init skips its reset where the context is at the start
// already, so every starting point is tried, twice over on one context.
TEST_CASE("dispatch: init from every phase gives a fresh digest", "[dispatch][digest][init]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    enum Before { kNew, kInitialised, kMid, kFinalised, kSqueezed };
    unsigned char msg[300];
    for (size_t i = 0; i < sizeof msg; ++i) msg[i] = static_cast<unsigned char>(i * 13 + 5);
    for (const char* name : {"SHA1", "SHA2-256", "SHA3-256", "SHA3-512", "SHAKE-128", "SHAKE-256"}) {
        const OSSL_DISPATCH* t = m.digest(name);
        DigestFns f(t);
        const bool xof = f.squeeze != nullptr;
        size_t xoflen = 40;
        OSSL_PARAM len[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &xoflen), OSSL_PARAM_END};
        const OSSL_PARAM* params = xof ? len : nullptr;
        for (size_t msg_len : {size_t{0}, size_t{5}, size_t{200}, sizeof msg}) {
            unsigned char want[64], got[64], scrap[64];
            size_t outl = 0;
            void* ref = f.newctx(m.provctx);
            REQUIRE(f.init(ref, params) == 1);
            REQUIRE(f.update(ref, msg, msg_len) == 1);
            REQUIRE(f.final(ref, want, &outl, sizeof want) == 1);
            const size_t out_len = outl;
            f.freectx(ref);
            for (Before before : {kNew, kInitialised, kMid, kFinalised, kSqueezed}) {
                if (before == kSqueezed && !xof) continue;
                INFO(name << ", " << msg_len << " bytes, starting point " << before);
                void* c = f.newctx(m.provctx);
                for (int round = 0; round < 2; ++round) {
                    // A different message first, left in the given phase.
                    if (before != kNew) REQUIRE(f.init(c, params) == 1);
                    if (before >= kMid) REQUIRE(f.update(c, msg + 1, 150) == 1);
                    if (before == kFinalised) REQUIRE(f.final(c, scrap, &outl, sizeof scrap) == 1);
                    if (before == kSqueezed) REQUIRE(f.squeeze(c, scrap, &outl, 7) == 1);
                    REQUIRE(f.init(c, params) == 1);
                    REQUIRE(f.update(c, msg, msg_len) == 1);
                    REQUIRE(f.final(c, got, &outl, sizeof got) == 1);
                    REQUIRE(outl == out_len);
                    CHECK(std::memcmp(got, want, out_len) == 0);
                }
                f.freectx(c);
            }
        }
    }
    CHECK(g_core.errors.empty());
}

// In place with bytes held over, the held bytes come out first, so the
// buffer must hold all of them and the input (not only the whole blocks
// produced): a smaller outsize is refused and changes nothing. EVP always
// passes inl + a block, so only a direct caller gets here.
TEST_CASE("dispatch: in place with bytes held over needs room for them and the input",
          "[dispatch][errors][cipher][in-place]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    const unsigned char key[16] = {1, 2, 3}, iv[16] = {4, 5, 6};
    Lcg rng(77);
    const Bytes msg = rng.bytes(25);
    for (const char* name : {"SM4-ECB", "SM4-CBC"}) {
        INFO(name);
        CipherFns f(m.cipher(name));
        const bool has_iv = std::strcmp(name, "SM4-ECB") != 0;
        // Separate buffers: 5 bytes held, then 20 more give one block.
        void* ref = f.newctx(m.provctx);
        REQUIRE(f.einit(ref, key, 16, has_iv ? iv : nullptr, has_iv ? 16 : 0, nullptr) == 1);
        unsigned char want[32];
        size_t outl = 0;
        REQUIRE(f.update(ref, want, &outl, sizeof want, msg.data(), 5) == 1);
        REQUIRE(outl == 0);
        REQUIRE(f.update(ref, want, &outl, sizeof want, msg.data() + 5, 20) == 1);
        REQUIRE(outl == 16);
        f.freectx(ref);

        void* ctx = f.newctx(m.provctx);
        REQUIRE(f.einit(ctx, key, 16, has_iv ? iv : nullptr, has_iv ? 16 : 0, nullptr) == 1);
        unsigned char buf[32];
        REQUIRE(f.update(ctx, buf, &outl, sizeof buf, msg.data(), 5) == 1);
        std::memcpy(buf, msg.data() + 5, 20);
        g_core.clear_errors();
        outl = 777;
        // Room for the block produced (16) but not for the 5 + 20 bytes.
        CHECK(f.update(ctx, buf, &outl, 20, buf, 20) == 0);
        CHECK(g_core.reasons == std::vector<int>{static_cast<int>(hwaccel::kErrOutputBufferTooSmall)});
        CHECK(outl == 777);
        CHECK(std::memcmp(buf, msg.data() + 5, 20) == 0);
        // With room, the same call gives the stream of separate buffers.
        REQUIRE(f.update(ctx, buf, &outl, 25, buf, 20) == 1);
        CHECK(outl == 16);
        CHECK(std::memcmp(buf, want, 16) == 0);
        f.freectx(ctx);
    }
}
