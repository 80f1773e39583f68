// SHA-1 and SHA-256 (hence SHA-224) with the ARMv8 Crypto Extensions:
// SHA1C/SHA1P/SHA1M (four rounds of each round function), SHA1H (the E of
// four rounds later), SHA1SU0/SU1 and SHA256H/SHA256H2 (four rounds on the
// ABCD and EFGH halves), SHA256SU0/SU1 (four schedule words), through the
// ACLE intrinsics of <arm_neon.h> (Arm's "ARM C Language Extensions",
// section Crypto intrinsics).
//
// This file alone is compiled with -march=armv8-a+crypto (GCC 12 guards the
// SHA intrinsics with +crypto, not +sha2; backends/CMakeLists.txt);
// the registry calls blocks() only after available() saw HWCAP_SHA1/SHA2
// and ASIMD. The instructions keep the state with A in lane 0, the order of
// the state array, so no shuffles are needed; one block is 16 (SHA-256) or
// 20 (SHA-1) round instructions on one dependency chain, with the schedule
// for later groups issued beside them.
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "arm64/arm64_engines.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/sha256_constants.hpp"

namespace hwaccel::arm64 {
namespace {

bool sha1_available(const CpuFeatures& cpu) { return cpu.arm_sha1; }
bool sha256_available(const CpuFeatures& cpu) { return cpu.arm_sha256; }

// Four big-endian message words.
inline uint32x4_t load_be(const uint8_t* p) { return vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(p))); }

// ---------------------------------------------------------------- SHA-256

void sha256_blocks(uint32_t state[8], const uint8_t* data, size_t nblocks) {
    uint32x4_t abcd = vld1q_u32(state);
    uint32x4_t efgh = vld1q_u32(state + 4);
    for (; nblocks != 0; --nblocks, data += 64) {
        const uint32x4_t abcd_in = abcd, efgh_in = efgh;
        // W[4j..4j+3] in w[j % 4]; group j >= 4 is computed from the four
        // before it, during group j - 4 (after that group has used its words).
        uint32x4_t w[4] = {load_be(data), load_be(data + 16), load_be(data + 32),
                           load_be(data + 48)};
        // Unrolled, so the ring w[] stays in registers.
#pragma GCC unroll 16
        for (int j = 0; j < 16; ++j) {
            uint32x4_t& cur = w[j & 3];
            const uint32x4_t wk = vaddq_u32(cur, vld1q_u32(kSha256RoundConstants + 4 * j));
            if (j < 12)
                cur = vsha256su1q_u32(vsha256su0q_u32(cur, w[(j + 1) & 3]), w[(j + 2) & 3],
                                      w[(j + 3) & 3]);
            const uint32x4_t abcd_before = abcd;
            abcd = vsha256hq_u32(abcd, efgh, wk);
            efgh = vsha256h2q_u32(efgh, abcd_before, wk);
        }
        abcd = vaddq_u32(abcd, abcd_in);
        efgh = vaddq_u32(efgh, efgh_in);
    }
    vst1q_u32(state, abcd);
    vst1q_u32(state + 4, efgh);
    clear_vector_registers();  // the chaining value (key-derived under HMAC) and the message
}

// ---------------------------------------------------------------- SHA-1

// FIPS 180-4, section 4.2.1: one constant per 20 rounds.
constexpr uint32_t kSha1K[4] = {0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6};

void sha1_blocks(uint32_t state[5], const uint8_t* data, size_t nblocks) {
    uint32x4_t abcd = vld1q_u32(state);
    uint32_t e = state[4];
    const uint32x4_t k[4] = {vdupq_n_u32(kSha1K[0]), vdupq_n_u32(kSha1K[1]),
                             vdupq_n_u32(kSha1K[2]), vdupq_n_u32(kSha1K[3])};
    for (; nblocks != 0; --nblocks, data += 64) {
        const uint32x4_t abcd_in = abcd;
        const uint32_t e_in = e;
        uint32x4_t w[4] = {load_be(data), load_be(data + 16), load_be(data + 32),
                           load_be(data + 48)};
        // Groups of four rounds: Ch for rounds 0-19 (SHA1C), Parity for 20-39
        // and 60-79 (SHA1P), Maj for 40-59 (SHA1M).
#pragma GCC unroll 20
        for (int j = 0; j < 20; ++j) {
            uint32x4_t& cur = w[j & 3];
            const uint32x4_t wk = vaddq_u32(cur, k[j / 5]);
            if (j < 16)
                cur = vsha1su1q_u32(vsha1su0q_u32(cur, w[(j + 1) & 3], w[(j + 2) & 3]),
                                    w[(j + 3) & 3]);
            const uint32_t e_next = vsha1h_u32(vgetq_lane_u32(abcd, 0));  // ROL(A, 30)
            if (j < 5)
                abcd = vsha1cq_u32(abcd, e, wk);
            else if (j < 10 || j >= 15)
                abcd = vsha1pq_u32(abcd, e, wk);
            else
                abcd = vsha1mq_u32(abcd, e, wk);
            e = e_next;
        }
        abcd = vaddq_u32(abcd, abcd_in);
        e += e_in;
    }
    vst1q_u32(state, abcd);
    state[4] = e;
    clear_vector_registers();
}

}  // namespace

const Sha1Engine sha1_ce = {.name = "arm64-ce", .available = sha1_available, .blocks = sha1_blocks};
const Sha256Engine sha256_ce = {
    .name = "arm64-ce", .available = sha256_available, .blocks = sha256_blocks};

}  // namespace hwaccel::arm64
