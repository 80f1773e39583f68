// The gfni-avx512 engine's own one-block path (sm4_x86_gfni512_block.cpp):
// the key schedule of sm4_x86_gfni_schedule.hpp and the serial modes of
// sm4_x86_gfni_serial.hpp over EVEX rounds (VPTERNLOGD, VPROLD), on the
// same key words as gfni::set_key. ISA-free to
// include: only declarations, as in sm4_x86_gfni_block.hpp.
#pragma once

#include <emmintrin.h>

#include <cstddef>
#include <cstdint>

#include "hwaccel/engines.hpp"

namespace hwaccel::x86::sm4x::gfni512 {

// As gfni::set_key and set_key_pair, with the EVEX schedule round.
void set_key(Sm4Key* key, const uint8_t user_key[16]);
void set_key_pair(Sm4Key* a, const uint8_t ka[16], Sm4Key* b, const uint8_t kb[16]);

__m128i crypt_block(const Sm4Key* key, Sm4Direction direction, __m128i block);
void encrypt_block(const Sm4Key* key, uint8_t out[16], const uint8_t in[16]);
void cbc_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]);
void cfb_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]);
void ofb(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]);
void ccm(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t n,
         uint8_t counter[16], uint8_t mac[16]);

}  // namespace hwaccel::x86::sm4x::gfni512
