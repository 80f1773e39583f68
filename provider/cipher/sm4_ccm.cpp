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
// reports a failed or missing decryption (final with no payload is the empty
// one, as in 4.0's default provider); the tag length and L apply to the
// next message whenever they are set (the default provider fixes them when
// the key is set).
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>
#include <type_traits>

#include "cipher/aead_common.hpp"
#include "cipher/cipher_functions.hpp"
#include "cipher/cipher_params.hpp"
#include "cipher/ciphers.hpp"
#include "cipher/sm4_ccm_mode.hpp"
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

constexpr size_t kKeyLen = 16;
constexpr size_t kCipherIvLen = 12;  // what the default provider's get_params reports
constexpr size_t kDefaultL = 8;      // so the IV is 7 bytes until ivlen is set
constexpr size_t kDefaultTagLen = 12;
constexpr size_t kTlsFixedIvLen = 4;       // EVP_CCM_TLS_FIXED_IV_LEN

struct CcmCtx {
    const ProvCtx* prov;
    Sm4State sm4;        // engine and key; its counter registers are CTR scratch
    Sm4CcmMessage msg;   // the message under way
    uint8_t iv[16];      // the nonce is its first 15 - l bytes (TLS fills 12)
    uint8_t tag[16];     // decryption: the expected tag
    uint8_t sealed_tag[16];  // encryption: the last payload's tag, until read
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
    bool tag_ready;      // sealed_tag holds a finished message's tag
    size_t sealed_len;   // its length (that message's M)
    bool verified;       // decryption: the payload's tag matched
    bool finalized;
};
static_assert(std::is_trivially_copyable_v<CcmCtx>);

size_t iv_len(const CcmCtx* ctx) { return 15 - ctx->l; }

// The message's state; a finished message's tag is kept (forget_sealed_tag).
void forget_message(CcmCtx* ctx) {
    hwaccel::wipe(&ctx->msg, sizeof ctx->msg);
    ctx->len_set = ctx->aad_done = ctx->data_done = false;
    ctx->verified = false;
}

void forget_tag(CcmCtx* ctx) {
    hwaccel::wipe(ctx->tag, sizeof ctx->tag);
    ctx->tag_set = false;
}

// An encryption's tag is readable once, on an encrypting context, until the
// next message begins (its declaration, AAD, payload, final or TLS record):
// a re-init in between (new IV, key, both, none, parameters, even a
// decrypting init and back) keeps it, as OpenSSL 4.0's default provider
// does. It is the finished message's tag, not secret, in its own buffer: the
// next message's MAC state and a decryption's expected or computed tag are
// never what a read returns (the default's read returns its live CBC-MAC
// register, which by then may be another message's).
void forget_sealed_tag(CcmCtx* ctx) {
    hwaccel::wipe(ctx->sealed_tag, sizeof ctx->sealed_tag);
    ctx->tag_ready = false;
    ctx->sealed_len = 0;
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
bool read_settings(const CcmCtx* ctx, const OSSL_PARAM params[], Settings& s, bool new_message) {
    s = Settings{ctx->l, ctx->m, false, nullptr, false, {}, 0, nullptr};
    if (params == nullptr) return true;
    if (refuse_repeated(ctx->prov, params,
                        {{OSSL_CIPHER_PARAM_AEAD_IVLEN}, {OSSL_CIPHER_PARAM_AEAD_TAG},
                         {OSSL_CIPHER_PARAM_AEAD_TLS1_AAD}, {OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED}}))
        return false;
    if (const OSSL_PARAM* p = hwaccel::params::locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING) {
            raise_error(ctx->prov, kErrFailedToGetParameter, "the CCM tag is an octet string");
            return false;
        }
        if (p->data_size < 4 || p->data_size > 16 || p->data_size % 2 != 0) {
            raise_error(ctx->prov, kErrInvalidTagLength, "the CCM tag is 4, 6, ..., 16 bytes");
            return false;
        }
        if (p->data != nullptr && ctx->encrypting) {
            raise_error(ctx->prov, kErrTagNotNeeded, "a tag is given only to decrypt");
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
        if (!hwaccel::params::get_size_t(p, &n)) {
            raise_error(ctx->prov, kErrFailedToGetParameter, "ivlen must be a size_t");
            return false;
        }
        if (n < 15 - 8 || n > 15 - 2) {
            raise_error(ctx->prov, kErrInvalidIvLength, "the CCM nonce is 7..13 bytes");
            return false;
        }
        s.l = 15 - n;
        s.l_given = true;
    }
    if (const OSSL_PARAM* p = hwaccel::params::locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD)) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING) {
            raise_error(ctx->prov, kErrFailedToGetParameter, "tlsaad is an octet string");
            return false;
        }
        if (p->data_size != kTlsAadLen || p->data == nullptr) {
            raise_error(ctx->prov, kErrInvalidData, "tlsaad is %zu bytes", kTlsAadLen);
            return false;
        }
        const size_t received_tag = ctx->encrypting ? 0 : s.m;
        if (!tls_record_aad(static_cast<const uint8_t*>(p->data), received_tag, s.tls_aad)) {
            raise_error(ctx->prov, kErrInvalidData, "tlsaad: record shorter than %zu bytes",
                        kTlsExplicitIvLen + received_tag);
            return false;
        }
        s.tls_aad_given = true;
        s.tls_aad_pad = s.m;
    }
    if (const OSSL_PARAM* p = hwaccel::params::locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED)) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING) {
            raise_error(ctx->prov, kErrFailedToGetParameter, "tlsivfixed is an octet string");
            return false;
        }
        if (p->data_size != kTlsFixedIvLen || p->data == nullptr) {
            raise_error(ctx->prov, kErrInvalidIvLength, "tlsivfixed is %zu bytes", kTlsFixedIvLen);
            return false;
        }
        s.fixed_iv = p;
    }
    return true;
}

void apply(CcmCtx* ctx, const Settings& s) {
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

// IV requests: the default provider answers with as many bytes of its
// 16-byte IV register as the caller's buffer holds; here at most those 16.
bool get_iv(const CcmCtx* ctx, OSSL_PARAM* params, const char* key) {
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

// ---------------------------------------------------------------- the message

// Update's refusals that the default provider's update also makes carry its
// code for them, CIPHER_OPERATION_FAILED; the others are hwaccel's own.
bool require_message_open(const CcmCtx* ctx) {
    if (!ctx->key_set) {
        raise_error(ctx->prov, kErrCipherOperationFailed, "no key set");
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
        raise_error(ctx->prov, kErrCipherOperationFailed, "no IV (nonce) set");
        return false;
    }
    return true;
}

bool check_declaration(const CcmCtx* ctx, size_t len) {
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

void declare(CcmCtx* ctx, size_t len) {
    forget_sealed_tag(ctx);  // another message begins
    ccm_start(ctx->msg, ctx->iv, ctx->l, len, ctx->m);  // checked by check_declaration
    ctx->len_set = true;
}

bool add_aad(CcmCtx* ctx, const unsigned char* aad, size_t len) {
    if (len == 0) return true;  // nothing to authenticate (as the default provider)
    if (!ctx->len_set) {
        raise_error(ctx->prov, kErrCipherOperationFailed,
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

bool crypt_payload(CcmCtx* ctx, unsigned char* out, const unsigned char* in, size_t len) {
    if (!ctx->len_set && !check_declaration(ctx, len)) return false;
    if (ctx->len_set && ctx->msg.length != len) {
        raise_error(ctx->prov, kErrCipherOperationFailed, "the message was declared %llu bytes, got %zu",
                    static_cast<unsigned long long>(ctx->msg.length), len);
        return false;
    }
    if (!ctx->encrypting && !ctx->tag_set) {
        raise_error(ctx->prov, kErrCipherOperationFailed, "set the expected tag before decrypting");
        return false;
    }
    if (!ctx->len_set) declare(ctx, len);
    ctx->data_done = true;
    if (ctx->encrypting) {
        // Refused only for a length other than the declared one (checked above).
        ctx->tag_ready = ccm_encrypt(ctx->sm4, ctx->msg, out, in, len, ctx->sealed_tag);
        if (!ctx->tag_ready) raise_error(ctx->prov, kErrCipherOperationFailed, "not the declared message length");
        ctx->sealed_len = ctx->tag_ready ? ctx->msg.tag_len : 0;
        return ctx->tag_ready;
    }
    ctx->verified = ccm_decrypt(ctx->sm4, ctx->msg, out, in, len, ctx->tag);
    forget_tag(ctx);
    if (!ctx->verified) raise_error(ctx->prov, kErrCipherOperationFailed, "CCM tag mismatch: no plaintext");
    return ctx->verified;
}

// One TLS 1.2 record in place: explicit IV (8) | payload | tag (M).
bool tls_record(CcmCtx* ctx, unsigned char* out, size_t* outl, const unsigned char* in, size_t len) {
    if (!ctx->key_set) {
        raise_error(ctx->prov, kErrCipherOperationFailed, "no key set");
        return false;
    }
    if (in == nullptr || out != in || len < kTlsExplicitIvLen + ctx->m ||
        !is_real_buffer(in, len)) {
        raise_error(ctx->prov, kErrCipherOperationFailed,
                    "a TLS record is processed in place and holds the explicit IV and tag");
        return false;
    }
    const size_t payload = len - kTlsExplicitIvLen - ctx->m;
    if (payload > ccm_max_length(ctx->l)) {
        raise_error(ctx->prov, kErrCipherOperationFailed, "record too long for ivlen %zu", iv_len(ctx));
        return false;
    }
    forget_sealed_tag(ctx);  // another message begins
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
        ok = ccm_encrypt(ctx->sm4, msg, body, body, payload, tag);  // msg declared payload bytes
        if (ok) std::memcpy(body + payload, tag, ctx->m);
        else raise_error(ctx->prov, kErrCipherOperationFailed, "not the declared record length");
        hwaccel::wipe(tag, sizeof tag);
        *outl = ok ? len : 0;
    } else {
        ok = ccm_decrypt(ctx->sm4, msg, body, body, payload, body + payload);
        if (!ok) raise_error(ctx->prov, kErrCipherOperationFailed, "CCM tag mismatch: no plaintext");
        *outl = ok ? payload : 0;
    }
    hwaccel::wipe(&msg, sizeof msg);
    return ok;
}

// The three kinds of update, told apart as the default provider does:
// out and in NULL: declare; out NULL: AAD; otherwise the payload. Each
// reports inl as its output length, as the default's does (its olen = len).
int process(CcmCtx* ctx, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in,
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
        *outl = inl;
        return 1;
    }
    if (!is_real_buffer(in, inl)) {
        raise_error(ctx->prov, kErrInvalidLength, "no input buffer for %zu bytes", inl);
        return 0;
    }
    if (out == nullptr) {
        if (!add_aad(ctx, in, inl)) return 0;
        *outl = inl;
        return 1;
    }
    if (!require_output(ctx->prov, out, outsize, inl)) return 0;
    if (!crypt_payload(ctx, out, in, inl)) return 0;
    *outl = inl;
    return 1;
}

// What OpenSSL calls (cipher_functions.hpp adds the rest).
struct Sm4Ccm {
    using Ctx = CcmCtx;

    static void setup(Ctx& ctx, const ProvCtx& prov) {
        ctx.sm4.engine = prov.engines.sm4;
        ctx.l = kDefaultL;
        ctx.m = kDefaultTagLen;
    }

    static int init(Ctx* ctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                    size_t ivlen, const OSSL_PARAM params[], bool encrypt) {
        // Check everything before changing anything. The IV is checked against
        // the nonce length in force, as the default provider does (EVP passes
        // that length), before params may change it.
        if (!require_key_length(ctx->prov, key, keylen, kKeyLen)) return 0;
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
        // A new message: nothing of the previous one survives but its tag
        // (forget_sealed_tag says until when). A nonce whose payload went
        // through is spent; only a new IV starts another message.
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

    static int set_ctx_params(Ctx* ctx, const OSSL_PARAM params[]) {
        Settings s;
        if (!read_settings(ctx, params, s, false)) return 0;
        apply(ctx, s);
        return 1;
    }

    static int get_ctx_params(Ctx* ctx, OSSL_PARAM params[]) {
        if (refuse_repeated(ctx->prov, params,
                            {{OSSL_CIPHER_PARAM_KEYLEN}, {OSSL_CIPHER_PARAM_IVLEN},
                             {OSSL_CIPHER_PARAM_AEAD_TAGLEN}, {OSSL_CIPHER_PARAM_IV},
                             {OSSL_CIPHER_PARAM_UPDATED_IV}, {OSSL_CIPHER_PARAM_AEAD_TAG},
                             {OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD}}))
            return 0;
        if (!params::set_size(params, OSSL_CIPHER_PARAM_KEYLEN, kKeyLen) ||
            !params::set_size(params, OSSL_CIPHER_PARAM_IVLEN, iv_len(ctx)) ||
            !params::set_size(params, OSSL_CIPHER_PARAM_AEAD_TAGLEN, ctx->m) ||
            !params::set_size(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, ctx->tls_aad_pad)) {
            raise_error(ctx->prov, kErrFailedToSetParameter, "cannot return a parameter");
            return 0;
        }
        if (!get_iv(ctx, params, OSSL_CIPHER_PARAM_IV) ||
            !get_iv(ctx, params, OSSL_CIPHER_PARAM_UPDATED_IV))
            return 0;
        if (OSSL_PARAM* p = hwaccel::params::locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) {
            if (!ctx->encrypting || !ctx->tag_ready) {
                raise_error(ctx->prov, kErrTagNotSet,
                            "no tag to read: it comes after an encryption's payload");
                return 0;
            }
            if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == nullptr ||
                p->data_size != ctx->sealed_len) {
                raise_error(ctx->prov, kErrFailedToSetParameter, "the tag is %zu bytes",
                            ctx->sealed_len);
                return 0;
            }
            std::memcpy(p->data, ctx->sealed_tag, ctx->sealed_len);
            p->return_size = ctx->sealed_len;
            // Read once, as the default provider. Its nonce was spent by the
            // payload (data_done); a nonce a re-init has given since is the
            // next message's and stays (the default's read drops it too).
            forget_sealed_tag(ctx);
        }
        return 1;
    }

    static const OSSL_PARAM* gettable_ctx_params() { return aead_gettable_ctx_params(); }

    static const OSSL_PARAM* settable_ctx_params() { return aead_settable_ctx_params(); }

    static int update(Ctx* ctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) {
        return process(ctx, out, outl, outsize, in, inl, kMaxCipherUpdateLength);
    }

    static int final(Ctx* ctx, unsigned char*, size_t* outl, size_t) {
        if (!ctx->key_set) {
            raise_error(ctx->prov, kErrNoKeySet);
            return 0;
        }
        if (ctx->finalized) {
            raise_error(ctx->prov, kErrFinalCalledTwice, "call init first");
            return 0;
        }
        // TLS records are whole in their update. Otherwise a message with a
        // nonce and no payload yet has an empty one (an AAD-only message), as
        // in OpenSSL 4.0's default provider, whose final runs the empty
        // payload (3.x's returned success and computed nothing, so no tag);
        // on every release here. A declared length other than 0, or
        // decryption without an expected tag, is refused as in update.
        if (!ctx->tls && !ctx->data_done) {
            if (!ctx->iv_set) {
                raise_error(ctx->prov, kErrNotInitialised,
                            "no message: init with a nonce, then the payload, then final");
                return 0;
            }
            unsigned char none = 0;  // the empty payload's in and out
            if (!crypt_payload(ctx, &none, &none, 0)) return 0;
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
    static int cipher(Ctx* ctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) {
        size_t ignored = 0;
        size_t* n = outl != nullptr ? outl : &ignored;
        if (!ctx->tls && in == nullptr && out != nullptr) return final(ctx, out, n, outsize);
        if (!process(ctx, out, n, outsize, in, inl, static_cast<size_t>(PTRDIFF_MAX))) return 0;
        *n = inl;  // as the default provider: the input length (AAD, a whole TLS record)
        return 1;
    }

    static CipherFacts facts() { return {EVP_CIPH_CCM_MODE, kKeyLen, kCipherIvLen, 1, true, true}; }
};

}  // namespace

const OSSL_DISPATCH* sm4_ccm_functions() { return CipherFunctions<Sm4Ccm>::table; }

}  // namespace hwaccel
