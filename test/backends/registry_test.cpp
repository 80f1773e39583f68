// The registry's choice for a given CPU: the best engine whose features are
// present, the next best when one is masked, the portable engine always last;
// the self-test at load, its known answers and the fallback when one fails.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <string>

#include "hwaccel/registry.hpp"
#include "hwaccel/selftest.hpp"

using namespace hwaccel;

namespace {

CpuFeatures zen3_like() {
    CpuFeatures f;
    std::string error;
    REQUIRE(adjust_features(f, "+ssse3,+sse4.1,+avx,+avx2,+bmi1,+bmi2,+aesni,+vaes,+sha_ni", error));
    return f;
}

CpuFeatures masked(const char* spec) {
    CpuFeatures f = zen3_like();
    std::string error;
    INFO(error);
    REQUIRE(adjust_features(f, spec, error));
    return f;
}

}  // namespace

TEST_CASE("registry: nothing detected means the portable engines", "[registry]") {
    Selection s = best_selection(CpuFeatures{});
    CHECK(describe(s) == "sha1=generic,sha256=generic,sha3=generic,sm4=generic,ghash=generic");
}

#if defined(__x86_64__)
TEST_CASE("registry: best engine per family for an x86-64 feature set, next best when masked", "[registry]") {
    CHECK(describe(best_selection(zen3_like())) == "sha1=sha-ni,sha256=sha-ni,sha3=x86-bmi2,sm4=vaes-avx2,ghash=generic");
    // As BOTAN_CLEAR_CPUID / OPENSSL_ia32cap would: one feature hidden at a time.
    CHECK(describe(best_selection(masked("-sha_ni"))) == "sha1=generic,sha256=generic,sha3=x86-bmi2,sm4=vaes-avx2,ghash=generic");
    CHECK(describe(best_selection(masked("-vaes"))) == "sha1=sha-ni,sha256=sha-ni,sha3=x86-bmi2,sm4=aesni-avx2,ghash=generic");
    CHECK(describe(best_selection(masked("-vaes,-aesni"))).find("sm4=generic") != std::string::npos);
    CHECK(describe(best_selection(masked("-avx2"))).find("sm4=generic") != std::string::npos);
    CHECK(describe(best_selection(masked("-bmi2"))).find("sha3=generic") != std::string::npos);
    CHECK(describe(best_selection(masked("-sse4.1"))).find("sha256=generic") != std::string::npos);
}

TEST_CASE("registry: Keccak engine for AVX-512, BMI2 only, or neither", "[registry]") {
    auto sha3 = [](const char* spec) {
        const std::string d = describe(best_selection(masked(spec)));
        const size_t at = d.find("sha3=");
        return d.substr(at, d.find(',', at) - at);
    };
    // Chosen by itself where it is known to be faster (AMD: Zen 4, Zen 5).
    const std::string amd = "+avx512f,+avx512vl,+avx512-keccak-fast";
    CHECK(sha3(amd.c_str()) == "sha3=x86-avx512");
    CHECK(sha3((amd + ",-bmi1,-bmi2").c_str()) == "sha3=x86-avx512");  // needs no BMI
    CHECK(sha3("+avx512f,+avx512-keccak-fast") == "sha3=x86-bmi2");     // VL is needed (xmm16+)
    CHECK(sha3("+avx512vl,+avx512-keccak-fast") == "sha3=x86-bmi2");  // and F
    CHECK(sha3("-avx512f") == "sha3=x86-bmi2");  // the Zen 3 set: BMI2 only
    CHECK(sha3((amd + ",-avx512f,-bmi2").c_str()) == "sha3=generic");
    // AVX-512 on an Intel core: the scalar code is faster there, so it stays
    // first; x86-avx512 only when named, and the next in line without BMI2.
    CHECK(sha3("+avx512f,+avx512vl") == "sha3=x86-bmi2");
    CHECK(sha3("+avx512f,+avx512vl,-bmi1,-bmi2") == "sha3=generic");
    Selection s = best_selection(masked("+avx512f,+avx512vl"));
    std::string error;
    CHECK(apply_overrides(s, "sha3=x86-avx512", masked("+avx512f,+avx512vl"), error));
    CHECK(describe(s).find("sha3=x86-avx512") != std::string::npos);
}
#endif

#if defined(__x86_64__)
namespace {
// The SM4 engine best_selection picks for exactly these features.
std::string sm4_engine_for(const char* spec) {
    CpuFeatures f;
    std::string error;
    INFO(spec);
    REQUIRE(adjust_features(f, spec, error));
    const std::string d = describe(best_selection(f));
    const size_t at = d.find("sm4=") + 4;
    return d.substr(at, d.find(',', at) - at);
}
}  // namespace

TEST_CASE("registry: the SM4 engine per feature set, GFNI engines first", "[registry]") {
    const std::string zen4 = "+ssse3,+sse4.1,+avx,+avx2,+bmi1,+bmi2,+aesni,+vaes,+sha_ni,+gfni,"
                             "+avx512f,+avx512vl,+avx512bw,+avx512dq";
    CHECK(sm4_engine_for(zen4.c_str()) == "gfni-avx512");
    // GFNI with AVX2 only (Alder Lake-like: VAES too), GFNI without VAES/AES-NI.
    CHECK(sm4_engine_for("+ssse3,+avx,+avx2,+aesni,+vaes,+gfni") == "gfni-avx2");
    CHECK(sm4_engine_for("+avx,+avx2,+gfni") == "gfni-avx2");
    // Each AVX-512 part the engine needs, masked: the VEX GFNI engine instead.
    for (const char* less : {",-avx512f", ",-avx512vl", ",-avx512bw"}) {
        INFO(less);
        CHECK(sm4_engine_for((zen4 + less).c_str()) == "gfni-avx2");
    }
    CHECK(sm4_engine_for((zen4 + ",-gfni").c_str()) == "vaes-avx2");
    CHECK(sm4_engine_for("+avx,+avx2,+gfni,+avx512f,+avx512vl,+avx512bw") == "gfni-avx512");
    // GFNI without AVX2 (Tremont-like): no GFNI engine.
    CHECK(sm4_engine_for("+ssse3,+avx,+aesni,+gfni") == "generic");
    CHECK(sm4_engine_for("+ssse3,+avx,+avx2,+aesni,+vaes") == "vaes-avx2");
    CHECK(sm4_engine_for("+ssse3,+avx,+avx2,+aesni") == "aesni-avx2");
    CHECK(sm4_engine_for("+ssse3,+avx,+avx2") == "generic");
}
#endif

TEST_CASE("registry: overrides name a family and an engine this CPU can run", "[registry]") {
    const CpuFeatures none{};
    Selection s = best_selection(none);
    std::string error;
    CHECK(apply_overrides(s, "all=generic", none, error));
    CHECK(apply_overrides(s, " sha224 = generic , shake=generic ", none, error));
    CHECK(apply_overrides(s, "", none, error));
    CHECK(apply_overrides(s, nullptr, none, error));
    const Selection before = s;
    for (const char* bad : {"sha256=nonesuch", "md5=generic", "sha1", "=generic", "sha1=generic,sm4=x"}) {
        INFO(bad);
        CHECK_FALSE(apply_overrides(s, bad, none, error));
        CHECK_FALSE(error.empty());
        CHECK(describe(s) == describe(before));  // a refusal changes nothing
    }
#if defined(__x86_64__)
    // An engine the CPU lacks is refused, not silently replaced.
    CHECK_FALSE(apply_overrides(s, "sha256=sha-ni", none, error));
    CHECK_THAT(error, Catch::Contains("not supported by this CPU"));
    CpuFeatures zen3 = zen3_like();
    Selection z = best_selection(zen3);
    CHECK(apply_overrides(z, "sm4=aesni-avx2,sha3=generic", zen3, error));
    CHECK(describe(z) == "sha1=sha-ni,sha256=sha-ni,sha3=generic,sm4=aesni-avx2,ghash=generic");
#endif
}

TEST_CASE("registry: the messages of a refused override", "[registry]") {
    const CpuFeatures none{};
    Selection s = best_selection(none);
    std::string error;
    CHECK_FALSE(apply_overrides(s, "md5=generic", none, error));
    CHECK(error == "unknown algorithm family 'md5' (known: ghash sha1 sha224 sha256 sha3 shake sm4 all)");
    CHECK_FALSE(apply_overrides(s, "sha1", none, error));
    CHECK(error == "override 'sha1' is not of the form family=engine");
    // An engine is named in the family as the user wrote it; "all" names each family.
    CHECK_FALSE(apply_overrides(s, "sha224=nonesuch", none, error));
    CHECK_THAT(error, Catch::StartsWith("unknown engine 'nonesuch' for sha224 (known: "));
    CHECK_THAT(error, Catch::EndsWith(" generic)"));
    CHECK_FALSE(apply_overrides(s, "all=nonesuch", none, error));
    CHECK_THAT(error, Catch::StartsWith("unknown engine 'nonesuch' for sha1 (known: "));
    // "keccak", the family's name in code, is accepted though not listed.
    Forced forced;
    CHECK(apply_overrides(s, "keccak=generic", none, error, &forced));
    CHECK(forced.keccak);
    CHECK_FALSE(forced.sha1);
    CHECK_FALSE(forced.sha256);
    CHECK_FALSE(forced.sm4);
}

TEST_CASE("registry: the family table walks the same engines as the typed lists", "[registry]") {
    const EngineFamilyList families = engine_families();
    REQUIRE(families.count == 5);
    const Selection best = best_selection(cpu_features());
    std::string names;
    for (const EngineFamily& f : families) {
        INFO(f.name);
        names += std::string(names.empty() ? "" : " ") + f.name;
        CHECK(std::string(f.engine_name(f.count() - 1)) == "generic");  // portable closes every list
        CHECK(f.available(f.count() - 1, CpuFeatures{}));
        CHECK(f.chosen(best) < f.count());
    }
    CHECK(names == "sha1 sha256 sha3 sm4 ghash");
    auto same = [](const EngineFamily& f, auto list) {
        if (f.count() != list.count) return false;
        for (size_t i = 0; i < list.count; ++i)
            if (std::string(f.engine_name(i)) != list.items[i]->name) return false;
        return true;
    };
    CHECK(same(families.items[0], sha1_engines()));
    CHECK(same(families.items[1], sha256_engines()));
    CHECK(same(families.items[2], keccak_engines()));
    CHECK(same(families.items[3], sm4_engines()));
    CHECK(same(families.items[4], ghash_engines()));
    // choose() and chosen() agree, and describe() prints what choose() set.
    Selection s = best;
    const EngineFamily& sha3 = families.items[2];
    sha3.choose(s, sha3.count() - 1);
    CHECK(s.keccak == *(keccak_engines().end() - 1));
    CHECK(sha3.chosen(s) == sha3.count() - 1);
    CHECK_THAT(describe(s), Catch::Contains("sha3=generic"));
}

TEST_CASE("registry: feature adjustments reject unknown names", "[registry]") {
    CpuFeatures f;
    std::string error;
    CHECK_FALSE(adjust_features(f, "+warp", error));
    CHECK_FALSE(adjust_features(f, "sha_ni", error));
    CHECK(adjust_features(f, "+phe,-phe,+cpacf-sha3", error));
    CHECK_FALSE(f.phe);
    CHECK(f.cpacf_sha3);
}

// --- self-test at load ------------------------------------------------------

namespace {

bool is_testing_build() {
    for (const Sm4Engine* e : sm4_engines())
        if (std::string(e->name) == "minimal-test") return true;
    return false;
}

// Sets an environment variable for one scope.
struct EnvVar {
    const char* name;
    EnvVar(const char* n, const char* value) : name(n) { setenv(name, value, 1); }
    ~EnvVar() { unsetenv(name); }
};

// Engines with one member corrupted: they call the portable engine and then
// flip a bit of the output (or of the chaining value) when the block count
// is the one under test, so each check of the self-test is shown to fail.
constexpr size_t kNever = 0, kEvery = ~size_t{0};
size_t g_corrupt_at = kNever;  // the block count at which to corrupt
bool g_corrupt_chain = false;
size_t g_corrupt_lane = 0;     // Keccak absorb

bool corrupt_now(size_t nblocks) { return g_corrupt_at == kEvery || g_corrupt_at == nblocks; }

const Sm4Engine& portable_sm4() { return **(sm4_engines().end() - 1); }

template <void (*Sm4Engine::*Member)(const Sm4Key*, uint8_t*, const uint8_t*, size_t, uint8_t*)>
void corrupted_mode(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t* iv) {
    const Sm4Engine& base = portable_sm4();
    // The portable engine lacks the serial fused members: build them here.
    if (base.*Member != nullptr) {
        (base.*Member)(key, out, in, n, iv);
    } else {
        for (size_t i = 0; i < n; ++i) {
            uint8_t block[16], keystream[16];
            if (Member == &Sm4Engine::cbc_encrypt) {
                for (int j = 0; j < 16; ++j) block[j] = in[16 * i + j] ^ iv[j];
                base.encrypt_block(key, iv, block);
                std::memcpy(out + 16 * i, iv, 16);
            } else {
                base.encrypt_block(key, keystream, iv);
                for (int j = 0; j < 16; ++j) block[j] = in[16 * i + j] ^ keystream[j];
                std::memcpy(iv, Member == &Sm4Engine::ofb ? keystream : block, 16);
                std::memcpy(out + 16 * i, block, 16);
            }
        }
    }
    if (corrupt_now(n)) (g_corrupt_chain ? iv : out)[g_corrupt_chain ? 15 : 16 * n - 1] ^= 1;
}

void corrupted_ecb(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t n) {
    portable_sm4().ecb(key, direction, out, in, n);
    if (corrupt_now(n)) out[16 * n - 1] ^= 0x80;
}
void corrupted_encrypt_block(const Sm4Key* key, uint8_t out[16], const uint8_t in[16]) {
    portable_sm4().encrypt_block(key, out, in);
    out[0] ^= 1;
}
void corrupted_set_key(Sm4Key* key, const uint8_t user_key[16]) {
    portable_sm4().set_key(key, user_key);
    key->dec[31] ^= 1;  // the last decryption round key: ecb decrypt would also catch it
}

// The portable engine with all six optional members (some built above).
Sm4Engine complete_sm4() {
    Sm4Engine e = portable_sm4();
    e.name = "complete";
    e.ctr = corrupted_mode<&Sm4Engine::ctr>;
    e.cbc_decrypt = corrupted_mode<&Sm4Engine::cbc_decrypt>;
    e.cfb_decrypt = corrupted_mode<&Sm4Engine::cfb_decrypt>;
    e.cbc_encrypt = corrupted_mode<&Sm4Engine::cbc_encrypt>;
    e.cfb_encrypt = corrupted_mode<&Sm4Engine::cfb_encrypt>;
    e.ofb = corrupted_mode<&Sm4Engine::ofb>;
    return e;
}

const Sha256Engine& portable_sha256() { return **(sha256_engines().end() - 1); }
void corrupted_sha256(uint32_t state[8], const uint8_t* data, size_t n) {
    portable_sha256().blocks(state, data, n);
    if (corrupt_now(n)) state[7] ^= 1;
}
const KeccakEngine& portable_keccak() { return **(keccak_engines().end() - 1); }
void corrupted_absorb(uint64_t state[25], const uint8_t* data, size_t n, size_t rate) {
    portable_keccak().absorb(state, data, n, rate);
    if (corrupt_now(n)) state[g_corrupt_lane] ^= 1;
}
void corrupted_permute(uint64_t state[25]) {
    portable_keccak().permute(state);
    state[0] ^= uint64_t{1} << 63;
}

}  // namespace

TEST_CASE("self-test: every engine this CPU runs passes its known answers", "[registry][selftest]") {
    const CpuFeatures& cpu = cpu_features();
    size_t tested = 0;
    auto all_pass = [&](auto list) {
        for (const auto* e : list) {
            if (!e->available(cpu)) continue;
            INFO(e->name);
            CHECK(known_answers(*e) == "");
            CHECK(self_test(*e) == "");
            ++tested;
        }
    };
    all_pass(sha1_engines());
    all_pass(sha256_engines());
    all_pass(keccak_engines());
    all_pass(sm4_engines());
    all_pass(ghash_engines());
    CHECK(tested >= 5);
}

TEST_CASE("self-test: a wrong result from any SM4 member is caught, on every input size",
          "[registry][selftest]") {
    g_corrupt_chain = false;
    g_corrupt_at = kNever;
    const Sm4Engine complete = complete_sm4();
    REQUIRE(known_answers(complete) == "");  // the building blocks are right

    Sm4Engine e = complete;
    e.set_key = corrupted_set_key;
    CHECK(known_answers(e) == "set_key");
    e = complete;
    e.encrypt_block = corrupted_encrypt_block;
    CHECK(known_answers(e) == "encrypt_block on 1 block");
    for (size_t n : {1, 13, 77}) {
        g_corrupt_at = n;
        e = complete;
        e.ecb = corrupted_ecb;
        CHECK(known_answers(e) == "ecb on " + std::to_string(n) + (n == 1 ? " block" : " blocks"));
    }
    struct Member {
        const char* name;
        void (*Sm4Engine::*member)(const Sm4Key*, uint8_t*, const uint8_t*, size_t, uint8_t*);
    };
    const Member members[] = {{"ctr", &Sm4Engine::ctr},
                              {"cbc_decrypt", &Sm4Engine::cbc_decrypt},
                              {"cfb_decrypt", &Sm4Engine::cfb_decrypt},
                              {"cbc_encrypt", &Sm4Engine::cbc_encrypt},
                              {"cfb_encrypt", &Sm4Engine::cfb_encrypt},
                              {"ofb", &Sm4Engine::ofb}};
    for (const Member& m : members) {
        for (bool chain : {false, true}) {
            for (size_t n : {1, 13, 77}) {
                // Only the member under test corrupts: the others are the plain ones.
                e = portable_sm4();
                e.*m.member = complete.*m.member;
                g_corrupt_at = n;
                g_corrupt_chain = chain;
                INFO(m.name << (chain ? " chaining value" : " output") << ", " << n << " blocks");
                CHECK(known_answers(e) ==
                      std::string(m.name) + " on " + std::to_string(n) + (n == 1 ? " block" : " blocks"));
            }
        }
    }
    g_corrupt_chain = false;
    g_corrupt_at = kNever;
}

TEST_CASE("self-test: a wrong digest or permutation is caught", "[registry][selftest]") {
    g_corrupt_at = kEvery;
    Sha256Engine sha = portable_sha256();
    sha.blocks = corrupted_sha256;
    CHECK(known_answers(sha) == "blocks on 1 block");
    g_corrupt_at = 19;  // only the 1200-byte message's single 19-block call
    CHECK(known_answers(sha) == "blocks on 19 blocks");

    KeccakEngine k = portable_keccak();
    k.permute = corrupted_permute;
    CHECK(known_answers(k) == "permute on 1 block");
    k = portable_keccak();
    k.absorb = corrupted_absorb;
    g_corrupt_at = 9;  // the 1200-byte message at rates 144 and 136
    g_corrupt_lane = 0;
    CHECK(known_answers(k) == "absorb on 9 blocks");
    // A capacity lane shows only after a further permutation: the SHAKE
    // check squeezes past one rate for that.
    g_corrupt_lane = 24;
    CHECK(known_answers(k) == "absorb+permute on 9 blocks");
    g_corrupt_at = kNever;
}

TEST_CASE("self-test: results are kept per engine for the process", "[registry][selftest]") {
    static bool broken = true;
    struct Flaky {
        static void blocks(uint32_t state[8], const uint8_t* data, size_t n) {
            portable_sha256().blocks(state, data, n);
            if (broken) state[0] ^= 1;
        }
    };
    static const Sha256Engine flaky = {"flaky", portable_sha256().available, Flaky::blocks};
    CHECK(self_test(flaky) != "");
    broken = false;
    CHECK(known_answers(flaky) == "");  // a fresh run would pass...
    CHECK(self_test(flaky) != "");      // ...but the stored result stands
}

TEST_CASE("self-test: a failing engine gives way to the next one that passes", "[registry][selftest]") {
    const CpuFeatures& cpu = cpu_features();
    const Selection best = best_selection(cpu);
    SelfTestNotes notes;
    std::string error;
    Selection s = best;
    REQUIRE(apply_self_tests(s, Forced{}, cpu, notes, error));
    CHECK(describe(s, notes) == describe(best));  // everything passes here

    const std::string break_best = std::string("sm4:") + best.sm4->name;
    EnvVar breaking("HWACCEL_TEST_BREAK", break_best.c_str());
    s = best;
    notes = SelfTestNotes{};
    if (!is_testing_build()) {
        // Production builds never read HWACCEL_TEST_BREAK.
        CHECK(apply_self_tests(s, Forced{}, cpu, notes, error));
        CHECK(notes.sm4.empty());
        return;
    }
    const Sm4Engine* next = nullptr;  // the registry's next choice, minimal-test skipped
    bool after = false;
    for (const Sm4Engine* e : sm4_engines()) {
        if (e == best.sm4) after = true;
        else if (after && !next && e->available(cpu) && std::string(e->name) != "minimal-test") next = e;
    }
    if (next == nullptr) {
        CHECK_FALSE(apply_self_tests(s, Forced{}, cpu, notes, error));
        CHECK_THAT(error, Catch::Contains("no sm4 engine passed its self-test"));
    } else {
        REQUIRE(apply_self_tests(s, Forced{}, cpu, notes, error));
        CHECK(s.sm4 == next);
        CHECK(notes.sm4 == std::string(best.sm4->name) + " failed its self-test: set_key");
        CHECK_THAT(describe(s, notes),
                   Catch::Contains("sm4=" + std::string(next->name) + " (" + notes.sm4 + ")"));
        CHECK(s.sha1 == best.sha1);
    }
    // Forced, it stops the load instead, and nothing changes.
    Selection forced_sel = best;
    Forced forced;
    const std::string spec = "sm4=" + std::string(best.sm4->name);
    REQUIRE(apply_overrides(forced_sel, spec.c_str(), cpu, error, &forced));
    CHECK(forced.sm4);
    CHECK_FALSE(forced.sha1);
    notes = SelfTestNotes{};
    CHECK_FALSE(apply_self_tests(forced_sel, forced, cpu, notes, error));
    CHECK(error == "engine '" + std::string(best.sm4->name) + "' for sm4 failed its self-test: set_key");
    CHECK(forced_sel.sm4 == best.sm4);
}
