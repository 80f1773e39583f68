#include "algorithms.hpp"

#include "digest/digests.hpp"
#include "names.hpp"

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
        {nullptr, nullptr, nullptr, nullptr},
    };
}

}  // namespace hwaccel
