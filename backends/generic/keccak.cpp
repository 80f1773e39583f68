// Portable Keccak-f[1600] (FIPS 202, section 3) and the sponge's absorb step.
//
// The 25 lanes live in local variables for the whole call, across all blocks
// of an absorb. The round function is written out twice per loop iteration,
// once from lanes a* into e* and once back, so no lane ever needs moving; a
// fully unrolled 24-round body is slower on cores with a small op cache.
// Lane i is the lane (x, y) = (i % 5, i / 5) of the standard.
//
// Lane complementing: inside sponge(), lanes 1, 7, 8, 14, 17, 22 are held
// inverted. Theta, rho and pi commute with inversion (they only change which
// values come out inverted), so chi's b0 ^ (~b1 & b2) can be rewritten by
// De Morgan into forms such as b0 ^ (b1 & b2) or b0 ^ (b1 | b2) that need 6
// NOTs per round instead of 25 while every output lands back in the same
// inverted set. The set and the per-row forms were found by exhaustive search.
// Without an and-not instruction (baseline x86-64) this is about 10% faster
// (`build/tools/hwaccel-engine-bench generic` measures it).
#include "generic/generic_engines.hpp"
#include "hwaccel/bytes.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "hwaccel/wipe_stack.hpp"

namespace hwaccel::generic {
namespace {

// The stack sponge uses below its caller: about 320 bytes (GCC 12 -O2: its
// frame, saved registers, red zone and return address), rounded up to a
// multiple of 32 with some room (the residue test checks it suffices).
constexpr size_t kWipeBytes = wipe_bytes(384);

// Iota's round constants RC[0..23].
constexpr uint64_t kRoundConstants[24] = {
    0x0000000000000001,
    0x0000000000008082,
    0x800000000000808a,
    0x8000000080008000,
    0x000000000000808b,
    0x0000000080000001,
    0x8000000080008081,
    0x8000000000008009,
    0x000000000000008a,
    0x0000000000000088,
    0x0000000080008009,
    0x000000008000000a,
    0x000000008000808b,
    0x800000000000008b,
    0x8000000000008089,
    0x8000000000008003,
    0x8000000000008002,
    0x8000000000000080,
    0x000000000000800a,
    0x800000008000000a,
    0x8000000080008081,
    0x8000000000008080,
    0x0000000080000001,
    0x8000000080008008,
};

// XORs nblocks blocks of rate bytes into the state, permuting after each; with
// rate 0 it is the bare permutation applied nblocks times. One body serves
// both so the state is loaded and stored once per call.
// Not inlined into absorb and permute: its frame (lanes the compiler spills)
// then lies below theirs, where their wipe reaches.
[[gnu::noinline]] void sponge(uint64_t state[25], const uint8_t* data, size_t nblocks, size_t rate) {
    uint64_t a0 = state[0];
    uint64_t a1 = state[1];
    uint64_t a2 = state[2];
    uint64_t a3 = state[3];
    uint64_t a4 = state[4];
    uint64_t a5 = state[5];
    uint64_t a6 = state[6];
    uint64_t a7 = state[7];
    uint64_t a8 = state[8];
    uint64_t a9 = state[9];
    uint64_t a10 = state[10];
    uint64_t a11 = state[11];
    uint64_t a12 = state[12];
    uint64_t a13 = state[13];
    uint64_t a14 = state[14];
    uint64_t a15 = state[15];
    uint64_t a16 = state[16];
    uint64_t a17 = state[17];
    uint64_t a18 = state[18];
    uint64_t a19 = state[19];
    uint64_t a20 = state[20];
    uint64_t a21 = state[21];
    uint64_t a22 = state[22];
    uint64_t a23 = state[23];
    uint64_t a24 = state[24];
    // Enter the complemented representation (see the top of the file).
    a1 = ~a1;
    a7 = ~a7;
    a8 = ~a8;
    a14 = ~a14;
    a17 = ~a17;
    a22 = ~a22;
    for (; nblocks > 0; --nblocks, data += rate) {
        // Lane k takes bytes 8k..8k+7 of the block; the cases fall through
        // from the last lane of the rate down to lane 0. XOR commutes with
        // the complementing, so the data goes in unchanged.
        switch (rate / 8) {
            case 21: a20 ^= load_le64(data + 160); [[fallthrough]];
            case 20: a19 ^= load_le64(data + 152); [[fallthrough]];
            case 19: a18 ^= load_le64(data + 144); [[fallthrough]];
            case 18: a17 ^= load_le64(data + 136); [[fallthrough]];
            case 17: a16 ^= load_le64(data + 128); [[fallthrough]];
            case 16: a15 ^= load_le64(data + 120); [[fallthrough]];
            case 15: a14 ^= load_le64(data + 112); [[fallthrough]];
            case 14: a13 ^= load_le64(data + 104); [[fallthrough]];
            case 13: a12 ^= load_le64(data + 96); [[fallthrough]];
            case 12: a11 ^= load_le64(data + 88); [[fallthrough]];
            case 11: a10 ^= load_le64(data + 80); [[fallthrough]];
            case 10: a9 ^= load_le64(data + 72); [[fallthrough]];
            case 9: a8 ^= load_le64(data + 64); [[fallthrough]];
            case 8: a7 ^= load_le64(data + 56); [[fallthrough]];
            case 7: a6 ^= load_le64(data + 48); [[fallthrough]];
            case 6: a5 ^= load_le64(data + 40); [[fallthrough]];
            case 5: a4 ^= load_le64(data + 32); [[fallthrough]];
            case 4: a3 ^= load_le64(data + 24); [[fallthrough]];
            case 3: a2 ^= load_le64(data + 16); [[fallthrough]];
            case 2: a1 ^= load_le64(data + 8); [[fallthrough]];
            case 1: a0 ^= load_le64(data + 0); [[fallthrough]];
            default: break;
        }

        // Each pass applies rounds i and i + 1. Within a round: theta's column
        // parities c and column offsets d; then for each output row the five
        // lanes after theta, rho (the rotations) and pi (the choice of source
        // lanes), combined by chi; iota on lane 0.
        for (int i = 0; i < 24; i += 2) {
            uint64_t e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12;
            uint64_t e13, e14, e15, e16, e17, e18, e19, e20, e21, e22, e23, e24;
            {
                const uint64_t c0 = a0 ^ a5 ^ a10 ^ a15 ^ a20;
                const uint64_t c1 = a1 ^ a6 ^ a11 ^ a16 ^ a21;
                const uint64_t c2 = a2 ^ a7 ^ a12 ^ a17 ^ a22;
                const uint64_t c3 = a3 ^ a8 ^ a13 ^ a18 ^ a23;
                const uint64_t c4 = a4 ^ a9 ^ a14 ^ a19 ^ a24;
                const uint64_t d0 = c4 ^ rotl64(c1, 1);
                const uint64_t d1 = c0 ^ rotl64(c2, 1);
                const uint64_t d2 = c1 ^ rotl64(c3, 1);
                const uint64_t d3 = c2 ^ rotl64(c4, 1);
                const uint64_t d4 = c3 ^ rotl64(c0, 1);
                {
                    const uint64_t b0 = a0 ^ d0;
                    const uint64_t b1 = rotl64(a6 ^ d1, 44);
                    const uint64_t b2 = rotl64(a12 ^ d2, 43);
                    const uint64_t b3 = rotl64(a18 ^ d3, 21);
                    const uint64_t b4 = rotl64(a24 ^ d4, 14);
                    const uint64_t nb2 = ~b2;
                    e0 = b0 ^ (b1 & b2) ^ kRoundConstants[i];
                    e1 = b1 ^ (nb2 & b3);
                    e2 = ~(b2 ^ (b3 | b4));
                    e3 = b3 ^ (b4 & b0);
                    e4 = b4 ^ (b0 | b1);
                }
                {
                    const uint64_t b0 = rotl64(a3 ^ d3, 28);
                    const uint64_t b1 = rotl64(a9 ^ d4, 20);
                    const uint64_t b2 = rotl64(a10 ^ d0, 3);
                    const uint64_t b3 = rotl64(a16 ^ d1, 45);
                    const uint64_t b4 = rotl64(a22 ^ d2, 61);
                    const uint64_t nb3 = ~b3;
                    e5 = b0 ^ (b1 & b2);
                    e6 = b1 ^ (b2 | b3);
                    e7 = b2 ^ (nb3 | b4);
                    e8 = b3 ^ (b4 & b0);
                    e9 = b4 ^ (b0 | b1);
                }
                {
                    const uint64_t b0 = rotl64(a1 ^ d1, 1);
                    const uint64_t b1 = rotl64(a7 ^ d2, 6);
                    const uint64_t b2 = rotl64(a13 ^ d3, 25);
                    const uint64_t b3 = rotl64(a19 ^ d4, 8);
                    const uint64_t b4 = rotl64(a20 ^ d0, 18);
                    const uint64_t nb0 = ~b0;
                    e10 = b0 ^ (b1 & b2);
                    e11 = b1 ^ (b2 | b3);
                    e12 = b2 ^ (b3 & b4);
                    e13 = b3 ^ (b4 | nb0);
                    e14 = b4 ^ (b0 | b1);
                }
                {
                    const uint64_t b0 = rotl64(a4 ^ d4, 27);
                    const uint64_t b1 = rotl64(a5 ^ d0, 36);
                    const uint64_t b2 = rotl64(a11 ^ d1, 10);
                    const uint64_t b3 = rotl64(a17 ^ d2, 15);
                    const uint64_t b4 = rotl64(a23 ^ d3, 56);
                    const uint64_t nb3 = ~b3;
                    e15 = b0 ^ (b1 | b2);
                    e16 = b1 ^ (b2 & nb3);
                    e17 = b2 ^ (b3 & b4);
                    e18 = b3 ^ (b4 | b0);
                    e19 = b4 ^ (b0 & b1);
                }
                {
                    const uint64_t b0 = rotl64(a2 ^ d2, 62);
                    const uint64_t b1 = rotl64(a8 ^ d3, 55);
                    const uint64_t b2 = rotl64(a14 ^ d4, 39);
                    const uint64_t b3 = rotl64(a15 ^ d0, 41);
                    const uint64_t b4 = rotl64(a21 ^ d1, 2);
                    const uint64_t nb3 = ~b3;
                    e20 = b0 ^ (b1 & b2);
                    e21 = b1 ^ (b2 | nb3);
                    e22 = b2 ^ (b3 | b4);
                    e23 = b3 ^ (b4 & b0);
                    e24 = b4 ^ (b0 | b1);
                }
            }
            {
                const uint64_t c0 = e0 ^ e5 ^ e10 ^ e15 ^ e20;
                const uint64_t c1 = e1 ^ e6 ^ e11 ^ e16 ^ e21;
                const uint64_t c2 = e2 ^ e7 ^ e12 ^ e17 ^ e22;
                const uint64_t c3 = e3 ^ e8 ^ e13 ^ e18 ^ e23;
                const uint64_t c4 = e4 ^ e9 ^ e14 ^ e19 ^ e24;
                const uint64_t d0 = c4 ^ rotl64(c1, 1);
                const uint64_t d1 = c0 ^ rotl64(c2, 1);
                const uint64_t d2 = c1 ^ rotl64(c3, 1);
                const uint64_t d3 = c2 ^ rotl64(c4, 1);
                const uint64_t d4 = c3 ^ rotl64(c0, 1);
                {
                    const uint64_t b0 = e0 ^ d0;
                    const uint64_t b1 = rotl64(e6 ^ d1, 44);
                    const uint64_t b2 = rotl64(e12 ^ d2, 43);
                    const uint64_t b3 = rotl64(e18 ^ d3, 21);
                    const uint64_t b4 = rotl64(e24 ^ d4, 14);
                    const uint64_t nb2 = ~b2;
                    a0 = b0 ^ (b1 & b2) ^ kRoundConstants[i + 1];
                    a1 = b1 ^ (nb2 & b3);
                    a2 = ~(b2 ^ (b3 | b4));
                    a3 = b3 ^ (b4 & b0);
                    a4 = b4 ^ (b0 | b1);
                }
                {
                    const uint64_t b0 = rotl64(e3 ^ d3, 28);
                    const uint64_t b1 = rotl64(e9 ^ d4, 20);
                    const uint64_t b2 = rotl64(e10 ^ d0, 3);
                    const uint64_t b3 = rotl64(e16 ^ d1, 45);
                    const uint64_t b4 = rotl64(e22 ^ d2, 61);
                    const uint64_t nb3 = ~b3;
                    a5 = b0 ^ (b1 & b2);
                    a6 = b1 ^ (b2 | b3);
                    a7 = b2 ^ (nb3 | b4);
                    a8 = b3 ^ (b4 & b0);
                    a9 = b4 ^ (b0 | b1);
                }
                {
                    const uint64_t b0 = rotl64(e1 ^ d1, 1);
                    const uint64_t b1 = rotl64(e7 ^ d2, 6);
                    const uint64_t b2 = rotl64(e13 ^ d3, 25);
                    const uint64_t b3 = rotl64(e19 ^ d4, 8);
                    const uint64_t b4 = rotl64(e20 ^ d0, 18);
                    const uint64_t nb0 = ~b0;
                    a10 = b0 ^ (b1 & b2);
                    a11 = b1 ^ (b2 | b3);
                    a12 = b2 ^ (b3 & b4);
                    a13 = b3 ^ (b4 | nb0);
                    a14 = b4 ^ (b0 | b1);
                }
                {
                    const uint64_t b0 = rotl64(e4 ^ d4, 27);
                    const uint64_t b1 = rotl64(e5 ^ d0, 36);
                    const uint64_t b2 = rotl64(e11 ^ d1, 10);
                    const uint64_t b3 = rotl64(e17 ^ d2, 15);
                    const uint64_t b4 = rotl64(e23 ^ d3, 56);
                    const uint64_t nb3 = ~b3;
                    a15 = b0 ^ (b1 | b2);
                    a16 = b1 ^ (b2 & nb3);
                    a17 = b2 ^ (b3 & b4);
                    a18 = b3 ^ (b4 | b0);
                    a19 = b4 ^ (b0 & b1);
                }
                {
                    const uint64_t b0 = rotl64(e2 ^ d2, 62);
                    const uint64_t b1 = rotl64(e8 ^ d3, 55);
                    const uint64_t b2 = rotl64(e14 ^ d4, 39);
                    const uint64_t b3 = rotl64(e15 ^ d0, 41);
                    const uint64_t b4 = rotl64(e21 ^ d1, 2);
                    const uint64_t nb3 = ~b3;
                    a20 = b0 ^ (b1 & b2);
                    a21 = b1 ^ (b2 | nb3);
                    a22 = b2 ^ (b3 | b4);
                    a23 = b3 ^ (b4 & b0);
                    a24 = b4 ^ (b0 | b1);
                }
            }
        }
    }
    a1 = ~a1;
    a7 = ~a7;
    a8 = ~a8;
    a14 = ~a14;
    a17 = ~a17;
    a22 = ~a22;
    state[0] = a0;
    state[1] = a1;
    state[2] = a2;
    state[3] = a3;
    state[4] = a4;
    state[5] = a5;
    state[6] = a6;
    state[7] = a7;
    state[8] = a8;
    state[9] = a9;
    state[10] = a10;
    state[11] = a11;
    state[12] = a12;
    state[13] = a13;
    state[14] = a14;
    state[15] = a15;
    state[16] = a16;
    state[17] = a17;
    state[18] = a18;
    state[19] = a19;
    state[20] = a20;
    state[21] = a21;
    state[22] = a22;
    state[23] = a23;
    state[24] = a24;
}

void absorb(uint64_t state[25], const uint8_t* data, size_t nblocks, size_t rate) {
    sponge(state, data, nblocks, rate);
    clear_vector_registers();
    hwaccel_wipe_stack_and_scratch_registers(kWipeBytes);  // lanes in GPRs and sponge's frame
}

void permute(uint64_t state[25]) {
    sponge(state, nullptr, 1, 0);
    clear_vector_registers();
    hwaccel_wipe_stack_and_scratch_registers(kWipeBytes);
}

bool available(const CpuFeatures&) { return true; }

}  // namespace

const KeccakEngine keccak = {
    .name = "generic", .available = available, .absorb = absorb, .permute = permute};

}  // namespace hwaccel::generic
