// SM4 modes over an engine's block functions: ECB, CBC, CFB128, OFB, CTR.
// OpenSSL-free so the backend tests can drive the same code.
//
// The register semantics are OpenSSL's (crypto/modes/{cbc,cfb,ofb,ctr}128.c),
// so `num` and the updated IV read back exactly as the default provider's:
//  - CFB: `iv` holds E(previous feedback) and is overwritten byte by byte with
//    ciphertext; after a whole block it is the last ciphertext block.
//  - OFB: `iv` holds the current keystream block.
//  - CTR: `iv` is the next counter (128-bit big-endian, wrapping), and
//    `keystream` the current keystream block.
// `num` counts the bytes of the current block already used (0..15).
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwaccel/engines.hpp"

namespace hwaccel {

struct Sm4State {
    const Sm4Engine* engine;
    Sm4Key key;
    uint8_t iv[16];
    uint8_t keystream[16];
    unsigned num;
};

// Whole blocks only.
void sm4_ecb(Sm4State& s, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t nblocks);
void sm4_cbc(Sm4State& s, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t nblocks);
// Any number of bytes; state carries across calls.
void sm4_cfb(Sm4State& s, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t len);
// OFB and CTR are the same both ways.
void sm4_ofb(Sm4State& s, uint8_t* out, const uint8_t* in, size_t len);
void sm4_ctr(Sm4State& s, uint8_t* out, const uint8_t* in, size_t len);

// Ends a message's stream: the CTR keystream block is wiped and num is 0
// (OFB/CFB keep theirs in iv, which the next IV replaces).
void sm4_forget_stream(Sm4State& s);

// CTR with num set into a block: the keystream block becomes E(iv - 1), the
// block the counter register has just passed. That is what it holds after any
// processing, so a stream resumed from a saved (updated IV, num) continues
// exactly; the default provider XORs with a stale or all-zero block instead
// (a fresh context then "encrypts" to the plaintext).
void sm4_ctr_resume(Sm4State& s);

}  // namespace hwaccel
