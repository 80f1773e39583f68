// Block-function interfaces every engine implements, one struct per family.
//
// Engines see only whole blocks and raw state, in the spirit of the kernel's
// sha256_blocks(state, data, nblocks). Buffering, padding, XOF lengths, IVs and
// every other EVP rule live in provider/, written once. Nothing here includes
// OpenSSL: a backend must never call back into libcrypto (the default library
// context may route the call back to us).
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwaccel {

struct CpuFeatures;

// SHA-1: state is the five 32-bit chaining words as integers (H0..H4).
struct Sha1Engine {
    const char* name;
    bool (*available)(const CpuFeatures&);
    // Compress nblocks (>= 1) whole 64-byte blocks into state.
    void (*blocks)(uint32_t state[5], const uint8_t* data, size_t nblocks);
};

// SHA-256 (and SHA-224, which differs only in its initial state and output
// length): state is the eight 32-bit chaining words as integers.
struct Sha256Engine {
    const char* name;
    bool (*available)(const CpuFeatures&);
    void (*blocks)(uint32_t state[8], const uint8_t* data, size_t nblocks);
};

// Keccak-f[1600] for SHA-3 and SHAKE. The state is 25 64-bit lanes held as
// native integers, lane (x, y) at index x + 5*y. Byte i of the sponge is byte
// (i % 8) of lane i / 8 in little-endian order; the provider converts at its
// edges (keccak_sponge.hpp), so every engine agrees on this one layout.
struct KeccakEngine {
    const char* name;
    bool (*available)(const CpuFeatures&);
    // For each of nblocks blocks of rate bytes (rate a multiple of 8, <= 168):
    // XOR the block into the state, then apply the permutation.
    void (*absorb)(uint64_t state[25], const uint8_t* data, size_t nblocks, size_t rate);
    // The bare permutation, for squeezing more output than one rate.
    void (*permute)(uint64_t state[25]);

    // Optional (default null, so engines without them name none of them):
    // for engines whose instruction pads and squeezes by itself (CPACF's
    // KLMD), where one instruction replaces several absorb/permute calls,
    // or whose final keeps the padded state in registers through to the
    // output (x86-avx512's finish: one call instead of a permute and a copy).
    // Null, or false returned for a (rate, pad) the engine cannot do
    // (nothing touched then): the sponge does it with absorb/permute.
    // pad is the byte kSha3Pad or kShakePad (algorithm_facts.hpp); SHA-3 pads
    // never ask for more than rate bytes of output.
    //
    // finish: absorbs all of data (any length), pads, writes the first
    // out_len bytes of output. The state is left as after the permutation
    // that produced the last output block (the padding one if out_len == 0).
    bool (*finish)(uint64_t state[25], const uint8_t* data, size_t len, size_t rate, uint8_t pad,
                   uint8_t* out, size_t out_len) = nullptr;
    // squeeze (SHAKE pads only): from a padded state whose current block is
    // used up, for each block of output: permute, copy min(rate, left) bytes.
    bool (*squeeze)(uint64_t state[25], uint8_t* out, size_t out_len, size_t rate) = nullptr;
    // oneshot: the whole message from the zero state to out_len bytes of
    // output, with no state kept (the sponge's final, nothing absorbed yet).
    bool (*oneshot)(const uint8_t* data, size_t len, size_t rate, uint8_t pad, uint8_t* out,
                    size_t out_len) = nullptr;
};

// SM4 round keys: a plain value, so a context copy is a deep copy. No
// over-alignment: contexts come from OPENSSL_malloc, which promises only the
// platform's malloc alignment; engines load round keys unaligned.
struct Sm4Key {
    uint32_t enc[32];  // rk[0..31]
    uint32_t dec[32];  // the same keys reversed: SM4 decryption is encryption with them
    // Whatever else an engine's set_key precomputes for its own use (the x86
    // engines: both directions' round keys in the layout of their one-block
    // path, so a 16-byte call does not convert them). Engines that need
    // nothing leave it alone.
    static constexpr size_t kEngineDataSize = 528;
    uint8_t engine_data[kEngineDataSize];
};

// Which way SM4 runs, in every layer (engines, provider modes, tests, tools):
// encryption with Sm4Key::enc, decryption with Sm4Key::dec.
enum class Sm4Direction { kEncrypt, kDecrypt };

// XTS's two tweak orders: GB/T 17964-2021 (the tweak a big-endian 128-bit
// number in GCM's bit-reflected field: times x is a right shift, 0xe1 into
// byte 0 on carry) and IEEE Std 1619 (little-endian: a left shift, 0x87 into
// byte 0 on carry, x^128 = x^7 + x^2 + x + 1).
enum class XtsStandard { kGb, kIeee };

// SM4. The bulk functions take whole 16-byte blocks; in and out may be the
// same pointer (in place) but must not otherwise overlap. Optional functions
// may be null: the provider then builds the mode from ecb/encrypt_block. Every
// function takes a key that this engine's set_key filled. Engines define
// theirs with every member named (designated initializers), absent ones as
// nullptr.
struct Sm4Engine {
    const char* name;
    bool (*available)(const CpuFeatures&);
    void (*set_key)(Sm4Key* key, const uint8_t user_key[16]);
    // Encrypts (with key->enc) or decrypts (with key->dec).
    void (*ecb)(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t nblocks);
    // One block, encryption. Serial modes call this once per block where the
    // engine has no fused version; it must be the engine's lowest-latency
    // constant-time path.
    void (*encrypt_block)(const Sm4Key* key, uint8_t out[16], const uint8_t in[16]);
    // Optional fused parallel modes. ctr: counter is the 128-bit big-endian
    // counter block, advanced by nblocks (wrapping at 2^128). iv: the chaining
    // value, updated to the last ciphertext block.
    void (*ctr)(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t nblocks, uint8_t counter[16]);
    void (*cbc_decrypt)(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t nblocks, uint8_t iv[16]);
    void (*cfb_decrypt)(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t nblocks, uint8_t iv[16]);
    // Optional fused serial modes, for engines whose single block carries
    // per-call set-up or layout conversions worth sharing across blocks:
    // cbc_encrypt c_i = E(p_i ^ c_{i-1}); cfb_encrypt c_i = p_i ^ E(c_{i-1});
    // ofb o_i = E(o_{i-1}), out_i = in_i ^ o_i. iv: c_0 (o_0) in, the last
    // c (o) out. Without them the provider loops over encrypt_block.
    void (*cbc_encrypt)(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t nblocks, uint8_t iv[16]);
    void (*cfb_encrypt)(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t nblocks, uint8_t iv[16]);
    void (*ofb)(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t nblocks, uint8_t iv[16]);
    // Optional fused XTS body, whole blocks (the provider does the stealing):
    // out_i = E(in_i ^ T_i) ^ T_i with key->enc (key->dec to decrypt), T_0 =
    // tweak, T_{i+1} = T_i * x in the standard's order; tweak becomes
    // T_nblocks. Without it the provider runs ECB between XORs.
    void (*xts)(const Sm4Key* key, Sm4Direction direction, XtsStandard standard, uint8_t* out,
                const uint8_t* in, size_t nblocks, uint8_t tweak[16]);
    // Optional fused CCM body, whole blocks: CTR (as ctr: out_i = in_i ^
    // E(counter + i), counter advanced by nblocks) and CCM's CBC-MAC over the
    // plaintext (mac = E(mac ^ p_i), mac the chaining value in and out): the
    // plaintext is in for kEncrypt, out for kDecrypt. Both with key->enc.
    // Without it, sm4_ccm_blocks (hwaccel/sm4_ccm_blocks.hpp) builds it from
    // ctr and cbc_encrypt (or encrypt_block).
    void (*ccm)(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t nblocks,
                uint8_t counter[16], uint8_t mac[16]);
    // Optional: two independent key schedules at once, each exactly what
    // set_key(a, ka) and set_key(b, kb) would leave (enc, dec, engine_data).
    // The schedule is a serial chain of 32 S-box words; interleaving two
    // chains costs about one chain's latency (XTS schedules two keys at
    // every key change). a and b must be distinct keys; ka and kb may be the
    // same bytes or pointer but must not overlap *a or *b. Callers go through
    // sm4_set_key_pair, which falls back to two set_key calls.
    void (*set_key_pair)(Sm4Key* a, const uint8_t ka[16], Sm4Key* b, const uint8_t kb[16]) = nullptr;
    // Optional, for GCM: ctr over nblocks + 1 counter blocks whose first
    // keystream block E(counter) goes to first[16] (GCM's tag mask E_K(J0))
    // instead of into the text: out_i = in_i ^ E(counter + 1 + i), counter
    // advanced by nblocks + 1. One pass where ctr and a separate
    // encrypt_block would make two serial latency chains. Without it GCM
    // builds the counter blocks for ecb, or calls encrypt_block.
    void (*ctr_with_first)(const Sm4Key* key, uint8_t first[16], uint8_t* out, const uint8_t* in,
                           size_t nblocks, uint8_t counter[16]) = nullptr;
    // Its batch: E(counter) takes a spare lane of the last batch when
    // nblocks is not a multiple of this; otherwise a one-block call of its
    // own, no better than encrypt_block (GCM then keeps its own order).
    size_t ctr_with_first_batch = 0;
};

// Schedules a from ka and b from kb (the rules of Sm4Engine::set_key_pair),
// with the engine's pair function where it has one.
inline void sm4_set_key_pair(const Sm4Engine& engine, Sm4Key* a, const uint8_t ka[16], Sm4Key* b,
                             const uint8_t kb[16]) {
    if (engine.set_key_pair != nullptr) {
        engine.set_key_pair(a, ka, b, kb);
        return;
    }
    engine.set_key(a, ka);
    engine.set_key(b, kb);
}

// GHASH, GCM's universal hash (NIST SP 800-38D, 6.4): the hash key H and the
// running value Y are 16-byte blocks in GCM's own byte order (bit 0 of the
// field element is the top bit of byte 0), exactly as they appear on the wire,
// so every engine and the provider agree on one layout. An engine precomputes
// what it needs from H (powers of H, reflected or byte-swapped forms) into
// engine_data, at set_key or, as a longer update first needs it, in update
// (so a short message under a new key pays only for what it uses); like
// Sm4Key it is a plain value (deep copy by assignment) with no
// over-alignment. H is key material: the provider wipes GhashKey, and
// set_key leaves nothing of a previous key.
struct GhashKey {
    uint8_t h[16];
    static constexpr size_t kEngineDataSize = 1024;
    uint8_t engine_data[kEngineDataSize];
    // The engine's own: how much of engine_data is computed. A byte, so the
    // struct stays bytes only (any address holds one; the tests place keys
    // misaligned).
    uint8_t engine_count;
};
static_assert(alignof(GhashKey) == 1, "GhashKey must stay bytes only");

struct GhashEngine {
    const char* name;
    bool (*available)(const CpuFeatures&);
    void (*set_key)(GhashKey* key, const uint8_t h[16]);
    // For each of nblocks (>= 0) whole 16-byte blocks X_i: Y = (Y ^ X_i) * H
    // in GF(2^128). Partial blocks are the provider's business (it pads
    // with zeros, as GCM does). Constant-time in Y, H and the data. May
    // extend key's precomputation (what it does depends on nblocks and the
    // key's earlier updates only).
    void (*update)(GhashKey* key, uint8_t y[16], const uint8_t* data, size_t nblocks);
};

}  // namespace hwaccel
