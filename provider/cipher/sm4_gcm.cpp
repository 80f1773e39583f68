// SM4-GCM through EVP, with the parameters and behaviour of the default
// provider's GCM in OpenSSL 3.6/4.0 (ciphercommon_gcm.c): IV states (an IV
// is used for one message only), tag get/set, AAD through update with a NULL
// output, the TLS record parameters, a random IV when encryption starts
// (or its IV is asked for) without one. Differences, all refusals where the
// default provider would misbehave: lengths that cannot be buffers, a
// "tlsivinv" longer than the IV or empty, a "tlsivgen" into an empty buffer
// or from an IV shorter than its 8-byte count, update or final after a
// failed tag check (until a new IV), an init or set_ctx_params refused for a
// parameter (it changes nothing); a new key mid-message restarts it from its
// IV.
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>
#include <type_traits>

#include "cipher/aead_common.hpp"
#include "cipher/cipher_functions.hpp"
#include "cipher/cipher_params.hpp"
#include "cipher/ciphers.hpp"
#include "cipher/sm4_gcm_mode.hpp"
#include "constant_time_equal.hpp"
#include "errors.hpp"
#include "param_integers.hpp"
#include "param_locate.hpp"
#include "param_strings.hpp"
#include "random_bytes.hpp"
#include "wipe.hpp"
#include "lengths.hpp"
#include "openssl_version.hpp"
#include "params.hpp"
#include "prov_ctx.hpp"

namespace hwaccel {
namespace {

constexpr size_t kKeyLen = 16;
constexpr size_t kDefaultIvLen = EVP_GCM_TLS_FIXED_IV_LEN + EVP_GCM_TLS_EXPLICIT_IV_LEN;  // 12
constexpr size_t kMaxIvLen = 128;  // the default provider's GCM_IV_MAX_SIZE
constexpr size_t kTagLen = 16;
// Not in OpenSSL 3.0's headers.
constexpr const char kIvGenerated[] = "iv-generated";

// Where the IV stands, as the default provider tracks it: set but unused
// (J0 not derived yet), in use by the current message, or used up by a
// finished message (a new IV must come before the next one).
enum class IvState { kUnset, kBuffered, kInUse, kUsedUp };

struct GcmCtx {
    const ProvCtx* prov;
    Sm4GcmState gcm;
    uint8_t iv[kMaxIvLen];
    size_t iv_len;
    IvState iv_state;
    uint8_t tag[kTagLen];  // encryption: the tag after final; decryption: the expected one
    size_t tag_len;        // 0: none yet
    bool tag_sealed;       // tag is an encryption's own (readable), not an expected one
    bool encrypting;
    bool key_set;
    bool iv_gen;       // "tlsivfixed" set: the TLS IV counter runs
    bool iv_gen_rand;  // part of the IV came from RAND ("iv-generated")
    uint8_t tls_aad[kTlsAadLen];
    bool tls_aad_set;  // the next update is one whole TLS record
    size_t tls_aad_pad;
    uint64_t tls_records;
};
static_assert(std::is_trivially_copyable_v<GcmCtx>);

// Derives J0 from the stored IV: the message starts.
void start_message(GcmCtx* ctx) {
    sm4_gcm_set_iv(ctx->gcm, ctx->iv, ctx->iv_len);
    ctx->iv_state = IvState::kInUse;
}

// The last 8 bytes of the IV as a 64-bit big-endian counter (the TLS
// invocation field, at least 8 bytes long).
void increment_invocation(GcmCtx* ctx) {
    uint8_t* field = ctx->iv + ctx->iv_len - 8;
    for (size_t i = 8; i-- > 0;)
        if (++field[i] != 0) break;
}

// "tlsivgen": the explicit part of the next TLS IV (its last `len` bytes,
// at most the whole IV), which starts a message. The default provider reads
// len 0 as "the whole IV" and writes it into the empty buffer: refused here.
// So is an IV shorter than the 8-byte invocation field the count runs in (an
// ivlen set after tlsivfixed, or tlsivfixed -1 under a short ivlen), which
// the default increments in front of its IV buffer.
bool get_iv_gen(GcmCtx* ctx, uint8_t* out, size_t len) {
    if (!ctx->iv_gen || !ctx->key_set || len == 0 || ctx->iv_len < kTlsExplicitIvLen) return false;
    start_message(ctx);
    if (len > ctx->iv_len) len = ctx->iv_len;
    std::memcpy(out, ctx->iv + ctx->iv_len - len, len);
    increment_invocation(ctx);
    return true;
}

// "tlsivinv" can be taken: the explicit part of a TLS IV received
// (decryption), 1..ivlen bytes, once the fixed part is set.
bool iv_inv_acceptable(bool iv_gen, bool key_set, bool encrypting, size_t iv_len,
                       const uint8_t* in, size_t len) {
    return in != nullptr && iv_gen && key_set && !encrypting && len != 0 && len <= iv_len;
}

// The explicit part received goes in; it starts a message.
void take_iv_inv(GcmCtx* ctx, const uint8_t* in, size_t len) {
    std::memcpy(ctx->iv + ctx->iv_len - len, in, len);
    start_message(ctx);
}

// A TLS record's explicit IV (decryption).
bool set_iv_inv(GcmCtx* ctx, const uint8_t* in, size_t len) {
    if (!iv_inv_acceptable(ctx->iv_gen, ctx->key_set, ctx->encrypting, ctx->iv_len, in, len))
        return false;
    take_iv_inv(ctx, in, len);
    return true;
}

// SP 800-38D 8.2.2: a random IV of at least 96 bits when encryption starts
// without one.
bool generate_iv(GcmCtx* ctx) {
    if (ctx->iv_len < kDefaultIvLen) return false;
    uint8_t fresh[kMaxIvLen];
    if (!random_bytes(fresh, ctx->iv_len)) return false;
    std::memcpy(ctx->iv, fresh, ctx->iv_len);
    ctx->iv_state = IvState::kBuffered;
    ctx->iv_gen_rand = true;
    return true;
}

// The message can take input (or its final): key and IV in place, J0 derived.
// CIPHER_OPERATION_FAILED: the default provider's update refuses each of
// these with it (its final raises nothing).
bool ready(GcmCtx* ctx) {
    if (!ctx->key_set) {
        raise_error(ctx->prov, kErrCipherOperationFailed, "no key set");
        return false;
    }
    if (ctx->iv_state == IvState::kUsedUp) {
        raise_error(ctx->prov, kErrCipherOperationFailed, "the IV is used up: set a new one");
        return false;
    }
    if (ctx->iv_state == IvState::kUnset && (!ctx->encrypting || !generate_iv(ctx))) {
        raise_error(ctx->prov, kErrCipherOperationFailed, "no IV set");
        return false;
    }
    if (ctx->iv_state == IvState::kBuffered) start_message(ctx);
    return true;
}

// The message is over, whatever its outcome: nothing of it stays.
void end_message(GcmCtx* ctx) {
    sm4_gcm_forget_message(ctx->gcm);
    ctx->iv_state = IvState::kUsedUp;
}

// One whole TLS record in place: explicit IV || payload || tag.
bool tls_record(GcmCtx* ctx, unsigned char* out, size_t* outl, const unsigned char* in, size_t len) {
    constexpr size_t kIv = EVP_GCM_TLS_EXPLICIT_IV_LEN, kTag = EVP_GCM_TLS_TAG_LEN;
    ctx->tls_aad_set = false;
    bool ok = false;
    if (out == in && len >= kIv + kTag && ctx->key_set &&
        !(ctx->encrypting && ++ctx->tls_records == 0)) {
        const bool iv_ok = ctx->encrypting ? get_iv_gen(ctx, out, kIv) : set_iv_inv(ctx, in, kIv);
        const size_t payload = len - kIv - kTag;
        unsigned char* text = out + kIv;
        if (iv_ok && sm4_gcm_aad(ctx->gcm, ctx->tls_aad, sizeof ctx->tls_aad)) {
            uint8_t tag[kTagLen];
            if (ctx->encrypting) {
                ok = sm4_gcm_encrypt(ctx->gcm, text, text, payload);
                sm4_gcm_tag(ctx->gcm, tag);
                std::memcpy(text + payload, tag, kTag);
                *outl = len;
            } else {
                ok = sm4_gcm_decrypt(ctx->gcm, text, text, payload);
                sm4_gcm_tag(ctx->gcm, tag);
                ok = ok && constant_time_equal(tag, text + payload, kTag);
                if (!ok) hwaccel::wipe(text, payload);
                *outl = ok ? payload : 0;
            }
            hwaccel::wipe(tag, sizeof tag);
        }
    }
    end_message(ctx);
    hwaccel::wipe(ctx->tls_aad, sizeof ctx->tls_aad);
    if (!ok) {
        *outl = 0;
        raise_error(ctx->prov, kErrCipherOperationFailed,
                    ctx->encrypting ? "TLS record refused" : "TLS record refused (tag mismatch?)");
    }
    return ok;
}

bool require_input(const GcmCtx* ctx, const unsigned char* in, size_t inl, size_t max_len) {
    if (inl <= max_len && is_real_buffer(in, inl)) return true;
    raise_error(ctx->prov, kErrInvalidLength,
                "input length %zu cannot be a buffer (a negative int?)", inl);
    return false;
}

// AAD (out == NULL) or text; the caller checked the lengths.
bool absorb(GcmCtx* ctx, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in,
            size_t inl) {
    if (!ready(ctx)) return false;
    if (out == nullptr) {
        if (!sm4_gcm_aad(ctx->gcm, in, inl)) {
            raise_error(ctx->prov, kErrCipherOperationFailed,
                        ctx->gcm.text_started ? "AAD after text" : "AAD too long for GCM");
            return false;
        }
        *outl = inl;  // the default provider reports AAD as consumed
        return true;
    }
    if (!require_output(ctx->prov, out, outsize, inl)) return false;
    const bool ok = ctx->encrypting ? sm4_gcm_encrypt(ctx->gcm, out, in, inl)
                                    : sm4_gcm_decrypt(ctx->gcm, out, in, inl);
    if (!ok) {
        raise_error(ctx->prov, kErrCipherOperationFailed, "message too long for GCM");
        return false;
    }
    *outl = inl;
    return true;
}

// The tag: written (encryption) or checked in constant time (decryption).
bool finish(GcmCtx* ctx, size_t* outl) {
    if (ctx->tls_aad_set) {
        raise_error(ctx->prov, kErrInvalidParameter, "a TLS record goes through update");
        return false;
    }
    if (!ready(ctx)) return false;
    if (!ctx->encrypting && (ctx->tag_len == 0 || ctx->tag_sealed)) {
        raise_error(ctx->prov, kErrTagNotSet, "set the expected tag before final");
        return false;
    }
    uint8_t tag[kTagLen];
    sm4_gcm_tag(ctx->gcm, tag);
    end_message(ctx);
    bool ok = true;
    if (ctx->encrypting) {
        std::memcpy(ctx->tag, tag, kTagLen);
        ctx->tag_len = kTagLen;
        ctx->tag_sealed = true;
    } else if (!constant_time_equal(tag, ctx->tag, ctx->tag_len)) {
        raise_error(ctx->prov, kErrBadDecrypt, "tag mismatch");
        ok = false;
    }
    hwaccel::wipe(tag, sizeof tag);
    *outl = 0;
    return ok;
}

// ---------------------------------------------------------------- parameters

// What the parameters are checked against: the context as init's own
// arguments (direction, key, IV) will leave it.
struct Base {
    bool encrypting;
    bool key_set;
    size_t iv_len;
};

// The settable parameters, all read and checked before any is applied (a
// refusal changes nothing), then applied in the default provider's order,
// whatever their order in the array: tag, ivlen, tlsaad, tlsivfixed,
// tlsivinv, each checked against what those before it will have set.
// Nothing in it is secret or key-derived: an expected tag, a record header,
// IV bytes that travel in the record.
struct Settings {
    const OSSL_PARAM* tag;  // decryption's expected tag
    bool iv_len_given;
    size_t iv_len;  // in force once they are applied
    bool tls_aad_given;
    uint8_t tls_aad[kTlsAadLen];  // the header with the payload's length
    const uint8_t* fixed;         // "tlsivfixed"
    size_t fixed_len;             // SIZE_MAX: the whole IV
    uint8_t fixed_rest[kMaxIvLen];  // encryption: the rest of that IV, from RAND
    const uint8_t* inv;             // "tlsivinv"
    size_t inv_len;
};

// Each refusal with the default provider's code for it.
bool read_settings(const GcmCtx* ctx, const OSSL_PARAM params[], const Base& base, Settings& s) {
    s.tag = nullptr;
    s.iv_len_given = false;
    s.iv_len = base.iv_len;
    s.tls_aad_given = false;
    s.fixed = s.inv = nullptr;
    s.fixed_len = s.inv_len = 0;
    if (params == nullptr) return true;
    // Ours all begin with 't' or 'i' (tag, ivlen, tlsaad, tlsivfixed,
    // tlsivinv): a request without such a key, as EVP's "padding" at every
    // init (`openssl speed` re-inits per message), has nothing to read here.
    static_assert(OSSL_CIPHER_PARAM_AEAD_TAG[0] == 't' && OSSL_CIPHER_PARAM_AEAD_IVLEN[0] == 'i' &&
                  OSSL_CIPHER_PARAM_AEAD_TLS1_AAD[0] == 't' && OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED[0] == 't' &&
                  OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV[0] == 't');
    bool any = false;
    for (const OSSL_PARAM* p = params; p->key != nullptr; ++p) any = any || p->key[0] == 't' || p->key[0] == 'i';
    if (!any) return true;
    if (refuse_repeated(ctx->prov, params,
                        {{OSSL_CIPHER_PARAM_AEAD_TAG}, {OSSL_CIPHER_PARAM_AEAD_IVLEN},
                         {OSSL_CIPHER_PARAM_AEAD_TLS1_AAD}, {OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED},
                         {OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV}}))
        return false;
    using hwaccel::params::locate;
    if (const OSSL_PARAM* p = locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) {
        // The default's codes: one that cannot be read, one it refuses.
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == nullptr ||
            p->data_size > kTagLen) {
            raise_error(ctx->prov, kErrFailedToGetParameter,
                        "the tag is an octet string of 1..16 bytes");
            return false;
        }
        if (p->data_size == 0 || base.encrypting) {
            raise_error(ctx->prov, kErrInvalidTag, "invalid tag: 1..16 bytes, when decrypting");
            return false;
        }
        s.tag = p;
    }
    if (const OSSL_PARAM* p = locate(params, OSSL_CIPHER_PARAM_AEAD_IVLEN)) {
        size_t len = 0;
        if (!hwaccel::params::get_size_t(p, &len)) {
            raise_error(ctx->prov, kErrFailedToGetParameter, "ivlen must be a size_t");
            return false;
        }
        if (len == 0 || len > kMaxIvLen) {
            raise_error(ctx->prov, kErrInvalidIvLength, "GCM IVs are 1..%zu bytes", kMaxIvLen);
            return false;
        }
        s.iv_len_given = true;
        s.iv_len = len;
    }
    if (const OSSL_PARAM* p = locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD)) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING) {
            raise_error(ctx->prov, kErrFailedToGetParameter, "tlsaad is an octet string");
            return false;
        }
        // Its length field becomes the payload's (without explicit IV, and
        // without the tag when decrypting).
        if (p->data == nullptr || p->data_size != kTlsAadLen ||
            !tls_record_aad(static_cast<const uint8_t*>(p->data),
                            base.encrypting ? 0 : EVP_GCM_TLS_TAG_LEN, s.tls_aad)) {
            raise_error(ctx->prov, kErrInvalidAad, "invalid TLS AAD");
            return false;
        }
        s.tls_aad_given = true;
    }
    if (const OSSL_PARAM* p = locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED)) {
        // The fixed part of the TLS IV (encryption draws the rest from RAND);
        // SIZE_MAX (EVP_CTRL_GCM_SET_IV_FIXED with -1): the whole IV.
        const size_t len = p->data_size;
        bool ok = p->data_type == OSSL_PARAM_OCTET_STRING && p->data != nullptr;
        if (ok && len != SIZE_MAX) {
            ok = len >= EVP_GCM_TLS_FIXED_IV_LEN && len <= s.iv_len &&
                 s.iv_len - len >= EVP_GCM_TLS_EXPLICIT_IV_LEN;
            if (ok && base.encrypting) ok = random_bytes(s.fixed_rest, s.iv_len - len);
        }
        if (!ok) {
            raise_error(ctx->prov, kErrFailedToGetParameter, "invalid fixed TLS IV");
            return false;
        }
        s.fixed = static_cast<const uint8_t*>(p->data);
        s.fixed_len = len;
    }
    if (const OSSL_PARAM* p = locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV)) {
        const bool iv_gen = ctx->iv_gen || s.fixed != nullptr;
        if (p->data_type != OSSL_PARAM_OCTET_STRING ||
            !iv_inv_acceptable(iv_gen, base.key_set, base.encrypting, s.iv_len,
                               static_cast<const uint8_t*>(p->data), p->data_size)) {
            raise_error(ctx->prov, kErrInvalidParameter, "cannot set the TLS IV");
            return false;
        }
        s.inv = static_cast<const uint8_t*>(p->data);
        s.inv_len = p->data_size;
    }
    return true;
}

// The settings read, applied to a context as the checks assumed it.
void apply(GcmCtx* ctx, const Settings& s) {
    if (s.tag != nullptr) {
        std::memcpy(ctx->tag, s.tag->data, s.tag->data_size);
        ctx->tag_len = s.tag->data_size;
        ctx->tag_sealed = false;
    }
    if (s.iv_len_given && s.iv_len != ctx->iv_len) {
        // An IV set (or generated) for the old length is no longer one; a
        // message begun under it is over, its state wiped.
        if (ctx->iv_state != IvState::kUnset) end_message(ctx);
        ctx->iv_len = s.iv_len;
    }
    if (s.tls_aad_given) {
        std::memcpy(ctx->tls_aad, s.tls_aad, kTlsAadLen);
        ctx->tls_aad_set = true;
        ctx->tls_aad_pad = EVP_GCM_TLS_TAG_LEN;
    }
    if (s.fixed != nullptr) {
        if (s.fixed_len == SIZE_MAX) {
            std::memcpy(ctx->iv, s.fixed, ctx->iv_len);
        } else {
            if (ctx->encrypting) {
                std::memcpy(ctx->iv + s.fixed_len, s.fixed_rest, ctx->iv_len - s.fixed_len);
                ctx->iv_gen_rand = true;
            }
            std::memcpy(ctx->iv, s.fixed, s.fixed_len);
        }
        ctx->iv_gen = true;
        ctx->iv_state = IvState::kBuffered;
    }
    if (s.inv != nullptr) take_iv_inv(ctx, s.inv, s.inv_len);
}

// What OpenSSL calls (cipher_functions.hpp adds the rest).
struct Sm4Gcm {
    using Ctx = GcmCtx;

    static void setup(Ctx& ctx, const ProvCtx& prov) {
        ctx.iv_len = kDefaultIvLen;
        sm4_gcm_bind(ctx.gcm, prov.engines.sm4, prov.engines.ghash);
    }

    static int set_ctx_params(Ctx* ctx, const OSSL_PARAM params[]) {
        Settings s;
        if (!read_settings(ctx, params, Base{ctx->encrypting, ctx->key_set, ctx->iv_len}, s))
            return 0;
        apply(ctx, s);
        return 1;
    }

    static int init(Ctx* ctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                    size_t ivlen, const OSSL_PARAM params[], bool encrypt) {
        // Everything is checked before anything changes (README: a refused
        // init keeps the context as it was; the default's has installed key,
        // IV and direction by then), the parameters against the context as
        // key, IV and direction will leave it.
        if (!require_key_length(ctx->prov, key, keylen, kKeyLen)) return 0;
        if (iv != nullptr && (ivlen == 0 || ivlen > kMaxIvLen)) {
            raise_error(ctx->prov, kErrInvalidIvLength, "GCM IVs are 1..%zu bytes, got %zu",
                        kMaxIvLen, ivlen);
            return 0;
        }
        Settings s;
        const Base base{encrypt, ctx->key_set || key != nullptr,
                        iv != nullptr ? ivlen : ctx->iv_len};
        if (!read_settings(ctx, params, base, s)) return 0;
        ctx->encrypting = encrypt;
        if (iv != nullptr) {
            ctx->iv_len = ivlen;
            std::memcpy(ctx->iv, iv, ivlen);
            ctx->iv_state = IvState::kBuffered;
            ctx->iv_gen_rand = false;  // the caller's IV: "iv-generated" reads 0 again
        }
        if (key != nullptr) {
            sm4_gcm_set_key(ctx->gcm, key);
            ctx->key_set = true;
            ctx->tls_records = 0;
            // A message under the old key cannot go on: it restarts from its IV.
            if (ctx->iv_state == IvState::kInUse) ctx->iv_state = IvState::kBuffered;
        }
        apply(ctx, s);
        return 1;
    }

    static int update(Ctx* ctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) {
        // Before any arithmetic on inl: EVP passed an int.
        if (!require_input(ctx, in, inl, kMaxCipherUpdateLength)) return 0;
        // 0 bytes do nothing, even with a TLS record pending (as the
        // default's update; its EVP_Cipher() takes them for the record).
        if (inl == 0) {
            *outl = 0;
            return 1;
        }
        if (ctx->tls_aad_set) return tls_record(ctx, out, outl, in, inl) ? 1 : 0;
        return absorb(ctx, out, outl, outsize, in, inl) ? 1 : 0;
    }

    static int final(Ctx* ctx, unsigned char*, size_t* outl, size_t) {
        return finish(ctx, outl) ? 1 : 0;
    }

    // EVP_Cipher(): in == NULL is final, out == NULL is AAD, as in the default
    // provider, which reports inl as the output length whatever was written
    // (a TLS record's payload length comes through update).
    static int cipher(Ctx* ctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) {
        size_t done = 0;
        bool ok;
        if (in == nullptr && inl == 0) {
            ok = ctx->tls_aad_set ? tls_record(ctx, out, &done, in, inl) : finish(ctx, &done);
        } else if (!require_input(ctx, in, inl, static_cast<size_t>(PTRDIFF_MAX))) {
            ok = false;
        } else if (ctx->tls_aad_set) {
            ok = tls_record(ctx, out, &done, in, inl);
        } else {
            ok = absorb(ctx, out, &done, outsize, in, inl);
        }
        if (outl != nullptr) *outl = ok ? inl : 0;
        return ok ? 1 : 0;
    }

    static int get_ctx_params(Ctx* ctx, OSSL_PARAM params[]) {
        if (params == nullptr) return 1;
        if (refuse_repeated(ctx->prov, params,
                            {{OSSL_CIPHER_PARAM_IVLEN}, {OSSL_CIPHER_PARAM_KEYLEN},
                             {OSSL_CIPHER_PARAM_AEAD_TAGLEN}, {OSSL_CIPHER_PARAM_IV},
                             {OSSL_CIPHER_PARAM_UPDATED_IV}, {OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD},
                             {OSSL_CIPHER_PARAM_AEAD_TAG}, {OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN},
                             {kIvGenerated}}))
            return 0;
        for (OSSL_PARAM* p = params; p->key != nullptr; ++p) {
            bool ok = true;
            const char* key = p->key;
            // The tag first: asked after every encryption (EVP_CTRL_AEAD_GET_TAG),
            // it was the seventh comparison.
            if (std::strcmp(key, OSSL_CIPHER_PARAM_AEAD_TAG) == 0) {
                // Encryption's tag, after final; any prefix of it. NULL data
                // asks its size: the prefix's, or with size 0 the whole tag's
                // ("taglen"); 3.6/4.0's default answers that 1, return_size 0.
                if (!ctx->encrypting || !ctx->tag_sealed || p->data_size > kTagLen ||
                    (p->data_size == 0 && p->data != nullptr)) {
                    raise_error(ctx->prov, kErrInvalidTag,
                                "invalid tag: 1..16 bytes, after an encryption's final");
                    return 0;
                }
                ok = hwaccel::params::set_octet_string(
                    p, ctx->tag, p->data_size != 0 ? p->data_size : ctx->tag_len);
            } else if (std::strcmp(key, OSSL_CIPHER_PARAM_IVLEN) == 0) {
                ok = hwaccel::params::set_size_t(p, ctx->iv_len);
            } else if (std::strcmp(key, OSSL_CIPHER_PARAM_KEYLEN) == 0) {
                ok = hwaccel::params::set_size_t(p, kKeyLen);
            } else if (std::strcmp(key, OSSL_CIPHER_PARAM_AEAD_TAGLEN) == 0) {
                ok = hwaccel::params::set_size_t(p, ctx->tag_len != 0 ? ctx->tag_len : kTagLen);
            } else if (std::strcmp(key, OSSL_CIPHER_PARAM_IV) == 0 ||
                       std::strcmp(key, OSSL_CIPHER_PARAM_UPDATED_IV) == 0) {
                // GCM has no updated IV: both are the message's IV. An
                // encryption asked for it before it has one draws it now, as
                // its first update would (the default's on_preupdate_generate_iv),
                // so the caller can learn it first; not for a pending TLS record.
                if (ctx->iv_state == IvState::kUnset &&
                    (ctx->tls_aad_set || !ctx->encrypting || !generate_iv(ctx)))
                    return 0;
                // NULL data: a size query.
                if (p->data != nullptr && p->data_size < ctx->iv_len) {
                    raise_error(ctx->prov, kErrInvalidIvLength, "the IV is %zu bytes",
                                ctx->iv_len);
                    return 0;
                }
                ok = hwaccel::params::set_octet_string(p, ctx->iv, ctx->iv_len) ||
                     hwaccel::params::set_octet_ptr(p, ctx->iv, ctx->iv_len);
            } else if (std::strcmp(key, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD) == 0) {
                ok = hwaccel::params::set_size_t(p, ctx->tls_aad_pad);
            } else if (std::strcmp(key, OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN) == 0) {
                // Refused with an error, where the default provider refuses
                // without one.
                if (p->data == nullptr || p->data_type != OSSL_PARAM_OCTET_STRING) {
                    ok = false;
                } else if (!get_iv_gen(ctx, static_cast<uint8_t*>(p->data), p->data_size)) {
                    raise_error(ctx->prov, kErrFailedToGetParameter,
                                "tlsivgen needs a key, a tlsivfixed and an IV of at least %zu bytes",
                                kTlsExplicitIvLen);
                    return 0;
                }
            } else if (std::strcmp(key, kIvGenerated) == 0) {
                ok = hwaccel::params::set_uint(p, ctx->iv_gen_rand ? 1 : 0);
            }
            if (!ok) {
                raise_error(ctx->prov, kErrFailedToSetParameter, "cannot return %s", key);
                return 0;
            }
        }
        return 1;
    }

    static const OSSL_PARAM* gettable_ctx_params() {
        static const OSSL_PARAM* const aead = aead_gettable_ctx_params();
        static const OSSL_PARAM table[] = {
            aead[0], aead[1], aead[2], aead[3], aead[4], aead[5], aead[6],
            OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, nullptr, 0),
            OSSL_PARAM_uint(kIvGenerated, nullptr),
            OSSL_PARAM_END,
        };
        static_assert(kAeadGettableCount == 7);
        return table;
    }

    static const OSSL_PARAM* settable_ctx_params() {
        static const OSSL_PARAM* const aead = aead_settable_ctx_params();
        static const OSSL_PARAM table[] = {
            aead[0], aead[1], aead[2], aead[3],
            OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, nullptr, 0),
            OSSL_PARAM_END,
        };
        static_assert(kAeadSettableCount == 4);
        return table;
    }

    static CipherFacts facts() {
        return {EVP_CIPH_GCM_MODE, kKeyLen, kDefaultIvLen, 1, true, true};
    }
};

}  // namespace

const OSSL_DISPATCH* sm4_gcm_functions() { return CipherFunctions<Sm4Gcm>::table; }

}  // namespace hwaccel
