// Backend-level GHASH tests, run for every GHASH engine the registry can run
// on this machine (each case opens one section per engine, "engine NAME").
//
// References: the test cases of D. McGrew, J. Viega, "The Galois/Counter
// Mode of Operation (GCM)" (revised spec, Appendix B: H, the blocks, and
// GHASH(H, A, C)), and a bit-by-bit multiply written here from NIST SP
// 800-38D, 6.3, Algorithm 1, which the engines are compared with on random
// H, Y and data, for every block count 0..100 and many ways of splitting
// the data over calls.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"
#include "hwaccel/selftest.hpp"
#include "support/engine_manifest.hpp"
#include "support/guarded_buffer.hpp"
#include "support/vectors.hpp"

using hwaccel::GhashEngine;
using hwaccel::GhashKey;

namespace {

using hwaccel::test::Bytes;
using hwaccel::test::from_hex;
using hwaccel::test::GuardedBuffer;
using hwaccel::test::Lcg;  // deterministic, so a failure reproduces
using hwaccel::test::to_hex;

std::vector<const GhashEngine*> engines() {
    std::vector<const GhashEngine*> list;
    for (const GhashEngine* e : hwaccel::ghash_engines())
        if (e->available(hwaccel::cpu_features())) {
            list.push_back(e);
            hwaccel::test::record_engine("ghash", e->name, "backend");  // the engine manifest
        }
    return list;
}

// ------------------------------------------------------ bit-by-bit reference

// SP 800-38D, Algorithm 1: X * Y in GF(2^128), bit 0 being the top bit of
// byte 0. Z accumulates V = Y * x^i for each set bit x_i of X; multiplying
// V by x is a right shift, reduced with R = 11100001 || 0^120.
void ref_multiply(uint8_t out[16], const uint8_t x[16], const uint8_t y[16]) {
    uint8_t z[16] = {0}, v[16];
    std::memcpy(v, y, 16);
    for (int i = 0; i < 128; ++i) {
        if ((x[i / 8] >> (7 - i % 8)) & 1)
            for (int j = 0; j < 16; ++j) z[j] ^= v[j];
        const bool lsb = v[15] & 1;
        for (int j = 15; j > 0; --j) v[j] = static_cast<uint8_t>(v[j] >> 1 | v[j - 1] << 7);
        v[0] >>= 1;
        if (lsb) v[0] ^= 0xe1;
    }
    std::memcpy(out, z, 16);
}

// Y = (Y ^ X_i) * H for each block (SP 800-38D, Algorithm 2).
void ref_update(const uint8_t h[16], uint8_t y[16], const uint8_t* data, size_t nblocks) {
    for (size_t i = 0; i < nblocks; ++i) {
        for (int j = 0; j < 16; ++j) y[j] ^= data[16 * i + j];
        ref_multiply(y, y, h);
    }
}

Bytes ref_ghash(const Bytes& h, const Bytes& y0, const Bytes& data) {
    Bytes y = y0;
    ref_update(h.data(), y.data(), data.data(), data.size() / 16);
    return y;
}

// One engine call over all of `data` (may be empty) from y0.
Bytes eng_ghash(const GhashEngine* e, const Bytes& h, const Bytes& y0, const Bytes& data) {
    GhashKey key;
    e->set_key(&key, h.data());
    Bytes y = y0;
    static const uint8_t none[16] = {0};
    e->update(&key, y.data(), data.empty() ? none : data.data(), data.size() / 16);
    return y;
}

// --------------------------------------------------------- known answers

struct GcmCase {
    const char* name;
    const char* h;
    const char* blocks;  // A and C zero-padded, then len(A)||len(C)
    const char* ghash;
};

// McGrew-Viega test cases 2, 3, 4 and 14 (AES-256, another H).
const GcmCase kCases[] = {
    {"test case 2", "66e94bd4ef8a2c3b884cfa59ca342b2e",
     "0388dace60b6a392f328c2b971b2fe78"
     "00000000000000000000000000000080",
     "f38cbb1ad69223dcc3457ae5b6b0f885"},
    {"test case 3", "b83b533708bf535d0aa6e52980d53b78",
     "42831ec2217774244b7221b784d0d49c"
     "e3aa212f2c02a4e035c17e2329aca12e"
     "21d514b25466931c7d8f6a5aac84aa05"
     "1ba30b396a0aac973d58e091473f5985"
     "00000000000000000000000000000200",
     "7f1b32b81b820d02614f8895ac1d4eac"},
    {"test case 4", "b83b533708bf535d0aa6e52980d53b78",
     "feedfacedeadbeeffeedfacedeadbeef"
     "abaddad2000000000000000000000000"
     "42831ec2217774244b7221b784d0d49c"
     "e3aa212f2c02a4e035c17e2329aca12e"
     "21d514b25466931c7d8f6a5aac84aa05"
     "1ba30b396a0aac973d58e09100000000"
     "00000000000000a000000000000001e0",
     "698e57f70e6ecc7fd9463b7260a9ae5f"},
    {"test case 14", "dc95c078a2408989ad48a21492842087",
     "cea7403d4d606b6e074ec5d3baf39d18"
     "00000000000000000000000000000080",
     "83de425c5edc5d498f382c441041ca92"},
};

// Test case 3's running values X1..X4 (GHASH after each C block).
const char* const kCase3Running[] = {
    "59ed3f2bb1a0aaa07c9f56c6a504647b", "b714c9048389afd9f9bc5c1d4378e052",
    "47400c6577b1ee8d8f40b2721e86ff10", "4796cf49464704b5dd91f159bb1b7f95"};

}  // namespace

TEST_CASE("ghash reference: McGrew-Viega test cases", "[ghash][reference]") {
    for (const GcmCase& c : kCases) {
        INFO(c.name);
        CHECK(to_hex(ref_ghash(from_hex(c.h), Bytes(16, 0), from_hex(c.blocks))) == c.ghash);
    }
    const Bytes h = from_hex(kCases[1].h), blocks = from_hex(kCases[1].blocks);
    Bytes y(16, 0);
    for (size_t i = 0; i < 4; ++i) {
        ref_update(h.data(), y.data(), blocks.data() + 16 * i, 1);
        CHECK(to_hex(y) == kCase3Running[i]);
    }
}

TEST_CASE("ghash engines: McGrew-Viega test cases", "[ghash]") {
    for (const GhashEngine* e : engines()) {
        SECTION(std::string("engine ") + e->name) {
            for (const GcmCase& c : kCases) {
                INFO(c.name);
                CHECK(to_hex(eng_ghash(e, from_hex(c.h), Bytes(16, 0), from_hex(c.blocks))) == c.ghash);
            }
            GhashKey key;
            const Bytes h = from_hex(kCases[1].h), blocks = from_hex(kCases[1].blocks);
            e->set_key(&key, h.data());
            CHECK(to_hex(key.h, 16) == kCases[1].h);
            uint8_t y[16] = {0};
            for (size_t i = 0; i < 4; ++i) {
                e->update(&key, y, blocks.data() + 16 * i, 1);
                CHECK(to_hex(y, 16) == kCase3Running[i]);
            }
        }
    }
}

TEST_CASE("ghash engines: the self-test passes", "[ghash]") {
    for (const GhashEngine* e : engines()) {
        INFO(e->name);
        CHECK(hwaccel::known_answers(*e) == "");
    }
}

TEST_CASE("ghash engines: equal the reference for 0..100 blocks, random H, Y, data", "[ghash]") {
    for (const GhashEngine* e : engines()) {
        SECTION(std::string("engine ") + e->name) {
            Lcg rng(0x6ba5);
            for (size_t n = 0; n <= 100; ++n) {
                INFO(n << " blocks");
                const Bytes h = rng.bytes(16), y0 = rng.bytes(16), data = rng.bytes(16 * n);
                REQUIRE(to_hex(eng_ghash(e, h, y0, data)) == to_hex(ref_ghash(h, y0, data)));
            }
        }
    }
}

TEST_CASE("ghash engines: extreme values (H = 0, 1, x^127, all ones; data all ones)", "[ghash]") {
    const char* const hs[] = {"00000000000000000000000000000000", "80000000000000000000000000000000",
                              "00000000000000000000000000000001", "ffffffffffffffffffffffffffffffff",
                              "c2000000000000000000000000000001"};
    const Bytes ones(16 * 37, 0xff), zeros(16 * 37, 0);
    for (const GhashEngine* e : engines()) {
        SECTION(std::string("engine ") + e->name) {
            for (const char* hex : hs) {
                const Bytes h = from_hex(hex);
                for (const Bytes* data : {&ones, &zeros})
                    for (const Bytes& y0 : {Bytes(16, 0), Bytes(16, 0xff)}) {
                        INFO("H " << hex << ", data " << int((*data)[0]) << ", Y " << int(y0[0]));
                        CHECK(to_hex(eng_ghash(e, h, y0, *data)) == to_hex(ref_ghash(h, y0, *data)));
                    }
            }
            // H = 1: GHASH is the XOR of the blocks.
            Lcg rng(11);
            const Bytes data = rng.bytes(16 * 9);
            Bytes x(16, 0);
            for (size_t i = 0; i < data.size(); ++i) x[i % 16] ^= data[i];
            CHECK(to_hex(eng_ghash(e, from_hex(hs[1]), Bytes(16, 0), data)) == to_hex(x));
        }
    }
}

TEST_CASE("ghash engines: any split of the data over calls gives the same Y", "[ghash]") {
    Lcg rng(0xc0ffee);
    const Bytes h = rng.bytes(16), y0 = rng.bytes(16), data = rng.bytes(16 * 100);
    const Bytes want = ref_ghash(h, y0, data);
    for (const GhashEngine* e : engines()) {
        SECTION(std::string("engine ") + e->name) {
            GhashKey key;
            e->set_key(&key, h.data());
            for (int trial = 0; trial < 40; ++trial) {
                Bytes y = y0;
                std::string splits;
                size_t at = 0;
                while (at < 100) {
                    // Mostly small calls, sometimes big ones, sometimes empty.
                    size_t n = trial % 3 == 0 ? rng.below(40) : rng.below(9);
                    if (n > 100 - at) n = 100 - at;
                    e->update(&key, y.data(), data.data() + 16 * at, n);
                    at += n;
                    splits += std::to_string(n) + " ";
                }
                INFO("calls of " << splits);
                REQUIRE(to_hex(y) == to_hex(want));
            }
        }
    }
}

TEST_CASE("ghash engines: misaligned data, Y and key, against guard pages; data unchanged", "[ghash]") {
    Lcg rng(77);
    for (const GhashEngine* e : engines()) {
        SECTION(std::string("engine ") + e->name) {
            for (size_t n : {size_t{1}, size_t{3}, size_t{8}, size_t{17}, size_t{64}, size_t{71}}) {
                for (size_t misalign = 0; misalign < 16; misalign += 5) {
                    INFO(n << " blocks, misaligned by " << misalign);
                    const Bytes h = rng.bytes(16), y0 = rng.bytes(16), data = rng.bytes(16 * n);
                    GuardedBuffer data_buf(16 * n + 64), y_buf(64), key_buf(sizeof(GhashKey) + 64);
                    const uint8_t* in = data_buf.place_misaligned(data.data(), data.size(), misalign);
                    uint8_t* y = y_buf.place_misaligned(y0.data(), 16, (misalign + 3) % 16);
                    // GhashKey is bytes only: any address holds one.
                    auto* key = new (key_buf.tail_misaligned(sizeof(GhashKey), misalign + 1)) GhashKey;
                    e->set_key(key, h.data());
                    e->update(key, y, in, n);
                    CHECK(to_hex(y, 16) == to_hex(ref_ghash(h, y0, data)));
                    CHECK(std::memcmp(in, data.data(), data.size()) == 0);
                }
            }
        }
    }
}

TEST_CASE("ghash engines: a key is a plain value (copies work, the original stays usable)", "[ghash]") {
    Lcg rng(5);
    const Bytes h = rng.bytes(16), data = rng.bytes(16 * 33);
    for (const GhashEngine* e : engines()) {
        SECTION(std::string("engine ") + e->name) {
            auto original = std::make_unique<GhashKey>();
            e->set_key(original.get(), h.data());
            GhashKey copy = *original;
            std::memset(original.get(), 0xa5, sizeof(GhashKey));  // as a freed context would be
            Bytes y(16, 0);
            e->update(&copy, y.data(), data.data(), 33);
            CHECK(to_hex(y) == to_hex(ref_ghash(h, Bytes(16, 0), data)));
            // A second set_key replaces every trace of the first H.
            e->set_key(original.get(), rng.bytes(16).data());
            e->set_key(original.get(), h.data());
            Bytes y2(16, 0);
            e->update(original.get(), y2.data(), data.data(), 33);
            CHECK(y2 == y);
        }
    }
}

TEST_CASE("ghash engines: set_key over a used key leaves what it leaves in a fresh one", "[ghash]") {
    // Engines may precompute lazily (in update): replacing the key must
    // still wipe everything the old one computed.
    Lcg rng(6);
    const Bytes h_old = rng.bytes(16), h_new = rng.bytes(16), data = rng.bytes(16 * 40);
    for (const GhashEngine* e : engines()) {
        SECTION(std::string("engine ") + e->name) {
            auto fresh = std::make_unique<GhashKey>();  // zeroed, as a new context
            auto used = std::make_unique<GhashKey>();
            e->set_key(fresh.get(), h_new.data());
            e->set_key(used.get(), h_old.data());
            Bytes y(16, 0);
            e->update(used.get(), y.data(), data.data(), 40);
            e->set_key(used.get(), h_new.data());
            CHECK(std::memcmp(fresh.get(), used.get(), sizeof(GhashKey)) == 0);
        }
    }
}

// ------------------------------------------------ the self-test can fail

namespace {

const GhashEngine& portable_ghash() { return **(hwaccel::ghash_engines().end() - 1); }
size_t g_corrupt_at = ~size_t{0};  // the block count at which update errs

void corrupted_update(GhashKey* key, uint8_t y[16], const uint8_t* data, size_t n) {
    portable_ghash().update(key, y, data, n);
    if (n == g_corrupt_at) y[15] ^= 1;
}
void corrupted_set_key(GhashKey* key, const uint8_t h[16]) {
    portable_ghash().set_key(key, h);
    key->h[0] ^= 0x80;
}

}  // namespace

TEST_CASE("ghash self-test: a wrong H or a wrong Y on any checked size is caught", "[ghash][selftest]") {
    GhashEngine e = portable_ghash();
    e.set_key = corrupted_set_key;
    CHECK(hwaccel::known_answers(e) == "set_key");
    e = portable_ghash();
    e.update = corrupted_update;
    g_corrupt_at = ~size_t{0};
    CHECK(hwaccel::known_answers(e) == "");
    const std::pair<size_t, const char*> cases[] = {{1, "update on 1 block"},
                                                    {2, "update on 2 blocks"},
                                                    {7, "update on 7 blocks"},
                                                    {78, "update on 78 blocks"},
                                                    {53, "update in uneven calls on 78 blocks"}};
    for (const auto& c : cases) {
        g_corrupt_at = c.first;
        CHECK(hwaccel::known_answers(e) == c.second);
    }
    g_corrupt_at = ~size_t{0};
}

#if defined(__x86_64__)
TEST_CASE("ghash registry: the engine per feature set, widest vectors first", "[ghash][registry]") {
    auto ghash_for = [](const std::string& spec) {
        hwaccel::CpuFeatures f;
        std::string error;
        INFO(spec);
        REQUIRE(hwaccel::adjust_features(f, spec.c_str(), error));
        return std::string(hwaccel::best_selection(f).ghash->name);
    };
    const std::string zen4 = "+ssse3,+sse4.1,+avx,+avx2,+aesni,+vaes,+pclmulqdq,+vpclmulqdq,"
                             "+avx512f,+avx512vl,+avx512bw,+avx512dq";
    CHECK(ghash_for(zen4) == "vpclmul-avx512");
    for (const char* less : {",-avx512f", ",-avx512vl", ",-avx512bw"}) CHECK(ghash_for(zen4 + less) == "vpclmul-avx2");
    CHECK(ghash_for(zen4 + ",-vpclmulqdq") == "pclmul");
    CHECK(ghash_for(zen4 + ",-avx2,-avx512f") == "pclmul");
    CHECK(ghash_for("+ssse3,+pclmulqdq") == "pclmul");  // Westmere-like: no AVX
    CHECK(ghash_for("+pclmulqdq") == "generic");
    CHECK(ghash_for("+ssse3,+avx,+avx2,+vpclmulqdq") == "generic");  // VPCLMULQDQ alone: never seen, not trusted
    CHECK(ghash_for("") == "generic");
}
#endif

TEST_CASE("ghash registry: overrides name the family ghash", "[ghash][registry]") {
    const hwaccel::CpuFeatures none{};
    hwaccel::Selection s = hwaccel::best_selection(none);
    std::string error;
    hwaccel::Forced forced;
    CHECK(hwaccel::apply_overrides(s, "ghash=generic", none, error, &forced));
    CHECK(forced.ghash);
    CHECK_FALSE(forced.sm4);
    CHECK(std::string(s.ghash->name) == "generic");
    CHECK_FALSE(hwaccel::apply_overrides(s, "ghash=nonesuch", none, error));
    CHECK_THAT(error, Catch::StartsWith("unknown engine 'nonesuch' for ghash (known: "));
#if defined(__x86_64__)
    CHECK_FALSE(hwaccel::apply_overrides(s, "ghash=pclmul", none, error));
    CHECK_THAT(error, Catch::Contains("not supported by this CPU"));
    hwaccel::CpuFeatures clmul;
    REQUIRE(hwaccel::adjust_features(clmul, "+ssse3,+pclmulqdq", error));
    hwaccel::Selection c = hwaccel::best_selection(clmul);
    CHECK(hwaccel::apply_overrides(c, "all=generic", clmul, error));
    CHECK(std::string(c.ghash->name) == "generic");
    CHECK_THAT(hwaccel::describe(c), Catch::EndsWith(",ghash=generic"));
#endif
}
