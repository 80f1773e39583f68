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

}  // namespace hwaccel::x86::sm4x
