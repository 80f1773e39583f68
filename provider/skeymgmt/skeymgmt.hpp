// Opaque symmetric keys (EVP_SKEY, OpenSSL 3.5+): the key management
// hwaccel offers, so that EVP_CipherInit_SKEY can key its ciphers. OpenSSL
// requires the key and the cipher from one provider, so a key of the
// default provider's cannot key hwaccel's SM4 (docs/openssl-versions.md).
#pragma once

#include <openssl/core.h>

#include "skeymgmt/skeymgmt_ids.hpp"

namespace hwaccel {

// "SM4-SECRET": a 16-byte SM4 key, or the 32 bytes of SM4-XTS's two.
const OSSL_DISPATCH* sm4_skeymgmt_functions();

}  // namespace hwaccel
