// Backend-level SM4 tests, run for every SM4 engine the registry can run on
// this machine: an engine added to the registry gets all of them by being
// listed and reporting itself available. Each case opens one section per
// engine, named "engine NAME", so a failure names the engine.
//
// References: the GB/T 32907-2016 examples, the draft-ribose-cfrg-sm4-10 and
// OpenSSL evpciph_sm4.txt vector files (test/vectors/sm4/SOURCE.md), and a
// table-based SM4 written here (the standard S-box table may be used in tests,
// never in an engine) that the generic engine is checked against, so the
// engine-versus-generic comparisons rest on an independent implementation.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hwaccel/cpu.hpp"
#include "support/engine_manifest.hpp"
#include "support/sm4_sbox.hpp"
#include "support/vectors.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"
#include "generic/generic_engines.hpp"  // backend internals (hwaccel_backend_internals)
#include "generic/sm4_internal.hpp"

using hwaccel::Sm4Engine;
using hwaccel::Sm4Direction;
using hwaccel::Sm4Key;

namespace {

using hwaccel::test::Bytes;
using hwaccel::test::from_hex;
using hwaccel::test::kSm4Sbox;  // the GB/T 32907-2016 table
using hwaccel::test::Lcg;       // deterministic, so a failure reproduces
using hwaccel::test::to_hex;

// ------------------------------------------------------------------ helpers

// Non-null even for zero blocks.
uint8_t* ptr(Bytes& b) {
    static uint8_t dummy[16];
    return b.empty() ? dummy : b.data();
}

std::vector<const Sm4Engine*> engines() {
    std::vector<const Sm4Engine*> list;
    for (const Sm4Engine* e : hwaccel::sm4_engines())
        if (e->available(hwaccel::cpu_features())) {
            list.push_back(e);
            hwaccel::test::record_engine("sm4", e->name, "backend");  // the engine manifest
        }
    return list;
}

// ------------------------------------------------------ table-based reference

uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
uint32_t get32(const uint8_t* p) {
    return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}
void put32(uint8_t* p, uint32_t v) {
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
}
uint32_t tau(uint32_t a) {
    return uint32_t{kSm4Sbox[a >> 24]} << 24 | uint32_t{kSm4Sbox[(a >> 16) & 255]} << 16 |
           uint32_t{kSm4Sbox[(a >> 8) & 255]} << 8 | kSm4Sbox[a & 255];
}

struct RefKey {
    uint32_t rk[32];
};

RefKey ref_key(const uint8_t key[16]) {
    static const uint32_t fk[4] = {0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc};
    uint32_t k[36];
    for (int i = 0; i < 4; ++i) k[i] = get32(key + 4 * i) ^ fk[i];
    RefKey r;
    for (int i = 0; i < 32; ++i) {
        uint32_t ck = 0;
        for (int j = 0; j < 4; ++j) ck = ck << 8 | (((4 * i + j) * 7) & 255);
        uint32_t t = tau(k[i + 1] ^ k[i + 2] ^ k[i + 3] ^ ck);
        k[i + 4] = k[i] ^ t ^ rotl(t, 13) ^ rotl(t, 23);
        r.rk[i] = k[i + 4];
    }
    return r;
}

void ref_crypt(const uint32_t rk[32], uint8_t out[16], const uint8_t in[16]) {
    uint32_t x[36];
    for (int i = 0; i < 4; ++i) x[i] = get32(in + 4 * i);
    for (int i = 0; i < 32; ++i) {
        uint32_t t = tau(x[i + 1] ^ x[i + 2] ^ x[i + 3] ^ rk[i]);
        x[i + 4] = x[i] ^ t ^ rotl(t, 2) ^ rotl(t, 10) ^ rotl(t, 18) ^ rotl(t, 24);
    }
    for (int i = 0; i < 4; ++i) put32(out + 4 * i, x[35 - i]);
}

// ------------------------------------------------------ modes, two ways

// A block function: the table reference, or one engine's one-block path
// (encrypt_block, or a one-block ecb to decrypt).
struct BlockFn {
    const Sm4Engine* engine;  // null: table reference
    uint32_t rk[32];          // the reference's round keys
    Sm4Key key;               // the engine's key
    Sm4Direction direction;
    void operator()(uint8_t out[16], const uint8_t in[16]) const {
        if (!engine) ref_crypt(rk, out, in);
        else if (direction == Sm4Direction::kDecrypt) engine->ecb(&key, direction, out, in, 1);
        else engine->encrypt_block(&key, out, in);
    }
};
BlockFn engine_fn(const Sm4Engine* e, const Sm4Key& k, Sm4Direction direction = Sm4Direction::kEncrypt) {
    BlockFn f{e, {}, k, direction};
    return f;
}

BlockFn ref_enc(const uint8_t key[16]) {
    BlockFn f{nullptr, {}, {}, Sm4Direction::kEncrypt};
    RefKey k = ref_key(key);
    std::memcpy(f.rk, k.rk, sizeof f.rk);
    return f;
}

void inc128(uint8_t c[16]) {
    for (int i = 15; i >= 0; --i)
        if (++c[i] != 0) break;
}

// Modes built one block at a time from a block function.
Bytes mode_ecb(const BlockFn& f, const Bytes& in) {
    Bytes out(in.size());
    for (size_t i = 0; i < in.size(); i += 16) f(&out[i], &in[i]);
    return out;
}
Bytes mode_cbc_enc(const BlockFn& f, Bytes iv, const Bytes& in) {
    Bytes out(in.size());
    for (size_t i = 0; i < in.size(); i += 16) {
        uint8_t t[16];
        for (int j = 0; j < 16; ++j) t[j] = in[i + j] ^ iv[j];
        f(&out[i], t);
        std::memcpy(iv.data(), &out[i], 16);
    }
    return out;
}
Bytes mode_cbc_dec(const BlockFn& fdec, Bytes iv, const Bytes& in) {
    Bytes out(in.size());
    for (size_t i = 0; i < in.size(); i += 16) {
        uint8_t t[16];
        fdec(t, &in[i]);
        for (int j = 0; j < 16; ++j) out[i + j] = t[j] ^ iv[j];
        std::memcpy(iv.data(), &in[i], 16);
    }
    return out;
}
// CFB128; f is the encryption in both directions.
Bytes mode_cfb(const BlockFn& f, Bytes iv, const Bytes& in, Sm4Direction direction) {
    const bool decrypt = direction == Sm4Direction::kDecrypt;
    Bytes out(in.size());
    for (size_t i = 0; i < in.size(); i += 16) {
        uint8_t ks[16];
        f(ks, iv.data());
        for (int j = 0; j < 16; ++j) out[i + j] = in[i + j] ^ ks[j];
        std::memcpy(iv.data(), decrypt ? &in[i] : &out[i], 16);
    }
    return out;
}
Bytes mode_ofb(const BlockFn& f, Bytes iv, const Bytes& in) {
    Bytes out(in.size());
    for (size_t i = 0; i < in.size(); i += 16) {
        f(iv.data(), iv.data());
        for (int j = 0; j < 16; ++j) out[i + j] = in[i + j] ^ iv[j];
    }
    return out;
}
// Returns the output; ctr is advanced past the last block.
Bytes mode_ctr(const BlockFn& f, uint8_t ctr[16], const Bytes& in) {
    Bytes out(in.size());
    for (size_t i = 0; i < in.size(); i += 16) {
        uint8_t ks[16];
        f(ks, ctr);
        for (int j = 0; j < 16; ++j) out[i + j] = in[i + j] ^ ks[j];
        inc128(ctr);
    }
    return out;
}

// The engine's own entry points, out of place.
Bytes eng_ecb(const Sm4Engine* e, const Sm4Key& k, Sm4Direction direction, const Bytes& in) {
    Bytes out(in.size()), src = in;
    e->ecb(&k, direction, ptr(out), ptr(src), in.size() / 16);
    return out;
}
Bytes eng_ctr(const Sm4Engine* e, const Sm4Key& k, uint8_t ctr[16], const Bytes& in) {
    Bytes out(in.size()), src = in;
    e->ctr(&k, ptr(out), ptr(src), in.size() / 16, ctr);
    return out;
}
Bytes eng_cbc_dec(const Sm4Engine* e, const Sm4Key& k, uint8_t iv[16], const Bytes& in) {
    Bytes out(in.size()), src = in;
    e->cbc_decrypt(&k, ptr(out), ptr(src), in.size() / 16, iv);
    return out;
}
Bytes eng_cfb_dec(const Sm4Engine* e, const Sm4Key& k, uint8_t iv[16], const Bytes& in) {
    Bytes out(in.size()), src = in;
    e->cfb_decrypt(&k, ptr(out), ptr(src), in.size() / 16, iv);
    return out;
}

// The optional fused serial modes, with what the reference says they must
// produce: the output and the chaining value left in iv.
using SerialFn = void (*)(const Sm4Key*, uint8_t*, const uint8_t*, size_t, uint8_t*);
struct SerialMode {
    const char* name;
    SerialFn Sm4Engine::*fn;
};
const SerialMode kSerialModes[] = {
    {"cbc_encrypt", &Sm4Engine::cbc_encrypt},
    {"cfb_encrypt", &Sm4Engine::cfb_encrypt},
    {"ofb", &Sm4Engine::ofb},
};
struct SerialWant {
    Bytes out, last;
};
SerialWant serial_want(const SerialMode& m, const BlockFn& enc, const Bytes& iv, const Bytes& in) {
    const std::string name = m.name;
    SerialWant w;
    if (name == "cbc_encrypt") w.out = mode_cbc_enc(enc, iv, in);
    else if (name == "cfb_encrypt") w.out = mode_cfb(enc, iv, in, Sm4Direction::kEncrypt);
    else w.out = mode_ofb(enc, iv, in);
    if (in.empty()) {
        w.last = iv;
    } else if (name == "ofb") {  // the last keystream block
        w.last = Bytes(16);
        for (int j = 0; j < 16; ++j) w.last[j] = w.out[in.size() - 16 + j] ^ in[in.size() - 16 + j];
    } else {
        w.last = Bytes(w.out.end() - 16, w.out.end());
    }
    return w;
}
// Runs every fused serial mode engine e has, out of place, on pt, and checks
// it against the mode built from the reference block function.
void check_serial_modes(const Sm4Engine* e, const Sm4Key& k, const BlockFn& enc, const Bytes& iv, const Bytes& pt) {
    for (const SerialMode& m : kSerialModes) {
        if (!(e->*m.fn)) continue;
        INFO(m.name);
        const SerialWant want = serial_want(m, enc, iv, pt);
        Bytes v = iv, out(pt.size()), src = pt;
        (e->*m.fn)(&k, ptr(out), ptr(src), pt.size() / 16, v.data());
        CHECK(to_hex(out) == to_hex(want.out));
        CHECK(to_hex(v) == to_hex(want.last));
    }
}

Sm4Key make_key(const Sm4Engine* e, const Bytes& key) {
    Sm4Key k;
    std::memset(&k, 0, sizeof k);
    e->set_key(&k, key.data());
    return k;
}

// ------------------------------------------------------------ vector files

// Checks one known answer with a mode name ("ECB", "CBC", "CFB", "CTR",
// "OFB") against engine e, both directions and both the fused and block paths.
void check_record(const Sm4Engine* e, const std::string& mode, const hwaccel::test::CipherVector& r) {
    INFO(r.where << " mode " << mode);
    const Bytes &key = r.key, &iv = r.iv;
    const Bytes &pt = r.plaintext, &ct = r.ciphertext;
    REQUIRE(key.size() == 16);
    REQUIRE(pt.size() == ct.size());
    REQUIRE(pt.size() % 16 == 0);
    const Sm4Key k = make_key(e, key);
    const BlockFn enc = engine_fn(e, k);
    const BlockFn dec = engine_fn(e, k, Sm4Direction::kDecrypt);
    if (mode == "ECB") {
        CHECK(to_hex(eng_ecb(e, k, Sm4Direction::kEncrypt, pt)) == to_hex(ct));
        CHECK(to_hex(eng_ecb(e, k, Sm4Direction::kDecrypt, ct)) == to_hex(pt));
        CHECK(to_hex(mode_ecb(enc, pt)) == to_hex(ct));
        return;
    }
    REQUIRE(iv.size() == 16);
    const Bytes last = Bytes(ct.end() - 16, ct.end());
    if (mode == "CBC" && e->cbc_encrypt) {
        Bytes v = iv, out(pt.size());
        e->cbc_encrypt(&k, ptr(out), pt.data(), pt.size() / 16, v.data());
        CHECK(to_hex(out) == to_hex(ct));
        CHECK(to_hex(v) == to_hex(last));
    }
    if (mode == "CFB" && e->cfb_encrypt) {
        Bytes v = iv, out(pt.size());
        e->cfb_encrypt(&k, ptr(out), pt.data(), pt.size() / 16, v.data());
        CHECK(to_hex(out) == to_hex(ct));
        CHECK(to_hex(v) == to_hex(last));
    }
    if (mode == "OFB" && e->ofb) {
        Bytes v = iv, out(pt.size());
        e->ofb(&k, ptr(out), pt.data(), pt.size() / 16, v.data());
        CHECK(to_hex(out) == to_hex(ct));
    }
    if (mode == "CBC") {
        CHECK(to_hex(mode_cbc_enc(enc, iv, pt)) == to_hex(ct));
        CHECK(to_hex(mode_cbc_dec(dec, iv, ct)) == to_hex(pt));
        if (e->cbc_decrypt) {
            Bytes v = iv;
            CHECK(to_hex(eng_cbc_dec(e, k, v.data(), ct)) == to_hex(pt));
            CHECK(to_hex(v) == to_hex(last));
        }
    } else if (mode == "CFB") {
        CHECK(to_hex(mode_cfb(enc, iv, pt, Sm4Direction::kEncrypt)) == to_hex(ct));
        CHECK(to_hex(mode_cfb(enc, iv, ct, Sm4Direction::kDecrypt)) == to_hex(pt));
        if (e->cfb_decrypt) {
            Bytes v = iv;
            CHECK(to_hex(eng_cfb_dec(e, k, v.data(), ct)) == to_hex(pt));
            CHECK(to_hex(v) == to_hex(last));
        }
    } else if (mode == "OFB") {
        CHECK(to_hex(mode_ofb(enc, iv, pt)) == to_hex(ct));
    } else if (mode == "CTR") {
        Bytes c1 = iv, c2 = iv;
        CHECK(to_hex(mode_ctr(enc, c1.data(), pt)) == to_hex(ct));
        if (e->ctr) {
            CHECK(to_hex(eng_ctr(e, k, c2.data(), pt)) == to_hex(ct));
            CHECK(to_hex(c2) == to_hex(c1));
            Bytes c3 = iv;
            CHECK(to_hex(eng_ctr(e, k, c3.data(), ct)) == to_hex(pt));
        }
    } else {
        FAIL("unknown mode " << mode);
    }
}

const char* const kGbKey = "0123456789abcdeffedcba9876543210";

}  // namespace

// ---------------------------------------------------------------- the tests

TEST_CASE("SM4 S-box circuit equals the GB/T 32907 table for every input", "[sm4]") {
    using hwaccel::generic::sm4_detail::sbox_word;
    for (uint32_t x = 0; x < 256; ++x) {
        INFO("x = " << x);
        const uint32_t s = kSm4Sbox[x];
        REQUIRE(sbox_word(x * 0x01010101u) == s * 0x01010101u);
        // Distinct bytes per lane: the lanes must not interfere.
        const uint32_t y = x ^ 0x5A, z = (x + 77) & 255, w = (255 - x);
        const uint32_t in = x << 24 | y << 16 | z << 8 | w;
        const uint32_t want = s << 24 | uint32_t{kSm4Sbox[y]} << 16 | uint32_t{kSm4Sbox[z]} << 8 | kSm4Sbox[w];
        REQUIRE(sbox_word(in) == want);
    }
}

TEST_CASE("SM4 generic engine matches a table-based reference", "[sm4]") {
    const Sm4Engine& g = hwaccel::generic::sm4;
    Lcg rng(1);
    for (int iter = 0; iter < 40; ++iter) {
        const Bytes key = rng.bytes(16);
        const Sm4Key k = make_key(&g, key);
        const RefKey rk = ref_key(key.data());
        for (int i = 0; i < 32; ++i) {
            REQUIRE(k.enc[i] == rk.rk[i]);
            REQUIRE(k.dec[i] == rk.rk[31 - i]);
        }
        const Bytes pt = rng.bytes(16);
        uint8_t a[16], b[16];
        g.encrypt_block(&k, a, pt.data());
        ref_crypt(rk.rk, b, pt.data());
        REQUIRE(to_hex(a, 16) == to_hex(b, 16));
    }
    // Each multi-block kernel directly (ecb picks one by block count):
    // partial batches of every kind, full ones, across batches.
    const Bytes key = rng.bytes(16);
    const Sm4Key k = make_key(&g, key);
    const BlockFn enc = ref_enc(key.data());
    using Kernel = void (*)(const uint32_t*, uint8_t*, const uint8_t*, size_t);
    const std::pair<const char*, Kernel> kernels[] = {
        {"bitsliced", hwaccel::generic::sm4_detail::bitsliced_blocks},
        {"byteslice", hwaccel::generic::sm4_detail::byteslice_blocks},
    };
    for (const auto& kernel : kernels) {
        for (size_t n : {0, 1, 2, 3, 5, 7, 8, 9, 16, 17, 31, 63, 64, 65, 100, 127, 128, 129, 257}) {
            INFO(kernel.first << " kernel, blocks " << n);
            const Bytes pt = rng.bytes(16 * n);
            Bytes out(pt.size());
            kernel.second(k.enc, ptr(out), pt.data(), n);
            REQUIRE(to_hex(out) == to_hex(mode_ecb(enc, pt)));
            kernel.second(k.dec, ptr(out), ptr(out), n);
            REQUIRE(to_hex(out) == to_hex(pt));
        }
    }
}

TEST_CASE("SM4 GB/T 32907-2016 examples", "[sm4]") {
    for (const Sm4Engine* e : engines()) {
        DYNAMIC_SECTION("engine " << e->name) {
            REQUIRE(e->set_key);
            REQUIRE(e->ecb);
            REQUIRE(e->encrypt_block);
            const Bytes key = from_hex(kGbKey);
            const Sm4Key k = make_key(e, key);
            // The standard lists the round keys of example 1.
            CHECK(k.enc[0] == 0xF12186F9u);
            CHECK(k.enc[31] == 0x9124A012u);
            CHECK(k.dec[0] == 0x9124A012u);
            uint8_t block[16];
            e->encrypt_block(&k, block, key.data());
            CHECK(to_hex(block, 16) == "681edf34d206965e86b3e94f536e4246");
            e->ecb(&k, Sm4Direction::kDecrypt, block, block, 1);
            CHECK(to_hex(block, 16) == kGbKey);
        }
    }
}

// Example 2: the plaintext of example 1 encrypted 1,000,000 times, one block
// at a time (the serial path). About 0.7 s per engine optimised, about 10 s
// of CPU in an -O0 ASan build; exclude with "~[slow]" when iterating.
TEST_CASE("SM4 GB/T 32907-2016 example 2 (1,000,000 encryptions)", "[sm4][slow]") {
    for (const Sm4Engine* e : engines()) {
        DYNAMIC_SECTION("engine " << e->name) {
            const Bytes key = from_hex(kGbKey);
            const Sm4Key k = make_key(e, key);
            uint8_t block[16];
            std::memcpy(block, key.data(), 16);
            for (int i = 0; i < 1000000; ++i) e->encrypt_block(&k, block, block);
            CHECK(to_hex(block, 16) == "595298c7c6fd271f0402f804c33d3f66");
        }
    }
}

TEST_CASE("SM4 draft-ribose-cfrg-sm4-10 vectors", "[sm4]") {
    const std::vector<std::pair<std::string, std::string>> files = {
        {"ECB", "draft-ribose-cfrg-sm4-10-ecb.txt"},
        {"CBC", "draft-ribose-cfrg-sm4-10-cbc.txt"},
        {"CFB", "draft-ribose-cfrg-sm4-10-cfb.txt"},
        {"CTR", "draft-ribose-cfrg-sm4-10-ctr.txt"},
    };
    for (const Sm4Engine* e : engines()) {
        DYNAMIC_SECTION("engine " << e->name) {
            for (const auto& f : files) {
                size_t used = 0;
                for (const auto& r : hwaccel::test::load_rsp_cipher_vectors(
                         hwaccel::test::vector_path("sm4/" + f.second))) {
                    REQUIRE(r.other.empty());
                    check_record(e, f.first, r);
                    ++used;
                }
                CHECK(used >= 2);
            }
        }
    }
}

TEST_CASE("SM4 OpenSSL evpciph_sm4.txt vectors", "[sm4]") {
    for (const Sm4Engine* e : engines()) {
        DYNAMIC_SECTION("engine " << e->name) {
            size_t used = 0;
            for (const auto& r : hwaccel::test::load_evp_cipher_tests(
                     hwaccel::test::vector_path("sm4/evpciph_sm4.txt"))) {
                INFO(r.where);
                REQUIRE(r.cipher.rfind("SM4-", 0) == 0);
                REQUIRE(r.other.empty());
                check_record(e, r.cipher.substr(4), r);
                ++used;
            }
            CHECK(used == 5);
        }
    }
}

TEST_CASE("SM4 engines agree with the generic engine and the reference", "[sm4]") {
    const Sm4Engine& g = hwaccel::generic::sm4;
    for (const Sm4Engine* e : engines()) {
        DYNAMIC_SECTION("engine " << e->name) {
            Lcg rng(2);
            // Every short count (the one-block and 8-block kernels), the
            // edges of the 128-block batches and of the switch at 64 blocks,
            // of the x86 batches (32, 48 and 96 blocks, zmm pairs of groups
            // at 16, gfni-avx512's assembly batches of 7-12 groups from 49
            // on), batches followed by short tails, then random counts.
            std::vector<size_t> counts;
            for (size_t n = 0; n <= 20; ++n) counts.push_back(n);
            for (size_t n : {23, 24, 25, 31, 32, 33, 47, 48, 49, 55, 56, 57, 63, 64, 65, 72, 73, 88, 89, 95, 96, 97, 127, 128, 129, 140, 190,
                             191, 192, 193, 255, 256, 257, 300})
                counts.push_back(n);
            for (int i = 0; i < 12; ++i) counts.push_back(rng.below(301));
            for (size_t n : counts) {
                INFO("blocks " << n);
                const Bytes key = rng.bytes(16), pt = rng.bytes(16 * n), iv = rng.bytes(16);
                const Sm4Key k = make_key(e, key), kg = make_key(&g, key);
                // The standard round keys; any other material an engine keeps
                // in its key is its own business.
                REQUIRE(std::memcmp(k.enc, kg.enc, sizeof k.enc) == 0);
                REQUIRE(std::memcmp(k.dec, kg.dec, sizeof k.dec) == 0);
                const BlockFn enc = ref_enc(key.data());

                const Bytes want_ecb = mode_ecb(enc, pt);
                CHECK(to_hex(eng_ecb(e, k, Sm4Direction::kEncrypt, pt)) == to_hex(want_ecb));
                CHECK(to_hex(eng_ecb(&g, kg, Sm4Direction::kEncrypt, pt)) == to_hex(want_ecb));
                CHECK(to_hex(eng_ecb(e, k, Sm4Direction::kDecrypt, want_ecb)) == to_hex(pt));

                const BlockFn eb = engine_fn(e, k);
                CHECK(to_hex(mode_ecb(eb, pt)) == to_hex(want_ecb));

                if (e->ctr) {
                    uint8_t c1[16], c2[16];
                    std::memcpy(c1, iv.data(), 16);
                    std::memcpy(c2, iv.data(), 16);
                    CHECK(to_hex(eng_ctr(e, k, c1, pt)) == to_hex(mode_ctr(enc, c2, pt)));
                    CHECK(to_hex(c1, 16) == to_hex(c2, 16));
                }
                if (e->cbc_decrypt) {
                    Bytes v = iv;
                    const Bytes ct = mode_cbc_enc(enc, iv, pt);
                    CHECK(to_hex(eng_cbc_dec(e, k, v.data(), ct)) == to_hex(pt));
                    CHECK(to_hex(v) == (n ? to_hex(ct.data() + ct.size() - 16, 16) : to_hex(iv)));
                }
                if (e->cfb_decrypt) {
                    Bytes v = iv;
                    const Bytes ct = mode_cfb(enc, iv, pt, Sm4Direction::kEncrypt);
                    CHECK(to_hex(eng_cfb_dec(e, k, v.data(), ct)) == to_hex(pt));
                    CHECK(to_hex(v) == (n ? to_hex(ct.data() + ct.size() - 16, 16) : to_hex(iv)));
                }
                check_serial_modes(e, k, enc, iv, pt);
            }
        }
    }
}

TEST_CASE("SM4 in place and misaligned buffers", "[sm4]") {
    for (const Sm4Engine* e : engines()) {
        DYNAMIC_SECTION("engine " << e->name) {
            Lcg rng(3);
            const size_t counts[] = {1, 3, 6, 140};
            for (size_t off = 0; off < 16; ++off) {
                for (size_t n : counts) {
                    INFO("offset " << off << " blocks " << n);
                    const size_t len = 16 * n;
                    const Bytes key = rng.bytes(16), pt = rng.bytes(len), iv = rng.bytes(16);
                    const Sm4Key k = make_key(e, key);
                    const BlockFn enc = ref_enc(key.data());
                    // Buffers at odd addresses: offset off from a fresh
                    // allocation, output at a different misalignment.
                    Bytes a(len + 32), b(len + 32), ivbuf(16 + 32);
                    uint8_t* in = a.data() + off;
                    uint8_t* out = b.data() + (off * 7 + 3) % 16;
                    uint8_t* v = ivbuf.data() + (off + 5) % 16;
                    auto reset = [&](const Bytes& src) {
                        std::memcpy(in, src.data(), len);
                        std::memcpy(v, iv.data(), 16);
                    };

                    const Bytes want_ecb = mode_ecb(enc, pt);
                    reset(pt);
                    e->ecb(&k, Sm4Direction::kEncrypt, out, in, n);
                    CHECK(to_hex(out, len) == to_hex(want_ecb));
                    e->ecb(&k, Sm4Direction::kEncrypt, in, in, n);
                    CHECK(to_hex(in, len) == to_hex(want_ecb));
                    e->ecb(&k, Sm4Direction::kDecrypt, in, in, n);
                    CHECK(to_hex(in, len) == to_hex(pt));

                    uint8_t blk[16 + 16];
                    std::memcpy(blk + off % 16 + 0, pt.data(), 16);
                    e->encrypt_block(&k, blk + off % 16, blk + off % 16);
                    CHECK(to_hex(blk + off % 16, 16) == to_hex(want_ecb.data(), 16));

                    if (e->ctr) {
                        uint8_t c[16];
                        std::memcpy(c, iv.data(), 16);
                        const Bytes want = mode_ctr(enc, c, pt);
                        reset(pt);
                        e->ctr(&k, out, in, n, v);
                        CHECK(to_hex(out, len) == to_hex(want));
                        CHECK(to_hex(v, 16) == to_hex(c, 16));
                        reset(pt);
                        e->ctr(&k, in, in, n, v);
                        CHECK(to_hex(in, len) == to_hex(want));
                    }
                    if (e->cbc_decrypt) {
                        const Bytes ct = mode_cbc_enc(enc, iv, pt);
                        reset(ct);
                        e->cbc_decrypt(&k, out, in, n, v);
                        CHECK(to_hex(out, len) == to_hex(pt));
                        CHECK(to_hex(v, 16) == to_hex(ct.data() + len - 16, 16));
                        reset(ct);
                        e->cbc_decrypt(&k, in, in, n, v);
                        CHECK(to_hex(in, len) == to_hex(pt));
                        CHECK(to_hex(v, 16) == to_hex(ct.data() + len - 16, 16));
                    }
                    if (e->cfb_decrypt) {
                        const Bytes ct = mode_cfb(enc, iv, pt, Sm4Direction::kEncrypt);
                        reset(ct);
                        e->cfb_decrypt(&k, out, in, n, v);
                        CHECK(to_hex(out, len) == to_hex(pt));
                        CHECK(to_hex(v, 16) == to_hex(ct.data() + len - 16, 16));
                        reset(ct);
                        e->cfb_decrypt(&k, in, in, n, v);
                        CHECK(to_hex(in, len) == to_hex(pt));
                        CHECK(to_hex(v, 16) == to_hex(ct.data() + len - 16, 16));
                    }
                    for (const SerialMode& m : kSerialModes) {
                        if (!(e->*m.fn)) continue;
                        INFO(m.name);
                        const SerialWant want = serial_want(m, enc, iv, pt);
                        reset(pt);
                        (e->*m.fn)(&k, out, in, n, v);
                        CHECK(to_hex(out, len) == to_hex(want.out));
                        CHECK(to_hex(v, 16) == to_hex(want.last));
                        reset(pt);
                        (e->*m.fn)(&k, in, in, n, v);
                        CHECK(to_hex(in, len) == to_hex(want.out));
                        CHECK(to_hex(v, 16) == to_hex(want.last));
                    }
                }
            }
        }
    }
}

TEST_CASE("SM4 CTR counter carries across 2^32, 2^64 and 2^128", "[sm4]") {
    // Counters a few blocks below each carry boundary of the 128-bit
    // big-endian counter: the low 32 bits, the low 64 bits, all 128 bits.
    const char* const bases[] = {
        "0123456789abcdef01234567ffffffff",
        "0123456789abcdefffffffffffffffff",
        "ffffffffffffffffffffffffffffffff",
        "00000000ffffffffffffffffffffffff",
    };
    const size_t counts[] = {1, 2, 3, 5, 8, 129};
    for (const Sm4Engine* e : engines()) {
        if (!e->ctr) continue;
        DYNAMIC_SECTION("engine " << e->name) {
            Lcg rng(4);
            const Bytes key = rng.bytes(16);
            const Sm4Key k = make_key(e, key);
            const BlockFn eb = engine_fn(e, k);
            for (const char* base : bases) {
                for (unsigned back = 0; back < 5; ++back) {
                    for (size_t n : counts) {
                        Bytes start = from_hex(base);
                        start[15] = static_cast<uint8_t>(start[15] - back);  // no borrow: low byte is ff
                        INFO("counter " << to_hex(start) << " blocks " << n);
                        const Bytes pt = rng.bytes(16 * n);
                        uint8_t c1[16], c2[16];
                        std::memcpy(c1, start.data(), 16);
                        std::memcpy(c2, start.data(), 16);
                        const Bytes want = mode_ctr(eb, c2, pt);
                        CHECK(to_hex(eng_ctr(e, k, c1, pt)) == to_hex(want));
                        CHECK(to_hex(c1, 16) == to_hex(c2, 16));
                        // Split at every point: the counter carries across calls.
                        for (size_t split = 1; split < n && split < 4; ++split) {
                            std::memcpy(c1, start.data(), 16);
                            const Bytes p1(pt.begin(), pt.begin() + 16 * split);
                            const Bytes p2(pt.begin() + 16 * split, pt.end());
                            Bytes got = eng_ctr(e, k, c1, p1);
                            const Bytes rest = eng_ctr(e, k, c1, p2);
                            got.insert(got.end(), rest.begin(), rest.end());
                            CHECK(to_hex(got) == to_hex(want));
                            CHECK(to_hex(c1, 16) == to_hex(c2, 16));
                        }
                    }
                }
            }
            // The wrap itself: all-ones plus one is zero.
            uint8_t c[16];
            std::memset(c, 0xff, 16);
            Bytes z(32, 0);
            eng_ctr(e, k, c, z);
            CHECK(to_hex(c, 16) == "00000000000000000000000000000001");
        }
    }
}

TEST_CASE("SM4 ctr_with_first equals encrypt_block of the counter, then ctr", "[sm4]") {
    // Every length up to past two batches of the largest x86 kernel (96
    // blocks): the spare lane in every position of a group, a group of its
    // own, a length with no spare lane; in place; counters at the carries.
    const char* const bases[] = {"0123456789abcdef0123456700000001", "0123456789abcdef01234567fffffffc",
                                 "fffffffffffffffffffffffffffffffd"};
    for (const Sm4Engine* e : engines()) {
        if (!e->ctr_with_first) continue;
        DYNAMIC_SECTION("engine " << e->name) {
            CHECK(e->ctr_with_first_batch != 0);
            Lcg rng(15);
            const Bytes key = rng.bytes(16);
            const Sm4Key k = make_key(e, key);
            const BlockFn eb = ref_enc(key.data());
            for (const char* base : bases) {
                for (size_t n = 0; n <= 200; ++n) {
                    INFO("counter " << base << " blocks " << n);
                    const Bytes pt = rng.bytes(16 * n);
                    uint8_t c1[16], c2[16], first[16], want_first[16];
                    const Bytes start = from_hex(base);
                    std::memcpy(c1, start.data(), 16);
                    std::memcpy(c2, start.data(), 16);
                    eb(want_first, c2);
                    inc128(c2);
                    const Bytes want = mode_ctr(eb, c2, pt);
                    Bytes got(pt.size() + 1);  // +1: a pointer even for 0 blocks
                    e->ctr_with_first(&k, first, got.data(), pt.data(), n, c1);
                    got.resize(pt.size());
                    CHECK(to_hex(got) == to_hex(want));
                    CHECK(to_hex(first, 16) == to_hex(want_first, 16));
                    CHECK(to_hex(c1, 16) == to_hex(c2, 16));
                    Bytes in_place = pt;
                    in_place.push_back(0);
                    std::memcpy(c1, start.data(), 16);
                    e->ctr_with_first(&k, first, in_place.data(), in_place.data(), n, c1);
                    in_place.pop_back();
                    CHECK(to_hex(in_place) == to_hex(want));
                }
            }
        }
    }
}
