// Huge inputs, compared with OpenSSL's default provider fed the same pieces:
//  - every digest over 2^32 + 2^29 + 13 bytes (past 2^32 bytes, so past 2^35
//    bits for SHA-1/SHA-2's length field), streamed from one 1 MiB buffer in
//    pieces of varying, mostly unaligned sizes;
//  - every digest over one EVP_DigestUpdate of 2^32 + 77 zero bytes (mapped
//    read-only from anonymous memory, which the kernel backs with its zero
//    page: no RAM is used), so no length is ever truncated to 32 bits;
//  - SM4-CTR over 3 GiB whose counter's low 32 bits wrap after 1 GiB (and
//    carry into the next word), in pieces of varying sizes.
// Minutes of work: not in ctest; scripts/huge-inputs.sh runs it.
#include <openssl/evp.h>
#include <sys/mman.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "provider_fixture.hpp"

using namespace hwaccel::test;
using Bytes = std::vector<unsigned char>;

namespace {

constexpr size_t kBuffer = 1 << 20;
// Piece sizes cycled through; none a multiple of 64 except 1 MiB itself.
const size_t kPieces[] = {kBuffer - 3, kBuffer, 65537, 15, 1000003, kBuffer - 64 - 1, 1, 777777};

Bytes pattern_buffer() {
    Bytes b(kBuffer + 64);
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (auto& c : b) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        c = static_cast<unsigned char>(x);
    }
    return b;
}

// Calls `feed(ptr, len)` with pieces totalling `total` bytes.
template <class Feed>
void stream(const Bytes& buf, uint64_t total, Feed&& feed) {
    uint64_t done = 0;
    for (size_t i = 0; done < total; ++i) {
        size_t n = kPieces[i % (sizeof kPieces / sizeof kPieces[0])];
        if (n > total - done) n = static_cast<size_t>(total - done);
        feed(buf.data() + (i % 61), n);  // shifting start: the pieces differ
        done += n;
    }
}

Bytes finish(EVP_MD_CTX* ctx, bool xof) {
    Bytes out(xof ? 64 : EVP_MD_get_size(EVP_MD_CTX_get0_md(ctx)));
    if (xof)
        REQUIRE(EVP_DigestFinalXOF(ctx, out.data(), out.size()) == 1);
    else
        REQUIRE(EVP_DigestFinal_ex(ctx, out.data(), nullptr) == 1);
    return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("every digest over more than 4 GiB, streamed", "[huge][digest]") {
    const uint64_t total = (uint64_t{1} << 32) + (uint64_t{1} << 29) + 13;
    LoadedProvider prov;
    Bytes buf = pattern_buffer();
    for (const auto& d : all_digests()) {
        INFO(d.name);
        auto t0 = std::chrono::steady_clock::now();
        MdPtr ours = prov.md(d.name), theirs = prov.default_md(d.name);
        MdCtxPtr a(EVP_MD_CTX_new()), b(EVP_MD_CTX_new());
        REQUIRE(EVP_DigestInit_ex(a.get(), ours.get(), nullptr) == 1);
        REQUIRE(EVP_DigestInit_ex(b.get(), theirs.get(), nullptr) == 1);
        bool ok = true;
        stream(buf, total, [&](const unsigned char* p, size_t n) {
            ok = ok && EVP_DigestUpdate(a.get(), p, n) == 1 && EVP_DigestUpdate(b.get(), p, n) == 1;
        });
        REQUIRE(ok);
        CHECK(finish(a.get(), d.xof) == finish(b.get(), d.xof));
        WARN(d.name << ": " << total << " bytes in " << seconds_since(t0) << " s (both providers)");
    }
}

TEST_CASE("every digest over one update of more than 4 GiB", "[huge][digest]") {
    const size_t total = (size_t{1} << 32) + 77;
    // Anonymous read-only pages all map the kernel's zero page.
    void* zeros = mmap(nullptr, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    REQUIRE(zeros != MAP_FAILED);
    LoadedProvider prov;
    for (const auto& d : all_digests()) {
        INFO(d.name);
        auto t0 = std::chrono::steady_clock::now();
        MdPtr ours = prov.md(d.name), theirs = prov.default_md(d.name);
        MdCtxPtr a(EVP_MD_CTX_new()), b(EVP_MD_CTX_new());
        REQUIRE(EVP_DigestInit_ex(a.get(), ours.get(), nullptr) == 1);
        REQUIRE(EVP_DigestInit_ex(b.get(), theirs.get(), nullptr) == 1);
        REQUIRE(EVP_DigestUpdate(a.get(), zeros, total) == 1);
        REQUIRE(EVP_DigestUpdate(b.get(), zeros, total) == 1);
        CHECK(finish(a.get(), d.xof) == finish(b.get(), d.xof));
        WARN(d.name << ": one update of " << total << " zero bytes in " << seconds_since(t0) << " s (both providers)");
    }
    munmap(zeros, total);
}

TEST_CASE("SM4-CTR over 3 GiB across a 2^32-block counter boundary", "[huge][sm4]") {
    const uint64_t total = uint64_t{3} << 30;
    LoadedProvider prov;
    Bytes buf = pattern_buffer();
    // The low 32 bits of the counter wrap after 2^26 blocks (1 GiB) and carry
    // into the next word; the upper words are not all zero or all ones.
    const unsigned char iv[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                  0x01, 0x23, 0x45, 0x67, 0xfc, 0x00, 0x00, 0x00};
    const unsigned char key[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                   0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
    auto t0 = std::chrono::steady_clock::now();
    CipherPtr ours = prov.cipher("SM4-CTR"), theirs = prov.default_cipher("SM4-CTR");
    CipherCtxPtr a(EVP_CIPHER_CTX_new()), b(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_EncryptInit_ex2(a.get(), ours.get(), key, iv, nullptr) == 1);
    REQUIRE(EVP_EncryptInit_ex2(b.get(), theirs.get(), key, iv, nullptr) == 1);
    Bytes out_a(kBuffer + 64), out_b(kBuffer + 64);
    uint64_t offset = 0, first_mismatch = UINT64_MAX;
    bool ok = true;
    stream(buf, total, [&](const unsigned char* p, size_t n) {
        int la = 0, lb = 0;
        ok = ok && EVP_EncryptUpdate(a.get(), out_a.data(), &la, p, static_cast<int>(n)) == 1 &&
             EVP_EncryptUpdate(b.get(), out_b.data(), &lb, p, static_cast<int>(n)) == 1 &&
             la == static_cast<int>(n) && lb == static_cast<int>(n);
        if (ok && first_mismatch == UINT64_MAX && std::memcmp(out_a.data(), out_b.data(), n) != 0)
            for (size_t i = 0; i < n; ++i)
                if (out_a[i] != out_b[i]) {
                    first_mismatch = offset + i;
                    break;
                }
        offset += n;
    });
    REQUIRE(ok);
    INFO("first differing byte at offset " << first_mismatch << " (the wrap is at " << (uint64_t{1} << 30) << ")");
    CHECK(first_mismatch == UINT64_MAX);
    // The counters read back equal too.
    unsigned char iv_a[16], iv_b[16];
    REQUIRE(EVP_CIPHER_CTX_get_updated_iv(a.get(), iv_a, 16) == 1);
    REQUIRE(EVP_CIPHER_CTX_get_updated_iv(b.get(), iv_b, 16) == 1);
    CHECK(std::memcmp(iv_a, iv_b, 16) == 0);
    CHECK(iv_a[11] == 0x68);  // the carry out of the low word happened
    WARN("SM4-CTR: " << total << " bytes in " << seconds_since(t0) << " s (both providers)");
}
