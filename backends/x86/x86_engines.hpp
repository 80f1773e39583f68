// Engines that need x86-64 instruction-set extensions. Each keeps its ISA
// inside its own file and reports itself unavailable on CPUs without it; the
// registry lists them under #if defined(__x86_64__). (The SM4 engines are
// declared in sm4_x86_engines.hpp.)
#pragma once

#include "hwaccel/engines.hpp"

namespace hwaccel::x86 {

extern const Sha1Engine sha1_sha_ni;      // sha_ni.cpp: SHA-NI + SSE4.1 + SSSE3
extern const Sha256Engine sha256_sha_ni;  // sha_ni.cpp: SHA-NI + SSE4.1 + SSSE3

// keccak_x86_bmi2.cpp: scalar, hand-scheduled assembly, andn (BMI1) for chi,
// rorx (BMI2) for theta. Needs no compiler flags: the instructions are in
// top-level asm.
extern const KeccakEngine keccak_x86_bmi2;

// keccak_x86_avx512.cpp: one lane per xmm register, vpternlogq and vprolq
// (AVX-512F/VL), in top-level asm like x86-bmi2: no compiler flags.
extern const KeccakEngine keccak_x86_avx512;

}  // namespace hwaccel::x86
