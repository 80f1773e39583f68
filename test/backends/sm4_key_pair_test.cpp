// Sm4Engine::set_key_pair (and sm4_set_key_pair, its fallback for engines
// without one): for every SM4 engine the registry can run here, a pair must
// leave exactly what two set_key calls leave: enc, dec and every byte of
// engine_data, over whatever the keys held before. Covered: random distinct
// keys, equal keys in two buffers, and one buffer passed as both user keys
// (the aliasing that Sm4Engine::set_key_pair allows).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"
#include "support/vectors.hpp"

using hwaccel::Sm4Engine;
using hwaccel::Sm4Key;

namespace {

using hwaccel::test::Lcg;
using hwaccel::test::to_hex;

// Schedules (ka, kb) with `pair` and with two set_key calls, from the same
// earlier contents, and compares every byte of both keys.
template <class Pair>
void check_pair(const Sm4Engine* e, Lcg& rng, const uint8_t* ka, const uint8_t* kb, Pair pair) {
    static Sm4Key a, b, single_a, single_b;  // static: 1.2 KiB each, off the stack
    rng.fill(reinterpret_cast<uint8_t*>(&a), sizeof a);
    rng.fill(reinterpret_cast<uint8_t*>(&b), sizeof b);
    std::memcpy(&single_a, &a, sizeof a);
    std::memcpy(&single_b, &b, sizeof b);
    pair(&a, ka, &b, kb);
    e->set_key(&single_a, ka);
    e->set_key(&single_b, kb);
    INFO("ka " << to_hex(ka, 16) << " kb " << to_hex(kb, 16));
    REQUIRE(to_hex(reinterpret_cast<const uint8_t*>(&a), sizeof a) ==
            to_hex(reinterpret_cast<const uint8_t*>(&single_a), sizeof a));
    REQUIRE(to_hex(reinterpret_cast<const uint8_t*>(&b), sizeof b) ==
            to_hex(reinterpret_cast<const uint8_t*>(&single_b), sizeof b));
}

}  // namespace

TEST_CASE("SM4 set_key_pair equals two set_key calls", "[sm4][xts]") {
    for (const Sm4Engine* e : hwaccel::sm4_engines()) {
        if (!e->available(hwaccel::cpu_features())) continue;
        DYNAMIC_SECTION("engine " << e->name) {
            Lcg rng(15);
            auto helper = [e](Sm4Key* a, const uint8_t* ka, Sm4Key* b, const uint8_t* kb) {
                hwaccel::sm4_set_key_pair(*e, a, ka, b, kb);
            };
            for (int i = 0; i < 40; ++i) {
                uint8_t ka[16], kb[16];
                rng.fill(ka, 16);
                rng.fill(kb, 16);
                if (e->set_key_pair != nullptr) {
                    check_pair(e, rng, ka, kb, e->set_key_pair);
                    check_pair(e, rng, ka, ka, e->set_key_pair);  // one buffer as both
                    std::memcpy(kb, ka, 16);
                    check_pair(e, rng, ka, kb, e->set_key_pair);  // equal keys, two buffers
                    rng.fill(kb, 16);
                }
                check_pair(e, rng, ka, kb, helper);
                check_pair(e, rng, kb, kb, helper);
            }
        }
    }
}
