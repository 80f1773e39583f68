// CCM's body over any SM4 engine: the engine's fused ccm member when it has
// one, otherwise CTR and the CBC-MAC from its other members, a batch at a
// time (one pass over memory per batch; in place works). Whole blocks; the
// provider (provider/cipher/sm4_ccm_mode.cpp) pads and formats.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwaccel/engines.hpp"

namespace hwaccel {

// The semantics of Sm4Engine::ccm: out_i = in_i ^ E(counter + i), counter
// advanced by nblocks; mac = E(mac ^ p_i) over the plaintext p (in for
// kEncrypt, out for kDecrypt).
void sm4_ccm_blocks(const Sm4Engine& engine, const Sm4Key* key, Sm4Direction direction, uint8_t* out,
                    const uint8_t* in, size_t nblocks, uint8_t counter[16], uint8_t mac[16]);

// The same, never the engine's ccm member: the reference the fused members
// are tested against, and what engines without one get.
void sm4_ccm_blocks_unfused(const Sm4Engine& engine, const Sm4Key* key, Sm4Direction direction, uint8_t* out,
                            const uint8_t* in, size_t nblocks, uint8_t counter[16], uint8_t mac[16]);

}  // namespace hwaccel
