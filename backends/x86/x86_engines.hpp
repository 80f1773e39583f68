// Engines that need x86-64 instruction-set extensions. Each keeps its ISA
// inside its own file and reports itself unavailable on CPUs without it; the
// registry lists them under #if defined(__x86_64__).
#pragma once

#include "hwaccel/engines.hpp"

namespace hwaccel::x86 {

extern const Sha1Engine sha1_shani;      // sha_ni.cpp: SHA-NI + SSE4.1 + SSSE3
extern const Sha256Engine sha256_shani;  // sha_ni.cpp: SHA-NI + SSE4.1 + SSSE3

}  // namespace hwaccel::x86
