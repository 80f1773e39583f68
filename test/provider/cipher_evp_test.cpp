// SM4 through EVP: hwaccel (every engine selection this CPU can run)
// against OpenSSL's default provider in the same library context.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/proverr.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cstring>
#include <vector>

#include "provider_fixture.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

const char* const kModes[] = {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB", "SM4-CTR"};

struct Run {
    Bytes out;
    bool ok = true;
};

// How a message is fed to EVP_CipherUpdate.
struct Feed {
    std::vector<size_t> pieces;  // sums to the message length
    bool in_place = false;
    size_t misalign = 0;        // input and output offsets into their buffers
    int copy_at = -1;           // continue on an EVP_CIPHER_CTX_copy after this piece
};

Feed random_feed(Lcg& rng, size_t len) {
    Feed f;
    size_t left = len;
    while (left > 0) {
        size_t p;
        switch (rng.below(5)) {
        case 0: p = 0; break;
        case 1: p = 1; break;
        case 2: p = rng.below(17); break;
        case 3: p = left; break;
        default: p = rng.below(600); break;
        }
        if (p > left) p = left;
        f.pieces.push_back(p);
        left -= p;
    }
    f.in_place = rng.below(3) == 0;
    f.misalign = rng.below(16);
    f.copy_at = f.pieces.empty() || rng.below(3) ? -1 : static_cast<int>(rng.below(f.pieces.size()));
    return f;
}

Run crypt(const EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& iv, const Bytes& msg,
          const Feed& feed, bool padding = true) {
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_CipherInit_ex2(ctx.get(), c, key.data(), iv.empty() ? nullptr : iv.data(), enc ? 1 : 0, nullptr) == 1);
    EVP_CIPHER_CTX_set_padding(ctx.get(), padding ? 1 : 0);
    Run r;
    // One buffer with room for input, output and misalignment.
    Bytes space(msg.size() * 2 + 64 + feed.misalign * 2);
    unsigned char* in = space.data() + feed.misalign;
    if (!msg.empty()) std::memcpy(in, msg.data(), msg.size());
    unsigned char* out = feed.in_place ? in : space.data() + msg.size() + 32 + feed.misalign;
    size_t done_in = 0, done_out = 0;
    for (size_t i = 0; i < feed.pieces.size(); ++i) {
        int outl = 0;
        if (EVP_CipherUpdate(ctx.get(), out + done_out, &outl, in + done_in, static_cast<int>(feed.pieces[i])) != 1) {
            r.ok = false;
            return r;
        }
        done_in += feed.pieces[i];
        done_out += outl;
        if (static_cast<int>(i) == feed.copy_at) {
            CipherCtxPtr copy(EVP_CIPHER_CTX_new());
            REQUIRE(EVP_CIPHER_CTX_copy(copy.get(), ctx.get()) == 1);
            ctx = std::move(copy);  // the original is freed: the copy must stand alone
        }
    }
    int outl = 0;
    unsigned char last[32];
    if (EVP_CipherFinal_ex(ctx.get(), last, &outl) != 1) {
        r.ok = false;
    }
    r.out.assign(out, out + done_out);
    r.out.insert(r.out.end(), last, last + outl);
    return r;
}

Feed one_piece(size_t len) { return Feed{{len}, false, 0, -1}; }

}  // namespace

TEST_CASE("cipher parameters equal the default provider's", "[cipher]") {
    LoadedProvider prov;
    for (const char* name : kModes) {
        INFO(name);
        CipherPtr ours = prov.cipher(name), theirs = prov.default_cipher(name);
        CHECK(EVP_CIPHER_get_block_size(ours.get()) == EVP_CIPHER_get_block_size(theirs.get()));
        CHECK(EVP_CIPHER_get_key_length(ours.get()) == EVP_CIPHER_get_key_length(theirs.get()));
        CHECK(EVP_CIPHER_get_iv_length(ours.get()) == EVP_CIPHER_get_iv_length(theirs.get()));
        CHECK(EVP_CIPHER_get_mode(ours.get()) == EVP_CIPHER_get_mode(theirs.get()));
        CHECK(EVP_CIPHER_get_flags(ours.get()) == EVP_CIPHER_get_flags(theirs.get()));
        CHECK(EVP_CIPHER_get_type(ours.get()) == EVP_CIPHER_get_type(theirs.get()));
        EVP_CIPHER_names_do_all(theirs.get(), [](const char* alias, void* arg) {
            auto* p = static_cast<LoadedProvider*>(arg);
            CipherPtr m(EVP_CIPHER_fetch(p->libctx(), alias, "provider=hwaccel"));
            INFO("alias " << alias);
            CHECK(m != nullptr);
        }, &prov);
    }
}

TEST_CASE("OpenSSL's evpciph_sm4.txt through EVP", "[cipher][vectors]") {
    LoadedProvider prov;
    int checked = 0;
    for (const CipherVector& v : load_evp_cipher_tests(vector_path("sm4/evpciph_sm4.txt"))) {
        INFO(v.where << " Cipher = " << v.cipher);
        REQUIRE(v.other.empty());
        CipherPtr c = prov.cipher(v.cipher.c_str());
        Run e = crypt(c.get(), true, v.key, v.iv, v.plaintext, one_piece(v.plaintext.size()), false);
        Run d = crypt(c.get(), false, v.key, v.iv, v.ciphertext, one_piece(v.ciphertext.size()), false);
        CHECK(e.ok);
        CHECK(d.ok);
        CHECK(e.out == v.ciphertext);
        CHECK(d.out == v.plaintext);
        ++checked;
    }
    CHECK(checked >= 5);
}

TEST_CASE("SM4 equals the default provider: random lengths, pieces, in place, misaligned, copies", "[cipher]") {
    Lcg rng(32907);
    for (const std::string& sel : engine_selections()) {
        LoadedProvider prov(sel);
        for (const char* name : kModes) {
            CipherPtr ours = prov.cipher(name), theirs = prov.default_cipher(name);
            const bool stream = EVP_CIPHER_get_block_size(ours.get()) == 1;
            for (int iter = 0; iter < 60; ++iter) {
                Bytes key = rng.bytes(16), iv = rng.bytes(16);
                size_t len = iter < 20 ? iter : rng.below(5001);
                bool padding = stream || rng.below(4) != 0;
                if (!padding) len -= len % 16;
                Bytes msg = rng.bytes(len);
                INFO("engines " << prov.engines() << ", " << name << ", length " << len
                                << ", padding " << padding);
                Run want = crypt(theirs.get(), true, key, iv, msg, one_piece(len), padding);
                REQUIRE(want.ok);
                Feed feed = random_feed(rng, len);
                INFO("pieces " << feed.pieces.size() << " in-place " << feed.in_place << " misalign "
                               << feed.misalign << " copy at " << feed.copy_at);
                Run got = crypt(ours.get(), true, key, iv, msg, feed, padding);
                CHECK(got.ok);
                CHECK(got.out == want.out);
                Feed back = random_feed(rng, want.out.size());
                Run plain = crypt(ours.get(), false, key, iv, want.out, back, padding);
                CHECK(plain.ok);
                CHECK(plain.out == msg);
            }
        }
    }
}

TEST_CASE("CTR carries through the whole 128-bit counter", "[cipher][ctr]") {
    Lcg rng(5);
    for (const std::string& sel : engine_selections()) {
        LoadedProvider prov(sel);
        CipherPtr ours = prov.cipher("SM4-CTR"), theirs = prov.default_cipher("SM4-CTR");
        Bytes key = rng.bytes(16);
        // Counters a few blocks before the 2^32, 2^64 and 2^128 wraps.
        for (int word : {12, 8, 0}) {
            Bytes iv(16, 0);
            for (int i = word; i < 16; ++i) iv[i] = 0xff;
            iv[15] = 0xfd;
            for (size_t len : {16u, 64u, 100u, 1024u, 4099u}) {
                INFO("engines " << prov.engines() << " counter " << word << " length " << len);
                Bytes msg = rng.bytes(len);
                Run want = crypt(theirs.get(), true, key, iv, msg, one_piece(len));
                Run got = crypt(ours.get(), true, key, iv, msg, random_feed(rng, len));
                CHECK(got.out == want.out);
            }
        }
    }
}

TEST_CASE("num and the updated IV read back as the default provider's", "[cipher][params]") {
    Lcg rng(11);
    LoadedProvider prov;
    for (const char* name : kModes) {
        INFO(name);
        CipherPtr ours = prov.cipher(name), theirs = prov.default_cipher(name);
        Bytes key = rng.bytes(16), iv = rng.bytes(16), msg = rng.bytes(300);
        CipherCtxPtr a(EVP_CIPHER_CTX_new()), b(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_EncryptInit_ex2(a.get(), ours.get(), key.data(), iv.data(), nullptr) == 1);
        REQUIRE(EVP_EncryptInit_ex2(b.get(), theirs.get(), key.data(), iv.data(), nullptr) == 1);
        size_t pos = 0;
        while (pos < msg.size()) {
            size_t piece = std::min<size_t>(rng.below(40), msg.size() - pos);
            unsigned char oa[64], ob[64];
            int la = 0, lb = 0;
            REQUIRE(EVP_EncryptUpdate(a.get(), oa, &la, msg.data() + pos, static_cast<int>(piece)) == 1);
            REQUIRE(EVP_EncryptUpdate(b.get(), ob, &lb, msg.data() + pos, static_cast<int>(piece)) == 1);
            pos += piece;
            CHECK(Bytes(oa, oa + la) == Bytes(ob, ob + lb));
            CHECK(EVP_CIPHER_CTX_get_num(a.get()) == EVP_CIPHER_CTX_get_num(b.get()));
            unsigned char ia[16] = {0}, ib[16] = {0};
            REQUIRE(EVP_CIPHER_CTX_get_updated_iv(a.get(), ia, sizeof ia) == 1);
            REQUIRE(EVP_CIPHER_CTX_get_updated_iv(b.get(), ib, sizeof ib) == 1);
            CHECK(Bytes(ia, ia + 16) == Bytes(ib, ib + 16));
            REQUIRE(EVP_CIPHER_CTX_get_original_iv(a.get(), ia, sizeof ia) == 1);
            CHECK(Bytes(ia, ia + EVP_CIPHER_get_iv_length(ours.get())) ==
                  Bytes(iv.begin(), iv.begin() + EVP_CIPHER_get_iv_length(ours.get())));
        }
        // The deprecated pointer getters ask for an octet pointer.
        CHECK(EVP_CIPHER_CTX_get_key_length(a.get()) == 16);
    }
}

TEST_CASE("re-init: no key keeps the key, no IV restores or continues as default does", "[cipher][init]") {
    Lcg rng(3);
    LoadedProvider prov;
    for (const char* name : kModes) {
        INFO(name);
        CipherPtr ours = prov.cipher(name), theirs = prov.default_cipher(name);
        Bytes key = rng.bytes(16), iv = rng.bytes(16), msg = rng.bytes(77);
        Bytes results[2];
        const EVP_CIPHER* ciphers[2] = {ours.get(), theirs.get()};
        for (int k = 0; k < 2; ++k) {
            CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
            // As openssl speed does: cipher first, padding, then key and IV, then IV only.
            REQUIRE(EVP_CipherInit_ex(ctx.get(), ciphers[k], nullptr, nullptr, nullptr, 1) == 1);
            EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
            REQUIRE(EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, key.data(), iv.data(), -1) == 1);
            unsigned char out[200];
            int outl = 0;
            size_t n = EVP_CIPHER_get_block_size(ciphers[k]) == 1 ? msg.size() : 64;
            REQUIRE(EVP_CipherUpdate(ctx.get(), out, &outl, msg.data(), static_cast<int>(n)) == 1);
            results[k].assign(out, out + outl);
            REQUIRE(EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, nullptr, nullptr, -1) == 1);
            REQUIRE(EVP_CipherUpdate(ctx.get(), out, &outl, msg.data(), static_cast<int>(n)) == 1);
            results[k].insert(results[k].end(), out, out + outl);
            REQUIRE(EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, nullptr, iv.data(), -1) == 1);
            REQUIRE(EVP_CipherUpdate(ctx.get(), out, &outl, msg.data(), static_cast<int>(n)) == 1);
            results[k].insert(results[k].end(), out, out + outl);
        }
        CHECK(results[0] == results[1]);
    }
}

TEST_CASE("cipher errors: key/IV length, no key, padding, num range", "[cipher][errors]") {
    LoadedProvider prov;
    Bytes key(16, 1), iv(16, 2);
    for (const char* name : kModes) {
        INFO(name);
        CipherPtr c = prov.cipher(name);
        const bool stream = EVP_CIPHER_get_block_size(c.get()) == 1;
        CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
        unsigned char out[64];
        std::memset(out, 0xee, sizeof out);
        int outl = -1;

        // Operating before a key is set.
        REQUIRE(EVP_EncryptInit_ex2(ctx.get(), c.get(), nullptr, nullptr, nullptr) == 1);
        CHECK(EVP_EncryptUpdate(ctx.get(), out, &outl, key.data(), 16) == 0);
        CHECK(is_openssl_error(take_error_codes().last(), ERR_LIB_PROV, PROV_R_NO_KEY_SET));
        for (int i = 0; i < 64; ++i) CHECK(out[i] == 0xee);

        // The key length is fixed: EVP refuses to change it.
        CHECK(EVP_EncryptInit_ex2(ctx.get(), c.get(), key.data(), iv.data(), nullptr) == 1);
        CHECK(EVP_CIPHER_CTX_set_key_length(ctx.get(), 16) == 1);
        CHECK(EVP_CIPHER_CTX_set_key_length(ctx.get(), 32) == 0);
        take_errors();

        // num outside 0..15 is refused and changes nothing.
        unsigned bad_num = 16;
        OSSL_PARAM np[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &bad_num), OSSL_PARAM_END};
        CHECK(EVP_CIPHER_CTX_set_params(ctx.get(), np) == 0);
        // OpenSSL 3.5+'s default refuses it too, with this code; 3.0's accepts it.
        CHECK(is_openssl_error(take_error_codes().last(), ERR_LIB_PROV, PROV_R_FAILED_TO_GET_PARAMETER));
        CHECK(EVP_CIPHER_CTX_get_num(ctx.get()) == 0);

        if (!stream) {
            // Padding off with a partial block: final fails.
            REQUIRE(EVP_EncryptInit_ex2(ctx.get(), c.get(), key.data(), iv.data(), nullptr) == 1);
            EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
            REQUIRE(EVP_EncryptUpdate(ctx.get(), out, &outl, key.data(), 5) == 1);
            CHECK(outl == 0);
            CHECK(EVP_EncryptFinal_ex(ctx.get(), out, &outl) == 0);
            CHECK(is_openssl_error(take_error_codes().last(), ERR_LIB_PROV, PROV_R_WRONG_FINAL_BLOCK_LENGTH));
            // Bad padding: final fails and writes nothing.
            Bytes junk(32, 0x42);
            REQUIRE(EVP_DecryptInit_ex2(ctx.get(), c.get(), key.data(), iv.data(), nullptr) == 1);
            EVP_CIPHER_CTX_set_padding(ctx.get(), 1);  // init keeps the padding setting
            REQUIRE(EVP_DecryptUpdate(ctx.get(), out, &outl, junk.data(), 32) == 1);
            CHECK(outl == 16);  // the last block is held back for unpadding
            std::memset(out, 0xee, sizeof out);
            CHECK(EVP_DecryptFinal_ex(ctx.get(), out, &outl) == 0);
            CHECK(is_openssl_error(take_error_codes().last(), ERR_LIB_PROV, PROV_R_BAD_DECRYPT));
            for (int i = 0; i < 16; ++i) CHECK(out[i] == 0xee);
            // Decrypting a partial block with padding: final fails.
            REQUIRE(EVP_DecryptInit_ex2(ctx.get(), c.get(), key.data(), iv.data(), nullptr) == 1);
            REQUIRE(EVP_DecryptUpdate(ctx.get(), out, &outl, junk.data(), 7) == 1);
            CHECK(EVP_DecryptFinal_ex(ctx.get(), out, &outl) == 0);
            take_errors();
        }
    }
    // Wrong key and IV lengths cannot be passed through EVP (it passes the
    // cipher's own lengths); the dispatch test checks those refusals.
}

// Regression: OpenSSL 3.0's EVP_EncryptUpdate/EVP_DecryptUpdate pass a
// negative int length on as a huge size_t. With bytes buffered, block modes
// used to wrap `buffered + inl` and copy about 2^64 bytes into the context;
// stream modes ran off both buffers (the default provider still does). The
// call must fail with an error and leave the context exactly as it was.
TEST_CASE("negative lengths through EVP are refused and change nothing", "[cipher][errors][regression]") {
    Lcg rng(11);
    for (const std::string& sel : engine_selections()) {
        LoadedProvider prov(sel);
        INFO(sel);
        for (const char* name : kModes) {
            INFO(name);
            CipherPtr ours = prov.cipher(name);
            CipherPtr theirs = prov.default_cipher(name);
            for (int enc = 0; enc <= 1; ++enc) {
                for (int bad_len : {-1, -16, -17, INT_MIN}) {
                    INFO("enc " << enc << " len " << bad_len);
                    const Bytes key = rng.bytes(16), iv = rng.bytes(16);
                    const Bytes msg = rng.bytes(80);
                    const size_t head = 1 + rng.below(15);  // 1..15 bytes buffered
                    Bytes out(msg.size() + 32, 0xee), expect(msg.size() + 32);
                    int outl = 0, total = 0;

                    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                    REQUIRE(EVP_CipherInit_ex2(ctx.get(), ours.get(), key.data(), iv.data(), enc, nullptr) == 1);
                    REQUIRE(EVP_CipherUpdate(ctx.get(), out.data(), &outl, msg.data(), static_cast<int>(head)) == 1);
                    total = outl;
                    const Bytes before(out.begin() + total, out.end());
                    int bad_outl = 12345;
                    CHECK(EVP_CipherUpdate(ctx.get(), out.data() + total, &bad_outl, msg.data() + head, bad_len) == 0);
                    CHECK_FALSE(take_errors().empty());
                    CHECK(Bytes(out.begin() + total, out.end()) == before);  // nothing written
                    // The context goes on as if the bad call never happened.
                    REQUIRE(EVP_CipherUpdate(ctx.get(), out.data() + total, &outl, msg.data() + head,
                                             static_cast<int>(msg.size() - head)) == 1);
                    total += outl;
                    // Random ciphertext does not unpad: decrypt without padding.
                    if (!enc) EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
                    REQUIRE(EVP_CipherFinal_ex(ctx.get(), out.data() + total, &outl) == 1);
                    total += outl;

                    CipherCtxPtr ref(EVP_CIPHER_CTX_new());
                    int rl = 0, rtotal = 0;
                    REQUIRE(EVP_CipherInit_ex2(ref.get(), theirs.get(), key.data(), iv.data(), enc, nullptr) == 1);
                    if (!enc) EVP_CIPHER_CTX_set_padding(ref.get(), 0);
                    REQUIRE(EVP_CipherUpdate(ref.get(), expect.data(), &rl, msg.data(), static_cast<int>(msg.size())) == 1);
                    rtotal = rl;
                    REQUIRE(EVP_CipherFinal_ex(ref.get(), expect.data() + rtotal, &rl) == 1);
                    rtotal += rl;
                    CHECK(Bytes(out.begin(), out.begin() + total) == Bytes(expect.begin(), expect.begin() + rtotal));
                }
            }
        }
    }
}

// A CTR stream saved as (updated IV, num) and restored into a new context
// continues exactly. The default provider XORs the first bytes with whatever
// its keystream buffer holds (zeros in a fresh context: the plaintext comes
// out unencrypted), so the reference here is one unbroken default stream.
TEST_CASE("CTR resumed from a saved updated IV and num continues the stream", "[cipher][ctr][params]") {
    Lcg rng(8998);
    for (const std::string& sel : engine_selections()) {
        LoadedProvider prov(sel);
        INFO(sel);
        CipherPtr ours = prov.cipher("SM4-CTR");
        CipherPtr theirs = prov.default_cipher("SM4-CTR");
        for (int trial = 0; trial < 40; ++trial) {
            const Bytes key = rng.bytes(16);
            Bytes iv = rng.bytes(16);
            if (trial % 4 == 0) std::fill(iv.begin() + 8, iv.end(), 0xff);  // the resume crosses a carry
            if (trial % 8 == 1) std::fill(iv.begin(), iv.end(), 0);         // counter - 1 wraps below zero
            const Bytes msg = rng.bytes(1 + rng.below(300));
            const size_t cut = rng.below(msg.size());
            Bytes expect(msg.size()), out(msg.size());
            int outl = 0;
            CipherCtxPtr ref(EVP_CIPHER_CTX_new());
            REQUIRE(EVP_EncryptInit_ex2(ref.get(), theirs.get(), key.data(), iv.data(), nullptr) == 1);
            REQUIRE(EVP_EncryptUpdate(ref.get(), expect.data(), &outl, msg.data(), static_cast<int>(msg.size())) == 1);

            CipherCtxPtr first(EVP_CIPHER_CTX_new());
            REQUIRE(EVP_EncryptInit_ex2(first.get(), ours.get(), key.data(), iv.data(), nullptr) == 1);
            REQUIRE(EVP_EncryptUpdate(first.get(), out.data(), &outl, msg.data(), static_cast<int>(cut)) == 1);
            unsigned char saved_iv[16];
            unsigned saved_num = 0;
            OSSL_PARAM get[] = {
                OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, saved_iv, sizeof saved_iv),
                OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &saved_num), OSSL_PARAM_END};
            REQUIRE(EVP_CIPHER_CTX_get_params(first.get(), get) == 1);

            CipherCtxPtr resumed(EVP_CIPHER_CTX_new());
            OSSL_PARAM set[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &saved_num), OSSL_PARAM_END};
            REQUIRE(EVP_EncryptInit_ex2(resumed.get(), ours.get(), key.data(), saved_iv, set) == 1);
            REQUIRE(EVP_EncryptUpdate(resumed.get(), out.data() + cut, &outl, msg.data() + cut,
                                      static_cast<int>(msg.size() - cut)) == 1);
            INFO("cut " << cut << " num " << saved_num);
            CHECK(out == expect);
        }
    }
}
