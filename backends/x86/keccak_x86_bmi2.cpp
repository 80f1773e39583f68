// Keccak-f[1600] for x86-64 with BMI1 (andn) and BMI2 (rorx): scalar,
// hand-allocated assembly in a top-level asm block, so the file needs no ISA
// compiler flags and nothing else in the build can pick up these instructions.
//
// Why this shape (measured on the target AMD EPYC Zen 3, TSC converted to core
// cycles; OpenSSL 3.0's own x86_64 assembly as the reference):
//
//   * A round needs 130 integer ALU ops at the least (theta 20 + 10 + 25,
//     rho 24, chi 25 andn + 25 xor, iota 1), and that is what bounds it: the
//     core sustains about 3.7 of them per cycle (four ALUs, two of which
//     rotate). Loads and stores are nearly free here: deleting all 20 stores
//     or all 20 lane loads of a round changed the time by < 1%, deleting 24
//     rotates saved 15%. So the code keeps exactly 130 ALU ops per round and
//     spends registers on latency, not on saving memory traffic.
//   * Zen 3 renames a plain load of a recently stored value (no latency) but
//     not a load folded into an ALU op (about 9 cycles of store forwarding).
//     Lanes and parities that were stored in the current or previous round are
//     therefore read with plain mov; folding them into the xor saves a uop but
//     measured 3-10% slower.
//   * Registers (15): D[0..4] stay in registers for the whole round (keeping
//     C in registers instead and D on the stack cost 8%). The last output row
//     of a round stays in registers and feeds the next round; rows 0-3 go to a
//     24-slot stack buffer, addressed with 8-bit displacements around rsp (the
//     slots below rsp are in the red zone; this is a leaf). Each round writes
//     its output into slots freed earlier in the same round; the slot maps of
//     even and odd rounds were chosen so that two rounds return to the first
//     map, which makes the loop body two rounds long (code 1.5 KB, well inside
//     the op cache). The next round's column parities are recomputed from the
//     stored rows plus the kept row, instead of being accumulated in registers.
//   * The permutation runs close to 130 ALU ops per round at the rate the
//     core sustains, so the ALU budget, not the schedule, is the limit.
//     Measure the engine alone with `build/tools/hwaccel-engine-bench sha3`
//     and through the provider with `scripts/bench.py --evp --alg sha3-256`;
//     current figures are in docs/speed.md.
//   * Tried and rejected: lane complementing (pointless with andn); rorx for
//     rho (same speed as rol, longer code); all 25 lanes in memory with C in
//     registers and two D spilled (1.01x); SSE2 for part of the column
//     parities (slower: XMM traffic costs integer throughput and adds ~20
//     cycles of latency); a computed jump for the block XOR and four rounds
//     per iteration (within noise); row orders other than 0,1,2,3 with row 4
//     kept (up to 4% slower).

#include "x86/x86_engines.hpp"

#include "hwaccel/cpu.hpp"

#if !defined(__x86_64__) || !defined(__ELF__) || defined(_WIN32)
#error "keccak_x86_bmi2.cpp is written for x86-64 ELF targets (System V ABI)"
#endif

// The assembly routine below. Contract: rate is a multiple of 8 up to 168
// (rate / 8 lanes are absorbed; rate 0 means "permute only"), nblocks >= 1.
extern "C" __attribute__((visibility("hidden"))) void hwaccel_keccak_x86_bmi2_sponge(
    uint64_t state[25], const uint8_t* data, size_t nblocks, size_t rate);

// The round code is a list of the macros defined at its top, one line per
// lane or chi output; the register of each value and the slot of each stored
// lane were assigned by hand with a small bookkeeping script (not part of the
// build). Registers of the loop body:
// C[0..4] (column parities) in rdi rbp r8 r9 r10 and row 4 in r11..r15 at
// every loop boundary; rax rbx rcx rdx rsi are scratch there. Slot map 0 puts
// lane i (rows 0-3) at rsp-128+8i; slot map 1 (after even rounds) lists, slot
// by slot, the lane it holds ("-" = free):
// 0 12 - 6 18 16 3 10 - 9 7 19 1 13 - - 5 17 4 11 15 14 8 2.
asm(R"ASM(
.intel_syntax noprefix

// b = rol(A[slot] ^ d, r): theta and rho for a lane held in the stack buffer.
// The plain load of a value stored in the previous round is renamed by Zen 3
// (no store-forwarding latency); a load folded into the xor would not be.
.macro HWK_LANE b, s, d, r
  mov \b, qword ptr [rsp + \s]
  xor \b, \d
  .if \r
  rol \b, \r
  .endif
.endm
// The same for a lane of the previous round's last row, kept in a register.
.macro HWK_KEPT b, d, r
  xor \b, \d
  rol \b, \r
.endm
// d = rol(c_next, 1) ^ c_prev (rorx: no copy of c_next needed).
.macro HWK_THETA d, cn, cp
  rorx \d, \cn, 63
  xor \d, \cp
.endm
// chi: e = b0 ^ (~b1 & b2), one andn and one xor.
.macro HWK_CHI e, b0, b1, b2
  andn \e, \b1, \b2
  xor \e, \b0
.endm
.macro HWK_CHI_ST e, b0, b1, b2, s
  HWK_CHI \e, \b0, \b1, \b2
  mov qword ptr [rsp + \s], \e
.endm
// chi and iota for lane 0; p (a register chi no longer needs) gets the
// round-constant pointer.
.macro HWK_CHI_IOTA e, b0, b1, b2, s, p, off
  mov \p, qword ptr [rsp + 64]
  HWK_CHI \e, \b0, \b1, \b2
  xor \e, qword ptr [\p + \off]
  mov qword ptr [rsp + \s], \e
.endm
// Next round's column parity: the row stored last by plain load (renamed),
// the three older rows folded into xors, the kept row from its register.
.macro HWK_PARITY c, s3, s0, s1, s2, k
  mov \c, qword ptr [rsp + \s3]
  xor \c, qword ptr [rsp + \s0]
  xor \c, qword ptr [rsp + \s1]
  xor \c, qword ptr [rsp + \s2]
  xor \c, \k
.endm

.pushsection .text
.p2align 6
.globl hwaccel_keccak_x86_bmi2_sponge
.hidden hwaccel_keccak_x86_bmi2_sponge
.type hwaccel_keccak_x86_bmi2_sponge, @function
hwaccel_keccak_x86_bmi2_sponge:
  .cfi_startproc
  endbr64
  push rbx
  .cfi_adjust_cfa_offset 8
  .cfi_offset rbx, -16
  push rbp
  .cfi_adjust_cfa_offset 8
  .cfi_offset rbp, -24
  push r12
  .cfi_adjust_cfa_offset 8
  .cfi_offset r12, -32
  push r13
  .cfi_adjust_cfa_offset 8
  .cfi_offset r13, -40
  push r14
  .cfi_adjust_cfa_offset 8
  .cfi_offset r14, -48
  push r15
  .cfi_adjust_cfa_offset 8
  .cfi_offset r15, -56
  sub rsp, 104
  .cfi_adjust_cfa_offset 104
  mov qword ptr [rsp + 72], rdi
  mov qword ptr [rsp + 80], rsi
  mov qword ptr [rsp + 88], rdx
  mov qword ptr [rsp + 96], rcx
  // Rows 0-3 to the stack buffer (lane i in slot i), row 4 to registers,
  // and the column parities.
  mov rax, rdi
  mov rcx, qword ptr [rax + 0]
  mov qword ptr [rsp + -128], rcx
  mov rcx, qword ptr [rax + 8]
  mov qword ptr [rsp + -120], rcx
  mov rcx, qword ptr [rax + 16]
  mov qword ptr [rsp + -112], rcx
  mov rcx, qword ptr [rax + 24]
  mov qword ptr [rsp + -104], rcx
  mov rcx, qword ptr [rax + 32]
  mov qword ptr [rsp + -96], rcx
  mov rcx, qword ptr [rax + 40]
  mov qword ptr [rsp + -88], rcx
  mov rcx, qword ptr [rax + 48]
  mov qword ptr [rsp + -80], rcx
  mov rcx, qword ptr [rax + 56]
  mov qword ptr [rsp + -72], rcx
  mov rcx, qword ptr [rax + 64]
  mov qword ptr [rsp + -64], rcx
  mov rcx, qword ptr [rax + 72]
  mov qword ptr [rsp + -56], rcx
  mov rcx, qword ptr [rax + 80]
  mov qword ptr [rsp + -48], rcx
  mov rcx, qword ptr [rax + 88]
  mov qword ptr [rsp + -40], rcx
  mov rcx, qword ptr [rax + 96]
  mov qword ptr [rsp + -32], rcx
  mov rcx, qword ptr [rax + 104]
  mov qword ptr [rsp + -24], rcx
  mov rcx, qword ptr [rax + 112]
  mov qword ptr [rsp + -16], rcx
  mov rcx, qword ptr [rax + 120]
  mov qword ptr [rsp + -8], rcx
  mov rcx, qword ptr [rax + 128]
  mov qword ptr [rsp + 0], rcx
  mov rcx, qword ptr [rax + 136]
  mov qword ptr [rsp + 8], rcx
  mov rcx, qword ptr [rax + 144]
  mov qword ptr [rsp + 16], rcx
  mov rcx, qword ptr [rax + 152]
  mov qword ptr [rsp + 24], rcx
  mov r11, qword ptr [rax + 160]
  mov r12, qword ptr [rax + 168]
  mov r13, qword ptr [rax + 176]
  mov r14, qword ptr [rax + 184]
  mov r15, qword ptr [rax + 192]
  mov rdi, r11
  xor rdi, qword ptr [rax + 0]
  xor rdi, qword ptr [rax + 40]
  xor rdi, qword ptr [rax + 80]
  xor rdi, qword ptr [rax + 120]
  mov rbp, r12
  xor rbp, qword ptr [rax + 8]
  xor rbp, qword ptr [rax + 48]
  xor rbp, qword ptr [rax + 88]
  xor rbp, qword ptr [rax + 128]
  mov r8, r13
  xor r8, qword ptr [rax + 16]
  xor r8, qword ptr [rax + 56]
  xor r8, qword ptr [rax + 96]
  xor r8, qword ptr [rax + 136]
  mov r9, r14
  xor r9, qword ptr [rax + 24]
  xor r9, qword ptr [rax + 64]
  xor r9, qword ptr [rax + 104]
  xor r9, qword ptr [rax + 144]
  mov r10, r15
  xor r10, qword ptr [rax + 32]
  xor r10, qword ptr [rax + 72]
  xor r10, qword ptr [rax + 112]
  xor r10, qword ptr [rax + 152]
.Lhwk_block:
  // XOR the block's rate/8 lanes into the state and into the parities. The
  // new lane is written with a plain store so that round 0 reads it renamed.
  mov rax, qword ptr [rsp + 80]
  mov rbx, qword ptr [rsp + 96]
  shr rbx, 3
  jz .Lhwk_permute
  mov rsi, qword ptr [rax + 0]
  xor rdi, rsi
  xor rsi, qword ptr [rsp + -128]
  mov qword ptr [rsp + -128], rsi
  cmp rbx, 1
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 8]
  xor rbp, rsi
  xor rsi, qword ptr [rsp + -120]
  mov qword ptr [rsp + -120], rsi
  cmp rbx, 2
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 16]
  xor r8, rsi
  xor rsi, qword ptr [rsp + -112]
  mov qword ptr [rsp + -112], rsi
  cmp rbx, 3
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 24]
  xor r9, rsi
  xor rsi, qword ptr [rsp + -104]
  mov qword ptr [rsp + -104], rsi
  cmp rbx, 4
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 32]
  xor r10, rsi
  xor rsi, qword ptr [rsp + -96]
  mov qword ptr [rsp + -96], rsi
  cmp rbx, 5
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 40]
  xor rdi, rsi
  xor rsi, qword ptr [rsp + -88]
  mov qword ptr [rsp + -88], rsi
  cmp rbx, 6
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 48]
  xor rbp, rsi
  xor rsi, qword ptr [rsp + -80]
  mov qword ptr [rsp + -80], rsi
  cmp rbx, 7
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 56]
  xor r8, rsi
  xor rsi, qword ptr [rsp + -72]
  mov qword ptr [rsp + -72], rsi
  cmp rbx, 8
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 64]
  xor r9, rsi
  xor rsi, qword ptr [rsp + -64]
  mov qword ptr [rsp + -64], rsi
  cmp rbx, 9
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 72]
  xor r10, rsi
  xor rsi, qword ptr [rsp + -56]
  mov qword ptr [rsp + -56], rsi
  cmp rbx, 10
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 80]
  xor rdi, rsi
  xor rsi, qword ptr [rsp + -48]
  mov qword ptr [rsp + -48], rsi
  cmp rbx, 11
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 88]
  xor rbp, rsi
  xor rsi, qword ptr [rsp + -40]
  mov qword ptr [rsp + -40], rsi
  cmp rbx, 12
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 96]
  xor r8, rsi
  xor rsi, qword ptr [rsp + -32]
  mov qword ptr [rsp + -32], rsi
  cmp rbx, 13
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 104]
  xor r9, rsi
  xor rsi, qword ptr [rsp + -24]
  mov qword ptr [rsp + -24], rsi
  cmp rbx, 14
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 112]
  xor r10, rsi
  xor rsi, qword ptr [rsp + -16]
  mov qword ptr [rsp + -16], rsi
  cmp rbx, 15
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 120]
  xor rdi, rsi
  xor rsi, qword ptr [rsp + -8]
  mov qword ptr [rsp + -8], rsi
  cmp rbx, 16
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 128]
  xor rbp, rsi
  xor rsi, qword ptr [rsp + 0]
  mov qword ptr [rsp + 0], rsi
  cmp rbx, 17
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 136]
  xor r8, rsi
  xor rsi, qword ptr [rsp + 8]
  mov qword ptr [rsp + 8], rsi
  cmp rbx, 18
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 144]
  xor r9, rsi
  xor rsi, qword ptr [rsp + 16]
  mov qword ptr [rsp + 16], rsi
  cmp rbx, 19
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 152]
  xor r10, rsi
  xor rsi, qword ptr [rsp + 24]
  mov qword ptr [rsp + 24], rsi
  cmp rbx, 20
  jbe .Lhwk_absorbed
  mov rsi, qword ptr [rax + 160]
  xor rdi, rsi
  xor r11, rsi
.Lhwk_absorbed:
  add rax, qword ptr [rsp + 96]
  mov qword ptr [rsp + 80], rax
.Lhwk_permute:
  lea rax, [rip + .Lhwk_rc]
  mov qword ptr [rsp + 64], rax
  // Two rounds per iteration, twelve iterations.
.p2align 6
.Lhwk_round:
  // ---- round 2i (slot map 0 -> 1): theta's column offsets D[x] = rol(C[x+1], 1) ^ C[x-1]
  HWK_THETA rsi, rbp, r10
  HWK_THETA rdx, r8, rdi
  HWK_THETA rcx, r9, rbp
  HWK_THETA rbx, r10, r8
  HWK_THETA rax, rdi, r9
  // output row 0: lanes 0, 6, 12, 18, 24 (theta, rho, pi), then chi and iota
  HWK_LANE r10, -128, rsi, 0
  HWK_LANE r9, -80, rdx, 44
  HWK_LANE r8, -32, rcx, 43
  HWK_LANE rbp, 16, rbx, 21
  HWK_KEPT r15, rax, 14
  HWK_CHI_ST rdi, r9, r8, rbp, -32
  HWK_CHI_ST rdi, r8, rbp, r15, 56
  HWK_CHI_ST rdi, rbp, r15, r10, -80
  HWK_CHI_ST rdi, r15, r10, r9, 16
  HWK_CHI_IOTA rdi, r10, r9, r8, -128, rbp, 0
  // output row 1: lanes 3, 9, 10, 16, 22 (theta, rho, pi), then chi
  HWK_LANE r15, -104, rbx, 28
  HWK_LANE rbp, -56, rax, 20
  HWK_LANE r8, -48, rsi, 3
  HWK_LANE r9, 0, rdx, 45
  HWK_KEPT r13, rcx, 61
  HWK_CHI_ST r10, r15, rbp, r8, 0
  HWK_CHI_ST r10, rbp, r8, r9, -104
  HWK_CHI_ST r10, r8, r9, r13, -48
  HWK_CHI_ST r10, r9, r13, r15, 48
  HWK_CHI_ST r10, r13, r15, rbp, -56
  // output row 2: lanes 1, 7, 13, 19, 20 (theta, rho, pi), then chi
  HWK_LANE r13, -120, rdx, 1
  HWK_LANE r9, -72, rcx, 6
  HWK_LANE r8, -24, rbx, 25
  HWK_LANE rbp, 24, rax, 8
  HWK_KEPT r11, rsi, 18
  HWK_CHI_ST r15, r13, r9, r8, -72
  HWK_CHI_ST r15, r9, r8, rbp, 24
  HWK_CHI_ST r15, r8, rbp, r11, -120
  HWK_CHI_ST r15, rbp, r11, r13, -24
  HWK_CHI_ST r15, r11, r13, r9, 40
  // output row 3: lanes 4, 5, 11, 17, 23 (theta, rho, pi), then chi
  HWK_LANE r11, -96, rax, 27
  HWK_LANE rbp, -88, rsi, 36
  HWK_LANE r8, -40, rdx, 10
  HWK_LANE r9, 8, rcx, 15
  HWK_KEPT r14, rbx, 56
  HWK_CHI_ST r13, r11, rbp, r8, 32
  HWK_CHI_ST r13, rbp, r8, r9, -88
  HWK_CHI_ST r13, r8, r9, r14, 8
  HWK_CHI_ST r13, r9, r14, r11, -96
  HWK_CHI_ST r13, r14, r11, rbp, -40
  // output row 4: lanes 2, 8, 14, 15, 21 (theta, rho, pi), then chi into registers
  HWK_LANE r14, -112, rcx, 62
  HWK_LANE r9, -64, rbx, 55
  HWK_LANE r8, -16, rax, 39
  HWK_LANE rbp, -8, rsi, 41
  HWK_KEPT r12, rdx, 2
  HWK_CHI rax, r14, r9, r8
  HWK_CHI rbx, r9, r8, rbp
  HWK_CHI rcx, r8, rbp, r12
  HWK_CHI rdx, rbp, r12, r14
  HWK_CHI rsi, r12, r14, r9
  // next column parities: row 3 (stored last), rows 0-2, row 4
  HWK_PARITY r12, 32, -128, 0, -72, rax
  HWK_PARITY rbp, -88, -32, -104, 24, rbx
  HWK_PARITY r8, 8, 56, -48, -120, rcx
  HWK_PARITY r9, -96, -80, 48, -24, rdx
  HWK_PARITY r14, -40, 16, -56, 40, rsi
  // ---- round 2i+1 (slot map 1 -> 0): theta's column offsets D[x] = rol(C[x+1], 1) ^ C[x-1]
  HWK_THETA r11, rbp, r14
  HWK_THETA r13, r8, r12
  HWK_THETA r15, r9, rbp
  HWK_THETA r10, r14, r8
  HWK_THETA rdi, r12, r9
  // output row 0: lanes 0, 6, 12, 18, 24 (theta, rho, pi), then chi and iota
  HWK_LANE r14, -128, r11, 0
  HWK_LANE r9, -104, r13, 44
  HWK_LANE r8, -120, r15, 43
  HWK_LANE rbp, -96, r10, 21
  HWK_KEPT rsi, rdi, 14
  HWK_CHI_ST r12, r9, r8, rbp, -120
  HWK_CHI_ST r12, r8, rbp, rsi, -112
  HWK_CHI_ST r12, rbp, rsi, r14, -104
  HWK_CHI_ST r12, rsi, r14, r9, -96
  HWK_CHI_IOTA r12, r14, r9, r8, -128, rbp, 8
  // output row 1: lanes 3, 9, 10, 16, 22 (theta, rho, pi), then chi
  HWK_LANE rsi, -80, r10, 28
  HWK_LANE rbp, -56, rdi, 20
  HWK_LANE r8, -72, r11, 3
  HWK_LANE r9, -88, r13, 45
  HWK_KEPT rcx, r15, 61
  HWK_CHI_ST r14, rsi, rbp, r8, -88
  HWK_CHI_ST r14, rbp, r8, r9, -80
  HWK_CHI_ST r14, r8, r9, rcx, -72
  HWK_CHI_ST r14, r9, rcx, rsi, -64
  HWK_CHI_ST r14, rcx, rsi, rbp, -56
  // output row 2: lanes 1, 7, 13, 19, 20 (theta, rho, pi), then chi
  HWK_LANE rcx, -32, r13, 1
  HWK_LANE r9, -48, r15, 6
  HWK_LANE r8, -24, r10, 25
  HWK_LANE rbp, -40, rdi, 8
  HWK_KEPT rax, r11, 18
  HWK_CHI_ST rsi, rcx, r9, r8, -48
  HWK_CHI_ST rsi, r9, r8, rbp, -40
  HWK_CHI_ST rsi, r8, rbp, rax, -32
  HWK_CHI_ST rsi, rbp, rax, rcx, -24
  HWK_CHI_ST rsi, rax, rcx, r9, -16
  // output row 3: lanes 4, 5, 11, 17, 23 (theta, rho, pi), then chi
  HWK_LANE rax, 16, rdi, 27
  HWK_LANE rbp, 0, r11, 36
  HWK_LANE r8, 24, r13, 10
  HWK_LANE r9, 8, r15, 15
  HWK_KEPT rdx, r10, 56
  HWK_CHI_ST rcx, rax, rbp, r8, -8
  HWK_CHI_ST rcx, rbp, r8, r9, 0
  HWK_CHI_ST rcx, r8, r9, rdx, 8
  HWK_CHI_ST rcx, r9, rdx, rax, 16
  HWK_CHI_ST rcx, rdx, rax, rbp, 24
  // output row 4: lanes 2, 8, 14, 15, 21 (theta, rho, pi), then chi into registers
  HWK_LANE rdx, 56, r15, 62
  HWK_LANE r9, 48, r10, 55
  HWK_LANE r8, 40, rdi, 39
  HWK_LANE rbp, 32, r11, 41
  HWK_KEPT rbx, r13, 2
  HWK_CHI r11, rdx, r9, r8
  HWK_CHI r12, r9, r8, rbp
  HWK_CHI r13, r8, rbp, rbx
  HWK_CHI r14, rbp, rbx, rdx
  HWK_CHI r15, rbx, rdx, r9
  // next column parities: row 3 (stored last), rows 0-2, row 4
  HWK_PARITY rdi, -8, -128, -88, -48, r11
  HWK_PARITY rbp, 0, -120, -80, -40, r12
  HWK_PARITY r8, 8, -112, -72, -32, r13
  HWK_PARITY r9, 16, -104, -64, -24, r14
  HWK_PARITY r10, 24, -96, -56, -16, r15
  // Next pair of round constants; the table is 256-byte aligned, so the
  // low byte of the pointer reaches 0xc0 after the last pair.
  mov rax, qword ptr [rsp + 64]
  add rax, 16
  mov qword ptr [rsp + 64], rax
  cmp al, 0xc0
  jne .Lhwk_round
  sub qword ptr [rsp + 88], 1
  jnz .Lhwk_block
  mov rax, qword ptr [rsp + 72]
  mov rcx, qword ptr [rsp + -128]
  mov qword ptr [rax + 0], rcx
  mov rcx, qword ptr [rsp + -120]
  mov qword ptr [rax + 8], rcx
  mov rcx, qword ptr [rsp + -112]
  mov qword ptr [rax + 16], rcx
  mov rcx, qword ptr [rsp + -104]
  mov qword ptr [rax + 24], rcx
  mov rcx, qword ptr [rsp + -96]
  mov qword ptr [rax + 32], rcx
  mov rcx, qword ptr [rsp + -88]
  mov qword ptr [rax + 40], rcx
  mov rcx, qword ptr [rsp + -80]
  mov qword ptr [rax + 48], rcx
  mov rcx, qword ptr [rsp + -72]
  mov qword ptr [rax + 56], rcx
  mov rcx, qword ptr [rsp + -64]
  mov qword ptr [rax + 64], rcx
  mov rcx, qword ptr [rsp + -56]
  mov qword ptr [rax + 72], rcx
  mov rcx, qword ptr [rsp + -48]
  mov qword ptr [rax + 80], rcx
  mov rcx, qword ptr [rsp + -40]
  mov qword ptr [rax + 88], rcx
  mov rcx, qword ptr [rsp + -32]
  mov qword ptr [rax + 96], rcx
  mov rcx, qword ptr [rsp + -24]
  mov qword ptr [rax + 104], rcx
  mov rcx, qword ptr [rsp + -16]
  mov qword ptr [rax + 112], rcx
  mov rcx, qword ptr [rsp + -8]
  mov qword ptr [rax + 120], rcx
  mov rcx, qword ptr [rsp + 0]
  mov qword ptr [rax + 128], rcx
  mov rcx, qword ptr [rsp + 8]
  mov qword ptr [rax + 136], rcx
  mov rcx, qword ptr [rsp + 16]
  mov qword ptr [rax + 144], rcx
  mov rcx, qword ptr [rsp + 24]
  mov qword ptr [rax + 152], rcx
  mov qword ptr [rax + 160], r11
  mov qword ptr [rax + 168], r12
  mov qword ptr [rax + 176], r13
  mov qword ptr [rax + 184], r14
  mov qword ptr [rax + 192], r15
  # Nothing of the state stays behind (under HMAC it is key-derived): zero
  # the stack buffer, the frame and the caller-saved registers that held
  # lanes (the callee-saved ones get the caller's values back below).
  xor ecx, ecx
  .irp s, -128,-120,-112,-104,-96,-88,-80,-72,-64,-56,-48,-40,-32,-24,-16,-8,0,8,16,24,32,40,48,56,64,72,80,88,96
  mov qword ptr [rsp + \s], rcx
  .endr
  xor edx, edx
  xor esi, esi
  xor edi, edi
  xor r8d, r8d
  xor r9d, r9d
  xor r10d, r10d
  xor r11d, r11d
  add rsp, 104
  .cfi_adjust_cfa_offset -104
  pop r15
  .cfi_adjust_cfa_offset -8
  .cfi_restore r15
  pop r14
  .cfi_adjust_cfa_offset -8
  .cfi_restore r14
  pop r13
  .cfi_adjust_cfa_offset -8
  .cfi_restore r13
  pop r12
  .cfi_adjust_cfa_offset -8
  .cfi_restore r12
  pop rbp
  .cfi_adjust_cfa_offset -8
  .cfi_restore rbp
  pop rbx
  .cfi_adjust_cfa_offset -8
  .cfi_restore rbx
  ret
  .cfi_endproc
.size hwaccel_keccak_x86_bmi2_sponge, . - hwaccel_keccak_x86_bmi2_sponge
.popsection

// Iota's round constants RC[0..23].
.pushsection .rodata
.p2align 8
.Lhwk_rc:
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

.purgem HWK_LANE
.purgem HWK_KEPT
.purgem HWK_THETA
.purgem HWK_CHI
.purgem HWK_CHI_ST
.purgem HWK_CHI_IOTA
.purgem HWK_PARITY
.att_syntax prefix
)ASM");

namespace hwaccel::x86 {
namespace {

void absorb(uint64_t state[25], const uint8_t* data, size_t nblocks, size_t rate) {
    if (nblocks != 0) hwaccel_keccak_x86_bmi2_sponge(state, data, nblocks, rate);
}

void permute(uint64_t state[25]) { hwaccel_keccak_x86_bmi2_sponge(state, nullptr, 1, 0); }

// andn is BMI1, rorx is BMI2; nothing else beyond baseline x86-64 is used.
bool available(const CpuFeatures& cpu) { return cpu.bmi1 && cpu.bmi2; }

}  // namespace

const KeccakEngine keccak_x86_bmi2 = {
    .name = "x86-bmi2", .available = available, .absorb = absorb, .permute = permute};

}  // namespace hwaccel::x86
