// hwaccel-engine-bench: cycles per byte of every engine's block function
// against OpenSSL's default provider, in one process, interleaved.
//
// `openssl speed` (scripts/bench.py) measures what users get, provider and
// EVP overheads included; this tool measures the engines themselves, so a
// kernel change can be judged in seconds. Cycles are TSC ticks (the TSC runs
// at the nominal clock, not the boost clock): compare ratios, not absolutes.
// Each figure is the median of many trials, each trial one call over the
// whole buffer, engine and OpenSSL alternating so a busy machine slows both.
#include <openssl/evp.h>
#include <x86intrin.h>

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "fenced_tsc.hpp"
#include "hwaccel/registry.hpp"

namespace {

constexpr size_t kSizes[] = {16, 64, 256, 1024, 16384};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Median ticks per byte of a() and b(), alternating.
std::pair<double, double> race(size_t bytes, int trials, const std::function<void()>& a,
                               const std::function<void()>& b) {
    std::vector<double> ta, tb;
    for (int i = 0; i < 3; ++i) { a(); b(); }  // warm caches and clocks
    for (int i = 0; i < trials; ++i) {
        const uint64_t t0 = fenced_tsc();
        a();
        const uint64_t t1 = fenced_tsc();
        b();
        const uint64_t t2 = fenced_tsc();
        ta.push_back(double(t1 - t0) / double(bytes));
        tb.push_back(double(t2 - t1) / double(bytes));
    }
    return {median(ta), median(tb)};
}

int trials_for(size_t bytes) { return bytes >= 16384 ? 301 : 2001; }

void report(const char* what, const char* engine, size_t bytes, std::pair<double, double> r) {
    std::printf("%-14s %-12s %6zu B  engine %7.2f c/B  default %7.2f c/B  ratio %5.2fx\n", what,
                engine, bytes, r.first, r.second, r.second / r.first);
}

// OpenSSL's one-shot digest of `bytes` (context reused, as speed does).
struct DefaultDigest {
    EVP_MD* md;
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    explicit DefaultDigest(const char* name) : md(EVP_MD_fetch(nullptr, name, "provider=default")) {}
    ~DefaultDigest() { EVP_MD_CTX_free(ctx); EVP_MD_free(md); }
    void run(const uint8_t* p, size_t n) {
        unsigned char out[64];
        unsigned int len = 0;
        EVP_DigestInit_ex(ctx, md, nullptr);
        EVP_DigestUpdate(ctx, p, n);
        if (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF) EVP_DigestFinalXOF(ctx, out, 32);
        else EVP_DigestFinal_ex(ctx, out, &len);
    }
};

struct DefaultCipher {
    EVP_CIPHER* cipher;
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    DefaultCipher(const char* name, bool enc) : cipher(EVP_CIPHER_fetch(nullptr, name, "provider=default")) {
        static const uint8_t key[16] = {1, 2, 3}, iv[16] = {4, 5, 6};
        EVP_CipherInit_ex(ctx, cipher, nullptr, key, iv, enc ? 1 : 0);
        EVP_CIPHER_CTX_set_padding(ctx, 0);
    }
    ~DefaultCipher() { EVP_CIPHER_CTX_free(ctx); EVP_CIPHER_free(cipher); }
    void run(uint8_t* out, const uint8_t* in, size_t n) {
        int len = 0;
        EVP_CipherUpdate(ctx, out, &len, in, static_cast<int>(n));
    }
};

// No arguments: everything; else any argument naming the family, the engine
// or (prefix) the label: "sm4" runs every SM4 mode, "sm4-ctr" one of them.
bool wanted(const char* family, const char* engine, int argc, char** argv) {
    if (argc < 2) return true;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], engine) == 0 || std::strncmp(argv[i], family, std::strlen(argv[i])) == 0 ||
            std::strncmp(argv[i], family, std::strlen(family)) == 0)
            return true;
    return false;
}

// SHA-1 and SHA-256 engines: the whole blocks of each length against
// default's init/update/final.
template <size_t kWords, class List>
void md_engines(List list, const char* family, const char* openssl_name, const hwaccel::CpuFeatures& cpu,
                const std::vector<uint8_t>& in, int argc, char** argv) {
    for (const auto* e : list) {
        if (!e->available(cpu) || !wanted(family, e->name, argc, argv)) continue;
        DefaultDigest d(openssl_name);
        for (size_t n : kSizes) {
            uint32_t st[kWords] = {};
            report(family, e->name, n, race(n, trials_for(n), [&] { e->blocks(st, in.data(), (n + 63) / 64); },
                                            [&] { d.run(in.data(), n); }));
        }
    }
}

// OpenSSL's GMAC (AES-128-GCM, the data as AAD): its GHASH over the data
// plus one AES block and the set-up, the nearest default-provider
// counterpart of a GHASH engine.
struct DefaultGmac {
    EVP_MAC* mac = EVP_MAC_fetch(nullptr, "GMAC", "provider=default");
    EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
    ~DefaultGmac() { EVP_MAC_CTX_free(ctx); EVP_MAC_free(mac); }
    // OpenSSL 3.0's GMAC cannot restart without its key and IV: each run
    // passes them (an AES key schedule more, small at 16 KiB).
    void run(const uint8_t* p, size_t n) {
        static const uint8_t key[16] = {1, 2, 3}, iv[12] = {4, 5, 6};
        char cipher[] = "AES-128-GCM";
        const OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_string("cipher", cipher, 0),
            OSSL_PARAM_construct_octet_string("iv", const_cast<uint8_t*>(iv), sizeof iv), OSSL_PARAM_END};
        uint8_t tag[16];
        size_t len = 0;
        if (!EVP_MAC_init(ctx, key, sizeof key, params) || !EVP_MAC_update(ctx, p, n) ||
            !EVP_MAC_final(ctx, tag, &len, sizeof tag) || len != sizeof tag) {
            std::fprintf(stderr, "default GMAC failed\n");
            std::exit(1);
        }
    }
};

// TSC ticks per second, against the steady clock, for GB/s figures.
double tsc_hz() {
    const auto c0 = std::chrono::steady_clock::now();
    const uint64_t t0 = __rdtsc();
    while (std::chrono::steady_clock::now() - c0 < std::chrono::milliseconds(200)) {
    }
    const uint64_t t1 = __rdtsc();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
    return double(t1 - t0) / seconds;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0)) {
        std::printf(
            "usage: hwaccel-engine-bench [FAMILY|ENGINE ...]\n"
            "Ticks per byte of each available engine against OpenSSL's default provider,\n"
            "interleaved, medians. Families: sha1 sha256 sha3 sm4 ghash; sm4-xts: each\n"
            "engine's fused XTS against its own ECB.\n");
        return 0;
    }
    const hwaccel::CpuFeatures& cpu = hwaccel::cpu_features();
    std::vector<uint8_t> in(16384 + 64), out(16384 + 64);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 131 + 7);

    // Digests: the engine compresses the whole blocks of each length (what
    // the provider does for one call, less padding); default does
    // init/update/final.
    md_engines<5>(hwaccel::sha1_engines(), "sha1", "SHA1", cpu, in, argc, argv);
    md_engines<8>(hwaccel::sha256_engines(), "sha256", "SHA256", cpu, in, argc, argv);
    for (const hwaccel::KeccakEngine* e : hwaccel::keccak_engines()) {
        if (!e->available(cpu) || !wanted("sha3", e->name, argc, argv)) continue;
        DefaultDigest d("SHA3-256");
        for (size_t n : kSizes) {
            uint64_t st[25] = {};
            report("sha3-256", e->name, n,
                   race(n, trials_for(n), [&] { e->absorb(st, in.data(), (n + 135) / 136, 136); },
                        [&] { d.run(in.data(), n); }));
        }
    }
    for (const hwaccel::Sm4Engine* e : hwaccel::sm4_engines()) {
        if (!e->available(cpu) || !wanted("sm4", e->name, argc, argv)) continue;
        hwaccel::Sm4Key key;
        static const uint8_t user_key[16] = {1, 2, 3};
        e->set_key(&key, user_key);
        uint8_t iv[16] = {};
        struct Mode {
            const char* label;
            const char* openssl;
            bool enc;
            std::function<void(size_t)> run;
        };
        // A serial mode the engine has not fused: the provider's loop over
        // the one-block function (sm4_modes.cpp), reduced to its core, so
        // that such an engine is timed doing the work, not an empty call.
        enum class Serial { kCbc, kCfb, kOfb };
        auto block_by_block = [&](Serial mode, size_t n) {
            uint8_t x[16];
            std::memcpy(x, iv, 16);
            for (size_t i = 0; i < n; i += 16) {
                if (mode == Serial::kCbc)
                    for (int j = 0; j < 16; ++j) x[j] ^= in[i + j];
                e->encrypt_block(&key, x, x);
                for (int j = 0; j < 16; ++j) {
                    if (mode == Serial::kCfb) x[j] ^= in[i + j];
                    out[i + j] = mode == Serial::kOfb ? static_cast<uint8_t>(x[j] ^ in[i + j]) : x[j];
                }
            }
        };
        const Mode modes[] = {
            {"sm4-ecb", "SM4-ECB", true, [&](size_t n) { e->ecb(&key, hwaccel::Sm4Direction::kEncrypt, out.data(), in.data(), n / 16); }},
            {"sm4-ctr", "SM4-CTR", true,
             [&](size_t n) {
                 if (e->ctr) e->ctr(&key, out.data(), in.data(), n / 16, iv);
             }},
            {"sm4-cbc-dec", "SM4-CBC", false,
             [&](size_t n) {
                 if (e->cbc_decrypt) e->cbc_decrypt(&key, out.data(), in.data(), n / 16, iv);
             }},
            {"sm4-cbc-enc", "SM4-CBC", true,
             [&](size_t n) {
                 if (e->cbc_encrypt) return e->cbc_encrypt(&key, out.data(), in.data(), n / 16, iv);
                 block_by_block(Serial::kCbc, n);
             }},
            // The other fused modes, where the engine has them.
            {"sm4-cfb-dec", "SM4-CFB", false,
             [&](size_t n) {
                 if (e->cfb_decrypt) e->cfb_decrypt(&key, out.data(), in.data(), n / 16, iv);
             }},
            {"sm4-cfb-enc", "SM4-CFB", true,
             [&](size_t n) {
                 if (e->cfb_encrypt) return e->cfb_encrypt(&key, out.data(), in.data(), n / 16, iv);
                 block_by_block(Serial::kCfb, n);
             }},
            {"sm4-ofb", "SM4-OFB", true,
             [&](size_t n) {
                 if (e->ofb) return e->ofb(&key, out.data(), in.data(), n / 16, iv);
                 block_by_block(Serial::kOfb, n);
             }},
        };
        for (const Mode& m : modes) {
            if (!wanted(m.label, e->name, argc, argv)) continue;
            DefaultCipher d(m.openssl, m.enc);
            for (size_t n : kSizes)
                report(m.label, e->name, n,
                       race(n, trials_for(n), [&] { m.run(n); }, [&] { d.run(out.data(), in.data(), n); }));
        }
    }
    // The fused XTS against the same engine's ECB (what the tweaks cost;
    // OpenSSL 3.0, which this tool links, has no SM4-XTS), both directions
    // and standards.
    for (const hwaccel::Sm4Engine* e : hwaccel::sm4_engines()) {
        if (!e->available(cpu) || !e->xts || !wanted("sm4-xts", e->name, argc, argv)) continue;
        hwaccel::Sm4Key key;
        static const uint8_t user_key[16] = {1, 2, 3};
        e->set_key(&key, user_key);
        uint8_t tweak[16] = {7, 8, 9};
        const struct {
            const char* label;
            hwaccel::Sm4Direction dir;
            hwaccel::XtsStandard standard;
        } cases[] = {{"sm4-xts-gb", hwaccel::Sm4Direction::kEncrypt, hwaccel::XtsStandard::kGb},
                     {"sm4-xts-gb-dec", hwaccel::Sm4Direction::kDecrypt, hwaccel::XtsStandard::kGb},
                     {"sm4-xts-ieee", hwaccel::Sm4Direction::kEncrypt, hwaccel::XtsStandard::kIeee}};
        for (const auto& c : cases) {
            for (size_t n : kSizes) {
                const auto r = race(n, trials_for(n),
                                    [&] { e->xts(&key, c.dir, c.standard, out.data(), in.data(), n / 16, tweak); },
                                    [&] { e->ecb(&key, c.dir, out.data(), in.data(), n / 16); });
                std::printf("%-14s %-12s %6zu B  xts %7.2f c/B  ecb %7.2f c/B  xts/ecb %5.3f\n", c.label, e->name,
                            n, r.first, r.second, r.first / r.second);
            }
        }
    }
    for (const hwaccel::GhashEngine* e : hwaccel::ghash_engines()) {
        if (!e->available(cpu) || !wanted("ghash", e->name, argc, argv)) continue;
        static const double hz = tsc_hz();
        hwaccel::GhashKey key;
        static const uint8_t h[16] = {0x66, 0xe9, 0x4b, 0xd4};
        e->set_key(&key, h);
        uint8_t y[16] = {};
        DefaultGmac d;
        for (size_t n : kSizes) {
            const auto r = race(n, trials_for(n), [&] { e->update(&key, y, in.data(), n / 16); },
                                [&] { d.run(in.data(), n); });
            report("ghash", e->name, n, r);
            if (n == 16384)
                std::printf("%-14s %-12s %6zu B  engine %7.2f GB/s (TSC %.2f GHz)\n", "ghash", e->name, n,
                            hz / r.first / 1e9, hz / 1e9);
        }
    }
    return 0;
}
