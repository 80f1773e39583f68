/* hwaccel linked into an application (libhwaccel.a; pkg-config hwaccel).
 *
 * Instead of loading hwaccel.so from OpenSSL's modules directory, a program
 * links the provider into itself and registers it under a name of its
 * choice in each library context that should have it:
 *
 *     #include <openssl/provider.h>
 *     #include <hwaccel/hwaccel_provider.h>
 *
 *     OSSL_PROVIDER_add_builtin(libctx, "hwaccel", hwaccel_provider_init);
 *     OSSL_PROVIDER *hw = OSSL_PROVIDER_load(libctx, "hwaccel");
 *
 * Its algorithms then carry the property "provider=hwaccel" (the name given
 * to OSSL_PROVIDER_add_builtin). Config files and HWACCEL_ENGINES work as
 * for the module.
 *
 * Usable from C and C++. The archive defines no OSSL_provider_init (only
 * hwaccel.so does), so it links beside other statically linked providers. */
#ifndef HWACCEL_HWACCEL_PROVIDER_H
#define HWACCEL_HWACCEL_PROVIDER_H

#include <openssl/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The provider's init function: the same as hwaccel.so's OSSL_provider_init
 * (the typedef from <openssl/core.h> fixes the signature). */
OSSL_provider_init_fn hwaccel_provider_init;

#ifdef __cplusplus
}
#endif

#endif /* HWACCEL_HWACCEL_PROVIDER_H */
