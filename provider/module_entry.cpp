// hwaccel.so's entry point, the name OpenSSL's loader looks up. Only the
// module has it: libhwaccel.a offers hwaccel_provider_init alone, so an
// application can link it beside other static providers (docs/DESIGN.md).
#include <openssl/core.h>

#include "hwaccel/hwaccel_provider.h"

extern "C" __attribute__((visibility("default"))) int OSSL_provider_init(
    const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in, const OSSL_DISPATCH** out,
    void** provctx) {
    return hwaccel_provider_init(handle, in, out, provctx);
}
