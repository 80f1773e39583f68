// SM4-XTS through EVP: OpenSSL 4.0's vectors, a reference model over the
// default provider's SM4-ECB (every OpenSSL), the default provider's own
// SM4-XTS where it has one (3.6+; 3.0 has none), every SM4 engine, and the
// refusals.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/proverr.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "provider_fixture.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

constexpr size_t kMaxUnit = size_t{16} << 20;  // 2^20 blocks

// Only what differs for SM4: the automatic choice and each SM4 engine.
std::vector<std::string> sm4_selections() { return engine_selections({"sm4"}); }

CipherPtr default_xts(const LoadedProvider& prov) { return prov.default_cipher_if_any("SM4-XTS"); }

bool set_standard(EVP_CIPHER_CTX* ctx, const char* standard) {
    if (standard == nullptr) return true;
    OSSL_PARAM p[] = {
        // OSSL_CIPHER_PARAM_XTS_STANDARD: not in OpenSSL 3.0's headers
        OSSL_PARAM_construct_utf8_string("xts_standard", const_cast<char*>(standard), 0),
        OSSL_PARAM_END};
    return EVP_CIPHER_CTX_set_params(ctx, p) == 1;
}

struct Run {
    Bytes out;
    bool ok = false;
};

// One data unit through init, update, final; standard null: the default.
Run xts(const EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& iv, const Bytes& msg,
        const char* standard, bool in_place = false) {
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    Run r;
    if (EVP_CipherInit_ex2(ctx.get(), c, key.data(), iv.data(), enc ? 1 : 0, nullptr) != 1 ||
        !set_standard(ctx.get(), standard))
        return r;
    Bytes buf = msg, out(msg.size());
    unsigned char* dst = in_place ? buf.data() : out.data();
    int outl = 0, finl = 0;
    unsigned char fin[16];
    if (EVP_CipherUpdate(ctx.get(), dst, &outl, buf.data(), static_cast<int>(msg.size())) != 1 ||
        EVP_CipherFinal_ex(ctx.get(), fin, &finl) != 1 || static_cast<size_t>(outl) != msg.size() ||
        finl != 0)
        return r;
    r.out.assign(dst, dst + outl);
    r.ok = true;
    return r;
}

// The reference: XTS written from the standards' definitions, one block at
// a time over the default provider's SM4-ECB, tweaks multiplied bytewise.
void times_alpha(bool ieee, uint8_t t[16]) {
    if (ieee) {  // little-endian, x^128 + x^7 + x^2 + x + 1
        uint8_t carry = 0;
        for (int i = 0; i < 16; ++i) {
            uint8_t next = t[i] >> 7;
            t[i] = static_cast<uint8_t>(t[i] << 1 | carry);
            carry = next;
        }
        if (carry) t[0] ^= 0x87;
    } else {  // GB/T 17964: bit-reflected, as GCM
        uint8_t carry = 0;
        for (int i = 0; i < 16; ++i) {
            uint8_t next = t[i] & 1;
            t[i] = static_cast<uint8_t>(t[i] >> 1 | carry << 7);
            carry = next;
        }
        if (carry) t[0] ^= 0xe1;
    }
}

struct Ecb {
    CipherCtxPtr enc{EVP_CIPHER_CTX_new()}, dec{EVP_CIPHER_CTX_new()};
    Ecb(const EVP_CIPHER* ecb, const uint8_t* key) {
        REQUIRE(EVP_EncryptInit_ex2(enc.get(), ecb, key, nullptr, nullptr) == 1);
        REQUIRE(EVP_DecryptInit_ex2(dec.get(), ecb, key, nullptr, nullptr) == 1);
        EVP_CIPHER_CTX_set_padding(enc.get(), 0);
        EVP_CIPHER_CTX_set_padding(dec.get(), 0);
    }
    void block(bool encrypt, uint8_t out[16], const uint8_t in[16]) {
        int outl = 0;
        REQUIRE(EVP_CipherUpdate(encrypt ? enc.get() : dec.get(), out, &outl, in, 16) == 1);
        REQUIRE(outl == 16);
    }
};

Bytes reference_xts(const EVP_CIPHER* ecb, bool enc, bool ieee, const Bytes& key, const Bytes& iv,
                    const Bytes& msg) {
    Ecb k1(ecb, key.data()), k2(ecb, key.data() + 16);
    uint8_t t[16];
    k2.block(true, t, iv.data());
    auto one = [&](uint8_t* out, const uint8_t* in, const uint8_t tw[16]) {
        uint8_t x[16];
        for (int i = 0; i < 16; ++i) x[i] = in[i] ^ tw[i];
        k1.block(enc, x, x);
        for (int i = 0; i < 16; ++i) out[i] = x[i] ^ tw[i];
    };
    Bytes out(msg.size());
    const size_t m = msg.size() / 16, tail = msg.size() % 16;
    const size_t plain_blocks = tail ? m - 1 : m;
    for (size_t j = 0; j < plain_blocks; ++j) {
        one(&out[16 * j], &msg[16 * j], t);
        times_alpha(ieee, t);
    }
    if (tail) {
        uint8_t t_next[16], mid[16], last[16];
        std::memcpy(t_next, t, 16);
        times_alpha(ieee, t_next);
        const uint8_t* t_first = enc ? t : t_next;
        const uint8_t* t_second = enc ? t_next : t;
        const size_t at = 16 * (m - 1);
        one(mid, &msg[at], t_first);
        std::memcpy(last, &msg[at + 16], tail);
        std::memcpy(last + tail, mid + tail, 16 - tail);
        std::memcpy(&out[at + 16], mid, tail);
        one(&out[at], last, t_second);
    }
    return out;
}

const char* const kStandards[] = {"GB", "IEEE"};

}  // namespace

TEST_CASE("SM4-XTS: names, flags and parameter lists as the default provider's", "[cipher][xts]") {
    LoadedProvider prov;
    CipherPtr ours = prov.cipher("SM4-XTS");
    CHECK(EVP_CIPHER_get_mode(ours.get()) == EVP_CIPH_XTS_MODE);
    CHECK(EVP_CIPHER_get_key_length(ours.get()) == 32);
    CHECK(EVP_CIPHER_get_iv_length(ours.get()) == 16);
    CHECK(EVP_CIPHER_get_block_size(ours.get()) == 1);
    CHECK((EVP_CIPHER_get_flags(ours.get()) & EVP_CIPH_CUSTOM_IV) != 0);
    CipherPtr by_oid(EVP_CIPHER_fetch(prov.libctx(), "1.2.156.10197.1.104.10", "provider=hwaccel"));
    CHECK(by_oid != nullptr);
    CipherPtr theirs = default_xts(prov);
    if (!theirs) {
        WARN("this OpenSSL's default provider has no SM4-XTS: lists not compared");
        return;
    }
    CHECK(EVP_CIPHER_get_flags(ours.get()) == EVP_CIPHER_get_flags(theirs.get()));
    CHECK(EVP_CIPHER_get_type(ours.get()) == EVP_CIPHER_get_type(theirs.get()));
    auto keys = [](const OSSL_PARAM* p) {
        std::vector<std::string> k;
        for (; p != nullptr && p->key != nullptr; ++p)
            k.push_back(std::string(p->key) + "/" + std::to_string(p->data_type));
        return k;
    };
    CHECK(keys(EVP_CIPHER_gettable_params(ours.get())) ==
          keys(EVP_CIPHER_gettable_params(theirs.get())));
    CHECK(keys(EVP_CIPHER_gettable_ctx_params(ours.get())) ==
          keys(EVP_CIPHER_gettable_ctx_params(theirs.get())));
    CHECK(keys(EVP_CIPHER_settable_ctx_params(ours.get())) ==
          keys(EVP_CIPHER_settable_ctx_params(theirs.get())));
    EVP_CIPHER_names_do_all(theirs.get(), [](const char* alias, void* arg) {
        auto* p = static_cast<LoadedProvider*>(arg);
        CipherPtr m(EVP_CIPHER_fetch(p->libctx(), alias, "provider=hwaccel"));
        INFO("alias " << alias);
        CHECK(m != nullptr);
    }, &prov);
}

TEST_CASE("SM4-XTS: OpenSSL 4.0's evpciph_sm4.txt, every SM4 engine", "[cipher][xts][vectors]") {
    std::vector<CipherVector> vectors;
    for (const CipherVector& v : load_evp_cipher_tests(vector_path("sm4/evpciph_sm4-openssl-4.0.txt")))
        if (v.cipher == "SM4-XTS") vectors.push_back(v);
    REQUIRE(vectors.size() == 4);
    int with_tail = 0, ieee = 0;
    for (const std::string& sel : sm4_selections()) {
        LoadedProvider prov(sel);
        CipherPtr c = prov.cipher("SM4-XTS");
        for (const CipherVector& v : vectors) {
            const char* standard = nullptr;  // no XTSStandard line: the default, GB
            for (const auto& [k, val] : v.other) {
                REQUIRE(k == "XTSStandard");
                standard = val == "IEEE" ? "IEEE" : "GB";
            }
            INFO(v.where << " engines " << prov.engines());
            for (bool in_place : {false, true}) {
                Run e = xts(c.get(), true, v.key, v.iv, v.plaintext, standard, in_place);
                Run d = xts(c.get(), false, v.key, v.iv, v.ciphertext, standard, in_place);
                CHECK(e.ok);
                CHECK(d.ok);
                CHECK(e.out == v.ciphertext);
                CHECK(d.out == v.plaintext);
            }
            with_tail += v.plaintext.size() % 16 != 0;
            ieee += standard != nullptr && std::string(standard) == "IEEE";
        }
    }
    CHECK(with_tail > 0);
    CHECK(ieee > 0);
}

TEST_CASE("SM4-XTS equals the reference and the default provider: lengths 16..5000, both standards, "
          "in place, every SM4 engine", "[cipher][xts]") {
    Lcg rng(17964);
    for (const std::string& sel : sm4_selections()) {
        LoadedProvider prov(sel);
        CipherPtr ours = prov.cipher("SM4-XTS"), theirs = default_xts(prov);
        CipherPtr ecb = prov.default_cipher("SM4-ECB");
        // Every length up to 80 (each tail near the small sizes), then random.
        std::vector<size_t> lengths;
        for (size_t len = 16; len <= 80; ++len) lengths.push_back(len);
        // Around the engines' 8-block groups and the 128-block chunks, whole
        // or with a stolen tail after them.
        for (size_t blocks : {7, 8, 9, 15, 16, 17, 33, 127, 128, 129, 257})
            for (size_t tail : {0, 1, 15}) lengths.push_back(16 * blocks + tail);
        for (int i = 0; i < 30; ++i) lengths.push_back(16 + rng.below(5000 - 16 + 1));
        lengths.push_back(5000);
        lengths.push_back(4096);
        for (size_t len : lengths) {
            for (const char* standard : kStandards) {
                const bool ieee = standard[0] == 'I';
                Bytes key = rng.bytes(32), iv = rng.bytes(16), msg = rng.bytes(len);
                const bool in_place = rng.below(2) == 0;
                INFO("engines " << prov.engines() << " " << standard << " length " << len
                                << " in place " << in_place);
                Bytes want = reference_xts(ecb.get(), true, ieee, key, iv, msg);
                REQUIRE(reference_xts(ecb.get(), false, ieee, key, iv, want) == msg);
                Run got = xts(ours.get(), true, key, iv, msg, standard, in_place);
                CHECK(got.ok);
                CHECK(got.out == want);
                Run back = xts(ours.get(), false, key, iv, want, standard, !in_place);
                CHECK(back.ok);
                CHECK(back.out == msg);
                if (theirs) {
                    Run e = xts(theirs.get(), true, key, iv, msg, standard);
                    CHECK(e.out == want);
                    Run d = xts(theirs.get(), false, key, iv, got.out, standard);
                    CHECK(d.out == msg);
                }
            }
        }
    }
}

TEST_CASE("SM4-XTS: each update is one data unit under the IV; final adds nothing; copies",
          "[cipher][xts]") {
    LoadedProvider prov;
    CipherPtr ours = prov.cipher("SM4-XTS");
    Lcg rng(2021);
    Bytes key = rng.bytes(32), iv = rng.bytes(16), msg = rng.bytes(100);
    Run want = xts(ours.get(), true, key, iv, msg, "IEEE");
    REQUIRE(want.ok);
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_EncryptInit_ex2(ctx.get(), ours.get(), key.data(), iv.data(), nullptr) == 1);
    REQUIRE(set_standard(ctx.get(), "ieee"));  // case does not matter, as in the default provider
    Bytes out(100);
    int outl = 0;
    for (int i = 0; i < 2; ++i) {
        REQUIRE(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, msg.data(), 100) == 1);
        CHECK(outl == 100);
        CHECK(out == want.out);
    }
    CipherCtxPtr copy(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_CIPHER_CTX_copy(copy.get(), ctx.get()) == 1);
    ctx.reset();
    std::fill(out.begin(), out.end(), 0);
    REQUIRE(EVP_EncryptUpdate(copy.get(), out.data(), &outl, msg.data(), 100) == 1);
    CHECK(out == want.out);
    REQUIRE(EVP_EncryptFinal_ex(copy.get(), out.data(), &outl) == 1);
    CHECK(outl == 0);
    // The IV reads back unchanged, both ways.
    unsigned char got_iv[16] = {};
    REQUIRE(EVP_CIPHER_CTX_get_updated_iv(copy.get(), got_iv, 16) == 1);
    CHECK(Bytes(got_iv, got_iv + 16) == iv);
}

// Its own case (tag xts-bulk): 16 MiB is a million blocks, which the GFNI
// instruction model's suites (a trap per instruction) leave out.
TEST_CASE("SM4-XTS: the largest data unit, 2^20 blocks, is accepted", "[cipher][xts][xts-bulk]") {
    LoadedProvider prov;
    CipherPtr ours = prov.cipher("SM4-XTS");
    Lcg rng(2022);
    Bytes key = rng.bytes(32), iv = rng.bytes(16);
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_EncryptInit_ex2(ctx.get(), ours.get(), key.data(), iv.data(), nullptr) == 1);
    const Bytes plain = rng.bytes(kMaxUnit);
    Bytes big = plain;  // in place
    int outl = 0;
    REQUIRE(EVP_EncryptUpdate(ctx.get(), big.data(), &outl, big.data(), static_cast<int>(big.size())) == 1);
    CHECK(static_cast<size_t>(outl) == big.size());
    CipherPtr ecb = prov.default_cipher("SM4-ECB");
    CHECK(big == reference_xts(ecb.get(), true, false, key, iv, plain));  // "GB", the default standard
}

TEST_CASE("SM4-XTS refuses bad input with an error and writes nothing", "[cipher][xts]") {
    LoadedProvider prov;
    CipherPtr ours = prov.cipher("SM4-XTS");
    Lcg rng(99);
    Bytes key = rng.bytes(32), iv = rng.bytes(16);
    Bytes in(kMaxUnit + 32, 0x11), out(kMaxUnit + 64, 0xee);
    auto untouched = [&] {
        for (unsigned char b : out)
            if (b != 0xee) return false;
        return true;
    };
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    ERR_clear_error();

    SECTION("equal key halves: encryption refused, decryption allowed (as AES-XTS)") {
        Bytes half = rng.bytes(16), same(32);
        std::memcpy(same.data(), half.data(), 16);
        std::memcpy(same.data() + 16, half.data(), 16);
        CHECK(EVP_EncryptInit_ex2(ctx.get(), ours.get(), same.data(), iv.data(), nullptr) == 0);
        CHECK(is_openssl_error(take_error_codes().last(), ERR_LIB_PROV, PROV_R_XTS_DUPLICATED_KEYS));
        REQUIRE(EVP_DecryptInit_ex2(ctx.get(), ours.get(), same.data(), iv.data(), nullptr) == 1);
        // Not by switching direction on the same key either.
        CHECK(EVP_EncryptInit_ex2(ctx.get(), nullptr, nullptr, iv.data(), nullptr) == 0);
        CHECK(is_openssl_error(take_error_codes().last(), ERR_LIB_PROV, PROV_R_XTS_DUPLICATED_KEYS));
        CipherPtr ecb = prov.default_cipher("SM4-ECB");
        Bytes c = rng.bytes(40);
        REQUIRE(EVP_DecryptInit_ex2(ctx.get(), ours.get(), same.data(), iv.data(), nullptr) == 1);
        int outl = 0;
        REQUIRE(EVP_DecryptUpdate(ctx.get(), out.data(), &outl, c.data(), 40) == 1);
        CHECK(Bytes(out.begin(), out.begin() + 40) ==
              reference_xts(ecb.get(), false, false, same, iv, c));
    }
    SECTION("lengths below 16, above 2^20 blocks, negative, NULL input") {
        REQUIRE(EVP_EncryptInit_ex2(ctx.get(), ours.get(), key.data(), iv.data(), nullptr) == 1);
        int outl = -7;
        for (int len : {0, 1, 15}) {
            INFO("length " << len);
            CHECK(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, in.data(), len) == 0);
            CHECK(!take_errors().empty());
        }
        CHECK(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, in.data(),
                                static_cast<int>(kMaxUnit + 16)) == 0);
        {
            // As the default provider: the reason, then its generic failure.
            const ErrorCodes e = take_error_codes();
            CHECK(has_openssl_error(e, ERR_LIB_PROV, PROV_R_XTS_DATA_UNIT_IS_TOO_LARGE));
            CHECK(is_openssl_error(e.last(), ERR_LIB_PROV, PROV_R_CIPHER_OPERATION_FAILED));
        }
        CHECK(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, in.data(), -16) == 0);
        CHECK(!take_errors().empty());
        CHECK(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, nullptr, 32) == 0);
        CHECK(!take_errors().empty());
        CHECK(EVP_Cipher(ctx.get(), out.data(), in.data(), 15) <= 0);
        take_errors();
        CHECK(untouched());
    }
    SECTION("no IV, bad xts_standard") {
        REQUIRE(EVP_EncryptInit_ex2(ctx.get(), ours.get(), key.data(), nullptr, nullptr) == 1);
        int outl = 0;
        CHECK(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, in.data(), 32) == 0);
        CHECK(!take_errors().empty());
        CHECK(untouched());
        CHECK_FALSE(set_standard(ctx.get(), "IEEE1619"));
        CHECK(!take_errors().empty());
        CHECK_FALSE(set_standard(ctx.get(), ""));
        take_errors();
        // The refusal left the standard as it was (GB).
        REQUIRE(EVP_EncryptInit_ex2(ctx.get(), nullptr, nullptr, iv.data(), nullptr) == 1);
        REQUIRE(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, in.data(), 40) == 1);
        CipherPtr ecb = prov.default_cipher("SM4-ECB");
        CHECK(Bytes(out.begin(), out.begin() + 40) ==
              reference_xts(ecb.get(), true, false, key, iv, Bytes(in.begin(), in.begin() + 40)));
    }
    SECTION("wrong key and IV lengths through the params") {
        OSSL_PARAM p[] = {OSSL_PARAM_END};
        CHECK(EVP_EncryptInit_ex2(ctx.get(), ours.get(), key.data(), iv.data(), p) == 1);
        CHECK(EVP_CIPHER_CTX_set_key_length(ctx.get(), 16) == 0);
        take_errors();
    }
}

// A re-init that only turns the direction round (no key) decrypts with the
// key already set. OpenSSL 4.0.2's default SM4-XTS keeps the schedule made
// for the first direction and silently gives neither direction's output.
TEST_CASE("SM4-XTS: a re-init without a key changes the direction", "[cipher][xts]") {
    LoadedProvider prov;
    CipherPtr ours = prov.cipher("SM4-XTS");
    Lcg rng(1619);
    const Bytes key = rng.bytes(32), iv = rng.bytes(16), msg = rng.bytes(40);
    for (const char* standard : kStandards) {
        INFO(standard);
        const Run want = xts(ours.get(), true, key, iv, msg, standard);
        REQUIRE(want.ok);
        CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_EncryptInit_ex2(ctx.get(), ours.get(), key.data(), iv.data(), nullptr) == 1);
        REQUIRE(set_standard(ctx.get(), standard));
        Bytes out(40);
        int outl = 0;
        REQUIRE(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, msg.data(), 40) == 1);
        CHECK(out == want.out);
        REQUIRE(EVP_DecryptInit_ex2(ctx.get(), nullptr, nullptr, nullptr, nullptr) == 1);
        REQUIRE(EVP_DecryptUpdate(ctx.get(), out.data(), &outl, want.out.data(), 40) == 1);
        CHECK(out == msg);
        REQUIRE(EVP_EncryptInit_ex2(ctx.get(), nullptr, nullptr, nullptr, nullptr) == 1);
        REQUIRE(EVP_EncryptUpdate(ctx.get(), out.data(), &outl, msg.data(), 40) == 1);
        CHECK(out == want.out);
    }
}

// The string ends at data_size if no NUL comes first: "IEEE" followed by
// other bytes is IEEE when data_size is 4, and "GB" cut to one byte is no
// standard (the default provider reads on to the NUL).
TEST_CASE("SM4-XTS: xts_standard is read within its data_size", "[cipher][xts][errors]") {
    LoadedProvider prov;
    CipherPtr ours = prov.cipher("SM4-XTS");
    CipherPtr ecb = prov.default_cipher("SM4-ECB");
    Lcg rng(4004);
    const Bytes key = rng.bytes(32), iv = rng.bytes(16), msg = rng.bytes(48);
    auto encrypt_with = [&](char* value, size_t size) {
        CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_EncryptInit_ex2(ctx.get(), ours.get(), key.data(), iv.data(), nullptr) == 1);
        OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_string("xts_standard", value, size), OSSL_PARAM_END};
        Run r;
        if (EVP_CIPHER_CTX_set_params(ctx.get(), p) != 1) return r;
        r.out.resize(msg.size());
        int outl = 0;
        r.ok = EVP_EncryptUpdate(ctx.get(), r.out.data(), &outl, msg.data(), static_cast<int>(msg.size())) == 1;
        return r;
    };
    char ieee_and_more[] = "IEEEGB";
    const Run ieee = encrypt_with(ieee_and_more, 4);
    REQUIRE(ieee.ok);
    CHECK(ieee.out == reference_xts(ecb.get(), true, true, key, iv, msg));
    char gb[] = "GB";
    CHECK_FALSE(encrypt_with(gb, 1).ok);
    CHECK_FALSE(take_errors().empty());
    const Run whole = encrypt_with(gb, 2);
    REQUIRE(whole.ok);
    CHECK(whole.out == reference_xts(ecb.get(), true, false, key, iv, msg));
}

// EVP_Cipher() runs the same one data unit as an update, both ways, and
// returns its length.
TEST_CASE("SM4-XTS: EVP_Cipher is one data unit, as an update", "[cipher][xts]") {
    LoadedProvider prov;
    CipherPtr ours = prov.cipher("SM4-XTS");
    Lcg rng(2022);
    Bytes key = rng.bytes(32), iv = rng.bytes(16), msg = rng.bytes(100);
    Run want = xts(ours.get(), true, key, iv, msg, "GB");
    REQUIRE(want.ok);
    for (int enc : {1, 0}) {
        INFO("encrypt " << enc);
        CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_CipherInit_ex2(ctx.get(), ours.get(), key.data(), iv.data(), enc, nullptr) == 1);
        const Bytes& in = enc ? msg : want.out;
        Bytes out(100);
        CHECK(EVP_Cipher(ctx.get(), out.data(), in.data(), 100) == 100);
        CHECK(out == (enc ? want.out : msg));
    }
}
