// SM4-CCM through EVP, with the default provider's names, parameters and
// calling sequence (OpenSSL 3.6/4.0 providers/implementations/ciphers/
// ciphercommon_ccm.c): ivlen (15 - L) and the tag (its length M on
// encryption, its value on decryption) set before the key, then
//   EVP_CipherUpdate(ctx, NULL, &n, NULL, len)   declares the payload length
//   EVP_CipherUpdate(ctx, NULL, &n, aad, alen)   the AAD, all of it at once
//   EVP_CipherUpdate(ctx, out, &n, in, len)      the payload, all of it at once
// then final and, when encrypting, the tag. The TLS 1.2 record parameters
// (tlsaad, tlsivfixed) work as the default provider's.
//
// Stricter than the default provider (README): a second AAD or payload update,
// a declared length that does not fit in L bytes or differs from the
// payload's, and any AAD or payload after the message's payload are refused
// (the default provider silently restarts the MAC, truncates the length, or
// reuses the nonce); a failed decryption writes nothing, not even zeros; final
// reports a failed or missing decryption; the tag length and L apply to the
// next message whenever they are set (the default provider fixes them when
// the key is set).
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>
#include <new>
#include <type_traits>

#include "cipher/cipher_params.hpp"
#include "cipher/ciphers.hpp"
#include "cipher/sm4_ccm_mode.hpp"
#include "errors.hpp"
#include "memory.hpp"
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

constexpr size_t kKeyLen = 16;
constexpr size_t kCipherIvLen = 12;  // what the default provider's get_params reports
constexpr size_t kDefaultL = 8;      // so the IV is 7 bytes until ivlen is set
constexpr size_t kDefaultTagLen = 12;
constexpr size_t kTlsAadLen = 13;          // EVP_AEAD_TLS1_AAD_LEN
constexpr size_t kTlsFixedIvLen = 4;       // EVP_CCM_TLS_FIXED_IV_LEN
constexpr size_t kTlsExplicitIvLen = 8;    // EVP_CCM_TLS_EXPLICIT_IV_LEN

struct Ctx {
    const ProvCtx* prov;
    Sm4State sm4;        // engine and key; its counter registers are CTR scratch
    Sm4CcmMessage msg;   // the message under way
    uint8_t iv[16];      // the nonce is its first 15 - l bytes (TLS fills 12)
    uint8_t tag[16];     // decryption: the expected tag; encryption: the computed one
    uint8_t tls_aad[kTlsAadLen];
    size_t l;            // bytes of the length field, 2..8
    size_t m;            // tag length
    size_t tls_aad_pad;  // what "tlsaadpad" reports
    bool tls;            // tlsaad set: every update is one TLS record
    bool encrypting;
    bool key_set;
    bool iv_set;         // a nonce is there, not yet used for a payload
    bool len_set;        // B_0 formatted (length declared)
    bool aad_done;
    bool data_done;      // the payload went through: the message is over
    bool tag_set;        // decryption: an expected tag is there
    bool tag_ready;      // encryption: the tag can be read
    bool verified;       // decryption: the payload's tag matched
    bool finalized;
};
static_assert(std::is_trivially_copyable_v<Ctx>);

Ctx* cast(void* vctx) { return static_cast<Ctx*>(vctx); }
size_t iv_len(const Ctx* ctx) { return 15 - ctx->l; }

void forget_message(Ctx* ctx) {
    hwaccel::wipe(&ctx->msg, sizeof ctx->msg);
    ctx->len_set = ctx->aad_done = ctx->data_done = false;
    ctx->tag_ready = ctx->verified = false;
}

void forget_tag(Ctx* ctx) {
    hwaccel::wipe(ctx->tag, sizeof ctx->tag);
    ctx->tag_set = ctx->tag_ready = false;
}

void* newctx(void* provctx) noexcept {
    auto* prov = static_cast<const ProvCtx*>(provctx);
    if (prov == nullptr) return nullptr;
    void* mem = hwaccel::mem::zalloc(sizeof(Ctx));
    if (mem == nullptr) {
        raise_error(prov, kErrOutOfMemory);
        return nullptr;
    }
    Ctx* ctx = new (mem) Ctx{};
    ctx->prov = prov;
    ctx->sm4.engine = prov->engines.sm4;
    ctx->l = kDefaultL;
    ctx->m = kDefaultTagLen;
    return ctx;
}

void freectx(void* vctx) noexcept {
    if (vctx != nullptr) hwaccel::mem::clear_free(vctx, sizeof(Ctx));
}

void* dupctx(void* vctx) noexcept {
    Ctx* src = cast(vctx);
    if (src == nullptr) return nullptr;
    void* mem = hwaccel::mem::malloc(sizeof(Ctx));
    if (mem == nullptr) {
        raise_error(src->prov, kErrOutOfMemory);
        return nullptr;
    }
    return new (mem) Ctx(*src);
}

// ---------------------------------------------------------------- parameters

// The settable parameters, all read and checked before any is applied.
struct Settings {
    size_t l, m;
    bool l_given;
    const OSSL_PARAM* tag;  // with data: the expected tag
    bool tls_aad_given;
    uint8_t tls_aad[kTlsAadLen];
    size_t tls_aad_pad;
    const OSSL_PARAM* fixed_iv;
};

// new_message: init is about to start a message, so none is under way.
bool read_settings(const Ctx* ctx, const OSSL_PARAM params[], Settings& s, bool new_message) {
    s = Settings{ctx->l, ctx->m, false, nullptr, false, {}, 0, nullptr};
    if (params == nullptr) return true;
    if (refuses_repeated_params()) {
        if (const char* key = params::repeated(
                params, {{OSSL_CIPHER_PARAM_AEAD_IVLEN}, {OSSL_CIPHER_PARAM_AEAD_TAG},
                         {OSSL_CIPHER_PARAM_AEAD_TLS1_AAD}, {OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED}})) {
            raise_error(ctx->prov, kErrInvalidParameter, "param %s is repeated", key);
            return false;
        }
    }
    if (const OSSL_PARAM* p = hwaccel::params::locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size < 4 || p->data_size > 16 ||
            p->data_size % 2 != 0) {
            raise_error(ctx->prov, kErrInvalidParameter,
                        "the CCM tag is an octet string of 4, 6, ..., 16 bytes");
            return false;
        }
        if (p->data != nullptr && ctx->encrypting) {
            raise_error(ctx->prov, kErrInvalidParameter, "a tag is given only to decrypt");
            return false;
        }
        // B_0 carries the tag length: it cannot change inside a message.
        if (!new_message && ctx->len_set && !ctx->data_done &&
            p->data_size != ctx->msg.tag_len) {
            raise_error(ctx->prov, kErrInvalidParameter,
                        "the tag length cannot change once the message has begun");
            return false;
        }
        s.tag = p;
        s.m = p->data_size;
    }
    if (const OSSL_PARAM* p = hwaccel::params::locate(params, OSSL_CIPHER_PARAM_AEAD_IVLEN)) {
        size_t n = 0;
        if (!hwaccel::params::get_size_t(p, &n) || n < 15 - 8 || n > 15 - 2) {
            raise_error(ctx->prov, kErrInvalidIvLength, "the CCM nonce is 7..13 bytes");
            return false;
        }
        s.l = 15 - n;
        s.l_given = true;
    }
    if (const OSSL_PARAM* p = hwaccel::params::locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD)) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size != kTlsAadLen ||
            p->data == nullptr) {
            raise_error(ctx->prov, kErrInvalidParameter, "tlsaad is %zu bytes", kTlsAadLen);
            return false;
        }
        std::memcpy(s.tls_aad, p->data, kTlsAadLen);
        // The record length in the AAD covers the explicit IV (and, received,
        // the tag); the MAC wants the payload's.
        size_t len = size_t{s.tls_aad[kTlsAadLen - 2]} << 8 | s.tls_aad[kTlsAadLen - 1];
        const size_t overhead = kTlsExplicitIvLen + (ctx->encrypting ? 0 : s.m);
        if (len < overhead) {
            raise_error(ctx->prov, kErrInvalidParameter, "tlsaad: record shorter than %zu bytes",
                        overhead);
            return false;
        }
        len -= overhead;
        s.tls_aad[kTlsAadLen - 2] = static_cast<uint8_t>(len >> 8);
        s.tls_aad[kTlsAadLen - 1] = static_cast<uint8_t>(len);
        s.tls_aad_given = true;
        s.tls_aad_pad = s.m;
    }
    if (const OSSL_PARAM* p = hwaccel::params::locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED)) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size != kTlsFixedIvLen ||
            p->data == nullptr) {
            raise_error(ctx->prov, kErrInvalidIvLength, "tlsivfixed is %zu bytes", kTlsFixedIvLen);
            return false;
        }
        s.fixed_iv = p;
    }
    return true;
}

void apply(Ctx* ctx, const Settings& s) {
    if (s.tag != nullptr) {
        if (s.tag->data != nullptr) {
            std::memcpy(ctx->tag, s.tag->data, s.tag->data_size);
            ctx->tag_set = true;
        }
        ctx->m = s.m;
    }
    if (s.l_given && s.l != ctx->l) {
        // Another nonce length: the nonce given so far no longer fits.
        ctx->l = s.l;
        ctx->iv_set = false;
        forget_message(ctx);
    }
    if (s.tls_aad_given) {
        std::memcpy(ctx->tls_aad, s.tls_aad, kTlsAadLen);
        ctx->tls = true;
        ctx->tls_aad_pad = s.tls_aad_pad;
    }
    if (s.fixed_iv != nullptr) std::memcpy(ctx->iv, s.fixed_iv->data, kTlsFixedIvLen);
}

int set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
    Ctx* ctx = cast(vctx);
    if (ctx == nullptr) return 0;
    Settings s;
    if (!read_settings(ctx, params, s, false)) return 0;
    apply(ctx, s);
    return 1;
}

// IV requests: the default provider answers with as many bytes of its
// 16-byte IV register as the caller's buffer holds; here at most those 16.
bool get_iv(const Ctx* ctx, OSSL_PARAM* params, const char* key) {
    OSSL_PARAM* p = hwaccel::params::locate(params, key);
    if (p == nullptr) return true;
    if (p->data_size < iv_len(ctx)) {
        raise_error(ctx->prov, kErrInvalidIvLength, "the IV is %zu bytes", iv_len(ctx));
        return false;
    }
    const size_t n = p->data_size < sizeof ctx->iv ? p->data_size : sizeof ctx->iv;
    return hwaccel::params::set_octet_string(p, ctx->iv, n) ||
           hwaccel::params::set_octet_ptr(p, const_cast<uint8_t*>(ctx->iv), n);
}

int get_ctx_params(void* vctx, OSSL_PARAM params[]) noexcept {
    Ctx* ctx = cast(vctx);
    if (ctx == nullptr) return 0;
    if (refuses_repeated_params()) {
        if (const char* key = params::repeated(
                params, {{OSSL_CIPHER_PARAM_KEYLEN}, {OSSL_CIPHER_PARAM_IVLEN},
                         {OSSL_CIPHER_PARAM_AEAD_TAGLEN}, {OSSL_CIPHER_PARAM_IV},
                         {OSSL_CIPHER_PARAM_UPDATED_IV}, {OSSL_CIPHER_PARAM_AEAD_TAG},
                         {OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD}})) {
            raise_error(ctx->prov, kErrInvalidParameter, "param %s is repeated", key);
            return 0;
        }
    }
    if (!params::set_size(params, OSSL_CIPHER_PARAM_KEYLEN, kKeyLen) ||
        !params::set_size(params, OSSL_CIPHER_PARAM_IVLEN, iv_len(ctx)) ||
        !params::set_size(params, OSSL_CIPHER_PARAM_AEAD_TAGLEN, ctx->m) ||
        !params::set_size(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, ctx->tls_aad_pad)) {
        raise_error(ctx->prov, kErrInvalidParameter, "cannot return a parameter");
        return 0;
    }
    if (!get_iv(ctx, params, OSSL_CIPHER_PARAM_IV) ||
        !get_iv(ctx, params, OSSL_CIPHER_PARAM_UPDATED_IV))
        return 0;
    if (OSSL_PARAM* p = hwaccel::params::locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) {
        if (!ctx->encrypting || !ctx->tag_ready) {
            raise_error(ctx->prov, kErrInvalidParameter,
                        "no tag to read: it comes after an encryption's payload");
            return 0;
        }
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == nullptr ||
            p->data_size != ctx->msg.tag_len) {
            raise_error(ctx->prov, kErrInvalidParameter, "the tag is %zu bytes",
                        ctx->msg.tag_len);
            return 0;
        }
        std::memcpy(p->data, ctx->tag, ctx->msg.tag_len);
        p->return_size = ctx->msg.tag_len;
        // Read once; the nonce is spent (as the default provider).
        forget_tag(ctx);
        ctx->iv_set = false;
    }
    return 1;
}

const OSSL_PARAM* gettable_ctx_params(void*, void*) noexcept {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, nullptr),
        OSSL_PARAM_END,
    };
    return table;
}

const OSSL_PARAM* settable_ctx_params(void*, void*) noexcept {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, nullptr, 0),
        OSSL_PARAM_END,
    };
    return table;
}

int get_params(OSSL_PARAM params[]) noexcept {
    return set_cipher_params(params, {EVP_CIPH_CCM_MODE, kKeyLen, kCipherIvLen, 1, true, true});
}

const OSSL_PARAM* gettable_params(void*) noexcept {
    return cipher_gettable_params();
}

// ---------------------------------------------------------------- init

int init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
         size_t ivlen, const OSSL_PARAM params[], bool encrypt) noexcept {
    Ctx* ctx = cast(vctx);
    if (ctx == nullptr) return 0;
    // Check everything before changing anything. The IV is checked against
    // the nonce length in force, as the default provider does (EVP passes
    // that length), before params may change it.
    if (key != nullptr && keylen != kKeyLen) {
        raise_error(ctx->prov, kErrInvalidKeyLength, "SM4 keys are %zu bytes, got %zu", kKeyLen,
                    keylen);
        return 0;
    }
    if (iv != nullptr && ivlen != iv_len(ctx)) {
        raise_error(ctx->prov, kErrInvalidIvLength, "the nonce is %zu bytes (ivlen), got %zu",
                    iv_len(ctx), ivlen);
        return 0;
    }
    const bool was_encrypting = ctx->encrypting;
    ctx->encrypting = encrypt;  // the tag param's check depends on the direction
    Settings s;
    if (!read_settings(ctx, params, s, true)) {
        ctx->encrypting = was_encrypting;
        return 0;
    }
    // A new message: nothing of the previous one survives. A nonce whose
    // payload went through is spent; only a new IV starts another message.
    if (ctx->data_done) ctx->iv_set = false;
    forget_message(ctx);
    ctx->finalized = false;
    if (iv != nullptr) {
        std::memcpy(ctx->iv, iv, ivlen);
        ctx->iv_set = true;
    }
    if (key != nullptr) {
        ctx->sm4.engine->set_key(&ctx->sm4.key, key);
        ctx->key_set = true;
    }
    apply(ctx, s);
    return 1;
}

int encrypt_init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                 size_t ivlen, const OSSL_PARAM params[]) noexcept {
    return init(vctx, key, keylen, iv, ivlen, params, true);
}

int decrypt_init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                 size_t ivlen, const OSSL_PARAM params[]) noexcept {
    return init(vctx, key, keylen, iv, ivlen, params, false);
}

// ---------------------------------------------------------------- the message

bool require_message_open(const Ctx* ctx) {
    if (!ctx->key_set) {
        raise_error(ctx->prov, kErrNoKeySet);
        return false;
    }
    if (ctx->finalized) {
        raise_error(ctx->prov, kErrUpdateAfterFinal, "call init first");
        return false;
    }
    if (ctx->data_done) {
        raise_error(ctx->prov, kErrInvalidParameter,
                    "CCM takes one payload per nonce: init with a new IV first");
        return false;
    }
    if (!ctx->iv_set) {
        raise_error(ctx->prov, kErrNotInitialised, "no IV (nonce) set");
        return false;
    }
    return true;
}

bool check_declaration(const Ctx* ctx, size_t len) {
    if (ctx->aad_done) {
        raise_error(ctx->prov, kErrInvalidParameter,
                    "the message length is declared before the AAD");
        return false;
    }
    if (static_cast<uint64_t>(len) > ccm_max_length(ctx->l)) {
        raise_error(ctx->prov, kErrInvalidLength,
                    "a %zu-byte message does not fit a %zu-byte length field (ivlen %zu)", len,
                    ctx->l, iv_len(ctx));
        return false;
    }
    return true;
}

void declare(Ctx* ctx, size_t len) {
    ccm_start(ctx->msg, ctx->iv, ctx->l, len, ctx->m);  // checked by check_declaration
    ctx->len_set = true;
}

bool add_aad(Ctx* ctx, const unsigned char* aad, size_t len) {
    if (len == 0) return true;  // nothing to authenticate (as the default provider)
    if (!ctx->len_set) {
        raise_error(ctx->prov, kErrInvalidParameter,
                    "declare the message length before the AAD (update with NULL in and out)");
        return false;
    }
    if (ctx->aad_done) {
        raise_error(ctx->prov, kErrInvalidParameter, "CCM takes the AAD in one update");
        return false;
    }
    ccm_aad(ctx->sm4, ctx->msg, aad, len);
    ctx->aad_done = true;
    return true;
}

bool crypt_payload(Ctx* ctx, unsigned char* out, const unsigned char* in, size_t len) {
    if (!ctx->len_set && !check_declaration(ctx, len)) return false;
    if (ctx->len_set && ctx->msg.length != len) {
        raise_error(ctx->prov, kErrInvalidLength, "the message was declared %llu bytes, got %zu",
                    static_cast<unsigned long long>(ctx->msg.length), len);
        return false;
    }
    if (!ctx->encrypting && !ctx->tag_set) {
        raise_error(ctx->prov, kErrInvalidParameter, "set the expected tag before decrypting");
        return false;
    }
    if (!ctx->len_set) declare(ctx, len);
    ctx->data_done = true;
    if (ctx->encrypting) {
        ccm_encrypt(ctx->sm4, ctx->msg, out, in, len, ctx->tag);
        ctx->tag_ready = true;
        return true;
    }
    ctx->verified = ccm_decrypt(ctx->sm4, ctx->msg, out, in, len, ctx->tag);
    forget_tag(ctx);
    if (!ctx->verified) raise_error(ctx->prov, kErrBadDecrypt, "CCM tag mismatch: no plaintext");
    return ctx->verified;
}

// One TLS 1.2 record in place: explicit IV (8) | payload | tag (M).
bool tls_record(Ctx* ctx, unsigned char* out, size_t* outl, const unsigned char* in, size_t len) {
    if (!ctx->key_set) {
        raise_error(ctx->prov, kErrNoKeySet);
        return false;
    }
    if (in == nullptr || out != in || len < kTlsExplicitIvLen + ctx->m ||
        !is_real_buffer(in, len)) {
        raise_error(ctx->prov, kErrInvalidLength,
                    "a TLS record is processed in place and holds the explicit IV and tag");
        return false;
    }
    const size_t payload = len - kTlsExplicitIvLen - ctx->m;
    if (payload > ccm_max_length(ctx->l)) {
        raise_error(ctx->prov, kErrInvalidLength, "record too long for ivlen %zu", iv_len(ctx));
        return false;
    }
    // Sending: the explicit IV is the sequence number at the AAD's start.
    if (ctx->encrypting) std::memcpy(out, ctx->tls_aad, kTlsExplicitIvLen);
    std::memcpy(ctx->iv + kTlsFixedIvLen, in, kTlsExplicitIvLen);
    Sm4CcmMessage& msg = ctx->msg;
    ccm_start(msg, ctx->iv, ctx->l, payload, ctx->m);
    ccm_aad(ctx->sm4, msg, ctx->tls_aad, kTlsAadLen);
    unsigned char* body = out + kTlsExplicitIvLen;
    bool ok = true;
    if (ctx->encrypting) {
        uint8_t tag[16];
        ccm_encrypt(ctx->sm4, msg, body, body, payload, tag);
        std::memcpy(body + payload, tag, ctx->m);
        hwaccel::wipe(tag, sizeof tag);
        *outl = len;
    } else {
        ok = ccm_decrypt(ctx->sm4, msg, body, body, payload, body + payload);
        if (!ok) raise_error(ctx->prov, kErrBadDecrypt, "CCM tag mismatch: no plaintext");
        *outl = ok ? payload : 0;
    }
    hwaccel::wipe(&msg, sizeof msg);
    return ok;
}

// The three kinds of update, told apart as the default provider does:
// out and in NULL: declare; out NULL: AAD; otherwise the payload.
int process(Ctx* ctx, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in,
            size_t inl, size_t max_len) {
    if (ctx->tls) return tls_record(ctx, out, outl, in, inl) ? 1 : 0;
    if (!require_message_open(ctx)) return 0;
    if (inl > max_len) {
        raise_error(ctx->prov, kErrInvalidLength, "length %zu cannot be real (a negative int?)",
                    inl);
        return 0;
    }
    if (out == nullptr && in == nullptr) {
        if (!check_declaration(ctx, inl)) return 0;
        declare(ctx, inl);
        *outl = 0;
        return 1;
    }
    if (!is_real_buffer(in, inl)) {
        raise_error(ctx->prov, kErrInvalidLength, "no input buffer for %zu bytes", inl);
        return 0;
    }
    if (out == nullptr) {
        if (!add_aad(ctx, in, inl)) return 0;
        *outl = 0;
        return 1;
    }
    if (outsize < inl) {
        raise_error(ctx->prov, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", inl, outsize);
        return 0;
    }
    if (!is_real_buffer(out, inl)) {
        raise_error(ctx->prov, kErrInvalidLength, "no output buffer for %zu bytes", inl);
        return 0;
    }
    if (!crypt_payload(ctx, out, in, inl)) return 0;
    *outl = inl;
    return 1;
}

int update(void* vctx, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in,
           size_t inl) noexcept {
    Ctx* ctx = cast(vctx);
    if (ctx == nullptr) return 0;
    if (outl == nullptr) {
        raise_error(ctx->prov, kErrInvalidParameter, "outl is NULL");
        return 0;
    }
    return process(ctx, out, outl, outsize, in, inl, kMaxCipherUpdateLength);
}

int final(void* vctx, unsigned char*, size_t* outl, size_t) noexcept {
    Ctx* ctx = cast(vctx);
    if (ctx == nullptr) return 0;
    if (outl == nullptr) {
        raise_error(ctx->prov, kErrInvalidParameter, "outl is NULL");
        return 0;
    }
    if (!ctx->key_set) {
        raise_error(ctx->prov, kErrNoKeySet);
        return 0;
    }
    if (ctx->finalized) {
        raise_error(ctx->prov, kErrFinalCalledTwice, "call init first");
        return 0;
    }
    // TLS records are whole in their update; otherwise the payload must
    // have gone through, and (decrypting) verified.
    if (!ctx->tls && !ctx->data_done) {
        raise_error(ctx->prov, kErrNotInitialised,
                    "no payload: CCM takes the message in one update before final");
        return 0;
    }
    if (!ctx->tls && !ctx->encrypting && !ctx->verified) {
        raise_error(ctx->prov, kErrBadDecrypt, "the CCM tag did not verify");
        return 0;
    }
    ctx->finalized = true;
    *outl = 0;
    return 1;
}

// EVP_Cipher(): the same calls; out set and in NULL is its final.
int cipher(void* vctx, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in,
           size_t inl) noexcept {
    Ctx* ctx = cast(vctx);
    if (ctx == nullptr) return 0;
    size_t ignored = 0;
    size_t* n = outl != nullptr ? outl : &ignored;
    if (!ctx->tls && in == nullptr && out != nullptr) return final(vctx, out, n, outsize);
    if (!process(ctx, out, n, outsize, in, inl, static_cast<size_t>(PTRDIFF_MAX))) return 0;
    *n = inl;  // as the default provider: the input length (AAD, a whole TLS record)
    return 1;
}

template <class Fn>
void (*erase(Fn* fn))(void) {
    return reinterpret_cast<void (*)(void)>(fn);
}

// Typed first: the compiler checks each signature against OpenSSL's.
constexpr OSSL_FUNC_cipher_newctx_fn* kNewctx = newctx;
constexpr OSSL_FUNC_cipher_freectx_fn* kFreectx = freectx;
constexpr OSSL_FUNC_cipher_dupctx_fn* kDupctx = dupctx;
constexpr OSSL_FUNC_cipher_encrypt_init_fn* kEncryptInit = encrypt_init;
constexpr OSSL_FUNC_cipher_decrypt_init_fn* kDecryptInit = decrypt_init;
constexpr OSSL_FUNC_cipher_update_fn* kUpdate = update;
constexpr OSSL_FUNC_cipher_final_fn* kFinal = final;
constexpr OSSL_FUNC_cipher_cipher_fn* kCipher = cipher;
constexpr OSSL_FUNC_cipher_get_params_fn* kGetParams = get_params;
constexpr OSSL_FUNC_cipher_gettable_params_fn* kGettableParams = gettable_params;
constexpr OSSL_FUNC_cipher_get_ctx_params_fn* kGetCtxParams = get_ctx_params;
constexpr OSSL_FUNC_cipher_set_ctx_params_fn* kSetCtxParams = set_ctx_params;
constexpr OSSL_FUNC_cipher_gettable_ctx_params_fn* kGettableCtxParams = gettable_ctx_params;
constexpr OSSL_FUNC_cipher_settable_ctx_params_fn* kSettableCtxParams = settable_ctx_params;

const OSSL_DISPATCH kTable[] = {
    {OSSL_FUNC_CIPHER_NEWCTX, erase(kNewctx)},
    {OSSL_FUNC_CIPHER_FREECTX, erase(kFreectx)},
    {OSSL_FUNC_CIPHER_DUPCTX, erase(kDupctx)},
    {OSSL_FUNC_CIPHER_ENCRYPT_INIT, erase(kEncryptInit)},
    {OSSL_FUNC_CIPHER_DECRYPT_INIT, erase(kDecryptInit)},
    {OSSL_FUNC_CIPHER_UPDATE, erase(kUpdate)},
    {OSSL_FUNC_CIPHER_FINAL, erase(kFinal)},
    {OSSL_FUNC_CIPHER_CIPHER, erase(kCipher)},
    {OSSL_FUNC_CIPHER_GET_PARAMS, erase(kGetParams)},
    {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, erase(kGettableParams)},
    {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, erase(kGetCtxParams)},
    {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, erase(kSetCtxParams)},
    {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, erase(kGettableCtxParams)},
    {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, erase(kSettableCtxParams)},
    {0, nullptr},
};

}  // namespace

const OSSL_DISPATCH* sm4_ccm_functions() { return kTable; }

}  // namespace hwaccel
