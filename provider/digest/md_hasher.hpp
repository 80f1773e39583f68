// Merkle-Damgard buffering and padding (SHA-1, SHA-224, SHA-256) over an
// engine's block function. OpenSSL-free so the backend tests use it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwaccel/algorithm_facts.hpp"
#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"

namespace hwaccel {

struct Sha1Traits {
    using Engine = Sha1Engine;
    static constexpr size_t kStateWords = 5;
    static constexpr size_t kBlockSize = kSha1BlockSize;
    static constexpr size_t kDigestSize = kSha1DigestSize;
    static constexpr const uint32_t (&kInit)[5] = kSha1Init;
};

struct Sha224Traits {
    using Engine = Sha256Engine;
    static constexpr size_t kStateWords = 8;
    static constexpr size_t kBlockSize = kSha256BlockSize;
    static constexpr size_t kDigestSize = kSha224DigestSize;
    static constexpr const uint32_t (&kInit)[8] = kSha224Init;
};

struct Sha256Traits {
    using Engine = Sha256Engine;
    static constexpr size_t kStateWords = 8;
    static constexpr size_t kBlockSize = kSha256BlockSize;
    static constexpr size_t kDigestSize = kSha256DigestSize;
    static constexpr const uint32_t (&kInit)[8] = kSha256Init;
};

// A plain value: copying it is a deep copy (dupctx).
template <class Traits>
class MdHasher {
public:
    static constexpr size_t kBlockSize = Traits::kBlockSize;
    static constexpr size_t kDigestSize = Traits::kDigestSize;
    using Engine = typename Traits::Engine;

    explicit MdHasher(const Engine* engine) : engine_(engine) { reset(); }

    void reset() {
        std::memcpy(d_.state, Traits::kInit, sizeof d_.state);
        d_.total = 0;
        d_.buffered = 0;
    }

    // After wipe(): the same as reset() (the initial words must go back).
    void reset_wiped() { reset(); }

    void update(const uint8_t* data, size_t len) {
        d_.total += len;
        if (d_.buffered != 0) {
            size_t take = kBlockSize - d_.buffered;
            if (take > len) take = len;
            std::memcpy(d_.buffer + d_.buffered, data, take);
            d_.buffered += take;
            data += take;
            len -= take;
            if (d_.buffered < kBlockSize) return;
            engine_->blocks(d_.state, d_.buffer, 1);
            d_.buffered = 0;
        }
        if (size_t n = len / kBlockSize) {
            engine_->blocks(d_.state, data, n);
            data += n * kBlockSize;
            len -= n * kBlockSize;
        }
        if (len != 0) {
            std::memcpy(d_.buffer, data, len);
            d_.buffered = len;
        }
    }

    // Writes kDigestSize bytes and wipes the state: the hasher must be reset
    // before further use.
    void finish(uint8_t* out) {
        const uint64_t bit_length = d_.total * 8;
        size_t n = d_.buffered;
        d_.buffer[n++] = kMdPadByte;
        // The padding spills into a second block when the length no longer
        // fits after the 0x80: both go to the engine in one call (CPACF: one
        // KIMD, not two).
        const size_t nblocks = n > kBlockSize - kMdLengthBytes ? 2 : 1;
        const size_t end = nblocks * kBlockSize;
        std::memset(d_.buffer + n, 0, end - kMdLengthBytes - n);
        store_be64(d_.buffer + end - kMdLengthBytes, bit_length);
        engine_->blocks(d_.state, d_.buffer, nblocks);
        // Every digest here is a whole number of state words (SHA-224: 7 of 8).
        static_assert(kDigestSize % 4 == 0);
        for (size_t i = 0; i < kDigestSize / 4; ++i) store_be32(out + 4 * i, d_.state[i]);
        wipe();
    }

    // Clears everything derived from the message; the engine pointer stays.
    void wipe() { secure_zero(&d_, sizeof d_); }

    // The state between updates, as a state can be saved and restored
    // (EVP_MD_CTX_serialize, OpenSSL 4.0): chaining words, message length in
    // bytes, and the bytes waiting for a whole block (block[0..buffered),
    // the rest zero). It holds message-derived secrets: wipe it after use.
    struct Snapshot {
        uint32_t state[Traits::kStateWords];
        uint64_t total;
        size_t buffered;
        uint8_t block[kBlockSize];
    };
    void save(Snapshot& s) const {
        std::memcpy(s.state, d_.state, sizeof s.state);
        s.total = d_.total;
        s.buffered = d_.buffered;
        std::memset(s.block, 0, sizeof s.block);
        std::memcpy(s.block, d_.buffer, d_.buffered);
    }
    // Requires s.buffered < kBlockSize. total and buffered are taken as they
    // are, as OpenSSL keeps its bit count and block position apart too.
    void load(const Snapshot& s) {
        wipe();
        std::memcpy(d_.state, s.state, sizeof d_.state);
        d_.total = s.total;
        d_.buffered = s.buffered;
        std::memcpy(d_.buffer, s.block, s.buffered);
    }

    const Engine* engine() const { return engine_; }

private:
    struct Data {
        uint32_t state[Traits::kStateWords];
        uint64_t total;
        size_t buffered;
        uint8_t buffer[2 * kBlockSize];  // the padding may take a second block
    };
    const Engine* engine_;
    Data d_;
};

}  // namespace hwaccel
