// SHA-1, SHA-224, SHA-256 over the selected SHA-1 / SHA-256 engines.
#include "digest/digest_dispatch.hpp"
#include "digest/digests.hpp"
#include "digest/md_hasher.hpp"
#include "digest/serialized_state.hpp"

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

    // OpenSSL 4.0 serializes SHA-224/256 (one format), not SHA-1.
    static constexpr bool kSerializable = Traits::kStateWords == 8;
    static constexpr size_t kSerializedSize = serialized::kSha256Size;
    static bool save(const Hasher& h, size_t, uint8_t* out) {
        typename Hasher::Snapshot s;
        h.save(s);
        serialized::write_sha256<Traits>(s, Traits::kDigestSize, out);
        secure_zero(&s, sizeof s);
        return true;
    }
    static const char* load(Hasher& h, size_t, const uint8_t* in, size_t len) {
        typename Hasher::Snapshot s;
        const char* why = serialized::read_sha256<Traits>(in, len, Traits::kDigestSize, s);
        if (why == nullptr) h.load(s);
        secure_zero(&s, sizeof s);
        return why;
    }
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
