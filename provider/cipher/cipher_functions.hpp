// The part of a cipher implementation that is the same for every mode: the
// context's life (allocated zeroed through the core, copied byte for byte,
// wiped when freed), the refusals every entry point makes first (no
// context; update and final without outl), and the OSSL_DISPATCH table
// with each function's signature checked against OpenSSL's. What a mode
// does with its context is the Impl's.
//
// Impl provides:
//   using Ctx;  trivially copyable (no pointers into itself, so a byte copy
//               is a deep copy), with a member `const ProvCtx* prov`
//   static void setup(Ctx&, const ProvCtx&);  defaults and engines of a new,
//                                             zeroed context
//   static int init(Ctx*, key, keylen, iv, ivlen, params, bool encrypt);
//   static int update(Ctx*, out, size_t* outl, outsize, in, inl);  outl set
//   static int final(Ctx*, out, size_t* outl, outsize);              outl set
//   static int cipher(Ctx*, out, size_t* outl, outsize, in, inl);  outl may be NULL
//   static CipherFacts facts();                 what get_params reports
//   static int get_ctx_params(Ctx*, OSSL_PARAM[]);
//   static int set_ctx_params(Ctx*, const OSSL_PARAM[]);
//   static const OSSL_PARAM* gettable_ctx_params();
//   static const OSSL_PARAM* settable_ctx_params();
//
// After it, the checks every mode makes alike: a parameter named twice
// (3.6+), room for the output, the key's length.
#pragma once

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>

#include <new>
#include <type_traits>

#include "cipher/cipher_params.hpp"
#include "errors.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "lengths.hpp"
#include "memory.hpp"
#include "openssl_version.hpp"
#include "params.hpp"
#include "prov_ctx.hpp"
#include "repeated_params.hpp"

namespace hwaccel {

template <class Impl>
class CipherFunctions {
    using Ctx = typename Impl::Ctx;
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
            Impl::setup(*ctx, *prov);
            return ctx;
        });
    }

    static void freectx(void* vctx) noexcept {
        if (vctx != nullptr) mem::clear_free(vctx, sizeof(Ctx));
    }

    // The copy moves the key schedule through vector registers where the
    // compiler calls memcpy for it (clang, sanitizer builds; GCC's -O3 uses
    // REP MOVSQ) and glibc's copies through ymm16-31: cleared before the
    // copy's caller gets control back.
    static void* dupctx(void* vctx) noexcept {
        Ctx* src = cast(vctx);
        if (src == nullptr) return nullptr;
        void* mem = mem::malloc(sizeof(Ctx));
        if (mem == nullptr) {
            raise_error(src->prov, kErrOutOfMemory);
            return nullptr;
        }
        Ctx* copy = new (mem) Ctx(*src);
        clear_vector_registers();
        return copy;
    }

    // With a key, the registers are cleared on the way out: the engine's
    // set_key clears its own, but the key also passes through the mode's
    // compiled code (XTS compares its halves). An IV-only init (GCM's per
    // message) has no key in flight and pays nothing.
    static int init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
                    size_t ivlen, const OSSL_PARAM params[], bool encrypt) {
        Ctx* ctx = cast(vctx);
        if (ctx == nullptr) return 0;
        const int ok = Impl::init(ctx, key, keylen, iv, ivlen, params, encrypt);
        if (key != nullptr) clear_vector_registers();
        return ok;
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

    // update and final report their output length through outl, and the
    // caller cannot know it otherwise.
    static bool require_outl(const Ctx* ctx, const size_t* outl) {
        if (outl != nullptr) return true;
        raise_error(ctx->prov, kErrInvalidParameter, "outl is NULL");
        return false;
    }

    static int update(void* vctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) noexcept {
        Ctx* ctx = cast(vctx);
        if (ctx == nullptr || !require_outl(ctx, outl)) return 0;
        return Impl::update(ctx, out, outl, outsize, in, inl);
    }

    static int final(void* vctx, unsigned char* out, size_t* outl, size_t outsize) noexcept {
        Ctx* ctx = cast(vctx);
        if (ctx == nullptr || !require_outl(ctx, outl)) return 0;
        return Impl::final(ctx, out, outl, outsize);
    }

    static int cipher(void* vctx, unsigned char* out, size_t* outl, size_t outsize,
                      const unsigned char* in, size_t inl) noexcept {
        Ctx* ctx = cast(vctx);
        return ctx != nullptr ? Impl::cipher(ctx, out, outl, outsize, in, inl) : 0;
    }

    static int get_params(OSSL_PARAM params[]) noexcept {
        return set_cipher_params(params, Impl::facts()) ? 1 : 0;
    }

    static const OSSL_PARAM* gettable_params(void*) noexcept { return cipher_gettable_params(); }

    static int get_ctx_params(void* vctx, OSSL_PARAM params[]) noexcept {
        Ctx* ctx = cast(vctx);
        return ctx != nullptr ? Impl::get_ctx_params(ctx, params) : 0;
    }

    static int set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
        Ctx* ctx = cast(vctx);
        return ctx != nullptr ? Impl::set_ctx_params(ctx, params) : 0;
    }

    static const OSSL_PARAM* gettable_ctx_params(void*, void*) noexcept {
        return Impl::gettable_ctx_params();
    }

    static const OSSL_PARAM* settable_ctx_params(void*, void*) noexcept {
        return Impl::settable_ctx_params();
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

// The generic cipher's gettable keys (its list and "tls-mac").
inline bool refuse_repeated_generic_get(const ProvCtx* prov, const OSSL_PARAM* params) {
    return refuse_repeated(prov, params,
                           {{OSSL_CIPHER_PARAM_KEYLEN}, {OSSL_CIPHER_PARAM_IVLEN},
                            {OSSL_CIPHER_PARAM_PADDING}, {OSSL_CIPHER_PARAM_NUM},
                            {OSSL_CIPHER_PARAM_IV}, {OSSL_CIPHER_PARAM_UPDATED_IV},
                            {OSSL_CIPHER_PARAM_TLS_MAC}});
}

// Where an update writes `need` bytes: room for them, and a real buffer.
inline bool require_output(const ProvCtx* prov, const unsigned char* out, size_t outsize,
                           size_t need) {
    if (outsize < need) {
        raise_error(prov, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", need, outsize);
        return false;
    }
    if (!is_real_buffer(out, need)) {
        raise_error(prov, kErrInvalidLength, "no output buffer for %zu bytes", need);
        return false;
    }
    return true;
}

// The key-length check of init, before anything changes.
inline bool require_key_length(const ProvCtx* prov, const unsigned char* key, size_t keylen,
                               size_t want) {
    if (key == nullptr || keylen == want) return true;
    raise_error(prov, kErrInvalidKeyLength, "SM4 keys are %zu bytes, got %zu", want, keylen);
    return false;
}

}  // namespace hwaccel
