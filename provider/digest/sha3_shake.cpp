// SHA3-224/256/384/512 and SHAKE128/256 over the selected Keccak engine.
#include "digest/digest_dispatch.hpp"
#include "digest/digests.hpp"
#include "digest/keccak_sponge.hpp"
#include "digest/serialized_state.hpp"
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
        return Hasher(s.keccak, kRate, kPad);
    }
    static void finish(Hasher& h, uint8_t* out, size_t len) { h.finish(out, len); }
    static void squeeze(Hasher& h, uint8_t* out, size_t len) { h.squeeze(out, len); }

    // OpenSSL 4.0's EVP_MD_CTX_serialize format; md_size is SHAKE's xoflen.
    static constexpr bool kSerializable = true;
    static constexpr size_t kSerializedSize = serialized::kKeccakSize;
    static constexpr uint64_t kImplId = (kIsXof ? serialized::kShakeId : serialized::kSha3Id) + kOutput * 8;
    static constexpr uint8_t kPad = kIsXof ? kShakePad : kSha3Pad;
    static bool save(const Hasher& h, size_t md_size, uint8_t* out) {
        KeccakSponge::Snapshot s;
        if (!h.save(s)) return false;
        serialized::write_keccak(s, kImplId, md_size, kRate, kPad, out);
        secure_zero(&s, sizeof s);
        return true;
    }
    static const char* load(Hasher& h, size_t md_size, const uint8_t* in, size_t len) {
        KeccakSponge::Snapshot s;
        const char* why = serialized::read_keccak(in, len, kImplId, md_size, kRate, kPad, s);
        if (why == nullptr) h.load(s);
        secure_zero(&s, sizeof s);
        return why;
    }
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
