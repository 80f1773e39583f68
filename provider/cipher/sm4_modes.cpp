#include "cipher/sm4_modes.hpp"

#include <cstring>

#include "hwaccel/bytes.hpp"

namespace hwaccel {
namespace {

constexpr size_t kBlock = 16;
// Blocks per pass of the fallbacks for engines without fused modes: enough
// for a bulk ECB to run at full width, small enough for the stack.
constexpr size_t kChunkBlocks = 32;

void xor_block(uint8_t* out, const uint8_t* a, const uint8_t* b) {
    for (size_t i = 0; i < kBlock; ++i) out[i] = a[i] ^ b[i];
}

// Adds n to a 128-bit big-endian counter, wrapping at 2^128.
void counter_add(uint8_t counter[16], uint64_t n) {
    uint64_t lo = load_be64(counter + 8);
    uint64_t hi = load_be64(counter);
    uint64_t sum = lo + n;
    hi += sum < lo;  // carry into the upper half; the whole counter wraps at 2^128
    store_be64(counter, hi);
    store_be64(counter + 8, sum);
}

void cbc_decrypt_fallback(const Sm4State& s, uint8_t* out, const uint8_t* in, size_t nblocks,
                          uint8_t iv[16]) {
    uint8_t cipher[kChunkBlocks * kBlock];
    uint8_t plain[kChunkBlocks * kBlock];
    while (nblocks != 0) {
        size_t n = nblocks < kChunkBlocks ? nblocks : kChunkBlocks;
        // Keep the ciphertext: with out == in it is about to be overwritten.
        std::memcpy(cipher, in, n * kBlock);
        s.engine->ecb(&s.key, Sm4Direction::kDecrypt, plain, cipher, n);
        xor_block(out, plain, iv);
        for (size_t i = 1; i < n; ++i)
            xor_block(out + i * kBlock, plain + i * kBlock, cipher + (i - 1) * kBlock);
        std::memcpy(iv, cipher + (n - 1) * kBlock, kBlock);
        in += n * kBlock;
        out += n * kBlock;
        nblocks -= n;
    }
    secure_zero(plain, sizeof plain);
    secure_zero(cipher, sizeof cipher);
}

void cfb_decrypt_fallback(const Sm4State& s, uint8_t* out, const uint8_t* in, size_t nblocks,
                          uint8_t iv[16]) {
    uint8_t feedback[kChunkBlocks * kBlock];
    uint8_t cipher[kChunkBlocks * kBlock];
    while (nblocks != 0) {
        size_t n = nblocks < kChunkBlocks ? nblocks : kChunkBlocks;
        std::memcpy(cipher, in, n * kBlock);
        // Feedback block i is the previous ciphertext block: E() them all at once.
        std::memcpy(feedback, iv, kBlock);
        std::memcpy(feedback + kBlock, cipher, (n - 1) * kBlock);
        s.engine->ecb(&s.key, Sm4Direction::kEncrypt, feedback, feedback, n);
        for (size_t i = 0; i < n * kBlock; ++i) out[i] = feedback[i] ^ cipher[i];
        std::memcpy(iv, cipher + (n - 1) * kBlock, kBlock);
        in += n * kBlock;
        out += n * kBlock;
        nblocks -= n;
    }
    secure_zero(feedback, sizeof feedback);
    secure_zero(cipher, sizeof cipher);
}

void ctr_fallback(const Sm4State& s, uint8_t* out, const uint8_t* in, size_t nblocks,
                  uint8_t counter[16]) {
    uint8_t stream[kChunkBlocks * kBlock];
    while (nblocks != 0) {
        size_t n = nblocks < kChunkBlocks ? nblocks : kChunkBlocks;
        for (size_t i = 0; i < n; ++i) {
            std::memcpy(stream + i * kBlock, counter, kBlock);
            counter_add(counter, 1);
        }
        s.engine->ecb(&s.key, Sm4Direction::kEncrypt, stream, stream, n);
        for (size_t i = 0; i < n * kBlock; ++i) out[i] = in[i] ^ stream[i];
        in += n * kBlock;
        out += n * kBlock;
        nblocks -= n;
    }
    secure_zero(stream, sizeof stream);
}

}  // namespace

void sm4_forget_stream(Sm4State& s) {
    secure_zero(s.keystream, sizeof s.keystream);
    s.num = 0;
}

void sm4_ctr_resume(Sm4State& s) {
    uint8_t previous[kBlock];
    std::memcpy(previous, s.iv, kBlock);
    // Minus one, 128-bit big-endian, wrapping: the borrow runs up through
    // the zero bytes.
    for (size_t i = kBlock; i-- > 0;)
        if (previous[i]-- != 0) break;
    s.engine->encrypt_block(&s.key, s.keystream, previous);
    secure_zero(previous, sizeof previous);
}

void sm4_ecb(Sm4State& s, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t nblocks) {
    if (nblocks != 0) s.engine->ecb(&s.key, direction, out, in, nblocks);
}

void sm4_cbc(Sm4State& s, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t nblocks) {
    if (nblocks == 0) return;
    if (direction == Sm4Direction::kDecrypt) {
        if (s.engine->cbc_decrypt)
            s.engine->cbc_decrypt(&s.key, out, in, nblocks, s.iv);
        else
            cbc_decrypt_fallback(s, out, in, nblocks, s.iv);
        return;
    }
    // Serial by nature: each block needs the previous ciphertext.
    if (s.engine->cbc_encrypt) return s.engine->cbc_encrypt(&s.key, out, in, nblocks, s.iv);
    uint8_t x[kBlock];  // plaintext XOR chaining value
    for (size_t i = 0; i < nblocks; ++i, in += kBlock, out += kBlock) {
        xor_block(x, in, s.iv);
        s.engine->encrypt_block(&s.key, s.iv, x);
        std::memcpy(out, s.iv, kBlock);
    }
    secure_zero(x, sizeof x);
}

void sm4_cfb(Sm4State& s, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t len) {
    const bool encrypt = direction == Sm4Direction::kEncrypt;
    unsigned n = s.num;
    // Finish a partly used block byte by byte.
    while (n != 0 && len != 0) {
        uint8_t c = encrypt ? (s.iv[n] ^= *in) : *in;
        *out = encrypt ? c : static_cast<uint8_t>(s.iv[n] ^ c);
        s.iv[n] = c;
        ++in, ++out, --len;
        n = (n + 1) % kBlock;
    }
    size_t nblocks = len / kBlock;
    if (nblocks != 0) {
        if (encrypt && s.engine->cfb_encrypt) {
            s.engine->cfb_encrypt(&s.key, out, in, nblocks, s.iv);
            in += nblocks * kBlock;
            out += nblocks * kBlock;
        } else if (encrypt) {
            for (size_t i = 0; i < nblocks; ++i, in += kBlock, out += kBlock) {
                s.engine->encrypt_block(&s.key, s.iv, s.iv);
                xor_block(s.iv, s.iv, in);
                std::memcpy(out, s.iv, kBlock);
            }
        } else {
            if (s.engine->cfb_decrypt)
                s.engine->cfb_decrypt(&s.key, out, in, nblocks, s.iv);
            else
                cfb_decrypt_fallback(s, out, in, nblocks, s.iv);
            in += nblocks * kBlock;
            out += nblocks * kBlock;
        }
        len -= nblocks * kBlock;
    }
    if (len != 0) {
        s.engine->encrypt_block(&s.key, s.iv, s.iv);
        for (; len != 0; ++in, ++out, --len, ++n) {
            uint8_t c = encrypt ? (s.iv[n] ^= *in) : *in;
            *out = encrypt ? c : static_cast<uint8_t>(s.iv[n] ^ c);
            s.iv[n] = c;
        }
    }
    s.num = n;
}

void sm4_ofb(Sm4State& s, uint8_t* out, const uint8_t* in, size_t len) {
    unsigned n = s.num;
    // Finish a partly used keystream block, then whole blocks at once when
    // the engine has a fused OFB (iv is then the last keystream block, num 0).
    while (n != 0 && len != 0) {
        *out++ = *in++ ^ s.iv[n];
        --len;
        n = (n + 1) % kBlock;
    }
    if (size_t nblocks = len / kBlock; nblocks != 0 && s.engine->ofb) {
        s.engine->ofb(&s.key, out, in, nblocks, s.iv);
        in += nblocks * kBlock;
        out += nblocks * kBlock;
        len -= nblocks * kBlock;
    }
    for (; len != 0; ++in, ++out, --len) {
        if (n == 0) s.engine->encrypt_block(&s.key, s.iv, s.iv);
        *out = *in ^ s.iv[n];
        n = (n + 1) % kBlock;
    }
    s.num = n;
}

void sm4_ctr(Sm4State& s, uint8_t* out, const uint8_t* in, size_t len) {
    unsigned n = s.num;
    while (n != 0 && len != 0) {
        *out++ = *in++ ^ s.keystream[n];
        --len;
        n = (n + 1) % kBlock;
    }
    if (size_t nblocks = len / kBlock) {
        if (s.engine->ctr)
            s.engine->ctr(&s.key, out, in, nblocks, s.iv);
        else
            ctr_fallback(s, out, in, nblocks, s.iv);
        in += nblocks * kBlock;
        out += nblocks * kBlock;
        len -= nblocks * kBlock;
    }
    if (len != 0) {
        s.engine->encrypt_block(&s.key, s.keystream, s.iv);
        counter_add(s.iv, 1);
        for (; len != 0; --len, ++n) *out++ = *in++ ^ s.keystream[n];
    }
    s.num = n;
}

}  // namespace hwaccel
