// Every SM4 engine's key schedule against the portable engine's, byte for
// byte, on many keys: the engines with their own schedule (the x86 AES-NI/VAES
// engines run it as an assembly chain in the M domain, with two keys in the
// lanes for set_key_pair) must give exactly the standard round keys, enc and
// dec, for every key, not only for the few that the mode suites draw. One
// block through the engine's one-block path and its ECB with each key also
// checks the layout it derives in engine_data. About 0.3 s in a release build.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>

#include "generic/generic_engines.hpp"  // backend internals (hwaccel_backend_internals)
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"
#include "support/vectors.hpp"

using hwaccel::Sm4Direction;
using hwaccel::Sm4Engine;
using hwaccel::Sm4Key;

namespace {

using hwaccel::test::Lcg;
using hwaccel::test::to_hex;

// k (from engine e) against the portable engine's key for the same user key:
// round keys, then one block each way through e.
void check_key(const Sm4Engine* e, const Sm4Key& k, const uint8_t user_key[16], const uint8_t block[16]) {
    static Sm4Key want;  // static: 1.2 KiB, off the stack
    hwaccel::generic::sm4.set_key(&want, user_key);
    INFO("engine " << e->name << " key " << to_hex(user_key, 16));
    REQUIRE(to_hex(reinterpret_cast<const uint8_t*>(k.enc), sizeof k.enc) ==
            to_hex(reinterpret_cast<const uint8_t*>(want.enc), sizeof want.enc));
    REQUIRE(to_hex(reinterpret_cast<const uint8_t*>(k.dec), sizeof k.dec) ==
            to_hex(reinterpret_cast<const uint8_t*>(want.dec), sizeof want.dec));
    uint8_t c_want[16], c[16], p[16];
    hwaccel::generic::sm4.encrypt_block(&want, c_want, block);
    e->encrypt_block(&k, c, block);
    REQUIRE(to_hex(c, 16) == to_hex(c_want, 16));
    e->ecb(&k, Sm4Direction::kDecrypt, p, c, 1);
    REQUIRE(to_hex(p, 16) == to_hex(block, 16));
}

}  // namespace

TEST_CASE("SM4 set_key and set_key_pair equal the portable schedule on many keys", "[sm4]") {
    static Sm4Key a, b;
    for (const Sm4Engine* e : hwaccel::sm4_engines()) {
        if (!e->available(hwaccel::cpu_features())) continue;
        DYNAMIC_SECTION("engine " << e->name) {
            Lcg rng(32);
            uint8_t ka[16], kb[16], block[16];
            // Edge keys (all zero, all ones, one bit), then random ones.
            for (int i = 0; i < 4000; ++i) {
                if (i == 0) std::memset(ka, 0, 16);
                else if (i == 1) std::memset(ka, 0xFF, 16);
                else if (i < 2 + 128) {
                    std::memset(ka, 0, 16);
                    ka[(i - 2) / 8] = static_cast<uint8_t>(1u << ((i - 2) % 8));
                } else rng.fill(ka, 16);
                rng.fill(kb, 16);
                rng.fill(block, 16);
                e->set_key(&a, ka);
                check_key(e, a, ka, block);
                if (e->set_key_pair != nullptr && i % 4 == 0) {
                    e->set_key_pair(&a, ka, &b, kb);
                    check_key(e, a, ka, block);
                    check_key(e, b, kb, block);
                }
            }
        }
    }
}
