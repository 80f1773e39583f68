// The one-block path of the x86 GFNI SM4 engines (sm4_x86_gfni_block.cpp):
// the functions of sm4_x86_one_block_functions.inc (key words in the A1
// domain in key->engine_data) and CCM's fused body. Compiled once, for GFNI +
// AVX2 with VEX encodings only (what gfni-avx2 requires and gfni-avx512 has
// too); its functions go straight into gfni-avx2's table (gfni-avx512 has the
// EVEX forms, sm4_x86_gfni512_block.hpp). ISA-free to include: only
// declarations.
#pragma once

#include <emmintrin.h>

#include <cstddef>
#include <cstdint>

#include "hwaccel/engines.hpp"

namespace hwaccel::x86::sm4x::gfni {

#include "x86/sm4_x86_one_block_functions.inc"

// CCM's body, fused (Sm4Engine::ccm): the CBC-MAC and a CTR block in the
// lanes of one register.
void ccm(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t n,
         uint8_t counter[16], uint8_t mac[16]);

}  // namespace hwaccel::x86::sm4x::gfni
