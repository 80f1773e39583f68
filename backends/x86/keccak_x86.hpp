// Keccak-f[1600] engines for x86-64 (selected at run time by CPUID).
#pragma once

#include "hwaccel/engines.hpp"

namespace hwaccel::x86 {

// Scalar, hand-scheduled assembly: andn (BMI1) for chi, rorx (BMI2) for theta.
// Needs no compiler flags: the instructions are in top-level asm.
extern const KeccakEngine keccak_bmi;

}  // namespace hwaccel::x86
