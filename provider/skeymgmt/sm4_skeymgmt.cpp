// The "SM4-SECRET" opaque key: its raw bytes in memory from the core's allocator,
// wiped when freed. Import takes "raw-bytes" (16 bytes, or 32 for
// SM4-XTS); export hands the same bytes back, and a cipher keyed with an
// EVP_SKEY gets them that way (EVP's fallback for a cipher without skey
// init functions reads them with EVP_SKEY_get0_raw_key, which keeps a
// pointer into the key object, not a copy: hence the bytes live in it).
// A refusal raises an error, where the default's generic and AES key
// managements return NULL without one.
#include "skeymgmt/skeymgmt.hpp"

#include <openssl/core_dispatch.h>
#include <openssl/params.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "errors.hpp"
#include "memory.hpp"
#include "param_locate.hpp"
#include "params.hpp"
#include "prov_ctx.hpp"
#include "repeated_params.hpp"

namespace hwaccel {
namespace {

constexpr char kRawBytes[] = "raw-bytes";  // OSSL_SKEY_PARAM_RAW_BYTES

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

using FreeFn = void(void*) noexcept;
using ImportFn = void*(void*, int, const OSSL_PARAM[]) noexcept;
using ExportFn = int(void*, int, OSSL_CALLBACK*, void*) noexcept;
using SettableFn = const OSSL_PARAM*(void*) noexcept;
constexpr FreeFn* kFree = free_key;
constexpr ImportFn* kImport = import_key;
constexpr ExportFn* kExport = export_key;
constexpr SettableFn* kSettable = import_settable_params;

const OSSL_DISPATCH kSm4Skeymgmt[] = {
    {OSSL_FUNC_SKEYMGMT_FREE, reinterpret_cast<void (*)(void)>(kFree)},
    {OSSL_FUNC_SKEYMGMT_IMPORT, reinterpret_cast<void (*)(void)>(kImport)},
    {OSSL_FUNC_SKEYMGMT_EXPORT, reinterpret_cast<void (*)(void)>(kExport)},
    {OSSL_FUNC_SKEYMGMT_IMP_SETTABLE_PARAMS, reinterpret_cast<void (*)(void)>(kSettable)},
    {0, nullptr},
};

}  // namespace

const OSSL_DISPATCH* sm4_skeymgmt_functions() { return kSm4Skeymgmt; }

}  // namespace hwaccel
