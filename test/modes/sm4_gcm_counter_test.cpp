// SM4-GCM's counter (provider/cipher/sm4_gcm_mode.cpp, OpenSSL-free, driven
// directly): inc32 wraps its low 32 bits without carrying into the upper 96,
// whether the counter is public (12-byte IV: the engine's ctr, split at the
// wrap) or secret (J0 from GHASH: counter blocks through ecb), on every SM4
// engine as it is and without its fused ctr. Then whole messages whose J0
// (an IV solved for in GF(2^128), so no search) wraps inside the blocks
// the first engine call computes ahead (sized by the first text piece),
// at their end, or later, against CTR and GHASH
// written here from SP 800-38D over the portable engine's one block.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>

#include "cipher/sm4_gcm_mode.hpp"
#include "generic/generic_engines.hpp"  // backend internals (hwaccel_backend_internals)
#include "hwaccel/bytes.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/registry.hpp"
#include "support/gf128_reference.hpp"
#include "support/vectors.hpp"

using hwaccel::test::Bytes;
using hwaccel::test::Gf;
using hwaccel::test::gf_load;
using hwaccel::test::gf_mul;
using hwaccel::test::gf_store;
using hwaccel::test::Lcg;

namespace {

void inc32(uint8_t c[16]) { hwaccel::store_be32(c + 12, hwaccel::load_be32(c + 12) + 1); }

// out = in ^ E_K(inc32^i(counter)), one block at a time; counter advanced.
Bytes reference_ctr(const hwaccel::Sm4Key& key, const Bytes& in, uint8_t counter[16]) {
    Bytes out(in.size());
    for (size_t i = 0; i < in.size(); i += 16) {
        uint8_t ks[16];
        hwaccel::generic::sm4.encrypt_block(&key, ks, counter);
        inc32(counter);
        for (size_t j = 0; j < 16 && i + j < in.size(); ++j) out[i + j] = in[i + j] ^ ks[j];
    }
    return out;
}

// x^(2^128 - 2) = x^-1: 127 ones then a zero, most significant first.
Gf gf_inverse(Gf x) {
    Gf r{uint64_t{1} << 63, 0};  // 1
    for (int i = 0; i < 127; ++i) r = gf_mul(gf_mul(r, r), x);
    return gf_mul(r, r);
}

// The 16-byte IV whose J0 = GHASH_H(IV || 0^64 || [128]_64) is `j0`:
// J0 = (IV*H + L)*H, so IV = J0*H^-1 + L, times H^-1.
Bytes iv_for_j0(const uint8_t h[16], const uint8_t j0[16]) {
    const Gf hinv = gf_inverse(gf_load(h));
    Gf x = gf_mul(gf_load(j0), hinv);
    x.lo ^= 128;  // L: the IV's bit length
    x = gf_mul(x, hinv);
    Bytes iv(16);
    gf_store(x, iv.data());
    return iv;
}

// GHASH_H(A || pad || C || pad || [len A]_64 || [len C]_64).
void reference_ghash(const uint8_t h[16], const Bytes& aad, const Bytes& text, uint8_t out[16]) {
    const Gf hk = gf_load(h);
    Gf y;
    auto absorb = [&](const Bytes& data) {
        for (size_t i = 0; i < data.size(); i += 16) {
            uint8_t block[16] = {};
            std::memcpy(block, data.data() + i, data.size() - i < 16 ? data.size() - i : 16);
            const Gf b = gf_load(block);
            y = gf_mul({y.hi ^ b.hi, y.lo ^ b.lo}, hk);
        }
    };
    absorb(aad);
    absorb(text);
    y = gf_mul({y.hi ^ aad.size() * 8, y.lo ^ text.size() * 8}, hk);
    gf_store(y, out);
}

std::string engine_label(const hwaccel::Sm4Engine& e, bool bare) {
    return std::string(e.name) + (bare ? " (no fused ctr)" : "");
}

}  // namespace

TEST_CASE("sm4_gcm_ctr32: inc32 wraps the low word, public and secret counters, every engine",
          "[gcm][counter]") {
    Lcg rng(71);
    uint8_t user_key[16];
    rng.fill(user_key, sizeof user_key);
    for (const hwaccel::Sm4Engine* engine : hwaccel::sm4_engines()) {
        if (!engine->available(hwaccel::cpu_features())) continue;
        for (bool bare : {false, true}) {
            hwaccel::Sm4Engine e = *engine;
            if (bare) e.ctr = nullptr;
            hwaccel::Sm4GcmState s;
            std::memset(&s, 0, sizeof s);
            hwaccel::sm4_gcm_bind(s, &e, &hwaccel::generic::ghash);
            e.set_key(&s.key, user_key);
            for (bool secret : {false, true})
                for (uint32_t low : {0xfffffff0u, 0xfffffffeu, 0xffffffffu, 0u, 7u})
                    for (size_t nblocks : {size_t{1}, size_t{2}, size_t{9}, size_t{40}, size_t{300}}) {
                        INFO(engine_label(e, bare) << (secret ? " secret" : " public") << " low word "
                                                   << low << ", " << nblocks << " blocks");
                        s.counter_secret = secret;
                        uint8_t start[16], counter[16], expected_counter[16];
                        rng.fill(start, 12);
                        hwaccel::store_be32(start + 12, low);
                        std::memcpy(counter, start, 16);
                        std::memcpy(expected_counter, start, 16);
                        const Bytes in = rng.bytes(16 * nblocks);
                        const Bytes want = reference_ctr(s.key, in, expected_counter);
                        Bytes out(in.size());
                        hwaccel::sm4_gcm_ctr32(s, out.data(), in.data(), nblocks, counter);
                        CHECK(out == want);
                        CHECK(std::memcmp(counter, expected_counter, 16) == 0);
                        Bytes inplace = in;  // in place
                        std::memcpy(counter, start, 16);
                        hwaccel::sm4_gcm_ctr32(s, inplace.data(), inplace.data(), nblocks, counter);
                        CHECK(inplace == want);
                    }
        }
    }
}

TEST_CASE("SM4-GCM messages whose J0 wraps within, at the end of, and after the first blocks",
          "[gcm][counter]") {
    Lcg rng(72);
    uint8_t user_key[16], h[16] = {};
    rng.fill(user_key, sizeof user_key);
    hwaccel::Sm4Key ref_key;
    hwaccel::generic::sm4.set_key(&ref_key, user_key);
    hwaccel::generic::sm4.encrypt_block(&ref_key, h, h);
    const Bytes aad = rng.bytes(21);
    for (size_t text_len : {size_t{5}, size_t{16 * 6 + 3}, size_t{16 * 7}, size_t{16 * 25 + 1},
                            size_t{16 * 40 + 9}})
        for (uint32_t low : {0xfffffffbu, 0xfffffff9u, 0xfffffff8u, 0xffffffffu, 0xffffffe8u,
                             0xffffffe0u}) {
            uint8_t j0[16];
            rng.fill(j0, 12);
            hwaccel::store_be32(j0 + 12, low);
            const Bytes iv = iv_for_j0(h, j0);
            const Bytes text = rng.bytes(text_len);
            uint8_t counter[16], mask[16], want_tag[16];
            std::memcpy(counter, j0, 16);
            hwaccel::generic::sm4.encrypt_block(&ref_key, mask, j0);
            inc32(counter);
            const Bytes want = reference_ctr(ref_key, text, counter);
            reference_ghash(h, aad, want, want_tag);
            for (size_t i = 0; i < 16; ++i) want_tag[i] ^= mask[i];
            for (const hwaccel::Sm4Engine* engine : hwaccel::sm4_engines()) {
                if (!engine->available(hwaccel::cpu_features())) continue;
                for (bool bare : {false, true})
                for (size_t first_piece : {size_t{1}, size_t{16}, text_len}) {
                    hwaccel::Sm4Engine e = *engine;
                    if (bare) e.ctr = nullptr;
                    INFO(engine_label(e, bare) << ", J0 low word " << low << ", " << text_len
                                               << " bytes, the first " << first_piece << " alone");
                    hwaccel::Sm4GcmState s;
                    std::memset(&s, 0, sizeof s);
                    hwaccel::sm4_gcm_bind(s, &e, &hwaccel::generic::ghash);
                    hwaccel::sm4_gcm_set_key(s, user_key);
                    hwaccel::sm4_gcm_set_iv(s, iv.data(), iv.size());
                    REQUIRE(hwaccel::sm4_gcm_aad(s, aad.data(), aad.size()));
                    // In two pieces (a partial block, a whole one, or all at once).
                    const size_t first = first_piece < text.size() ? first_piece : text.size();
                    Bytes out(text.size());
                    REQUIRE(hwaccel::sm4_gcm_encrypt(s, out.data(), text.data(), first));
                    REQUIRE(hwaccel::sm4_gcm_encrypt(s, out.data() + first, text.data() + first,
                                                     text.size() - first));
                    uint8_t tag[16];
                    hwaccel::sm4_gcm_tag(s, tag);
                    CHECK(out == want);
                    CHECK(std::memcmp(tag, want_tag, 16) == 0);
                }
            }
        }
}

// The limits, reached by starting the counts near them (2^61 bytes of AAD
// cannot be fed): the last byte allowed is taken, the next refused with
// nothing changed. The AAD bound is one below 2^61 bytes, whose bit count
// would be 0 in the tag's 64-bit lengths field (the static_asserts).
TEST_CASE("SM4-GCM length limits: AAD below 2^61 bytes, text 2^36 - 32 bytes", "[gcm]") {
    const uint8_t user_key[16] = {1, 2, 3};
    const uint8_t iv[12] = {4, 5, 6};
    const uint8_t data[32] = {7};
    uint8_t out[32];
    auto started = [&](hwaccel::Sm4GcmState& s) {
        std::memset(&s, 0, sizeof s);
        hwaccel::sm4_gcm_bind(s, &hwaccel::generic::sm4, &hwaccel::generic::ghash);
        hwaccel::sm4_gcm_set_key(s, user_key);
        hwaccel::sm4_gcm_set_iv(s, iv, sizeof iv);
    };
    static_assert(hwaccel::kGcmMaxAadBytes * 8 / 8 == hwaccel::kGcmMaxAadBytes,
                  "the largest AAD's bit count fits the 64-bit lengths field");
    static_assert((hwaccel::kGcmMaxAadBytes + 1) * 8 == 0, "one more byte would wrap to 0 bits");
    SECTION("AAD") {
        hwaccel::Sm4GcmState s;
        started(s);
        s.aad_len = hwaccel::kGcmMaxAadBytes - 16;
        CHECK_FALSE(hwaccel::sm4_gcm_aad(s, data, 17));
        CHECK(s.aad_len == hwaccel::kGcmMaxAadBytes - 16);
        CHECK(hwaccel::sm4_gcm_aad(s, data, 16));
        CHECK(s.aad_len == hwaccel::kGcmMaxAadBytes);
        CHECK_FALSE(hwaccel::sm4_gcm_aad(s, data, 1));
        CHECK(hwaccel::sm4_gcm_aad(s, data, 0));
    }
    SECTION("text") {
        hwaccel::Sm4GcmState s;
        started(s);
        REQUIRE(hwaccel::sm4_gcm_encrypt(s, out, data, 0));
        s.text_len = hwaccel::kGcmMaxTextBytes - 16;
        std::memset(out, 0xa5, sizeof out);
        CHECK_FALSE(hwaccel::sm4_gcm_encrypt(s, out, data, 17));
        CHECK(out[0] == 0xa5);
        CHECK(s.text_len == hwaccel::kGcmMaxTextBytes - 16);
        CHECK(hwaccel::sm4_gcm_encrypt(s, out, data, 16));
        CHECK(s.text_len == hwaccel::kGcmMaxTextBytes);
        CHECK_FALSE(hwaccel::sm4_gcm_decrypt(s, out, data, 1));
    }
}
