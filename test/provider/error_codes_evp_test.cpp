// The same refusal gets the same error code from hwaccel as from OpenSSL's
// default provider: ERR_GET_LIB and ERR_GET_REASON of the last error on the
// queue are equal (applications and bindings such as pyca/cryptography
// branch on them, e.g. ERR_LIB_PROV with PROV_R_BAD_DECRYPT).
//
// Both providers are driven through their own dispatch tables, loaded into
// one library context with the real core, so lengths EVP never passes reach
// them too. Each case names the reason the default provider raises (from its
// sources, providers/implementations/ciphers and digests), and hwaccel must
// raise exactly that code whether or not the running OpenSSL's default can
// be asked: 3.0 has no SM4-GCM/CCM/XTS, and some refusals are newer than 3.0
// (num out of range from 3.5, repeated parameters from 3.6). Where the
// default provider refuses without an error or accepts, the case says so
// (`default_differs`) and only hwaccel's code is checked.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/proverr.h>
#include <openssl/provider.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <strings.h>
#include <vector>

#include "errors.hpp"
#include "fake_core.hpp"
#include "provider_fixture.hpp"

using namespace hwaccel::test;

namespace {

constexpr int kNotRun = -1000;  // the case does not apply to this side
// PROV_R_REPEATED_PARAMETER (OpenSSL 3.6+; not in the 3.0 headers).
constexpr int kRepeatedParameter = 252;

// The implementation of `name` (its first name) for `op` in `prov`, or null.
const OSSL_DISPATCH* implementation(OSSL_PROVIDER* prov, int op, const char* name) {
    int no_cache = 0;
    const OSSL_ALGORITHM* a = OSSL_PROVIDER_query_operation(prov, op, &no_cache);
    const size_t n = std::strlen(name);
    for (; a != nullptr && a->algorithm_names != nullptr; ++a) {
        const char* names = a->algorithm_names;
        if (strncasecmp(names, name, n) == 0 && (names[n] == ':' || names[n] == '\0'))
            return a->implementation;
    }
    return nullptr;
}

struct Side {
    const OSSL_DISPATCH* table;
    void* provctx;
    bool is_default;
};

// A cipher context of one side, freed with the object.
struct Cipher {
    CipherFns f;
    void* ctx;
    explicit Cipher(const Side& s) : f(s.table), ctx(f.newctx(s.provctx)) { REQUIRE(ctx != nullptr); }
    ~Cipher() { f.freectx(ctx); }
    Cipher(const Cipher&) = delete;
    Cipher& operator=(const Cipher&) = delete;
    int set(const OSSL_PARAM* p) { return f.set_ctx_params(ctx, p); }
    int get(OSSL_PARAM* p) { return f.get_ctx_params(ctx, p); }
    // One parameter: n zero bytes set, n bytes asked for, a size_t set.
    int set_octets(const char* key, size_t n) {
        unsigned char v[16] = {0};
        OSSL_PARAM p[] = {OSSL_PARAM_octet_string(key, v, n), OSSL_PARAM_END};
        return set(p);
    }
    int get_octets(const char* key, size_t n) {
        unsigned char v[16];
        OSSL_PARAM p[] = {OSSL_PARAM_octet_string(key, v, n), OSSL_PARAM_END};
        return get(p);
    }
    int set_size(const char* key, size_t v) {
        OSSL_PARAM p[] = {OSSL_PARAM_size_t(key, &v), OSSL_PARAM_END};
        return set(p);
    }
};

struct Digest {
    DigestFns f;
    void* ctx;
    explicit Digest(const Side& s) : f(s.table), ctx(f.newctx(s.provctx)) { REQUIRE(ctx != nullptr); }
    ~Digest() { f.freectx(ctx); }
    Digest(const Digest&) = delete;
    Digest& operator=(const Digest&) = delete;
};

struct Case {
    const char* algorithm;
    int op;  // OSSL_OP_CIPHER or OSSL_OP_DIGEST
    const char* what;
    int reason;        // the default provider's reason, in library PROV: hwaccel's last error
    int first_reason;  // 0, or a reason the default raises before it (hwaccel too)
    const char* default_differs;  // nullptr: every default that has the algorithm refuses so
    std::function<int(const Side&)> run;  // the refused call's result, or kNotRun
};

const unsigned char kKey[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
const unsigned char kIv[16] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6};
unsigned char g_in[64];
unsigned char g_out[80];
size_t g_outl;

const char* const kGenericModes[] = {"SM4-ECB", "SM4-CBC", "SM4-CTR", "SM4-OFB", "SM4-CFB"};
const char* const kBlockModes[] = {"SM4-ECB", "SM4-CBC"};
const char* const kIvModes[] = {"SM4-CBC", "SM4-CTR", "SM4-OFB", "SM4-CFB"};

// Init with kKey and kIv (keylen and ivlen of them).
int keyed(Cipher& c, bool encrypt = true, size_t keylen = 16, size_t ivlen = 16) {
    return encrypt ? c.f.einit(c.ctx, kKey, keylen, kIv, ivlen, nullptr)
                   : c.f.dinit(c.ctx, kKey, keylen, kIv, ivlen, nullptr);
}

std::vector<Case> cases() {
    std::vector<Case> out;
    // The generic modes (providers/implementations/ciphers/ciphercommon*.c).
    for (const char* m : kGenericModes) {
        out.push_back({m, OSSL_OP_CIPHER, "init with a 15-byte key", PROV_R_INVALID_KEY_LENGTH, 0, nullptr,
                       [](const Side& s) { Cipher c(s); return keyed(c, true, 15, 16); }});
        out.push_back({m, OSSL_OP_CIPHER, "update before a key", PROV_R_NO_KEY_SET, 0, nullptr, [](const Side& s) {
                           Cipher c(s);
                           REQUIRE(c.f.einit(c.ctx, nullptr, 0, nullptr, 0, nullptr) == 1);
                           return c.f.update(c.ctx, g_out, &g_outl, sizeof g_out, g_in, 16);
                       }});
        out.push_back({m, OSSL_OP_CIPHER, "update: outsize 15 for 16 bytes", PROV_R_OUTPUT_BUFFER_TOO_SMALL, 0,
                       nullptr, [](const Side& s) {
                           Cipher c(s);
                           REQUIRE(keyed(c) == 1);
                           return c.f.update(c.ctx, g_out, &g_outl, 15, g_in, 16);
                       }});
        out.push_back({m, OSSL_OP_CIPHER, "padding as a UTF-8 string", PROV_R_FAILED_TO_GET_PARAMETER, 0, nullptr,
                       [](const Side& s) {
                           Cipher c(s);
                           REQUIRE(keyed(c) == 1);
                           char v[] = "0";
                           OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_PADDING, v, 1), OSSL_PARAM_END};
                           return c.set(p);
                       }});
        out.push_back({m, OSSL_OP_CIPHER, "num = 16", PROV_R_FAILED_TO_GET_PARAMETER, 0,
                       "3.0's default accepts any num (3.5's refuses it)", [](const Side& s) {
                           Cipher c(s);
                           REQUIRE(keyed(c) == 1);
                           unsigned v = 16;
                           OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &v), OSSL_PARAM_END};
                           return c.set(p);
                       }});
        out.push_back({m, OSSL_OP_CIPHER, "padding given twice", kRepeatedParameter, 0,
                       "the default before 3.6 (and hwaccel there) takes the first", [](const Side& s) {
                           if (!s.is_default && OpenSSL_version_num() < 0x30600000L) return kNotRun;
                           Cipher c(s);
                           REQUIRE(keyed(c) == 1);
                           unsigned a = 1, b = 0;
                           OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &a),
                                             OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &b), OSSL_PARAM_END};
                           return c.set(p);
                       }});
        out.push_back({m, OSSL_OP_CIPHER, "keylen into a UTF-8 string", PROV_R_FAILED_TO_SET_PARAMETER, 0, nullptr,
                       [](const Side& s) {
                           Cipher c(s);
                           char v[8];
                           OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_KEYLEN, v, sizeof v),
                                             OSSL_PARAM_END};
                           return c.get(p);
                       }});
    }
    for (const char* m : kIvModes)
        out.push_back({m, OSSL_OP_CIPHER, "init with an 8-byte IV", PROV_R_INVALID_IV_LENGTH, 0, nullptr,
                       [](const Side& s) { Cipher c(s); return keyed(c, true, 16, 8); }});
    for (const char* m : kBlockModes) {
        out.push_back({m, OSSL_OP_CIPHER, "encrypt final: padding off, 5 bytes left", PROV_R_WRONG_FINAL_BLOCK_LENGTH,
                       0, nullptr, [](const Side& s) {
                           Cipher c(s);
                           unsigned zero = 0;
                           OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &zero), OSSL_PARAM_END};
                           REQUIRE(c.f.einit(c.ctx, kKey, 16, kIv, 16, p) == 1);
                           REQUIRE(c.f.update(c.ctx, g_out, &g_outl, sizeof g_out, g_in, 5) == 1);
                           return c.f.final(c.ctx, g_out, &g_outl, sizeof g_out);
                       }});
        out.push_back({m, OSSL_OP_CIPHER, "decrypt final after 7 bytes", PROV_R_WRONG_FINAL_BLOCK_LENGTH, 0, nullptr,
                       [](const Side& s) {
                           Cipher c(s);
                           REQUIRE(keyed(c, false) == 1);
                           REQUIRE(c.f.update(c.ctx, g_out, &g_outl, sizeof g_out, g_in, 7) == 1);
                           return c.f.final(c.ctx, g_out, &g_outl, sizeof g_out);
                       }});
        out.push_back({m, OSSL_OP_CIPHER, "decrypt final: bad padding", PROV_R_BAD_DECRYPT, 0, nullptr,
                       [](const Side& s) {
                           // A block whose plaintext ends in 0: never valid padding.
                           unsigned char zeros[16] = {0}, block[16];
                           size_t n = 0;
                           {
                               Cipher e(s);
                               unsigned zero = 0;
                               OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &zero), OSSL_PARAM_END};
                               REQUIRE(e.f.einit(e.ctx, kKey, 16, kIv, 16, p) == 1);
                               REQUIRE(e.f.update(e.ctx, block, &n, sizeof block, zeros, 16) == 1);
                               REQUIRE(n == 16);
                           }
                           Cipher c(s);
                           REQUIRE(keyed(c, false) == 1);
                           REQUIRE(c.f.update(c.ctx, g_out, &g_outl, sizeof g_out, block, 16) == 1);
                           return c.f.final(c.ctx, g_out, &g_outl, sizeof g_out);
                       }});
        out.push_back({m, OSSL_OP_CIPHER, "encrypt final: outsize 15 for the padding block",
                       PROV_R_OUTPUT_BUFFER_TOO_SMALL, 0, nullptr, [](const Side& s) {
                           Cipher c(s);
                           REQUIRE(keyed(c) == 1);
                           REQUIRE(c.f.update(c.ctx, g_out, &g_outl, sizeof g_out, g_in, 5) == 1);
                           return c.f.final(c.ctx, g_out, &g_outl, 15);
                       }});
    }

    // SM4-XTS (cipher_sm4_xts.c: its update adds CIPHER_OPERATION_FAILED
    // over whatever its cipher routine refused).
    out.push_back({"SM4-XTS", OSSL_OP_CIPHER, "init with a 16-byte key", PROV_R_INVALID_KEY_LENGTH, 0, nullptr,
                   [](const Side& s) { Cipher c(s); return keyed(c, true, 16, 16); }});
    out.push_back({"SM4-XTS", OSSL_OP_CIPHER, "init with an 8-byte tweak", PROV_R_INVALID_IV_LENGTH, 0, nullptr,
                   [](const Side& s) { Cipher c(s); return keyed(c, true, 32, 8); }});
    out.push_back({"SM4-XTS", OSSL_OP_CIPHER, "encrypt init with equal key halves", PROV_R_XTS_DUPLICATED_KEYS, 0,
                   "the default's SM4-XTS accepts them (its AES-XTS refuses them with this code)",
                   [](const Side& s) {
                       unsigned char same[32];
                       std::memcpy(same, kKey, 16);
                       std::memcpy(same + 16, kKey, 16);
                       Cipher c(s);
                       return c.f.einit(c.ctx, same, 32, kIv, 16, nullptr);
                   }});
    out.push_back({"SM4-XTS", OSSL_OP_CIPHER, "update with 15 bytes", PROV_R_CIPHER_OPERATION_FAILED, 0, nullptr,
                   [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(keyed(c, true, 32, 16) == 1);
                       return c.f.update(c.ctx, g_out, &g_outl, sizeof g_out, g_in, 15);
                   }});
    out.push_back({"SM4-XTS", OSSL_OP_CIPHER, "update before a key", PROV_R_CIPHER_OPERATION_FAILED, 0, nullptr,
                   [](const Side& s) {
                       Cipher c(s);
                       return c.f.update(c.ctx, g_out, &g_outl, sizeof g_out, g_in, 32);
                   }});
    out.push_back({"SM4-XTS", OSSL_OP_CIPHER, "update with 2^20 blocks and one more",
                   PROV_R_CIPHER_OPERATION_FAILED, PROV_R_XTS_DATA_UNIT_IS_TOO_LARGE, nullptr, [](const Side& s) {
                       const size_t len = (size_t{1} << 20) * 16 + 16;
                       std::vector<unsigned char> big(len);
                       Cipher c(s);
                       REQUIRE(keyed(c, true, 32, 16) == 1);
                       return c.f.update(c.ctx, big.data(), &g_outl, len, big.data(), len);
                   }});
    out.push_back({"SM4-XTS", OSSL_OP_CIPHER, "update: outsize 31 for 32 bytes", PROV_R_OUTPUT_BUFFER_TOO_SMALL, 0,
                   nullptr, [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(keyed(c, true, 32, 16) == 1);
                       return c.f.update(c.ctx, g_out, &g_outl, 31, g_in, 32);
                   }});
    out.push_back({"SM4-XTS", OSSL_OP_CIPHER, "xts_standard \"XX\"", PROV_R_FAILED_TO_SET_PARAMETER, 0, nullptr,
                   [](const Side& s) {
                       Cipher c(s);
                       char v[] = "XX";
                       OSSL_PARAM p[] = {OSSL_PARAM_utf8_string("xts_standard", v, 2), OSSL_PARAM_END};
                       return c.set(p);
                   }});

    // SM4-GCM (ciphercommon_gcm.c).
    out.push_back({"SM4-GCM", OSSL_OP_CIPHER, "init with a 15-byte key", PROV_R_INVALID_KEY_LENGTH, 0, nullptr,
                   [](const Side& s) { Cipher c(s); return keyed(c, true, 15, 12); }});
    out.push_back({"SM4-GCM", OSSL_OP_CIPHER, "init with a 0-byte IV", PROV_R_INVALID_IV_LENGTH, 0, nullptr,
                   [](const Side& s) { Cipher c(s); return keyed(c, true, 16, 0); }});
    out.push_back({"SM4-GCM", OSSL_OP_CIPHER, "ivlen 0", PROV_R_INVALID_IV_LENGTH, 0, nullptr, [](const Side& s) {
                       Cipher c(s);
                       return c.set_size(OSSL_CIPHER_PARAM_AEAD_IVLEN, 0);
                   }});
    out.push_back({"SM4-GCM", OSSL_OP_CIPHER, "a tag set to encrypt", PROV_R_INVALID_TAG, 0, nullptr,
                   [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(keyed(c, true, 16, 12) == 1);
                       return c.set_octets(OSSL_CIPHER_PARAM_AEAD_TAG, 16);
                   }});
    out.push_back({"SM4-GCM", OSSL_OP_CIPHER, "the tag read before final", PROV_R_INVALID_TAG, 0, nullptr,
                   [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(keyed(c, true, 16, 12) == 1);
                       return c.get_octets(OSSL_CIPHER_PARAM_AEAD_TAG, 16);
                   }});
    out.push_back({"SM4-GCM", OSSL_OP_CIPHER, "a 5-byte tlsaad", PROV_R_INVALID_AAD, 0, nullptr, [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(keyed(c, true, 16, 12) == 1);
                       return c.set_octets(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, 5);
                   }});
    out.push_back({"SM4-GCM", OSSL_OP_CIPHER, "update before a key", PROV_R_CIPHER_OPERATION_FAILED, 0, nullptr,
                   [](const Side& s) {
                       Cipher c(s);
                       return c.f.update(c.ctx, g_out, &g_outl, sizeof g_out, g_in, 16);
                   }});
    out.push_back({"SM4-GCM", OSSL_OP_CIPHER, "update: outsize 15 for 16 bytes", PROV_R_OUTPUT_BUFFER_TOO_SMALL, 0,
                   nullptr, [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(keyed(c, true, 16, 12) == 1);
                       return c.f.update(c.ctx, g_out, &g_outl, 15, g_in, 16);
                   }});
    out.push_back({"SM4-GCM", OSSL_OP_CIPHER, "decrypt final: tag mismatch", PROV_R_BAD_DECRYPT, 0,
                   "the default's final fails without an error", [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(keyed(c, false, 16, 12) == 1);
                       REQUIRE(c.f.update(c.ctx, g_out, &g_outl, sizeof g_out, g_in, 16) == 1);
                       REQUIRE(c.set_octets(OSSL_CIPHER_PARAM_AEAD_TAG, 16) == 1);
                       return c.f.final(c.ctx, g_out, &g_outl, sizeof g_out);
                   }});

    // SM4-CCM (ciphercommon_ccm.c: its update adds CIPHER_OPERATION_FAILED
    // over every refusal of its cipher routine, the tag check's included).
    out.push_back({"SM4-CCM", OSSL_OP_CIPHER, "init with a 15-byte key", PROV_R_INVALID_KEY_LENGTH, 0, nullptr,
                   [](const Side& s) { Cipher c(s); return keyed(c, true, 15, 7); }});
    out.push_back({"SM4-CCM", OSSL_OP_CIPHER, "init with a 12-byte nonce (ivlen 7)", PROV_R_INVALID_IV_LENGTH, 0,
                   nullptr, [](const Side& s) { Cipher c(s); return keyed(c, true, 16, 12); }});
    out.push_back({"SM4-CCM", OSSL_OP_CIPHER, "ivlen 20", PROV_R_INVALID_IV_LENGTH, 0, nullptr, [](const Side& s) {
                       Cipher c(s);
                       return c.set_size(OSSL_CIPHER_PARAM_AEAD_IVLEN, 20);
                   }});
    out.push_back({"SM4-CCM", OSSL_OP_CIPHER, "a 5-byte tag", PROV_R_INVALID_TAG_LENGTH, 0, nullptr,
                   [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(c.f.dinit(c.ctx, nullptr, 0, nullptr, 0, nullptr) == 1);
                       return c.set_octets(OSSL_CIPHER_PARAM_AEAD_TAG, 5);
                   }});
    out.push_back({"SM4-CCM", OSSL_OP_CIPHER, "a tag given to encrypt", PROV_R_TAG_NOT_NEEDED, 0, nullptr,
                   [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(keyed(c, true, 16, 7) == 1);
                       return c.set_octets(OSSL_CIPHER_PARAM_AEAD_TAG, 16);
                   }});
    out.push_back({"SM4-CCM", OSSL_OP_CIPHER, "the tag read before the payload", PROV_R_TAG_NOT_SET, 0, nullptr,
                   [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(keyed(c, true, 16, 7) == 1);
                       return c.get_octets(OSSL_CIPHER_PARAM_AEAD_TAG, 16);
                   }});
    out.push_back({"SM4-CCM", OSSL_OP_CIPHER, "a 5-byte tlsaad", PROV_R_INVALID_DATA, 0, nullptr, [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(keyed(c, true, 16, 7) == 1);
                       return c.set_octets(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, 5);
                   }});
    out.push_back({"SM4-CCM", OSSL_OP_CIPHER, "update before a key", PROV_R_CIPHER_OPERATION_FAILED, 0, nullptr,
                   [](const Side& s) {
                       Cipher c(s);
                       return c.f.update(c.ctx, g_out, &g_outl, sizeof g_out, g_in, 16);
                   }});
    out.push_back({"SM4-CCM", OSSL_OP_CIPHER, "decrypt with no tag set", PROV_R_CIPHER_OPERATION_FAILED, 0, nullptr,
                   [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(keyed(c, false, 16, 7) == 1);
                       return c.f.update(c.ctx, g_out, &g_outl, sizeof g_out, g_in, 16);
                   }});
    out.push_back({"SM4-CCM", OSSL_OP_CIPHER, "decrypt: tag mismatch", PROV_R_CIPHER_OPERATION_FAILED, 0, nullptr,
                   [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(keyed(c, false, 16, 7) == 1);
                       REQUIRE(c.set_octets(OSSL_CIPHER_PARAM_AEAD_TAG, 16) == 1);
                       return c.f.update(c.ctx, g_out, &g_outl, sizeof g_out, g_in, 16);
                   }});
    out.push_back({"SM4-CCM", OSSL_OP_CIPHER, "update: outsize 15 for 16 bytes", PROV_R_OUTPUT_BUFFER_TOO_SMALL, 0,
                   nullptr, [](const Side& s) {
                       Cipher c(s);
                       REQUIRE(keyed(c, true, 16, 7) == 1);
                       return c.f.update(c.ctx, g_out, &g_outl, 15, g_in, 16);
                   }});

    // SHAKE (digests/sha3_prov.c).
    out.push_back({"SHAKE-128", OSSL_OP_DIGEST, "xoflen as a UTF-8 string", PROV_R_FAILED_TO_GET_PARAMETER, 0,
                   nullptr, [](const Side& s) {
                       Digest d(s);
                       REQUIRE(d.f.init(d.ctx, nullptr) == 1);
                       char v[] = "40";
                       OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_DIGEST_PARAM_XOFLEN, v, 2), OSSL_PARAM_END};
                       return d.f.set_ctx_params(d.ctx, p);
                   }});
    out.push_back({"SHAKE-128", OSSL_OP_DIGEST, "final with xoflen SIZE_MAX", PROV_R_INVALID_DIGEST_LENGTH, 0,
                   "3.0-3.3's default writes SIZE_MAX bytes (not run there)", [](const Side& s) {
                       if (s.is_default && shake_has_default_length()) return kNotRun;
                       Digest d(s);
                       size_t v = SIZE_MAX;
                       OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &v), OSSL_PARAM_END};
                       REQUIRE(d.f.init(d.ctx, p) == 1);
                       return d.f.final(d.ctx, g_out, &g_outl, sizeof g_out);
                   }});
    out.push_back({"SHAKE-128", OSSL_OP_DIGEST, "xoflen and size given together", kRepeatedParameter, 0,
                   "the default before 3.6 (and hwaccel there) takes xoflen", [](const Side& s) {
                       if (!s.is_default && OpenSSL_version_num() < 0x30600000L) return kNotRun;
                       Digest d(s);
                       REQUIRE(d.f.init(d.ctx, nullptr) == 1);
                       size_t a = 5, b = 6;
                       OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &a),
                                         OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, &b), OSSL_PARAM_END};
                       return d.f.set_ctx_params(d.ctx, p);
                   }});
    return out;
}

}  // namespace

TEST_CASE("errors: hwaccel raises the default provider's code for the same refusal",
          "[provider][errors]") {
    LoadedProvider prov;
    std::memset(g_in, 0x5a, sizeof g_in);
    int compared = 0;
    for (const Case& c : cases()) {
        INFO(c.algorithm << ": " << c.what);
        const OSSL_DISPATCH* ours = implementation(prov.hwaccel(), c.op, c.algorithm);
        REQUIRE(ours != nullptr);
        ERR_clear_error();
        const int our_rc = c.run({ours, OSSL_PROVIDER_get0_provider_ctx(prov.hwaccel()), false});
        if (our_rc == kNotRun) continue;
        const ErrorCodes our = take_error_codes();
        INFO("hwaccel: " << our.text);
        CHECK(our_rc <= 0);
        CHECK(is_openssl_error(our.last(), ERR_LIB_PROV, c.reason));
        if (c.first_reason != 0) CHECK(has_openssl_error(our, ERR_LIB_PROV, c.first_reason));

        const OSSL_DISPATCH* theirs = implementation(prov.default_provider(), c.op, c.algorithm);
        if (theirs == nullptr) continue;  // not in this release's default provider
        const int their_rc = c.run({theirs, OSSL_PROVIDER_get0_provider_ctx(prov.default_provider()), true});
        if (their_rc == kNotRun) continue;
        const ErrorCodes their = take_error_codes();
        INFO("default: rc " << their_rc << ", " << their.text);
        if (their_rc > 0 || their.codes.empty()) {
            // Only where the case says the default differs.
            CHECK(c.default_differs != nullptr);
            continue;
        }
        ++compared;
        CHECK(ERR_GET_LIB(our.last()) == ERR_GET_LIB(their.last()));
        CHECK(ERR_GET_REASON(our.last()) == ERR_GET_REASON(their.last()));
        if (c.first_reason != 0) CHECK(has_openssl_error(their, ERR_LIB_PROV, c.first_reason));
    }
    // Every release's default has the generic SM4 modes: those at least
    // were compared.
    CHECK(compared >= 30);
}

TEST_CASE("errors: hwaccel's own reasons are told by their number, whatever the library number",
          "[provider][errors]") {
    // After a final only init may follow: the default provider has no such
    // refusal, so the reason is hwaccel's own, in the library the core gave
    // this load of the module (it wraps after 128 loads in a process).
    LoadedProvider prov;
    const OSSL_DISPATCH* t = implementation(prov.hwaccel(), OSSL_OP_CIPHER, "SM4-CBC");
    REQUIRE(t != nullptr);
    Cipher c({t, OSSL_PROVIDER_get0_provider_ctx(prov.hwaccel()), false});
    REQUIRE(keyed(c) == 1);
    REQUIRE(c.f.final(c.ctx, g_out, &g_outl, sizeof g_out) == 1);
    ERR_clear_error();
    CHECK(c.f.final(c.ctx, g_out, &g_outl, sizeof g_out) == 0);
    const ErrorCodes e = take_error_codes();
    INFO(e.text);
    REQUIRE(e.codes.size() == 1);
    CHECK(has_hwaccel_error(e, hwaccel::kErrFinalCalledTwice));
    CHECK_FALSE(has_hwaccel_error(e, hwaccel::kErrUpdateAfterFinal));
}

TEST_CASE("errors: codes stay right after the module's library number wrapped",
          "[provider][errors][wrap]") {
    // Each load into a library context (a new OSSL_PROVIDER) takes the next
    // library number, kept to 8 bits in an error code: 260 loads pass through
    // every value, OpenSSL's own libraries (0, 1 = SYS, ..., 57 = PROV)
    // included. At each, the codes shared with the default provider and
    // hwaccel's own reason must still be recognised and told apart. (Later
    // tests in this process then run with a wrapped number too.)
    std::vector<int> libs;
    for (int i = 0; i < 260; ++i) {
        OSSL_LIB_CTX* libctx = OSSL_LIB_CTX_new();
        REQUIRE(libctx != nullptr);
        OSSL_PROVIDER_set_default_search_path(libctx, HWACCEL_MODULE_DIR);
        OSSL_PROVIDER* p = OSSL_PROVIDER_load(libctx, "hwaccel");
        REQUIRE(p != nullptr);
        {
            const OSSL_DISPATCH* t = implementation(p, OSSL_OP_CIPHER, "SM4-CBC");
            REQUIRE(t != nullptr);
            Cipher c({t, OSSL_PROVIDER_get0_provider_ctx(p), false});
            ERR_clear_error();
            CHECK(c.f.einit(c.ctx, kKey, 15, kIv, 16, nullptr) == 0);
            ErrorCodes e = take_error_codes();
            INFO("load " << i << ": " << e.text);
            CHECK(is_openssl_error(e.last(), ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH));
            const char* why = ERR_reason_error_string(e.last());
            CHECK(std::string(why != nullptr ? why : "") == "invalid key length");
            REQUIRE(keyed(c) == 1);
            REQUIRE(c.f.final(c.ctx, g_out, &g_outl, sizeof g_out) == 1);
            CHECK(c.f.final(c.ctx, g_out, &g_outl, sizeof g_out) == 0);
            e = take_error_codes();
            INFO("then " << e.text);
            CHECK(e.codes.size() == 1);
            CHECK(has_hwaccel_error(e, hwaccel::kErrFinalCalledTwice));
            CHECK_FALSE(has_openssl_error(e, ERR_LIB_PROV, PROV_R_INVALID_KEY_LENGTH));
            libs.push_back(ERR_GET_LIB(e.last()));
        }
        OSSL_PROVIDER_unload(p);
        OSSL_LIB_CTX_free(libctx);
    }
    // The number did go round: hwaccel's own errors came under 0 and under
    // OpenSSL's library PROV at some load.
    CHECK(std::find(libs.begin(), libs.end(), 0) != libs.end());
    CHECK(std::find(libs.begin(), libs.end(), ERR_LIB_PROV) != libs.end());
}
