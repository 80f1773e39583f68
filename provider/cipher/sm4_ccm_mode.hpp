// SM4-CCM (NIST SP 800-38C, RFC 3610) over an engine's block functions:
// the CBC-MAC on the engine's serial path (fused cbc_encrypt or its one-block
// encrypt_block), the encryption on its parallel CTR. OpenSSL-free, like
// sm4_modes, so any code can drive it; the EVP rules live in sm4_ccm.cpp.
//
// One message: ccm_start (nonce, lengths, tag length), then the whole AAD in
// one ccm_aad call (CCM encodes its length in front of it), then the whole
// payload in one ccm_encrypt or ccm_decrypt call.
//
// The counter field of A_i is the low L bytes; the engine's CTR adds to the
// whole 128-bit block. A message is shorter than 2^(8L) bytes (ccm_start
// refuses longer ones), so its last counter, ceil(len / 16) < 2^(8L - 4),
// never carries out of the L-byte field: the two counters agree.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cipher/sm4_modes.hpp"

namespace hwaccel {

// Keystream blocks taken with E(B_0) in its engine call (see
// sm4_ccm_mode.cpp): E(A_0) and, for payloads of up to kCcmAheadPayloadBlocks
// blocks, all of theirs, so [B_0, A_0, A_1, ...] stays within 8 blocks, one
// batch on every engine.
constexpr size_t kCcmAheadPayloadBlocks = 6;

struct Sm4CcmMessage {
    uint8_t b0[16];       // B_0: flags, nonce, message length
    uint8_t a0[16];       // A_0: the counter block whose keystream masks the tag
    uint8_t mac[16];      // the CBC-MAC so far (the chaining value)
    // E(A_0), E(A_1), ...: ahead_blocks of them from E(B_0)'s call until the
    // payload uses them (secret: wiped then, and with the message).
    uint8_t ahead[16 * (1 + kCcmAheadPayloadBlocks)];
    uint64_t length;      // the payload length declared in B_0
    size_t tag_len;       // M
    size_t ahead_blocks;  // blocks in ahead
    bool mac_started;     // E(B_0) taken (its Adata flag is then fixed)
};

// Largest payload for a length field of l bytes (2..8): 2^(8l) - 1.
uint64_t ccm_max_length(size_t l);

// Formats B_0 and A_0. nonce is 15 - l bytes, l in 2..8, tag_len in
// {4, 6, ..., 16}; false (nothing changed) when length does not fit in l bytes.
bool ccm_start(Sm4CcmMessage& m, const uint8_t* nonce, size_t l, uint64_t length,
               size_t tag_len);

// The associated data, all of it (aad_len > 0), before the payload.
void ccm_aad(const Sm4State& s, Sm4CcmMessage& m, const uint8_t* aad, size_t aad_len);

// The payload, all of it (in == out allowed). Encryption leaves the tag in
// tag[0..m.tag_len). Decryption computes the tag over the plaintext without
// writing any of it, compares it in constant time with expected_tag, and
// only then decrypts into out. False, out untouched: the tag did not verify,
// or len is not m.length (the keystream taken ahead is the declared
// length's). `s` supplies the engine and key; its iv/keystream/num are used
// as scratch and wiped.
[[nodiscard]] bool ccm_encrypt(Sm4State& s, Sm4CcmMessage& m, uint8_t* out, const uint8_t* in, size_t len,
                               uint8_t tag[16]);
[[nodiscard]] bool ccm_decrypt(Sm4State& s, Sm4CcmMessage& m, uint8_t* out, const uint8_t* in, size_t len,
                               const uint8_t* expected_tag);

}  // namespace hwaccel
