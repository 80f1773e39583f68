// init starts a message with nothing left of the previous one's keystream.
//
// CTR keeps its current keystream block in the context next to `num`. If a
// re-init only reset num, the old block would survive, and `num` set through
// the parameters afterwards would encrypt the new message with the previous
// message's keystream (OpenSSL 3.0's default provider does exactly that).
// So after encrypting 5 bytes, re-initialising, and setting num = 5, the
// output must equal that of a fresh context initialised the same way.
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "fake_core.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

const unsigned char kKey1[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
const unsigned char kKey2[16] = {0xa0, 0xb1, 0xc2, 0xd3, 0xe4, 0xf5, 0x06, 0x17,
                                 0x28, 0x39, 0x4a, 0x5b, 0x6c, 0x7d, 0x8e, 0x9f};
const unsigned char kIv1[16] = {0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
                                0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff};
const unsigned char kIv2[16] = {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2a};

unsigned get_num(const CipherFns& f, void* ctx) {
    unsigned num = 99;
    OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &num), OSSL_PARAM_END};
    REQUIRE(f.get_ctx_params(ctx, p) == 1);
    return num;
}

void set_num(const CipherFns& f, void* ctx, unsigned num) {
    OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &num), OSSL_PARAM_END};
    REQUIRE(f.set_ctx_params(ctx, p) == 1);
}

// `len` bytes of a fixed message through update; the output in hex.
std::string encrypt(const CipherFns& f, void* ctx, size_t len) {
    std::vector<unsigned char> in(len), out(len + 16);
    for (size_t i = 0; i < len; ++i) in[i] = static_cast<unsigned char>(i * 29 + 3);
    size_t outl = 0;
    REQUIRE(f.update(ctx, out.data(), &outl, out.size(), in.data(), len) == 1);
    return to_hex(out.data(), outl);
}

}  // namespace

TEST_CASE("re-init leaves no keystream of the previous message", "[dispatch][wipe]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    struct Reinit {
        const char* what;
        const unsigned char* key;  // NULL: keep the key
        const unsigned char* iv;
        const unsigned char* fresh_key;
    };
    const Reinit reinits[] = {
        {"new IV, same key", nullptr, kIv2, kKey1},
        {"new key and IV", kKey2, kIv2, kKey2},
        {"same key and IV given again", kKey1, kIv1, kKey1},
    };
    for (const char* name : {"SM4-CFB", "SM4-OFB", "SM4-CTR"}) {
        CipherFns f(m.cipher(name));
        for (const Reinit& r : reinits) {
            INFO(name << ", re-init with " << r.what);
            void* ctx = f.newctx(m.provctx);
            REQUIRE(f.einit(ctx, kKey1, 16, kIv1, 16, nullptr) == 1);
            encrypt(f, ctx, 5);  // a keystream block in use, 11 bytes of it left
            REQUIRE(get_num(f, ctx) == 5);
            REQUIRE(f.einit(ctx, r.key, 16, r.iv, 16, nullptr) == 1);
            CHECK(get_num(f, ctx) == 0);

            void* fresh = f.newctx(m.provctx);
            REQUIRE(f.einit(fresh, r.fresh_key, 16, r.iv, 16, nullptr) == 1);
            // Pointing num into the current block shows what the context
            // holds there: the fresh context has no block yet.
            void* ctx_num = f.dupctx(ctx);
            void* fresh_num = f.dupctx(fresh);
            set_num(f, ctx_num, 5);
            set_num(f, fresh_num, 5);
            CHECK(encrypt(f, ctx_num, 11) == encrypt(f, fresh_num, 11));
            // And the message itself is the fresh context's.
            CHECK(encrypt(f, ctx, 37) == encrypt(f, fresh, 37));
            for (void* c : {ctx, fresh, ctx_num, fresh_num}) f.freectx(c);
        }
    }
}
