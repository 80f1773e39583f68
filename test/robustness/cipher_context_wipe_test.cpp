// What a cipher context leaves behind: the allocator sees every block hwaccel
// (and libcrypto) frees and every block still live, and searches them for
// the secrets of a message: the key's first round keys (every engine keeps
// the standard schedule in Sm4Key::enc), the plaintext, the keystream (stream
// modes and the AEADs: ciphertext ^ plaintext) and XTS's first tweak. Freed
// contexts must hold none (abandoned mid-message, finished, copied, re-keyed,
// decrypting); a live context must hold no trace of a key it was re-keyed
// away from, and an AEAD's none of a message whose tag is done ("the message
// is over, whatever its outcome: nothing of it stays"): for the AEADs that
// includes the tag's mask and the value it masks (GCM's E_K(J0) and GHASH
// with a 12-byte IV; CCM's E_K(A_0) and CBC-MAC value).
//
// Written after scripts/mutation-sweep.py found wipes whose removal no test
// noticed (the freed-context test covered digests only).
#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "failing_allocator.hpp"
#include "generic/generic_engines.hpp"
#include "hwaccel/engines.hpp"
#include "provider_fixture.hpp"
#include "support/sm4_mode_cases.hpp"

using namespace hwaccel::test;

namespace {

using Mode = Sm4ModeCase;

constexpr int kCcmTag = 16;

std::string bytes_of(const unsigned char* p, size_t n) { return std::string(reinterpret_cast<const char*>(p), n); }

std::string pattern(size_t n, unsigned seed) {
    std::string s(n, '\0');
    for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + seed * 29 + 7) & 0xFF);
    return s;
}

// The first four round keys of a 16-byte key, as the engines store them.
std::string round_keys(const std::string& key) {
    hwaccel::Sm4Key k{};
    hwaccel::generic::sm4.set_key(&k, reinterpret_cast<const uint8_t*>(key.data()));
    return bytes_of(reinterpret_cast<const unsigned char*>(k.enc), 16);
}

void init(EVP_CIPHER_CTX* ctx, const EVP_CIPHER* c, const Mode& m, const std::string& key, const std::string& iv,
          int enc) {
    REQUIRE(EVP_CipherInit_ex2(ctx, c, nullptr, nullptr, enc, nullptr) == 1);
    if (m.aead()) REQUIRE(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(m.iv_len), nullptr) == 1);
    if (m.ccm) {
        std::vector<unsigned char> tag(kCcmTag, 0);
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, kCcmTag, enc ? nullptr : tag.data()) == 1);
    }
    REQUIRE(EVP_CipherInit_ex2(ctx, nullptr, reinterpret_cast<const unsigned char*>(key.data()),
                               m.iv_len ? reinterpret_cast<const unsigned char*>(iv.data()) : nullptr, enc,
                               nullptr) == 1);
    if (!m.aead()) EVP_CIPHER_CTX_set_padding(ctx, 0);
}

// `len` bytes of `in` through update (CCM: the whole message, once).
std::string update(EVP_CIPHER_CTX* ctx, const std::string& in, size_t len) {
    std::vector<unsigned char> out(len + 32);
    int n = 0;
    REQUIRE(EVP_CipherUpdate(ctx, out.data(), &n, reinterpret_cast<const unsigned char*>(in.data()),
                             static_cast<int>(len)) == 1);
    return bytes_of(out.data(), static_cast<size_t>(n));
}

// One block through the default provider's SM4-ECB.
std::string ecb_block(const LoadedProvider& prov, const std::string& key, const std::string& block) {
    CipherPtr ecb = prov.default_cipher("SM4-ECB");
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_EncryptInit_ex2(ctx.get(), ecb.get(), reinterpret_cast<const unsigned char*>(key.data()), nullptr,
                                nullptr) == 1);
    EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
    return update(ctx.get(), block, 16);
}

// The block an AEAD's tag is masked with: GCM's J0 with a 12-byte IV
// (IV || 0^31 || 1), CCM's A_0 (flags L - 1, the nonce, a zero counter);
// empty where the test does not derive it (GCM's other IV lengths: J0 is
// a GHASH of the IV).
std::string tag_mask_counter(const Mode& m, const std::string& iv) {
    if (m.gcm && m.iv_len == 12) return iv.substr(0, 12) + std::string("\0\0\0\1", 4);
    if (m.ccm) {
        const size_t l = 15 - m.iv_len;
        return std::string(1, static_cast<char>(l - 1)) + iv.substr(0, m.iv_len) + std::string(l, '\0');
    }
    return "";
}

// The case's length, and for CCM also its other two paths: payloads up to
// 96 bytes (E(A_0) and the keystream made ahead, with the MAC's first
// block) and longer than a 2032-byte stack buffer (sm4_ccm_mode.cpp).
constexpr size_t kMaxLen = 3000;
static_assert(kMaxLen >= kSm4ModeCaseMaxLen);
std::vector<size_t> lengths_of(const Mode& m) {
    if (m.ccm) return {m.len, 64, kMaxLen};
    return {m.len};
}

std::string xor_of(const std::string& a, const std::string& b) {
    std::string r(a);
    for (size_t i = 0; i < r.size(); ++i) r[i] = static_cast<char>(r[i] ^ b[i]);
    return r;
}

}  // namespace

TEST_CASE("cipher contexts keep no key, text or keystream they no longer need", "[wipe]") {
    const std::string key = pattern(32, 1), other_key = pattern(32, 2), iv = pattern(16, 3);
    const std::string text = pattern(kMaxLen, 4);
    for (const std::string& engines : engine_selections({"sm4", "ghash"})) {
        LoadedProvider prov(engines);
        for (const Mode& the_case : kSm4ModeCases) for (size_t len : lengths_of(the_case)) {
            Mode m = the_case;
            m.len = len;
            INFO(m.name << " under engines '" << engines << "', " << m.len << " bytes");
            CipherPtr c = prov.cipher(m.name);
            // The ciphertext, to know the keystream, an AEAD's tag, and XTS's first tweak.
            std::string cipher_text, tag;
            {
                CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                init(ctx.get(), c.get(), m, key, iv, 1);
                cipher_text = update(ctx.get(), text, m.len);
                REQUIRE(cipher_text.size() == m.len);
                if (m.aead()) {
                    unsigned char tail[32], t[kCcmTag];
                    int n = 0;
                    REQUIRE(EVP_CipherFinal_ex(ctx.get(), tail, &n) == 1);
                    REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, kCcmTag, t) == 1);
                    tag = bytes_of(t, kCcmTag);
                }
            }
            // The message's secrets, then the key's.
            std::vector<Watched> message = {{"plaintext", text.substr(40, 24)}};
            std::vector<Watched> secrets = {{"round keys", round_keys(key.substr(0, 16))}};
            if (m.key_len == 32) {
                secrets.push_back({"second key's round keys", round_keys(key.substr(16, 16))});
                message.push_back({"first tweak", ecb_block(prov, key.substr(16, 16), iv.substr(0, 16))});
            }
            if (m.stream) {
                // A whole block of it, and the used part of the last one
                // (which a context keeps apart from the rest).
                auto keystream = [&](size_t from, size_t to) {
                    std::string k(to - from, '\0');
                    for (size_t i = from; i < to; ++i) k[i - from] = static_cast<char>(cipher_text[i] ^ text[i]);
                    return k;
                };
                message.push_back({"keystream", keystream(48, 64)});
                if (m.len % 16 != 0)
                    message.push_back({"last block's keystream", keystream(m.len - m.len % 16, m.len)});
            }
            if (const std::string counter = tag_mask_counter(m, iv); !counter.empty()) {
                // The tag is the mask XOR the value (16-byte tags here).
                const std::string mask = ecb_block(prov, key.substr(0, 16), counter);
                message.push_back({m.gcm ? "E_K(J0)" : "E_K(A_0)", mask});
                message.push_back({m.gcm ? "the message's GHASH" : "CBC-MAC value", xor_of(tag, mask)});
            }
            secrets.insert(secrets.end(), message.begin(), message.end());
            const size_t part = m.ccm ? m.len : 80;  // CCM takes its payload in one update

            watch_freed_blocks_for(secrets);
            {
                CipherCtxPtr abandoned(EVP_CIPHER_CTX_new());
                init(abandoned.get(), c.get(), m, key, iv, 1);
                update(abandoned.get(), text, part);
                CipherCtxPtr copy(EVP_CIPHER_CTX_new());
                REQUIRE(EVP_CIPHER_CTX_copy(copy.get(), abandoned.get()) == 1);
                CipherCtxPtr decrypting(EVP_CIPHER_CTX_new());
                init(decrypting.get(), c.get(), m, key, iv, 0);
                if (!m.ccm) update(decrypting.get(), cipher_text, part);  // CCM would need its tag
            }
            CHECK(freed_block_holding_watched() == "");

            // A context re-keyed keeps nothing of the old key's message or
            // schedule, and frees nothing of it later.
            watch_freed_blocks_for(secrets);
            {
                const long serial = allocation_serial();
                CipherCtxPtr rekeyed(EVP_CIPHER_CTX_new());
                init(rekeyed.get(), c.get(), m, key, iv, 1);
                update(rekeyed.get(), text, part);
                init(rekeyed.get(), c.get(), m, other_key, iv, 1);
                CHECK(live_block_holding(serial, secrets) == "");
            }
            CHECK(freed_block_holding_watched() == "");

            // An AEAD's message is over with its tag: its context holds
            // nothing of it while it lives (the key stays for the next
            // message), nor anything when it is freed.
            watch_freed_blocks_for(secrets);
            {
                const long serial = allocation_serial();
                CipherCtxPtr finished(EVP_CIPHER_CTX_new());
                init(finished.get(), c.get(), m, key, iv, 1);
                update(finished.get(), text, m.len);
                unsigned char tail[32];
                int n = 0;
                REQUIRE(EVP_CipherFinal_ex(finished.get(), tail, &n) == 1);
                if (m.aead()) CHECK(live_block_holding(serial, message) == "");
            }
            CHECK(freed_block_holding_watched() == "");
            watch_freed_blocks_for("");
        }
    }
}
