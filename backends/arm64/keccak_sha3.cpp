// Keccak-f[1600] with the ARMv8.2 SHA-3 extension (FEAT_SHA3: eor3, rax1,
// xar, bcax), one lane per vector register: the 25 lanes stay in registers
// across all rounds and all blocks of one call. Built with
// -march=armv8.2-a+sha3 (this file only); available() guards every call.
//
// Why this shape:
//   * One lane per register, lower half (the upper half is don't-care). Rho
//     rotates every lane by a different amount (all 25 offsets differ mod 64)
//     and xar takes one immediate for both halves of a register, so two lanes
//     of one state cannot share a register without shuffles that cost more
//     than they save. The other layout, two independent states per register,
//     doubles throughput only for hashing two messages at once, which the
//     engine interface (one message) never asks for: it would run at the
//     speed of this one with half of every register wasted.
//   * A round is 66 vector instructions plus a round-constant load:
//       theta  10 eor3 (two per column parity), 5 rax1 (D[x] = C[x-1] ^
//              rol(C[x+1], 1)), then theta's XOR with D is folded into rho;
//       rho    24 xar (rotate of lane ^ D) and one eor for lane 0;
//       chi    25 bcax (b0 ^ (b2 & ~b1)); iota 1 eor.
//     The scalar arm64 round needs about 100 integer instructions (with bic
//     and rotates folded into eor's shifted operand) and the generic C engine
//     compiles to about that; so the vector form wins only where the core
//     issues these four instructions at close to the rate of plain vector
//     ops. Published figures (see the README's arm64 section): Apple M1
//     Firestorm, SHA3-256 at 8 KB, OpenSSL's scalar code 644 MB/s, the same
//     SHA-3-extension approach 874 MB/s (OpenSSL PR 21398, +36%; OpenSSL 3.2+
//     therefore uses it on Apple M1/M2 only). On Arm Neoverse V1, V2 and N2
//     eor3 issues once per cycle against four plain eor (libaegis PR 23, by
//     Arm), and on Graviton4 (Neoverse V2) this approach measured about 2x
//     slower than scalar code (keccak-asm issue 15), which is why AWS-LC
//     routes Neoverse V1/V2 to scalar Keccak. The registry nevertheless
//     offers this engine wherever HWCAP_SHA3 is set (HWCAP cannot tell the
//     cores apart); on those cores force sha3=generic. Measure natively with
//     `build/tools/hwaccel-engine-bench sha3` and
//     `scripts/bench.py --evp --alg sha3-256`.
//   * Written with intrinsics: the round is written out twice per loop
//     iteration (lanes a -> e -> a), so no lane needs a move. GCC 12 -O2
//     (checked in the listing) makes the two-round loop 148 instructions:
//     the 132 of the rounds, two round-constant loads, 4 stp + 4 ldp of q
//     registers (32 live values at the peak of a round, one more than fits
//     beside the constant) and the loop control. Hand-allocated assembly
//     could drop the 8 memory ops; they go to the load/store pipes, not the
//     vector ones that bound the round.
//   * Squeezing (SHAKE output past the first block) runs the same loop and
//     writes each block straight from the registers.
//   * On return the vector registers that held the state are cleared.
// Byte i of the sponge is byte i % 8 of lane i / 8: on little-endian arm64
// that is the state's memory layout, so blocks are XORed lane by lane.

#include "arm64/arm64_engines.hpp"

#include <arm_neon.h>

#include <cstring>

#include "hwaccel/clear_vector_registers.hpp"
#include "hwaccel/cpu.hpp"

#if !defined(__aarch64__) || !defined(__ARM_FEATURE_SHA3) || defined(__AARCH64EB__)
#error "keccak_sha3.cpp is for little-endian aarch64, compiled with -march=armv8.2-a+sha3"
#endif

namespace hwaccel::arm64 {
namespace {

// Iota's round constants RC[0..23] (FIPS 202, section 3.2.5).
alignas(16) constexpr uint64_t kRoundConstants[24] = {
    0x0000000000000001, 0x0000000000008082, 0x800000000000808a, 0x8000000080008000,
    0x000000000000808b, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
    0x000000000000008a, 0x0000000000000088, 0x0000000080008009, 0x000000008000000a,
    0x000000008000808b, 0x800000000000008b, 0x8000000000008089, 0x8000000000008003,
    0x8000000000008002, 0x8000000000000080, 0x000000000000800a, 0x800000008000000a,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
};

using Lane = uint64x2_t;

// rol(a ^ d, r) as xar's ror(a ^ d, 64 - r); r is never 0 here.
#define HWK_XAR(a, d, r) vxarq_u64((a), (d), 64 - (r))

// 8 bytes from any address into the low half of a register (one ldr d).
inline Lane load_lane(const uint8_t* p) {
    return vreinterpretq_u64_u8(vcombine_u8(vld1_u8(p), vdup_n_u8(0)));
}

inline void store_lane(uint8_t* p, Lane v) { vst1_u8(p, vget_low_u8(vreinterpretq_u8_u64(v))); }

// One round from lanes s[] into lanes t[] (lane (x, y) at index x + 5y).
// Written with named temporaries so that GCC allocates registers freely.
#define HWK_ROUND(s, t, rc)                                                          \
    do {                                                                             \
        const Lane c0 = veor3q_u64(veor3q_u64(s##0, s##5, s##10), s##15, s##20);     \
        const Lane c1 = veor3q_u64(veor3q_u64(s##1, s##6, s##11), s##16, s##21);     \
        const Lane c2 = veor3q_u64(veor3q_u64(s##2, s##7, s##12), s##17, s##22);     \
        const Lane c3 = veor3q_u64(veor3q_u64(s##3, s##8, s##13), s##18, s##23);     \
        const Lane c4 = veor3q_u64(veor3q_u64(s##4, s##9, s##14), s##19, s##24);     \
        const Lane d0 = vrax1q_u64(c4, c1);                                          \
        const Lane d1 = vrax1q_u64(c0, c2);                                          \
        const Lane d2 = vrax1q_u64(c1, c3);                                          \
        const Lane d3 = vrax1q_u64(c2, c4);                                          \
        const Lane d4 = vrax1q_u64(c3, c0);                                          \
        {                                                                            \
            const Lane b0 = veorq_u64(s##0, d0);                                     \
            const Lane b1 = HWK_XAR(s##6, d1, 44);                                   \
            const Lane b2 = HWK_XAR(s##12, d2, 43);                                  \
            const Lane b3 = HWK_XAR(s##18, d3, 21);                                  \
            const Lane b4 = HWK_XAR(s##24, d4, 14);                                  \
            t##0 = veorq_u64(vbcaxq_u64(b0, b2, b1), vld1q_dup_u64(rc));             \
            t##1 = vbcaxq_u64(b1, b3, b2);                                           \
            t##2 = vbcaxq_u64(b2, b4, b3);                                           \
            t##3 = vbcaxq_u64(b3, b0, b4);                                           \
            t##4 = vbcaxq_u64(b4, b1, b0);                                           \
        }                                                                            \
        {                                                                            \
            const Lane b0 = HWK_XAR(s##3, d3, 28);                                   \
            const Lane b1 = HWK_XAR(s##9, d4, 20);                                   \
            const Lane b2 = HWK_XAR(s##10, d0, 3);                                   \
            const Lane b3 = HWK_XAR(s##16, d1, 45);                                  \
            const Lane b4 = HWK_XAR(s##22, d2, 61);                                  \
            t##5 = vbcaxq_u64(b0, b2, b1);                                           \
            t##6 = vbcaxq_u64(b1, b3, b2);                                           \
            t##7 = vbcaxq_u64(b2, b4, b3);                                           \
            t##8 = vbcaxq_u64(b3, b0, b4);                                           \
            t##9 = vbcaxq_u64(b4, b1, b0);                                           \
        }                                                                            \
        {                                                                            \
            const Lane b0 = HWK_XAR(s##1, d1, 1);                                    \
            const Lane b1 = HWK_XAR(s##7, d2, 6);                                    \
            const Lane b2 = HWK_XAR(s##13, d3, 25);                                  \
            const Lane b3 = HWK_XAR(s##19, d4, 8);                                   \
            const Lane b4 = HWK_XAR(s##20, d0, 18);                                  \
            t##10 = vbcaxq_u64(b0, b2, b1);                                          \
            t##11 = vbcaxq_u64(b1, b3, b2);                                          \
            t##12 = vbcaxq_u64(b2, b4, b3);                                          \
            t##13 = vbcaxq_u64(b3, b0, b4);                                          \
            t##14 = vbcaxq_u64(b4, b1, b0);                                          \
        }                                                                            \
        {                                                                            \
            const Lane b0 = HWK_XAR(s##4, d4, 27);                                   \
            const Lane b1 = HWK_XAR(s##5, d0, 36);                                   \
            const Lane b2 = HWK_XAR(s##11, d1, 10);                                  \
            const Lane b3 = HWK_XAR(s##17, d2, 15);                                  \
            const Lane b4 = HWK_XAR(s##23, d3, 56);                                  \
            t##15 = vbcaxq_u64(b0, b2, b1);                                          \
            t##16 = vbcaxq_u64(b1, b3, b2);                                          \
            t##17 = vbcaxq_u64(b2, b4, b3);                                          \
            t##18 = vbcaxq_u64(b3, b0, b4);                                          \
            t##19 = vbcaxq_u64(b4, b1, b0);                                          \
        }                                                                            \
        {                                                                            \
            const Lane b0 = HWK_XAR(s##2, d2, 62);                                   \
            const Lane b1 = HWK_XAR(s##8, d3, 55);                                   \
            const Lane b2 = HWK_XAR(s##14, d4, 39);                                  \
            const Lane b3 = HWK_XAR(s##15, d0, 41);                                  \
            const Lane b4 = HWK_XAR(s##21, d1, 2);                                   \
            t##20 = vbcaxq_u64(b0, b2, b1);                                          \
            t##21 = vbcaxq_u64(b1, b3, b2);                                          \
            t##22 = vbcaxq_u64(b2, b4, b3);                                          \
            t##23 = vbcaxq_u64(b3, b0, b4);                                          \
            t##24 = vbcaxq_u64(b4, b1, b0);                                          \
        }                                                                            \
    } while (0)

// GCC 12's pre-allocation scheduler hoists loads and xar's far ahead and
// then spills: with it the two-round loop is 166 instructions (25 of them
// stack traffic and moves), without it 148 (132 of the round, 8 stack
// loads/stores of q registers).
#if defined(__GNUC__) && !defined(__clang__)
#define HWK_NO_PRESCHEDULE __attribute__((optimize("no-schedule-insns")))
#else
#define HWK_NO_PRESCHEDULE
#endif

// For each of nblocks blocks: with data, XOR rate / 8 lanes of it into the
// state (none if rate is 0), then permute; with out, permute, then write
// rate / 8 lanes to out. The state is loaded and stored once per call.
__attribute__((noinline)) HWK_NO_PRESCHEDULE void sponge(uint64_t state[25], const uint8_t* data, size_t nblocks,
                                      size_t rate, uint8_t* out) {
    const auto* st = reinterpret_cast<const uint8_t*>(state);
    Lane a0 = load_lane(st + 0), a1 = load_lane(st + 8), a2 = load_lane(st + 16);
    Lane a3 = load_lane(st + 24), a4 = load_lane(st + 32), a5 = load_lane(st + 40);
    Lane a6 = load_lane(st + 48), a7 = load_lane(st + 56), a8 = load_lane(st + 64);
    Lane a9 = load_lane(st + 72), a10 = load_lane(st + 80), a11 = load_lane(st + 88);
    Lane a12 = load_lane(st + 96), a13 = load_lane(st + 104), a14 = load_lane(st + 112);
    Lane a15 = load_lane(st + 120), a16 = load_lane(st + 128), a17 = load_lane(st + 136);
    Lane a18 = load_lane(st + 144), a19 = load_lane(st + 152), a20 = load_lane(st + 160);
    Lane a21 = load_lane(st + 168), a22 = load_lane(st + 176), a23 = load_lane(st + 184);
    Lane a24 = load_lane(st + 192);
    const size_t lanes = rate / 8;
    for (; nblocks > 0; --nblocks) {
        if (data != nullptr) {
            // Lane k takes bytes 8k..8k+7 of the block; the cases fall
            // through from the last lane of the rate down to lane 0.
            switch (lanes) {
                case 21: a20 = veorq_u64(a20, load_lane(data + 160)); [[fallthrough]];
                case 20: a19 = veorq_u64(a19, load_lane(data + 152)); [[fallthrough]];
                case 19: a18 = veorq_u64(a18, load_lane(data + 144)); [[fallthrough]];
                case 18: a17 = veorq_u64(a17, load_lane(data + 136)); [[fallthrough]];
                case 17: a16 = veorq_u64(a16, load_lane(data + 128)); [[fallthrough]];
                case 16: a15 = veorq_u64(a15, load_lane(data + 120)); [[fallthrough]];
                case 15: a14 = veorq_u64(a14, load_lane(data + 112)); [[fallthrough]];
                case 14: a13 = veorq_u64(a13, load_lane(data + 104)); [[fallthrough]];
                case 13: a12 = veorq_u64(a12, load_lane(data + 96)); [[fallthrough]];
                case 12: a11 = veorq_u64(a11, load_lane(data + 88)); [[fallthrough]];
                case 11: a10 = veorq_u64(a10, load_lane(data + 80)); [[fallthrough]];
                case 10: a9 = veorq_u64(a9, load_lane(data + 72)); [[fallthrough]];
                case 9: a8 = veorq_u64(a8, load_lane(data + 64)); [[fallthrough]];
                case 8: a7 = veorq_u64(a7, load_lane(data + 56)); [[fallthrough]];
                case 7: a6 = veorq_u64(a6, load_lane(data + 48)); [[fallthrough]];
                case 6: a5 = veorq_u64(a5, load_lane(data + 40)); [[fallthrough]];
                case 5: a4 = veorq_u64(a4, load_lane(data + 32)); [[fallthrough]];
                case 4: a3 = veorq_u64(a3, load_lane(data + 24)); [[fallthrough]];
                case 3: a2 = veorq_u64(a2, load_lane(data + 16)); [[fallthrough]];
                case 2: a1 = veorq_u64(a1, load_lane(data + 8)); [[fallthrough]];
                case 1: a0 = veorq_u64(a0, load_lane(data + 0)); [[fallthrough]];
                default: break;
            }
            data += rate;
        }
        for (int i = 0; i < 24; i += 2) {
            Lane e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12;
            Lane e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24;
            HWK_ROUND(a, e, &kRoundConstants[i]);
            HWK_ROUND(e, a, &kRoundConstants[i + 1]);
        }
        if (out != nullptr) {
            switch (lanes) {
                case 21: store_lane(out + 160, a20); [[fallthrough]];
                case 20: store_lane(out + 152, a19); [[fallthrough]];
                case 19: store_lane(out + 144, a18); [[fallthrough]];
                case 18: store_lane(out + 136, a17); [[fallthrough]];
                case 17: store_lane(out + 128, a16); [[fallthrough]];
                case 16: store_lane(out + 120, a15); [[fallthrough]];
                case 15: store_lane(out + 112, a14); [[fallthrough]];
                case 14: store_lane(out + 104, a13); [[fallthrough]];
                case 13: store_lane(out + 96, a12); [[fallthrough]];
                case 12: store_lane(out + 88, a11); [[fallthrough]];
                case 11: store_lane(out + 80, a10); [[fallthrough]];
                case 10: store_lane(out + 72, a9); [[fallthrough]];
                case 9: store_lane(out + 64, a8); [[fallthrough]];
                case 8: store_lane(out + 56, a7); [[fallthrough]];
                case 7: store_lane(out + 48, a6); [[fallthrough]];
                case 6: store_lane(out + 40, a5); [[fallthrough]];
                case 5: store_lane(out + 32, a4); [[fallthrough]];
                case 4: store_lane(out + 24, a3); [[fallthrough]];
                case 3: store_lane(out + 16, a2); [[fallthrough]];
                case 2: store_lane(out + 8, a1); [[fallthrough]];
                case 1: store_lane(out + 0, a0); [[fallthrough]];
                default: break;
            }
            out += rate;
        }
    }
    auto* so = reinterpret_cast<uint8_t*>(state);
    store_lane(so + 0, a0), store_lane(so + 8, a1), store_lane(so + 16, a2);
    store_lane(so + 24, a3), store_lane(so + 32, a4), store_lane(so + 40, a5);
    store_lane(so + 48, a6), store_lane(so + 56, a7), store_lane(so + 64, a8);
    store_lane(so + 72, a9), store_lane(so + 80, a10), store_lane(so + 88, a11);
    store_lane(so + 96, a12), store_lane(so + 104, a13), store_lane(so + 112, a14);
    store_lane(so + 120, a15), store_lane(so + 128, a16), store_lane(so + 136, a17);
    store_lane(so + 144, a18), store_lane(so + 152, a19), store_lane(so + 160, a20);
    store_lane(so + 168, a21), store_lane(so + 176, a22), store_lane(so + 184, a23);
    store_lane(so + 192, a24);
}

#undef HWK_ROUND
#undef HWK_NO_PRESCHEDULE
#undef HWK_XAR

void absorb(uint64_t state[25], const uint8_t* data, size_t nblocks, size_t rate) {
    if (nblocks == 0) return;
    sponge(state, data, nblocks, rate, nullptr);
    clear_vector_registers();
}

void permute(uint64_t state[25]) {
    sponge(state, nullptr, 1, 0, nullptr);
    clear_vector_registers();
}

// Whole output blocks straight from the registers, the last partial one from
// the state (byte i is byte i % 8 of lane i / 8: little-endian).
bool squeeze(uint64_t state[25], uint8_t* out, size_t out_len, size_t rate) {
    if (size_t whole = out_len / rate) {
        sponge(state, nullptr, whole, rate, out);
        out += whole * rate;
        out_len -= whole * rate;
    }
    if (out_len != 0) {
        sponge(state, nullptr, 1, 0, nullptr);
        std::memcpy(out, state, out_len);
    }
    clear_vector_registers();
    return true;
}

// eor3, rax1, xar and bcax are FEAT_SHA3; arm_sha3 implies Advanced SIMD.
bool available(const CpuFeatures& cpu) { return cpu.arm_sha3; }

}  // namespace

const KeccakEngine keccak_sha3 = {
    .name = "arm64-sha3",
    .available = available,
    .absorb = absorb,
    .permute = permute,
    .squeeze = squeeze};

}  // namespace hwaccel::arm64
