// The self-test at load, seen through EVP: an engine whose known answers come
// out wrong (HWACCEL_TEST_BREAK, test module only) is replaced by the next
// one that passes, the reason is on the error queue and in "engines", and
// what EVP serves still equals the default provider. A forced engine that
// fails, or a family where nothing passes, stops the load.
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/provider.h>
#include <openssl/evp.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "hwaccel/registry.hpp"
#include "provider_fixture.hpp"

using namespace hwaccel;
using namespace hwaccel::test;

namespace {

struct BreakEngines {
    explicit BreakEngines(const std::string& spec) { setenv("HWACCEL_TEST_BREAK", spec.c_str(), 1); }
    ~BreakEngines() { unsetenv("HWACCEL_TEST_BREAK"); }
};

std::vector<uint8_t> message(size_t n) {
    std::vector<uint8_t> m(n);
    for (size_t i = 0; i < n; ++i) m[i] = static_cast<uint8_t>(i * 31 + (i >> 8));
    return m;
}

// Encrypts (or decrypts) in two pieces, so both the bulk and the tail paths run.
std::vector<uint8_t> crypt(const EVP_CIPHER* cipher, bool encrypt, const std::vector<uint8_t>& in) {
    const std::vector<uint8_t> key = message(16), iv = message(32);
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_CipherInit_ex2(ctx.get(), cipher, key.data(), iv.data() + 16, encrypt, nullptr));
    EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
    std::vector<uint8_t> out(in.size() + 16);
    int n1 = 0, n2 = 0, n3 = 0;
    const int first = static_cast<int>(in.size() / 3 / 16 * 16);
    REQUIRE(EVP_CipherUpdate(ctx.get(), out.data(), &n1, in.data(), first));
    REQUIRE(EVP_CipherUpdate(ctx.get(), out.data() + n1, &n2, in.data() + first,
                             static_cast<int>(in.size()) - first));
    REQUIRE(EVP_CipherFinal_ex(ctx.get(), out.data() + n1 + n2, &n3));
    out.resize(n1 + n2 + n3);
    return out;
}

std::vector<uint8_t> digest(const EVP_MD* md, const std::vector<uint8_t>& in) {
    MdCtxPtr ctx(EVP_MD_CTX_new());
    std::vector<uint8_t> out(EVP_MD_get_size(md) > 0 ? EVP_MD_get_size(md) : 300);
    REQUIRE(EVP_DigestInit_ex2(ctx.get(), md, nullptr));
    REQUIRE(EVP_DigestUpdate(ctx.get(), in.data(), in.size()));
    if (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF)
        REQUIRE(EVP_DigestFinalXOF(ctx.get(), out.data(), out.size()));
    else
        REQUIRE(EVP_DigestFinal_ex(ctx.get(), out.data(), nullptr));
    return out;
}

// Everything hwaccel serves equals the default provider.
void check_served_equals_default(const LoadedProvider& prov) {
    for (const char* name : {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB", "SM4-CTR"}) {
        for (size_t len : {16, 77 * 16, 300 * 16}) {
            INFO(name << ", " << len << " bytes");
            const std::vector<uint8_t> in = message(len);
            CipherPtr ours = prov.cipher(name), theirs = prov.default_cipher(name);
            CHECK(crypt(ours.get(), true, in) == crypt(theirs.get(), true, in));
            CHECK(crypt(ours.get(), false, in) == crypt(theirs.get(), false, in));
        }
    }
    for (const DigestName& d : all_digests()) {
        for (size_t len : {3, 1200, 20000}) {
            INFO(d.name << ", " << len << " bytes");
            const std::vector<uint8_t> in = message(len);
            CHECK(digest(prov.md(d.name).get(), in) == digest(prov.default_md(d.name).get(), in));
        }
    }
}

struct Family {
    const char* name;       // as in "engines"
    const char* automatic;  // the registry's choice here
    const char* next;       // the next engine this CPU runs, or null
};

// Per family: the automatic choice and what the registry would fall back to
// (test-only engines are never chosen automatically).
std::vector<Family> families() {
    const CpuFeatures& cpu = cpu_features();
    const Selection best = best_selection(cpu);
    std::vector<Family> out;
    auto add = [&](const char* family, auto list, const auto* chosen) {
        const char* next = nullptr;
        bool after = false;
        for (const auto* e : list) {
            if (e == chosen) after = true;
            else if (after && !next && e->available(cpu) && std::string(e->name) != "minimal-test")
                next = e->name;
        }
        out.push_back({family, chosen->name, next});
    };
    add("sha1", sha1_engines(), best.sha1);
    add("sha256", sha256_engines(), best.sha256);
    add("sha3", keccak_engines(), best.keccak);
    add("sm4", sm4_engines(), best.sm4);
    return out;
}

}  // namespace

TEST_CASE("self-test: a failing engine is replaced by the next one, with the reason, and EVP still "
          "equals default", "[selftest]") {
    size_t fallbacks = 0;
    for (const Family& f : families()) {
        if (f.next == nullptr) continue;  // the portable engine alone: see the refusal below
        INFO(f.name << ": " << f.automatic << " broken");
        ERR_clear_error();
        BreakEngines broken(std::string(f.name) + ":" + f.automatic);
        LoadedProvider prov;
        const std::string errors = take_errors();
        const std::string why = std::string(f.automatic) + " failed its self-test: ";
        CHECK_THAT(prov.engines(), Catch::Contains(std::string(f.name) + "=" + f.next + " (" + why));
        CHECK_THAT(errors, Catch::Contains(why));
        CHECK_THAT(errors, Catch::Contains(std::string("using ") + f.next + " instead"));
        check_served_equals_default(prov);
        ++fallbacks;
    }
    // Every CPU hwaccel's engines target has a second engine for some family.
    if (fallbacks == 0) WARN("no family has a second engine on this CPU");
}

TEST_CASE("self-test: the reason names the check that failed", "[selftest]") {
    const Selection best = best_selection(cpu_features());
    if (best.sm4->ctr == nullptr) return;  // only engines with a fused CTR
    BreakEngines broken(std::string("sm4:") + best.sm4->name + ":ctr");
    ERR_clear_error();
    try {
        LoadedProvider prov;
        CHECK_THAT(prov.engines(),
                   Catch::Contains(std::string(best.sm4->name) + " failed its self-test: ctr on 77 blocks"));
        take_errors();
    } catch (const std::runtime_error& e) {
        // Only the portable engine: nothing to fall back to.
        CHECK_THAT(e.what(), Catch::Contains("no sm4 engine passed its self-test"));
    }
}

TEST_CASE("self-test: a forced engine that fails stops the load", "[selftest]") {
    for (const Family& f : families()) {
        INFO(f.name << "=" << f.automatic);
        BreakEngines broken(std::string(f.name) + ":" + f.automatic);
        ERR_clear_error();
        try {
            LoadedProvider prov(std::string(f.name) + "=" + f.automatic);
            FAIL("loaded with a forced engine that failed its self-test: " << prov.engines());
        } catch (const std::runtime_error& e) {
            CHECK_THAT(e.what(), Catch::Contains(std::string("engine '") + f.automatic + "' for " +
                                                 f.name + " failed its self-test"));
        }
    }
}

TEST_CASE("self-test: a family where no engine passes stops the load", "[selftest]") {
    std::string spec;
    for (const Sm4Engine* e : sm4_engines()) spec += std::string(spec.empty() ? "" : ",") + "sm4:" + e->name;
    BreakEngines broken(spec);
    ERR_clear_error();
    CHECK_THROWS_WITH(LoadedProvider(), Catch::Contains("no sm4 engine passed its self-test"));
}

TEST_CASE("self-test: without injected failures nothing is replaced", "[selftest]") {
    unsetenv("HWACCEL_TEST_BREAK");
    ERR_clear_error();
    LoadedProvider prov;
    CHECK(prov.engines() == describe(best_selection(cpu_features())));
    CHECK(take_errors().empty());
}

TEST_CASE("self-test: the production module ignores HWACCEL_TEST_BREAK", "[selftest]") {
    const Selection best = best_selection(cpu_features());
    BreakEngines broken(std::string("sm4:") + best.sm4->name + ",sha256:" + best.sha256->name);
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    REQUIRE(ctx != nullptr);
    OSSL_PROVIDER_set_default_search_path(ctx, HWACCEL_PRODUCTION_MODULE_DIR);
    OSSL_PROVIDER* prov = OSSL_PROVIDER_load(ctx, "hwaccel");
    INFO(take_errors());
    REQUIRE(prov != nullptr);
    char* engines = nullptr;
    OSSL_PARAM request[] = {OSSL_PARAM_utf8_ptr("engines", &engines, 0), OSSL_PARAM_END};
    CHECK(OSSL_PROVIDER_get_params(prov, request));
    REQUIRE(engines != nullptr);
    CHECK(std::string(engines) == describe(best));
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(ctx);
}

TEST_CASE("minimal-test: the EVP suites of test builds run over it", "[selftest][minimal]") {
    // cipher_evp_test.cpp iterates over engine_selections(); in the binaries
    // over the test module (phe_provider_tests, s390x_evp_tests) that list
    // comes from the test registry, so it must name the engine.
    const std::vector<std::string> selections = engine_selections();
    CHECK(std::find(selections.begin(), selections.end(), "sm4=minimal-test") != selections.end());
}

TEST_CASE("minimal-test: the provider's own mode loops equal default", "[selftest][minimal]") {
    // The engine has none of the optional SM4 members, so every mode runs
    // through provider/cipher/sm4_modes.cpp's fallbacks. (The full EVP cipher
    // suites also run over it: engine_selections() lists it in test builds.)
    LoadedProvider prov("sm4=minimal-test");
    CHECK_THAT(prov.engines(), Catch::Contains("sm4=minimal-test"));
    check_served_equals_default(prov);
}
