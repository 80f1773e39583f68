// SM4-XTS through its dispatch table, with the fake core: the lengths and
// pointers EVP does not pass on (OpenSSL 3.0's update hands a negative int
// on as a size_t) are refused with an error, write nothing, and leave the
// context working.
#include <openssl/core_dispatch.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cstdint>
#include <cstring>

#include "fake_core.hpp"

using namespace hwaccel::test;

TEST_CASE("dispatch: SM4-XTS refuses impossible lengths and pointers, changes nothing",
          "[dispatch][errors][xts]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    CipherFns f(m.cipher("SM4-XTS"));
    unsigned char key[32], iv[16], msg[64], want[64];
    for (int i = 0; i < 32; ++i) key[i] = static_cast<unsigned char>(i * 7 + 1);
    for (int i = 0; i < 16; ++i) iv[i] = static_cast<unsigned char>(i + 100);
    for (int i = 0; i < 64; ++i) msg[i] = static_cast<unsigned char>(i * 3);
    void* ctx = f.newctx(m.provctx);
    REQUIRE(ctx != nullptr);
    size_t outl = 777;
    unsigned char sink[64];
    std::memset(sink, 0xee, sizeof sink);
    g_core.clear_errors();
    // No key, then no IV.
    CHECK(f.update(ctx, sink, &outl, sizeof sink, msg, 32) == 0);
    CHECK(f.cipher(ctx, sink, &outl, sizeof sink, msg, 32) == 0);
    REQUIRE(f.einit(ctx, key, 32, nullptr, 0, nullptr) == 1);
    CHECK(f.update(ctx, sink, &outl, sizeof sink, msg, 32) == 0);
    CHECK(g_core.errors.size() == 3);
    // Wrong key and IV lengths.
    CHECK(f.einit(ctx, key, 16, iv, 16, nullptr) == 0);
    CHECK(f.einit(ctx, key, 64, iv, 16, nullptr) == 0);
    CHECK(f.dinit(ctx, key, 32, iv, 12, nullptr) == 0);
    CHECK(g_core.errors.size() == 6);

    REQUIRE(f.einit(ctx, key, 32, iv, 16, nullptr) == 1);
    REQUIRE(f.update(ctx, want, &outl, sizeof want, msg, 50) == 1);
    REQUIRE(outl == 50);
    g_core.clear_errors();
    const size_t bad_lengths[] = {SIZE_MAX, SIZE_MAX - 15, size_t{1} << 63,
                                  static_cast<size_t>(INT_MAX) + 1, 0, 15};
    int refusals = 0;
    for (size_t bad : bad_lengths) {
        INFO("length " << bad);
        CHECK(f.update(ctx, sink, &outl, bad, msg, bad) == 0);
        CHECK(f.update(ctx, sink, &outl, SIZE_MAX, msg, bad) == 0);
        refusals += 2;
        const bool impossible = bad > static_cast<size_t>(PTRDIFF_MAX) ||
                                reinterpret_cast<uintptr_t>(msg) + bad < bad || bad < 16;
        if (impossible) {
            CHECK(f.cipher(ctx, sink, &outl, bad, msg, bad) == 0);
            ++refusals;
        }
    }
    CHECK(f.update(ctx, sink, &outl, sizeof sink, nullptr, 32) == 0);  // NULL input
    CHECK(f.update(ctx, nullptr, &outl, 64, msg, 32) == 0);            // NULL output
    CHECK(f.update(ctx, sink, &outl, 49, msg, 50) == 0);               // output too small
    CHECK(f.update(ctx, sink, nullptr, sizeof sink, msg, 50) == 0);    // no outl
    refusals += 4;
    CHECK(g_core.errors.size() == static_cast<size_t>(refusals));
    CHECK(outl == 50);
    for (unsigned char c : sink) CHECK(c == 0xee);
    // The context goes on as before.
    unsigned char again[64];
    REQUIRE(f.update(ctx, again, &outl, sizeof again, msg, 50) == 1);
    CHECK(std::memcmp(again, want, 50) == 0);
    // A copy is a deep copy, and freeing the original leaves it working.
    void* dup = f.dupctx(ctx);
    REQUIRE(dup != nullptr);
    f.freectx(ctx);
    std::memset(again, 0, sizeof again);
    REQUIRE(f.update(dup, again, &outl, sizeof again, msg, 50) == 1);
    CHECK(std::memcmp(again, want, 50) == 0);
    f.freectx(dup);
}
