// GCM over SM4 (NIST SP 800-38D) on an SM4 engine and a GHASH engine.
// OpenSSL-free, so backend-level tests can drive it; EVP rules (IV states,
// tags as parameters, TLS records) live in sm4_gcm.cpp.
//
// One message at a time: set_iv, any number of aad calls, any number of
// encrypt/decrypt calls (AAD only before the first text byte), then tag.
// Large texts run CTR and GHASH over the same 4 KiB chunk while it is in L1
// (encryption: CTR then GHASH of the ciphertext; decryption: GHASH first), so
// a message makes about one pass over memory.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwaccel/engines.hpp"

namespace hwaccel {

// A message's first engine call, made when the message first needs H or
// keystream: H = E_K(0) when the key is new, E_K(J0), and the keystream of
// the first text call when it fits in kGcmFirstBlocks in all; kGcmFirstFewBlocks
// in all when AAD needs H before the text's length is known. A short
// message so makes one engine call where it made three: 2 to 8 blocks cost
// about one block's latency on every engine (one 8-block group; measured on
// Zen 5: aesni-avx2 588 TSC ticks against 357 for one block, generic 1953
// against 1260), and the AVX2 engines run up to 24-32 blocks side by side.
// Longer texts, and texts of whole blocks on an engine with ctr_with_first,
// get E_K(J0) with their first keystream instead (sm4_gcm_mode.cpp says why).
constexpr size_t kGcmFirstBlocks = 32;
constexpr size_t kGcmFirstFewBlocks = 8;
// A message's GHASH input waits in a queue of this many blocks until it is
// full or the tag comes: a GHASH call of 1 to 32 blocks costs about the same
// (Zen 5, vpclmul-avx512: about 50 TSC ticks, its reduction chain and
// set-up), so a short message's AAD, text and lengths block go in one call
// where they made two or three.
constexpr size_t kGcmQueueBlocks = 32;

struct Sm4GcmState {
    const Sm4Engine* sm4;
    const GhashEngine* ghash;
    Sm4Key key;
    GhashKey hash_key;   // H = E_K(0^128)
    bool hash_key_due;   // a new key: H comes with the first call (or set_iv, IV not 12 bytes)
    bool counter_secret; // J0 came from GHASH(IV): its counter is secret
    bool first_call_due; // J0 is set, the message's first engine call not made
    bool tag_mask_due;   // E_K(J0) waits for the tag, or for the first keystream:
    bool j0_rides;       // the first call's keystream brings it (the engine's ctr_with_first)
    uint8_t j0[16];         // the pre-counter block, until E_K(J0) is made
    uint8_t tag_mask[16];   // E_K(J0)
    uint8_t ahead[16 * (kGcmFirstBlocks - 1)];  // keystream computed with E_K(J0)
    size_t ahead_used, ahead_blocks;  // blocks of it used, and computed
    uint8_t counter[16]; // the next counter block after those (inc32 of the last used)
    uint8_t y[16];       // GHASH's running value, before the queue's blocks
    uint8_t queue[16 * kGcmQueueBlocks];  // AAD and ciphertext blocks not yet in y
    size_t queued;          // blocks in queue
    size_t queue_written;   // blocks of it written since the last wipe
    uint8_t keystream[16];  // the current text block's keystream
    uint8_t pending[16];    // AAD or ciphertext bytes of a partial GHASH block
    size_t pending_len;     // 0..15; while text runs also the keystream bytes used
    uint64_t aad_len;       // bytes so far
    uint64_t text_len;
    bool text_started;      // AAD is closed
    bool message_wiped;     // forget_message ran and nothing was set since
};

// SP 800-38D's limits (bits: text 2^39 - 256, AAD 2^64 - 1) in bytes. The
// AAD's bit count goes into the tag's 64-bit lengths field, so 2^61 bytes
// (which OpenSSL's gcm128.c admits) would be 0 there: the largest is one less.
constexpr uint64_t kGcmMaxTextBytes = (uint64_t{1} << 36) - 32;
constexpr uint64_t kGcmMaxAadBytes = (uint64_t{1} << 61) - 1;

void sm4_gcm_bind(Sm4GcmState& s, const Sm4Engine* sm4, const GhashEngine* ghash);
// Key schedule; H follows in the next message's first engine call. Leaves
// any message in progress undefined: set_iv next.
void sm4_gcm_set_key(Sm4GcmState& s, const uint8_t key[16]);
// Starts a message: J0 from an IV of any length >= 1 (12 bytes: IV || 0^31 || 1;
// otherwise GHASH of the padded IV and its bit length, which needs H now).
void sm4_gcm_set_iv(Sm4GcmState& s, const uint8_t* iv, size_t iv_len);
// False (nothing changed) after text has started or past the AAD limit.
bool sm4_gcm_aad(Sm4GcmState& s, const uint8_t* aad, size_t len);
// False (nothing written or changed) past the text limit. in == out is fine.
bool sm4_gcm_encrypt(Sm4GcmState& s, uint8_t* out, const uint8_t* in, size_t len);
bool sm4_gcm_decrypt(Sm4GcmState& s, uint8_t* out, const uint8_t* in, size_t len);
// The full 16-byte tag of the message; the message's state is wiped (the key
// stays): set_iv before the next message.
void sm4_gcm_tag(Sm4GcmState& s, uint8_t tag[16]);
// Wipes the message state (E_K(J0), counters, Y, keystream, pending bytes);
// nothing to do when message_wiped says no call wrote any since the last
// wipe (set_iv, aad, encrypt and decrypt clear it before writing). So a
// state must start value-initialised (message_wiped false), as newctx's is.
void sm4_gcm_forget_message(Sm4GcmState& s);

// GCM's counter over nblocks whole blocks: inc32 (the low 32 bits wrap
// without carrying into the upper 96). A public counter (12-byte IV) runs
// the engine's 128-bit ctr, split where the low word wraps; a secret one
// (s.counter_secret) runs counter blocks built in a buffer through ecb, the
// same calls whatever its value. Exposed for its unit test.
void sm4_gcm_ctr32(const Sm4GcmState& s, uint8_t* out, const uint8_t* in, size_t nblocks,
                   uint8_t counter[16]);

}  // namespace hwaccel
