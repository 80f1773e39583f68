// The provider leaves no SM4 key material in the vector registers when its
// key-handling entry points return (x86-64). The engines clear what they
// used (test/backends/vector_register_residue_test.cpp); this covers the
// layer above them, whose context copies go through glibc's memcpy (EVEX
// versions on AVX-512 CPUs: ymm16-31) or compiler-vectorised moves.
//
// Each call goes through the trampoline of support/vector_register_dump.hpp
// (all vector registers zeroed, the call, the registers stored right after
// it), then no 4-byte word of the key's material may appear in the dump:
// the user key, the round keys (enc, dec), the words of engine_data that
// the key decides, and for SM4-GCM H and the GHASH table words. Every SM4
// cipher hwaccel serves, every SM4 engine this CPU runs, at two levels:
//   provider  its dispatch functions called directly (fake_core.hpp): only
//             the provider's code runs, so what is found is the provider's;
//   EVP       what an application calls (EVP_EncryptInit_ex2,
//             EVP_CIPHER_CTX_copy, ...), libcrypto between it and the
//             provider. OpenSSL 3.0's EVP layer copies no key (it passes
//             the pointer to the provider's init and calls dupctx for a
//             copy), so a word found only here would be libcrypto's.
// HMAC itself is not checked: OpenSSL 3.0's HMAC (the default provider's,
// over our digest) copies the raw key with glibc's memcpy, and
// EVP_MAC_CTX_dup leaves it in zmm16 whichever provider serves SHA-256
// (EVP_MAC_init over the default provider's SHA-256 leaves it in zmm17):
// libcrypto's residue, which the provider cannot clear. Its digest copies,
// which HMAC makes, are checked below.
// provider_tests runs it over hwaccel.so; provider_residue_memcpy_tests over
// a module whose copies all call memcpy (what clang and the sanitizer builds
// compile), where GCC -O3's REP MOVSQ does not hide the cipher copies.
#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <catch2/catch.hpp>

#if defined(__x86_64__)

#include <cstring>
#include <string>
#include <vector>

#include "fake_core.hpp"
#include "hwaccel/algorithm_facts.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"
#include "provider_fixture.hpp"
#include "support/secret_words.hpp"
#include "support/vector_register_dump.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;
using hwaccel::GhashEngine;
using hwaccel::GhashKey;
using hwaccel::Sm4Engine;
using hwaccel::Sm4Key;

namespace {

// The trampoline needs the real CPU's AVX (AVX-512F for zmm0-31).
bool can_dump() { return __builtin_cpu_supports("avx"); }
bool dump_zmm() { return __builtin_cpu_supports("avx512f"); }

// ------------------------------------------------------------ the calls

enum class Call {
    // EVP
    kEvpEncryptInit, kEvpDecryptInit, kEvpCopy, kEvpDecryptFinal, kEvpFree,
    // the provider's dispatch functions
    kEncryptInit, kDecryptInit, kDupctx, kFinal, kFreectx,
    // digests: EVP_MD_CTX_copy_ex, the provider's dupctx, copyctx, serialize, deserialize
    kEvpMdCopy, kMdDupctx, kMdCopyctx, kMdSerialize, kMdDeserialize,
    // the check's own probe
    kPlant7, kPlant23,
};

struct CallArgs {
    Call call;
    EVP_CIPHER_CTX* ctx;
    EVP_CIPHER_CTX* copy_to;
    const EVP_CIPHER* cipher;
    const CipherFns* fns;
    EVP_MD_CTX* md_ctx;
    EVP_MD_CTX* md_copy_to;
    const DigestFns* dfns;
    void* vctx_to;
    void* vctx;
    const unsigned char* key;  // NULL: no key in this init
    size_t keylen;
    const unsigned char* iv;   // NULL: no IV
    size_t ivlen;
    unsigned char* out;
    int outl;
    size_t outl_size;
    int result;
    void* dup;
};

// Leaves the word at p in ymm7, and with AVX-512F in zmm23 (beyond
// VZEROALL): the probe.
[[gnu::noinline]] void plant_word_in_register_7(const void* p) {
    __asm__ volatile("vbroadcastss (%0), %%ymm7" : : "r"(p) : "xmm7", "memory");
}
[[gnu::noinline]] __attribute__((target("avx512f"))) void plant_word_in_register_23(const void* p) {
    __asm__ volatile("vpbroadcastd (%0), %%zmm23" : : "r"(p) : "xmm23", "memory");
}

// One call, for the trampoline: after it only stores of its result from
// general registers (objdump -d of this object, GCC 12 -O3: no vector
// instruction in call_thunk; each case a CALL, then a MOV of eax/rax into
// the struct, or nothing).
[[gnu::noinline]] void call_thunk(void* p) {
    CallArgs& c = *static_cast<CallArgs*>(p);
    switch (c.call) {
        case Call::kEvpEncryptInit: c.result = EVP_EncryptInit_ex2(c.ctx, c.cipher, c.key, c.iv, nullptr); return;
        case Call::kEvpDecryptInit: c.result = EVP_DecryptInit_ex2(c.ctx, c.cipher, c.key, c.iv, nullptr); return;
        case Call::kEvpCopy: c.result = EVP_CIPHER_CTX_copy(c.copy_to, c.ctx); return;
        case Call::kEvpDecryptFinal: c.result = EVP_DecryptFinal_ex(c.ctx, c.out, &c.outl); return;
        case Call::kEvpFree: EVP_CIPHER_CTX_free(c.ctx); return;
        case Call::kEncryptInit: c.result = c.fns->einit(c.vctx, c.key, c.keylen, c.iv, c.ivlen, nullptr); return;
        case Call::kDecryptInit: c.result = c.fns->dinit(c.vctx, c.key, c.keylen, c.iv, c.ivlen, nullptr); return;
        case Call::kDupctx: c.dup = c.fns->dupctx(c.vctx); return;
        case Call::kFinal: c.result = c.fns->final(c.vctx, c.out, &c.outl_size, 16); return;
        case Call::kFreectx: c.fns->freectx(c.vctx); return;
        case Call::kEvpMdCopy: c.result = EVP_MD_CTX_copy_ex(c.md_copy_to, c.md_ctx); return;
        case Call::kMdDupctx: c.dup = c.dfns->dupctx(c.vctx); return;
        case Call::kMdCopyctx: c.dfns->copyctx(c.vctx_to, c.vctx); return;
        case Call::kMdSerialize: c.result = c.dfns->serialize(c.vctx, c.out, &c.outl_size); return;
        case Call::kMdDeserialize: c.result = c.dfns->deserialize(c.vctx, c.out, c.outl_size); return;
        case Call::kPlant7: plant_word_in_register_7(c.key); return;
        case Call::kPlant23: plant_word_in_register_23(c.key); return;
    }
}

// ------------------------------------------------------------ key material

template <class Engine>
const Engine* engine_named(hwaccel::EngineList<Engine> list, const std::string& name) {
    for (const Engine* e : list)
        if (name == e->name) return e;
    return nullptr;
}

// "ghash=NAME" out of the provider's engines parameter.
std::string family_engine(const std::string& engines, const std::string& family) {
    const size_t at = engines.find(family + "=");
    if (at == std::string::npos) return "";
    const size_t from = at + family.size() + 1;
    return engines.substr(from, engines.find(',', from) - from);
}

// An SM4 key's schedule as the engine makes it; other: another key's, to
// tell key words in engine_data from constants.
void add_schedule(SecretWords& s, const Sm4Engine& e, const uint8_t user_key[16], const std::string& name) {
    Sm4Key k{}, other{};
    uint8_t other_key[16];
    for (int i = 0; i < 16; ++i) other_key[i] = static_cast<uint8_t>(user_key[i] ^ 0x5c ^ i);
    e.set_key(&k, user_key);
    e.set_key(&other, other_key);
    s.add_bytes(user_key, 16, name + " user key");
    for (int i = 0; i < 32; ++i) {
        s.add(k.enc[i], name + " enc[" + std::to_string(i) + "]");
        s.add(k.dec[i], name + " dec[" + std::to_string(i) + "]");
    }
    s.add_differing(k.engine_data, other.engine_data, Sm4Key::kEngineDataSize, name + " engine_data");
}

// GCM's H = E_K(0) and the GHASH engine's table of it (after a message of
// 100 blocks, as long as the ones the checks run).
void add_hash_key(SecretWords& s, const Sm4Engine& sm4, const GhashEngine& ghash, const uint8_t user_key[16]) {
    Sm4Key k{};
    sm4.set_key(&k, user_key);
    uint8_t h[16] = {}, h2[16] = {0x42};
    sm4.encrypt_block(&k, h, h);
    GhashKey table{}, table2{};
    std::vector<uint8_t> data(16 * 100, 0x33);
    uint8_t y[16] = {};
    ghash.set_key(&table, h);
    ghash.update(&table, y, data.data(), 100);
    ghash.set_key(&table2, h2);
    ghash.update(&table2, y, data.data(), 100);
    s.add_bytes(h, 16, "H");
    s.add_differing(table.engine_data, table2.engine_data, GhashKey::kEngineDataSize, "GHASH table");
}

struct CipherCase {
    const char* name;
    bool block_mode;  // ECB, CBC: decryption's final unpads a held-back block
    bool gcm;
};
const CipherCase kCiphers[] = {
    {"SM4-ECB", true, false}, {"SM4-CBC", true, false}, {"SM4-CFB", false, false},
    {"SM4-OFB", false, false}, {"SM4-CTR", false, false}, {"SM4-CCM", false, false},
    {"SM4-GCM", false, true}, {"SM4-XTS", false, false},
};

std::vector<const Sm4Engine*> sm4_engines_here() {
    std::vector<const Sm4Engine*> list;
    for (const Sm4Engine* e : hwaccel::sm4_engines())
        if (e->available(hwaccel::cpu_features())) list.push_back(e);
    return list;
}

// A message for update between init and copy: 100 blocks, so GCM's table
// is complete, and a whole number of blocks for XTS and the block modes.
const std::vector<uint8_t>& message() {
    static const std::vector<uint8_t> m(1600, 0xa5);
    return m;
}

// The AEAD modes take AAD, the others need nothing before text; CCM needs
// its text length first.
void start_text(EVP_CIPHER_CTX* ctx, const CipherCase& cc, size_t len) {
    if (std::string(cc.name) == "SM4-CCM") {
        int outl = 0;
        REQUIRE(EVP_CipherUpdate(ctx, nullptr, &outl, nullptr, static_cast<int>(len)) == 1);
    }
}

TEST_CASE("The provider-level residue check finds a word left in a register", "[provider][x86][wipe]") {
    if (!can_dump()) return;
    const uint8_t key[16] = {0x5e, 0xc4, 0xe7, 0xa1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    SecretWords s;
    add_schedule(s, *sm4_engines_here().front(), key, "key");
    const bool zmm = dump_zmm();
    CallArgs c{};
    c.call = Call::kPlant7;
    c.key = key;
    const std::string found7 = s.find_in(call_and_dump_vectors(call_thunk, &c, zmm));
    INFO(found7);
    CHECK(found7.find(std::string(zmm ? "zmm" : "ymm") + "7 byte 0;") != std::string::npos);
    if (zmm) {
        c.call = Call::kPlant23;
        CHECK(s.find_in(call_and_dump_vectors(call_thunk, &c, true)).find("zmm23 byte 0;") != std::string::npos);
    }
    const uint8_t other[16] = {0x0b, 0xad, 0xca, 0xfe};
    c.call = Call::kPlant7;
    c.key = other;
    CHECK(s.find_in(call_and_dump_vectors(call_thunk, &c, zmm)) == "");
}

TEST_CASE("SM4 key handling leaves no key material in vector registers", "[provider][sm4][x86][wipe]") {
    if (!can_dump()) return;
    const bool zmm = dump_zmm();
    Lcg rng(0x9e51);
    for (const Sm4Engine* engine : sm4_engines_here()) {
        const std::string selection = std::string("sm4=") + engine->name;
        for (const CipherCase& cc : kCiphers) {
            SECTION(std::string(cc.name) + ", " + selection) {
                LoadedProvider lp(selection);
                CipherPtr cipher = lp.cipher(cc.name);
                const size_t keylen = static_cast<size_t>(EVP_CIPHER_get_key_length(cipher.get()));
                const size_t ivlen = static_cast<size_t>(EVP_CIPHER_get_iv_length(cipher.get()));
                std::vector<uint8_t> key(keylen), iv(ivlen == 0 ? 1 : ivlen);
                rng.fill(key.data(), key.size());
                rng.fill(iv.data(), iv.size());
                const unsigned char* iv_or_null = ivlen == 0 ? nullptr : iv.data();

                SecretWords secrets;
                for (size_t half = 0; half < keylen / 16; ++half)
                    add_schedule(secrets, *engine, key.data() + 16 * half, "half " + std::to_string(half));
                if (cc.gcm) {
                    const GhashEngine* ghash =
                        engine_named(hwaccel::ghash_engines(), family_engine(lp.engines(), "ghash"));
                    REQUIRE(ghash != nullptr);
                    add_hash_key(secrets, *engine, *ghash, key.data());
                }
                auto leak = [&](CallArgs& c) {
                    return secrets.find_in(call_and_dump_vectors(call_thunk, &c, zmm));
                };
                // A context keyed and run through a message (GCM's table
                // complete), by EVP or by the provider directly.
                auto keyed_evp = [&](bool encrypt) {
                    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                    REQUIRE(EVP_CipherInit_ex2(ctx.get(), cipher.get(), key.data(), iv_or_null, encrypt, nullptr) == 1);
                    std::vector<uint8_t> out(message().size() + 16);
                    int outl = 0;
                    start_text(ctx.get(), cc, message().size());
                    REQUIRE(EVP_CipherUpdate(ctx.get(), out.data(), &outl, message().data(),
                                             static_cast<int>(message().size())) == 1);
                    return ctx;
                };

                // ---- EVP: what the application sees
                for (bool encrypt : {true, false}) {
                    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                    CallArgs c{};
                    c.call = encrypt ? Call::kEvpEncryptInit : Call::kEvpDecryptInit;
                    c.ctx = ctx.get();
                    c.cipher = cipher.get();
                    c.key = key.data();
                    c.iv = iv_or_null;
                    const std::string found = leak(c);
                    INFO(take_errors());
                    REQUIRE(c.result == 1);
                    INFO("EVP " << (encrypt ? "encrypt" : "decrypt") << " init with key and IV");
                    CHECK(found == "");
                }
                {
                    CipherCtxPtr ctx = keyed_evp(true), copy(EVP_CIPHER_CTX_new());
                    CallArgs c{};
                    c.call = Call::kEvpCopy;
                    c.ctx = ctx.get();
                    c.copy_to = copy.get();
                    const std::string found = leak(c);
                    REQUIRE(c.result == 1);
                    INFO("EVP_CIPHER_CTX_copy of a keyed context after a message");
                    CHECK(found == "");
                }
                if (cc.gcm) {
                    // The key first, the IV in a second init (as TLS and
                    // many applications do): both steps.
                    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                    CallArgs c{};
                    c.call = Call::kEvpEncryptInit;
                    c.ctx = ctx.get();
                    c.cipher = cipher.get();
                    c.key = key.data();
                    const std::string key_only = leak(c);
                    REQUIRE(c.result == 1);
                    c.cipher = nullptr;
                    c.key = nullptr;
                    c.iv = iv.data();
                    const std::string iv_only = leak(c);
                    REQUIRE(c.result == 1);
                    INFO("EVP GCM init with the key alone, then with the IV alone");
                    CHECK(key_only == "");
                    CHECK(iv_only == "");
                }
                if (cc.block_mode) {
                    // Decryption's final: the held-back block is unpadded
                    // (a copy of the mode state once held the key schedule).
                    std::vector<uint8_t> ct(32);
                    int n1 = 0, n2 = 0;
                    {
                        CipherCtxPtr e(EVP_CIPHER_CTX_new());
                        REQUIRE(EVP_EncryptInit_ex2(e.get(), cipher.get(), key.data(), iv_or_null, nullptr) == 1);
                        REQUIRE(EVP_EncryptUpdate(e.get(), ct.data(), &n1, message().data(), 20) == 1);
                        REQUIRE(EVP_EncryptFinal_ex(e.get(), ct.data() + n1, &n2) == 1);
                        REQUIRE(n1 + n2 == 32);
                    }
                    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
                    REQUIRE(EVP_DecryptInit_ex2(ctx.get(), cipher.get(), key.data(), iv_or_null, nullptr) == 1);
                    std::vector<uint8_t> pt(48);
                    REQUIRE(EVP_DecryptUpdate(ctx.get(), pt.data(), &n1, ct.data(), 32) == 1);
                    CallArgs c{};
                    c.call = Call::kEvpDecryptFinal;
                    c.ctx = ctx.get();
                    c.out = pt.data() + n1;
                    const std::string found = leak(c);
                    REQUIRE(c.result == 1);
                    INFO("EVP decrypt final (unpadding)");
                    CHECK(found == "");
                }
                {
                    CallArgs c{};
                    c.call = Call::kEvpFree;
                    c.ctx = keyed_evp(true).release();
                    INFO("EVP_CIPHER_CTX_free of a keyed context");
                    CHECK(leak(c) == "");
                }

                // ---- the provider alone
                g_core = FakeCore{};
                g_core.engines = selection;
                Module m;
                REQUIRE(m.init_result == 1);
                const CipherFns fns(m.cipher(cc.name));
                auto fresh = [&] {
                    void* vctx = fns.newctx(m.provctx);
                    REQUIRE(vctx != nullptr);
                    return vctx;
                };
                auto init_args = [&](bool encrypt, void* vctx) {
                    CallArgs c{};
                    c.call = encrypt ? Call::kEncryptInit : Call::kDecryptInit;
                    c.fns = &fns;
                    c.vctx = vctx;
                    c.key = key.data();
                    c.keylen = keylen;
                    c.iv = iv_or_null;
                    // The context's IV length (SM4-CCM's nonce: 7, where
                    // EVP_CIPHER_get_iv_length says 12).
                    size_t ctx_ivlen = 0;
                    OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, &ctx_ivlen), OSSL_PARAM_END};
                    REQUIRE(fns.get_ctx_params(vctx, p) == 1);
                    c.ivlen = ctx_ivlen;
                    return c;
                };
                for (bool encrypt : {true, false}) {
                    void* vctx = fresh();
                    CallArgs c = init_args(encrypt, vctx);
                    const std::string found = leak(c);
                    INFO((g_core.errors.empty() ? "" : g_core.errors.back()));
                    REQUIRE(c.result == 1);
                    fns.freectx(vctx);
                    INFO("provider " << (encrypt ? "encrypt" : "decrypt") << "_init with key and IV");
                    CHECK(found == "");
                }
                {
                    void* vctx = fresh();
                    CallArgs c = init_args(true, vctx);
                    call_thunk(&c);
                    REQUIRE(c.result == 1);
                    if (std::string(cc.name) == "SM4-CCM") {
                        size_t outl = 0;
                        REQUIRE(fns.update(vctx, nullptr, &outl, 0, nullptr, message().size()) == 1);
                    }
                    std::vector<uint8_t> out(message().size() + 16);
                    size_t outl = 0;
                    REQUIRE(fns.update(vctx, out.data(), &outl, out.size(), message().data(), message().size()) == 1);
                    c = CallArgs{};
                    c.call = Call::kDupctx;
                    c.fns = &fns;
                    c.vctx = vctx;
                    const std::string dup = leak(c);
                    REQUIRE(c.dup != nullptr);
                    c.call = Call::kFreectx;
                    c.vctx = c.dup;
                    const std::string free_copy = leak(c);
                    c.vctx = vctx;
                    const std::string free_original = leak(c);
                    INFO("provider dupctx, then freectx of the copy and of the original");
                    CHECK(dup == "");
                    CHECK(free_copy == "");
                    CHECK(free_original == "");
                }
                if (cc.gcm) {
                    void* vctx = fresh();
                    CallArgs c = init_args(true, vctx);
                    c.iv = nullptr;
                    c.ivlen = 0;
                    const std::string key_only = leak(c);
                    REQUIRE(c.result == 1);
                    c = init_args(true, vctx);
                    c.key = nullptr;
                    c.keylen = 0;
                    const std::string iv_only = leak(c);
                    REQUIRE(c.result == 1);
                    fns.freectx(vctx);
                    INFO("provider GCM encrypt_init with the key alone, then the IV alone");
                    CHECK(key_only == "");
                    CHECK(iv_only == "");
                }
                if (cc.block_mode) {
                    void* vctx = fresh();
                    CallArgs c = init_args(true, vctx);
                    call_thunk(&c);
                    REQUIRE(c.result == 1);
                    std::vector<uint8_t> ct(32), pt(48);
                    size_t n1 = 0, n2 = 0;
                    REQUIRE(fns.update(vctx, ct.data(), &n1, ct.size(), message().data(), 20) == 1);
                    REQUIRE(fns.final(vctx, ct.data() + n1, &n2, ct.size() - n1) == 1);
                    c = init_args(false, vctx);
                    call_thunk(&c);
                    REQUIRE(c.result == 1);
                    REQUIRE(fns.update(vctx, pt.data(), &n1, pt.size(), ct.data(), 32) == 1);
                    c = CallArgs{};
                    c.call = Call::kFinal;
                    c.fns = &fns;
                    c.vctx = vctx;
                    c.out = pt.data() + n1;
                    const std::string found = leak(c);
                    INFO((g_core.errors.empty() ? "" : g_core.errors.back()));
                    REQUIRE(c.result == 1);
                    fns.freectx(vctx);
                    INFO("provider decrypt final (unpadding)");
                    CHECK(found == "");
                }
            }
        }
    }
}


// ------------------------------------------------------------ digests

// Under HMAC a digest context holds key-derived state: the chaining value
// after the key block (key ^ ipad), copied by HMAC's init and final
// (EVP_MD_CTX_copy_ex: the provider's dupctx, or copyctx on 3.5+).
// Secrets: that chaining value (Keccak: the lanes' 32-bit halves) and the
// bytes absorbed, a block and a partial one (short, or nearly a block).
struct DigestCase {
    const char* name;
    const char* family;
    size_t block;  // bytes per compression (Keccak: the rate)
};
const DigestCase kDigests[] = {
    {"SHA1", "sha1", 64}, {"SHA2-224", "sha256", 64}, {"SHA2-256", "sha256", 64}, {"SHA3-256", "sha3", 136},
};

SecretWords digest_secrets(const DigestCase& dc, const std::string& engine, const std::vector<uint8_t>& msg) {
    SecretWords s;
    s.add_bytes(msg.data(), msg.size(), "message");
    const std::string family = dc.family;
    if (family == "sha1") {
        uint32_t st[5];
        std::memcpy(st, hwaccel::kSha1Init, sizeof st);
        engine_named(hwaccel::sha1_engines(), engine)->blocks(st, msg.data(), 1);
        for (int i = 0; i < 5; ++i) s.add(st[i], "state[" + std::to_string(i) + "]");
    } else if (family == "sha256") {
        uint32_t st[8];
        std::memcpy(st, std::string(dc.name) == "SHA2-224" ? hwaccel::kSha224Init : hwaccel::kSha256Init, sizeof st);
        engine_named(hwaccel::sha256_engines(), engine)->blocks(st, msg.data(), 1);
        for (int i = 0; i < 8; ++i) s.add(st[i], "state[" + std::to_string(i) + "]");
    } else {
        uint64_t lanes[25] = {};
        engine_named(hwaccel::keccak_engines(), engine)->absorb(lanes, msg.data(), 1, dc.block);
        for (int i = 0; i < 25; ++i) {
            s.add(static_cast<uint32_t>(lanes[i]), "lane " + std::to_string(i) + " low");
            s.add(static_cast<uint32_t>(lanes[i] >> 32), "lane " + std::to_string(i) + " high");
        }
    }
    return s;
}

template <class Engine>
std::vector<std::string> available_names(hwaccel::EngineList<Engine> list) {
    std::vector<std::string> names;
    for (const Engine* e : list)
        if (e->available(hwaccel::cpu_features())) names.push_back(e->name);
    return names;
}

TEST_CASE("Digest context copies leave no state in vector registers", "[provider][digest][x86][wipe]") {
    if (!can_dump()) return;
    const bool zmm = dump_zmm();
    Lcg rng(0xd16e);
    for (const DigestCase& dc : kDigests) {
        const std::string family = dc.family;
        const std::vector<std::string> engines = family == "sha1"     ? available_names(hwaccel::sha1_engines())
                                                 : family == "sha256" ? available_names(hwaccel::sha256_engines())
                                                                      : available_names(hwaccel::keccak_engines());
        for (const std::string& engine : engines) {
            const std::string selection = family + "=" + engine;
            for (size_t partial : {size_t{5}, dc.block - 4})
            SECTION(std::string(dc.name) + ", " + selection + ", a block and " + std::to_string(partial) + " bytes") {
                std::vector<uint8_t> msg(dc.block + partial);
                rng.fill(msg.data(), msg.size());
                const SecretWords secrets = digest_secrets(dc, engine, msg);
                auto leak = [&](CallArgs& c) { return secrets.find_in(call_and_dump_vectors(call_thunk, &c, zmm)); };

                LoadedProvider lp(selection);
                MdPtr md = lp.md(dc.name);
                MdCtxPtr ctx(EVP_MD_CTX_new()), copy(EVP_MD_CTX_new());
                REQUIRE(EVP_DigestInit_ex2(ctx.get(), md.get(), nullptr) == 1);
                REQUIRE(EVP_DigestUpdate(ctx.get(), msg.data(), msg.size()) == 1);
                {
                    CallArgs c{};
                    c.call = Call::kEvpMdCopy;
                    c.md_ctx = ctx.get();
                    c.md_copy_to = copy.get();
                    const std::string found = leak(c);
                    REQUIRE(c.result == 1);
                    INFO("EVP_MD_CTX_copy_ex");
                    CHECK(found == "");
                }

                g_core = FakeCore{};
                g_core.engines = selection;
                Module m;
                REQUIRE(m.init_result == 1);
                const DigestFns fns(m.digest(dc.name));
                void* vctx = fns.newctx(m.provctx);
                REQUIRE(vctx != nullptr);
                REQUIRE(fns.init(vctx, nullptr) == 1);
                REQUIRE(fns.update(vctx, msg.data(), msg.size()) == 1);
                CallArgs c{};
                c.call = Call::kMdDupctx;
                c.dfns = &fns;
                c.vctx = vctx;
                const std::string dup = leak(c);
                REQUIRE(c.dup != nullptr);
                std::string copied;
                if (fns.copyctx != nullptr) {
                    c.call = Call::kMdCopyctx;
                    c.vctx_to = c.dup;
                    copied = leak(c);
                }
                // Serialize copies the state out (4.0's EVP_MD_CTX_serialize):
                // the caller's buffer gets it, the registers must not keep it.
                std::string serialized;
                std::vector<unsigned char> saved(1000);
                if (fns.serialize != nullptr) {
                    c.call = Call::kMdSerialize;
                    c.out = saved.data();
                    c.outl_size = saved.size();
                    serialized = leak(c);
                    REQUIRE(c.result == 1);
                }
                std::string deserialized;
                if (fns.deserialize != nullptr) {
                    c.call = Call::kMdDeserialize;
                    c.vctx = c.dup;
                    deserialized = leak(c);
                    REQUIRE(c.result == 1);
                    c.vctx = vctx;
                }
                fns.freectx(c.dup);
                fns.freectx(vctx);
                INFO("provider dupctx, copyctx into the copy, serialize, deserialize into the copy");
                CHECK(dup == "");
                CHECK(copied == "");
                CHECK(serialized == "");
                CHECK(deserialized == "");
            }
        }
    }
}

}  // namespace

#endif
