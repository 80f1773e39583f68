// SM4-XTS (GB/T 17964-2021 and IEEE Std 1619) with the default provider's
// names, parameters and behaviour (OpenSSL 3.6/4.0,
// providers/implementations/ciphers/cipher_sm4_xts.c): a 32-byte key (data
// key, then tweak key), a 16-byte IV (the tweak), "xts_standard" "GB" (the
// default) or "IEEE", and each update is one whole data unit of 16 bytes to
// 2^20 blocks under the IV as set: a second update starts the unit again.
// Final adds nothing.
//
// Beyond the default provider's SM4-XTS: encryption under a key whose halves
// are equal is refused, as its AES-XTS does (IEEE Std 1619-2018 5.1; the
// halves must differ); decryption stays allowed, as there, so such data can
// still be read.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>
#include <type_traits>

#include "cipher/cipher_functions.hpp"
#include "cipher/cipher_params.hpp"
#include "cipher/ciphers.hpp"
#include "cipher/sm4_xts_mode.hpp"
#include "constant_time_equal.hpp"
#include "errors.hpp"
#include "param_integers.hpp"
#include "param_locate.hpp"
#include "param_strings.hpp"
#include "wipe.hpp"
#include "lengths.hpp"
#include "openssl_version.hpp"
#include "params.hpp"
#include "prov_ctx.hpp"

namespace hwaccel {
namespace {

// OPENSSL_strcasecmp's rule (ASCII only, whatever the locale) without
// libcrypto: the module calls no libcrypto function.
// a: the parameter's n bytes (no NUL needed), b: a C string.
bool same_ascii_nocase(const char* a, size_t n, const char* b) {
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
    size_t i = 0;
    for (; i < n && b[i] != '\0'; ++i)
        if (lower(a[i]) != lower(b[i])) return false;
    return i == n && b[i] == '\0';
}

constexpr size_t kKeyLen = 32, kHalf = 16, kIvLen = 16;
// OSSL_CIPHER_PARAM_XTS_STANDARD and OSSL_CIPHER_PARAM_ENCRYPT_THEN_MAC are
// not in OpenSSL 3.0's headers.
constexpr const char kXtsStandard[] = "xts_standard";

struct XtsCtx {
    const ProvCtx* prov;
    Sm4XtsKey key;
    uint8_t iv[kIvLen];
    XtsStandard standard;
    bool encrypting;
    bool key_set;
    bool iv_set;
    bool halves_equal;  // of the key set
};
static_assert(std::is_trivially_copyable_v<XtsCtx>);

// Reads "xts_standard" if given; changes nothing on a refusal.
bool read_standard(const XtsCtx* ctx, const OSSL_PARAM params[], XtsStandard& standard) {
    if (params == nullptr) return true;
    if (xts_refuses_repeated_standard() && refuse_repeated(ctx->prov, params, {{kXtsStandard}}))
        return false;
    const OSSL_PARAM* p = hwaccel::params::locate(params, kXtsStandard);
    if (p == nullptr) return true;
    const char* value = static_cast<const char*>(p->data);
    if (p->data_type != OSSL_PARAM_UTF8_STRING || value == nullptr) {
        raise_error(ctx->prov, kErrFailedToGetParameter, "xts_standard must be a UTF-8 string");
        return false;
    }
    // The string ends at its NUL or at data_size, whichever comes first
    // (the default provider compares up to the NUL, past data_size if the
    // caller left none).
    const size_t value_len = strnlen(value, p->data_size);
    if (same_ascii_nocase(value, value_len, "GB")) {
        standard = XtsStandard::kGb;
    } else if (same_ascii_nocase(value, value_len, "IEEE")) {
        standard = XtsStandard::kIeee;
    } else {
        // FAILED_TO_SET_PARAMETER: the default provider's code for this value.
        raise_error(ctx->prov, kErrFailedToSetParameter, "xts_standard must be \"GB\" or \"IEEE\"");
        return false;
    }
    return true;
}

// One data unit, after every check; max_len bounds what the entry point can
// be passed honestly (EVP's update took an int). The refusals the default
// provider also makes end in its code for them, CIPHER_OPERATION_FAILED.
int crypt_unit(XtsCtx* ctx, unsigned char* out, size_t outsize, const unsigned char* in,
               size_t inl, size_t max_len) {
    if (!ctx->key_set) {
        raise_error(ctx->prov, kErrCipherOperationFailed, "no key set");
        return 0;
    }
    if (!ctx->iv_set) {
        raise_error(ctx->prov, kErrCipherOperationFailed, "no IV (tweak) set");
        return 0;
    }
    // Before any other use of inl: a negative int arrives near 2^64.
    if (inl > max_len || !is_real_buffer(in, inl)) {
        raise_error(ctx->prov, kErrInvalidLength,
                    "input length %zu cannot be a buffer (a negative int?)", inl);
        return 0;
    }
    if (inl < kXtsMinLength) {
        raise_error(ctx->prov, kErrCipherOperationFailed, "an XTS data unit is at least %zu bytes, got %zu",
                    kXtsMinLength, inl);
        return 0;
    }
    if (inl > kXtsMaxLength) {
        raise_error(ctx->prov, kErrXtsDataUnitTooLarge, "at most %zu bytes, got %zu",
                    kXtsMaxLength, inl);
        raise_error(ctx->prov, kErrCipherOperationFailed);  // the default's last error too
        return 0;
    }
    if (!require_output(ctx->prov, out, outsize, inl)) return 0;
    sm4_xts(ctx->key, ctx->standard,
            ctx->encrypting ? Sm4Direction::kEncrypt : Sm4Direction::kDecrypt, ctx->iv, out, in,
            inl);
    return 1;
}

// What OpenSSL calls (cipher_functions.hpp adds the rest).
struct Sm4Xts {
    using Ctx = XtsCtx;

    static void setup(Ctx& ctx, const ProvCtx& prov) {
        ctx.key.engine = prov.engines.sm4;
        ctx.standard = XtsStandard::kGb;  // the default provider's default
    }

    static int init(Ctx* ctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                    size_t ivlen, const OSSL_PARAM params[], bool encrypt) {
        // Check everything before changing anything.
        if (key != nullptr && keylen != kKeyLen) {
            raise_error(ctx->prov, kErrInvalidKeyLength, "SM4-XTS keys are %zu bytes, got %zu",
                        kKeyLen, keylen);
            return 0;
        }
        if (iv != nullptr && ivlen != kIvLen) {
            raise_error(ctx->prov, kErrInvalidIvLength, "the XTS tweak is %zu bytes, got %zu",
                        kIvLen, ivlen);
            return 0;
        }
        const bool halves_equal =
            key != nullptr ? constant_time_equal(key, key + kHalf, kHalf) : ctx->halves_equal;
        if (encrypt && halves_equal && (key != nullptr || ctx->key_set)) {
            raise_error(ctx->prov, kErrXtsDuplicatedKeys, "the two key halves are equal");
            return 0;
        }
        XtsStandard standard = ctx->standard;
        if (!read_standard(ctx, params, standard)) return 0;
        ctx->encrypting = encrypt;
        ctx->standard = standard;
        if (iv != nullptr) {
            std::memcpy(ctx->iv, iv, kIvLen);
            ctx->iv_set = true;
        }
        if (key != nullptr) {
            // Each overwrites the previous schedule whole; both at once
            // where the engine can (the two chains overlap).
            sm4_set_key_pair(*ctx->key.engine, &ctx->key.data, key, &ctx->key.tweak, key + kHalf);
            ctx->halves_equal = halves_equal;
            ctx->key_set = true;
        }
        return 1;
    }

    static int update(Ctx* ctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) {
        if (!crypt_unit(ctx, out, outsize, in, inl, kMaxCipherUpdateLength)) return 0;
        *outl = inl;
        return 1;
    }

    // EVP_Cipher(): the same one data unit.
    static int cipher(Ctx* ctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) {
        if (!crypt_unit(ctx, out, outsize, in, inl, static_cast<size_t>(PTRDIFF_MAX))) return 0;
        if (outl != nullptr) *outl = inl;
        return 1;
    }

    static int final(Ctx*, unsigned char*, size_t* outl, size_t) {
        *outl = 0;
        return 1;
    }

    // The generic cipher's: the IV never advances, so "iv" and "updated-iv" are
    // the same; padding reads 1 and num 0 as there; no TLS MAC.
    static int get_ctx_params(Ctx* ctx, OSSL_PARAM params[]) {
        if (refuse_repeated_generic_get(ctx->prov, params)) return 0;
        OSSL_PARAM* mac = hwaccel::params::locate(params, OSSL_CIPHER_PARAM_TLS_MAC);
        const bool ok = params::set_size(params, OSSL_CIPHER_PARAM_KEYLEN, kKeyLen) &&
                        params::set_size(params, OSSL_CIPHER_PARAM_IVLEN, kIvLen) &&
                        params::set_uint(params, OSSL_CIPHER_PARAM_PADDING, 1) &&
                        params::set_uint(params, OSSL_CIPHER_PARAM_NUM, 0) &&
                        params::set_octets(params, OSSL_CIPHER_PARAM_IV, ctx->iv, kIvLen) &&
                        params::set_octets(params, OSSL_CIPHER_PARAM_UPDATED_IV, ctx->iv, kIvLen) &&
                        (mac == nullptr || hwaccel::params::set_octet_ptr(mac, nullptr, 0) ||
                         hwaccel::params::set_octet_string(mac, "", 0));
        if (!ok) raise_error(ctx->prov, kErrFailedToSetParameter, "cannot return a parameter");
        return ok ? 1 : 0;
    }

    static int set_ctx_params(Ctx* ctx, const OSSL_PARAM params[]) {
        XtsStandard standard = ctx->standard;
        if (!read_standard(ctx, params, standard)) return 0;
        ctx->standard = standard;
        return 1;
    }

    // The generic cipher's list and "tls-mac", which OpenSSL 3.5's default
    // lists as an octet pointer, 3.6's as an octet string.
    static const OSSL_PARAM* gettable_ctx_params() {
        static const OSSL_PARAM* const g = generic_gettable_ctx_params();
        static_assert(kGenericGettableCtxCount == 6);
        static const OSSL_PARAM table[] = {
            g[0], g[1], g[2], g[3], g[4], g[5],
            OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_TLS_MAC, nullptr, 0),
            OSSL_PARAM_END,
        };
        static const OSSL_PARAM before_36[] = {
            g[0], g[1], g[2], g[3], g[4], g[5],
            OSSL_PARAM_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, nullptr, 0),
            OSSL_PARAM_END,
        };
        return lists_tls_mac_as_octet_string() ? table : before_36;
    }

    static const OSSL_PARAM* settable_ctx_params() {
        static const OSSL_PARAM table[] = {
            OSSL_PARAM_utf8_string(kXtsStandard, nullptr, 0),
            OSSL_PARAM_END,
        };
        return table;
    }

    static CipherFacts facts() { return {EVP_CIPH_XTS_MODE, kKeyLen, kIvLen, 1, false, true}; }
};

}  // namespace

const OSSL_DISPATCH* sm4_xts_functions() { return CipherFunctions<Sm4Xts>::table; }

}  // namespace hwaccel
