// The x86-64 SM4 engines: S-box with GFNI (sm4_x86_gfni_maths.hpp) or with
// AESENCLAST (sm4_x86_maths.hpp). Each keeps its ISA inside its own file
// (#pragma GCC target; under clang, #pragma clang attribute) and reports
// itself unavailable on CPUs without it.
#pragma once

#include "hwaccel/engines.hpp"

namespace hwaccel::x86 {

// sm4_gfni_avx512.cpp: GFNI + AVX-512 F/VL/BW, up to 96 blocks in 6 zmm groups.
extern const Sm4Engine sm4_gfni_avx512;
// sm4_gfni_avx2.cpp: GFNI + AVX2, VEX encodings only.
extern const Sm4Engine sm4_gfni_avx2;
// sm4_vaes.cpp: VAES + AVX2 + AES-NI, 256-bit VAESENCLAST.
extern const Sm4Engine sm4_vaes_avx2;
// sm4_aesni.cpp: AES-NI + AVX2, two 128-bit AESENCLAST per ymm (no VAES).
extern const Sm4Engine sm4_aesni_avx2;

}  // namespace hwaccel::x86
