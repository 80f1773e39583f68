// One cipher implementation for every mode, generated from a mode traits
// type (the role ciphercommon.h plays in OpenSSL's own
// providers), with the default provider's semantics
// (providers/implementations/ciphers/ciphercommon.c in OpenSSL 3.0).
//
// Mode provides:
//   using State;  with fields iv[16] and num; a trivially copyable value
//   kKeyLen, kIvLen (0 for ECB), kBlockSize (16: block mode with padding;
//   1: stream mode), kMode (EVP_CIPH_*_MODE), kRestoreIvOnInit (a NULL-IV
//   init restores the original IV, as 1.1.1 did for CBC/CFB/OFB)
//   static void bind(State&, const Selection&);
//   static void set_key(State&, const uint8_t* key);
//   static void forget_stream(State&);  wipes the message's keystream, num = 0
//   static void resume_stream(State&);  num was set into a block: rebuild
//                                       that block's stream (key is set)
//   block modes:  static void blocks(State&, bool enc, out, in, nblocks);
//                 changes nothing of State but iv (final relies on it)
//   stream modes: static void stream(State&, bool enc, out, in, len);
#pragma once

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>

#include "errors.hpp"
#include "lengths.hpp"
#include "openssl_version.hpp"
#include "cipher/cipher_functions.hpp"
#include "cipher/cipher_params.hpp"
#include "cipher/pkcs7.hpp"
#include "params.hpp"
#include "prov_ctx.hpp"
#include "wipe.hpp"

namespace hwaccel {

template <class Mode>
class CipherDispatch {
    friend class CipherFunctions<CipherDispatch>;
    static constexpr size_t kBlock = 16;  // the cipher's block, whatever the mode reports
    static constexpr bool kBlockMode = Mode::kBlockSize > 1;

    struct Ctx {
        const ProvCtx* prov;
        typename Mode::State state;
        uint8_t original_iv[kBlock];
        uint8_t buf[kBlock];  // block modes: input not yet processed
        size_t buffered;
        bool encrypting;
        bool padding;
        bool key_set;
        bool iv_set;
        bool finalized;  // final happened: only init may follow
    };

    static void setup(Ctx& ctx, const ProvCtx& prov) {
        ctx.padding = true;
        Mode::bind(ctx.state, prov.engines);
    }

    static int init(Ctx* ctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                    size_t ivlen, const OSSL_PARAM params[], bool encrypt) {
        // Check everything before changing anything.
        if (!require_key_length(ctx->prov, key, keylen, Mode::kKeyLen)) return 0;
        if (iv != nullptr && Mode::kIvLen != 0 && ivlen != Mode::kIvLen) {
            raise_error(ctx->prov, kErrInvalidIvLength, "this mode's IV is %zu bytes, got %zu",
                        Mode::kIvLen, ivlen);
            return 0;
        }
        Settings settings{ctx->padding, 0, false};
        if (!read_settings(ctx, params, settings)) return 0;
        // Nothing of the previous message survives: buffered input, and the
        // keystream (CTR's block; OFB/CFB's lives in iv, replaced below).
        ctx->encrypting = encrypt;
        ctx->finalized = false;
        Mode::forget_stream(ctx->state);
        ctx->buffered = 0;
        wipe(ctx->buf, sizeof ctx->buf);
        if (iv != nullptr && Mode::kIvLen != 0) {
            std::memcpy(ctx->original_iv, iv, Mode::kIvLen);
            std::memcpy(ctx->state.iv, iv, Mode::kIvLen);
            ctx->iv_set = true;
        } else if (iv == nullptr && ctx->iv_set && Mode::kRestoreIvOnInit) {
            std::memcpy(ctx->state.iv, ctx->original_iv, Mode::kIvLen);
        }
        if (key != nullptr) {
            Mode::set_key(ctx->state, key);  // overwrites the previous schedule whole
            ctx->key_set = true;
        }
        apply(ctx, settings);
        return 1;
    }

    static bool require_key(const Ctx* ctx) {
        if (ctx->key_set) return true;
        raise_error(ctx->prov, kErrNoKeySet);
        return false;
    }

    // After final only init may follow (OpenSSL's documented contract; the
    // default provider would chain on, or pad a second time).
    static bool require_not_finalized(const Ctx* ctx, int reason) {
        if (!ctx->finalized) return true;
        raise_error(ctx->prov, reason, "call init first");
        return false;
    }

    static bool require_room(const Ctx* ctx, size_t need, size_t have) {
        if (have >= need) return true;
        raise_error(ctx->prov, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", need, have);
        return false;
    }

    // Block modes: whole blocks go out at once; a partial block waits in buf.
    // Decryption with padding holds back the last whole block, which final
    // unpads.
    static int block_update(Ctx* ctx, unsigned char* out, size_t* outl, size_t outsize,
                            const unsigned char* in, size_t inl) {
        const size_t total = ctx->buffered + inl;
        size_t out_blocks = total / kBlock;
        if (!ctx->encrypting && ctx->padding && out_blocks != 0 && total % kBlock == 0)
            --out_blocks;
        const size_t produced = out_blocks * kBlock;
        if (!require_output(ctx->prov, out, outsize, produced)) return 0;
        if (out_blocks != 0 && ctx->buffered != 0 && out == in) {
            // In place with bytes waiting: shift the input up behind them so
            // the whole stream lies in `out` and is processed in place.
            if (!require_room(ctx, total, outsize)) return 0;
            std::memmove(out + ctx->buffered, in, inl);
            std::memcpy(out, ctx->buf, ctx->buffered);
            wipe(ctx->buf, sizeof ctx->buf);  // consumed message bytes
            in = out;
            inl = total;
            ctx->buffered = 0;
        } else if (out_blocks != 0 && ctx->buffered != 0) {
            const size_t take = kBlock - ctx->buffered;
            std::memcpy(ctx->buf + ctx->buffered, in, take);
            Mode::blocks(ctx->state, ctx->encrypting, out, ctx->buf, 1);
            wipe(ctx->buf, sizeof ctx->buf);
            in += take;
            inl -= take;
            out += kBlock;
            --out_blocks;
            ctx->buffered = 0;
        }
        if (out_blocks != 0) {
            Mode::blocks(ctx->state, ctx->encrypting, out, in, out_blocks);
            in += out_blocks * kBlock;
            inl -= out_blocks * kBlock;
        }
        std::memcpy(ctx->buf + ctx->buffered, in, inl);
        ctx->buffered += inl;
        *outl = produced;
        return 1;
    }

    static bool require_input(const Ctx* ctx, const unsigned char* in, size_t inl,
                              size_t max_len) {
        if (inl <= max_len && is_real_buffer(in, inl)) return true;
        raise_error(ctx->prov, kErrInvalidLength,
                    "input length %zu cannot be a buffer (a negative int?)", inl);
        return false;
    }

    static int update(Ctx* ctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) {
        if (!require_key(ctx) || !require_not_finalized(ctx, kErrUpdateAfterFinal)) return 0;
        // Before any arithmetic on inl: EVP passed an int.
        if (!require_input(ctx, in, inl, kMaxCipherUpdateLength)) return 0;
        if (inl == 0) {
            *outl = 0;
            return 1;
        }
        if constexpr (kBlockMode) {
            return block_update(ctx, out, outl, outsize, in, inl);
        } else {
            if (!require_output(ctx->prov, out, outsize, inl)) return 0;
            Mode::stream(ctx->state, ctx->encrypting, out, in, inl);
            *outl = inl;
            return 1;
        }
    }

    static int block_final(Ctx* ctx, unsigned char* out, size_t* outl, size_t outsize) {
        if (ctx->encrypting) {
            if (!ctx->padding && ctx->buffered == 0) {
                *outl = 0;
                return 1;
            }
            if (!ctx->padding) {
                raise_error(ctx->prov, kErrWrongFinalBlockLength,
                            "%zu bytes left over with padding off", ctx->buffered);
                return 0;
            }
            if (!require_output(ctx->prov, out, outsize, kBlock))
                return 0;
            const uint8_t pad = static_cast<uint8_t>(kBlock - ctx->buffered);
            std::memset(ctx->buf + ctx->buffered, pad, pad);
            Mode::blocks(ctx->state, true, out, ctx->buf, 1);
            wipe(ctx->buf, sizeof ctx->buf);
            ctx->buffered = 0;
            *outl = kBlock;
            return 1;
        }
        if (ctx->buffered == 0 && !ctx->padding) {
            *outl = 0;
            return 1;
        }
        if (ctx->buffered != kBlock) {
            raise_error(ctx->prov, kErrWrongFinalBlockLength,
                        "ciphertext is not a whole number of blocks");
            return 0;
        }
        // A refusal below leaves the context as it was: a block mode's
        // blocks() changes only the IV register, so that is all to restore
        // (a copy of the whole state would copy the key schedule too).
        uint8_t iv_before[kBlock];
        std::memcpy(iv_before, ctx->state.iv, kBlock);
        uint8_t plain[kBlock];
        Mode::blocks(ctx->state, false, plain, ctx->buf, 1);
        size_t len = kBlock;
        int ok = 1;
        if (ctx->padding && !pkcs7_unpad(plain, &len)) {
            raise_error(ctx->prov, kErrBadDecrypt);
            ok = 0;
        } else if (!require_output(ctx->prov, out, outsize, len)) {
            ok = 0;
        } else {
            std::memcpy(out, plain, len);
            wipe(ctx->buf, sizeof ctx->buf);
            ctx->buffered = 0;
            *outl = len;
        }
        if (!ok) std::memcpy(ctx->state.iv, iv_before, kBlock);
        wipe(plain, sizeof plain);
        return ok;
    }

    static int final(Ctx* ctx, unsigned char* out, size_t* outl, size_t outsize) {
        if (!require_key(ctx) || !require_not_finalized(ctx, kErrFinalCalledTwice)) return 0;
        if constexpr (kBlockMode) {
            if (!block_final(ctx, out, outl, outsize)) return 0;
        } else {
            *outl = 0;
        }
        ctx->finalized = true;
        return 1;
    }

    // EVP_Cipher(): no buffering and no padding, whole blocks for block modes.
    static int cipher(Ctx* ctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) {
        if (!require_key(ctx) ||
            !require_not_finalized(ctx, kErrUpdateAfterFinal) ||
            !require_input(ctx, in, inl, static_cast<size_t>(PTRDIFF_MAX)) ||
            !require_output(ctx->prov, out, outsize, inl))
            return 0;
        if constexpr (kBlockMode) {
            if (inl % kBlock != 0) {
                raise_error(ctx->prov, kErrWrongFinalBlockLength,
                            "EVP_Cipher needs whole blocks in this mode");
                return 0;
            }
            Mode::blocks(ctx->state, ctx->encrypting, out, in, inl / kBlock);
        } else {
            Mode::stream(ctx->state, ctx->encrypting, out, in, inl);
        }
        if (outl != nullptr) *outl = inl;
        return 1;
    }

    static CipherFacts facts() {
        return {Mode::kMode, Mode::kKeyLen, Mode::kIvLen, Mode::kBlockSize, false, false};
    }

    static int get_ctx_params(Ctx* ctx, OSSL_PARAM params[]) {
        if (refuse_repeated_generic_get(ctx->prov, params)) return 0;
        const bool ok =
            params::set_size(params, OSSL_CIPHER_PARAM_KEYLEN, Mode::kKeyLen) &&
            params::set_size(params, OSSL_CIPHER_PARAM_IVLEN, Mode::kIvLen) &&
            params::set_uint(params, OSSL_CIPHER_PARAM_PADDING, ctx->padding ? 1 : 0) &&
            params::set_uint(params, OSSL_CIPHER_PARAM_NUM, ctx->state.num) &&
            params::set_octets(params, OSSL_CIPHER_PARAM_IV, ctx->original_iv, Mode::kIvLen) &&
            params::set_octets(params, OSSL_CIPHER_PARAM_UPDATED_IV, ctx->state.iv, Mode::kIvLen);
        if (!ok) raise_error(ctx->prov, kErrFailedToSetParameter, "cannot return a parameter");
        return ok ? 1 : 0;
    }

    // The settable parameters, read in full before any is applied: a refusal
    // leaves the context as it was (the default provider applies padding
    // before it looks at num).
    struct Settings {
        bool padding;
        unsigned num;
        bool num_given;
    };

    static bool read_settings(const Ctx* ctx, const OSSL_PARAM params[], Settings& s) {
        if (params == nullptr) return true;
        // The default provider's settable keys, even those we ignore.
        if (refuse_repeated(ctx->prov, params,
                            {{OSSL_CIPHER_PARAM_PADDING}, {OSSL_CIPHER_PARAM_NUM},
                             {OSSL_CIPHER_PARAM_USE_BITS}, {OSSL_CIPHER_PARAM_TLS_VERSION},
                             {OSSL_CIPHER_PARAM_TLS_MAC_SIZE}}))
            return false;
        const OSSL_PARAM* p = params::locate(params, OSSL_CIPHER_PARAM_PADDING);
        unsigned padding = s.padding;
        if (p != nullptr && !params::get_uint(p, &padding)) {
            raise_error(ctx->prov, kErrFailedToGetParameter, "padding must be an unsigned integer");
            return false;
        }
        // num indexes the current block: more would read past it.
        p = params::locate(params, OSSL_CIPHER_PARAM_NUM);
        unsigned num = s.num;
        const bool num_given = p != nullptr;
        if (num_given && (!params::get_uint(p, &num) || num >= kBlock)) {
            raise_error(ctx->prov, kErrFailedToGetParameter, "num must be 0..%zu", kBlock - 1);
            return false;
        }
        // Read for their type only, as the default provider reads them:
        // use-bits concerns CFB1/CFB8, tls-mac-size TLS record mode.
        unsigned use_bits = 0;
        p = params::locate(params, OSSL_CIPHER_PARAM_USE_BITS);
        if (p != nullptr && !params::get_uint(p, &use_bits)) {
            raise_error(ctx->prov, kErrFailedToGetParameter, "use-bits must be an unsigned integer");
            return false;
        }
        size_t mac_size = 0;
        p = params::locate(params, OSSL_CIPHER_PARAM_TLS_MAC_SIZE);
        if (p != nullptr && !params::get_size_t(p, &mac_size)) {
            raise_error(ctx->prov, kErrFailedToGetParameter, "tls-mac-size must be an unsigned integer");
            return false;
        }
        // The default provider's TLS record mode (each update one record,
        // padded, or unpadded and its MAC split off) is not offered: a
        // version taken and ignored would hand back whole records.
        p = params::locate(params, OSSL_CIPHER_PARAM_TLS_VERSION);
        unsigned tls_version = 0;
        if (p != nullptr && !params::get_uint(p, &tls_version)) {
            raise_error(ctx->prov, kErrFailedToGetParameter, "tls-version must be an unsigned integer");
            return false;
        }
        if (tls_version != 0) {
            raise_error(ctx->prov, kErrInvalidParameter,
                        "no TLS record mode in SM4-ECB/CBC/CFB/OFB/CTR (tls-version 0x%x)", tls_version);
            return false;
        }
        s.padding = padding != 0;
        s.num = num;
        s.num_given = num_given;
        return true;
    }

    static void apply(Ctx* ctx, const Settings& s) {
        ctx->padding = s.padding;
        ctx->state.num = s.num;
        // A num set into a block makes the mode rebuild that block's stream
        // from the IV register, so a stream resumed from a saved (IV, num)
        // continues correctly.
        if (s.num_given && s.num != 0 && ctx->key_set) Mode::resume_stream(ctx->state);
    }

    static int set_ctx_params(Ctx* ctx, const OSSL_PARAM params[]) {
        Settings settings{ctx->padding, ctx->state.num, false};
        if (!read_settings(ctx, params, settings)) return 0;
        apply(ctx, settings);
        return 1;
    }

    static const OSSL_PARAM* gettable_ctx_params() { return generic_gettable_ctx_params(); }

    static const OSSL_PARAM* settable_ctx_params() {
        static const OSSL_PARAM table[] = {
            OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
            OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
            OSSL_PARAM_END,
        };
        return table;
    }

public:
    static const OSSL_DISPATCH* functions() { return CipherFunctions<CipherDispatch>::table; }
};

}  // namespace hwaccel
