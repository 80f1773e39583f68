// s390x-specific tests of the CPACF engines and of detection. The digest
// suites (test/backends/) run the engines through the hashers; these look at
// what those cannot see: the block functions against the portable engines on
// arbitrary states (the one Keccak layout conversion), the choice per
// function code, the KLMD paths on their own, and
// the detection logic on synthetic facts.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "digest/keccak_sponge.hpp"
#include "hwaccel/algorithm_facts.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/registry.hpp"
#include "s390x/cpacf_model.hpp"
#include "support/hashers.hpp"
#include "support/vectors.hpp"
// Backend internals, through hwaccel_backend_internals.
#include "cpu/detect.hpp"
#include "generic/generic_engines.hpp"
#include "s390x/cpacf.hpp"
#include "s390x/s390x_engines.hpp"

using namespace hwaccel;
using namespace hwaccel::test;
namespace model = hwaccel::test::cpacf_model;

namespace {

std::string lanes_hex(const uint64_t s[25]) {
    uint8_t b[200];
    for (int i = 0; i < 25; ++i) store_le64(b + 8 * i, s[i]);
    return to_hex(b, sizeof b);
}

void random_lanes(Lcg& rng, uint64_t s[25]) {
    for (int i = 0; i < 25; ++i) s[i] = uint64_t{rng.next32()} << 32 | rng.next32();
}

bool emulated(unsigned long fc) { return !s390x::has_function(s390x::facts().kimd, fc); }

size_t kimd_block(unsigned long fc) {
    switch (fc) {
    case 0x01:
    case 0x02: return 64;
    case 0x03: return 128;
    case 0x20: return 144;
    case 0x21: return 136;
    case 0x22: return 104;
    case 0x23: return 72;
    case 0x24: return 168;
    case 0x25: return 136;
    case 0x41: return 16;
    }
    return 0;
}

struct SpongeAlgo {
    const char* name;
    size_t rate;
    uint8_t pad;
    size_t digest;  // 0 for SHAKE
};
constexpr SpongeAlgo kSponges[] = {
    {"SHA3-224", kSha3_224Rate, kSha3Pad, kSha3_224DigestSize},
    {"SHA3-256", kSha3_256Rate, kSha3Pad, kSha3_256DigestSize},
    {"SHA3-384", kSha3_384Rate, kSha3Pad, kSha3_384DigestSize},
    {"SHA3-512", kSha3_512Rate, kSha3Pad, kSha3_512DigestSize},
    {"SHAKE128", kShake128Rate, kShakePad, 0},
    {"SHAKE256", kShake256Rate, kShakePad, 0},
};

Bytes generic_sponge(const SpongeAlgo& a, const Bytes& msg, size_t out_len) {
    KeccakSponge s(&generic::keccak, a.rate, a.pad);
    s.update(msg.data(), msg.size());
    Bytes out(out_len);
    s.squeeze(out.data(), out_len);
    return out;
}

}  // namespace

// ------------------------------------------------------------------ block functions

// These call the engines whether or not the registry would choose them: under
// qemu the model executes them, on IBM Z the hardware.
TEST_CASE("cpacf engines: Keccak absorb and permute equal the portable engine on any state",
          "[s390x][engine]") {
    Lcg rng(71);
    for (size_t rate : {kSha3_224Rate, kSha3_256Rate, kSha3_384Rate, kSha3_512Rate, kShake128Rate}) {
        INFO("rate " << rate);
        for (int iter = 0; iter < 10; ++iter) {
            uint64_t a[25], b[25];
            random_lanes(rng, a);
            std::memcpy(b, a, sizeof a);
            const size_t nblocks = 1 + rng.below(4);
            const Bytes data = rng.bytes(nblocks * rate);
            s390x::keccak_cpacf.absorb(a, data.data(), nblocks, rate);
            generic::keccak.absorb(b, data.data(), nblocks, rate);
            REQUIRE(lanes_hex(a) == lanes_hex(b));
            s390x::keccak_cpacf.permute(a);
            generic::keccak.permute(b);
            REQUIRE(lanes_hex(a) == lanes_hex(b));
        }
    }
}

TEST_CASE("cpacf engines: SHA-1 and SHA-256 blocks equal the portable engines on any state",
          "[s390x][engine]") {
    Lcg rng(72);
    for (int iter = 0; iter < 20; ++iter) {
        const size_t nblocks = 1 + rng.below(5);
        const Bytes data = rng.bytes(nblocks * 64);
        uint32_t a1[5], b1[5], a2[8], b2[8];
        for (auto& w : a1) w = rng.next32();
        for (auto& w : a2) w = rng.next32();
        std::memcpy(b1, a1, sizeof a1);
        std::memcpy(b2, a2, sizeof a2);
        s390x::sha1_cpacf.blocks(a1, data.data(), nblocks);
        generic::sha1.blocks(b1, data.data(), nblocks);
        s390x::sha256_cpacf.blocks(a2, data.data(), nblocks);
        generic::sha256.blocks(b2, data.data(), nblocks);
        CHECK(std::memcmp(a1, b1, sizeof a1) == 0);
        CHECK(std::memcmp(a2, b2, sizeof a2) == 0);
    }
}

TEST_CASE("cpacf engines: SHAKE128's rate uses KIMD-SHAKE-128 only when it is reported",
          "[s390x][engine]") {
    if (!emulated(0x24)) {
        WARN("this machine executes KIMD-SHAKE-128 itself: the model cannot count its use");
        return;
    }
    Lcg rng(73);
    uint64_t a[25] = {}, b[25] = {};
    const Bytes data = rng.bytes(2 * 168);
    const uint64_t before = model::stats().by_code[0x24];
    s390x::keccak_cpacf.absorb(a, data.data(), 2, 168);
    generic::keccak.absorb(b, data.data(), 2, 168);
    CHECK(lanes_hex(a) == lanes_hex(b));
    const bool used = model::stats().by_code[0x24] != before;
    CHECK(used == cpu_features().cpacf_shake);
}

TEST_CASE("cpacf engines: GHASH equals the portable engine on any H, Y and block count",
          "[s390x][engine][ghash]") {
    Lcg rng(75);
    const uint64_t traps = model::stats().by_code[0x41];
    size_t issued = 0;
    for (size_t nblocks = 0; nblocks <= 40; ++nblocks) {
        INFO(nblocks << " blocks");
        const Bytes h = rng.bytes(16), y0 = rng.bytes(16), data = rng.bytes(16 * nblocks + 1);
        GhashKey a, b;
        s390x::ghash_cpacf.set_key(&a, h.data());
        generic::ghash.set_key(&b, h.data());
        Bytes ya = y0, yb = y0;
        // Odd data addresses too: KIMD takes any.
        const uint8_t* src = data.data() + nblocks % 2;
        s390x::ghash_cpacf.update(&a, ya.data(), src, nblocks);
        generic::ghash.update(&b, yb.data(), src, nblocks);
        CHECK(to_hex(ya) == to_hex(yb));
        if (nblocks) ++issued;
    }
    // Every call with blocks trapped to the model (more than once when it
    // completed only part of the work: the re-issue traps again).
    if (emulated(0x41)) CHECK(model::stats().by_code[0x41] >= traps + issued);
}

TEST_CASE("cpacf engines: GHASH set_key keeps H only", "[s390x][engine][ghash]") {
    Lcg rng(76);
    const Bytes h = rng.bytes(16);
    GhashKey k;
    std::memset(&k, 0xa5, sizeof k);  // a previous key's leftovers
    s390x::ghash_cpacf.set_key(&k, h.data());
    CHECK(to_hex(k.h, 16) == to_hex(h));
    CHECK(to_hex(k.engine_data, sizeof k.engine_data) == std::string(2 * sizeof k.engine_data, '0'));
    CHECK(k.engine_count == 0);
}

// ------------------------------------------------------------------ KLMD paths

TEST_CASE("cpacf engines: KLMD finish, squeeze and one-shot equal the portable sponge",
          "[s390x][engine][klmd]") {
    const CpuFeatures& cpu = cpu_features();
    if (!cpu.cpacf_sha3 || !cpu.cpacf_shake) {
        WARN("CPACF SHA-3/SHAKE not reported (set HWACCEL_TEST_CPU to claim them under the model)");
        return;
    }
    Lcg rng(74);
    for (const SpongeAlgo& a : kSponges) {
        DYNAMIC_SECTION(a.name) {
            const size_t r = a.rate;
            for (size_t len : {size_t{0}, size_t{1}, r - 1, r, r + 1, 3 * r + 5, size_t{1000}}) {
                const Bytes msg = rng.bytes(len);
                std::vector<size_t> outs;
                if (a.digest)
                    outs = {a.digest};
                else
                    outs = {0, 1, 16, r - 1, r, r + 1, 2 * r, 3 * r + 7};
                for (size_t out_len : outs) {
                    INFO("input " << len << ", output " << out_len);
                    const size_t extra = a.digest ? 0 : 2 * r + 3;  // squeezed afterwards
                    const Bytes ref = generic_sponge(a, msg, out_len + extra);

                    for (bool nip : {false, true}) {
                        Bytes out(out_len + 1, 0xee);
                        REQUIRE(s390x::keccak_oneshot(msg.data(), len, r, a.pad, out.data(),
                                                      out_len, nip));
                        CHECK(to_hex(out.data(), out_len) == to_hex(ref.data(), out_len));
                        CHECK(out[out_len] == 0xee);  // nothing past the end
                    }

                    // Whole blocks through the engine, the rest through finish.
                    uint64_t lanes[25] = {};
                    const size_t whole = rng.below(len / r + 1);
                    if (whole) s390x::keccak_cpacf.absorb(lanes, msg.data(), whole, r);
                    Bytes got(out_len + extra);
                    REQUIRE(s390x::keccak_finish(lanes, msg.data() + whole * r, len - whole * r, r,
                                                 a.pad, got.data(), out_len));
                    if (extra) {
                        // Continue as a sponge would: the rest of the current
                        // block from the lanes, then whole blocks with PS.
                        size_t pos = out_len;
                        const size_t used = out_len % r;
                        if (out_len == 0 || used != 0) {
                            for (size_t i = used; i < r; ++i)
                                got[pos++] = static_cast<uint8_t>(lanes[i / 8] >> (8 * (i % 8)));
                        }
                        REQUIRE(
                            s390x::keccak_squeeze(lanes, got.data() + pos, got.size() - pos, r));
                    }
                    CHECK(to_hex(got) == to_hex(ref));
                }
            }
        }
    }
}

TEST_CASE("cpacf engines: KLMD paths decline what they cannot do", "[s390x][engine][klmd]") {
    uint64_t lanes[25] = {};
    uint8_t out[300];
    const uint8_t msg[1] = {0};
    // Keccak with another padding (cSHAKE, KMAC) has no KLMD code.
    CHECK_FALSE(s390x::keccak_finish(lanes, msg, 1, 168, 0x04, out, 32));
    CHECK_FALSE(s390x::keccak_oneshot(msg, 1, 136, 0x01, out, 32));
    // SHA-3 codes have no output operand: never more than one block.
    CHECK_FALSE(s390x::keccak_oneshot(msg, 1, 136, kSha3Pad, out, 137));
    // Squeezing needs a SHAKE rate.
    CHECK_FALSE(s390x::keccak_squeeze(lanes, out, 10, 72));
    CHECK(lanes_hex(lanes) == std::string(400, '0'));
}

// ------------------------------------------------------------------ Monte Carlo, reduced

// The backend suite's Monte Carlo case chains 100 checkpoints of 1,000 hashes
// per algorithm (about 1.1 million trapped instructions over the CPACF
// engines). Under emulation the script runs the suite with "~[monte]" for the
// CPACF engines and this case instead: the same algorithms and files, the
// first kMonteCheckpoints checkpoints. The portable engines, and the CPACF
// engines on an IBM Z machine, run the full case.
TEST_CASE("cpacf engines: NIST CAVP Monte Carlo, first 10 of 100 checkpoints",
          "[s390x][monte-reduced]") {
    constexpr size_t kMonteCheckpoints = 10;
    size_t ran = 0;
    for (const Combo& c : available_combos()) {
        if (c.is_generic) continue;
        ++ran;
        DYNAMIC_SECTION(c.label()) {
            const MonteVectors m =
                load_monte(vector_path(std::string("nist/") + c.algo->nist_name + "Monte.rsp"));
            REQUIRE(m.checkpoints.size() == 100);
            const std::vector<Bytes> got = monte_checkpoints(c, m, kMonteCheckpoints);
            REQUIRE(got.size() == kMonteCheckpoints);
            for (size_t j = 0; j < kMonteCheckpoints; ++j) {
                INFO(m.file << " COUNT = " << j);
                REQUIRE(to_hex(got[j]) == to_hex(m.checkpoints[j]));
            }
        }
    }
    if (ran == 0) WARN("no CPACF engine available: nothing to run");
}

// ------------------------------------------------------------------ detection

namespace {

void set_bit(uint8_t map[16], unsigned fc) { map[fc / 8] |= 0x80 >> (fc % 8); }

// Facilities 17 and 77 and every code the engines use.
s390x::CpacfFacts all_facts() {
    s390x::CpacfFacts f;
    f.facilities[0] = uint64_t{1} << (63 - 17);
    f.facilities[1] = uint64_t{1} << (63 - (77 - 64));
    for (unsigned fc : {0u, 1u, 2u, 3u, 0x20u, 0x21u, 0x22u, 0x23u, 0x24u, 0x25u}) {
        set_bit(f.kimd, fc);
        set_bit(f.klmd, fc);
    }
    set_bit(f.kimd, 0x41);  // GHASH is KIMD only
    return f;
}

CpuFeatures features_of(const s390x::CpacfFacts& f) {
    CpuFeatures c;
    s390x::apply_facts(f, c);
    return c;
}

}  // namespace

TEST_CASE("s390x detection: cpacf-ghash needs facility 77 and KIMD code 65",
          "[s390x][detect][ghash]") {
    CpuFeatures c = features_of(all_facts());
    CHECK(describe(c) == "cpacf-sha1 cpacf-sha256 cpacf-sha3 cpacf-shake cpacf-ghash");
    CHECK(c.cpacf_ghash);

    s390x::CpacfFacts f = all_facts();
    f.kimd[0x41 / 8] &= ~(0x80 >> (0x41 % 8));  // KIMD-GHASH missing
    c = features_of(f);
    CHECK_FALSE(c.cpacf_ghash);
    CHECK(c.cpacf_sha3);
    set_bit(f.klmd, 0x41);  // a KLMD bit does not stand in for it
    CHECK_FALSE(features_of(f).cpacf_ghash);

    f = all_facts();
    f.facilities[1] = 0;  // no MSA 4
    c = features_of(f);
    CHECK_FALSE(c.cpacf_ghash);
    CHECK(c.cpacf_sha256);

    f = all_facts();
    f.facilities[0] = 0;  // no message-security assist at all
    CHECK_FALSE(features_of(f).cpacf_ghash);
}

TEST_CASE("s390x registry: ghash=cpacf only when the KIMD query reports GHASH",
          "[s390x][detect][ghash]") {
    CHECK(std::string(best_selection(features_of(all_facts())).ghash->name) == "cpacf");
    s390x::CpacfFacts f = all_facts();
    f.kimd[0x41 / 8] &= ~(0x80 >> (0x41 % 8));
    const Selection without = best_selection(features_of(f));
    CHECK(std::string(without.ghash->name) == "generic");
    CHECK(std::string(without.sha256->name) == "cpacf");  // the others stay
    f = all_facts();
    f.facilities[1] = 0;
    CHECK(std::string(best_selection(features_of(f)).ghash->name) == "generic");
}

TEST_CASE("s390x registry: this process's ghash engine follows cpacf-ghash",
          "[s390x][detect][ghash]") {
    // cross-s390x.sh's run claiming only cpacf-sha3 takes the generic branch,
    // the runs claiming every feature the cpacf one.
    const bool claimed = cpu_features().cpacf_ghash;
    INFO("features: " << describe(cpu_features()));
    CHECK(std::string(best_selection(cpu_features()).ghash->name) ==
          (claimed ? "cpacf" : "generic"));
}

TEST_CASE("s390x detection: features follow facility 17 and both query bitmaps",
          "[s390x][detect]") {
    auto set = [](uint8_t map[16], unsigned fc) { map[fc / 8] |= 0x80 >> (fc % 8); };
    s390x::CpacfFacts all;
    all.facilities[0] = uint64_t{1} << (63 - 17);
    for (unsigned fc : {0u, 1u, 2u, 3u, 0x20u, 0x21u, 0x22u, 0x23u, 0x24u, 0x25u}) {
        set(all.kimd, fc);
        set(all.klmd, fc);
    }
    auto features = [](const s390x::CpacfFacts& f) {
        CpuFeatures c;
        s390x::apply_facts(f, c);
        return c;
    };
    CpuFeatures c = features(all);
    CHECK(c.cpacf_sha1);
    CHECK(c.cpacf_sha256);
    CHECK(c.cpacf_sha3);
    CHECK(c.cpacf_shake);
    CHECK(describe(c) == "cpacf-sha1 cpacf-sha256 cpacf-sha3 cpacf-shake");

    s390x::CpacfFacts f = all;
    f.facilities[0] = 0;  // no message-security assist: the bitmaps mean nothing
    c = features(f);
    CHECK_FALSE((c.cpacf_sha1 || c.cpacf_sha256 || c.cpacf_sha3 || c.cpacf_shake));

    f = all;
    f.klmd[0x22 / 8] &= ~(0x80 >> (0x22 % 8));  // KLMD-SHA3-384 missing
    c = features(f);
    CHECK_FALSE(c.cpacf_sha3);
    CHECK(c.cpacf_shake);
    CHECK(c.cpacf_sha256);

    f = all;
    f.kimd[0x25 / 8] &= ~(0x80 >> (0x25 % 8));  // KIMD-SHAKE-256 missing
    c = features(f);
    CHECK(c.cpacf_sha3);
    CHECK_FALSE(c.cpacf_shake);

    f = all;
    f.kimd[0] &= ~(0x80 >> 1);  // KIMD-SHA-1 missing
    c = features(f);
    CHECK_FALSE(c.cpacf_sha1);
    CHECK(c.cpacf_sha256);

    // The leftmost-bit numbering of facilities across doublewords.
    s390x::CpacfFacts g;
    g.facilities[1] = uint64_t{1} << (63 - (86 - 64));
    CHECK(s390x::has_facility(g, 86));
    CHECK_FALSE(s390x::has_facility(g, 85));
    CHECK_FALSE(s390x::has_facility(g, 17));
}

TEST_CASE("s390x detection: this machine's answers are consistent with what executes",
          "[s390x][detect][qemu]") {
    const s390x::CpacfFacts& f = s390x::facts();
    INFO("KIMD query " << to_hex(f.kimd, 16) << ", KLMD query " << to_hex(f.klmd, 16));
    REQUIRE(s390x::has_facility(f, 17));
    CHECK(s390x::has_function(f.kimd, 0));
    CHECK(s390x::has_function(f.klmd, 0));
    // Production detection (no HWACCEL_TEST_CPU) is exactly apply_facts(facts()).
    CpuFeatures expected;
    s390x::apply_facts(f, expected);
    const CpuFeatures detected = detect_cpu();
    CHECK(describe(detected) == describe(expected));
    // Every code the query reports runs without the model; every other one
    // traps to it.
    for (unsigned long fc :
         {0x01ul, 0x02ul, 0x03ul, 0x20ul, 0x21ul, 0x22ul, 0x23ul, 0x24ul, 0x25ul, 0x41ul}) {
        INFO("function code " << fc);
        uint8_t param[200] = {};
        uint8_t block[168] = {};
        const size_t block_size = kimd_block(fc);
        const uint64_t traps = model::stats().traps;
        s390x::kimd(fc, param, block, block_size);
        CHECK((model::stats().traps != traps) == !s390x::has_function(f.kimd, fc));
    }
}
