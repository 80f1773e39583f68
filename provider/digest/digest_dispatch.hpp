// One digest implementation for every algorithm: the dispatch table is
// generated from a small traits type (the role digestcommon.h plays in
// OpenSSL's own providers).
//
// Algo provides:
//   using Hasher;                         a value type with update/wipe/reset, and
//                                         reset_wiped (reset after a wipe)
//   static Hasher make(const Selection&); bound to this instance's engine
//   static void finish(Hasher&, uint8_t* out, size_t len);  writes len bytes, wipes
//   kBlockSize, kDigestSize (the default output length), kXof, kAlgidAbsent
//   XOFs also: static void squeeze(Hasher&, uint8_t* out, size_t len);
//   (used under `if constexpr (Algo::kXof)`: other digests need none)
//   kSerializable, and then (EVP_MD_CTX_serialize, OpenSSL 4.0):
//   kSerializedSize; static bool save(const Hasher&, size_t xoflen, uint8_t* out)
//   (false: not in a state that can be saved); static const char* load(Hasher&,
//   size_t xoflen, const uint8_t* in, size_t len) (null, or why not: then the
//   hasher is unchanged)
#pragma once

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstring>
#include <new>
#include <type_traits>

#include "digest/newer_dispatch_ids.hpp"
#include "errors.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "lengths.hpp"
#include "memory.hpp"
#include "openssl_version.hpp"
#include "params.hpp"
#include "prov_ctx.hpp"
#include "repeated_params.hpp"

namespace hwaccel {

template <class Algo>
class DigestDispatch {
    // kNew: no init yet (EVP always calls it; a direct caller must too);
    // kFresh: nothing absorbed; kAbsorbing: message data in the hasher;
    // kSqueezing: EVP_DigestSqueeze began (only more squeezes may follow);
    // kFinalized: final happened (and wiped), only init may follow.
    enum class Phase : uint8_t { kNew, kFresh, kAbsorbing, kSqueezing, kFinalized };

    // An XOF length nobody set (OpenSSL 3.4+ has no default for SHAKE); an
    // explicit SIZE_MAX means the same, as in the 3.4+ default provider.
    static constexpr size_t kUnsetLength = SIZE_MAX;

    static size_t default_length() {
        if (Algo::kXof && !shake_has_default_length()) return kUnsetLength;
        return Algo::kDigestSize;
    }

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
        void* mem = mem::malloc(sizeof(Ctx));
        return mem ? new (mem) Ctx(value) : nullptr;
    }

    // This algorithm's slot among the instance's spare contexts.
    static size_t spare_slot() noexcept {
        static const size_t slot = SpareContexts::next_slot();
        return slot;
    }

    static void* newctx(void* provctx) noexcept {
        auto* prov = static_cast<const ProvCtx*>(provctx);
        if (prov == nullptr) return nullptr;  // the engines live there
        return guarded<void*>(prov, nullptr, [&]() -> void* {
            // Built in place: a temporary plus copy showed in 16-byte profiles.
            void* mem = prov->spare_digest_contexts.take(spare_slot());
            if (mem == nullptr) mem = mem::malloc(sizeof(Ctx));
            if (mem == nullptr) {
                raise_error(prov, kErrOutOfMemory);
                return nullptr;
            }
            return new (mem) Ctx{prov, Algo::make(prov->engines), default_length(), Phase::kNew};
        });
    }

    // Only a message in progress is wiped: final wiped the rest already, and
    // the other fields are not secret. (Clearing the whole context with
    // OPENSSL_cleanse was 6% of a 16-byte SHA3-256: EVP 3.0 makes a new
    // context for every EVP_DigestInit_ex2.)
    // A context that holds nothing of a message (finished, or never begun)
    // may be kept as the instance's spare for the next newctx.
    static void freectx(void* vctx) noexcept {
        auto* ctx = static_cast<Ctx*>(vctx);
        if (ctx == nullptr) return;
        if (ctx->phase == Phase::kAbsorbing || ctx->phase == Phase::kSqueezing) {
            ctx->hasher.wipe();
        } else if (ctx->prov->spare_digest_contexts.give(spare_slot(), ctx)) {
            return;
        }
        mem::free(ctx);
    }

    // A copy moves the state through vector registers (GCC's inlined
    // copies, glibc's memcpy): under HMAC a key-derived chaining value, and
    // the buffered message. The registers are cleared before returning.
    static void* dupctx(void* vctx) noexcept {
        auto* src = static_cast<const Ctx*>(vctx);
        if (src == nullptr) return nullptr;
        Ctx* ctx = alloc(*src);
        clear_vector_registers();
        if (ctx == nullptr) raise_error(src->prov, kErrOutOfMemory);
        return ctx;
    }

    // Reads the XOF length from params into `len` (unchanged if absent);
    // false, with an error, if it is there but not a size_t.
    static bool read_xoflen(const Ctx* ctx, const OSSL_PARAM params[], size_t& len) {
        if constexpr (Algo::kXof) {
            if (params == nullptr) return true;  // every init from EVP
            return search_xoflen(ctx, params, len);
        }
        return true;
    }
    // read_xoflen's search, out of line: its strcmp calls and repeat check
    // made init and set_ctx_params save six registers and build a frame
    // on every call, parameters or not.
    [[gnu::noinline]] static bool search_xoflen(const Ctx* ctx, const OSSL_PARAM params[],
                                                size_t& len) {
        if constexpr (Algo::kXof) {
            if (refuse_repeated(ctx->prov, params, {{OSSL_DIGEST_PARAM_XOFLEN, OSSL_DIGEST_PARAM_SIZE}}))
                return false;
            // "size" is an alias of "xoflen" (OpenSSL 3.4+).
            const OSSL_PARAM* p = params::locate(params, OSSL_DIGEST_PARAM_XOFLEN);
            if (p == nullptr) p = params::locate(params, OSSL_DIGEST_PARAM_SIZE);
            if (p != nullptr && !params::get_size_t(p, &len)) {
                raise_error(ctx->prov, kErrFailedToGetParameter, "xoflen must be a size_t");
                return false;
            }
        }
        return true;
    }

    // EVP_DigestFinalXOF's request, made before every XOF final: "xoflen"
    // alone, as a native size_t. Taken straight, as read_xoflen would take
    // it (one parameter cannot be repeated), without its search and calls.
    static bool is_plain_xoflen(const OSSL_PARAM* params) {
        const OSSL_PARAM& p = params[0];
        return p.key != nullptr && params[1].key == nullptr &&
               p.data_type == OSSL_PARAM_UNSIGNED_INTEGER && p.data_size == sizeof(size_t) &&
               p.data != nullptr && key_is(p.key, OSSL_DIGEST_PARAM_XOFLEN);
    }
    // strcmp(key, name) == 0 for a short literal name, inline; stops at the
    // first difference, so it never reads past the end of a shorter key.
    template <size_t N>
    static bool key_is(const char* key, const char (&name)[N]) {
        for (size_t i = 0; i < N; ++i)
            if (key[i] != name[i]) return false;
        return true;
    }

    static int set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
        auto* ctx = static_cast<Ctx*>(vctx);
        if (ctx == nullptr) return 0;
        if constexpr (Algo::kXof) {
            if (params != nullptr && is_plain_xoflen(params)) {
                std::memcpy(&ctx->xoflen, params[0].data, sizeof(size_t));
                return 1;
            }
        }
        return read_xoflen(ctx, params, ctx->xoflen) ? 1 : 0;
    }

    static int init(void* vctx, const OSSL_PARAM params[]) noexcept {
        auto* ctx = static_cast<Ctx*>(vctx);
        if (ctx == nullptr) return 0;
        // Parameters first: a refused init leaves the message as it was (the
        // default provider has already discarded it).
        size_t xoflen = default_length();
        if (!read_xoflen(ctx, params, xoflen)) return 0;
        // Everything goes back to the start, the XOF length included (EVP
        // 3.1+ reuses a context after final and calls only init). Final
        // already wiped; only an abandoned message needs wiping here. A wiped
        // hasher needs no full reset (a Keccak reset clears 200 bytes that
        // the wipe cleared), and a new context (made reset) or one with
        // nothing absorbed is at the start already (EVP 3.0 makes a new
        // context for every init).
        if (ctx->phase == Phase::kAbsorbing || ctx->phase == Phase::kSqueezing)
            ctx->hasher.wipe();
        if (ctx->phase != Phase::kNew && ctx->phase != Phase::kFresh) ctx->hasher.reset_wiped();
        ctx->xoflen = xoflen;
        ctx->phase = Phase::kFresh;
        return 1;
    }

    static bool require_init(const Ctx* ctx) {
        if (ctx->phase != Phase::kNew) return true;
        raise_error(ctx->prov, kErrNotInitialised, "call init first");
        return false;
    }

    static int update(void* vctx, const unsigned char* in, size_t inl) noexcept {
        auto* ctx = static_cast<Ctx*>(vctx);
        if (ctx == nullptr || !require_init(ctx)) return 0;
        if (ctx->phase == Phase::kFinalized || ctx->phase == Phase::kSqueezing) {
            raise_error(ctx->prov, kErrUpdateAfterFinal,
                        ctx->phase == Phase::kSqueezing ? "update after squeeze" : nullptr);
            return 0;
        }
        if (!is_real_buffer(in, inl)) {
            raise_error(ctx->prov, kErrInvalidLength,
                        "input length %zu cannot be a buffer (a negative int?)", inl);
            return 0;
        }
        if (inl != 0) {
            ctx->hasher.update(in, inl);
            ctx->phase = Phase::kAbsorbing;
        }
        return 1;
    }

    // OpenSSL 3.0-3.3's EVP_DigestFinal_ex passes the digest's default size
    // (16 or 32 bytes for SHAKE) as outsz, not the caller's buffer, also
    // after the caller set a longer xoflen, which that release's manual
    // allows ("at most EVP_MAX_MD_SIZE bytes will be written unless [the
    // output length] was set to a larger value by the application"; 3.5's
    // own CMS code sets 32 and 64 and calls it). There outsz tells nothing,
    // so an xoflen up to EVP_MAX_MD_SIZE, the room that manual tells every
    // caller to make, is taken; a longer one is still refused (the default
    // provider writes whatever xoflen says): EVP_DigestFinalXOF passes the
    // real length. 3.4+'s EVP passes xoflen itself.
    static constexpr size_t kEvpMaxMdSize = 64;  // EVP_MAX_MD_SIZE
    static bool outsz_may_be_old_evp_default(size_t outsz) {
        return Algo::kXof && shake_has_default_length() && outsz == Algo::kDigestSize;
    }

    static int final(void* vctx, unsigned char* out, size_t* outl, size_t outsz) noexcept {
        auto* ctx = static_cast<Ctx*>(vctx);
        if (ctx == nullptr || !require_init(ctx)) return 0;
        if (ctx->phase == Phase::kFinalized || ctx->phase == Phase::kSqueezing) {
            raise_error(ctx->prov, kErrFinalCalledTwice,
                        ctx->phase == Phase::kSqueezing ? "final after squeeze" : nullptr);
            return 0;
        }
        const size_t len = ctx->xoflen;
        if (len == kUnsetLength) {
            raise_error(ctx->prov, kErrInvalidDigestLength,
                        "xoflen not set, or SIZE_MAX; OpenSSL 3.4+ has no default");
            return 0;
        }
        // A too-small buffer is refused before anything is written, and the
        // context stays usable.
        const bool old_evp_default = outsz_may_be_old_evp_default(outsz);
        if (outsz < len && !(old_evp_default && len <= kEvpMaxMdSize)) {
            raise_error(ctx->prov, kErrOutputBufferTooSmall,
                        old_evp_default
                            ? "need %zu bytes, have %zu (before OpenSSL 3.4 EVP_DigestFinal_ex gives no "
                              "buffer size: over 64 bytes, use EVP_DigestFinalXOF)"
                            : "need %zu bytes, have %zu",
                        len, outsz);
            return 0;
        }
        if (!is_real_buffer(out, len)) {
            raise_error(ctx->prov, kErrInvalidLength, "no output buffer for %zu bytes", len);
            return 0;
        }
        Algo::finish(ctx->hasher, out, len);
        ctx->phase = Phase::kFinalized;
        if (outl != nullptr) *outl = len;
        return 1;
    }

    // EVP_DigestSqueeze (OpenSSL 3.3+): output in pieces; any sequence of
    // squeezes yields the bytes of one long FinalXOF.
    static int squeeze(void* vctx, unsigned char* out, size_t* outl, size_t outsz) noexcept {
        auto* ctx = static_cast<Ctx*>(vctx);
        if (ctx == nullptr || !require_init(ctx)) return 0;
        if (ctx->phase == Phase::kFinalized) {
            raise_error(ctx->prov, kErrFinalCalledTwice, "squeeze after final");
            return 0;
        }
        if (!is_real_buffer(out, outsz)) {
            raise_error(ctx->prov, kErrInvalidLength, "no output buffer for %zu bytes", outsz);
            return 0;
        }
        // Nothing asked, nothing changes: absorbing may go on (as default).
        if (outsz == 0) {
            if (outl != nullptr) *outl = 0;
            return 1;
        }
        if constexpr (Algo::kXof) Algo::squeeze(ctx->hasher, out, outsz);
        ctx->phase = Phase::kSqueezing;
        if (outl != nullptr) *outl = outsz;
        return 1;
    }

    // EVP_MD_CTX_serialize (OpenSSL 4.0): the state in the default
    // provider's format (digest/serialized_state.hpp). out == NULL asks for
    // the size. Stricter than default: outl must be given (default writes
    // through a NULL outl without knowing the room), and only between
    // updates: after final or once squeezing began, nothing is saved.
    static int serialize(void* vctx, unsigned char* out, size_t* outl) noexcept {
        auto* ctx = static_cast<Ctx*>(vctx);
        if (ctx == nullptr) return 0;
        if constexpr (Algo::kSerializable) {
            if (outl == nullptr) {
                raise_error(ctx->prov, kErrInvalidParameter, "no length for the serialized state");
                return 0;
            }
            if (out == nullptr) {
                *outl = Algo::kSerializedSize;
                return 1;
            }
            if (!require_init(ctx)) return 0;
            if (ctx->phase == Phase::kFinalized || ctx->phase == Phase::kSqueezing) {
                raise_error(ctx->prov, kErrFinalCalledTwice,
                            ctx->phase == Phase::kSqueezing ? "serialize after squeeze"
                                                            : "serialize after final");
                return 0;
            }
            if (*outl < Algo::kSerializedSize) {
                raise_error(ctx->prov, kErrOutputBufferTooSmall, "need %zu bytes, have %zu",
                            Algo::kSerializedSize, *outl);
                return 0;
            }
            const bool saved = Algo::save(ctx->hasher, ctx->xoflen, out);
            clear_vector_registers();  // the state's copies, as dupctx
            if (!saved) {
                raise_error(ctx->prov, kErrInternal, "state cannot be serialized");
                return 0;
            }
            *outl = Algo::kSerializedSize;
            return 1;
        } else {
            (void)out, (void)outl;
            return 0;
        }
    }

    // EVP_MD_CTX_deserialize (OpenSSL 4.0): continues from a saved state of
    // the same algorithm and output length; anything else is refused and
    // the context stays as it was.
    static int deserialize(void* vctx, const unsigned char* in, size_t inl) noexcept {
        auto* ctx = static_cast<Ctx*>(vctx);
        if (ctx == nullptr) return 0;
        if constexpr (Algo::kSerializable) {
            if (!require_init(ctx)) return 0;
            if (in == nullptr || !is_real_buffer(in, inl)) {
                raise_error(ctx->prov, kErrInvalidLength, "no serialized state");
                return 0;
            }
            typename Algo::Hasher loaded = ctx->hasher;
            if (const char* why = Algo::load(loaded, ctx->xoflen, in, inl)) {
                loaded.wipe();
                raise_error(ctx->prov, kErrInvalidParameter, "cannot deserialize: %s", why);
                return 0;
            }
            ctx->hasher.wipe();
            ctx->hasher = loaded;
            loaded.wipe();
            clear_vector_registers();  // the state's copies, as dupctx
            ctx->phase = Phase::kAbsorbing;
            return 1;
        } else {
            (void)in, (void)inl;
            return 0;
        }
    }

    // EVP_MD_CTX_copy_ex into a context of the same digest (OpenSSL 3.5+).
    static void copyctx(void* out, void* in) noexcept {
        if (out != nullptr && in != nullptr && out != in) {
            *static_cast<Ctx*>(out) = *static_cast<const Ctx*>(in);
            clear_vector_registers();  // as dupctx
        }
    }

    static int get_ctx_params(void* vctx, OSSL_PARAM params[]) noexcept {
        auto* ctx = static_cast<Ctx*>(vctx);
        if (ctx == nullptr) return 0;
        if (refuse_repeated(ctx->prov, params, {{OSSL_DIGEST_PARAM_XOFLEN}, {OSSL_DIGEST_PARAM_SIZE}})) return 0;
        const bool ok = params::set_size(params, OSSL_DIGEST_PARAM_XOFLEN, ctx->xoflen) &&
                        params::set_size(params, OSSL_DIGEST_PARAM_SIZE, ctx->xoflen);
        // FAILED_TO_GET_PARAMETER: the default SHAKE's code here.
        if (!ok) raise_error(ctx->prov, kErrFailedToGetParameter, "cannot return a parameter");
        return ok ? 1 : 0;
    }

    static const OSSL_PARAM* gettable_ctx_params(void*, void*) noexcept {
        static const OSSL_PARAM table[] = {
            OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, nullptr),
            OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, nullptr),
            OSSL_PARAM_END,
        };
        return table;
    }

    // A fixed-size digest reports its size; an XOF its default output length
    // where the running OpenSSL has one (3.0-3.3), else 0 as 3.4+ does.
    static size_t reported_size() {
        if (Algo::kXof && !shake_has_default_length()) return 0;
        return Algo::kDigestSize;
    }

    static int get_params(OSSL_PARAM params[]) noexcept {
        return params::set_size(params, OSSL_DIGEST_PARAM_BLOCK_SIZE, Algo::kBlockSize) &&
               params::set_size(params, OSSL_DIGEST_PARAM_SIZE, reported_size()) &&
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
            OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, nullptr),
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
    static constexpr OSSL_FUNC_digest_get_ctx_params_fn* kGetCtxParams = get_ctx_params;
    static constexpr OSSL_FUNC_digest_gettable_ctx_params_fn* kGettableCtxParams =
        gettable_ctx_params;
    static constexpr OSSL_FUNC_digest_squeeze_fn* kSqueeze = squeeze;
    static constexpr OSSL_FUNC_digest_copyctx_fn* kCopyctx = copyctx;
    static constexpr OSSL_FUNC_digest_serialize_fn* kSerialize = serialize;
    static constexpr OSSL_FUNC_digest_deserialize_fn* kDeserialize = deserialize;

    template <class Fn>
    static void (*erase(Fn* fn))(void) {
        return reinterpret_cast<void (*)(void)>(fn);
    }

    // A zero id ends the table, so the conditional groups below work only
    // if every XOF is serializable.
    static_assert(!Algo::kXof || Algo::kSerializable);

public:
    static inline const OSSL_DISPATCH table[] = {
        {OSSL_FUNC_DIGEST_NEWCTX, erase(kNewctx)},
        {OSSL_FUNC_DIGEST_FREECTX, erase(kFreectx)},
        {OSSL_FUNC_DIGEST_DUPCTX, erase(kDupctx)},
        {OSSL_FUNC_DIGEST_COPYCTX, erase(kCopyctx)},
        {OSSL_FUNC_DIGEST_INIT, erase(kInit)},
        {OSSL_FUNC_DIGEST_UPDATE, erase(kUpdate)},
        {OSSL_FUNC_DIGEST_FINAL, erase(kFinal)},
        {OSSL_FUNC_DIGEST_GET_PARAMS, erase(kGetParams)},
        {OSSL_FUNC_DIGEST_GETTABLE_PARAMS, erase(kGettableParams)},
        // Where OpenSSL has a format (not SHA-1, whose entries here end the
        // table): serialize, deserialize.
        {Algo::kSerializable ? OSSL_FUNC_DIGEST_SERIALIZE : 0, Algo::kSerializable ? erase(kSerialize) : nullptr},
        {Algo::kSerializable ? OSSL_FUNC_DIGEST_DESERIALIZE : 0, Algo::kSerializable ? erase(kDeserialize) : nullptr},
        // XOFs only (SHAKE): length, squeeze. For fixed-size digests these
        // entries are terminators.
        {Algo::kXof ? OSSL_FUNC_DIGEST_SET_CTX_PARAMS : 0, Algo::kXof ? erase(kSetCtxParams) : nullptr},
        {Algo::kXof ? OSSL_FUNC_DIGEST_SETTABLE_CTX_PARAMS : 0, Algo::kXof ? erase(kSettableCtxParams) : nullptr},
        {Algo::kXof ? OSSL_FUNC_DIGEST_GET_CTX_PARAMS : 0, Algo::kXof ? erase(kGetCtxParams) : nullptr},
        {Algo::kXof ? OSSL_FUNC_DIGEST_GETTABLE_CTX_PARAMS : 0, Algo::kXof ? erase(kGettableCtxParams) : nullptr},
        {Algo::kXof ? OSSL_FUNC_DIGEST_SQUEEZE : 0, Algo::kXof ? erase(kSqueeze) : nullptr},
        {0, nullptr},
    };
};

}  // namespace hwaccel
