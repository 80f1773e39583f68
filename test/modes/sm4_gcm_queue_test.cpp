// SM4-GCM's GHASH queue and E_K(J0) in the first keystream's spare lane
// (provider/cipher/sm4_gcm_mode.cpp, driven directly), on every SM4 engine
// with and without its ctr_with_first and every GHASH engine: messages
// whose AAD, text and pieces put the queue at 31, 32 and 33 blocks, the
// first text call at N batches of 32 and 96 blocks and one either side,
// with a partial last block or none; H due or known (a key given again);
// messages abandoned half-way by a new IV; in place and at odd addresses;
// both directions. Against CTR and GHASH written here from SP 800-38D over
// the portable engine's one block.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

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
using hwaccel::test::Lcg;

namespace {

// GHASH_H over data zero-padded to whole blocks, continuing from y.
void ghash_into(Gf h, Gf& y, const uint8_t* data, size_t len) {
    for (size_t i = 0; i < len; i += 16) {
        uint8_t block[16] = {};
        std::memcpy(block, data + i, len - i < 16 ? len - i : 16);
        const Gf b = gf_load(block);
        y = gf_mul({y.hi ^ b.hi, y.lo ^ b.lo}, h);
    }
}

struct Spec {
    Bytes iv, aad, text;
    Bytes ct;
    uint8_t tag[16];
};

// The reference seal (SP 800-38D 7.1) over the portable engine.
void reference_seal(const hwaccel::Sm4Key& key, Spec& s) {
    uint8_t hb[16] = {}, j0[16] = {};
    hwaccel::generic::sm4.encrypt_block(&key, hb, hb);
    const Gf h = gf_load(hb);
    if (s.iv.size() == 12) {
        std::memcpy(j0, s.iv.data(), 12);
        j0[15] = 1;
    } else {
        Gf y;
        ghash_into(h, y, s.iv.data(), s.iv.size());
        const Gf l{0, uint64_t{s.iv.size()} * 8};
        y = gf_mul({y.hi ^ l.hi, y.lo ^ l.lo}, h);
        hwaccel::store_be64(j0, y.hi);
        hwaccel::store_be64(j0 + 8, y.lo);
    }
    uint8_t counter[16], mask[16];
    hwaccel::generic::sm4.encrypt_block(&key, mask, j0);
    std::memcpy(counter, j0, 16);
    s.ct.resize(s.text.size());
    for (size_t i = 0; i < s.text.size(); i += 16) {
        hwaccel::store_be32(counter + 12, hwaccel::load_be32(counter + 12) + 1);
        uint8_t ks[16];
        hwaccel::generic::sm4.encrypt_block(&key, ks, counter);
        for (size_t j = 0; j < 16 && i + j < s.text.size(); ++j) s.ct[i + j] = s.text[i + j] ^ ks[j];
    }
    Gf y;
    ghash_into(h, y, s.aad.data(), s.aad.size());
    ghash_into(h, y, s.ct.data(), s.ct.size());
    y = gf_mul({y.hi ^ uint64_t{s.aad.size()} * 8, y.lo ^ uint64_t{s.text.size()} * 8}, h);
    hwaccel::store_be64(s.tag, y.hi);
    hwaccel::store_be64(s.tag + 8, y.lo);
    for (size_t i = 0; i < 16; ++i) s.tag[i] ^= mask[i];
}

// Piece sizes for len bytes: all at once, a byte then the rest, a block
// then the rest, 31 or 32 blocks then the rest, 17 bytes at a time, or random.
std::vector<size_t> pieces(Lcg& rng, size_t len) {
    std::vector<size_t> p;
    const size_t heads[] = {1, 16, 16 * 31, 16 * 32, 16 * 32 + 1, 16 * 33 - 1};
    switch (rng.below(5)) {
        case 0: p.push_back(len); break;
        case 1: {
            const size_t h = heads[rng.below(6)];
            p.push_back(h < len ? h : len);
            p.push_back(len - p[0]);
            break;
        }
        case 2:
            for (size_t done = 0; done < len; done += 17) p.push_back(len - done < 17 ? len - done : 17);
            break;
        default:
            for (size_t done = 0; done < len;) {
                const size_t n = 1 + rng.below(rng.below(2) ? 40 : 700);
                p.push_back(len - done < n ? len - done : n);
                done += p.back();
            }
    }
    return p;
}

}  // namespace

TEST_CASE("SM4-GCM: the GHASH queue and E_K(J0) with the first keystream, every engine",
          "[gcm][queue]") {
    Lcg rng(0x6c3);
    uint8_t user_key[16];
    rng.fill(user_key, sizeof user_key);
    hwaccel::Sm4Key ref_key;
    hwaccel::generic::sm4.set_key(&ref_key, user_key);

    std::vector<size_t> text_lens = {0, 1, 15, 16, 17};
    for (size_t k : {7, 8, 31, 32, 33, 63, 64, 95, 96, 97, 191, 192, 193, 255, 256, 257, 300})
        for (size_t extra : {size_t{0}, size_t{5}}) text_lens.push_back(16 * k + extra);
    text_lens.push_back(16 * 31 - 1);
    text_lens.push_back(16 * 95 - 3);
    const size_t aad_lens[] = {0, 3, 16, 16 * 31 + 5, 16 * 32, 16 * 33 + 7};
    const size_t iv_lens[] = {12, 16, 1};
    std::vector<Spec> specs;
    for (size_t iv_len : iv_lens)
        for (size_t aad_len : aad_lens)
            for (size_t text_len : text_lens) {
                if (iv_len != 12 && rng.below(3) != 0) continue;  // fewer of the secret-counter kind
                Spec s;
                s.iv = rng.bytes(iv_len);
                s.aad = rng.bytes(aad_len);
                s.text = rng.bytes(text_len);
                reference_seal(ref_key, s);
                specs.push_back(std::move(s));
            }

    for (const hwaccel::Sm4Engine* engine : hwaccel::sm4_engines()) {
        if (!engine->available(hwaccel::cpu_features())) continue;
        for (bool without : {false, true}) {
            hwaccel::Sm4Engine e = *engine;
            if (without) {
                if (e.ctr_with_first == nullptr) continue;
                e.ctr_with_first = nullptr;
                e.ctr_with_first_batch = 0;
            }
            for (const hwaccel::GhashEngine* g : hwaccel::ghash_engines()) {
                if (!g->available(hwaccel::cpu_features())) continue;
                hwaccel::Sm4GcmState st;
                std::memset(&st, 0, sizeof st);
                hwaccel::sm4_gcm_bind(st, &e, g);
                hwaccel::sm4_gcm_set_key(st, user_key);
                size_t index = 0;
                for (const Spec& s : specs) {
                    ++index;
                    const bool decrypt = rng.below(2) != 0;
                    const bool in_place = rng.below(2) != 0;
                    const size_t offset = rng.below(4);
                    INFO("engine " << e.name << (without ? " without ctr_with_first" : "") << ", ghash "
                                   << g->name << ", message " << index << ": iv " << s.iv.size() << " aad "
                                   << s.aad.size() << " text " << s.text.size()
                                   << (decrypt ? " decrypt" : " encrypt") << (in_place ? " in place" : "")
                                   << " offset " << offset);
                    // Now and then the key again (H due at the first call).
                    if (rng.below(7) == 0) hwaccel::sm4_gcm_set_key(st, user_key);
                    // Now and then a message left half-way: its queue must not count.
                    if (rng.below(5) == 0) {
                        hwaccel::sm4_gcm_set_iv(st, s.iv.data(), s.iv.size());
                        const Bytes junk = rng.bytes(rng.below(600));
                        Bytes junk_out(junk.size());
                        if (rng.below(2)) {
                            REQUIRE(hwaccel::sm4_gcm_aad(st, junk.data(), junk.size()));
                        } else {
                            REQUIRE(hwaccel::sm4_gcm_encrypt(st, junk_out.data(), junk.data(), junk.size()));
                        }
                    }
                    hwaccel::sm4_gcm_set_iv(st, s.iv.data(), s.iv.size());
                    size_t done = 0;
                    for (size_t n : pieces(rng, s.aad.size())) {
                        REQUIRE(hwaccel::sm4_gcm_aad(st, s.aad.data() + done, n));
                        done += n;
                    }
                    const Bytes& in = decrypt ? s.ct : s.text;
                    const Bytes& want = decrypt ? s.text : s.ct;
                    Bytes src(in.size() + offset + 1), dst(in.size() + offset + 1);
                    if (!in.empty()) std::memcpy(src.data() + offset, in.data(), in.size());
                    const uint8_t* from = src.data() + offset;
                    uint8_t* to = in_place ? src.data() + offset : dst.data() + offset;
                    done = 0;
                    for (size_t n : pieces(rng, in.size())) {
                        REQUIRE((decrypt ? hwaccel::sm4_gcm_decrypt(st, to + done, from + done, n)
                                         : hwaccel::sm4_gcm_encrypt(st, to + done, from + done, n)));
                        done += n;
                    }
                    uint8_t tag[16];
                    hwaccel::sm4_gcm_tag(st, tag);
                    CHECK(hwaccel::test::to_hex(to, in.size()) == hwaccel::test::to_hex(want));
                    CHECK(hwaccel::test::to_hex(tag, 16) == hwaccel::test::to_hex(s.tag, 16));
                    // The tag wiped the message: no queued block, no mask left.
                    CHECK(st.queued == 0);
                    CHECK_FALSE(st.j0_rides);
                }
            }
        }
    }
}
