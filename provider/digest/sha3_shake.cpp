// SHA3-224/256/384/512 and SHAKE128/256 over the selected Keccak engine.
#include "digest/digest_dispatch.hpp"
#include "digest/digests.hpp"
#include "digest/keccak_sponge.hpp"
#include "hwaccel/algorithm_facts.hpp"

namespace hwaccel {
namespace {

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
    static void finish(Hasher& h, uint8_t* out, size_t len) { h.finish(out, len); }
    static void squeeze(Hasher& h, uint8_t* out, size_t len) { h.squeeze(out, len); }
};

}  // namespace

// SHAKE's kDigestSize is OpenSSL 3.0's default output length (the security
// strength in bytes), not an algorithm fact.
using Sha3_224 = KeccakAlgo<kSha3_224Rate, kSha3_224DigestSize, false>;
using Sha3_256 = KeccakAlgo<kSha3_256Rate, kSha3_256DigestSize, false>;
using Sha3_384 = KeccakAlgo<kSha3_384Rate, kSha3_384DigestSize, false>;
using Sha3_512 = KeccakAlgo<kSha3_512Rate, kSha3_512DigestSize, false>;
using Shake128 = KeccakAlgo<kShake128Rate, 128 / 8, true>;
using Shake256 = KeccakAlgo<kShake256Rate, 256 / 8, true>;

const OSSL_DISPATCH* sha3_224_functions() { return DigestDispatch<Sha3_224>::table; }
const OSSL_DISPATCH* sha3_256_functions() { return DigestDispatch<Sha3_256>::table; }
const OSSL_DISPATCH* sha3_384_functions() { return DigestDispatch<Sha3_384>::table; }
const OSSL_DISPATCH* sha3_512_functions() { return DigestDispatch<Sha3_512>::table; }
const OSSL_DISPATCH* shake128_functions() { return DigestDispatch<Shake128>::table; }
const OSSL_DISPATCH* shake256_functions() { return DigestDispatch<Shake256>::table; }

}  // namespace hwaccel
