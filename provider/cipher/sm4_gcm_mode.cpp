#include "cipher/sm4_gcm_mode.hpp"

#include <cstring>

#include "hwaccel/bytes.hpp"
#include "hwaccel/clear_vector_registers.hpp"

namespace hwaccel {
namespace {

constexpr size_t kBlock = 16;
// Blocks per fused CTR+GHASH pass: 4 KiB, written by CTR and read back by
// GHASH while still in L1.
constexpr size_t kFusedBlocks = 256;
// Blocks per pass of the CTR fallback for engines without a fused ctr.
constexpr size_t kFallbackBlocks = 32;

void inc32(uint8_t counter[16]) { store_be32(counter + 12, load_be32(counter + 12) + 1); }

// n counter blocks into dst: counter's first 12 bytes, then low, low + 1, ...
// (uint32_t wraps as inc32 does); returns the low word after them. The low
// word stays in a register: built in memory, block by block, each block
// waited for the previous one's store (25% of a 16 KiB message in the
// fallback, 12% of a 256-byte one in first_call).
uint32_t counter_blocks(uint8_t* dst, const uint8_t counter[16], uint32_t low, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        std::memcpy(dst + i * kBlock, counter, 12);
        store_be32(dst + i * kBlock + 12, low);
        // Hidden from the optimiser: made the loop's induction variable,
        // the secret word decided the loop's exit (memcheck caught it).
        __asm__("" : "+r"(low));
        ++low;
    }
    return low;
}

void ctr32_fallback(const Sm4GcmState& s, uint8_t* out, const uint8_t* in, size_t nblocks,
                    uint8_t counter[16]) {
    uint8_t stream[kFallbackBlocks * kBlock];
    uint32_t low = load_be32(counter + 12);
    while (nblocks != 0) {
        const size_t n = nblocks < kFallbackBlocks ? nblocks : kFallbackBlocks;
        low = counter_blocks(stream, counter, low, n);
        store_be32(counter + 12, low);
        s.sm4->ecb(&s.key, Sm4Direction::kEncrypt, stream, stream, n);
        for (size_t i = 0; i < n * kBlock; ++i) out[i] = in[i] ^ stream[i];
        in += n * kBlock;
        out += n * kBlock;
        nblocks -= n;
    }
    secure_zero(stream, sizeof stream);
}

// The engine's ctr_with_first takes E_K(J0) along with nblocks of keystream
// in a spare lane of its last batch (under a public counter: J0's low word
// is 1 and the text at most 2^32 - 2 blocks, so its 128-bit count is inc32
// here). Without a spare lane it would be a one-block call of its own: the
// tag's, as before. Measured on Zen 5 (gfni-avx512, TSC ticks through EVP):
// 2 KiB 1,716 -> 1,586, 8 and 16 KiB within 1%.
bool j0_rides_along(const Sm4GcmState& s, size_t nblocks) {
    return s.sm4->ctr_with_first != nullptr && !s.counter_secret && nblocks != 0 &&
           nblocks % s.sm4->ctr_with_first_batch != 0;
}

// GHASH over a partial block zero-padded to 16 bytes (GCM's padding).
void ghash_padded(Sm4GcmState& s, const uint8_t* data, size_t len) {
    uint8_t block[kBlock] = {};
    std::memcpy(block, data, len);
    s.ghash->update(&s.hash_key, s.y, block, 1);
    secure_zero(block, sizeof block);
}

// The queued blocks into y.
void flush(Sm4GcmState& s) {
    if (s.queued == 0) return;
    s.ghash->update(&s.hash_key, s.y, s.queue, s.queued);
    s.queued = 0;
}

// nblocks of the message's GHASH input (AAD, padded, then ciphertext): into
// the queue while they fit, else after it straight from data.
void absorb(Sm4GcmState& s, const uint8_t* data, size_t nblocks) {
    if (s.queued + nblocks > kGcmQueueBlocks) {
        flush(s);
        if (nblocks > kGcmQueueBlocks) {
            s.ghash->update(&s.hash_key, s.y, data, nblocks);
            return;
        }
    }
    std::memcpy(s.queue + s.queued * kBlock, data, nblocks * kBlock);
    s.queued += nblocks;
    if (s.queued > s.queue_written) s.queue_written = s.queued;
}

// AAD ends where text (or the tag) begins: its partial block is padded.
void close_aad(Sm4GcmState& s) {
    if (s.text_started) return;
    if (s.pending_len != 0) {
        std::memset(s.pending + s.pending_len, 0, kBlock - s.pending_len);
        absorb(s, s.pending, 1);
    }
    secure_zero(s.pending, sizeof s.pending);
    s.pending_len = 0;
    s.text_started = true;
}

// H alone (a longer IV needs it before J0; a long text has no use for more).
void derive_hash_key(Sm4GcmState& s) {
    uint8_t h[kBlock] = {};
    s.sm4->encrypt_block(&s.key, h, h);
    s.ghash->set_key(&s.hash_key, h);
    s.hash_key_due = false;
    secure_zero(h, sizeof h);
}

// The message's first engine call, when it first needs H or keystream:
// [0^128 if H is due], J0, inc32(J0), ...: H, E_K(J0) and `want` keystream
// blocks at once if they fit. A longer text keeps the calls it always made:
// H alone if due, its keystream through ctr, and E_K(J0) at the tag, where
// its latency hides behind GHASH's work (batched here it cost 1 KiB
// messages 3% on the AVX2 engines).
//
// Where the engine's ctr_with_first takes E_K(J0) in the text's one batch
// (j0_rides_along), a text of whole blocks, or one too long for the call
// here, under a public counter and a known H goes there instead: E_K(J0)
// and the keystream in one pass straight over the text (keystream_xor),
// without the counter blocks, the copy and the wipes here, and without the
// tag's separate E_K(J0) (measured on Zen 5, gfni-avx512: 208 of a 1 KiB
// message's 1,170 TSC ticks).
void first_call(Sm4GcmState& s, size_t len) {
    s.first_call_due = false;
    const size_t with_h = s.hash_key_due ? 1 : 0;
    const size_t want = (len + kBlock - 1) / kBlock;
    const size_t n = 1 + with_h + want;
    const size_t whole = len / kBlock;
    const bool fused = with_h == 0 && (len % kBlock == 0 || n > kGcmFirstBlocks) &&
                       j0_rides_along(s, whole < kFusedBlocks ? whole : kFusedBlocks);
    if (fused || n > kGcmFirstBlocks) {
        if (with_h != 0) derive_hash_key(s);
        std::memcpy(s.counter, s.j0, kBlock);
        inc32(s.counter);
        s.tag_mask_due = true;
        s.j0_rides = fused;
        return;
    }
    uint8_t blocks[kGcmFirstBlocks * kBlock];
    std::memset(blocks, 0, with_h * kBlock);
    uint8_t* j0 = blocks + with_h * kBlock;
    const uint32_t next = counter_blocks(j0, s.j0, load_be32(s.j0 + 12), n - with_h);
    std::memcpy(s.counter, s.j0, 12);
    store_be32(s.counter + 12, next);
    s.sm4->ecb(&s.key, Sm4Direction::kEncrypt, blocks, blocks, n);
    if (with_h != 0) {
        s.ghash->set_key(&s.hash_key, blocks);
        s.hash_key_due = false;
    }
    std::memcpy(s.tag_mask, j0, kBlock);
    s.ahead_blocks = n - 1 - with_h;
    s.ahead_used = 0;
    std::memcpy(s.ahead, j0 + kBlock, s.ahead_blocks * kBlock);
    secure_zero(blocks, n * kBlock);
    secure_zero(s.j0, sizeof s.j0);
}

// Whole blocks of text: the keystream of the first call first, then the counter.
void keystream_xor(Sm4GcmState& s, uint8_t* out, const uint8_t* in, size_t nblocks) {
    const size_t left = s.ahead_blocks - s.ahead_used;
    const size_t first = nblocks < left ? nblocks : left;
    const uint8_t* stream = s.ahead + s.ahead_used * kBlock;
    for (size_t i = 0; i < first * kBlock; ++i) out[i] = in[i] ^ stream[i];
    s.ahead_used += first;
    if (nblocks == first) return;
    out += first * kBlock;
    in += first * kBlock;
    nblocks -= first;
    // E_K(J0) still due (first_call's fused path): it comes with this keystream.
    if (s.j0_rides) {
        s.j0_rides = false;
        s.sm4->ctr_with_first(&s.key, s.tag_mask, out, in, nblocks, s.j0);
        std::memcpy(s.counter, s.j0, kBlock);
        secure_zero(s.j0, sizeof s.j0);
        s.tag_mask_due = false;
        return;
    }
    sm4_gcm_ctr32(s, out, in, nblocks, s.counter);
}

enum class Way { kEncrypt, kDecrypt };

// Both directions share everything but the order of CTR and GHASH over whole
// blocks, and which side of the XOR is ciphertext.
bool crypt(Sm4GcmState& s, Way way, uint8_t* out, const uint8_t* in, size_t len) {
    if (len > kGcmMaxTextBytes - s.text_len) return false;
    s.message_wiped = false;
    if (s.first_call_due) first_call(s, len);
    close_aad(s);
    s.text_len += len;
    // Finish the block a previous call began: its keystream is waiting.
    if (s.pending_len != 0) {
        while (len != 0 && s.pending_len < kBlock) {
            const uint8_t c_in = *in++;
            const uint8_t c_out = static_cast<uint8_t>(c_in ^ s.keystream[s.pending_len]);
            *out++ = c_out;
            s.pending[s.pending_len++] = way == Way::kEncrypt ? c_out : c_in;
            --len;
        }
        if (s.pending_len == kBlock) {
            absorb(s, s.pending, 1);
            s.pending_len = 0;
        }
    }
    size_t nblocks = len / kBlock;
    while (nblocks != 0) {
        const size_t n = nblocks < kFusedBlocks ? nblocks : kFusedBlocks;
        if (way == Way::kDecrypt) absorb(s, in, n);
        keystream_xor(s, out, in, n);
        if (way == Way::kEncrypt) absorb(s, out, n);
        in += n * kBlock;
        out += n * kBlock;
        nblocks -= n;
    }
    const size_t tail = len % kBlock;
    if (tail != 0) {
        if (s.ahead_used < s.ahead_blocks) {
            std::memcpy(s.keystream, s.ahead + s.ahead_used * kBlock, kBlock);
            ++s.ahead_used;
        } else {
            s.sm4->encrypt_block(&s.key, s.keystream, s.counter);
            inc32(s.counter);
        }
        for (size_t i = 0; i < tail; ++i) {
            const uint8_t c_in = in[i];
            const uint8_t c_out = static_cast<uint8_t>(c_in ^ s.keystream[i]);
            out[i] = c_out;
            s.pending[i] = way == Way::kEncrypt ? c_out : c_in;
        }
        s.pending_len = tail;
    }
    // GCC vectorises the XORs with the keystream above (and keystream_xor's):
    // keystream must not stay in xmm registers (message_stack_residue_test).
    clear_vector_registers();
    return true;
}

}  // namespace

void sm4_gcm_ctr32(const Sm4GcmState& s, uint8_t* out, const uint8_t* in, size_t nblocks,
                   uint8_t counter[16]) {
    // A secret counter must not choose how the text splits into calls.
    if (s.counter_secret) return ctr32_fallback(s, out, in, nblocks, counter);
    while (nblocks != 0) {
        // Blocks before the low word wraps to zero: the engine's 128-bit
        // counter would carry into the upper 96 bits there.
        const uint64_t room = (uint64_t{1} << 32) - load_be32(counter + 12);
        const size_t n = nblocks < room ? nblocks : static_cast<size_t>(room);
        if (s.sm4->ctr == nullptr) {
            ctr32_fallback(s, out, in, n, counter);
        } else {
            uint8_t upper[12];
            std::memcpy(upper, counter, sizeof upper);
            s.sm4->ctr(&s.key, out, in, n, counter);
            std::memcpy(counter, upper, sizeof upper);  // inc32 never touches them
        }
        in += n * kBlock;
        out += n * kBlock;
        nblocks -= n;
    }
}

void sm4_gcm_bind(Sm4GcmState& s, const Sm4Engine* sm4, const GhashEngine* ghash) {
    s.sm4 = sm4;
    s.ghash = ghash;
}

void sm4_gcm_set_key(Sm4GcmState& s, const uint8_t key[16]) {
    s.sm4->set_key(&s.key, key);
    // The old key's H stays until the first call overwrites it, as it did
    // when set_key derived it (wiping its 1 KiB cost 1 KiB messages 1-2%).
    s.hash_key_due = true;
}

void sm4_gcm_forget_message(Sm4GcmState& s) {
    // The tag wiped the message; set_iv of the next one need not again.
    if (s.message_wiped) return;
    s.first_call_due = s.tag_mask_due = s.j0_rides = false;
    secure_zero(s.j0, sizeof s.j0);
    secure_zero(s.tag_mask, sizeof s.tag_mask);
    // Only what the first call wrote: short messages pay for what they used.
    const size_t written = s.ahead_blocks < kGcmFirstBlocks ? s.ahead_blocks : kGcmFirstBlocks - 1;
    secure_zero(s.ahead, written * kBlock);
    s.ahead_used = s.ahead_blocks = 0;
    secure_zero(s.counter, sizeof s.counter);
    secure_zero(s.y, sizeof s.y);
    secure_zero(s.queue, s.queue_written * kBlock);
    s.queued = s.queue_written = 0;
    secure_zero(s.keystream, sizeof s.keystream);
    secure_zero(s.pending, sizeof s.pending);
    s.pending_len = 0;
    s.aad_len = 0;
    s.text_len = 0;
    s.text_started = false;
    s.message_wiped = true;
}

void sm4_gcm_set_iv(Sm4GcmState& s, const uint8_t* iv, size_t iv_len) {
    sm4_gcm_forget_message(s);
    s.message_wiped = false;
    if (iv_len == 12) {
        std::memcpy(s.j0, iv, 12);
        s.j0[15] = 1;
        s.counter_secret = false;
    } else {
        // J0 = GHASH(IV || 0^(s+64) || [len(IV)]_64), into y (zero) then moved.
        if (s.hash_key_due) derive_hash_key(s);
        const size_t whole = iv_len / kBlock;
        s.ghash->update(&s.hash_key, s.y, iv, whole);
        if (iv_len % kBlock != 0) ghash_padded(s, iv + whole * kBlock, iv_len % kBlock);
        uint8_t lengths[kBlock] = {};
        store_be64(lengths + 8, static_cast<uint64_t>(iv_len) * 8);
        s.ghash->update(&s.hash_key, s.y, lengths, 1);
        std::memcpy(s.j0, s.y, kBlock);
        secure_zero(s.y, sizeof s.y);
        s.counter_secret = true;
    }
    s.first_call_due = true;
}

bool sm4_gcm_aad(Sm4GcmState& s, const uint8_t* aad, size_t len) {
    if (s.text_started || len > kGcmMaxAadBytes - s.aad_len) return false;
    s.message_wiped = false;
    // GHASH needs H once a block is whole; the text's length is unknown yet.
    if (s.hash_key_due && s.first_call_due && s.pending_len + len >= kBlock)
        first_call(s, (kGcmFirstFewBlocks - 2) * kBlock);
    s.aad_len += len;
    if (s.pending_len != 0) {
        const size_t take = len < kBlock - s.pending_len ? len : kBlock - s.pending_len;
        std::memcpy(s.pending + s.pending_len, aad, take);
        s.pending_len += take;
        aad += take;
        len -= take;
        if (s.pending_len < kBlock) return true;
        absorb(s, s.pending, 1);
        s.pending_len = 0;
    }
    const size_t whole = len / kBlock;
    if (whole != 0) absorb(s, aad, whole);
    s.pending_len = len % kBlock;
    if (s.pending_len != 0) std::memcpy(s.pending, aad + whole * kBlock, s.pending_len);
    return true;
}

bool sm4_gcm_encrypt(Sm4GcmState& s, uint8_t* out, const uint8_t* in, size_t len) {
    return crypt(s, Way::kEncrypt, out, in, len);
}

bool sm4_gcm_decrypt(Sm4GcmState& s, uint8_t* out, const uint8_t* in, size_t len) {
    return crypt(s, Way::kDecrypt, out, in, len);
}

void sm4_gcm_tag(Sm4GcmState& s, uint8_t tag[16]) {
    if (s.first_call_due) first_call(s, 0);  // a message without text
    // The padded partial block (if any) and the lengths block join the
    // queue: a short message's GHASH is then one call.
    uint8_t last[2 * kBlock] = {};
    const size_t partial = s.pending_len != 0 ? 1 : 0;
    std::memcpy(last, s.pending, s.pending_len);
    store_be64(last + partial * kBlock, s.aad_len * 8);
    store_be64(last + partial * kBlock + 8, s.text_len * 8);
    absorb(s, last, partial + 1);
    flush(s);
    secure_zero(last, sizeof last);
    if (s.tag_mask_due) s.sm4->encrypt_block(&s.key, s.tag_mask, s.j0);
    for (size_t i = 0; i < kBlock; ++i) tag[i] = static_cast<uint8_t>(s.tag_mask[i] ^ s.y[i]);
    sm4_gcm_forget_message(s);
}

}  // namespace hwaccel
