// The x86 SM4 and GHASH engines leave no key material in the vector
// registers when they return (x86-64 only). Every entry point of every such
// engine this CPU runs is called through a trampoline that zeroes all vector
// registers, makes the call and stores them (ymm0-15, or zmm0-31 with
// AVX-512F) right after it returns (support/vector_register_dump.hpp); then
// no 4-byte word of the key's material may appear in those bytes at any
// offset. Key material: the standard round keys (Sm4Key::enc, dec), their
// bulk kernels' forms (M rk ^ c1 for AESENCLAST, A1 rk ^ c1 for GFNI), the
// user key, and the words of engine_data that depend on the key (those that
// differ between two keys; the others are constants); for GHASH, H and the
// words of its table that differ between two H. Each in both byte orders;
// zero words are ignored.
#include <catch2/catch.hpp>

#if defined(__x86_64__)

#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"
#include "support/vector_register_dump.hpp"
#include "support/vectors.hpp"
#include "x86/ghash_x86_engines.hpp"     // backend internals (hwaccel_backend_internals)
#include "x86/sm4_x86_engines.hpp"
#include "x86/sm4_x86_gfni_maths.hpp"
#include "x86/sm4_x86_maths.hpp"

using hwaccel::GhashEngine;
using hwaccel::GhashKey;
using hwaccel::Sm4Direction;
using hwaccel::Sm4Engine;
using hwaccel::Sm4Key;
using hwaccel::XtsStandard;

namespace {

using hwaccel::test::Lcg;  // deterministic, so a failure reproduces
using hwaccel::test::VectorRegisterDump;

// ------------------------------------------------------------ key material

// Named 4-byte words, looked up by their bytes.
class SecretWords {
public:
    // The word as stored (native order) and byte-reversed; zero is no secret.
    void add(uint32_t w, const std::string& name) {
        if (w == 0) return;
        words_.emplace(w, name);
        words_.emplace(__builtin_bswap32(w), name + " (byte-reversed)");
    }
    void add_bytes(const uint8_t* p, size_t n, const std::string& name) {
        for (size_t i = 0; i + 4 <= n; i += 4) add(load(p + i), name + "[" + std::to_string(i / 4) + "]");
    }
    // Words of a that differ from b's at the same offset: what the key decides.
    void add_differing(const uint8_t* a, const uint8_t* b, size_t n, const std::string& name) {
        for (size_t i = 0; i + 4 <= n; i += 4)
            if (load(a + i) != load(b + i)) add(load(a + i), name + " word " + std::to_string(i / 4));
    }

    // "" if no word appears in the dump at any offset, else where each
    // found one was (the first few).
    std::string find_in(const VectorRegisterDump& d) const {
        std::string found;
        int hits = 0;
        for (size_t off = 0; off + 4 <= d.bytes.size(); ++off) {
            const auto it = words_.find(load(d.bytes.data() + off));
            if (it == words_.end()) continue;
            if (++hits <= 4)
                found += it->second + " in " + d.prefix + std::to_string(off / d.width) + " byte " +
                         std::to_string(off % d.width) + "; ";
        }
        if (hits > 4) found += std::to_string(hits) + " hits in all";
        return found;
    }

private:
    static uint32_t load(const uint8_t* p) {
        uint32_t w;
        std::memcpy(&w, p, 4);
        return w;
    }
    std::unordered_multimap<uint32_t, std::string> words_;
};

// The trampoline's instructions need the real CPU's features, whatever
// HWACCEL_TEST_CPU makes cpu_features() claim (the model suites build this
// file too): libgcc's detection, which checks the OS's XSAVE state as well.
bool can_dump() { return __builtin_cpu_supports("avx"); }
bool dump_zmm() { return __builtin_cpu_supports("avx512f"); }

template <class Map>
uint32_t map_bytes(uint32_t w, Map f) {  // bytewise, big-endian (memory order of the kernels)
    uint32_t r = 0;
    for (int j = 0; j < 4; ++j) r = r << 8 | f((w >> (24 - 8 * j)) & 0xFF);
    return __builtin_bswap32(r);
}

// Everything of an SM4 key that must not stay in a register. other: another
// key scheduled by the same engine, to tell key words from constants.
SecretWords sm4_secrets(const Sm4Key& k, const Sm4Key& other, const uint8_t user_key[16]) {
    namespace aes = hwaccel::x86::sm4x;
    namespace gfni = hwaccel::x86::sm4x::gfni;
    SecretWords s;
    s.add_bytes(user_key, 16, "user key");
    for (int i = 0; i < 32; ++i) {
        const std::string n = "[" + std::to_string(i) + "]";
        s.add(k.enc[i], "enc" + n);
        s.add(k.dec[i], "dec" + n);
        s.add(map_bytes(k.enc[i], [](unsigned b) { return aes::kM(b) ^ aes::kC1; }), "M rk ^ c1" + n);
        s.add(map_bytes(k.enc[i], [](unsigned b) { return gfni::affine(gfni::kA1, b) ^ gfni::kC1; }), "A1 rk ^ c1" + n);
    }
    s.add_differing(k.engine_data, other.engine_data, Sm4Key::kEngineDataSize, "engine_data");
    return s;
}

// The check itself: a word left on purpose in a register is found there,
// in register 7, and with AVX-512F in register 23 (beyond VZEROALL).
[[gnu::noinline]] void leave_word_in_register_7(void* word) {
    __asm__ volatile("vbroadcastss (%0), %%ymm7" : : "r"(word) : "xmm7", "memory");
}
[[gnu::noinline]] __attribute__((target("avx512f"))) void leave_word_in_register_23(void* word) {
    __asm__ volatile("vpbroadcastd (%0), %%zmm23" : : "r"(word) : "xmm23", "memory");
}

TEST_CASE("The vector register residue check finds a word left in a register", "[x86][wipe]") {
    if (!can_dump()) return;
    uint32_t word = 0x5ec4e7a1;
    SecretWords s;
    s.add(word, "probe");
    const bool zmm = dump_zmm();
    const std::string reg7 = std::string(zmm ? "zmm" : "ymm") + "7 byte 0;";
    CHECK(s.find_in(hwaccel::test::call_and_dump_vectors(leave_word_in_register_7, &word, zmm)).find(reg7) !=
          std::string::npos);
    uint32_t other = 0x0badcafe;
    CHECK(s.find_in(hwaccel::test::call_and_dump_vectors(leave_word_in_register_7, &other, zmm)) == "");
    if (zmm)
        CHECK(s.find_in(hwaccel::test::call_and_dump_vectors(leave_word_in_register_23, &word, true))
                  .find("zmm23 byte 0;") != std::string::npos);
}

// ------------------------------------------------------------ SM4 calls

enum class Entry {
    kSetKey, kSetKeyPair, kEcb, kEncryptBlock, kCtr, kCbcDecrypt, kCfbDecrypt,
    kCbcEncrypt, kCfbEncrypt, kOfb, kXts, kCcm,
};

// One engine call, all it may need.
struct Sm4Call {
    const Sm4Engine* engine;
    Entry entry;
    Sm4Direction direction;
    XtsStandard standard;
    Sm4Key* key;
    Sm4Key* key2;
    const uint8_t* user_key;
    const uint8_t* user_key2;
    uint8_t* out;
    const uint8_t* in;
    size_t nblocks;
    uint8_t* iv;  // counter, IV or tweak
    uint8_t* mac;
};

// The call, for the trampoline. Nothing after the engine's return may use a
// vector register, and nothing does (objdump -d of this file's object, GCC
// 12 at -O1, -O2 and -O3: no vector instruction in sm4_thunk or
// ghash_thunk): at -O2 and -O3 each case is a tail call (JMP to the
// engine's function), or for the seven-argument xts and ccm a CALL followed
// by POPs, ADD to the stack pointer and RET; at -O1 a CALL, ADD and RET.
[[gnu::noinline]] void sm4_thunk(void* p) {
    const Sm4Call& c = *static_cast<const Sm4Call*>(p);
    const Sm4Engine& e = *c.engine;
    switch (c.entry) {
        case Entry::kSetKey: return e.set_key(c.key, c.user_key);
        case Entry::kSetKeyPair: return e.set_key_pair(c.key, c.user_key, c.key2, c.user_key2);
        case Entry::kEcb: return e.ecb(c.key, c.direction, c.out, c.in, c.nblocks);
        case Entry::kEncryptBlock: return e.encrypt_block(c.key, c.out, c.in);
        case Entry::kCtr: return e.ctr(c.key, c.out, c.in, c.nblocks, c.iv);
        case Entry::kCbcDecrypt: return e.cbc_decrypt(c.key, c.out, c.in, c.nblocks, c.iv);
        case Entry::kCfbDecrypt: return e.cfb_decrypt(c.key, c.out, c.in, c.nblocks, c.iv);
        case Entry::kCbcEncrypt: return e.cbc_encrypt(c.key, c.out, c.in, c.nblocks, c.iv);
        case Entry::kCfbEncrypt: return e.cfb_encrypt(c.key, c.out, c.in, c.nblocks, c.iv);
        case Entry::kOfb: return e.ofb(c.key, c.out, c.in, c.nblocks, c.iv);
        case Entry::kXts: return e.xts(c.key, c.direction, c.standard, c.out, c.in, c.nblocks, c.iv);
        case Entry::kCcm: return e.ccm(c.key, c.direction, c.out, c.in, c.nblocks, c.iv, c.mac);
    }
}

// The x86 engines of the registry's list that this CPU runs.
std::vector<const Sm4Engine*> x86_sm4_engines() {
    namespace x = hwaccel::x86;
    const Sm4Engine* ours[] = {&x::sm4_gfni_avx512, &x::sm4_gfni_avx2, &x::sm4_vaes_avx2, &x::sm4_aesni_avx2};
    std::vector<const Sm4Engine*> list;
    for (const Sm4Engine* e : hwaccel::sm4_engines())
        for (const Sm4Engine* o : ours)
            if (e == o && e->available(hwaccel::cpu_features())) list.push_back(e);
    return list;
}

std::string dir_name(Sm4Direction d) { return d == Sm4Direction::kEncrypt ? "encrypt" : "decrypt"; }

TEST_CASE("x86 SM4 engines leave no key material in vector registers", "[sm4][x86][wipe]") {
    if (!can_dump()) return;  // no x86 SM4 engine runs here either
    const bool zmm = dump_zmm();
    Lcg rng(0x5e11);
    uint8_t user_key[16], user_key2[16];
    rng.fill(user_key, 16);
    rng.fill(user_key2, 16);
    constexpr size_t kMaxBlocks = 100;
    std::vector<uint8_t> in(16 * kMaxBlocks), out(16 * kMaxBlocks);
    rng.fill(in.data(), in.size());

    for (const Sm4Engine* e : x86_sm4_engines()) {
        SECTION(std::string("engine ") + e->name) {
            Sm4Key key{}, key2{};
            e->set_key(&key, user_key);
            e->set_key(&key2, user_key2);
            const SecretWords secrets = sm4_secrets(key, key2, user_key);
            const SecretWords secrets2 = sm4_secrets(key2, key, user_key2);

            // Runs c through the trampoline; the leak found, "" if none.
            auto leak = [&](Sm4Call c, const SecretWords& s) {
                c.engine = e;
                uint8_t iv[16], mac[16];
                rng.fill(iv, 16);
                rng.fill(mac, 16);
                c.iv = iv;
                c.mac = mac;
                c.in = in.data();
                c.out = out.data();
                return s.find_in(hwaccel::test::call_and_dump_vectors(sm4_thunk, &c, zmm));
            };

            {
                Sm4Key k{};
                Sm4Call c{};
                c.entry = Entry::kSetKey;
                c.key = &k;
                c.user_key = user_key;
                INFO("set_key");
                CHECK(leak(c, secrets) == "");
            }
            if (e->set_key_pair != nullptr) {
                Sm4Key a{}, b{};
                Sm4Call c{};
                c.entry = Entry::kSetKeyPair;
                c.key = &a;
                c.key2 = &b;
                c.user_key = user_key;
                c.user_key2 = user_key2;
                const std::string first = leak(c, secrets), second = leak(c, secrets2);
                INFO("set_key_pair");
                CHECK(first == "");
                CHECK(second == "");
            }
            {
                Sm4Call c{};
                c.entry = Entry::kEncryptBlock;
                c.key = &key;
                INFO("encrypt_block");
                CHECK(leak(c, secrets) == "");
            }
            struct Bulk {
                Entry entry;
                const char* name;
                bool present;
            };
            const Bulk bulk[] = {
                {Entry::kCtr, "ctr", e->ctr != nullptr},
                {Entry::kCbcDecrypt, "cbc_decrypt", e->cbc_decrypt != nullptr},
                {Entry::kCfbDecrypt, "cfb_decrypt", e->cfb_decrypt != nullptr},
                {Entry::kCbcEncrypt, "cbc_encrypt", e->cbc_encrypt != nullptr},
                {Entry::kCfbEncrypt, "cfb_encrypt", e->cfb_encrypt != nullptr},
                {Entry::kOfb, "ofb", e->ofb != nullptr},
            };
            for (size_t n : {size_t{1}, size_t{8}, size_t{100}}) {
                for (Sm4Direction d : {Sm4Direction::kEncrypt, Sm4Direction::kDecrypt}) {
                    Sm4Call c{};
                    c.entry = Entry::kEcb;
                    c.direction = d;
                    c.key = &key;
                    c.nblocks = n;
                    INFO("ecb " << dir_name(d) << ", " << n << " blocks");
                    CHECK(leak(c, secrets) == "");
                }
                for (const Bulk& b : bulk) {
                    if (!b.present) continue;
                    Sm4Call c{};
                    c.entry = b.entry;
                    c.key = &key;
                    c.nblocks = n;
                    INFO(b.name << ", " << n << " blocks");
                    CHECK(leak(c, secrets) == "");
                }
                for (Sm4Direction d : {Sm4Direction::kEncrypt, Sm4Direction::kDecrypt}) {
                    if (e->xts != nullptr) {
                        for (XtsStandard st : {XtsStandard::kGb, XtsStandard::kIeee}) {
                            Sm4Call c{};
                            c.entry = Entry::kXts;
                            c.direction = d;
                            c.standard = st;
                            c.key = &key;
                            c.nblocks = n;
                            INFO("xts " << dir_name(d) << (st == XtsStandard::kGb ? " GB" : " IEEE") << ", " << n
                                        << " blocks");
                            CHECK(leak(c, secrets) == "");
                        }
                    }
                    if (e->ccm != nullptr) {
                        Sm4Call c{};
                        c.entry = Entry::kCcm;
                        c.direction = d;
                        c.key = &key;
                        c.nblocks = n;
                        INFO("ccm " << dir_name(d) << ", " << n << " blocks");
                        CHECK(leak(c, secrets) == "");
                    }
                }
            }
        }
    }
}

// ------------------------------------------------------------ GHASH

struct GhashCall {
    const GhashEngine* engine;
    GhashKey* key;
    const uint8_t* h;  // set_key when non-null, else update
    uint8_t* y;
    const uint8_t* data;
    size_t nblocks;
};

// As sm4_thunk (its comment says how it was checked).
[[gnu::noinline]] void ghash_thunk(void* p) {
    const GhashCall& c = *static_cast<const GhashCall*>(p);
    if (c.h != nullptr) return c.engine->set_key(c.key, c.h);
    return c.engine->update(c.key, c.y, c.data, c.nblocks);
}

std::vector<const GhashEngine*> x86_ghash_engines() {
    namespace x = hwaccel::x86;
    const GhashEngine* ours[] = {&x::ghash_vpclmul_avx512, &x::ghash_vpclmul_avx2, &x::ghash_pclmul};
    std::vector<const GhashEngine*> list;
    for (const GhashEngine* e : hwaccel::ghash_engines())
        for (const GhashEngine* o : ours)
            if (e == o && e->available(hwaccel::cpu_features())) list.push_back(e);
    return list;
}

TEST_CASE("x86 GHASH engines leave no key material in vector registers", "[ghash][x86][wipe]") {
    if (!can_dump()) return;
    const bool zmm = dump_zmm();
    Lcg rng(0x9a54);
    uint8_t h[16], h2[16];
    rng.fill(h, 16);
    rng.fill(h2, 16);
    constexpr size_t kMaxBlocks = 100;
    std::vector<uint8_t> data(16 * kMaxBlocks);
    rng.fill(data.data(), data.size());

    for (const GhashEngine* e : x86_ghash_engines()) {
        SECTION(std::string("engine ") + e->name) {
            // The whole table: each key after the longest update.
            GhashKey full{}, full2{};
            uint8_t y[16] = {0};
            e->set_key(&full, h);
            e->update(&full, y, data.data(), kMaxBlocks);
            e->set_key(&full2, h2);
            e->update(&full2, y, data.data(), kMaxBlocks);
            SecretWords secrets;
            secrets.add_bytes(h, 16, "H");
            secrets.add_differing(full.engine_data, full2.engine_data, GhashKey::kEngineDataSize, "engine_data");

            auto leak = [&](GhashCall c) {
                c.engine = e;
                return secrets.find_in(hwaccel::test::call_and_dump_vectors(ghash_thunk, &c, zmm));
            };
            {
                GhashKey k{};
                INFO("set_key");
                CHECK(leak({nullptr, &k, h, nullptr, nullptr, 0}) == "");
            }
            for (size_t n : {size_t{1}, size_t{8}, size_t{100}}) {
                GhashKey fresh{};
                e->set_key(&fresh, h);
                rng.fill(y, 16);
                const std::string after_set_key = leak({nullptr, &fresh, nullptr, y, data.data(), n});
                const std::string table_complete = leak({nullptr, &full, nullptr, y, data.data(), n});
                INFO("update, " << n << " blocks");
                CHECK(after_set_key == "");
                CHECK(table_complete == "");
            }
        }
    }
}

}  // namespace

#endif
