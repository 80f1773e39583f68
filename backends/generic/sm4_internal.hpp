// Internals of the portable SM4 engine (backends/generic/sm4.cpp), exposed
// only so the backend tests can check them directly.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwaccel::generic::sm4_detail {

// The SM4 S-box applied to each of the four bytes of x, computed by the
// constant-time boolean circuit (no table).
uint32_t sbox_word(uint32_t x);

// ECB over any number of blocks, always through one kernel (the engine's
// ecb picks by block count): the 128-block bitsliced one, or the 8-block
// byte-sliced one.
void bitsliced_blocks(const uint32_t rk[32], uint8_t* out, const uint8_t* in, size_t nblocks);
void byteslice_blocks(const uint32_t rk[32], uint8_t* out, const uint8_t* in, size_t nblocks);

}  // namespace hwaccel::generic::sm4_detail
