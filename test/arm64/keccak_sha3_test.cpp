// arm64-sha3 at the engine level, against the portable engine on arbitrary
// states (the digest suites of test/backends run it through the sponge on
// the standard's vectors): absorb of many blocks per call at every rate the
// sponge uses and at the edges of the interface, the bare permutation, the
// squeeze from registers, unaligned buffers; and where the registry puts it
// (by itself only on cores where it is fast, named wherever it runs).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "hwaccel/cpu.hpp"
#include "hwaccel/registry.hpp"
#include "support/hashers.hpp"
#include "support/vectors.hpp"
// Backend internals, through hwaccel_backend_internals.
#include "arm64/arm64_engines.hpp"
#include "cpu/detect_arm64.hpp"
#include "generic/generic_engines.hpp"

using namespace hwaccel;
using namespace hwaccel::test;

namespace {

const KeccakEngine& kEngine = arm64::keccak_sha3;
const KeccakEngine& kReference = generic::keccak;

std::string lanes_hex(const uint64_t s[25]) {
    return to_hex(reinterpret_cast<const uint8_t*>(s), 200);
}

// Rates of SHA3-224/256/384/512 and SHAKE128/256, and the interface's edges:
// one lane, and an odd lane count.
constexpr size_t kRates[] = {144, 136, 104, 72, 168, 8, 40};

bool skip_unless_available() {
    if (kEngine.available(cpu_features())) return false;
    WARN("arm64-sha3 not available on this CPU (features: " << describe(cpu_features()) << ")");
    return true;
}

}  // namespace

TEST_CASE("arm64-sha3: absorb equals the generic engine, many blocks per call, any alignment",
          "[arm64][keccak]") {
    if (skip_unless_available()) return;
    Lcg rng(0x5a3);
    for (size_t rate : kRates) {
        for (size_t nblocks : {0, 1, 2, 3, 7}) {
            for (size_t offset : {0, 1, 7}) {
                std::vector<uint8_t> buf(offset + nblocks * rate);
                rng.fill(buf.data(), buf.size());
                uint64_t ours[25], ref[25];
                rng.fill(reinterpret_cast<uint8_t*>(ref), sizeof ref);
                std::memcpy(ours, ref, sizeof ref);
                kEngine.absorb(ours, buf.data() + offset, nblocks, rate);
                kReference.absorb(ref, buf.data() + offset, nblocks, rate);
                INFO("rate " << rate << ", " << nblocks << " blocks, offset " << offset);
                REQUIRE(lanes_hex(ours) == lanes_hex(ref));
                // The same blocks one call each: the state carries over.
                uint64_t split[25];
                std::memcpy(split, ours, sizeof split);
                std::memcpy(ours, ref, sizeof ref);
                for (size_t b = 0; b < nblocks; ++b) {
                    kEngine.absorb(split, buf.data() + offset + b * rate, 1, rate);
                    kReference.absorb(ref, buf.data() + offset + b * rate, 1, rate);
                }
                REQUIRE(lanes_hex(split) == lanes_hex(ref));
            }
        }
    }
}

TEST_CASE("arm64-sha3: the bare permutation equals the generic engine", "[arm64][keccak]") {
    if (skip_unless_available()) return;
    Lcg rng(24);
    uint64_t ours[25] = {}, ref[25] = {};
    // From the zero state (lane 0 of Keccak-f[1600](0) is 0xf1258f7940e1dde7,
    // XKCP's KeccakF-1600-IntermediateValues.txt), then from random states.
    kEngine.permute(ours);
    CHECK(ours[0] == 0xf1258f7940e1dde7ull);
    for (int i = 0; i < 20; ++i) {
        kReference.permute(ref);
        if (i > 0) kEngine.permute(ours);
        REQUIRE(lanes_hex(ours) == lanes_hex(ref));
        rng.fill(reinterpret_cast<uint8_t*>(ref), sizeof ref);
        std::memcpy(ours, ref, sizeof ref);
    }
}

TEST_CASE("arm64-sha3: squeeze equals permute-and-copy for every length up to four blocks",
          "[arm64][keccak]") {
    if (skip_unless_available()) return;
    REQUIRE(kEngine.squeeze != nullptr);
    Lcg rng(0x5e5e);
    for (size_t rate : kRates) {
        uint64_t start[25];
        rng.fill(reinterpret_cast<uint8_t*>(start), sizeof start);
        for (size_t len = 0; len <= 4 * rate + 1; len += (len < 2 * rate + 2 ? 1 : 7)) {
            // Output at an odd address with guard bytes either side.
            std::vector<uint8_t> ours(len + 2, 0xa5), ref(len + 2, 0xa5);
            uint64_t ours_state[25], ref_state[25];
            std::memcpy(ours_state, start, sizeof start);
            std::memcpy(ref_state, start, sizeof start);
            REQUIRE(kEngine.squeeze(ours_state, ours.data() + 1, len, rate));
            for (size_t done = 0; done < len; done += rate) {
                kReference.permute(ref_state);
                std::memcpy(ref.data() + 1 + done, ref_state, std::min(rate, len - done));
            }
            INFO("rate " << rate << ", " << len << " bytes");
            REQUIRE(to_hex(ours.data(), ours.size()) == to_hex(ref.data(), ref.size()));
            REQUIRE(lanes_hex(ours_state) == lanes_hex(ref_state));
        }
    }
}

TEST_CASE("arm64-sha3: chosen by itself only where fast (Apple), forceable wherever HWCAP_SHA3",
          "[arm64][keccak][choice]") {
    using namespace arm64;
    constexpr uint64_t kApple = 0x611f0231;       // M1 Firestorm
    constexpr uint64_t kNeoverseV2 = 0x410fd4f1;  // Graviton4
    const unsigned long sha3 = kHwcapAsimd | kHwcapSha3 | kHwcapCpuid;
    const CpuFeatures apple = features_from_hwcap(sha3, kApple);
    const CpuFeatures v2 = features_from_hwcap(sha3, kNeoverseV2);
    CHECK(std::string(best_selection(apple).keccak->name) == "arm64-sha3");
    CHECK(std::string(best_selection(v2).keccak->name) == "generic");
    CHECK(std::string(best_selection(features_from_hwcap(sha3 & ~kHwcapCpuid, kApple)).keccak->name) ==
          "generic");
    CHECK(std::string(best_selection(features_from_hwcap(kHwcapAsimd | kHwcapCpuid, kApple)).keccak->name) ==
          "generic");
    CHECK(std::string(best_selection(features_from_hwcap(sha3 & ~kHwcapAsimd, kApple)).keccak->name) ==
          "generic");
    // Named, it is served wherever the instructions are, and only there.
    Selection forced = best_selection(v2);
    std::string error;
    CHECK(kEngine.available(v2));
    REQUIRE(apply_overrides(forced, "sha3=arm64-sha3", v2, error));
    CHECK(std::string(forced.keccak->name) == "arm64-sha3");
    Selection refused = best_selection(features_from_hwcap(kHwcapAsimd | kHwcapCpuid, kApple));
    CHECK_FALSE(apply_overrides(refused, "sha3=arm64-sha3",
                                features_from_hwcap(kHwcapAsimd | kHwcapCpuid, kApple), error));
    CHECK_THAT(error, Catch::Contains("not supported by this CPU"));
    // This process: whatever the (possibly HWACCEL_TEST_CPU-adjusted) features say.
    const Selection here = best_selection(cpu_features());
    CHECK(std::string(here.keccak->name) ==
          (cpu_features().arm_sha3 && cpu_features().arm_sha3_fast ? "arm64-sha3" : "generic"));
}
