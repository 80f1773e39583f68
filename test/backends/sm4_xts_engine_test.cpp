// The engines' optional fused XTS body (Sm4Engine::xts), for every SM4 engine
// that has one: against XTS written here from the standards over the
// portable engine's ECB, with bytewise tweak multiplication; every block
// count 0..40 and some past the x86 batches, both standards, both
// directions, in place or not, and the returned tweak (the next block's).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>

#include "generic/generic_engines.hpp"  // backend internals (hwaccel_backend_internals)
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"
#include "support/vectors.hpp"

using hwaccel::Sm4Direction;
using hwaccel::Sm4Engine;
using hwaccel::Sm4Key;
using hwaccel::XtsStandard;
using hwaccel::test::Bytes;
using hwaccel::test::Lcg;

namespace {

void times_x(XtsStandard s, uint8_t t[16]) {
    uint8_t carry = 0;
    if (s == XtsStandard::kIeee) {
        for (int i = 0; i < 16; ++i) {
            const uint8_t next = t[i] >> 7;
            t[i] = static_cast<uint8_t>(t[i] << 1 | carry);
            carry = next;
        }
        if (carry) t[0] ^= 0x87;
    } else {
        for (int i = 0; i < 16; ++i) {
            const uint8_t next = t[i] & 1;
            t[i] = static_cast<uint8_t>(t[i] >> 1 | carry << 7);
            carry = next;
        }
        if (carry) t[0] ^= 0xe1;
    }
}

// Whole blocks; tweak advanced past them.
Bytes reference(const Sm4Key& key, Sm4Direction d, XtsStandard s, const Bytes& in, uint8_t tweak[16]) {
    const Sm4Engine& g = hwaccel::generic::sm4;
    Bytes out(in.size());
    for (size_t i = 0; i < in.size(); i += 16) {
        uint8_t x[16];
        for (int j = 0; j < 16; ++j) x[j] = in[i + j] ^ tweak[j];
        g.ecb(&key, d, x, x, 1);
        for (int j = 0; j < 16; ++j) out[i + j] = x[j] ^ tweak[j];
        times_x(s, tweak);
    }
    return out;
}

}  // namespace

TEST_CASE("SM4 engines: the fused XTS body equals XTS over the portable engine", "[sm4][xts]") {
    Lcg rng(17964);
    for (const Sm4Engine* e : hwaccel::sm4_engines()) {
        if (!e->available(hwaccel::cpu_features()) || e->xts == nullptr) continue;
        SECTION(std::string("engine ") + e->name) {
            Sm4Key mine{}, portable{};
            for (size_t blocks = 0; blocks <= 160; blocks += blocks < 40 ? 1 : 29) {
                for (XtsStandard s : {XtsStandard::kGb, XtsStandard::kIeee}) {
                    for (Sm4Direction d : {Sm4Direction::kEncrypt, Sm4Direction::kDecrypt}) {
                        const Bytes k = rng.bytes(16), in = rng.bytes(16 * blocks), t0 = rng.bytes(16);
                        e->set_key(&mine, k.data());
                        hwaccel::generic::sm4.set_key(&portable, k.data());
                        uint8_t want_t[16], got_t[16];
                        std::memcpy(want_t, t0.data(), 16);
                        std::memcpy(got_t, t0.data(), 16);
                        const Bytes want = reference(portable, d, s, in, want_t);
                        const bool in_place = rng.below(2) == 0;
                        Bytes buf = in, out(in.size() + 1, 0x5a);
                        uint8_t* dst = in_place ? buf.data() : out.data();
                        e->xts(&mine, d, s, dst, buf.data(), blocks, got_t);
                        INFO("blocks " << blocks << " standard " << (s == XtsStandard::kGb ? "GB" : "IEEE")
                                       << " decrypt " << (d == Sm4Direction::kDecrypt) << " in place " << in_place);
                        CHECK(Bytes(dst, dst + in.size()) == want);
                        CHECK(std::memcmp(got_t, want_t, 16) == 0);
                        if (!in_place) CHECK(out.back() == 0x5a);  // nothing past the end
                    }
                }
            }
        }
    }
}
