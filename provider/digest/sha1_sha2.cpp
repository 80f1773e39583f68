// SHA-1, SHA-224, SHA-256 over the selected SHA-1 / SHA-256 engines.
#include "digest/digest_dispatch.hpp"
#include "digest/digests.hpp"
#include "digest/md_hasher.hpp"

namespace hwaccel {
namespace {

template <class Traits, const typename Traits::Engine* Selection::*kEngine>
struct MdAlgo {
    using Hasher = MdHasher<Traits>;
    static constexpr size_t kBlockSize = Hasher::kBlockSize;
    static constexpr size_t kDigestSize = Traits::kDigestSize;
    static constexpr bool kXof = false;
    static constexpr bool kAlgidAbsent = true;  // as the default provider: no NULL in AlgorithmIdentifier
    static Hasher make(const Selection& s) { return Hasher(s.*kEngine); }
    static void finish(Hasher& h, uint8_t* out, size_t) { h.finish(out); }
};

}  // namespace

const OSSL_DISPATCH* sha1_functions() {
    return DigestDispatch<MdAlgo<Sha1Traits, &Selection::sha1>>::table;
}
const OSSL_DISPATCH* sha224_functions() {
    return DigestDispatch<MdAlgo<Sha224Traits, &Selection::sha256>>::table;
}
const OSSL_DISPATCH* sha256_functions() {
    return DigestDispatch<MdAlgo<Sha256Traits, &Selection::sha256>>::table;
}

}  // namespace hwaccel
