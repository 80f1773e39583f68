// The cipher dispatch tables, one per algorithm and mode.
#pragma once

#include <openssl/core.h>

namespace hwaccel {

const OSSL_DISPATCH* sm4_ecb_functions();
const OSSL_DISPATCH* sm4_cbc_functions();
const OSSL_DISPATCH* sm4_cfb_functions();
const OSSL_DISPATCH* sm4_ofb_functions();
const OSSL_DISPATCH* sm4_ctr_functions();
const OSSL_DISPATCH* sm4_ccm_functions();
const OSSL_DISPATCH* sm4_gcm_functions();
const OSSL_DISPATCH* sm4_xts_functions();

}  // namespace hwaccel
