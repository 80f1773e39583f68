// hwaccel-kernel-bench: hwaccel's engines against the Linux kernel's x86
// crypto code (Debian 12's linux-source-6.1, compiled in user space by
// scripts/kernel-peer.sh), MB/s medians, interleaved call by call.
//
// The kernel's code is linked from the peer's static library only; nothing of
// it is in this file. Its skcipher glue (sm4_aesni_avx_glue.c,
// sm4_aesni_avx2_glue.c, ghash-clmulni-intel_glue.c) is not compiled: the
// loops below are ours, in the order of calls the glue makes on one
// contiguous buffer (no skcipher_walk, no kernel_fpu_begin/end, no syscall),
// so the kernel's figures here are the best its code can do.
//
// Before anything is timed, every kernel operation and every hwaccel engine
// must give the same output as a third implementation (OpenSSL's default
// provider for SM4 and the digests, a bitwise multiply for GHASH) on random
// keys and data; any difference stops the tool with status 1.
#include <openssl/evp.h>
#include <x86intrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "fenced_tsc.hpp"
#include "hwaccel/registry.hpp"
#include "kernel_peer.h"

namespace {

constexpr size_t kSizes[] = {16, 64, 256, 1024, 16384};
std::mt19937_64 rng(20261207);

void fill(uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(rng());
}
std::vector<uint8_t> random_bytes(size_t n) {
    std::vector<uint8_t> v(n);
    fill(v.data(), n);
    return v;
}

[[noreturn]] void mismatch(const std::string& what) {
    std::fprintf(stderr, "MISMATCH: %s\n", what.c_str());
    std::exit(1);
}
void expect_equal(const uint8_t* a, const uint8_t* b, size_t n, const std::string& what) {
    if (std::memcmp(a, b, n) != 0) mismatch(what);
}

// ---- the kernel's calls, in its glue's order -------------------------------

// 128-bit big-endian counter + 1 (crypto_inc over the 16-byte IV).
void be128_inc(uint8_t c[16]) {
    for (int i = 15; i >= 0; --i)
        if (++c[i] != 0) break;
}

// ECB: both SM4 modules register the AVX module's ECB (there is no 16-block
// ECB in 6.1): 8 blocks a call, then calls of up to 4.
void kernel_sm4_ecb(const uint32_t* rk, uint8_t* dst, const uint8_t* src, size_t nbytes) {
    for (; nbytes >= 128; nbytes -= 128, dst += 128, src += 128) sm4_aesni_avx_crypt8(rk, dst, src, 8);
    while (nbytes >= 16) {
        const int nb = static_cast<int>(std::min<size_t>(nbytes / 16, 4));
        sm4_aesni_avx_crypt4(rk, dst, src, nb);
        dst += 16 * nb;
        src += 16 * nb;
        nbytes -= 16 * nb;
    }
}

// CTR (AVX2 module): 16-block calls, then up to 8 counter blocks made in C
// and encrypted by crypt8, XORed in C.
void kernel_sm4_ctr(const uint32_t* rk, uint8_t* dst, const uint8_t* src, size_t nbytes, uint8_t iv[16]) {
    for (; nbytes >= 256; nbytes -= 256, dst += 256, src += 256) sm4_aesni_avx2_ctr_enc_blk16(rk, dst, src, iv);
    while (nbytes >= 16) {
        uint8_t ks[128];
        const size_t nb = std::min<size_t>(nbytes / 16, 8);
        for (size_t i = 0; i < nb; ++i) {
            std::memcpy(ks + 16 * i, iv, 16);
            be128_inc(iv);
        }
        sm4_aesni_avx_crypt8(rk, ks, ks, static_cast<int>(nb));
        for (size_t i = 0; i < 16 * nb; ++i) dst[i] = src[i] ^ ks[i];
        dst += 16 * nb;
        src += 16 * nb;
        nbytes -= 16 * nb;
    }
}

// CBC decryption (AVX2 module): 16-block calls, then up to 8 blocks through
// crypt8 and the chaining XORs in C, last block first (in place allowed).
void kernel_sm4_cbc_dec(const uint32_t* rk_dec, uint8_t* dst, const uint8_t* src, size_t nbytes, uint8_t iv[16]) {
    for (; nbytes >= 256; nbytes -= 256, dst += 256, src += 256) sm4_aesni_avx2_cbc_dec_blk16(rk_dec, dst, src, iv);
    while (nbytes >= 16) {
        uint8_t ks[128], next_iv[16];
        const size_t nb = std::min<size_t>(nbytes / 16, 8);
        sm4_aesni_avx_crypt8(rk_dec, ks, src, static_cast<int>(nb));
        std::memcpy(next_iv, src + 16 * (nb - 1), 16);
        for (size_t b = nb - 1; b > 0; --b)
            for (size_t i = 0; i < 16; ++i) dst[16 * b + i] = src[16 * (b - 1) + i] ^ ks[16 * b + i];
        for (size_t i = 0; i < 16; ++i) dst[i] = iv[i] ^ ks[i];
        std::memcpy(iv, next_iv, 16);
        dst += 16 * nb;
        src += 16 * nb;
        nbytes -= 16 * nb;
    }
}

// CBC encryption: one block at a time through crypto/sm4.c's C
// sm4_crypt_block, as sm4_cbc_encrypt does (no SIMD for a serial mode).
void kernel_sm4_cbc_enc(const uint32_t* rk, uint8_t* dst, const uint8_t* src, size_t nbytes, uint8_t iv[16]) {
    const uint8_t* prev = iv;
    for (; nbytes >= 16; nbytes -= 16, dst += 16, src += 16) {
        for (int i = 0; i < 16; ++i) dst[i] = src[i] ^ prev[i];
        sm4_crypt_block(rk, dst, dst);
        prev = dst;
    }
    if (prev != iv) std::memcpy(iv, prev, 16);
}

// The kernel's GHASH key: H times x in its bit-reflected layout, the form
// clmul_ghash_update multiplies by (what ghash_setkey stores).
kernel_u128 kernel_ghash_key(const uint8_t h[16]) {
    uint64_t hi = 0, lo = 0;
    for (int i = 0; i < 8; ++i) {
        hi = hi << 8 | h[i];
        lo = lo << 8 | h[8 + i];
    }
    kernel_u128 k;
    k.a = (lo << 1) | (hi >> 63);
    k.b = (hi << 1) | (lo >> 63);
    if (hi >> 63) k.b ^= uint64_t{0xc2} << 56;
    return k;
}

// ---- hwaccel's calls, as the provider makes them ---------------------------

void hw_ctr(const hwaccel::Sm4Engine* e, const hwaccel::Sm4Key* k, uint8_t* out, const uint8_t* in, size_t nb,
            uint8_t ctr[16]) {
    if (e->ctr) return e->ctr(k, out, in, nb, ctr);
    for (size_t i = 0; i < nb; ++i) {  // the provider's fallback: counter blocks through ecb
        uint8_t ks[16];
        e->ecb(k, hwaccel::Sm4Direction::kEncrypt, ks, ctr, 1);
        be128_inc(ctr);
        for (int j = 0; j < 16; ++j) out[16 * i + j] = in[16 * i + j] ^ ks[j];
    }
}
void hw_cbc_dec(const hwaccel::Sm4Engine* e, const hwaccel::Sm4Key* k, uint8_t* out, const uint8_t* in, size_t nb,
                uint8_t iv[16]) {
    if (e->cbc_decrypt) return e->cbc_decrypt(k, out, in, nb, iv);
    e->ecb(k, hwaccel::Sm4Direction::kDecrypt, out, in, nb);  // out != in here
    for (size_t i = 0; i < nb; ++i)
        for (int j = 0; j < 16; ++j) out[16 * i + j] ^= i ? in[16 * (i - 1) + j] : iv[j];
    std::memcpy(iv, in + 16 * (nb - 1), 16);
}
void hw_cbc_enc(const hwaccel::Sm4Engine* e, const hwaccel::Sm4Key* k, uint8_t* out, const uint8_t* in, size_t nb,
                uint8_t iv[16]) {
    if (e->cbc_encrypt) return e->cbc_encrypt(k, out, in, nb, iv);
    uint8_t x[16];  // the provider's serial loop over encrypt_block
    std::memcpy(x, iv, 16);
    for (size_t i = 0; i < nb; ++i) {
        for (int j = 0; j < 16; ++j) x[j] ^= in[16 * i + j];
        e->encrypt_block(k, x, x);
        std::memcpy(out + 16 * i, x, 16);
    }
    std::memcpy(iv, x, 16);
}

// ---- third implementations -------------------------------------------------

std::vector<uint8_t> openssl_cipher(const char* name, bool enc, const uint8_t key[16], const uint8_t* iv,
                                    const uint8_t* in, size_t n) {
    EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name, "provider=default");
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    std::vector<uint8_t> out(n + 16);
    int len = 0, fin = 0;
    if (!c || !ctx || !EVP_CipherInit_ex(ctx, c, nullptr, key, iv, enc) || !EVP_CIPHER_CTX_set_padding(ctx, 0) ||
        !EVP_CipherUpdate(ctx, out.data(), &len, in, static_cast<int>(n)) ||
        !EVP_CipherFinal_ex(ctx, out.data() + len, &fin) || size_t(len + fin) != n) {
        std::fprintf(stderr, "OpenSSL's default %s failed\n", name);
        std::exit(1);
    }
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    out.resize(n);
    return out;
}

std::vector<uint8_t> openssl_digest(const char* name, const uint8_t* in, size_t n) {
    unsigned char out[64];
    unsigned int len = 0;
    EVP_MD* md = EVP_MD_fetch(nullptr, name, "provider=default");
    if (!md || !EVP_Digest(in, n, out, &len, md, nullptr)) {
        std::fprintf(stderr, "OpenSSL's default %s failed\n", name);
        std::exit(1);
    }
    EVP_MD_free(md);
    return {out, out + len};
}

// GHASH by the book (NIST SP 800-38D, algorithm 1), one bit at a time.
void ghash_reference(const uint8_t h[16], uint8_t y[16], const uint8_t* data, size_t nblocks) {
    for (size_t b = 0; b < nblocks; ++b) {
        uint8_t x[16], z[16] = {}, v[16];
        for (int i = 0; i < 16; ++i) x[i] = y[i] ^ data[16 * b + i];
        std::memcpy(v, h, 16);
        for (int bit = 0; bit < 128; ++bit) {
            if (x[bit / 8] >> (7 - bit % 8) & 1)
                for (int i = 0; i < 16; ++i) z[i] ^= v[i];
            const bool lsb = v[15] & 1;
            for (int i = 15; i > 0; --i) v[i] = static_cast<uint8_t>(v[i] >> 1 | v[i - 1] << 7);
            v[0] >>= 1;
            if (lsb) v[0] ^= 0xe1;
        }
        std::memcpy(y, z, 16);
    }
}

// Merkle-Damgard padding of a message into whole 64-byte blocks.
std::vector<uint8_t> md_pad(const uint8_t* m, size_t n) {
    std::vector<uint8_t> p(m, m + n);
    p.push_back(0x80);
    while (p.size() % 64 != 56) p.push_back(0);
    for (int i = 7; i >= 0; --i) p.push_back(static_cast<uint8_t>(uint64_t(n) * 8 >> (8 * i)));
    return p;
}
std::vector<uint8_t> be_words(const uint32_t* w, size_t n) {
    std::vector<uint8_t> out;
    for (size_t i = 0; i < n; ++i)
        for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<uint8_t>(w[i] >> s));
    return out;
}

// ---- the engines this CPU runs ---------------------------------------------

template <class Engine>
std::vector<const Engine*> available(hwaccel::EngineList<Engine> list) {
    std::vector<const Engine*> v;
    for (const Engine* e : list)
        if (e->available(hwaccel::cpu_features())) v.push_back(e);
    return v;
}

// ---- differential ----------------------------------------------------------

void check_sm4(const std::vector<const hwaccel::Sm4Engine*>& engines) {
    // Lengths that take every branch of the glue loops: 16-block calls, 8-
    // and 4-block calls, each tail of 1..15 blocks; and a 64-bit carry in
    // the counter.
    std::vector<size_t> counts;
    for (size_t i = 1; i <= 48; ++i) counts.push_back(i);
    for (size_t i : {63, 64, 65, 127, 255, 256, 257, 1024, 1031}) counts.push_back(i);
    int cases = 0;
    for (size_t nb : counts) {
        for (int trial = 0; trial < 2; ++trial) {
            uint8_t key[16], iv[16];
            fill(key, 16);
            fill(iv, 16);
            if (trial == 1) {  // the counter's low 64 bits wrap within the message
                std::memset(iv + 8, 0xff, 8);
                iv[15] = static_cast<uint8_t>(0xff - nb % 7);
            }
            const size_t n = 16 * nb;
            const auto in = random_bytes(n);
            const auto want_ecb = openssl_cipher("SM4-ECB", true, key, nullptr, in.data(), n);
            const auto want_ctr = openssl_cipher("SM4-CTR", true, key, iv, in.data(), n);
            const auto want_cbc_dec = openssl_cipher("SM4-CBC", false, key, iv, in.data(), n);
            const auto want_cbc_enc = openssl_cipher("SM4-CBC", true, key, iv, in.data(), n);
            const std::string at = " at " + std::to_string(nb) + " blocks";

            sm4_ctx kc;
            if (sm4_expandkey(&kc, key, 16) != 0) mismatch("kernel sm4_expandkey refused a 16-byte key");
            std::vector<uint8_t> out(n);
            uint8_t c[16];
            kernel_sm4_ecb(kc.rkey_enc, out.data(), in.data(), n);
            expect_equal(out.data(), want_ecb.data(), n, "kernel SM4-ECB" + at);
            std::memcpy(c, iv, 16);
            kernel_sm4_ctr(kc.rkey_enc, out.data(), in.data(), n, c);
            expect_equal(out.data(), want_ctr.data(), n, "kernel SM4-CTR" + at);
            std::memcpy(c, iv, 16);
            kernel_sm4_cbc_dec(kc.rkey_dec, out.data(), in.data(), n, c);
            expect_equal(out.data(), want_cbc_dec.data(), n, "kernel SM4-CBC decrypt" + at);
            expect_equal(c, in.data() + n - 16, 16, "kernel SM4-CBC decrypt's next IV" + at);
            std::memcpy(c, iv, 16);
            kernel_sm4_cbc_enc(kc.rkey_enc, out.data(), in.data(), n, c);
            expect_equal(out.data(), want_cbc_enc.data(), n, "kernel SM4-CBC encrypt" + at);
            expect_equal(c, want_cbc_enc.data() + n - 16, 16, "kernel SM4-CBC encrypt's next IV" + at);

            for (const hwaccel::Sm4Engine* e : engines) {
                const std::string who = std::string("hwaccel ") + e->name + " ";
                hwaccel::Sm4Key k;
                e->set_key(&k, key);
                expect_equal(reinterpret_cast<const uint8_t*>(k.enc), reinterpret_cast<const uint8_t*>(kc.rkey_enc),
                             128, who + "encryption round keys against the kernel's");
                expect_equal(reinterpret_cast<const uint8_t*>(k.dec), reinterpret_cast<const uint8_t*>(kc.rkey_dec),
                             128, who + "decryption round keys against the kernel's");
                e->ecb(&k, hwaccel::Sm4Direction::kEncrypt, out.data(), in.data(), nb);
                expect_equal(out.data(), want_ecb.data(), n, who + "SM4-ECB" + at);
                std::memcpy(c, iv, 16);
                hw_ctr(e, &k, out.data(), in.data(), nb, c);
                expect_equal(out.data(), want_ctr.data(), n, who + "SM4-CTR" + at);
                std::memcpy(c, iv, 16);
                hw_cbc_dec(e, &k, out.data(), in.data(), nb, c);
                expect_equal(out.data(), want_cbc_dec.data(), n, who + "SM4-CBC decrypt" + at);
                std::memcpy(c, iv, 16);
                hw_cbc_enc(e, &k, out.data(), in.data(), nb, c);
                expect_equal(out.data(), want_cbc_enc.data(), n, who + "SM4-CBC encrypt" + at);
            }
            ++cases;
        }
    }
    std::printf("check: SM4 ECB/CTR/CBC both ways and key schedule, kernel and %zu engines = OpenSSL default, %d cases\n",
                engines.size(), cases);
}

template <size_t kWords>
void check_md(const char* name, const char* openssl_name, void (*kernel)(uint32_t*, const void*, int),
              const uint32_t (&init)[kWords], const std::vector<const hwaccel::Sha1Engine*>* e1,
              const std::vector<const hwaccel::Sha256Engine*>* e256) {
    int cases = 0;
    for (size_t n = 0; n <= 1100; n += (n < 200 ? 1 : 37)) {
        const auto m = random_bytes(n);
        const auto want = openssl_digest(openssl_name, m.data(), n);
        const auto p = md_pad(m.data(), n);
        uint32_t st[kWords];
        std::memcpy(st, init, sizeof st);
        kernel(st, p.data(), static_cast<int>(p.size() / 64));
        if (be_words(st, kWords) != want) mismatch(std::string("kernel ") + name + " at " + std::to_string(n) + " bytes");
        auto check = [&](const char* en, auto blocks) {
            uint32_t s[kWords];
            std::memcpy(s, init, sizeof s);
            blocks(s, p.data(), p.size() / 64);
            if (be_words(s, kWords) != want)
                mismatch(std::string("hwaccel ") + en + " " + name + " at " + std::to_string(n) + " bytes");
        };
        if (e1)
            for (const auto* e : *e1) check(e->name, [&](uint32_t* s, const uint8_t* d, size_t b) { e->blocks(s, d, b); });
        if (e256)
            for (const auto* e : *e256) check(e->name, [&](uint32_t* s, const uint8_t* d, size_t b) { e->blocks(s, d, b); });
        ++cases;
    }
    std::printf("check: %s, kernel and every engine = OpenSSL default, %d lengths\n", name, cases);
}

constexpr uint32_t kSha1Init[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
constexpr uint32_t kSha256Init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
constexpr size_t kSha3Rate = 136;

void check_sha3(const std::vector<const hwaccel::KeccakEngine*>& engines) {
    kernel_shash tfm{32};
    int cases = 0;
    for (size_t n = 0; n <= 1100; n += (n < 300 ? 1 : 41)) {
        const auto m = random_bytes(n);
        const auto want = openssl_digest("SHA3-256", m.data(), n);
        kernel_sha3_desc d{&tfm, {}};
        uint8_t out[32];
        crypto_sha3_init(&d);
        // Two updates, so the kernel's partial-block buffering is exercised.
        crypto_sha3_update(&d, m.data(), static_cast<unsigned>(n / 3));
        crypto_sha3_update(&d, m.data() + n / 3, static_cast<unsigned>(n - n / 3));
        crypto_sha3_final(&d, out);
        expect_equal(out, want.data(), 32, "kernel SHA3-256 at " + std::to_string(n) + " bytes");
        // hwaccel: whole blocks through absorb, the padded last block too.
        std::vector<uint8_t> p(m);
        p.push_back(0x06);
        while (p.size() % kSha3Rate) p.push_back(0);
        p.back() |= 0x80;
        for (const auto* e : engines) {
            uint64_t st[25] = {};
            e->absorb(st, p.data(), p.size() / kSha3Rate, kSha3Rate);
            expect_equal(reinterpret_cast<const uint8_t*>(st), want.data(), 32,
                         std::string("hwaccel ") + e->name + " SHA3-256 at " + std::to_string(n) + " bytes");
        }
        ++cases;
    }
    std::printf("check: SHA3-256, kernel and %zu engines = OpenSSL default, %d lengths\n", engines.size(), cases);
}

void check_ghash(const std::vector<const hwaccel::GhashEngine*>& engines) {
    int cases = 0;
    for (size_t nb = 0; nb <= 70; ++nb) {
        for (int trial = 0; trial < 2; ++trial) {
            uint8_t h[16], y0[16];
            fill(h, 16);
            fill(y0, 16);
            if (trial == 1) h[0] |= 0x80;  // the carry out of H*x
            const auto d = random_bytes(16 * nb);
            uint8_t want[16], y[16];
            std::memcpy(want, y0, 16);
            ghash_reference(h, want, d.data(), nb);
            const kernel_u128 kk = kernel_ghash_key(h);
            std::memcpy(y, y0, 16);
            clmul_ghash_update(reinterpret_cast<char*>(y), reinterpret_cast<const char*>(d.data()),
                               static_cast<unsigned>(16 * nb), &kk);
            expect_equal(y, want, 16, "kernel GHASH at " + std::to_string(nb) + " blocks");
            for (const auto* e : engines) {
                hwaccel::GhashKey k;
                e->set_key(&k, h);
                std::memcpy(y, y0, 16);
                e->update(&k, y, d.data(), nb);
                expect_equal(y, want, 16, std::string("hwaccel ") + e->name + " GHASH at " + std::to_string(nb) + " blocks");
            }
            ++cases;
        }
    }
    std::printf("check: GHASH, kernel and %zu engines = bitwise reference, %d cases\n", engines.size(), cases);
}

// ---- timing ----------------------------------------------------------------

double tsc_hz() {
    const auto c0 = std::chrono::steady_clock::now();
    const uint64_t t0 = __rdtsc();
    while (std::chrono::steady_clock::now() - c0 < std::chrono::milliseconds(200)) {
    }
    const uint64_t t1 = __rdtsc();
    return double(t1 - t0) / std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// One row: an operation at one length, the kernel and each hwaccel engine.
// bytes: what one call processes (for MB/s).
struct Row {
    std::string op;
    size_t bytes;
    std::string label = {};  // the length asked for, where the call rounds it up to whole blocks
    std::vector<std::string> names;             // [0] is the kernel
    std::vector<std::function<void()>> calls;   // same order
    // Per implementation, per round: the median ticks per call.
    std::vector<std::vector<double>> round_medians;
};

struct Options {
    int rounds = 5;
    int trials = 61;
    bool markdown = false;
    std::vector<std::string> only;
};

// Each trial times one batch of calls of every implementation, the order
// rotating from trial to trial; a batch is enough calls for ~4 KiB, so the
// TSC reads are noise even at 16 bytes.
void time_row(Row& r, const Options& o) {
    const size_t k = r.calls.size();
    const int reps = static_cast<int>(std::max<size_t>(1, 4096 / r.bytes));
    if (r.round_medians.empty()) r.round_medians.assign(k, {});
    for (size_t i = 0; i < k; ++i) r.calls[i]();  // warm up
    std::vector<std::vector<double>> mine(k);
    for (int t = 0; t < o.trials; ++t) {
        for (size_t j = 0; j < k; ++j) {
            const size_t i = (j + t) % k;
            const uint64_t t0 = fenced_tsc();
            for (int rep = 0; rep < reps; ++rep) r.calls[i]();
            const uint64_t t1 = fenced_tsc();
            mine[i].push_back(double(t1 - t0) / reps);
        }
    }
    for (size_t i = 0; i < k; ++i) r.round_medians[i].push_back(median(mine[i]));
}

std::string blocks_label(size_t asked, size_t hashed) {
    return asked == hashed ? std::to_string(asked) : std::to_string(asked) + " (" + std::to_string(hashed) + ")";
}

std::string read_first(const char* path, const char* key) {
    std::ifstream f(path);
    std::string line;
    while (std::getline(f, line))
        if (line.rfind(key, 0) == 0) {
            const auto c = line.find(':');
            return c == std::string::npos ? line : line.substr(c + 2);
        }
    return "?";
}
std::string loadavg() {
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    f >> a >> b >> c;
    return a + " " + b + " " + c;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--rounds" && i + 1 < argc) o.rounds = std::atoi(argv[++i]);
        else if (a == "--trials" && i + 1 < argc) o.trials = std::atoi(argv[++i]);
        else if (a == "--markdown") o.markdown = true;
        else if (a == "--check-only") o.rounds = 0;
        else if (a == "-h" || a == "--help") {
            std::printf(
                "usage: hwaccel-kernel-bench [--rounds N] [--trials N] [--markdown] [--check-only] [OP...]\n"
                "hwaccel's engines against the Linux kernel 6.1's x86 crypto code (scripts/kernel-peer.sh),\n"
                "after a differential of both against OpenSSL's default provider (GHASH: a bitwise\n"
                "reference). MB/s medians of N rounds x N trials, implementations interleaved call by\n"
                "call; ratio = hwaccel MB/s / kernel MB/s. OPs (prefixes): sm4-ecb sm4-ctr sm4-cbc-dec\n"
                "sm4-cbc-enc sm4-key sha1 sha256 sha3-256 ghash. Defaults: 5 rounds, 61 trials.\n");
            return 0;
        } else o.only.push_back(a);
    }
    auto wanted = [&](const std::string& op) {
        if (o.only.empty()) return true;
        for (const auto& w : o.only)
            if (op.rfind(w, 0) == 0) return true;
        return false;
    };

    const auto sm4 = available(hwaccel::sm4_engines());
    const auto sha1 = available(hwaccel::sha1_engines());
    const auto sha256 = available(hwaccel::sha256_engines());
    const auto keccak = available(hwaccel::keccak_engines());
    const auto ghash = available(hwaccel::ghash_engines());
    const auto& cpu = hwaccel::cpu_features();
    if (!cpu.avx2 || !cpu.aesni || !cpu.sha_ni || !cpu.pclmulqdq) {
        std::fprintf(stderr, "this CPU lacks AVX2, AES-NI, SHA-NI or PCLMULQDQ, which the kernel's code here needs\n");
        return 2;
    }

    check_sm4(sm4);
    check_md<5>("SHA-1", "SHA1", sha1_ni_transform, kSha1Init, &sha1, nullptr);
    check_md<8>("SHA-256", "SHA256", sha256_ni_transform, kSha256Init, nullptr, &sha256);
    check_sha3(keccak);
    check_ghash(ghash);
    if (o.rounds == 0) return 0;

    // Shared inputs. One key per family; the buffers are reused call after
    // call (hot in L1/L2, as in `openssl speed`).
    std::vector<uint8_t> in = random_bytes(16384), out(16384);
    uint8_t key[16], iv[16], h[16];
    fill(key, 16);
    fill(iv, 16);
    fill(h, 16);
    sm4_ctx kc;
    sm4_expandkey(&kc, key, 16);
    std::vector<hwaccel::Sm4Key> sm4_keys(sm4.size());
    for (size_t i = 0; i < sm4.size(); ++i) sm4[i]->set_key(&sm4_keys[i], key);
    uint8_t ctr_state[16];  // running counters and chaining values: values do not matter here
    std::memcpy(ctr_state, iv, 16);

    std::vector<Row> rows;
    auto add_sm4 = [&](const char* op, auto kernel_call, auto hw_call) {
        if (!wanted(op)) return;
        for (size_t n : kSizes) {
            Row r{op, n, {}, {"kernel"}, {[=, &kc, &in, &out]() mutable { kernel_call(kc, out.data(), in.data(), n); }}, {}};
            for (size_t i = 0; i < sm4.size(); ++i) {
                r.names.push_back(sm4[i]->name);
                const hwaccel::Sm4Engine* e = sm4[i];
                const hwaccel::Sm4Key* k = &sm4_keys[i];
                r.calls.push_back([=, &in, &out]() { hw_call(e, k, out.data(), in.data(), n / 16); });
            }
            rows.push_back(std::move(r));
        }
    };
    static uint8_t chain[16];
    add_sm4("sm4-ecb", [](sm4_ctx& c, uint8_t* d, const uint8_t* s, size_t n) { kernel_sm4_ecb(c.rkey_enc, d, s, n); },
            [](const hwaccel::Sm4Engine* e, const hwaccel::Sm4Key* k, uint8_t* d, const uint8_t* s, size_t nb) {
                e->ecb(k, hwaccel::Sm4Direction::kEncrypt, d, s, nb);
            });
    add_sm4("sm4-ctr", [](sm4_ctx& c, uint8_t* d, const uint8_t* s, size_t n) { kernel_sm4_ctr(c.rkey_enc, d, s, n, chain); },
            [](const hwaccel::Sm4Engine* e, const hwaccel::Sm4Key* k, uint8_t* d, const uint8_t* s, size_t nb) {
                hw_ctr(e, k, d, s, nb, chain);
            });
    add_sm4("sm4-cbc-dec",
            [](sm4_ctx& c, uint8_t* d, const uint8_t* s, size_t n) { kernel_sm4_cbc_dec(c.rkey_dec, d, s, n, chain); },
            [](const hwaccel::Sm4Engine* e, const hwaccel::Sm4Key* k, uint8_t* d, const uint8_t* s, size_t nb) {
                hw_cbc_dec(e, k, d, s, nb, chain);
            });
    add_sm4("sm4-cbc-enc",
            [](sm4_ctx& c, uint8_t* d, const uint8_t* s, size_t n) { kernel_sm4_cbc_enc(c.rkey_enc, d, s, n, chain); },
            [](const hwaccel::Sm4Engine* e, const hwaccel::Sm4Key* k, uint8_t* d, const uint8_t* s, size_t nb) {
                hw_cbc_enc(e, k, d, s, nb, chain);
            });
    // Key schedule: 64 random keys a call, both directions' round keys (and
    // the engine's own layouts for hwaccel); "bytes" is 16 per key.
    std::vector<uint8_t> keys = random_bytes(64 * 16);
    if (wanted("sm4-key")) {
        static sm4_ctx key_scratch;
        Row r{"sm4-key", 64 * 16, "per key", {"kernel"}, {[&keys] {
                  for (size_t i = 0; i < 64; ++i) sm4_expandkey(&key_scratch, keys.data() + 16 * i, 16);
              }}, {}};
        static hwaccel::Sm4Key scratch;
        for (const auto* e : sm4) {
            r.names.push_back(e->name);
            r.calls.push_back([e, &keys] {
                for (size_t i = 0; i < 64; ++i) e->set_key(&scratch, keys.data() + 16 * i);
            });
        }
        rows.push_back(std::move(r));
    }
    // Digests: whole blocks, ceil(n / block) of them, state carried on.
    static uint32_t st1[5], st256[8];
    static uint64_t st3[25];
    if (wanted("sha1"))
        for (size_t n : kSizes) {
            const size_t nb = (n + 63) / 64;
            Row r{"sha1", nb * 64, blocks_label(n, nb * 64), {"kernel"}, {[nb, &in] { sha1_ni_transform(st1, in.data(), static_cast<int>(nb)); }}, {}};
            for (const auto* e : sha1) r.names.push_back(e->name), r.calls.push_back([e, nb, &in] { e->blocks(st1, in.data(), nb); });
            rows.push_back(std::move(r));
        }
    if (wanted("sha256"))
        for (size_t n : kSizes) {
            const size_t nb = (n + 63) / 64;
            Row r{"sha256", nb * 64, blocks_label(n, nb * 64), {"kernel"}, {[nb, &in] { sha256_ni_transform(st256, in.data(), static_cast<int>(nb)); }}, {}};
            for (const auto* e : sha256) r.names.push_back(e->name), r.calls.push_back([e, nb, &in] { e->blocks(st256, in.data(), nb); });
            rows.push_back(std::move(r));
        }
    static kernel_shash sha3_tfm{32};
    static kernel_sha3_desc sha3_desc{&sha3_tfm, {}};
    crypto_sha3_init(&sha3_desc);
    if (wanted("sha3-256"))
        for (size_t n : kSizes) {
            const size_t nb = (n + kSha3Rate - 1) / kSha3Rate;
            Row r{"sha3-256", nb * kSha3Rate, blocks_label(n, nb * kSha3Rate), {"kernel"}, {[nb, &in] {
                      crypto_sha3_update(&sha3_desc, in.data(), static_cast<unsigned>(nb * kSha3Rate));
                  }}, {}};
            for (const auto* e : keccak)
                r.names.push_back(e->name), r.calls.push_back([e, nb, &in] { e->absorb(st3, in.data(), nb, kSha3Rate); });
            rows.push_back(std::move(r));
        }
    static kernel_u128 gk = kernel_ghash_key(h);
    static uint8_t gy[16];
    std::vector<hwaccel::GhashKey> ghash_keys(ghash.size());
    for (size_t i = 0; i < ghash.size(); ++i) ghash[i]->set_key(&ghash_keys[i], h);
    if (wanted("ghash"))
        for (size_t n : kSizes) {
            Row r{"ghash", n, {}, {"kernel"}, {[n, &in] {
                      clmul_ghash_update(reinterpret_cast<char*>(gy), reinterpret_cast<const char*>(in.data()),
                                         static_cast<unsigned>(n), &gk);
                  }}, {}};
            for (size_t i = 0; i < ghash.size(); ++i) {
                const auto* e = ghash[i];
                hwaccel::GhashKey* k = &ghash_keys[i];
                r.names.push_back(e->name), r.calls.push_back([e, k, n, &in] { e->update(k, gy, in.data(), n / 16); });
            }
            rows.push_back(std::move(r));
        }

    const double hz = tsc_hz();
    const std::string load0 = loadavg();
    for (int round = 0; round < o.rounds; ++round)
        for (Row& r : rows) time_row(r, o);
    const std::string load1 = loadavg();

    std::printf("CPU: %s (family %s, model %s), TSC %.3f GHz; %d rounds x %d trials; load average %s before, %s after\n",
                read_first("/proc/cpuinfo", "model name").c_str(), read_first("/proc/cpuinfo", "cpu family").c_str(),
                read_first("/proc/cpuinfo", "model\t").c_str(), hz / 1e9, o.rounds, o.trials, load0.c_str(),
                load1.c_str());
    std::printf("MB/s = 10^6 bytes/s from TSC ticks, the median of the rounds' medians; ratio = hwaccel /\n"
                "kernel (above 1: hwaccel faster), the median of the rounds' ratios, [lo-hi] their range.\n"
                "sm4-key: million keys/s.\n"
                "Digests hash whole blocks: \"16 (64)\" = 16 bytes asked, one 64-byte block hashed (MB/s of those).\n");
    std::string last_header;
    for (const Row& r : rows) {
        std::string header = "| op | bytes | kernel";
        for (size_t i = 1; i < r.names.size(); ++i) header += " | " + r.names[i];
        header += " |";
        if (header != last_header) {
            std::printf("\n%s\n|", header.c_str());
            for (size_t i = 0; i < r.names.size() + 2; ++i) std::printf("---|");
            std::printf("\n");
            last_header = header;
        }
        const bool keys_row = r.op == "sm4-key";
        auto rate = [&](double ticks) { return keys_row ? hz / ticks * 64 / 1e6 : hz / ticks * double(r.bytes) / 1e6; };
        const double k = median(r.round_medians[0]);
        std::printf("| %s | %s | %.*f", r.op.c_str(), r.label.empty() ? std::to_string(r.bytes).c_str() : r.label.c_str(),
                    keys_row ? 2 : 0, rate(k));
        for (size_t i = 1; i < r.names.size(); ++i) {
            const double m = median(r.round_medians[i]);
            std::vector<double> q;
            for (size_t j = 0; j < r.round_medians[i].size(); ++j) q.push_back(r.round_medians[0][j] / r.round_medians[i][j]);
            const auto [lo, hi] = std::minmax_element(q.begin(), q.end());
            if (o.markdown) std::printf(" | %.*f (%.2fx)", keys_row ? 2 : 0, rate(m), median(q));
            else std::printf(" | %.*f (%.2fx [%.2f-%.2f])", keys_row ? 2 : 0, rate(m), median(q), *lo, *hi);
        }
        std::printf(" |\n");
    }
    return 0;
}
