// One digest implementation for every algorithm: the dispatch table is
// generated from a small traits type (the role digestcommon.h plays in
// OpenSSL's own providers).
//
// Algo provides:
//   using Hasher;                         a value type with update/wipe/reset
//   static Hasher make(const Selection&); bound to this instance's engine
//   static void finish(Hasher&, uint8_t* out, size_t len);  writes len bytes, wipes
//   kBlockSize, kDigestSize (the default output length), kXof, kAlgidAbsent
#pragma once

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <new>
#include <type_traits>

#include "errors.hpp"
#include "params.hpp"
#include "prov_ctx.hpp"

namespace hwaccel {

template <class Algo>
class DigestDispatch {
    // kFresh: nothing absorbed; kAbsorbing: message data in the hasher;
    // kFinalized: final happened (and wiped), only init may follow.
    enum class Phase : uint8_t { kFresh, kAbsorbing, kFinalized };

    struct Ctx {
        const ProvCtx* prov;
        typename Algo::Hasher hasher;
        size_t xoflen;  // output length for XOFs; kDigestSize otherwise
        Phase phase;
    };
    // Contexts are plain values: dupctx is a byte copy with no pointers into
    // itself, and freeing is a wipe plus free.
    static_assert(std::is_trivially_copyable_v<Ctx>);
    static_assert(std::is_trivially_destructible_v<Ctx>);

    static Ctx* alloc(const Ctx& value) {
        void* mem = OPENSSL_malloc(sizeof(Ctx));
        return mem ? new (mem) Ctx(value) : nullptr;
    }

    static void* newctx(void* provctx) noexcept {
        auto* prov = static_cast<const ProvCtx*>(provctx);
        return guarded<void*>(prov, nullptr, [&]() -> void* {
            Ctx* ctx = alloc(Ctx{prov, Algo::make(prov->engines), Algo::kDigestSize, Phase::kFresh});
            if (ctx == nullptr) raise_error(prov, kErrOutOfMemory);
            return ctx;
        });
    }

    static void freectx(void* vctx) noexcept {
        if (vctx != nullptr) OPENSSL_clear_free(vctx, sizeof(Ctx));
    }

    static void* dupctx(void* vctx) noexcept {
        auto* src = static_cast<const Ctx*>(vctx);
        if (src == nullptr) return nullptr;
        Ctx* ctx = alloc(*src);
        if (ctx == nullptr) raise_error(src->prov, kErrOutOfMemory);
        return ctx;
    }

    static int set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
        auto* ctx = static_cast<Ctx*>(vctx);
        if (ctx == nullptr) return 0;
        if constexpr (Algo::kXof) {
            const OSSL_PARAM* p = OSSL_PARAM_locate_const(params, OSSL_DIGEST_PARAM_XOFLEN);
            if (p != nullptr) {
                size_t len;
                if (!OSSL_PARAM_get_size_t(p, &len)) {
                    raise_error(ctx->prov, kErrInvalidXofLength, "xoflen must be a size_t");
                    return 0;
                }
                ctx->xoflen = len;
            }
        }
        return 1;
    }

    static int init(void* vctx, const OSSL_PARAM params[]) noexcept {
        auto* ctx = static_cast<Ctx*>(vctx);
        if (ctx == nullptr) return 0;
        // Everything goes back to the start, the XOF length included (EVP
        // reuses a context after final and calls only init). Final already
        // wiped; only an abandoned message needs wiping here.
        if (ctx->phase == Phase::kAbsorbing) ctx->hasher.wipe();
        ctx->hasher.reset();
        ctx->xoflen = Algo::kDigestSize;
        ctx->phase = Phase::kFresh;
        return set_ctx_params(ctx, params);
    }

    static int update(void* vctx, const unsigned char* in, size_t inl) noexcept {
        auto* ctx = static_cast<Ctx*>(vctx);
        if (ctx == nullptr) return 0;
        if (ctx->phase == Phase::kFinalized) {
            raise_error(ctx->prov, kErrUpdateAfterFinal);
            return 0;
        }
        if (inl != 0) {
            ctx->hasher.update(in, inl);
            ctx->phase = Phase::kAbsorbing;
        }
        return 1;
    }

    static int final(void* vctx, unsigned char* out, size_t* outl, size_t outsz) noexcept {
        auto* ctx = static_cast<Ctx*>(vctx);
        if (ctx == nullptr) return 0;
        if (ctx->phase == Phase::kFinalized) {
            raise_error(ctx->prov, kErrFinalCalledTwice);
            return 0;
        }
        const size_t len = ctx->xoflen;
        // A too-small buffer is refused before anything is written, and the
        // context stays usable.
        if (outsz < len || (len != 0 && out == nullptr)) {
            raise_error(ctx->prov, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", len,
                        outsz);
            return 0;
        }
        Algo::finish(ctx->hasher, out, len);
        ctx->phase = Phase::kFinalized;
        if (outl != nullptr) *outl = len;
        return 1;
    }

    static int get_params(OSSL_PARAM params[]) noexcept {
        return params::set_size(params, OSSL_DIGEST_PARAM_BLOCK_SIZE, Algo::kBlockSize) &&
               params::set_size(params, OSSL_DIGEST_PARAM_SIZE, Algo::kDigestSize) &&
               params::set_int(params, OSSL_DIGEST_PARAM_XOF, Algo::kXof ? 1 : 0) &&
               params::set_int(params, OSSL_DIGEST_PARAM_ALGID_ABSENT, Algo::kAlgidAbsent ? 1 : 0);
    }

    static const OSSL_PARAM* gettable_params(void*) noexcept {
        static const OSSL_PARAM table[] = {
            OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_BLOCK_SIZE, nullptr),
            OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, nullptr),
            OSSL_PARAM_int(OSSL_DIGEST_PARAM_XOF, nullptr),
            OSSL_PARAM_int(OSSL_DIGEST_PARAM_ALGID_ABSENT, nullptr),
            OSSL_PARAM_END,
        };
        return table;
    }

    static const OSSL_PARAM* settable_ctx_params(void*, void*) noexcept {
        static const OSSL_PARAM table[] = {
            OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, nullptr),
            OSSL_PARAM_END,
        };
        return table;
    }

    // Assigning through the typed pointers makes the compiler check every
    // signature against OpenSSL's before the cast to void(*)(void).
    static constexpr OSSL_FUNC_digest_newctx_fn* kNewctx = newctx;
    static constexpr OSSL_FUNC_digest_freectx_fn* kFreectx = freectx;
    static constexpr OSSL_FUNC_digest_dupctx_fn* kDupctx = dupctx;
    static constexpr OSSL_FUNC_digest_init_fn* kInit = init;
    static constexpr OSSL_FUNC_digest_update_fn* kUpdate = update;
    static constexpr OSSL_FUNC_digest_final_fn* kFinal = final;
    static constexpr OSSL_FUNC_digest_get_params_fn* kGetParams = get_params;
    static constexpr OSSL_FUNC_digest_gettable_params_fn* kGettableParams = gettable_params;
    static constexpr OSSL_FUNC_digest_set_ctx_params_fn* kSetCtxParams = set_ctx_params;
    static constexpr OSSL_FUNC_digest_settable_ctx_params_fn* kSettableCtxParams =
        settable_ctx_params;

public:
    static inline const OSSL_DISPATCH table[] = {
        {OSSL_FUNC_DIGEST_NEWCTX, reinterpret_cast<void (*)(void)>(kNewctx)},
        {OSSL_FUNC_DIGEST_FREECTX, reinterpret_cast<void (*)(void)>(kFreectx)},
        {OSSL_FUNC_DIGEST_DUPCTX, reinterpret_cast<void (*)(void)>(kDupctx)},
        {OSSL_FUNC_DIGEST_INIT, reinterpret_cast<void (*)(void)>(kInit)},
        {OSSL_FUNC_DIGEST_UPDATE, reinterpret_cast<void (*)(void)>(kUpdate)},
        {OSSL_FUNC_DIGEST_FINAL, reinterpret_cast<void (*)(void)>(kFinal)},
        {OSSL_FUNC_DIGEST_GET_PARAMS, reinterpret_cast<void (*)(void)>(kGetParams)},
        {OSSL_FUNC_DIGEST_GETTABLE_PARAMS, reinterpret_cast<void (*)(void)>(kGettableParams)},
        // XOF length for SHAKE. Fixed-size digests have no settable
        // parameters: for them these two entries are terminators.
        {Algo::kXof ? OSSL_FUNC_DIGEST_SET_CTX_PARAMS : 0,
         Algo::kXof ? reinterpret_cast<void (*)(void)>(kSetCtxParams) : nullptr},
        {Algo::kXof ? OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS : 0,
         Algo::kXof ? reinterpret_cast<void (*)(void)>(kSettableCtxParams) : nullptr},
        {0, nullptr},
    };
};

}  // namespace hwaccel
