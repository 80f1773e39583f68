// The x86-64 GHASH engines (carry-less multiplication; the shared
// arithmetic is in ghash_x86_clmul.hpp). Each keeps its ISA inside its own
// file (target attributes) and reports itself unavailable on CPUs without it.
#pragma once

#include "hwaccel/engines.hpp"

namespace hwaccel::x86 {

// ghash_vpclmul.cpp: VPCLMULQDQ, 32 blocks per reduction; 4 blocks per zmm
// (AVX-512 F/VL/BW) or 2 per ymm (AVX2).
extern const GhashEngine ghash_vpclmul_avx512;
extern const GhashEngine ghash_vpclmul_avx2;
// ghash_pclmul.cpp: PCLMULQDQ + SSSE3, xmm, 16 blocks per reduction. Its
// update, which the VPCLMULQDQ engines also run for a few blocks.
extern const GhashEngine ghash_pclmul;
void pclmul_update(GhashKey* key, uint8_t y_bytes[16], const uint8_t* data, size_t nblocks);

}  // namespace hwaccel::x86
