// The provider's cipher entry points leave nothing of a message on the stack
// below their caller, nor in the caller-saved registers: plaintext, keystream
// (ciphertext ^ plaintext, and in CTR and GCM past the message to the end
// of its last 8-block group), E_K(0) and D_K(0) (GCM's H; the bulk
// kernels' unused lanes), GCM's E_K(J0), CCM's E_K(A_0), XTS's first
// tweak, and after a decryption whose tag failed the tag that would have
// passed. The key schedule is vector_register_residue_evp_test.cpp's and the
// engines' (test/backends); this covers the mode code above the engines,
// which keeps such values in stack buffers (a partial block's keystream, a
// short CCM payload until its tag verified, H while GHASH is keyed) and wipes
// them before returning.
//
// Each call goes through support/vector_register_dump.hpp's trampoline with
// the stack below it zeroed first; every 4-byte word of the secrets is looked
// for in what the call left. The dispatch functions are called directly (the
// fake core), so only the provider's code runs. Every SM4 engine this CPU
// runs, every SM4 mode, encryption and decryption, a message of 150 bytes
// (a partial last block, XTS's ciphertext stealing) through update and
// final. Written after scripts/mutation-sweep.py found those wipes untested.
// x86-64 only so far (the arm64 dump exists; its engines are not yet checked).
// Where the stack and GPRs are not the Release build's own (a sanitizer or
// -O0 build) or belong to an instruction model's signal handler (an engine
// the real CPU lacks, claimed by HWACCEL_TEST_CPU) only the vector registers
// are checked, as in test/backends/vector_register_residue_test.cpp.
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <catch2/catch.hpp>

#if defined(__x86_64__)

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/detect.hpp"  // backend internals: the real CPU, whatever HWACCEL_TEST_CPU claims
#include "fake_core.hpp"
#include "generic/generic_engines.hpp"
#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/registry.hpp"
#include "hwaccel/wipe_stack.hpp"
#include "support/secret_words.hpp"
#include "support/stack_shift.hpp"
#include "support/sm4_mode_cases.hpp"
#include "support/vector_register_dump.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

using Mode = Sm4ModeCase;
constexpr size_t kTag = 16;

enum class Call { kUpdate, kFinal };
struct CallArgs {
    Call call;
    const CipherFns* fns;
    void* vctx;
    unsigned char* out;
    size_t out_size;
    const unsigned char* in;
    size_t len;
    size_t outl;
    int result;
};

// One call, for the trampoline.
[[gnu::noinline]] void call_thunk(void* p) {
    CallArgs& c = *static_cast<CallArgs*>(p);
    switch (c.call) {
        case Call::kUpdate: c.result = c.fns->update(c.vctx, c.out, &c.outl, c.out_size, c.in, c.len); return;
        case Call::kFinal: c.result = c.fns->final(c.vctx, c.out, &c.outl, c.out_size); return;
    }
}

// E_K(block) with the portable engine: the test's own reference.
std::vector<uint8_t> encrypt_block(const uint8_t* key, const uint8_t block[16]) {
    hwaccel::Sm4Key k{};
    hwaccel::generic::sm4.set_key(&k, key);
    std::vector<uint8_t> out(block, block + 16);
    hwaccel::generic::sm4.encrypt_block(&k, out.data(), out.data());
    return out;
}
// D_K(block), the same way.
std::vector<uint8_t> decrypt_block(const uint8_t* key, const uint8_t block[16]) {
    hwaccel::Sm4Key k{};
    hwaccel::generic::sm4.set_key(&k, key);
    std::vector<uint8_t> out(block, block + 16);
    hwaccel::generic::sm4.ecb(&k, hwaccel::Sm4Direction::kDecrypt, out.data(), out.data(), 1);
    return out;
}

// The message lengths: HWACCEL_RESIDUE_LENGTHS (comma-separated), else the
// case's own and a few others (short, one partial group, longer than a
// batch): 150 bytes alone left the paths of other lengths unchecked, which
// left keystream, H, E_K(A_0) and CBC-MAC values (found by review). Block
// modes round up to whole blocks, XTS takes at least one.
std::vector<size_t> test_lengths(const Sm4ModeCase& mode) {
    const char* env = std::getenv("HWACCEL_RESIDUE_LENGTHS");
    std::string list = env != nullptr ? env : std::to_string(mode.len) + ",16,64,100,256,2048";
    std::vector<size_t> out;
    for (size_t at = 0; at < list.size();) {
        size_t n = std::strtoul(list.c_str() + at, nullptr, 10);
        if (!mode.stream && !mode.xts) n = (n + 15) / 16 * 16;
        if (mode.xts && n < 16) n = 16;
        out.push_back(n);
        const size_t comma = list.find(',', at);
        at = comma == std::string::npos ? list.size() : comma + 1;
    }
    return out;
}

std::vector<const hwaccel::Sm4Engine*> sm4_engines_here() {
    std::vector<const hwaccel::Sm4Engine*> list;
    for (const hwaccel::Sm4Engine* e : hwaccel::sm4_engines())
        if (e->available(hwaccel::cpu_features())) list.push_back(e);
    return list;
}

}  // namespace

TEST_CASE("the SM4 modes leave no message secret on the stack or in registers", "[provider][sm4][wipe]") {
    if (!__builtin_cpu_supports("avx")) return;  // the trampoline's
    for_each_stack_shift([&](unsigned shift) {
        INFO("stack shifted by " << 16 * shift << " bytes");
        const bool zmm = __builtin_cpu_supports("avx512f");
        auto dump = [&](CallArgs& c) { return call_and_dump_residue(call_thunk, &c, zmm); };
        const bool instrumented = hwaccel::backend_frames_instrumented();
        Lcg rng(0x57ac);
        for (const hwaccel::Sm4Engine* engine : sm4_engines_here()) {
            const bool registers_only = instrumented || !engine->available(hwaccel::detect_cpu());
            g_core = FakeCore{};
            g_core.engines = std::string("sm4=") + engine->name;
            Module m;
            REQUIRE(m.init_result == 1);
            for (const Mode& the_case : kSm4ModeCases) for (size_t len : test_lengths(the_case)) {
                Mode mode = the_case;
                mode.len = len;
                INFO(mode.name << " on sm4=" << engine->name << ", " << mode.len << " bytes, IV " << mode.iv_len);
                const CipherFns fns(m.cipher(mode.name));
                std::vector<uint8_t> key(mode.key_len), iv(16), text(mode.len);
                rng.fill(key.data(), key.size());
                rng.fill(iv.data(), iv.size());
                rng.fill(text.data(), text.size());

                // A context ready for text; `tag`: a decryption's expected tag.
                auto ready = [&](bool encrypt, const uint8_t* tag) {
                    void* vctx = fns.newctx(m.provctx);
                    REQUIRE(vctx != nullptr);
                    size_t ivlen = mode.iv_len, taglen = kTag;
                    OSSL_PARAM lengths[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                                            OSSL_PARAM_END, OSSL_PARAM_END};
                    // CCM: the tag's length, or a decryption's expected tag.
                    if (mode.ccm && tag != nullptr)
                        lengths[1] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, const_cast<uint8_t*>(tag), kTag);
                    else if (mode.ccm)
                        lengths[1] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, taglen);
                    const OSSL_PARAM* params = mode.gcm || mode.ccm ? lengths : nullptr;
                    const unsigned char* iv_or_null = mode.iv_len ? iv.data() : nullptr;
                    const int ok = encrypt ? fns.einit(vctx, key.data(), key.size(), iv_or_null, mode.iv_len, params)
                                           : fns.dinit(vctx, key.data(), key.size(), iv_or_null, mode.iv_len, params);
                    INFO((g_core.errors.empty() ? "" : g_core.errors.back()));
                    REQUIRE(ok == 1);
                    if (!encrypt && mode.gcm && tag) {
                        OSSL_PARAM t[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG,
                                                                            const_cast<uint8_t*>(tag), kTag),
                                          OSSL_PARAM_END};
                        REQUIRE(fns.set_ctx_params(vctx, t) == 1);
                    }
                    if (!mode.gcm && !mode.ccm && !mode.xts) {
                        unsigned int padding = 0;
                        OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &padding), OSSL_PARAM_END};
                        REQUIRE(fns.set_ctx_params(vctx, p) == 1);
                    }
                    if (mode.ccm) {
                        size_t outl = 0;
                        REQUIRE(fns.update(vctx, nullptr, &outl, 0, nullptr, mode.len) == 1);
                    }
                    return vctx;
                };
                // The reference ciphertext and tag (not dumped).
                std::vector<uint8_t> cipher_text(mode.len + 16), tag(kTag);
                {
                    void* vctx = ready(true, nullptr);
                    size_t outl = 0, fin = 0;
                    REQUIRE(fns.update(vctx, cipher_text.data(), &outl, cipher_text.size(), text.data(), mode.len) == 1);
                    REQUIRE(outl == mode.len);
                    REQUIRE(fns.final(vctx, cipher_text.data() + outl, &fin, 16) == 1);
                    if (mode.gcm || mode.ccm) {
                        OSSL_PARAM t[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag.data(), kTag), OSSL_PARAM_END};
                        REQUIRE(fns.get_ctx_params(vctx, t) == 1);
                    }
                    fns.freectx(vctx);
                }

                // What the caller does not hold: the key's derivatives and the
                // keystream. (The plaintext is the caller's own, its input or its
                // output, except when a decryption fails: below.)
                SecretWords secrets;
                if (mode.stream) {
                    std::vector<uint8_t> keystream(mode.len);
                    for (size_t i = 0; i < mode.len; ++i) keystream[i] = cipher_text[i] ^ text[i];
                    secrets.add_bytes(keystream.data(), keystream.size(), "keystream");
                }
                // CTR's and GCM's keystream past the message, to the end of its
                // last 8-block group: what the bulk kernels make in a partial
                // group's unused lanes (counters after the last block's; GCM's
                // count from inc32(J0) = IV || 2, 32 bits wide).
                const bool ctr = std::strcmp(mode.name, "SM4-CTR") == 0;
                if (ctr || (mode.gcm && mode.iv_len == 12)) {
                    const size_t used = (mode.len + 15) / 16, groups_end = (used + 7) / 8 * 8;
                    // The counters are checked against the provider itself: a
                    // message of zeros to the groups' end is that keystream.
                    std::vector<uint8_t> zeros(16 * groups_end), stream(16 * groups_end + 16);
                    {
                        void* vctx = ready(true, nullptr);
                        size_t outl = 0;
                        REQUIRE(fns.update(vctx, stream.data(), &outl, stream.size(), zeros.data(), zeros.size()) == 1);
                        fns.freectx(vctx);
                    }
                    for (size_t i = used; i < groups_end; ++i) {
                        uint8_t counter[16] = {};
                        if (ctr) {  // the IV as a 128-bit big-endian number, plus i
                            uint64_t lo = hwaccel::load_be64(iv.data() + 8), hi = hwaccel::load_be64(iv.data());
                            hi += (lo + i < lo) ? 1 : 0;
                            lo += i;
                            hwaccel::store_be64(counter, hi);
                            hwaccel::store_be64(counter + 8, lo);
                        } else {
                            std::memcpy(counter, iv.data(), 12);
                            hwaccel::store_be32(counter + 12, static_cast<uint32_t>(2 + i));
                        }
                        const std::vector<uint8_t> k = encrypt_block(key.data(), counter);
                        REQUIRE(std::memcmp(k.data(), stream.data() + 16 * i, 16) == 0);
                        secrets.add_bytes(k.data(), 16, "keystream past the message");
                    }
                }
                // E_K(0) and D_K(0): what the bulk kernels make in the unused
                // lanes of a partial group (zero blocks in), GCM's H.
                const uint8_t zero[16] = {};
                secrets.add_bytes(encrypt_block(key.data(), zero).data(), 16, mode.gcm ? "H" : "E_K(0)");
                secrets.add_bytes(decrypt_block(key.data(), zero).data(), 16, "D_K(0)");
                if (mode.gcm) {
                    if (mode.iv_len == 12) {  // otherwise J0 is GHASH(IV): the keystream stands for it
                        uint8_t j0[16] = {};
                        std::memcpy(j0, iv.data(), 12);
                        j0[15] = 1;
                        secrets.add_bytes(encrypt_block(key.data(), j0).data(), 16, "E_K(J0)");
                    }
                }
                if (mode.ccm) {
                    const size_t l = 15 - mode.iv_len;
                    uint8_t a0[16] = {};
                    a0[0] = static_cast<uint8_t>(l - 1);
                    std::memcpy(a0 + 1, iv.data(), mode.iv_len);
                    secrets.add_bytes(encrypt_block(key.data(), a0).data(), 16, "E_K(A_0)");
                    // The CBC-MAC chain (SP 800-38C): X_1 = E(B_0), X_i+1 = E(X_i ^ P_i)
                    // over the zero-padded payload; its values and the inputs
                    // X_i ^ P_i give the tag before its mask.
                    uint8_t x[16] = {};
                    x[0] = static_cast<uint8_t>(((kTag - 2) / 2) << 3 | (l - 1));  // no AAD
                    std::memcpy(x + 1, iv.data(), mode.iv_len);
                    for (size_t i = 0; i < l; ++i) x[15 - i] = static_cast<uint8_t>(mode.len >> (8 * i));
                    std::vector<uint8_t> chain = encrypt_block(key.data(), x);
                    for (size_t at = 0; at < mode.len; at += 16) {
                        secrets.add_bytes(chain.data(), 16, "CBC-MAC value");
                        uint8_t in[16];
                        for (size_t j = 0; j < 16; ++j)
                            in[j] = static_cast<uint8_t>(chain[j] ^ (at + j < mode.len ? text[at + j] : 0));
                        secrets.add_bytes(in, 16, "CBC-MAC input");
                        chain = encrypt_block(key.data(), in);
                    }
                    secrets.add_bytes(chain.data(), 16, "CBC-MAC value");
                }
                if (mode.xts) {
                    // Every tweak of the unit, in the GB and the IEEE
                    // order: any one gives the first (review).
                    const std::vector<uint8_t> t0 = encrypt_block(key.data() + 16, iv.data());
                    secrets.add_bytes(t0.data(), 16, "first tweak");
                    for (int gb = 0; gb < 2; ++gb) {
                        uint64_t lo = gb ? hwaccel::load_be64(t0.data() + 8) : hwaccel::load_le64(t0.data());
                        uint64_t hi = gb ? hwaccel::load_be64(t0.data()) : hwaccel::load_le64(t0.data() + 8);
                        for (size_t i = 1; i <= mode.len / 16 + 1; ++i) {
                            if (gb) {  // x in GB/T 17964's bit order: a right shift
                                const uint64_t c = lo & 1;
                                lo = (lo >> 1) | (hi << 63);
                                hi = (hi >> 1) ^ ((uint64_t{0xe1} << 56) & (0 - c));
                            } else {  // IEEE 1619: a left shift, 0x87
                                const uint64_t c = hi >> 63;
                                hi = (hi << 1) | (lo >> 63);
                                lo = (lo << 1) ^ (0x87 & (0 - c));
                            }
                            uint8_t b[16];
                            if (gb) {
                                hwaccel::store_be64(b, hi);
                                hwaccel::store_be64(b + 8, lo);
                            } else {
                                hwaccel::store_le64(b, lo);
                                hwaccel::store_le64(b + 8, hi);
                            }
                            secrets.add_bytes(b, 16, std::string(gb ? "GB" : "IEEE") + " tweak " + std::to_string(i));
                        }
                    }
                }
                // A failed decryption releases nothing: no plaintext, and not
                // what a forger wants, the tag that would have passed.
                SecretWords failed_tag;
                failed_tag.add_bytes(tag.data(), kTag, "the correct tag");
                failed_tag.add_bytes(text.data(), text.size(), "plaintext");
                failed_tag.add_all(secrets);

                auto leak = [&](CallArgs& c, const SecretWords& s) {
                    const CallResidue r = dump(c);
                    if (registers_only) return s.find_in(r.vectors);
                    return s.find_in(r.stack) + s.find_in(r.gprs) + s.find_in(r.vectors);
                };
                std::vector<uint8_t> out(mode.len + 32);
                for (bool encrypt : {true, false}) {
                    INFO((encrypt ? "encrypting" : "decrypting"));
                    void* vctx = ready(encrypt, encrypt ? nullptr : tag.data());
                    CallArgs c{Call::kUpdate, &fns, vctx, out.data(), out.size(),
                               encrypt ? text.data() : cipher_text.data(), mode.len, 0, 0};
                    const std::string update = leak(c, secrets);
                    REQUIRE(c.result == 1);
                    c = CallArgs{Call::kFinal, &fns, vctx, out.data() + c.outl, 16, nullptr, 0, 0, 0};
                    const std::string final = leak(c, secrets);
                    INFO((g_core.errors.empty() ? "" : g_core.errors.back()));
                    REQUIRE(c.result == 1);
                    fns.freectx(vctx);
                    CHECK(update == "");
                    CHECK(final == "");
                }
                if (mode.gcm || mode.ccm) {
                    // A forgery: refused, and the tag that would have passed is nowhere.
                    std::vector<uint8_t> wrong = tag;
                    wrong[3] ^= 0x40;
                    void* vctx = ready(false, wrong.data());
                    CallArgs c{Call::kUpdate, &fns, vctx, out.data(), out.size(), cipher_text.data(), mode.len, 0, 0};
                    const std::string update = leak(c, failed_tag);
                    const bool ccm_refused_at_update = mode.ccm && c.result != 1;
                    std::string final;
                    if (!ccm_refused_at_update) {
                        REQUIRE(c.result == 1);
                        c = CallArgs{Call::kFinal, &fns, vctx, out.data() + c.outl, 16, nullptr, 0, 0, 0};
                        final = leak(c, failed_tag);
                        CHECK(c.result != 1);
                    }
                    fns.freectx(vctx);
                    INFO("a decryption under a wrong tag");
                    CHECK(update == "");
                    CHECK(final == "");
                }
                if (mode.gcm && mode.iv_len == 12) {
                    // A TLS record (tlsivfixed, tlsaad, the record through update
                    // in place) whose tag was tampered with: refused, and the tag
                    // that would have passed is nowhere either.
                    const size_t record_len = 8 + mode.len + kTag;
                    auto tls = [&](bool encrypt, size_t fixed_len, size_t header_len) {
                        void* vctx = fns.newctx(m.provctx);
                        REQUIRE(vctx != nullptr);
                        REQUIRE((encrypt ? fns.einit(vctx, key.data(), 16, nullptr, 0, nullptr)
                                         : fns.dinit(vctx, key.data(), 16, nullptr, 0, nullptr)) == 1);
                        unsigned char aad[13] = {0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, static_cast<unsigned char>(header_len >> 8),
                                                 static_cast<unsigned char>(header_len)};
                        OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, iv.data(),
                                                                            fixed_len),
                                          OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, aad, sizeof aad),
                                          OSSL_PARAM_END};
                        REQUIRE(fns.set_ctx_params(vctx, p) == 1);
                        return vctx;
                    };
                    std::vector<uint8_t> record(record_len, 0);
                    std::memcpy(record.data() + 8, text.data(), mode.len);
                    void* e = tls(true, SIZE_MAX, 8 + mode.len);  // the whole IV fixed (EVP ctrl -1), as the EVP suite does
                    size_t outl = 0;
                    REQUIRE(fns.update(e, record.data(), &outl, record.size(), record.data(), record.size()) == 1);
                    fns.freectx(e);
                    SecretWords forged;
                    forged.add_bytes(record.data() + 8 + mode.len, kTag, "the record's correct tag");
                    forged.add_bytes(text.data(), text.size(), "plaintext");
                    forged.add_all(secrets);
                    record[record_len - 1] ^= 0x20;
                    void* d = tls(false, 4, record_len);
                    CallArgs c{Call::kUpdate, &fns, d, record.data(), record.size(), record.data(), record.size(), 0, 0};
                    const std::string found = leak(c, forged);
                    CHECK(c.result != 1);
                    fns.freectx(d);
                    INFO("a TLS record under a wrong tag");
                    CHECK(found == "");
                }
            }
        }
    });
}

#endif
