// The gfni-avx512 engine's own one-block path (sm4_x86_gfni512_block.cpp):
// the key schedule of sm4_x86_gfni_schedule.hpp and the serial modes of
// sm4_x86_gfni_serial.hpp over EVEX rounds (VPTERNLOGD, VPROLD), on the
// same key words as gfni::set_key. The same functions as
// sm4_x86_gfni_block.hpp, in their own namespace. ISA-free to include: only
// declarations.
#pragma once

#include <emmintrin.h>

#include <cstddef>
#include <cstdint>

#include "hwaccel/engines.hpp"

namespace hwaccel::x86::sm4x::gfni512 {

#include "x86/sm4_x86_one_block_functions.inc"

// As gfni::ccm.
void ccm(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t n,
         uint8_t counter[16], uint8_t mac[16]);

}  // namespace hwaccel::x86::sm4x::gfni512
