// Keccak-f[1600] with AVX-512VL on xmm registers, one lane per register (the
// upper halves are don't-care): the 25 lanes stay in xmm0..xmm24 across all
// rounds and all blocks of one call, xmm25..xmm31 hold theta's parities and
// chi's copies. Top-level assembly like keccak_x86_bmi2.cpp: every value has
// a register fixed by hand, nothing spills, and the file needs no ISA
// compiler flags (available() guards the calls).
//
// Why this shape (measured on AMD EPYC family 1Ah, Zen 5, where vector logic
// ops and rotates have 2 cycles of latency, vpternlogq and vpxorq issue 4 a
// cycle, vprolq 2, and register moves are eliminated at rename: they cost
// neither an issue slot nor latency, measured):
//   * A round is 100 ops, 10 moves within it and 25 after it:
//       theta  15 for the column parities (vpxorq, vpternlogq 0x96, vpxorq;
//              the first op is non-destructive so no copy is needed),
//              5 vprolq + 5 vpxorq for D[x] = C[x-1] ^ rol(C[x+1], 1),
//              15 vpxorq (lane ^= D) and 10 vpternlogq (see below);
//       rho    24 vprolq, in place;
//       chi    25 vpternlogq (b0 ^ (~b1 & b2), immediate 0xd2), in place, with
//              2 moves a row (b0 and b1 are read after being overwritten);
//       iota   1 vpxorq with the round constant broadcast from memory;
//       pi     25 moves: chi writes each output lane over one of its
//              inputs, and one cycle of moves puts the lanes back.
//   * The round is bound by its theta step, not by issue: every parity needs
//     every row of the previous chi, and little else can run while C and D
//     are formed (about 30 cycles a round against 25 of issue). So the lanes
//     of chi's first two output rows take C[x-1] ^ rol(C[x+1], 1) in one
//     vpternlogq as soon as the rotated parity exists, instead of waiting
//     for D (4% faster; for the third row too: slower, those ops then crowd
//     out the D chain). The other rows use D, which needs one register a
//     column rather than two.
//   * Order matters to the scheduler (oldest first): the parities are formed
//     column-interleaved (1%), and each row's rotates come before the next
//     row's theta XORs, which come before the row's chi (2%; theta XORs of
//     the next row ahead of the rotates: 5% slower).
//   * One round per loop iteration: with moves free, unrolling (4 rounds
//     with the lane map renamed from round to round, as before; 2, 3, 6)
//     is no faster hot, and the 1-round loop is 0.9 KB, so it stays fast
//     when the code is fetched cold between small calls.
//   * The block XOR folds the load (64-bit broadcast operand), one op a lane.
//   * Squeezing (SHAKE output past the first block) runs the same loop and
//     writes each block's lanes straight from the registers.
//   * The final (finish) is one call after the whole blocks: the tail's
//     whole lanes are XORed from the buffer, the partial lane and padding
//     are XORed into the state beforehand, and the output's whole lanes go
//     straight from the registers to out: 1-4% fewer ticks per SHA3-256
//     call through EVP at 64 and 256 bytes (SHAKE128 0.5-3%) than a C
//     padding loop, a bare permute call and a copy (medians of interleaved
//     runs; a second engine call costs about 20 ticks).
//   * On return the vector registers are cleared: they held the state.
//   * Tried and rejected: the same ops from intrinsics (GCC spills and adds
//     copies: 10% slower than x86-bmi2); parities as a move and two
//     vpternlogq (fewer ops, yet 2-4% slower); one vpternlogq per lane for
//     theta everywhere (needs two registers a column: there are not enough).
//   * Also tried and rejected (the permutation alone, each variant against this
//     one in the same process, 120 blocks a call; this round is 28 cycles
//     at about 3.2 GHz; the round's chain is 15 cycles and its issue 25):
//     one vpternlogq per lane for theta, done one column at a time with
//     the rotated parity made just in time (90 ops, all theta before any
//     chi): 15% slower;
//     fully unrolled, pi by renaming alone (no moves, 17 KB): 10% slower;
//     (2, 3, 4, 6 rounds per iteration with the lanes moved back after them:
//     the same speed, as above: moves are not the limit);
//     reordering found by a random search (hundreds of legal moves of
//     instructions, each timed): nothing beyond noise (0.5%); a
//     critical-path-first list schedule: 8% slower;
//     vpshufb (memory mask) for the byte rotates 8 and 56: the same speed;
//     a rho rotate as two shifts and an XOR (the shifts issue on other
//     pipes than vprolq): 2% slower for each rotate converted;
//     the state as five zmm rows (the CRYPTOGAMS keccak1600-avx512 round,
//     permutes and blends, two rounds an iteration): 17% slower (8% on
//     single blocks). Timing-only probes bound what is left: with iota
//     dropped the round is 1% faster, with theta's 5 rotates made XORs 5%,
//     with all 29 rotates made XORs 9%.
//     The absorb ladder (a compare per lane) costs nothing measurable
//     against straight-line XORs of a fixed rate.
//   * Tried and rejected in 2026-12 (same harness, Zen 5): the parities
//     accumulated during chi instead of formed at the top of the round
//     (row 0's outputs copied into five accumulators, rows 1+2 and 3+4
//     folded in with one vpternlogq each: 95 ops): 5% slower, since the
//     round's tail after the last chi row is still one op (three cycles
//     for vpternlogq through a source operand, against two for the
//     vpxorq that closes the parity here); with the theta of every lane
//     as one vpternlogq as well (90 ops): 23% slower. A timing-only probe
//     that takes the parities from row 0 alone (wrong result, but no wait
//     for the round's last rows) is 24% faster: the cost is the round
//     boundary, where nothing of the next round can start, not issue.
//     vpmultishiftqb as a rotate, and vpshufb, share vprolq's two pipes.
// The round's text was generated with a small bookkeeping script (not part
// of the build) and checked against a plain C Keccak-f[1600]. Measure with
// `build/tools/hwaccel-engine-bench sha3` (engine level) and
// `scripts/bench.py --evp --alg sha3-256` (through the provider).

#include "x86/x86_engines.hpp"

#include <cstring>

#include "hwaccel/algorithm_facts.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/wipe_stack.hpp"

#if !defined(__x86_64__) || !defined(__ELF__) || defined(_WIN32)
#error "keccak_x86_avx512.cpp is written for x86-64 ELF targets (System V ABI)"
#endif

// The assembly routine below; rate and out_width are multiples of 8 up to
// 168, nblocks >= 1. For each block: with data non-null, XOR rate / 8 lanes
// of data into the state (none if rate is 0), as
// hwaccel_keccak_x86_bmi2_sponge does; then permute; then, with out
// non-null, write out_width / 8 lanes to out (out_width >= 8). Absorbing
// and squeezing in one call (data and out both given: the final, nblocks 1)
// keeps the state in registers from the last block to the output. The state
// stays in registers between blocks either way.
extern "C" __attribute__((visibility("hidden"))) void hwaccel_keccak_x86_avx512_sponge(
    uint64_t state[25], const uint8_t* data, size_t nblocks, size_t rate, uint8_t* out,
    size_t out_width);

// Registers: rdi state, rsi data, rdx blocks left, rcx rate, r8 output, r9
// output width, rax the current round's constant, r10 the end of the
// constants.
asm(R"ASM(
.intel_syntax noprefix

.pushsection .text
.p2align 6
.globl hwaccel_keccak_x86_avx512_sponge
.hidden hwaccel_keccak_x86_avx512_sponge
.type hwaccel_keccak_x86_avx512_sponge, @function
hwaccel_keccak_x86_avx512_sponge:
  .cfi_startproc
  endbr64
  vmovq xmm0, qword ptr [rdi + 0]
  vmovq xmm1, qword ptr [rdi + 8]
  vmovq xmm2, qword ptr [rdi + 16]
  vmovq xmm3, qword ptr [rdi + 24]
  vmovq xmm4, qword ptr [rdi + 32]
  vmovq xmm5, qword ptr [rdi + 40]
  vmovq xmm6, qword ptr [rdi + 48]
  vmovq xmm7, qword ptr [rdi + 56]
  vmovq xmm8, qword ptr [rdi + 64]
  vmovq xmm9, qword ptr [rdi + 72]
  vmovq xmm10, qword ptr [rdi + 80]
  vmovq xmm11, qword ptr [rdi + 88]
  vmovq xmm12, qword ptr [rdi + 96]
  vmovq xmm13, qword ptr [rdi + 104]
  vmovq xmm14, qword ptr [rdi + 112]
  vmovq xmm15, qword ptr [rdi + 120]
  vmovq xmm16, qword ptr [rdi + 128]
  vmovq xmm17, qword ptr [rdi + 136]
  vmovq xmm18, qword ptr [rdi + 144]
  vmovq xmm19, qword ptr [rdi + 152]
  vmovq xmm20, qword ptr [rdi + 160]
  vmovq xmm21, qword ptr [rdi + 168]
  vmovq xmm22, qword ptr [rdi + 176]
  vmovq xmm23, qword ptr [rdi + 184]
  vmovq xmm24, qword ptr [rdi + 192]
.Lhwk5_block:
  // Absorbing: XOR the block's rate/8 lanes into the state.
  test rsi, rsi
  jz .Lhwk5_permute
  test rcx, rcx
  jz .Lhwk5_permute
  vpxorq xmm0, xmm0, qword ptr [rsi + 0]{1to2}
  cmp rcx, 8
  jbe .Lhwk5_absorbed
  vpxorq xmm1, xmm1, qword ptr [rsi + 8]{1to2}
  cmp rcx, 16
  jbe .Lhwk5_absorbed
  vpxorq xmm2, xmm2, qword ptr [rsi + 16]{1to2}
  cmp rcx, 24
  jbe .Lhwk5_absorbed
  vpxorq xmm3, xmm3, qword ptr [rsi + 24]{1to2}
  cmp rcx, 32
  jbe .Lhwk5_absorbed
  vpxorq xmm4, xmm4, qword ptr [rsi + 32]{1to2}
  cmp rcx, 40
  jbe .Lhwk5_absorbed
  vpxorq xmm5, xmm5, qword ptr [rsi + 40]{1to2}
  cmp rcx, 48
  jbe .Lhwk5_absorbed
  vpxorq xmm6, xmm6, qword ptr [rsi + 48]{1to2}
  cmp rcx, 56
  jbe .Lhwk5_absorbed
  vpxorq xmm7, xmm7, qword ptr [rsi + 56]{1to2}
  cmp rcx, 64
  jbe .Lhwk5_absorbed
  vpxorq xmm8, xmm8, qword ptr [rsi + 64]{1to2}
  cmp rcx, 72
  jbe .Lhwk5_absorbed
  vpxorq xmm9, xmm9, qword ptr [rsi + 72]{1to2}
  cmp rcx, 80
  jbe .Lhwk5_absorbed
  vpxorq xmm10, xmm10, qword ptr [rsi + 80]{1to2}
  cmp rcx, 88
  jbe .Lhwk5_absorbed
  vpxorq xmm11, xmm11, qword ptr [rsi + 88]{1to2}
  cmp rcx, 96
  jbe .Lhwk5_absorbed
  vpxorq xmm12, xmm12, qword ptr [rsi + 96]{1to2}
  cmp rcx, 104
  jbe .Lhwk5_absorbed
  vpxorq xmm13, xmm13, qword ptr [rsi + 104]{1to2}
  cmp rcx, 112
  jbe .Lhwk5_absorbed
  vpxorq xmm14, xmm14, qword ptr [rsi + 112]{1to2}
  cmp rcx, 120
  jbe .Lhwk5_absorbed
  vpxorq xmm15, xmm15, qword ptr [rsi + 120]{1to2}
  cmp rcx, 128
  jbe .Lhwk5_absorbed
  vpxorq xmm16, xmm16, qword ptr [rsi + 128]{1to2}
  cmp rcx, 136
  jbe .Lhwk5_absorbed
  vpxorq xmm17, xmm17, qword ptr [rsi + 136]{1to2}
  cmp rcx, 144
  jbe .Lhwk5_absorbed
  vpxorq xmm18, xmm18, qword ptr [rsi + 144]{1to2}
  cmp rcx, 152
  jbe .Lhwk5_absorbed
  vpxorq xmm19, xmm19, qword ptr [rsi + 152]{1to2}
  cmp rcx, 160
  jbe .Lhwk5_absorbed
  vpxorq xmm20, xmm20, qword ptr [rsi + 160]{1to2}
.Lhwk5_absorbed:
  add rsi, rcx
.Lhwk5_permute:
  lea rax, [rip + .Lhwk5_rc]
  lea r10, [rax + 192]
.p2align 6
.Lhwk5_rounds:
  // theta: column parities C[x] = A[x,0] ^ .. ^ A[x,4] in xmm25..xmm29, the
  // five columns side by side (the first op is non-destructive: no copy)
  vpxorq xmm25, xmm0, xmm5
  vpxorq xmm26, xmm1, xmm6
  vpxorq xmm27, xmm2, xmm7
  vpxorq xmm28, xmm3, xmm8
  vpxorq xmm29, xmm4, xmm9
  vpternlogq xmm25, xmm10, xmm15, 0x96
  vpternlogq xmm26, xmm11, xmm16, 0x96
  vpternlogq xmm27, xmm12, xmm17, 0x96
  vpternlogq xmm28, xmm13, xmm18, 0x96
  vpternlogq xmm29, xmm14, xmm19, 0x96
  vpxorq xmm25, xmm25, xmm20
  vpxorq xmm26, xmm26, xmm21
  vpxorq xmm27, xmm27, xmm22
  vpxorq xmm28, xmm28, xmm23
  vpxorq xmm29, xmm29, xmm24
  // theta: D[x] = C[x-1] ^ rol(C[x+1], 1), each into the register of a parity
  // whose last use it is: D0 xmm31, D1 xmm25, D2 xmm26, D3 xmm27, D4 xmm28.
  // The lanes of chi's first two output rows take C[x-1] ^ rol(C[x+1], 1)
  // directly (one vpternlogq, as soon as the rotated parity exists), so
  // those rows need not wait for D.
  vprolq xmm30, xmm26, 1
  vpternlogq xmm0, xmm29, xmm30, 0x96
  vpternlogq xmm10, xmm29, xmm30, 0x96
  vpxorq xmm31, xmm29, xmm30
  vprolq xmm30, xmm28, 1
  vpternlogq xmm12, xmm26, xmm30, 0x96
  vpternlogq xmm22, xmm26, xmm30, 0x96
  vpxorq xmm26, xmm26, xmm30
  vprolq xmm30, xmm25, 1
  vpternlogq xmm9, xmm28, xmm30, 0x96
  vpternlogq xmm24, xmm28, xmm30, 0x96
  vpxorq xmm28, xmm28, xmm30
  vprolq xmm30, xmm27, 1
  vpternlogq xmm6, xmm25, xmm30, 0x96
  vpternlogq xmm16, xmm25, xmm30, 0x96
  vpxorq xmm25, xmm25, xmm30
  vprolq xmm30, xmm29, 1
  vpternlogq xmm3, xmm27, xmm30, 0x96
  vpternlogq xmm18, xmm27, xmm30, 0x96
  vpxorq xmm27, xmm27, xmm30
  // Then output row by row (lane y of the row comes from the lane that pi
  // moves there): rho in place, chi in place (two copies a row: b0 and b1
  // are read after being overwritten), with the next row's theta XORs
  // issued between the rotates and chi. Row 0 carries iota.
  vprolq xmm6, xmm6, 44
  vprolq xmm12, xmm12, 43
  vprolq xmm18, xmm18, 21
  vprolq xmm24, xmm24, 14
  vmovdqa64 xmm29, xmm0
  // pi: chi wrote each output lane over one of its inputs; one cycle of
  // moves puts every lane back in its own register (xmm30 as the spare).
  vmovdqa64 xmm30, xmm6
  vpternlogq xmm0, xmm6, xmm12, 0xd2
  vpxorq xmm0, xmm0, qword ptr [rax]{1to2}
  vpternlogq xmm6, xmm12, xmm18, 0xd2
  vpternlogq xmm12, xmm18, xmm24, 0xd2
  vpternlogq xmm18, xmm24, xmm29, 0xd2
  vpternlogq xmm24, xmm29, xmm30, 0xd2
  vprolq xmm3, xmm3, 28
  vprolq xmm9, xmm9, 20
  vprolq xmm10, xmm10, 3
  vprolq xmm16, xmm16, 45
  vprolq xmm22, xmm22, 61
  vpxorq xmm1, xmm1, xmm25
  vpxorq xmm7, xmm7, xmm26
  vpxorq xmm13, xmm13, xmm27
  vpxorq xmm19, xmm19, xmm28
  vpxorq xmm20, xmm20, xmm31
  vmovdqa64 xmm29, xmm3
  vmovdqa64 xmm30, xmm9
  vpternlogq xmm3, xmm9, xmm10, 0xd2
  vpternlogq xmm9, xmm10, xmm16, 0xd2
  vpternlogq xmm10, xmm16, xmm22, 0xd2
  vpternlogq xmm16, xmm22, xmm29, 0xd2
  vpternlogq xmm22, xmm29, xmm30, 0xd2
  vprolq xmm1, xmm1, 1
  vprolq xmm7, xmm7, 6
  vprolq xmm13, xmm13, 25
  vprolq xmm19, xmm19, 8
  vprolq xmm20, xmm20, 18
  vpxorq xmm4, xmm4, xmm28
  vpxorq xmm5, xmm5, xmm31
  vpxorq xmm11, xmm11, xmm25
  vpxorq xmm17, xmm17, xmm26
  vpxorq xmm23, xmm23, xmm27
  vmovdqa64 xmm29, xmm1
  vmovdqa64 xmm30, xmm7
  vpternlogq xmm1, xmm7, xmm13, 0xd2
  vpternlogq xmm7, xmm13, xmm19, 0xd2
  vpternlogq xmm13, xmm19, xmm20, 0xd2
  vpternlogq xmm19, xmm20, xmm29, 0xd2
  vpternlogq xmm20, xmm29, xmm30, 0xd2
  vprolq xmm4, xmm4, 27
  vprolq xmm5, xmm5, 36
  vprolq xmm11, xmm11, 10
  vprolq xmm17, xmm17, 15
  vprolq xmm23, xmm23, 56
  vpxorq xmm2, xmm2, xmm26
  vpxorq xmm8, xmm8, xmm27
  vpxorq xmm14, xmm14, xmm28
  vpxorq xmm15, xmm15, xmm31
  vpxorq xmm21, xmm21, xmm25
  vmovdqa64 xmm29, xmm4
  vmovdqa64 xmm30, xmm5
  vpternlogq xmm4, xmm5, xmm11, 0xd2
  vpternlogq xmm5, xmm11, xmm17, 0xd2
  vpternlogq xmm11, xmm17, xmm23, 0xd2
  vpternlogq xmm17, xmm23, xmm29, 0xd2
  vpternlogq xmm23, xmm29, xmm30, 0xd2
  vprolq xmm2, xmm2, 62
  vprolq xmm8, xmm8, 55
  vprolq xmm14, xmm14, 39
  vprolq xmm15, xmm15, 41
  vprolq xmm21, xmm21, 2
  vmovdqa64 xmm29, xmm2
  vmovdqa64 xmm30, xmm8
  vpternlogq xmm2, xmm8, xmm14, 0xd2
  vpternlogq xmm8, xmm14, xmm15, 0xd2
  vpternlogq xmm14, xmm15, xmm21, 0xd2
  vpternlogq xmm15, xmm21, xmm29, 0xd2
  vpternlogq xmm21, xmm29, xmm30, 0xd2
  vmovdqa64 xmm30, xmm6
  vmovdqa64 xmm6, xmm9
  vmovdqa64 xmm9, xmm22
  vmovdqa64 xmm22, xmm14
  vmovdqa64 xmm14, xmm20
  vmovdqa64 xmm20, xmm2
  vmovdqa64 xmm2, xmm12
  vmovdqa64 xmm12, xmm13
  vmovdqa64 xmm13, xmm19
  vmovdqa64 xmm19, xmm23
  vmovdqa64 xmm23, xmm15
  vmovdqa64 xmm15, xmm4
  vmovdqa64 xmm4, xmm24
  vmovdqa64 xmm24, xmm21
  vmovdqa64 xmm21, xmm8
  vmovdqa64 xmm8, xmm16
  vmovdqa64 xmm16, xmm5
  vmovdqa64 xmm5, xmm3
  vmovdqa64 xmm3, xmm18
  vmovdqa64 xmm18, xmm17
  vmovdqa64 xmm17, xmm11
  vmovdqa64 xmm11, xmm7
  vmovdqa64 xmm7, xmm10
  vmovdqa64 xmm10, xmm1
  vmovdqa64 xmm1, xmm30
  add rax, 8
  cmp rax, r10
  jne .Lhwk5_rounds
  // Squeezing: the block's out_width/8 lanes to out.
  test r8, r8
  jz .Lhwk5_next
  vmovq qword ptr [r8 + 0], xmm0
  cmp r9, 8
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 8], xmm1
  cmp r9, 16
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 16], xmm2
  cmp r9, 24
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 24], xmm3
  cmp r9, 32
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 32], xmm4
  cmp r9, 40
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 40], xmm5
  cmp r9, 48
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 48], xmm6
  cmp r9, 56
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 56], xmm7
  cmp r9, 64
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 64], xmm8
  cmp r9, 72
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 72], xmm9
  cmp r9, 80
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 80], xmm10
  cmp r9, 88
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 88], xmm11
  cmp r9, 96
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 96], xmm12
  cmp r9, 104
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 104], xmm13
  cmp r9, 112
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 112], xmm14
  cmp r9, 120
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 120], xmm15
  cmp r9, 128
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 128], xmm16
  cmp r9, 136
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 136], xmm17
  cmp r9, 144
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 144], xmm18
  cmp r9, 152
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 152], xmm19
  cmp r9, 160
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 160], xmm20
.Lhwk5_squeezed:
  add r8, r9
.Lhwk5_next:
  sub rdx, 1
  jnz .Lhwk5_block
  vmovq qword ptr [rdi + 0], xmm0
  vmovq qword ptr [rdi + 8], xmm1
  vmovq qword ptr [rdi + 16], xmm2
  vmovq qword ptr [rdi + 24], xmm3
  vmovq qword ptr [rdi + 32], xmm4
  vmovq qword ptr [rdi + 40], xmm5
  vmovq qword ptr [rdi + 48], xmm6
  vmovq qword ptr [rdi + 56], xmm7
  vmovq qword ptr [rdi + 64], xmm8
  vmovq qword ptr [rdi + 72], xmm9
  vmovq qword ptr [rdi + 80], xmm10
  vmovq qword ptr [rdi + 88], xmm11
  vmovq qword ptr [rdi + 96], xmm12
  vmovq qword ptr [rdi + 104], xmm13
  vmovq qword ptr [rdi + 112], xmm14
  vmovq qword ptr [rdi + 120], xmm15
  vmovq qword ptr [rdi + 128], xmm16
  vmovq qword ptr [rdi + 136], xmm17
  vmovq qword ptr [rdi + 144], xmm18
  vmovq qword ptr [rdi + 152], xmm19
  vmovq qword ptr [rdi + 160], xmm20
  vmovq qword ptr [rdi + 168], xmm21
  vmovq qword ptr [rdi + 176], xmm22
  vmovq qword ptr [rdi + 184], xmm23
  vmovq qword ptr [rdi + 192], xmm24
  // The registers held the state: clear them (vzeroall: xmm0..xmm15).
  vzeroall
  vpxorq xmm16, xmm16, xmm16
  vpxorq xmm17, xmm17, xmm17
  vpxorq xmm18, xmm18, xmm18
  vpxorq xmm19, xmm19, xmm19
  vpxorq xmm20, xmm20, xmm20
  vpxorq xmm21, xmm21, xmm21
  vpxorq xmm22, xmm22, xmm22
  vpxorq xmm23, xmm23, xmm23
  vpxorq xmm24, xmm24, xmm24
  vpxorq xmm25, xmm25, xmm25
  vpxorq xmm26, xmm26, xmm26
  vpxorq xmm27, xmm27, xmm27
  vpxorq xmm28, xmm28, xmm28
  vpxorq xmm29, xmm29, xmm29
  vpxorq xmm30, xmm30, xmm30
  vpxorq xmm31, xmm31, xmm31
  ret
  .cfi_endproc
.size hwaccel_keccak_x86_avx512_sponge, . - hwaccel_keccak_x86_avx512_sponge
.popsection

// Iota's round constants RC[0..23] (FIPS 202, section 3.2.5).
.pushsection .rodata
.p2align 6
.Lhwk5_rc:
  .quad 0x0000000000000001, 0x0000000000008082
  .quad 0x800000000000808a, 0x8000000080008000
  .quad 0x000000000000808b, 0x0000000080000001
  .quad 0x8000000080008081, 0x8000000000008009
  .quad 0x000000000000008a, 0x0000000000000088
  .quad 0x0000000080008009, 0x000000008000000a
  .quad 0x000000008000808b, 0x800000000000008b
  .quad 0x8000000000008089, 0x8000000000008003
  .quad 0x8000000000008002, 0x8000000000000080
  .quad 0x000000000000800a, 0x800000008000000a
  .quad 0x8000000080008081, 0x8000000000008080
  .quad 0x0000000080000001, 0x8000000080008008
.popsection

.att_syntax prefix
)ASM");

namespace hwaccel::x86 {
namespace {

void absorb(uint64_t state[25], const uint8_t* data, size_t nblocks, size_t rate) {
    if (nblocks != 0) hwaccel_keccak_x86_avx512_sponge(state, data, nblocks, rate, nullptr, 0);
}

void permute(uint64_t state[25]) {
    hwaccel_keccak_x86_avx512_sponge(state, nullptr, 1, 0, nullptr, 0);
}

// Whole output blocks straight from the registers, the last partial one from
// the state (byte i is byte i % 8 of lane i / 8: x86 is little-endian).
bool squeeze(uint64_t state[25], uint8_t* out, size_t out_len, size_t rate) {
    if (size_t whole = out_len / rate) {
        hwaccel_keccak_x86_avx512_sponge(state, nullptr, whole, rate, out, rate);
        out += whole * rate;
        out_len -= whole * rate;
    }
    if (out_len != 0) {
        permute(state);
        std::memcpy(out, state, out_len);
    }
    return true;
}

// The final in as few calls as possible: whole blocks of data in one call;
// the tail's partial lane and the padding XORed into the state here; then
// one call XORs the tail's whole lanes, permutes and writes the output's
// whole lanes from the registers (the padded block never goes through a
// buffer, and the state is loaded and cleared once for the final rather
// than once for a separate permute). Longer output goes on as squeeze().
bool finish(uint64_t state[25], const uint8_t* data, size_t len, size_t rate, uint8_t pad,
            uint8_t* out, size_t out_len) {
    // (The sponge passes less than a block: a compare, not a division.)
    if (size_t whole = len < rate ? 0 : len / rate) {
        hwaccel_keccak_x86_avx512_sponge(state, data, whole, rate, nullptr, 0);
        data += whole * rate;
        len -= whole * rate;
    }
    const size_t lanes_bytes = len & ~size_t{7};
    uint64_t last = uint64_t{pad} << (8 * (len - lanes_bytes));
    for (size_t i = lanes_bytes; i < len; ++i) last ^= uint64_t{data[i]} << (8 * (i - lanes_bytes));
    state[lanes_bytes / 8] ^= last;
    state[rate / 8 - 1] ^= uint64_t{kKeccakFinalBit} << 56;
    // The tail's bytes went through GPRs (`last` and the loop's temporaries:
    // GCC 12 with Fedora's package flags left one in r11, scripts/flags-matrix.sh):
    // zero the caller-saved ones here, after their last use (a call, so
    // nothing live stays in them across it; no stack to wipe).
    hwaccel_wipe_stack_and_scratch_registers(0);

    const size_t first = out_len < rate ? out_len : rate;
    const size_t first_lanes = first & ~size_t{7};
    hwaccel_keccak_x86_avx512_sponge(state, data, 1, lanes_bytes, first_lanes != 0 ? out : nullptr,
                                     first_lanes);
    if (first != first_lanes)
        std::memcpy(out + first_lanes, reinterpret_cast<const uint8_t*>(state) + first_lanes,
                    first - first_lanes);
    if (out_len > first) squeeze(state, out + first, out_len - first, rate);
    return true;
}

// vpternlogq, vprolq and the 64-bit broadcast operand on xmm registers
// (and xmm16..xmm31) are AVX-512F with AVX-512VL; nothing else is used.
bool available(const CpuFeatures& cpu) { return cpu.avx512f && cpu.avx512vl; }

}  // namespace

const KeccakEngine keccak_x86_avx512 = {
    .name = "x86-avx512",
    .available = available,
    .absorb = absorb,
    .permute = permute,
    .finish = finish,
    .squeeze = squeeze};

}  // namespace hwaccel::x86
