// CCM's body over every SM4 engine (sm4_ccm_blocks: the engine's fused
// Sm4Engine::ccm where it has one, the generic path otherwise): against CTR
// and CBC-MAC written here over the portable engine's one block; block
// counts 0..9 and a few longer (past the generic path's batches where it
// serves), both directions, in place or not, counters about to wrap, and the
// returned counter and MAC.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "generic/generic_engines.hpp"  // backend internals (hwaccel_backend_internals)
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"
#include "hwaccel/sm4_ccm_blocks.hpp"
#include "support/vectors.hpp"

using hwaccel::Sm4Direction;
using hwaccel::Sm4Engine;
using hwaccel::Sm4Key;
using hwaccel::test::Bytes;
using hwaccel::test::Lcg;

namespace {

void increment(uint8_t c[16]) {
    for (int i = 15; i >= 0 && ++c[i] == 0; --i) {
    }
}

// Whole blocks; counter and mac advanced past them.
Bytes reference(const Sm4Key& key, Sm4Direction d, const Bytes& in, uint8_t counter[16], uint8_t mac[16]) {
    const Sm4Engine& g = hwaccel::generic::sm4;
    Bytes out(in.size());
    for (size_t i = 0; i < in.size(); i += 16) {
        uint8_t ks[16], x[16];
        g.encrypt_block(&key, ks, counter);
        increment(counter);
        for (int j = 0; j < 16; ++j) out[i + j] = in[i + j] ^ ks[j];
        const uint8_t* plain = d == Sm4Direction::kEncrypt ? &in[i] : &out[i];
        for (int j = 0; j < 16; ++j) x[j] = mac[j] ^ plain[j];
        g.encrypt_block(&key, mac, x);
    }
    return out;
}

}  // namespace

TEST_CASE("SM4 engines: CCM's body (fused or not) equals CTR and CBC-MAC over the portable engine", "[sm4][ccm]") {
    Lcg rng(38998);
    for (const Sm4Engine* e : hwaccel::sm4_engines()) {
        if (!e->available(hwaccel::cpu_features())) continue;
        SECTION(std::string("engine ") + e->name + (e->ccm ? " (fused)" : " (generic path)")) {
            Sm4Key mine{}, portable{};
            // The fused members work block by block (decryption: a first and a
            // last step around the rest); the generic path in batches of 128.
            // Short for the fused ones: under the GFNI instruction model
            // (test/gfni_model) every GFNI instruction is a trap.
            std::vector<size_t> counts = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 17, 33};
            if (e->ccm == nullptr) counts.insert(counts.end(), {127, 128, 129, 300});
            for (size_t blocks : counts) {
                for (Sm4Direction d : {Sm4Direction::kEncrypt, Sm4Direction::kDecrypt}) {
                    const Bytes k = rng.bytes(16), in = rng.bytes(16 * blocks), m0 = rng.bytes(16);
                    Bytes c0 = rng.bytes(16);
                    if (rng.below(2) == 0) std::memset(c0.data() + 4, 0xff, 12);  // wraps within a few blocks
                    e->set_key(&mine, k.data());
                    hwaccel::generic::sm4.set_key(&portable, k.data());
                    uint8_t want_c[16], got_c[16], want_m[16], got_m[16];
                    std::memcpy(want_c, c0.data(), 16);
                    std::memcpy(got_c, c0.data(), 16);
                    std::memcpy(want_m, m0.data(), 16);
                    std::memcpy(got_m, m0.data(), 16);
                    const Bytes want = reference(portable, d, in, want_c, want_m);
                    const bool in_place = rng.below(2) == 0;
                    Bytes buf = in, out(in.size() + 1, 0x5a);
                    uint8_t* dst = in_place ? buf.data() : out.data();
                    hwaccel::sm4_ccm_blocks(*e, &mine, d, dst, buf.data(), blocks, got_c, got_m);
                    INFO("blocks " << blocks << " decrypt " << (d == Sm4Direction::kDecrypt) << " in place "
                                   << in_place);
                    CHECK(Bytes(dst, dst + in.size()) == want);
                    CHECK(std::memcmp(got_c, want_c, 16) == 0);
                    CHECK(std::memcmp(got_m, want_m, 16) == 0);
                    if (!in_place) CHECK(out.back() == 0x5a);  // nothing past the end
                }
            }
        }
    }
}
