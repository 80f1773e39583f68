// One interface over the backend-level hashers (MdHasher, KeccakSponge) for
// tests, and the list of (algorithm, engine) pairs this machine can run.
//
// A new engine gets every test that iterates available_combos() just by being
// listed in the registry and reporting available(cpu_features()).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "digest/keccak_sponge.hpp"
#include "digest/md_hasher.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/registry.hpp"
#include "support/engine_manifest.hpp"
#include "support/vectors.hpp"

namespace hwaccel::test {

enum class Family { kSha1, kSha256, kKeccak };

enum class Algo {
    kSha1,
    kSha224,
    kSha256,
    kSha3_224,
    kSha3_256,
    kSha3_384,
    kSha3_512,
    kShake128,
    kShake256,
};

struct AlgoInfo {
    Algo id;
    const char* name;       // OpenSSL's name: "SHA1", "SHA3-256", "SHAKE128"
    const char* nist_name;  // CAVP file prefix: "SHA1", "SHA3_256", "SHAKE128"
    Family family;
    size_t digest_size;     // fixed output; for SHAKE OpenSSL's default length
    size_t block_size;      // 64, or the sponge rate
    bool xof;
    uint8_t pad;            // sponge domain/padding byte (kSha3Pad, kShakePad)
};

inline const std::array<AlgoInfo, 9>& all_algos() {
    static const std::array<AlgoInfo, 9> kAlgos = {{
        {Algo::kSha1, "SHA1", "SHA1", Family::kSha1, 20, 64, false, 0},
        {Algo::kSha224, "SHA224", "SHA224", Family::kSha256, 28, 64, false, 0},
        {Algo::kSha256, "SHA256", "SHA256", Family::kSha256, 32, 64, false, 0},
        // FIPS 202: rate = 200 - 2 * digest size.
        {Algo::kSha3_224, "SHA3-224", "SHA3_224", Family::kKeccak, 28, 144, false, kSha3Pad},
        {Algo::kSha3_256, "SHA3-256", "SHA3_256", Family::kKeccak, 32, 136, false, kSha3Pad},
        {Algo::kSha3_384, "SHA3-384", "SHA3_384", Family::kKeccak, 48, 104, false, kSha3Pad},
        {Algo::kSha3_512, "SHA3-512", "SHA3_512", Family::kKeccak, 64, 72, false, kSha3Pad},
        {Algo::kShake128, "SHAKE128", "SHAKE128", Family::kKeccak, 16, 168, true, kShakePad},
        {Algo::kShake256, "SHAKE256", "SHAKE256", Family::kKeccak, 32, 136, true, kShakePad},
    }};
    return kAlgos;
}

inline const AlgoInfo& algo_info(Algo id) {
    for (const AlgoInfo& a : all_algos())
        if (a.id == id) return a;
    throw std::invalid_argument("unknown Algo");
}

// ---- the typed hashers, one builder per algorithm

inline MdHasher<Sha1Traits> make_sha1(const Sha1Engine* e) { return MdHasher<Sha1Traits>(e); }
inline MdHasher<Sha224Traits> make_sha224(const Sha256Engine* e) {
    return MdHasher<Sha224Traits>(e);
}
inline MdHasher<Sha256Traits> make_sha256(const Sha256Engine* e) {
    return MdHasher<Sha256Traits>(e);
}
inline KeccakSponge make_sha3_224(const KeccakEngine* e) { return KeccakSponge(e, 144, kSha3Pad); }
inline KeccakSponge make_sha3_256(const KeccakEngine* e) { return KeccakSponge(e, 136, kSha3Pad); }
inline KeccakSponge make_sha3_384(const KeccakEngine* e) { return KeccakSponge(e, 104, kSha3Pad); }
inline KeccakSponge make_sha3_512(const KeccakEngine* e) { return KeccakSponge(e, 72, kSha3Pad); }
inline KeccakSponge make_shake128(const KeccakEngine* e) { return KeccakSponge(e, 168, kShakePad); }
inline KeccakSponge make_shake256(const KeccakEngine* e) { return KeccakSponge(e, 136, kShakePad); }

// ---- the same operations on any typed hasher (for tests that need the
// object itself, e.g. to place it at a guard page or inspect its bytes)

template <class H>
void hasher_update(H& h, const uint8_t* data, size_t len) {
    h.update(data, len);
}

// Writes the output and wipes, as the provider's final does. For MdHasher
// out_len must be its digest size.
template <class T>
void hasher_finish(MdHasher<T>& h, uint8_t* out, size_t out_len) {
    if (out_len != MdHasher<T>::kDigestSize) throw std::invalid_argument("wrong digest length");
    h.finish(out);
}
inline void hasher_finish(KeccakSponge& h, uint8_t* out, size_t out_len) {
    h.squeeze(out, out_len);
    h.wipe();
}

// Constructs at `storage` a fresh hasher of the same type, engine and
// algorithm as `like`, by its constructor (never by copying bytes), so
// storage that was zeroed beforehand keeps zero padding.
template <class T>
MdHasher<T>* construct_like(void* storage, const MdHasher<T>& like, const AlgoInfo&) {
    return new (storage) MdHasher<T>(like.engine());
}
inline KeccakSponge* construct_like(void* storage, const KeccakSponge& like, const AlgoInfo& info) {
    return new (storage) KeccakSponge(like.engine(), info.block_size, info.pad);
}

// ---- the uniform wrapper

// A value type like the hashers it holds: copying copies the hasher.
class Hasher {
public:
    using Variant = std::variant<MdHasher<Sha1Traits>, MdHasher<Sha224Traits>,
                                 MdHasher<Sha256Traits>, KeccakSponge>;

    Hasher(const AlgoInfo& info, Variant v) : info_(&info), v_(std::move(v)) {}

    const AlgoInfo& info() const { return *info_; }
    Variant& raw() { return v_; }
    const Variant& raw() const { return v_; }

    void update(const uint8_t* data, size_t len) {
        std::visit([&](auto& h) { hasher_update(h, data, len); }, v_);
    }

    // Writes the output and wipes the state (as the provider's final does).
    // out_len must be digest_size unless the algorithm is an XOF.
    void finish(uint8_t* out, size_t out_len) {
        if (!info_->xof && out_len != info_->digest_size)
            throw std::invalid_argument(std::string(info_->name) + ": wrong digest length");
        std::visit([&](auto& h) { hasher_finish(h, out, out_len); }, v_);
    }

    // XOF only: the next out_len bytes; the state stays live for more.
    void squeeze(uint8_t* out, size_t out_len) {
        if (!info_->xof) throw std::logic_error("squeeze on a fixed-length digest");
        std::get<KeccakSponge>(v_).squeeze(out, out_len);
    }

    void reset() {
        std::visit([](auto& h) { h.reset(); }, v_);
    }

private:
    const AlgoInfo* info_;
    Variant v_;
};

// ---- (algorithm, engine) pairs

struct Combo {
    const AlgoInfo* algo;
    // Exactly one of these is set, matching algo->family.
    const Sha1Engine* sha1 = nullptr;
    const Sha256Engine* sha256 = nullptr;
    const KeccakEngine* keccak = nullptr;
    bool is_generic = false;  // the portable engine (the last of its registry list)

    const char* engine_name() const {
        return sha1 ? sha1->name : sha256 ? sha256->name : keccak->name;
    }
    // "SHA3-256 [generic]": the name every test section carries.
    std::string label() const { return std::string(algo->name) + " [" + engine_name() + "]"; }

    Hasher make() const {
        static const char* const kFamily[] = {"sha1", "sha256", "sha3"};  // as Family, registry names
        record_engine(kFamily[static_cast<int>(algo->family)], engine_name(), "backend");
        switch (algo->id) {
        case Algo::kSha1: return Hasher(*algo, make_sha1(sha1));
        case Algo::kSha224: return Hasher(*algo, make_sha224(sha256));
        case Algo::kSha256: return Hasher(*algo, make_sha256(sha256));
        default: return Hasher(*algo, KeccakSponge(keccak, algo->block_size, algo->pad));
        }
    }

    // The same algorithm on the portable engine: the reference for differential tests.
    Combo generic() const {
        Combo c = *this;
        c.is_generic = true;
        if (sha1) c.sha1 = last(sha1_engines());
        if (sha256) c.sha256 = last(sha256_engines());
        if (keccak) c.keccak = last(keccak_engines());
        return c;
    }

private:
    template <class E>
    static const E* last(EngineList<E> list) {
        return list.items[list.count - 1];
    }
};

namespace detail {
template <class E>
void add_combos(std::vector<Combo>& out, const AlgoInfo& a, EngineList<E> engines, bool available,
                const E* Combo::*member) {
    for (size_t i = 0; i < engines.count; ++i) {
        const E* e = engines.items[i];
        if (e->available(cpu_features()) != available) continue;
        Combo c{&a};
        c.*member = e;
        c.is_generic = i + 1 == engines.count;
        out.push_back(c);
    }
}

inline std::vector<Combo> combos(bool available) {
    std::vector<Combo> out;
    for (const AlgoInfo& a : all_algos()) {
        switch (a.family) {
        case Family::kSha1:
            add_combos(out, a, sha1_engines(), available, &Combo::sha1);
            break;
        case Family::kSha256:
            add_combos(out, a, sha256_engines(), available, &Combo::sha256);
            break;
        case Family::kKeccak:
            add_combos(out, a, keccak_engines(), available, &Combo::keccak);
            break;
        }
    }
    return out;
}
}  // namespace detail

// ---- the NIST Monte Carlo harness

// The first `count` checkpoints of Monte file m for c's algorithm (the three
// algorithms differ: see vectors.hpp), from one hasher reset between hashes,
// so reset() after finish is part of the test.
inline std::vector<Bytes> monte_checkpoints(const Combo& c, const MonteVectors& m, size_t count) {
    Hasher h = c.make();
    const HashFn fn = [&h](const uint8_t* in, size_t in_len, uint8_t* out, size_t out_len) {
        h.reset();
        h.update(in, in_len);
        h.finish(out, out_len);
    };
    if (c.algo->xof) return monte_shake(m.seed, m.min_out_len, m.max_out_len, count, fn);
    if (c.algo->family == Family::kKeccak) return monte_sha3(m.seed, c.algo->digest_size, count, fn);
    return monte_sha2(m.seed, c.algo->digest_size, count, fn);
}

// Every algorithm on every registered engine this CPU can run, generic included.
inline std::vector<Combo> available_combos() { return detail::combos(true); }
// Registered engines this CPU cannot run (for reporting what was not tested).
inline std::vector<Combo> unavailable_combos() { return detail::combos(false); }

}  // namespace hwaccel::test
