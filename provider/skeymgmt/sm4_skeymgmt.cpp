// The "SM4-SECRET" opaque key: its raw bytes in memory from the core's allocator,
// wiped when freed. Import takes "raw-bytes" (16 bytes, or 32 for
// SM4-XTS); export hands the same bytes back, and a cipher keyed with an
// EVP_SKEY gets them that way (EVP's fallback for a cipher without skey
// init functions reads them with EVP_SKEY_get0_raw_key, which keeps a
// pointer into the key object, not a copy: hence the bytes live in it).
// Generate (EVP_SKEY_generate) draws a fresh key: 16 bytes, or 32 for
// "key-length" 32 (OSSL_SKEY_PARAM_KEY_LENGTH, the only generation parameter
// OpenSSL names; the default provider's key managements generate nothing).
// A refusal raises an error, where the default's generic and AES key
// managements return NULL without one.
#include "skeymgmt/skeymgmt.hpp"

#include <openssl/core_dispatch.h>
#include <openssl/params.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "constant_time_equal.hpp"
#include "errors.hpp"
#include "memory.hpp"
#include "param_locate.hpp"
#include "params.hpp"
#include "prov_ctx.hpp"
#include "random_bytes.hpp"
#include "repeated_params.hpp"

namespace hwaccel {
namespace {

constexpr char kRawBytes[] = "raw-bytes";    // OSSL_SKEY_PARAM_RAW_BYTES
constexpr char kKeyLength[] = "key-length";  // OSSL_SKEY_PARAM_KEY_LENGTH

struct Sm4SecretKey {
    size_t length;  // 16 or 32
    uint8_t bytes[32];
};

void free_key(void* keydata) noexcept {
    if (keydata != nullptr) mem::clear_free(keydata, sizeof(Sm4SecretKey));
}

void* import_key(void* provctx, int selection, const OSSL_PARAM params[]) noexcept {
    const auto* prov = static_cast<const ProvCtx*>(provctx);
    return guarded<void*>(prov, nullptr, [&]() -> void* {
        if ((selection & OSSL_SKEYMGMT_SELECT_SECRET_KEY) == 0) {
            raise_error(prov, kErrInvalidParameter, "an SM4 key is imported with its secret bytes");
            return nullptr;
        }
        if (refuse_repeated(prov, params, {{kRawBytes}})) return nullptr;
        const OSSL_PARAM* p = params == nullptr ? nullptr : params::locate(params, kRawBytes);
        if (p == nullptr || p->data_type != OSSL_PARAM_OCTET_STRING || p->data == nullptr) {
            raise_error(prov, kErrFailedToGetParameter, "an SM4 key needs %s, an octet string",
                        kRawBytes);
            return nullptr;
        }
        if (p->data_size != 16 && p->data_size != 32) {
            raise_error(prov, kErrInvalidKeyLength,
                        "SM4 keys are 16 bytes (32 for SM4-XTS), got %zu", p->data_size);
            return nullptr;
        }
        auto* key = static_cast<Sm4SecretKey*>(mem::zalloc(sizeof(Sm4SecretKey)));
        if (key == nullptr) {
            raise_error(prov, kErrOutOfMemory);
            return nullptr;
        }
        key->length = p->data_size;
        std::memcpy(key->bytes, p->data, key->length);
        return key;
    });
}

// Fresh key bytes from the module's random source (random_bytes.hpp: the
// kernel's CSPRNG; the module cannot reach the library context's DRBG).
// An SM4-XTS pair whose halves came out equal (odds 2^-128) would be
// refused at encryption, so the second half is drawn again; a source that
// keeps repeating itself is broken, and the key is refused.
bool fill_random(Sm4SecretKey* key) {
    if (!random_bytes(key->bytes, key->length)) return false;
    if (key->length != 32) return true;
    for (int tries = 0; tries < 4; ++tries) {
        if (!constant_time_equal(key->bytes, key->bytes + 16, 16)) return true;
        if (!random_bytes(key->bytes + 16, 16)) return false;
    }
    return !constant_time_equal(key->bytes, key->bytes + 16, 16);
}

void* generate_key(void* provctx, const OSSL_PARAM params[]) noexcept {
    const auto* prov = static_cast<const ProvCtx*>(provctx);
    return guarded<void*>(prov, nullptr, [&]() -> void* {
        if (refuse_repeated(prov, params, {{kKeyLength}})) return nullptr;
        size_t length = 16;  // an SM4 key unless asked otherwise
        if (const OSSL_PARAM* p = params == nullptr ? nullptr : params::locate(params, kKeyLength)) {
            if (!params::get_size_t(p, &length)) {
                raise_error(prov, kErrFailedToGetParameter, "%s must be a non-negative integer",
                            kKeyLength);
                return nullptr;
            }
        }
        if (length != 16 && length != 32) {
            raise_error(prov, kErrInvalidKeyLength,
                        "SM4 keys are 16 bytes (32 for SM4-XTS), asked for %zu", length);
            return nullptr;
        }
        auto* key = static_cast<Sm4SecretKey*>(mem::zalloc(sizeof(Sm4SecretKey)));
        if (key == nullptr) {
            raise_error(prov, kErrOutOfMemory);
            return nullptr;
        }
        key->length = length;
        if (!fill_random(key)) {
            free_key(key);  // wipes what was drawn
            raise_error(prov, kErrFailedToGenerateKey, "no random bytes for an SM4 key");
            return nullptr;
        }
        return key;
    });
}

int export_key(void* keydata, int selection, OSSL_CALLBACK* param_cb, void* cbarg) noexcept {
    const auto* key = static_cast<const Sm4SecretKey*>(keydata);
    if (key == nullptr || param_cb == nullptr || (selection & OSSL_SKEYMGMT_SELECT_SECRET_KEY) == 0) return 0;
    // Built by hand: the module calls no libcrypto function.
    OSSL_PARAM out[] = {
        {kRawBytes, OSSL_PARAM_OCTET_STRING, const_cast<uint8_t*>(key->bytes), key->length,
         OSSL_PARAM_UNMODIFIED},
        {nullptr, 0, nullptr, 0, 0}};
    return param_cb(out, cbarg);
}

const OSSL_PARAM kImportSettable[] = {
    {kRawBytes, OSSL_PARAM_OCTET_STRING, nullptr, 0, 0},
    {nullptr, 0, nullptr, 0, 0},
};
const OSSL_PARAM* import_settable_params(void*) noexcept { return kImportSettable; }

// A size_t, as a cipher's "keylen"; any integer type is read (get_size_t).
// `openssl skeyutl -genkey -skeyopt key-length:32` builds its parameter
// from this list.
const OSSL_PARAM kGenSettable[] = {
    {kKeyLength, OSSL_PARAM_UNSIGNED_INTEGER, nullptr, sizeof(size_t), 0},
    {nullptr, 0, nullptr, 0, 0},
};
const OSSL_PARAM* gen_settable_params(void*) noexcept { return kGenSettable; }

using FreeFn = void(void*) noexcept;
using ImportFn = void*(void*, int, const OSSL_PARAM[]) noexcept;
using ExportFn = int(void*, int, OSSL_CALLBACK*, void*) noexcept;
using GenerateFn = void*(void*, const OSSL_PARAM[]) noexcept;
using SettableFn = const OSSL_PARAM*(void*) noexcept;
constexpr FreeFn* kFree = free_key;
constexpr ImportFn* kImport = import_key;
constexpr ExportFn* kExport = export_key;
constexpr GenerateFn* kGenerate = generate_key;
constexpr SettableFn* kSettable = import_settable_params;
constexpr SettableFn* kGenSettableFn = gen_settable_params;

const OSSL_DISPATCH kSm4Skeymgmt[] = {
    {OSSL_FUNC_SKEYMGMT_FREE, reinterpret_cast<void (*)(void)>(kFree)},
    {OSSL_FUNC_SKEYMGMT_IMPORT, reinterpret_cast<void (*)(void)>(kImport)},
    {OSSL_FUNC_SKEYMGMT_EXPORT, reinterpret_cast<void (*)(void)>(kExport)},
    {OSSL_FUNC_SKEYMGMT_GENERATE, reinterpret_cast<void (*)(void)>(kGenerate)},
    {OSSL_FUNC_SKEYMGMT_IMP_SETTABLE_PARAMS, reinterpret_cast<void (*)(void)>(kSettable)},
    {OSSL_FUNC_SKEYMGMT_GEN_SETTABLE_PARAMS, reinterpret_cast<void (*)(void)>(kGenSettableFn)},
    {0, nullptr},
};

}  // namespace

const OSSL_DISPATCH* sm4_skeymgmt_functions() { return kSm4Skeymgmt; }

}  // namespace hwaccel
