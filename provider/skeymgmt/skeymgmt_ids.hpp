// Key-management ids newer than the OpenSSL 3.0 headers we build against
// (core_dispatch.h of 3.5), as digest/newer_dispatch_ids.hpp does for
// digests: an older core never asks for the operation, so one module built
// here offers it to 3.5+ and still loads into 3.0.
#pragma once

#include <openssl/core_dispatch.h>

#ifndef OSSL_OP_SKEYMGMT
#define OSSL_OP_SKEYMGMT 15
#define OSSL_SKEYMGMT_SELECT_PARAMETERS 0x01
#define OSSL_SKEYMGMT_SELECT_SECRET_KEY 0x02
#define OSSL_FUNC_SKEYMGMT_FREE 1
#define OSSL_FUNC_SKEYMGMT_IMPORT 2
#define OSSL_FUNC_SKEYMGMT_EXPORT 3
#define OSSL_FUNC_SKEYMGMT_GENERATE 4
#define OSSL_FUNC_SKEYMGMT_IMP_SETTABLE_PARAMS 6
#define OSSL_FUNC_SKEYMGMT_GEN_SETTABLE_PARAMS 7
#endif
