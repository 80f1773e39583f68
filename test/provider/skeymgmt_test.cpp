// The "SM4-SECRET" key management (provider/skeymgmt/): opaque SM4 keys for
// EVP_CipherInit_SKEY on OpenSSL 3.5+. Through the dispatch table on every
// release (import's refusals, export, free, generation), and through EVP
// where OpenSSL has EVP_SKEY: every SM4 cipher keyed from an EVP_SKEY gives
// what the raw key gives, and EVP_SKEY_generate's keys work.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/proverr.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "fake_core.hpp"
#include "provider_fixture.hpp"
#include "skeymgmt/skeymgmt_ids.hpp"  // ids absent from 3.0's headers
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

constexpr int kSelectParameters = OSSL_SKEYMGMT_SELECT_PARAMETERS;
constexpr int kSelectSecretKey = OSSL_SKEYMGMT_SELECT_SECRET_KEY;
using ImportFn = void*(void*, int, const OSSL_PARAM[]);
using ExportFn = int(void*, int, OSSL_CALLBACK*, void*);
using FreeFn = void(void*);
using GenerateFn = void*(void*, const OSSL_PARAM[]);
using SettableFn = const OSSL_PARAM*(void*);

struct SkeyFns {
    ImportFn* import;
    ExportFn* export_key;
    FreeFn* free;
    SettableFn* settable;
};

// What an export handed over: the parameter's bytes and where they live.
struct Exported {
    int calls = 0;
    std::vector<uint8_t> bytes;
    const void* where = nullptr;
};
int record_export(const OSSL_PARAM params[], void* arg) {
    auto* e = static_cast<Exported*>(arg);
    ++e->calls;
    for (const OSSL_PARAM* p = params; p->key != nullptr; ++p) {
        if (std::strcmp(p->key, "raw-bytes") != 0 || p->data_type != OSSL_PARAM_OCTET_STRING) continue;
        const auto* b = static_cast<const uint8_t*>(p->data);
        e->bytes.assign(b, b + p->data_size);
        e->where = p->data;
    }
    return 1;
}

OSSL_PARAM raw_bytes(const void* data, size_t size) {
    return {"raw-bytes", OSSL_PARAM_OCTET_STRING, const_cast<void*>(data), size, 0};
}

// "key-length" (OSSL_SKEY_PARAM_KEY_LENGTH) of any integer type.
template <class T>
OSSL_PARAM key_length(T* value) {
    const unsigned type = std::is_signed<T>::value ? OSSL_PARAM_INTEGER : OSSL_PARAM_UNSIGNED_INTEGER;
    return {"key-length", type, value, sizeof(T), 0};
}

}  // namespace

TEST_CASE("skeymgmt: SM4 keys through the dispatch table", "[skeymgmt][dispatch]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    const OSSL_ALGORITHM* a = m.algorithms(OSSL_OP_SKEYMGMT);
    REQUIRE(a != nullptr);
    REQUIRE(a->algorithm_names != nullptr);
    // A name of its own, not "SM4" (names.hpp says why), and nothing else.
    CHECK(std::string(a->algorithm_names) == "SM4-SECRET");
    CHECK(std::string(a->property_definition) == "provider=hwaccel");
    CHECK(a[1].algorithm_names == nullptr);
    const SkeyFns f{find_fn<ImportFn>(a->implementation, OSSL_FUNC_SKEYMGMT_IMPORT),
                    find_fn<ExportFn>(a->implementation, OSSL_FUNC_SKEYMGMT_EXPORT), find_fn<FreeFn>(a->implementation, OSSL_FUNC_SKEYMGMT_FREE),
                    find_fn<SettableFn>(a->implementation, OSSL_FUNC_SKEYMGMT_IMP_SETTABLE_PARAMS)};
    REQUIRE(f.import != nullptr);
    REQUIRE(f.export_key != nullptr);
    REQUIRE(f.free != nullptr);
    REQUIRE(f.settable != nullptr);
    const OSSL_PARAM* settable = f.settable(m.provctx);
    REQUIRE(settable != nullptr);
    CHECK(std::string(settable[0].key) == "raw-bytes");
    CHECK(settable[0].data_type == OSSL_PARAM_OCTET_STRING);
    CHECK(settable[1].key == nullptr);

    Lcg rng(81);
    const Bytes key32 = rng.bytes(32);
    SECTION("16 and 32 bytes are keys; export gives them back from inside the key") {
        for (size_t len : {16u, 32u}) {
            OSSL_PARAM p[] = {raw_bytes(key32.data(), len), OSSL_PARAM_END};
            for (int selection : {kSelectSecretKey, kSelectSecretKey | kSelectParameters}) {
                g_core.clear_errors();
                void* k = f.import(m.provctx, selection, p);
                REQUIRE(k != nullptr);
                CHECK(g_core.errors.empty());
                Exported e, again;
                CHECK(f.export_key(k, kSelectSecretKey, record_export, &e) == 1);
                CHECK(e.calls == 1);
                CHECK(e.bytes == Bytes(key32.begin(), key32.begin() + len));
                CHECK(e.where != key32.data());  // a copy, kept in the key object
                // EVP_SKEY_get0_raw_key keeps the pointer: the same bytes each time.
                CHECK(f.export_key(k, kSelectSecretKey | kSelectParameters, record_export, &again) == 1);
                CHECK(again.where == e.where);
                // Nothing to export without the secret selection.
                Exported none;
                CHECK(f.export_key(k, kSelectParameters, record_export, &none) == 0);
                CHECK(none.calls == 0);
                f.free(k);
            }
        }
        f.free(nullptr);
        Exported none;
        CHECK(f.export_key(nullptr, kSelectSecretKey, record_export, &none) == 0);
        CHECK(none.calls == 0);
    }
    SECTION("refused imports raise an error and make no key") {
        const int wrong_length = static_cast<int>(ERR_PACK(ERR_LIB_PROV, 0, PROV_R_INVALID_KEY_LENGTH));
        struct Case {
            const char* what;
            int selection;
            std::vector<OSSL_PARAM> params;  // without the end marker
            bool null_params;
            bool wrong_length = false;  // INVALID_KEY_LENGTH
        };
        const uint8_t* k = key32.data();
        OSSL_PARAM wrong_type = raw_bytes(k, 16);
        wrong_type.data_type = OSSL_PARAM_UTF8_STRING;
        OSSL_PARAM null_data = raw_bytes(nullptr, 16);
        const std::vector<Case> cases = {
            {"no secret selected", kSelectParameters, {raw_bytes(k, 16)}, false},
            {"no selection", 0, {raw_bytes(k, 16)}, false},
            {"NULL params", kSelectSecretKey, {}, true},
            {"no raw-bytes", kSelectSecretKey, {}, false},
            {"raw-bytes of the wrong type", kSelectSecretKey, {wrong_type}, false},
            {"raw-bytes with NULL data", kSelectSecretKey, {null_data}, false},
            {"0 bytes", kSelectSecretKey, {raw_bytes(k, 0)}, false, true},
            {"15 bytes", kSelectSecretKey, {raw_bytes(k, 15)}, false, true},
            {"17 bytes", kSelectSecretKey, {raw_bytes(k, 17)}, false, true},
            {"24 bytes", kSelectSecretKey, {raw_bytes(k, 24)}, false, true},
            {"31 bytes", kSelectSecretKey, {raw_bytes(k, 31)}, false, true},
            {"33 bytes", kSelectSecretKey, {raw_bytes(k, 33)}, false, true},
            {"SIZE_MAX bytes", kSelectSecretKey, {raw_bytes(k, SIZE_MAX)}, false, true},
        };
        for (const Case& c : cases) {
            INFO(c.what);
            std::vector<OSSL_PARAM> p = c.params;
            p.push_back(OSSL_PARAM_END);
            g_core.clear_errors();
            void* key = f.import(m.provctx, c.selection, c.null_params ? nullptr : p.data());
            CHECK(key == nullptr);
            f.free(key);
            CHECK(g_core.errors.size() == 1);
            if (c.wrong_length) CHECK(g_core.reason == wrong_length);
        }
    }
}

TEST_CASE("skeymgmt: SM4 keys generated through the dispatch table", "[skeymgmt][dispatch]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    const OSSL_ALGORITHM* a = m.algorithms(OSSL_OP_SKEYMGMT);
    REQUIRE(a != nullptr);
    auto* generate = find_fn<GenerateFn>(a->implementation, OSSL_FUNC_SKEYMGMT_GENERATE);
    auto* gen_settable = find_fn<SettableFn>(a->implementation, OSSL_FUNC_SKEYMGMT_GEN_SETTABLE_PARAMS);
    auto* export_key = find_fn<ExportFn>(a->implementation, OSSL_FUNC_SKEYMGMT_EXPORT);
    auto* free_key = find_fn<FreeFn>(a->implementation, OSSL_FUNC_SKEYMGMT_FREE);
    // Without them EVP_SKEY_generate returns NULL.
    REQUIRE(generate != nullptr);
    REQUIRE(gen_settable != nullptr);
    REQUIRE(export_key != nullptr);
    REQUIRE(free_key != nullptr);
    const OSSL_PARAM* settable = gen_settable(m.provctx);
    REQUIRE(settable != nullptr);
    CHECK(std::string(settable[0].key) == "key-length");
    CHECK(settable[0].data_type == OSSL_PARAM_UNSIGNED_INTEGER);
    CHECK(settable[0].data_size == sizeof(size_t));
    CHECK(settable[1].key == nullptr);

    // The key's bytes, through export; FAILs if the key cannot be exported.
    auto bytes_of = [&](void* k) {
        Exported e;
        CHECK(export_key(k, kSelectSecretKey, record_export, &e) == 1);
        CHECK(e.calls == 1);
        return e.bytes;
    };
    SECTION("16 bytes by default, 32 when asked for; every integer type; other parameters ignored") {
        size_t st16 = 16, st32 = 32;
        int i16 = 16, i32 = 32;
        unsigned u32 = 32;
        int64_t l16 = 16;
        uint8_t b32 = 32;
        double d32 = 32.0;
        const Bytes some(16, 0x5a);
        struct Case {
            const char* what;
            std::vector<OSSL_PARAM> params;  // without the end marker
            bool null_params;
            size_t want;
        };
        const std::vector<Case> cases = {
            {"NULL params", {}, true, 16},
            {"no parameters", {}, false, 16},
            {"key-length 16 (size_t)", {key_length(&st16)}, false, 16},
            {"key-length 32 (size_t)", {key_length(&st32)}, false, 32},
            {"key-length 16 (int)", {key_length(&i16)}, false, 16},
            {"key-length 32 (int)", {key_length(&i32)}, false, 32},
            {"key-length 32 (unsigned)", {key_length(&u32)}, false, 32},
            {"key-length 16 (int64_t)", {key_length(&l16)}, false, 16},
            {"key-length 32 (one byte)", {key_length(&b32)}, false, 32},
            // OpenSSL's integer getters take a double holding an integer.
            {"key-length 32.0 (double)", {{"key-length", OSSL_PARAM_REAL, &d32, sizeof d32, 0}}, false, 32},
            // Generation draws its bytes: a raw-bytes given is not a key.
            {"raw-bytes is ignored", {raw_bytes(some.data(), some.size())}, false, 16},
        };
        for (const Case& c : cases) {
            INFO(c.what);
            std::vector<OSSL_PARAM> p = c.params;
            p.push_back(OSSL_PARAM_END);
            g_core.clear_errors();
            void* k1 = generate(m.provctx, c.null_params ? nullptr : p.data());
            void* k2 = generate(m.provctx, c.null_params ? nullptr : p.data());
            REQUIRE(k1 != nullptr);
            REQUIRE(k2 != nullptr);
            CHECK(g_core.errors.empty());
            const Bytes b1 = bytes_of(k1), b2 = bytes_of(k2);
            CHECK(b1.size() == c.want);
            CHECK(b2.size() == c.want);
            CHECK(b1 != b2);  // fresh bytes each time (equal: odds 2^-128)
            CHECK(b1 != Bytes(c.want, 0));
            if (c.want == 16) CHECK(b1 != Bytes(some));
            // SM4-XTS refuses a pair whose halves are equal.
            if (c.want == 32) CHECK(!std::equal(b1.begin(), b1.begin() + 16, b1.begin() + 16));
            free_key(k1);
            free_key(k2);
        }
    }
    SECTION("other lengths and unreadable key-lengths raise an error and make no key") {
        const int wrong_length = static_cast<int>(ERR_PACK(ERR_LIB_PROV, 0, PROV_R_INVALID_KEY_LENGTH));
        const int unreadable = static_cast<int>(ERR_PACK(ERR_LIB_PROV, 0, PROV_R_FAILED_TO_GET_PARAMETER));
        size_t lengths[] = {0, 1, 8, 15, 17, 24, 31, 33, 48, 64, SIZE_MAX};
        int minus16 = -16;
        size_t st16 = 16;
        OSSL_PARAM wrong_type = key_length(&st16);
        wrong_type.data_type = OSSL_PARAM_UTF8_STRING;
        OSSL_PARAM null_data = key_length(&st16);
        null_data.data = nullptr;
        struct Case {
            std::string what;
            OSSL_PARAM param;
            int reason;
        };
        std::vector<Case> cases;
        for (size_t& len : lengths) cases.push_back({"key-length " + std::to_string(len), key_length(&len), wrong_length});
        cases.push_back({"key-length -16", key_length(&minus16), unreadable});
        cases.push_back({"key-length as a string", wrong_type, unreadable});
        cases.push_back({"key-length with NULL data", null_data, unreadable});
        OSSL_PARAM no_bytes = key_length(&st16);
        no_bytes.data_size = 0;  // an integer of no bytes is 0
        cases.push_back({"key-length of 0 bytes", no_bytes, wrong_length});
        for (const Case& c : cases) {
            INFO(c.what);
            OSSL_PARAM p[] = {c.param, OSSL_PARAM_END};
            g_core.clear_errors();
            void* k = generate(m.provctx, p);
            CHECK(k == nullptr);
            free_key(k);
            CHECK(g_core.errors.size() == 1);
            CHECK(g_core.reason == c.reason);
        }
    }
}

#if OPENSSL_VERSION_NUMBER >= 0x30500000L

namespace {

struct SkeyFree {
    void operator()(EVP_SKEY* k) const { EVP_SKEY_free(k); }
};
using SkeyPtr = std::unique_ptr<EVP_SKEY, SkeyFree>;

// One message through a cipher keyed from raw bytes or from an EVP_SKEY:
// the output, and for GCM/CCM the tag.
Bytes crypt(const EVP_CIPHER* c, bool enc, EVP_SKEY* skey, const Bytes& key, const Bytes& iv, const Bytes& in,
            Bytes* tag) {
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    const int ok = skey != nullptr ? EVP_CipherInit_SKEY(ctx.get(), c, skey, iv.data(), iv.size(), enc, nullptr)
                                   : EVP_CipherInit_ex2(ctx.get(), c, key.data(), iv.data(), enc, nullptr);
    REQUIRE(ok == 1);
    const int mode = EVP_CIPHER_get_mode(c);
    const bool aead = mode == EVP_CIPH_GCM_MODE || mode == EVP_CIPH_CCM_MODE;
    if (aead && !enc)
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag->size()), tag->data()) == 1);
    Bytes out(in.size() + 32);
    int n = 0, m = 0;
    REQUIRE(EVP_CipherUpdate(ctx.get(), out.data(), &n, in.data(), static_cast<int>(in.size())) == 1);
    REQUIRE(EVP_CipherFinal_ex(ctx.get(), out.data() + n, &m) == 1);
    out.resize(static_cast<size_t>(n + m));
    if (aead && enc) {
        const int tag_len = EVP_CIPHER_CTX_get_tag_length(ctx.get());  // CCM's is 12 unless set
        REQUIRE(tag_len > 0);
        tag->resize(static_cast<size_t>(tag_len));
        REQUIRE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, tag_len, tag->data()) == 1);
    }
    return out;
}


// A 32-byte key keys no SM4-CBC and a 16-byte one no SM4-XTS: init refuses
// each with INVALID_KEY_LENGTH.
void check_wrong_length_refused(LoadedProvider& prov, EVP_SKEY* s16, EVP_SKEY* s32) {
    CipherPtr cbc = prov.cipher("SM4-CBC"), xts = prov.cipher("SM4-XTS");
    const unsigned char iv[16] = {};
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    ERR_clear_error();
    CHECK(EVP_CipherInit_SKEY(ctx.get(), cbc.get(), s32, iv, 16, 1, nullptr) != 1);
    CHECK(is_openssl_error(ERR_peek_last_error(), ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH));
    ERR_clear_error();
    CHECK(EVP_CipherInit_SKEY(ctx.get(), xts.get(), s16, iv, 16, 1, nullptr) != 1);
    CHECK(is_openssl_error(ERR_peek_last_error(), ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH));
    ERR_clear_error();
}
}  // namespace

TEST_CASE("skeymgmt: every SM4 cipher keyed from an EVP_SKEY", "[skeymgmt][evp]") {
    LoadedProvider prov;
    Lcg rng(82);
    struct Alg {
        const char* name;
        size_t key_len, iv_len;
    };
    const Alg algs[] = {{"SM4-ECB", 16, 0},  {"SM4-CBC", 16, 16}, {"SM4-CFB", 16, 16}, {"SM4-OFB", 16, 16},
                        {"SM4-CTR", 16, 16}, {"SM4-GCM", 16, 12}, {"SM4-CCM", 16, 7}, {"SM4-XTS", 32, 16}};
    SECTION("each SM4 cipher keyed from an SM4-SECRET key gives what the raw key gives") {
        for (const Alg& alg : algs) {
            INFO(alg.name);
            CipherPtr c = prov.cipher(alg.name);
            Bytes key = rng.bytes(alg.key_len);
            const Bytes iv = rng.bytes(alg.iv_len), msg = rng.bytes(64);
            SkeyPtr skey(EVP_SKEY_import_raw_key(prov.libctx(), "SM4-SECRET", key.data(), key.size(), "provider=hwaccel"));
            REQUIRE(skey != nullptr);
            CHECK(std::string(EVP_SKEY_get0_provider_name(skey.get())) == "hwaccel");
            const unsigned char* raw = nullptr;
            size_t raw_len = 0;
            REQUIRE(EVP_SKEY_get0_raw_key(skey.get(), &raw, &raw_len) == 1);
            CHECK(Bytes(raw, raw + raw_len) == key);
            Bytes tag_raw, tag_skey;
            const Bytes want = crypt(c.get(), true, nullptr, key, iv, msg, &tag_raw);
            const Bytes got = crypt(c.get(), true, skey.get(), key, iv, msg, &tag_skey);
            CHECK(got == want);
            CHECK(tag_skey == tag_raw);
            CHECK(crypt(c.get(), false, skey.get(), key, iv, got, &tag_skey) == msg);
        }
    }
    SECTION("a key of the wrong length for the cipher is refused at init") {
        Bytes k16 = rng.bytes(16), k32 = rng.bytes(32);
        SkeyPtr s16(EVP_SKEY_import_raw_key(prov.libctx(), "SM4-SECRET", k16.data(), 16, "provider=hwaccel"));
        SkeyPtr s32(EVP_SKEY_import_raw_key(prov.libctx(), "SM4-SECRET", k32.data(), 32, "provider=hwaccel"));
        REQUIRE(s16 != nullptr);
        REQUIRE(s32 != nullptr);
        check_wrong_length_refused(prov, s16.get(), s32.get());
    }
    SECTION("import refuses other lengths with an error") {
        Bytes k = rng.bytes(24);
        ERR_clear_error();
        CHECK(EVP_SKEY_import_raw_key(prov.libctx(), "SM4-SECRET", k.data(), 24, "provider=hwaccel") == nullptr);
        CHECK(is_openssl_error(ERR_peek_last_error(), ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH));
        ERR_clear_error();
    }
    SECTION("loading hwaccel changes nothing for a program keying the default's SM4 with an \"SM4\" key") {
        // With the default alone, EVP_SKEY_import of "SM4" falls back to its
        // GENERIC-SECRET, which keys its SM4 ciphers: with hwaccel loaded too
        // it must still (a key of hwaccel's would be refused for them).
        CHECK(EVP_SKEYMGMT_fetch(prov.libctx(), "SM4", nullptr) == nullptr);
        CHECK(EVP_SKEYMGMT_fetch(prov.libctx(), "SM4-CBC", nullptr) == nullptr);
        ERR_clear_error();
        CipherPtr theirs = prov.default_cipher("SM4-CBC");
        Bytes k = rng.bytes(16);
        const Bytes iv = rng.bytes(16), msg = rng.bytes(48);
        SkeyPtr sm4(EVP_SKEY_import_raw_key(prov.libctx(), "SM4", k.data(), 16, nullptr));
        REQUIRE(sm4 != nullptr);
        CHECK(std::string(EVP_SKEY_get0_provider_name(sm4.get())) == "default");
        Bytes no_tag;
        CHECK(crypt(theirs.get(), true, sm4.get(), k, iv, msg, &no_tag) ==
              crypt(theirs.get(), true, nullptr, k, iv, msg, &no_tag));
    }
    SECTION("a key of another provider's: OpenSSL refuses it for hwaccel's cipher (key and cipher from one provider)") {
        CipherPtr cbc = prov.cipher("SM4-CBC");
        Bytes k = rng.bytes(16);
        const Bytes iv = rng.bytes(16);
        SkeyPtr theirs(EVP_SKEY_import_raw_key(prov.libctx(), "GENERIC-SECRET", k.data(), 16, "provider=default"));
        REQUIRE(theirs != nullptr);
        CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
        CHECK(EVP_CipherInit_SKEY(ctx.get(), cbc.get(), theirs.get(), iv.data(), 16, 1, nullptr) != 1);
        ERR_clear_error();
    }
}

namespace {

// The bytes of an EVP_SKEY (EVP_SKEY_get0_raw_key); FAILs if there are none.
Bytes raw_of(const EVP_SKEY* skey) {
    const unsigned char* raw = nullptr;
    size_t len = 0;
    REQUIRE(EVP_SKEY_get0_raw_key(skey, &raw, &len) == 1);
    return Bytes(raw, raw + len);
}

// EVP_SKEY_generate of hwaccel's SM4-SECRET with key-length `len` (none if 0).
SkeyPtr generate_sm4(OSSL_LIB_CTX* libctx, size_t len) {
    OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_SKEY_PARAM_KEY_LENGTH, &len), OSSL_PARAM_END};
    return SkeyPtr(EVP_SKEY_generate(libctx, "SM4-SECRET", "provider=hwaccel", len == 0 ? nullptr : p));
}

}  // namespace

TEST_CASE("skeymgmt: EVP_SKEY_generate makes SM4 keys", "[skeymgmt][evp]") {
    LoadedProvider prov;
    Lcg rng(83);
    SECTION("16 bytes by default, 32 with key-length 32; each key fresh, an XTS pair's halves differ") {
        for (size_t len : {size_t{0}, size_t{16}, size_t{32}}) {
            INFO("key-length " << len);
            const size_t want = len == 0 ? 16 : len;
            ERR_clear_error();
            SkeyPtr k1 = generate_sm4(prov.libctx(), len), k2 = generate_sm4(prov.libctx(), len);
            REQUIRE(k1 != nullptr);  // NULL before hwaccel could generate
            REQUIRE(k2 != nullptr);
            CHECK(ERR_peek_error() == 0);
            CHECK(std::string(EVP_SKEY_get0_provider_name(k1.get())) == "hwaccel");
            CHECK(std::string(EVP_SKEY_get0_skeymgmt_name(k1.get())) == "SM4-SECRET");
            const Bytes b1 = raw_of(k1.get()), b2 = raw_of(k2.get());
            CHECK(b1.size() == want);
            CHECK(b2.size() == want);
            CHECK(b1 != b2);
            if (want == 32) CHECK(!std::equal(b1.begin(), b1.begin() + 16, b1.begin() + 16));
        }
    }
    SECTION("the key-length generation takes is listed") {
        EVP_SKEYMGMT* mgmt = EVP_SKEYMGMT_fetch(prov.libctx(), "SM4-SECRET", "provider=hwaccel");
        REQUIRE(mgmt != nullptr);
        const OSSL_PARAM* settable = EVP_SKEYMGMT_get0_gen_settable_params(mgmt);
        REQUIRE(settable != nullptr);
        CHECK(OSSL_PARAM_locate_const(settable, OSSL_SKEY_PARAM_KEY_LENGTH) != nullptr);
        EVP_SKEYMGMT_free(mgmt);
    }
    SECTION("generated keys key SM4-CBC and SM4-XTS: what their raw bytes give, and back") {
        struct Alg {
            const char* name;
            size_t key_len;
        };
        for (const Alg& alg : {Alg{"SM4-CBC", 16}, Alg{"SM4-XTS", 32}}) {
            INFO(alg.name);
            CipherPtr c = prov.cipher(alg.name);
            SkeyPtr skey = generate_sm4(prov.libctx(), alg.key_len);
            REQUIRE(skey != nullptr);
            const Bytes key = raw_of(skey.get()), iv = rng.bytes(16), msg = rng.bytes(80);
            REQUIRE(key.size() == alg.key_len);
            Bytes no_tag;
            const Bytes enc = crypt(c.get(), true, skey.get(), key, iv, msg, &no_tag);
            CHECK(enc == crypt(c.get(), true, nullptr, key, iv, msg, &no_tag));
            CHECK(enc != msg);
            CHECK(crypt(c.get(), false, skey.get(), key, iv, enc, &no_tag) == msg);
        }
    }
    SECTION("a 16-byte key is refused for SM4-XTS, a 32-byte one for SM4-CBC") {
        SkeyPtr s16 = generate_sm4(prov.libctx(), 16), s32 = generate_sm4(prov.libctx(), 32);
        REQUIRE(s16 != nullptr);
        REQUIRE(s32 != nullptr);
        check_wrong_length_refused(prov, s16.get(), s32.get());
    }
    SECTION("other lengths are refused with an error") {
        for (size_t len : {size_t{1}, size_t{15}, size_t{17}, size_t{24}, size_t{33}, size_t{64}, SIZE_MAX}) {
            INFO("key-length " << len);
            ERR_clear_error();
            CHECK(generate_sm4(prov.libctx(), len) == nullptr);
            CHECK(is_openssl_error(ERR_peek_last_error(), ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH));
        }
        int minus = -16;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_int(OSSL_SKEY_PARAM_KEY_LENGTH, &minus), OSSL_PARAM_END};
        ERR_clear_error();
        CHECK(EVP_SKEY_generate(prov.libctx(), "SM4-SECRET", "provider=hwaccel", p) == nullptr);
        CHECK(is_openssl_error(ERR_peek_last_error(), ERR_LIB_PROV, PROV_R_FAILED_TO_GET_PARAMETER));
        ERR_clear_error();
    }
    SECTION("key-length named twice: refused from 3.6 on, as the default's decoders refuse; the first before") {
        size_t a = 32, b = 16;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_SKEY_PARAM_KEY_LENGTH, &a),
                          OSSL_PARAM_construct_size_t(OSSL_SKEY_PARAM_KEY_LENGTH, &b), OSSL_PARAM_END};
        ERR_clear_error();
        SkeyPtr k(EVP_SKEY_generate(prov.libctx(), "SM4-SECRET", "provider=hwaccel", p));
        if (OpenSSL_version_num() >= 0x30600000L) {
            CHECK(k == nullptr);
            CHECK(take_errors().find("repeated") != std::string::npos);
        } else {
            REQUIRE(k != nullptr);
            CHECK(raw_of(k.get()).size() == 32);
        }
        ERR_clear_error();
    }
    SECTION("the default provider's key managements generate nothing (3.5-4.0)") {
        // Its GENERIC-SECRET (the fallback of a name no key management has)
        // has no generate function: EVP_SKEY_generate fails without an error.
        ERR_clear_error();
        CHECK(EVP_SKEY_generate(prov.libctx(), "GENERIC-SECRET", "provider=default", nullptr) == nullptr);
        CHECK(ERR_peek_error() == 0);
        CHECK(EVP_SKEY_generate(prov.libctx(), "SM4", nullptr, nullptr) == nullptr);
        ERR_clear_error();
    }
}

#endif
