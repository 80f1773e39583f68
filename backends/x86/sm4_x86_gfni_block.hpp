// The one-block path of the x86 GFNI SM4 engines (sm4_x86_gfni_block.cpp):
// the key schedule, one block at the lowest latency, and the serial modes
// built on it. Compiled once, for GFNI + AVX2 with VEX encodings only (what
// gfni-avx2 requires and gfni-avx512 has too); its functions go straight
// into gfni-avx2's table (gfni-avx512 has the EVEX forms,
// sm4_x86_gfni512_block.hpp). ISA-free to
// include: only declarations.
#pragma once

#include <emmintrin.h>

#include <cstddef>
#include <cstdint>

#include "hwaccel/engines.hpp"

namespace hwaccel::x86::sm4x::gfni {

// Standard round keys in key->enc and key->dec, and the one-block path's
// A1-domain keys in key->engine_data.
void set_key(Sm4Key* key, const uint8_t user_key[16]);
// Two of them at once (Sm4Engine::set_key_pair).
void set_key_pair(Sm4Key* a, const uint8_t ka[16], Sm4Key* b, const uint8_t kb[16]);

// One block, the given way, in and out in registers (for the bulk modes'
// single-block calls).
__m128i crypt_block(const Sm4Key* key, Sm4Direction direction, __m128i block);
void encrypt_block(const Sm4Key* key, uint8_t out[16], const uint8_t in[16]);

// The serial modes, fused (Sm4Engine::cbc_encrypt, cfb_encrypt, ofb).
void cbc_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]);
void cfb_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]);
void ofb(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]);

// CCM's body, fused (Sm4Engine::ccm): the CBC-MAC and a CTR block in the
// lanes of one register.
void ccm(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t n,
         uint8_t counter[16], uint8_t mac[16]);

}  // namespace hwaccel::x86::sm4x::gfni
