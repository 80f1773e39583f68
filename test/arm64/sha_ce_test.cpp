// The SHA-1/SHA-256 Crypto Extension engines' block functions against the
// portable engines on arbitrary chaining values and block counts (the digest
// suites in test/backends only ever start from the initial values), and the
// FIPS 180-4 "abc" examples through the blocks alone. Tagged [arm64] so the
// run under a -cpu model without SHA-3/SM4 (scripts/cross-aarch64.sh) runs
// them too.
#include <catch2/catch.hpp>

#include <cstring>

#include "hwaccel/cpu.hpp"
#include "support/vectors.hpp"
// Backend internals, through hwaccel_backend_internals.
#include "arm64/arm64_engines.hpp"
#include "generic/generic_engines.hpp"

using namespace hwaccel;
using namespace hwaccel::test;

namespace {

// One padded block holding "abc" (FIPS 180-4 examples): 0x80 after the
// message, its bit length (24) at the end.
void abc_block(uint8_t block[64]) {
    std::memset(block, 0, 64);
    std::memcpy(block, "abc", 3);
    block[3] = 0x80;
    block[63] = 24;
}

}  // namespace

TEST_CASE("arm64-ce: SHA-1 and SHA-256 of \"abc\" from the blocks alone", "[arm64][engine]") {
    if (!arm64::sha1_ce.available(cpu_features()) || !arm64::sha256_ce.available(cpu_features())) {
        WARN("no SHA-1/SHA-2 extension here: nothing to run");
        return;
    }
    uint8_t block[64];
    abc_block(block);
    // FIPS 180-4 section 5.3 initial values; the results from NIST's
    // examples (SHA1.pdf, SHA256.pdf).
    uint32_t s1[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
    arm64::sha1_ce.blocks(s1, block, 1);
    const uint32_t want1[5] = {0xa9993e36, 0x4706816a, 0xba3e2571, 0x7850c26c, 0x9cd0d89d};
    CHECK(std::memcmp(s1, want1, sizeof s1) == 0);
    uint32_t s2[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    arm64::sha256_ce.blocks(s2, block, 1);
    const uint32_t want2[8] = {0xba7816bf, 0x8f01cfea, 0x414140de, 0x5dae2223,
                               0xb00361a3, 0x96177a9c, 0xb410ff61, 0xf20015ad};
    CHECK(std::memcmp(s2, want2, sizeof s2) == 0);
}

TEST_CASE("arm64-ce: SHA-1 and SHA-256 blocks equal the portable engines on any state",
          "[arm64][engine]") {
    if (!arm64::sha1_ce.available(cpu_features()) || !arm64::sha256_ce.available(cpu_features())) {
        WARN("no SHA-1/SHA-2 extension here: nothing to run");
        return;
    }
    Lcg rng(64);
    for (int iter = 0; iter < 200; ++iter) {
        const size_t nblocks = 1 + rng.below(9);
        // Misaligned by up to 15 bytes: the engine loads bytes.
        const size_t offset = rng.below(16);
        const Bytes buffer = rng.bytes(offset + nblocks * 64);
        const uint8_t* data = buffer.data() + offset;
        uint32_t a1[5], b1[5], a2[8], b2[8];
        for (auto& w : a1) w = rng.next32();
        for (auto& w : a2) w = rng.next32();
        std::memcpy(b1, a1, sizeof a1);
        std::memcpy(b2, a2, sizeof a2);
        arm64::sha1_ce.blocks(a1, data, nblocks);
        generic::sha1.blocks(b1, data, nblocks);
        arm64::sha256_ce.blocks(a2, data, nblocks);
        generic::sha256.blocks(b2, data, nblocks);
        INFO("iteration " << iter << ", " << nblocks << " blocks at offset " << offset);
        REQUIRE(std::memcmp(a1, b1, sizeof a1) == 0);
        REQUIRE(std::memcmp(a2, b2, sizeof a2) == 0);
    }
}
