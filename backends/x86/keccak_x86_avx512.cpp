// Keccak-f[1600] with AVX-512VL on xmm registers, one lane per register (the
// upper halves are don't-care): the 25 lanes stay in xmm0..xmm24 across all
// rounds and all blocks of one call, xmm25..xmm31 hold theta's parities and
// chi's copies. Top-level assembly like keccak_x86_bmi2.cpp: every value has
// a register fixed by hand, nothing spills, and the file needs no ISA
// compiler flags (available() guards the calls).
//
// Why this shape (measured on AMD EPYC family 1Ah, Zen 5, where vector logic
// ops and rotates have 2 cycles of latency, vpternlogq and vpxorq issue 4 a
// cycle, vprolq 2, and a register move takes an issue slot like an op):
//   * A round is 100 ops and 10 moves, each one instruction:
//       theta  15 (column parities: vpxorq, vpternlogq 0x96, vpxorq; the
//              first op is non-destructive so no copy is needed),
//              5 vprolq + 5 vpxorq (D[x] = C[x-1] ^ rol(C[x+1], 1)), 25 vpxorq;
//       rho    24 vprolq, in place;
//       chi    25 vpternlogq (b0 ^ (~b1 & b2), immediate 0xd2), in place, with
//              2 moves a row (b0 and b1 are read after being overwritten);
//       iota   1 vpxorq with the round constant broadcast from memory.
//     Forming D and XORing it in beat one vpternlogq per lane with the parity
//     and the rotated parity (2-input ops issue better than 3-input ones);
//     computing the parities without a move beat move + 2 vpternlogq (4%).
//     The scalar x86-bmi2 engine needs 130 integer ops a round.
//   * pi costs nothing: chi writes each output lane over one of its inputs,
//     so pi only renames registers. The map of lane to register therefore
//     changes every round and repeats after 24 (pi is one 24-cycle on lanes
//     1..24). Unrolling all 24 rounds (18 KB) was fastest with the code hot
//     but lost at 16 bytes, where the benchmark alternates with OpenSSL's
//     code (the code is then fetched cold: 672 against 399 ticks a block,
//     measured after evicting the caches). 4 rounds per iteration plus 28
//     moves that put the lanes back (4.2 KB) keep the hot speed and win at
//     every size, also when OpenSSL's and libgcrypt's code run in between
//     (6 rounds, 5.6 KB: same alone, 3-7% slower at 16-256 B then; 3
//     rounds: 2% slower at 256 B; 12: slower at 256 B).
//   * Within a round, each output row's theta XORs, rotates and chi follow
//     one another, rather than all theta then all rho: 9% faster, since the
//     scheduler then finds rows ready early (the round is latency-heavy).
//   * The block XOR folds the load (64-bit broadcast operand), one op a lane.
//   * Squeezing (SHAKE output past the first block) runs the same loop and
//     writes each block's lanes straight from the registers.
//   * On return the vector registers are cleared: they held the state.
//   * Tried and rejected: the same ops from intrinsics (GCC spills and adds
//     copies: 10% slower than x86-bmi2); a fixed lane map with pi as a walk
//     along its cycle (one spare register, one round per loop: 15% slower
//     than x86-bmi2, rows wait for the walk); one vpternlogq per lane for
//     theta instead of D (see above).
// The round macro's text and the lane maps were generated with a small
// bookkeeping script (not part of the build). Measure with
// `build/tools/hwaccel-engine-bench sha3` (engine level) and
// `scripts/bench.py --evp --alg sha3-256` (through the provider).

#include "x86/x86_engines.hpp"

#include <cstring>

#include "hwaccel/cpu.hpp"

#if !defined(__x86_64__) || !defined(__ELF__) || defined(_WIN32)
#error "keccak_x86_avx512.cpp is written for x86-64 ELF targets (System V ABI)"
#endif

// The assembly routine below; rate is a multiple of 8 up to 168, nblocks >= 1.
// With out null it absorbs as hwaccel_keccak_x86_bmi2_sponge does: for each
// block, XOR rate / 8 lanes of data into the state (none if rate is 0), then
// permute. With out non-null it squeezes: for each block, permute, then write
// rate / 8 lanes to out (data unused). The state stays in registers between
// blocks either way.
extern "C" __attribute__((visibility("hidden"))) void hwaccel_keccak_x86_avx512_sponge(
    uint64_t state[25], const uint8_t* data, size_t nblocks, size_t rate, uint8_t* out);

// Registers: rdi state, rsi data, rdx blocks left, rcx rate, r8 output, rax
// the round constants of the current iteration, r10 their end.
asm(R"ASM(
.intel_syntax noprefix

// One round, rc its index within the iteration (rax points at the
// iteration's first round constant). Lane p of the state is in xmm m<p> at
// its start; each output lane is written over one of its chi inputs, so the
// next round's map is m'[p] = m[pi^-1(p)] (see the invocations below).
.macro HWK_ROUND rc, m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15, m16, m17, m18, m19, m20, m21, m22, m23, m24
  // theta: column parities C[x] in xmm25..xmm29
  vpxorq xmm25, xmm\m0, xmm\m5
  vpternlogq xmm25, xmm\m10, xmm\m15, 0x96
  vpxorq xmm25, xmm25, xmm\m20
  vpxorq xmm26, xmm\m1, xmm\m6
  vpternlogq xmm26, xmm\m11, xmm\m16, 0x96
  vpxorq xmm26, xmm26, xmm\m21
  vpxorq xmm27, xmm\m2, xmm\m7
  vpternlogq xmm27, xmm\m12, xmm\m17, 0x96
  vpxorq xmm27, xmm27, xmm\m22
  vpxorq xmm28, xmm\m3, xmm\m8
  vpternlogq xmm28, xmm\m13, xmm\m18, 0x96
  vpxorq xmm28, xmm28, xmm\m23
  vpxorq xmm29, xmm\m4, xmm\m9
  vpternlogq xmm29, xmm\m14, xmm\m19, 0x96
  vpxorq xmm29, xmm29, xmm\m24
  // theta: D[x] = C[x-1] ^ rol(C[x+1], 1), each into the register of a parity
  // whose last use it is: D0 xmm31, D1 xmm25, D2 xmm26, D3 xmm27, D4 xmm28
  vprolq xmm30, xmm26, 1
  vpxorq xmm31, xmm29, xmm30
  vprolq xmm30, xmm28, 1
  vpxorq xmm26, xmm26, xmm30
  vprolq xmm30, xmm25, 1
  vpxorq xmm28, xmm28, xmm30
  vprolq xmm30, xmm27, 1
  vpxorq xmm25, xmm25, xmm30
  vprolq xmm30, xmm29, 1
  vpxorq xmm27, xmm27, xmm30
  // then, output row by row: theta's XOR, rho in place, chi in place
  vpxorq xmm\m0, xmm\m0, xmm31
  vpxorq xmm\m6, xmm\m6, xmm25
  vpxorq xmm\m12, xmm\m12, xmm26
  vpxorq xmm\m18, xmm\m18, xmm27
  vpxorq xmm\m24, xmm\m24, xmm28
  vprolq xmm\m6, xmm\m6, 44
  vprolq xmm\m12, xmm\m12, 43
  vprolq xmm\m18, xmm\m18, 21
  vprolq xmm\m24, xmm\m24, 14
  vmovdqa64 xmm29, xmm\m0
  vmovdqa64 xmm30, xmm\m6
  vpternlogq xmm\m0, xmm\m6, xmm\m12, 0xd2
  vpxorq xmm\m0, xmm\m0, qword ptr [rax + 8 * \rc]{1to2}
  vpternlogq xmm\m6, xmm\m12, xmm\m18, 0xd2
  vpternlogq xmm\m12, xmm\m18, xmm\m24, 0xd2
  vpternlogq xmm\m18, xmm\m24, xmm29, 0xd2
  vpternlogq xmm\m24, xmm29, xmm30, 0xd2
  vpxorq xmm\m3, xmm\m3, xmm27
  vpxorq xmm\m9, xmm\m9, xmm28
  vpxorq xmm\m10, xmm\m10, xmm31
  vpxorq xmm\m16, xmm\m16, xmm25
  vpxorq xmm\m22, xmm\m22, xmm26
  vprolq xmm\m3, xmm\m3, 28
  vprolq xmm\m9, xmm\m9, 20
  vprolq xmm\m10, xmm\m10, 3
  vprolq xmm\m16, xmm\m16, 45
  vprolq xmm\m22, xmm\m22, 61
  vmovdqa64 xmm29, xmm\m3
  vmovdqa64 xmm30, xmm\m9
  vpternlogq xmm\m3, xmm\m9, xmm\m10, 0xd2
  vpternlogq xmm\m9, xmm\m10, xmm\m16, 0xd2
  vpternlogq xmm\m10, xmm\m16, xmm\m22, 0xd2
  vpternlogq xmm\m16, xmm\m22, xmm29, 0xd2
  vpternlogq xmm\m22, xmm29, xmm30, 0xd2
  vpxorq xmm\m1, xmm\m1, xmm25
  vpxorq xmm\m7, xmm\m7, xmm26
  vpxorq xmm\m13, xmm\m13, xmm27
  vpxorq xmm\m19, xmm\m19, xmm28
  vpxorq xmm\m20, xmm\m20, xmm31
  vprolq xmm\m1, xmm\m1, 1
  vprolq xmm\m7, xmm\m7, 6
  vprolq xmm\m13, xmm\m13, 25
  vprolq xmm\m19, xmm\m19, 8
  vprolq xmm\m20, xmm\m20, 18
  vmovdqa64 xmm29, xmm\m1
  vmovdqa64 xmm30, xmm\m7
  vpternlogq xmm\m1, xmm\m7, xmm\m13, 0xd2
  vpternlogq xmm\m7, xmm\m13, xmm\m19, 0xd2
  vpternlogq xmm\m13, xmm\m19, xmm\m20, 0xd2
  vpternlogq xmm\m19, xmm\m20, xmm29, 0xd2
  vpternlogq xmm\m20, xmm29, xmm30, 0xd2
  vpxorq xmm\m4, xmm\m4, xmm28
  vpxorq xmm\m5, xmm\m5, xmm31
  vpxorq xmm\m11, xmm\m11, xmm25
  vpxorq xmm\m17, xmm\m17, xmm26
  vpxorq xmm\m23, xmm\m23, xmm27
  vprolq xmm\m4, xmm\m4, 27
  vprolq xmm\m5, xmm\m5, 36
  vprolq xmm\m11, xmm\m11, 10
  vprolq xmm\m17, xmm\m17, 15
  vprolq xmm\m23, xmm\m23, 56
  vmovdqa64 xmm29, xmm\m4
  vmovdqa64 xmm30, xmm\m5
  vpternlogq xmm\m4, xmm\m5, xmm\m11, 0xd2
  vpternlogq xmm\m5, xmm\m11, xmm\m17, 0xd2
  vpternlogq xmm\m11, xmm\m17, xmm\m23, 0xd2
  vpternlogq xmm\m17, xmm\m23, xmm29, 0xd2
  vpternlogq xmm\m23, xmm29, xmm30, 0xd2
  vpxorq xmm\m2, xmm\m2, xmm26
  vpxorq xmm\m8, xmm\m8, xmm27
  vpxorq xmm\m14, xmm\m14, xmm28
  vpxorq xmm\m15, xmm\m15, xmm31
  vpxorq xmm\m21, xmm\m21, xmm25
  vprolq xmm\m2, xmm\m2, 62
  vprolq xmm\m8, xmm\m8, 55
  vprolq xmm\m14, xmm\m14, 39
  vprolq xmm\m15, xmm\m15, 41
  vprolq xmm\m21, xmm\m21, 2
  vmovdqa64 xmm29, xmm\m2
  vmovdqa64 xmm30, xmm\m8
  vpternlogq xmm\m2, xmm\m8, xmm\m14, 0xd2
  vpternlogq xmm\m8, xmm\m14, xmm\m15, 0xd2
  vpternlogq xmm\m14, xmm\m15, xmm\m21, 0xd2
  vpternlogq xmm\m15, xmm\m21, xmm29, 0xd2
  vpternlogq xmm\m21, xmm29, xmm30, 0xd2
.endm

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
  test r8, r8
  jnz .Lhwk5_permute
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
  // Four rounds, then the lanes go back to xmm0..xmm24 (one cycle of moves
  // per cycle of the map, xmm30 as the spare).
  HWK_ROUND 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24
  HWK_ROUND 1, 0, 6, 12, 18, 24, 3, 9, 10, 16, 22, 1, 7, 13, 19, 20, 4, 5, 11, 17, 23, 2, 8, 14, 15, 21
  HWK_ROUND 2, 0, 9, 13, 17, 21, 18, 22, 1, 5, 14, 6, 10, 19, 23, 2, 24, 3, 7, 11, 15, 12, 16, 20, 4, 8
  HWK_ROUND 3, 0, 22, 19, 11, 8, 17, 14, 6, 3, 20, 9, 1, 23, 15, 12, 21, 18, 10, 7, 4, 13, 5, 2, 24, 16
  vmovdqa64 xmm30, xmm1
  vmovdqa64 xmm1, xmm14
  vmovdqa64 xmm14, xmm13
  vmovdqa64 xmm13, xmm4
  vmovdqa64 xmm4, xmm16
  vmovdqa64 xmm16, xmm17
  vmovdqa64 xmm17, xmm30
  vmovdqa64 xmm30, xmm2
  vmovdqa64 xmm2, xmm23
  vmovdqa64 xmm23, xmm21
  vmovdqa64 xmm21, xmm3
  vmovdqa64 xmm3, xmm7
  vmovdqa64 xmm7, xmm9
  vmovdqa64 xmm9, xmm30
  vmovdqa64 xmm30, xmm5
  vmovdqa64 xmm5, xmm11
  vmovdqa64 xmm11, xmm6
  vmovdqa64 xmm6, xmm20
  vmovdqa64 xmm20, xmm19
  vmovdqa64 xmm19, xmm24
  vmovdqa64 xmm24, xmm30
  vmovdqa64 xmm30, xmm8
  vmovdqa64 xmm8, xmm18
  vmovdqa64 xmm18, xmm10
  vmovdqa64 xmm10, xmm22
  vmovdqa64 xmm22, xmm12
  vmovdqa64 xmm12, xmm15
  vmovdqa64 xmm15, xmm30
  add rax, 32
  cmp rax, r10
  jne .Lhwk5_rounds
  // Squeezing: the block's rate/8 lanes to out.
  test r8, r8
  jz .Lhwk5_next
  vmovq qword ptr [r8 + 0], xmm0
  cmp rcx, 8
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 8], xmm1
  cmp rcx, 16
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 16], xmm2
  cmp rcx, 24
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 24], xmm3
  cmp rcx, 32
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 32], xmm4
  cmp rcx, 40
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 40], xmm5
  cmp rcx, 48
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 48], xmm6
  cmp rcx, 56
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 56], xmm7
  cmp rcx, 64
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 64], xmm8
  cmp rcx, 72
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 72], xmm9
  cmp rcx, 80
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 80], xmm10
  cmp rcx, 88
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 88], xmm11
  cmp rcx, 96
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 96], xmm12
  cmp rcx, 104
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 104], xmm13
  cmp rcx, 112
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 112], xmm14
  cmp rcx, 120
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 120], xmm15
  cmp rcx, 128
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 128], xmm16
  cmp rcx, 136
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 136], xmm17
  cmp rcx, 144
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 144], xmm18
  cmp rcx, 152
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 152], xmm19
  cmp rcx, 160
  jbe .Lhwk5_squeezed
  vmovq qword ptr [r8 + 160], xmm20
.Lhwk5_squeezed:
  add r8, rcx
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

.purgem HWK_ROUND
.att_syntax prefix
)ASM");

namespace hwaccel::x86 {
namespace {

void absorb(uint64_t state[25], const uint8_t* data, size_t nblocks, size_t rate) {
    if (nblocks != 0) hwaccel_keccak_x86_avx512_sponge(state, data, nblocks, rate, nullptr);
}

void permute(uint64_t state[25]) { hwaccel_keccak_x86_avx512_sponge(state, nullptr, 1, 0, nullptr); }

// Whole output blocks straight from the registers, the last partial one from
// the state (byte i is byte i % 8 of lane i / 8: x86 is little-endian).
bool squeeze(uint64_t state[25], uint8_t* out, size_t out_len, size_t rate) {
    if (size_t whole = out_len / rate) {
        hwaccel_keccak_x86_avx512_sponge(state, nullptr, whole, rate, out);
        out += whole * rate;
        out_len -= whole * rate;
    }
    if (out_len != 0) {
        permute(state);
        std::memcpy(out, state, out_len);
    }
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
    .squeeze = squeeze};

}  // namespace hwaccel::x86
