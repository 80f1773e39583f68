// SHA3-224/256/384/512 and SHAKE128/256 over the selected Keccak engine.
#include "digest/digest_dispatch.hpp"
#include "digest/digests.hpp"
#include "digest/keccak_sponge.hpp"

namespace hwaccel {
namespace {

// capacity = 2 * security level; rate = 200 - capacity bytes (FIPS 202).
template <size_t kRate, size_t kOutput, bool kIsXof>
struct KeccakAlgo {
    using Hasher = KeccakSponge;
    static constexpr size_t kBlockSize = kRate;
    static constexpr size_t kDigestSize = kOutput;  // SHAKE: OpenSSL 3.0's default length
    static constexpr bool kXof = kIsXof;
    // As the default provider: no parameters in the AlgorithmIdentifier.
    static constexpr bool kAlgidAbsent = true;
    static Hasher make(const Selection& s) {
        return Hasher(s.keccak, kRate, kIsXof ? kShakePad : kSha3Pad);
    }
    static void finish(Hasher& h, uint8_t* out, size_t len) {
        h.squeeze(out, len);
        h.wipe();
    }
    static void squeeze(Hasher& h, uint8_t* out, size_t len) { h.squeeze(out, len); }
};

}  // namespace

const OSSL_DISPATCH* sha3_224_functions() { return DigestDispatch<KeccakAlgo<144, 28, false>>::table; }
const OSSL_DISPATCH* sha3_256_functions() { return DigestDispatch<KeccakAlgo<136, 32, false>>::table; }
const OSSL_DISPATCH* sha3_384_functions() { return DigestDispatch<KeccakAlgo<104, 48, false>>::table; }
const OSSL_DISPATCH* sha3_512_functions() { return DigestDispatch<KeccakAlgo<72, 64, false>>::table; }
const OSSL_DISPATCH* shake128_functions() { return DigestDispatch<KeccakAlgo<168, 16, true>>::table; }
const OSSL_DISPATCH* shake256_functions() { return DigestDispatch<KeccakAlgo<136, 32, true>>::table; }

}  // namespace hwaccel
