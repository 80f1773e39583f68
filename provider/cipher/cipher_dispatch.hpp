// One cipher implementation for every mode: the dispatch table is generated
// from a mode traits type (the role ciphercommon.h plays in OpenSSL's own
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
//   stream modes: static void stream(State&, bool enc, out, in, len);
#pragma once

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>
#include <new>
#include <type_traits>

#include "errors.hpp"
#include "lengths.hpp"
#include "memory.hpp"
#include "openssl_version.hpp"
#include "cipher/cipher_params.hpp"
#include "cipher/pkcs7.hpp"
#include "params.hpp"
#include "prov_ctx.hpp"
#include "wipe.hpp"

namespace hwaccel {

template <class Mode>
class CipherDispatch {
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
    static_assert(std::is_trivially_copyable_v<Ctx>);
    static_assert(std::is_trivially_destructible_v<Ctx>);

    static Ctx* cast(void* vctx) { return static_cast<Ctx*>(vctx); }

    static void* newctx(void* provctx) noexcept {
        auto* prov = static_cast<const ProvCtx*>(provctx);
        if (prov == nullptr) return nullptr;  // the engines live there
        return guarded<void*>(prov, nullptr, [&]() -> void* {
            void* mem = mem::zalloc(sizeof(Ctx));
            if (mem == nullptr) {
                raise_error(prov, kErrOutOfMemory);
                return nullptr;
            }
            Ctx* ctx = new (mem) Ctx{};
            ctx->prov = prov;
            ctx->padding = true;
            Mode::bind(ctx->state, prov->engines);
            return ctx;
        });
    }

    static void freectx(void* vctx) noexcept {
        if (vctx != nullptr) mem::clear_free(vctx, sizeof(Ctx));
    }

    static void* dupctx(void* vctx) noexcept {
        Ctx* src = cast(vctx);
        if (src == nullptr) return nullptr;
        void* mem = mem::malloc(sizeof(Ctx));
        if (mem == nullptr) {
            raise_error(src->prov, kErrOutOfMemory);
            return nullptr;
        }
        return new (mem) Ctx(*src);
    }

    static int init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                    size_t ivlen, const OSSL_PARAM params[], bool encrypt) {
        Ctx* ctx = cast(vctx);
        if (ctx == nullptr) return 0;
        // Check everything before changing anything.
        if (key != nullptr && keylen != Mode::kKeyLen) {
            raise_error(ctx->prov, kErrInvalidKeyLength, "SM4 keys are %zu bytes, got %zu",
                        Mode::kKeyLen, keylen);
            return 0;
        }
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

    static int encrypt_init(void* vctx, const unsigned char* key, size_t keylen,
                            const unsigned char* iv, size_t ivlen,
                            const OSSL_PARAM params[]) noexcept {
        return init(vctx, key, keylen, iv, ivlen, params, true);
    }

    static int decrypt_init(void* vctx, const unsigned char* key, size_t keylen,
                            const unsigned char* iv, size_t ivlen,
                            const OSSL_PARAM params[]) noexcept {
        return init(vctx, key, keylen, iv, ivlen, params, false);
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

    // update and final report their output length through outl, and the
    // caller cannot know it otherwise.
    static bool require_outl(const Ctx* ctx, const size_t* outl) {
        if (outl != nullptr) return true;
        raise_error(ctx->prov, kErrInvalidParameter, "outl is NULL");
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
        if (!require_room(ctx, produced, outsize) || !require_output(ctx, out, produced))
            return 0;
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

    // An output buffer that must receive `need` bytes.
    static bool require_output(const Ctx* ctx, const unsigned char* out, size_t need) {
        if (is_real_buffer(out, need)) return true;
        raise_error(ctx->prov, kErrInvalidLength, "no output buffer for %zu bytes", need);
        return false;
    }

    static bool require_input(const Ctx* ctx, const unsigned char* in, size_t inl,
                              size_t max_len) {
        if (inl <= max_len && is_real_buffer(in, inl)) return true;
        raise_error(ctx->prov, kErrInvalidLength,
                    "input length %zu cannot be a buffer (a negative int?)", inl);
        return false;
    }

    static int update(void* vctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) noexcept {
        Ctx* ctx = cast(vctx);
        if (ctx == nullptr || !require_outl(ctx, outl) || !require_key(ctx) ||
            !require_not_finalized(ctx, kErrUpdateAfterFinal))
            return 0;
        // Before any arithmetic on inl: EVP passed an int.
        if (!require_input(ctx, in, inl, kMaxCipherUpdateLength)) return 0;
        if (inl == 0) {
            *outl = 0;
            return 1;
        }
        if constexpr (kBlockMode) {
            return block_update(ctx, out, outl, outsize, in, inl);
        } else {
            if (!require_room(ctx, inl, outsize) || !require_output(ctx, out, inl)) return 0;
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
            if (!require_room(ctx, kBlock, outsize) || !require_output(ctx, out, kBlock))
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
        // Decrypt a copy: a refusal below leaves the context as it was.
        typename Mode::State state = ctx->state;
        uint8_t plain[kBlock];
        Mode::blocks(state, false, plain, ctx->buf, 1);
        size_t len = kBlock;
        int ok = 1;
        if (ctx->padding && !pkcs7_unpad(plain, &len)) {
            raise_error(ctx->prov, kErrBadDecrypt);
            ok = 0;
        } else if (!require_room(ctx, len, outsize) || !require_output(ctx, out, len)) {
            ok = 0;
        } else {
            std::memcpy(out, plain, len);
            ctx->state = state;
            wipe(ctx->buf, sizeof ctx->buf);
            ctx->buffered = 0;
            *outl = len;
        }
        wipe(plain, sizeof plain);
        wipe(&state, sizeof state);
        return ok;
    }

    static int final(void* vctx, unsigned char* out, size_t* outl, size_t outsize) noexcept {
        Ctx* ctx = cast(vctx);
        if (ctx == nullptr || !require_outl(ctx, outl) || !require_key(ctx) ||
            !require_not_finalized(ctx, kErrFinalCalledTwice))
            return 0;
        if constexpr (kBlockMode) {
            if (!block_final(ctx, out, outl, outsize)) return 0;
        } else {
            *outl = 0;
        }
        ctx->finalized = true;
        return 1;
    }

    // EVP_Cipher(): no buffering and no padding, whole blocks for block modes.
    static int cipher(void* vctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) noexcept {
        Ctx* ctx = cast(vctx);
        if (ctx == nullptr || !require_key(ctx) ||
            !require_not_finalized(ctx, kErrUpdateAfterFinal) ||
            !require_input(ctx, in, inl, static_cast<size_t>(PTRDIFF_MAX)) ||
            !require_room(ctx, inl, outsize) || !require_output(ctx, out, inl))
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

    static int get_params(OSSL_PARAM params[]) noexcept {
        return set_cipher_params(params, {Mode::kMode, Mode::kKeyLen, Mode::kIvLen, Mode::kBlockSize, false, false});
    }

    // OpenSSL 3.6 added "encrypt-then-mac" (0 for every cipher here): listed
    // where the running OpenSSL's default provider lists it.
    static const OSSL_PARAM* gettable_params(void*) noexcept {
        return cipher_gettable_params();
    }

    static int get_ctx_params(void* vctx, OSSL_PARAM params[]) noexcept {
        Ctx* ctx = cast(vctx);
        if (ctx == nullptr) return 0;
        if (refuses_repeated_params()) {
            if (const char* key = params::repeated(
                    params, {{OSSL_CIPHER_PARAM_KEYLEN}, {OSSL_CIPHER_PARAM_IVLEN},
                             {OSSL_CIPHER_PARAM_PADDING}, {OSSL_CIPHER_PARAM_NUM},
                             {OSSL_CIPHER_PARAM_IV}, {OSSL_CIPHER_PARAM_UPDATED_IV},
                             {OSSL_CIPHER_PARAM_TLS_MAC}})) {
                raise_error(ctx->prov, kErrInvalidParameter, "param %s is repeated", key);
                return 0;
            }
        }
        const bool ok =
            params::set_size(params, OSSL_CIPHER_PARAM_KEYLEN, Mode::kKeyLen) &&
            params::set_size(params, OSSL_CIPHER_PARAM_IVLEN, Mode::kIvLen) &&
            params::set_uint(params, OSSL_CIPHER_PARAM_PADDING, ctx->padding ? 1 : 0) &&
            params::set_uint(params, OSSL_CIPHER_PARAM_NUM, ctx->state.num) &&
            params::set_octets(params, OSSL_CIPHER_PARAM_IV, ctx->original_iv, Mode::kIvLen) &&
            params::set_octets(params, OSSL_CIPHER_PARAM_UPDATED_IV, ctx->state.iv, Mode::kIvLen);
        if (!ok) raise_error(ctx->prov, kErrInvalidParameter, "cannot return a parameter");
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
        if (refuses_repeated_params()) {
            if (const char* key = params::repeated(
                    params, {{OSSL_CIPHER_PARAM_PADDING}, {OSSL_CIPHER_PARAM_NUM},
                             {OSSL_CIPHER_PARAM_USE_BITS}, {OSSL_CIPHER_PARAM_TLS_VERSION},
                             {OSSL_CIPHER_PARAM_TLS_MAC_SIZE}})) {
                raise_error(ctx->prov, kErrInvalidParameter, "param %s is repeated", key);
                return false;
            }
        }
        const OSSL_PARAM* p = params::locate(params, OSSL_CIPHER_PARAM_PADDING);
        unsigned padding = s.padding;
        if (p != nullptr && !params::get_uint(p, &padding)) {
            raise_error(ctx->prov, kErrInvalidParameter, "padding must be an unsigned integer");
            return false;
        }
        // num indexes the current block: more would read past it.
        p = params::locate(params, OSSL_CIPHER_PARAM_NUM);
        unsigned num = s.num;
        if (p != nullptr && (!params::get_uint(p, &num) || num >= kBlock)) {
            raise_error(ctx->prov, kErrInvalidNum, "num must be 0..%zu", kBlock - 1);
            return false;
        }
        s.padding = padding != 0;
        s.num = num;
        s.num_given = p != nullptr;
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

    static int set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
        Ctx* ctx = cast(vctx);
        if (ctx == nullptr) return 0;
        Settings settings{ctx->padding, ctx->state.num, false};
        if (!read_settings(ctx, params, settings)) return 0;
        apply(ctx, settings);
        return 1;
    }

    static const OSSL_PARAM* gettable_ctx_params(void*, void*) noexcept {
        static const OSSL_PARAM table[] = {
            OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
            OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
            OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
            OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
            OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, nullptr, 0),
            OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, nullptr, 0),
            OSSL_PARAM_END,
        };
        return table;
    }

    static const OSSL_PARAM* settable_ctx_params(void*, void*) noexcept {
        static const OSSL_PARAM table[] = {
            OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
            OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
            OSSL_PARAM_END,
        };
        return table;
    }

    // Typed pointers first: the compiler checks each signature against
    // OpenSSL's before the cast to void(*)(void).
    static constexpr OSSL_FUNC_cipher_newctx_fn* kNewctx = newctx;
    static constexpr OSSL_FUNC_cipher_freectx_fn* kFreectx = freectx;
    static constexpr OSSL_FUNC_cipher_dupctx_fn* kDupctx = dupctx;
    static constexpr OSSL_FUNC_cipher_encrypt_init_fn* kEncryptInit = encrypt_init;
    static constexpr OSSL_FUNC_cipher_decrypt_init_fn* kDecryptInit = decrypt_init;
    static constexpr OSSL_FUNC_cipher_update_fn* kUpdate = update;
    static constexpr OSSL_FUNC_cipher_final_fn* kFinal = final;
    static constexpr OSSL_FUNC_cipher_cipher_fn* kCipher = cipher;
    static constexpr OSSL_FUNC_cipher_get_params_fn* kGetParams = get_params;
    static constexpr OSSL_FUNC_cipher_gettable_params_fn* kGettableParams = gettable_params;
    static constexpr OSSL_FUNC_cipher_get_ctx_params_fn* kGetCtxParams = get_ctx_params;
    static constexpr OSSL_FUNC_cipher_set_ctx_params_fn* kSetCtxParams = set_ctx_params;
    static constexpr OSSL_FUNC_cipher_gettable_ctx_params_fn* kGettableCtxParams =
        gettable_ctx_params;
    static constexpr OSSL_FUNC_cipher_settable_ctx_params_fn* kSettableCtxParams =
        settable_ctx_params;

    template <class Fn>
    static void (*erase(Fn* fn))(void) {
        return reinterpret_cast<void (*)(void)>(fn);
    }

public:
    static inline const OSSL_DISPATCH table[] = {
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
};

}  // namespace hwaccel
