// Digest function ids newer than the OpenSSL 3.0 headers we build against.
// An older core ignores ids it does not know, so one module built here
// offers them to OpenSSL 3.3+ (squeeze) and 3.5+ (copyctx) and still loads
// into 3.0; likewise 4.0's serialize/deserialize.
#pragma once

#include <openssl/core_dispatch.h>

#include <cstddef>

#ifndef OSSL_FUNC_DIGEST_SQUEEZE
#define OSSL_FUNC_DIGEST_SQUEEZE 14
typedef int(OSSL_FUNC_digest_squeeze_fn)(void* dctx, unsigned char* out, size_t* outl,
                                         size_t outsz);
#endif

#ifndef OSSL_FUNC_DIGEST_COPYCTX
#define OSSL_FUNC_DIGEST_COPYCTX 15
typedef void(OSSL_FUNC_digest_copyctx_fn)(void* outctx, void* inctx);
#endif

// OpenSSL 4.0: EVP_MD_CTX_serialize / EVP_MD_CTX_deserialize.
#ifndef OSSL_FUNC_DIGEST_SERIALIZE
#define OSSL_FUNC_DIGEST_SERIALIZE 16
#define OSSL_FUNC_DIGEST_DESERIALIZE 17
typedef int(OSSL_FUNC_digest_serialize_fn)(void* dctx, unsigned char* out, size_t* outl);
typedef int(OSSL_FUNC_digest_deserialize_fn)(void* dctx, const unsigned char* in, size_t inl);
#endif
