#include "algorithms.hpp"

#include "cipher/ciphers.hpp"
#include "digest/digests.hpp"
#include "names.hpp"
#include "skeymgmt/skeymgmt.hpp"

namespace hwaccel {

void build_algorithm_tables(ProvCtx& prov) {
    const char* property = prov.property.c_str();
    auto entry = [property](const char* names, const OSSL_DISPATCH* functions) {
        return OSSL_ALGORITHM{names, property, functions, nullptr};
    };
    prov.digests = {
        entry(names::kSha1, sha1_functions()),
        entry(names::kSha224, sha224_functions()),
        entry(names::kSha256, sha256_functions()),
        entry(names::kSha3_224, sha3_224_functions()),
        entry(names::kSha3_256, sha3_256_functions()),
        entry(names::kSha3_384, sha3_384_functions()),
        entry(names::kSha3_512, sha3_512_functions()),
        entry(names::kShake128, shake128_functions()),
        entry(names::kShake256, shake256_functions()),
        {nullptr, nullptr, nullptr, nullptr},
    };
    prov.ciphers = {
        entry(names::kSm4Ecb, sm4_ecb_functions()),
        entry(names::kSm4Cbc, sm4_cbc_functions()),
        entry(names::kSm4Cfb, sm4_cfb_functions()),
        entry(names::kSm4Ofb, sm4_ofb_functions()),
        entry(names::kSm4Ctr, sm4_ctr_functions()),
        entry(names::kSm4Ccm, sm4_ccm_functions()),
        entry(names::kSm4Gcm, sm4_gcm_functions()),
        entry(names::kSm4Xts, sm4_xts_functions()),
        {nullptr, nullptr, nullptr, nullptr},
    };
    prov.skeymgmt = {
        entry(names::kSm4SecretKey, sm4_skeymgmt_functions()),
        {nullptr, nullptr, nullptr, nullptr},
    };
}

}  // namespace hwaccel
