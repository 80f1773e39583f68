#include "cipher/sm4_ccm_mode.hpp"

#include <cstring>

#include "constant_time_equal.hpp"
#include "hwaccel/bytes.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "hwaccel/sm4_ccm_blocks.hpp"

namespace hwaccel {
namespace {

constexpr size_t kBlock = 16;
// Payload bytes per pass: the CBC-MAC's scratch output and decryption's
// trial plaintext live on the stack, and CTR still gets batches long enough
// for the widest kernel.
constexpr size_t kChunkBlocks = 128;
constexpr size_t kChunk = kChunkBlocks * kBlock;
constexpr uint8_t kAdataFlag = 0x40;

// mac = E(mac ^ block) for each block: CBC encryption whose ciphertext is
// thrown away but for the last block, which is the chaining value.
void mac_blocks(const Sm4State& s, uint8_t mac[16], const uint8_t* data, size_t nblocks) {
    if (nblocks == 0) return;
    if (s.engine->cbc_encrypt) {
        uint8_t scratch[kChunk];
        const size_t used = nblocks < kChunkBlocks ? nblocks : kChunkBlocks;
        while (nblocks != 0) {
            const size_t n = nblocks < kChunkBlocks ? nblocks : kChunkBlocks;
            s.engine->cbc_encrypt(&s.key, scratch, data, n, mac);
            data += n * kBlock;
            nblocks -= n;
        }
        secure_zero(scratch, used * kBlock);  // what was written: short messages wipe little
        return;
    }
    uint8_t x[kBlock];
    for (size_t i = 0; i < nblocks; ++i, data += kBlock) {
        for (size_t j = 0; j < kBlock; ++j) x[j] = mac[j] ^ data[j];
        s.engine->encrypt_block(&s.key, mac, x);
    }
    secure_zero(x, sizeof x);
}

// Bytes of the payload or AAD, the last block padded with zeros.
void mac_padded(const Sm4State& s, uint8_t mac[16], const uint8_t* data, size_t len) {
    const size_t whole = len / kBlock;
    mac_blocks(s, mac, data, whole);
    if (const size_t rest = len % kBlock) {
        uint8_t last[kBlock] = {};
        std::memcpy(last, data + whole * kBlock, rest);
        mac_blocks(s, mac, last, 1);
        secure_zero(last, sizeof last);
    }
}

// Short payloads go through one stack buffer (see encrypt_short); payloads
// of up to kAheadMax bytes take their whole keystream ahead.
constexpr size_t kShortMax = kChunk - kBlock;
constexpr size_t kAheadMax = kCcmAheadPayloadBlocks * kBlock;

size_t padded_length(size_t len) { return (len + kBlock - 1) / kBlock * kBlock; }

// The keystream blocks E(A_0), E(A_1), ... that the engine call taking
// E(B_0) also takes. E(B_0) starts the serial MAC chain and nothing else
// depends on it, so an ecb call over [B_0, A_0, ...] costs about one block
// on every engine while it stays within one batch (8 blocks: the x86
// engines' register group, the portable engine's byte-sliced batch):
//  - up to kAheadMax bytes: A_0 and every payload counter, so only the MAC
//    chain is left (at 16 bytes with AAD: three serial blocks, not four);
//  - the chunked path (past kShortMax): A_0, which it would take alone;
//  - in between, none: the short path's CTR call from A_0 yields E(A_0)
//    beside the payload's keystream, and a batch past 8 blocks can cost a
//    second batch (the portable engine).
size_t ahead_blocks(uint64_t length) {
    if (length <= kAheadMax) return 1 + padded_length(static_cast<size_t>(length)) / kBlock;
    return length > kShortMax ? 1 : 0;
}

// E(B_0) into the MAC chain, with the keystream ahead in the same call.
void start_mac(const Sm4State& s, Sm4CcmMessage& m) {
    if (m.mac_started) return;
    const size_t k = ahead_blocks(m.length);
    m.mac_started = true;
    m.ahead_blocks = k;
    if (k == 0) {
        s.engine->encrypt_block(&s.key, m.mac, m.b0);
        return;
    }
    uint8_t blocks[kBlock * (2 + kCcmAheadPayloadBlocks)];
    std::memcpy(blocks, m.b0, kBlock);
    for (size_t i = 0; i < k; ++i) {
        // A_i: A_0's counter field is zero and i < 8 fits its last byte.
        uint8_t* a = blocks + kBlock * (1 + i);
        std::memcpy(a, m.a0, kBlock);
        a[kBlock - 1] = static_cast<uint8_t>(i);
    }
    s.engine->ecb(&s.key, Sm4Direction::kEncrypt, blocks, blocks, 1 + k);
    std::memcpy(m.mac, blocks, kBlock);
    std::memcpy(m.ahead, blocks + kBlock, kBlock * k);
    secure_zero(blocks, kBlock * (1 + k));
}

// The message's secrets once the tag is out: the MAC and what is left of
// the keystream ahead.
void forget_mac(Sm4CcmMessage& m) {
    secure_zero(m.mac, sizeof m.mac);
    secure_zero(m.ahead, sizeof m.ahead);
    m.ahead_blocks = 0;
}

// The counter register at A_1, the first payload block's counter.
void counter_at_first_block(Sm4State& s, const Sm4CcmMessage& m) {
    std::memcpy(s.iv, m.a0, kBlock);
    s.iv[kBlock - 1] = 1;  // the counter field of A_0 is all zero
    s.num = 0;
}

// The payload's CTR and its CBC-MAC (over in to encrypt, over out to
// decrypt): whole blocks in one pass (the engine's fused ccm where it has
// one), a last partial block padded with zeros for the MAC.
void crypt_and_mac(Sm4State& s, Sm4CcmMessage& m, Sm4Direction d, uint8_t* out, const uint8_t* in, size_t len) {
    const size_t whole = len / kBlock, at = whole * kBlock, rest = len % kBlock;
    sm4_ccm_blocks(*s.engine, &s.key, d, out, in, whole, s.iv, m.mac);
    if (rest == 0) return;
    if (d == Sm4Direction::kEncrypt) mac_padded(s, m.mac, in + at, rest);
    sm4_ctr(s, out + at, in + at, rest);
    if (d == Sm4Direction::kDecrypt) mac_padded(s, m.mac, out + at, rest);
}

// T = first M bytes of CBC-MAC ^ E(A_0), E(A_0) taken ahead; all 16
// computed, the caller uses M.
void finish_tag(Sm4CcmMessage& m, uint8_t tag[16]) {
    for (size_t i = 0; i < kBlock; ++i) tag[i] = m.mac[i] ^ m.ahead[i];
    forget_mac(m);
}

void forget_counter(Sm4State& s) {
    sm4_forget_stream(s);
    secure_zero(s.iv, sizeof s.iv);
}

// Payloads of up to kAheadMax bytes: their keystream came with E(B_0), so
// the MAC chain over the payload is the one engine call left. The padded
// plaintext goes through a stack buffer (in place, in is about to go).
void encrypt_ahead(const Sm4State& s, Sm4CcmMessage& m, uint8_t* out, const uint8_t* in, size_t len,
                   uint8_t tag[16]) {
    start_mac(s, m);
    uint8_t buf[kAheadMax];
    const size_t padded = padded_length(len);
    std::memcpy(buf, in, len);
    std::memset(buf + len, 0, padded - len);
    mac_blocks(s, m.mac, buf, padded / kBlock);
    for (size_t i = 0; i < len; ++i) out[i] = buf[i] ^ m.ahead[kBlock + i];
    finish_tag(m, tag);
    secure_zero(buf, padded);
}

// The plaintext stays in buf until the tag has verified.
bool decrypt_ahead(const Sm4State& s, Sm4CcmMessage& m, uint8_t* out, const uint8_t* in, size_t len,
                   const uint8_t* expected_tag) {
    start_mac(s, m);
    uint8_t buf[kAheadMax], tag[kBlock];
    const size_t padded = padded_length(len);
    for (size_t i = 0; i < len; ++i) buf[i] = in[i] ^ m.ahead[kBlock + i];
    std::memset(buf + len, 0, padded - len);
    mac_blocks(s, m.mac, buf, padded / kBlock);
    finish_tag(m, tag);
    const bool ok = constant_time_equal(tag, expected_tag, m.tag_len);
    if (ok) std::memcpy(out, buf, len);
    secure_zero(buf, padded);
    secure_zero(tag, sizeof tag);
    return ok;
}

// Payloads up to kShortMax bytes go through one stack buffer laid out as
// [slot | payload | zero pad]: with B_0 in the slot, one CBC-MAC call covers
// E(B_0) and the payload (the chaining value starts at zero, so the first
// block out is E(B_0)); with zeros in the slot, one CTR call from A_0 yields
// E(A_0), the tag's mask, beside the payload's keystream. Two engine calls
// instead of four.

// MAC over buf[16 .. 16 + padded), with B_0 from the slot if not yet taken.
void mac_short(const Sm4State& s, Sm4CcmMessage& m, uint8_t* buf, size_t padded) {
    if (m.mac_started) {
        mac_blocks(s, m.mac, buf + kBlock, padded / kBlock);
        return;
    }
    std::memcpy(buf, m.b0, kBlock);
    mac_blocks(s, m.mac, buf, 1 + padded / kBlock);  // m.mac is zero: E(B_0) first
    m.mac_started = true;
}

void encrypt_short(Sm4State& s, Sm4CcmMessage& m, uint8_t* out, const uint8_t* in, size_t len,
                   uint8_t tag[16]) {
    uint8_t buf[kChunk];
    const size_t padded = padded_length(len);
    std::memcpy(buf + kBlock, in, len);
    std::memset(buf + kBlock + len, 0, padded - len);
    mac_short(s, m, buf, padded);
    std::memset(buf, 0, kBlock);
    std::memcpy(s.iv, m.a0, kBlock);
    s.num = 0;
    sm4_ctr(s, buf, buf, kBlock + len);  // [E(A_0) | ciphertext]
    std::memcpy(out, buf + kBlock, len);
    for (size_t i = 0; i < kBlock; ++i) tag[i] = m.mac[i] ^ buf[i];
    secure_zero(buf, kBlock + padded);
    secure_zero(m.mac, sizeof m.mac);
    forget_counter(s);
}

// The plaintext stays in buf until the tag has verified.
bool decrypt_short(Sm4State& s, Sm4CcmMessage& m, uint8_t* out, const uint8_t* in, size_t len,
                   const uint8_t* expected_tag) {
    uint8_t buf[kChunk], s0[kBlock], tag[kBlock];
    const size_t padded = padded_length(len);
    std::memset(buf, 0, kBlock);
    std::memcpy(buf + kBlock, in, len);
    std::memcpy(s.iv, m.a0, kBlock);
    s.num = 0;
    sm4_ctr(s, buf, buf, kBlock + len);  // [E(A_0) | plaintext]
    std::memcpy(s0, buf, kBlock);
    std::memset(buf + kBlock + len, 0, padded - len);
    mac_short(s, m, buf, padded);
    for (size_t i = 0; i < kBlock; ++i) tag[i] = m.mac[i] ^ s0[i];
    const bool ok = constant_time_equal(tag, expected_tag, m.tag_len);
    if (ok) std::memcpy(out, buf + kBlock, len);
    secure_zero(buf, kBlock + padded);
    secure_zero(s0, sizeof s0);
    secure_zero(tag, sizeof tag);
    secure_zero(m.mac, sizeof m.mac);
    forget_counter(s);
    return ok;
}

// A payload of another length than B_0 declares: B_0 and the keystream
// taken ahead are the declared length's, so nothing is computed.
bool refuse(Sm4CcmMessage& m) {
    forget_mac(m);
    return false;
}

}  // namespace

uint64_t ccm_max_length(size_t l) {
    return l >= 8 ? UINT64_MAX : (uint64_t{1} << (8 * l)) - 1;
}

bool ccm_start(Sm4CcmMessage& m, const uint8_t* nonce, size_t l, uint64_t length,
               size_t tag_len) {
    if (l < 2 || l > 8 || tag_len < 4 || tag_len > 16 || tag_len % 2 != 0 ||
        length > ccm_max_length(l))
        return false;
    const size_t nonce_len = 15 - l;
    std::memset(&m, 0, sizeof m);
    m.b0[0] = static_cast<uint8_t>(((tag_len - 2) / 2) << 3 | (l - 1));
    std::memcpy(m.b0 + 1, nonce, nonce_len);
    uint64_t v = length;
    for (size_t i = 0; i < l; ++i, v >>= 8) m.b0[kBlock - 1 - i] = static_cast<uint8_t>(v);
    m.a0[0] = static_cast<uint8_t>(l - 1);
    std::memcpy(m.a0 + 1, nonce, nonce_len);
    m.length = length;
    m.tag_len = tag_len;
    return true;
}

void ccm_aad(const Sm4State& s, Sm4CcmMessage& m, const uint8_t* aad, size_t aad_len) {
    m.b0[0] |= kAdataFlag;
    // [B_0 | first AAD block] in one CBC-MAC call (the chaining value is
    // zero, so the first block out is E(B_0)).
    uint8_t blocks[2 * kBlock] = {};
    std::memcpy(blocks, m.b0, kBlock);
    uint8_t* first = blocks + kBlock;
    // The AAD's length in front of it: 2, 6 or 10 bytes (SP 800-38C A.2.2).
    size_t used;
    if (aad_len < 0xff00) {
        first[0] = static_cast<uint8_t>(aad_len >> 8);
        first[1] = static_cast<uint8_t>(aad_len);
        used = 2;
    } else if (static_cast<uint64_t>(aad_len) <= 0xffffffffu) {
        first[0] = 0xff;
        first[1] = 0xfe;
        store_be32(first + 2, static_cast<uint32_t>(aad_len));
        used = 6;
    } else {
        first[0] = 0xff;
        first[1] = 0xff;
        store_be64(first + 2, static_cast<uint64_t>(aad_len));
        used = 10;
    }
    const size_t take = aad_len < kBlock - used ? aad_len : kBlock - used;
    std::memcpy(first + used, aad, take);
    if (!m.mac_started && ahead_blocks(m.length) == 0) {
        mac_blocks(s, m.mac, blocks, 2);
        m.mac_started = true;
    } else {
        start_mac(s, m);
        mac_blocks(s, m.mac, first, 1);
    }
    secure_zero(blocks, sizeof blocks);
    mac_padded(s, m.mac, aad + take, aad_len - take);
}

static bool encrypt_message(Sm4State& s, Sm4CcmMessage& m, uint8_t* out, const uint8_t* in, size_t len,
                            uint8_t tag[16]) {
    if (len != m.length) return refuse(m);
    if (len <= kAheadMax) {
        encrypt_ahead(s, m, out, in, len, tag);
        return true;
    }
    if (len <= kShortMax) {
        encrypt_short(s, m, out, in, len, tag);
        return true;
    }
    start_mac(s, m);
    counter_at_first_block(s, m);
    crypt_and_mac(s, m, Sm4Direction::kEncrypt, out, in, len);
    forget_counter(s);
    finish_tag(m, tag);
    return true;
}

static bool decrypt_message(Sm4State& s, Sm4CcmMessage& m, uint8_t* out, const uint8_t* in, size_t len,
                            const uint8_t* expected_tag) {
    if (len != m.length) return refuse(m);
    if (len <= kAheadMax) return decrypt_ahead(s, m, out, in, len, expected_tag);
    if (len <= kShortMax) return decrypt_short(s, m, out, in, len, expected_tag);
    start_mac(s, m);
    // First pass: the plaintext a chunk at a time on the stack, only to MAC it.
    counter_at_first_block(s, m);
    uint8_t plain[kChunk];
    for (size_t done = 0; done < len;) {
        const size_t n = len - done < kChunk ? len - done : kChunk;
        crypt_and_mac(s, m, Sm4Direction::kDecrypt, plain, in + done, n);
        done += n;
    }
    secure_zero(plain, sizeof plain);
    uint8_t tag[kBlock];
    finish_tag(m, tag);
    const bool ok = constant_time_equal(tag, expected_tag, m.tag_len);
    secure_zero(tag, sizeof tag);
    // Second pass, only for a message that verified: the plaintext goes out.
    if (ok && len != 0) {
        counter_at_first_block(s, m);
        sm4_ctr(s, out, in, len);
    }
    forget_counter(s);
    return ok;
}

// GCC vectorises the XORs and copies of the MAC and the keystream: the
// CBC-MAC values and E_K(A_0) stayed in xmm registers
// (message_stack_residue_test).
bool ccm_encrypt(Sm4State& s, Sm4CcmMessage& m, uint8_t* out, const uint8_t* in, size_t len,
                 uint8_t tag[16]) {
    const bool ok = encrypt_message(s, m, out, in, len, tag);
    clear_vector_registers();
    return ok;
}

bool ccm_decrypt(Sm4State& s, Sm4CcmMessage& m, uint8_t* out, const uint8_t* in, size_t len,
                 const uint8_t* expected_tag) {
    const bool ok = decrypt_message(s, m, out, in, len, expected_tag);
    clear_vector_registers();
    return ok;
}

}  // namespace hwaccel
