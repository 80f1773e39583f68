#include "hwaccel/sm4_ccm_blocks.hpp"

#include "hwaccel/bytes.hpp"

namespace hwaccel {
namespace {

constexpr size_t kBlock = 16;
// Blocks per batch: the keystream and the CBC-MAC's discarded output live
// on the stack; long enough for the widest CTR kernel (96 blocks).
constexpr size_t kBatch = 128;

void increment_be128(uint8_t c[16]) {
    unsigned carry = 1;
    for (size_t i = kBlock; i-- != 0;) {
        const unsigned v = c[i] + carry;
        c[i] = static_cast<uint8_t>(v);
        carry = v >> 8;
    }
}

// out = in ^ E(counter + i), counter advanced: the engine's CTR, or ECB over
// counter blocks.
void ctr_blocks(const Sm4Engine& e, const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n,
                uint8_t counter[16], uint8_t* scratch) {
    if (e.ctr) return e.ctr(key, out, in, n, counter);
    for (size_t i = 0; i < n; ++i) {
        for (size_t j = 0; j < kBlock; ++j) scratch[kBlock * i + j] = counter[j];
        increment_be128(counter);
    }
    e.ecb(key, Sm4Direction::kEncrypt, scratch, scratch, n);
    for (size_t i = 0; i < kBlock * n; ++i) out[i] = in[i] ^ scratch[i];
}

// mac = E(mac ^ p_i): CBC encryption whose ciphertext is dropped.
void mac_blocks(const Sm4Engine& e, const Sm4Key* key, const uint8_t* p, size_t n, uint8_t mac[16],
                uint8_t* scratch) {
    if (e.cbc_encrypt) return e.cbc_encrypt(key, scratch, p, n, mac);
    uint8_t x[kBlock];
    for (size_t i = 0; i < n; ++i, p += kBlock) {
        for (size_t j = 0; j < kBlock; ++j) x[j] = mac[j] ^ p[j];
        e.encrypt_block(key, mac, x);
    }
    secure_zero(x, sizeof x);
}

}  // namespace

void sm4_ccm_blocks_unfused(const Sm4Engine& e, const Sm4Key* key, Sm4Direction direction, uint8_t* out,
                            const uint8_t* in, size_t nblocks, uint8_t counter[16], uint8_t mac[16]) {
    uint8_t scratch[kBatch * kBlock];
    while (nblocks != 0) {
        const size_t n = nblocks < kBatch ? nblocks : kBatch;
        if (direction == Sm4Direction::kEncrypt) {
            mac_blocks(e, key, in, n, mac, scratch);  // before CTR: in place, in is about to go
            ctr_blocks(e, key, out, in, n, counter, scratch);
        } else {
            ctr_blocks(e, key, out, in, n, counter, scratch);
            mac_blocks(e, key, out, n, mac, scratch);
        }
        in += n * kBlock;
        out += n * kBlock;
        nblocks -= n;
    }
    secure_zero(scratch, sizeof scratch);
}

void sm4_ccm_blocks(const Sm4Engine& e, const Sm4Key* key, Sm4Direction direction, uint8_t* out,
                    const uint8_t* in, size_t nblocks, uint8_t counter[16], uint8_t mac[16]) {
    if (e.ccm) return e.ccm(key, direction, out, in, nblocks, counter, mac);
    sm4_ccm_blocks_unfused(e, key, direction, out, in, nblocks, counter, mac);
}

}  // namespace hwaccel
