// SM4-CCM's mode code (provider/cipher/sm4_ccm_mode.cpp, OpenSSL-free,
// compiled in) over every SM4 engine, through an engine that counts what it
// is asked: the engine calls a message costs (the serial MAC chain is the
// cost of short messages, so E(B_0) and the keystream share one call), and
// that the keystream taken ahead stays in the message only until the
// payload has used it. Results are checked by the EVP suites
// (test/provider/sm4_ccm_test.cpp); here a round trip and a refused forgery.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>

#include "cipher/sm4_ccm_mode.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"
#include "support/vectors.hpp"

using hwaccel::Sm4CcmMessage;
using hwaccel::Sm4Direction;
using hwaccel::Sm4Engine;
using hwaccel::Sm4Key;
using hwaccel::Sm4State;
using hwaccel::test::Bytes;
using hwaccel::test::Lcg;

namespace {

// What the mode asked of the engine. A parallel call (ecb, ctr) costs about
// one block's latency whatever its length here (up to 8 blocks); a serial
// block (encrypt_block, each cbc_encrypt or fused ccm block) costs one.
struct Calls {
    size_t ecb = 0, ecb_blocks = 0, ctr = 0, serial_blocks = 0;
    size_t latency() const { return ecb + ctr + serial_blocks; }
};

const Sm4Engine* inner = nullptr;
Calls calls;

void count_ecb(const Sm4Key* k, Sm4Direction d, uint8_t* out, const uint8_t* in, size_t n) {
    ++calls.ecb;
    calls.ecb_blocks += n;
    inner->ecb(k, d, out, in, n);
}
void count_block(const Sm4Key* k, uint8_t out[16], const uint8_t in[16]) {
    ++calls.serial_blocks;
    inner->encrypt_block(k, out, in);
}
void count_ctr(const Sm4Key* k, uint8_t* out, const uint8_t* in, size_t n, uint8_t c[16]) {
    ++calls.ctr;
    inner->ctr(k, out, in, n, c);
}
void count_cbc(const Sm4Key* k, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    calls.serial_blocks += n;
    inner->cbc_encrypt(k, out, in, n, iv);
}
void count_ccm(const Sm4Key* k, Sm4Direction d, uint8_t* out, const uint8_t* in, size_t n, uint8_t c[16],
               uint8_t mac[16]) {
    calls.serial_blocks += n;
    inner->ccm(k, d, out, in, n, c, mac);
}

// e with every member it has counted.
Sm4Engine counting(const Sm4Engine& e) {
    inner = &e;
    Sm4Engine c = e;
    c.ecb = count_ecb;
    c.encrypt_block = count_block;
    c.ctr = e.ctr ? count_ctr : nullptr;
    c.cbc_encrypt = e.cbc_encrypt ? count_cbc : nullptr;
    c.ccm = e.ccm ? count_ccm : nullptr;
    return c;
}

bool all_zero(const uint8_t* p, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; ++i) acc |= p[i];
    return acc == 0;
}

size_t blocks(size_t len) { return (len + 15) / 16; }

// Never NULL, as the provider's buffers (an empty vector may have none).
uint8_t* data(Bytes& b) {
    static uint8_t dummy[1];
    return b.empty() ? dummy : b.data();
}
const uint8_t* data(const Bytes& b) { return data(const_cast<Bytes&>(b)); }

// The AAD's blocks with its 2-byte length in front (aad_len < 0xff00).
size_t aad_blocks(size_t aad_len) { return aad_len == 0 ? 0 : blocks(2 + aad_len); }

struct Sealed {
    Bytes ct;
    uint8_t tag[16];
};

Sealed seal(Sm4State& s, const uint8_t nonce[13], const Bytes& aad, const Bytes& msg, Sm4CcmMessage& m) {
    REQUIRE(hwaccel::ccm_start(m, nonce, 2, msg.size(), 16));
    if (!aad.empty()) hwaccel::ccm_aad(s, m, aad.data(), aad.size());
    Sealed r;
    r.ct.resize(msg.size());
    REQUIRE(hwaccel::ccm_encrypt(s, m, data(r.ct), data(msg), msg.size(), r.tag));
    return r;
}

}  // namespace

TEST_CASE("SM4-CCM mode: a payload of up to 96 bytes costs one parallel call beside its MAC chain", "[sm4][ccm]") {
    Lcg rng(8998);
    for (const Sm4Engine* e : hwaccel::sm4_engines()) {
        if (!e->available(hwaccel::cpu_features())) continue;
        SECTION(std::string("engine ") + e->name) {
            const Sm4Engine engine = counting(*e);
            Sm4State s{};
            s.engine = &engine;
            const Bytes key = rng.bytes(16);
            engine.set_key(&s.key, key.data());
            uint8_t nonce[13];
            rng.fill(nonce, sizeof nonce);
            for (size_t len : {0, 1, 16, 17, 64, 95, 96})
                for (size_t aad_len : {0, 13, 40}) {
                    INFO("payload " << len << " AAD " << aad_len);
                    const Bytes msg = rng.bytes(len), aad = rng.bytes(aad_len);
                    Sm4CcmMessage m;
                    calls = {};
                    const Sealed sealed = seal(s, nonce, aad, msg, m);
                    // E(B_0) then the AAD's and the payload's blocks, each one
                    // serial block; E(A_0) and the keystream in E(B_0)'s call.
                    CHECK(calls.ecb == 1);
                    CHECK(calls.ecb_blocks == 2 + blocks(len));
                    CHECK(calls.ctr == 0);
                    CHECK(calls.serial_blocks == aad_blocks(aad_len) + blocks(len));
                    CHECK(calls.latency() == 1 + aad_blocks(aad_len) + blocks(len));
                    // 16 bytes with TLS's 13 of AAD: three, where the MAC alone
                    // and the CTR after it took four.
                    if (len == 16 && aad_len == 13) CHECK(calls.latency() == 3);

                    calls = {};
                    REQUIRE(hwaccel::ccm_start(m, nonce, 2, len, 16));
                    if (!aad.empty()) hwaccel::ccm_aad(s, m, aad.data(), aad.size());
                    Bytes plain(len + 1, 0xee);
                    CHECK(hwaccel::ccm_decrypt(s, m, plain.data(), data(sealed.ct), len, sealed.tag));
                    CHECK(Bytes(plain.begin(), plain.begin() + len) == msg);
                    CHECK(calls.latency() == 1 + aad_blocks(aad_len) + blocks(len));
                }
        }
    }
}

TEST_CASE("SM4-CCM mode: long messages take E(A_0) with E(B_0)", "[sm4][ccm]") {
    Lcg rng(3610);
    for (const Sm4Engine* e : hwaccel::sm4_engines()) {
        if (!e->available(hwaccel::cpu_features())) continue;
        SECTION(std::string("engine ") + e->name) {
            const Sm4Engine engine = counting(*e);
            Sm4State s{};
            s.engine = &engine;
            const Bytes key = rng.bytes(16);
            engine.set_key(&s.key, key.data());
            uint8_t nonce[13];
            rng.fill(nonce, sizeof nonce);
            for (size_t aad_len : {0, 13}) {
                const Bytes msg = rng.bytes(3000), aad = rng.bytes(aad_len);
                Sm4CcmMessage m;
                calls = {};
                seal(s, nonce, aad, msg, m);
                CHECK(calls.ecb == 1);
                CHECK(calls.ecb_blocks == 2);
            }
        }
    }
}

TEST_CASE("SM4-CCM mode: the keystream taken ahead lives until the payload, then is wiped; a forgery releases nothing",
          "[sm4][ccm]") {
    Lcg rng(38);
    for (const Sm4Engine* e : hwaccel::sm4_engines()) {
        if (!e->available(hwaccel::cpu_features())) continue;
        SECTION(std::string("engine ") + e->name) {
            Sm4State s{};
            s.engine = e;
            const Bytes key = rng.bytes(16);
            e->set_key(&s.key, key.data());
            uint8_t nonce[13];
            rng.fill(nonce, sizeof nonce);
            // The three paths: keystream ahead, one buffer, chunks.
            for (size_t len : {0, 16, 50, 96, 97, 200, 2032, 2033, 3000})
                for (bool decrypt : {false, true}) {
                    INFO("payload " << len << (decrypt ? " decrypt" : " encrypt"));
                    const Bytes msg = rng.bytes(len), aad = rng.bytes(13);
                    Sm4CcmMessage m;
                    Sealed sealed = seal(s, nonce, aad, msg, m);
                    REQUIRE(hwaccel::ccm_start(m, nonce, 2, len, 16));
                    hwaccel::ccm_aad(s, m, aad.data(), aad.size());
                    // Between the AAD and the payload (two EVP updates) the
                    // message holds E(A_0).. for the payload, or nothing yet.
                    const size_t ahead = len <= 96 ? 1 + blocks(len) : len > 2032 ? 1 : 0;
                    CHECK(m.ahead_blocks == ahead);
                    CHECK(all_zero(m.ahead + 16 * ahead, sizeof m.ahead - 16 * ahead));
                    if (ahead != 0) CHECK_FALSE(all_zero(m.ahead, 16 * ahead));
                    Bytes out(len + 1, 0xee);
                    if (decrypt) {
                        sealed.tag[rng.below(16)] ^= static_cast<uint8_t>(1u << rng.below(8));
                        CHECK_FALSE(hwaccel::ccm_decrypt(s, m, out.data(), data(sealed.ct), len, sealed.tag));
                        CHECK(out == Bytes(len + 1, 0xee));
                    } else {
                        uint8_t tag[16];
                        CHECK(hwaccel::ccm_encrypt(s, m, out.data(), data(msg), len, tag));
                        CHECK(Bytes(out.begin(), out.begin() + len) == sealed.ct);
                    }
                    // The tag is out: no keystream, no MAC left in the message.
                    CHECK(m.ahead_blocks == 0);
                    CHECK(all_zero(m.ahead, sizeof m.ahead));
                    CHECK(all_zero(m.mac, sizeof m.mac));
                    CHECK(all_zero(s.iv, sizeof s.iv));
                    CHECK(all_zero(s.keystream, sizeof s.keystream));
                }
        }
    }
}

TEST_CASE("SM4-CCM mode: a payload of another length than declared is refused, nothing written", "[sm4][ccm]") {
    Lcg rng(1);
    for (const Sm4Engine* engine : hwaccel::sm4_engines()) {
        if (!engine->available(hwaccel::cpu_features())) continue;
        const Sm4Engine& e = *engine;
        Sm4State s{};
        s.engine = &e;
        const Bytes key = rng.bytes(16);
        e.set_key(&s.key, key.data());
        uint8_t nonce[13], tag[16] = {};
        rng.fill(nonce, sizeof nonce);
        const Bytes aad = rng.bytes(13), msg = rng.bytes(3000);
        // Declared and given lengths on either side of the paths' edges: the
        // keystream taken ahead (or its absence) is the declared length's.
        const size_t lengths[][2] = {{200, 16}, {3000, 16}, {16, 32}, {16, 0}, {200, 3000}, {96, 97}};
        for (const auto& [declared, given] : lengths)
            for (bool decrypt : {false, true}) {
                INFO("engine " << e.name << " declared " << declared << " given " << given
                               << (decrypt ? " decrypt" : " encrypt"));
                Sm4CcmMessage m;
                REQUIRE(hwaccel::ccm_start(m, nonce, 2, declared, 16));
                hwaccel::ccm_aad(s, m, aad.data(), aad.size());
                Bytes out(given + 1, 0xee);
                const bool ok = decrypt ? hwaccel::ccm_decrypt(s, m, out.data(), msg.data(), given, tag)
                                        : hwaccel::ccm_encrypt(s, m, out.data(), msg.data(), given, tag);
                CHECK_FALSE(ok);
                CHECK(out == Bytes(given + 1, 0xee));
                CHECK(all_zero(m.ahead, sizeof m.ahead));
                CHECK(all_zero(m.mac, sizeof m.mac));
            }
    }
}
