// The one-block path of the x86 SM4 engines (sm4_x86_block.cpp): the key
// schedule, one block at the lowest latency, and the serial modes built on
// it. Compiled once, for AES-NI + AVX2, which every engine that uses it
// requires (the VAES engine too); its functions go straight into the
// engines' tables. ISA-free to include: only declarations.
#pragma once

#include <emmintrin.h>

#include <cstddef>
#include <cstdint>

#include "hwaccel/engines.hpp"

namespace hwaccel::x86::sm4x {

#include "x86/sm4_x86_one_block_functions.inc"

// CCM's body (Sm4Engine::ccm) with the CBC-MAC block and a CTR block in the
// two 128-bit lanes of the one-block round: needs VAES (vaes-avx2 only).
void ccm_two_lanes(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t n,
                   uint8_t counter[16], uint8_t mac[16]);

}  // namespace hwaccel::x86::sm4x
