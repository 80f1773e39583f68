// Merkle-Damgard buffering and padding (SHA-1, SHA-224, SHA-256) over an
// engine's block function. OpenSSL-free so the backend tests use it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"

namespace hwaccel {

struct Sha1Traits {
    using Engine = Sha1Engine;
    static constexpr size_t kStateWords = 5;
    static constexpr size_t kDigestSize = 20;
    static constexpr uint32_t kInit[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476,
                                          0xc3d2e1f0};
};

struct Sha224Traits {
    using Engine = Sha256Engine;
    static constexpr size_t kStateWords = 8;
    static constexpr size_t kDigestSize = 28;
    static constexpr uint32_t kInit[8] = {0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939,
                                          0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4};
};

struct Sha256Traits {
    using Engine = Sha256Engine;
    static constexpr size_t kStateWords = 8;
    static constexpr size_t kDigestSize = 32;
    static constexpr uint32_t kInit[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                          0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
};

// A plain value: copying it is a deep copy (dupctx).
template <class Traits>
class MdHasher {
public:
    static constexpr size_t kBlockSize = 64;
    static constexpr size_t kDigestSize = Traits::kDigestSize;
    using Engine = typename Traits::Engine;

    explicit MdHasher(const Engine* engine) : engine_(engine) { reset(); }

    void reset() {
        std::memcpy(state_, Traits::kInit, sizeof state_);
        total_ = 0;
        buffered_ = 0;
    }

    void update(const uint8_t* data, size_t len) {
        total_ += len;
        if (buffered_ != 0) {
            size_t take = kBlockSize - buffered_;
            if (take > len) take = len;
            std::memcpy(buffer_ + buffered_, data, take);
            buffered_ += take;
            data += take;
            len -= take;
            if (buffered_ < kBlockSize) return;
            engine_->blocks(state_, buffer_, 1);
            buffered_ = 0;
        }
        if (size_t n = len / kBlockSize) {
            engine_->blocks(state_, data, n);
            data += n * kBlockSize;
            len -= n * kBlockSize;
        }
        if (len != 0) {
            std::memcpy(buffer_, data, len);
            buffered_ = len;
        }
    }

    // Writes kDigestSize bytes and wipes the state: the hasher must be reset
    // before further use.
    void finish(uint8_t* out) {
        const uint64_t bit_length = total_ * 8;
        buffer_[buffered_++] = 0x80;
        if (buffered_ > kBlockSize - 8) {
            std::memset(buffer_ + buffered_, 0, kBlockSize - buffered_);
            engine_->blocks(state_, buffer_, 1);
            buffered_ = 0;
        }
        std::memset(buffer_ + buffered_, 0, kBlockSize - 8 - buffered_);
        store_be64(buffer_ + kBlockSize - 8, bit_length);
        engine_->blocks(state_, buffer_, 1);
        // Written via a local so that `out` may alias anything the caller likes.
        uint8_t digest[Traits::kStateWords * 4];
        for (size_t i = 0; i < Traits::kStateWords; ++i) store_be32(digest + 4 * i, state_[i]);
        std::memcpy(out, digest, kDigestSize);
        secure_zero(digest, sizeof digest);
        wipe();
    }

    // Clears everything derived from the message; the engine pointer stays.
    void wipe() {
        secure_zero(state_, sizeof state_);
        secure_zero(buffer_, sizeof buffer_);
        total_ = 0;
        buffered_ = 0;
    }

    const Engine* engine() const { return engine_; }

private:
    const Engine* engine_;
    uint32_t state_[Traits::kStateWords];
    uint64_t total_;
    size_t buffered_;
    uint8_t buffer_[kBlockSize];
};

}  // namespace hwaccel
