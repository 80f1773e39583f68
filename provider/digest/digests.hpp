// The digest dispatch tables, one per algorithm.
#pragma once

#include <openssl/core.h>

namespace hwaccel {

const OSSL_DISPATCH* sha1_functions();
const OSSL_DISPATCH* sha224_functions();
const OSSL_DISPATCH* sha256_functions();
const OSSL_DISPATCH* sha3_224_functions();
const OSSL_DISPATCH* sha3_256_functions();
const OSSL_DISPATCH* sha3_384_functions();
const OSSL_DISPATCH* sha3_512_functions();
const OSSL_DISPATCH* shake128_functions();
const OSSL_DISPATCH* shake256_functions();

}  // namespace hwaccel
