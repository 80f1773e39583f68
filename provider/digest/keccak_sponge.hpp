// The Keccak sponge (SHA-3 and SHAKE) over an engine's absorb/permute
// functions. OpenSSL-free so the backend tests use it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"

namespace hwaccel {

// Domain-separation bits plus the first padding bit, as one byte (FIPS 202).
inline constexpr uint8_t kSha3Pad = 0x06;
inline constexpr uint8_t kShakePad = 0x1f;

// A plain value: copying it is a deep copy (dupctx).
class KeccakSponge {
public:
    static constexpr size_t kMaxRate = 168;  // SHAKE128

    KeccakSponge(const KeccakEngine* engine, size_t rate, uint8_t pad)
        : engine_(engine), rate_(rate), pad_(pad) {
        reset();
    }

    void reset() {
        secure_zero(lanes_, sizeof lanes_);  // libc memset: no rep stosq (see bytes.hpp)
        buffered_ = 0;
        squeezing_ = false;
    }

    size_t rate() const { return rate_; }
    bool squeezing() const { return squeezing_; }

    // Absorbs input; must not be called once squeezing has begun.
    void update(const uint8_t* data, size_t len) {
        if (buffered_ != 0) {
            size_t take = rate_ - buffered_;
            if (take > len) take = len;
            std::memcpy(buffer_ + buffered_, data, take);
            buffered_ += take;
            data += take;
            len -= take;
            if (buffered_ < rate_) return;
            engine_->absorb(lanes_, buffer_, 1, rate_);
            buffered_ = 0;
        }
        if (size_t n = len / rate_) {
            engine_->absorb(lanes_, data, n, rate_);
            data += n * rate_;
            len -= n * rate_;
        }
        if (len != 0) {
            std::memcpy(buffer_, data, len);
            buffered_ = len;
        }
    }

    // Produces the next `len` bytes of output; the first call pads the input.
    // Any sequence of squeezes yields the same bytes as one long squeeze.
    void squeeze(uint8_t* out, size_t len) {
        if (!squeezing_) pad_and_switch();
        while (len != 0) {
            if (buffered_ == rate_) {
                engine_->permute(lanes_);
                buffered_ = 0;
            }
            size_t take = rate_ - buffered_;
            if (take > len) take = len;
            extract(buffered_, out, take);
            buffered_ += take;
            out += take;
            len -= take;
        }
    }

    // Clears everything derived from the message; engine, rate and pad stay.
    void wipe() {
        secure_zero(lanes_, sizeof lanes_);
        secure_zero(buffer_, sizeof buffer_);
        buffered_ = 0;
        squeezing_ = false;
    }

    const KeccakEngine* engine() const { return engine_; }

private:
    // The buffered tail and the padding go straight into the state, then the
    // bare permutation: no block-sized copy to clear, absorb and wipe (that
    // was a tenth of a 16-byte SHA3-256). The buffer keeps its message bytes
    // until wipe(), as it does while absorbing.
    void pad_and_switch() {
        size_t i = 0;
        for (; i + 8 <= buffered_; i += 8) lanes_[i / 8] ^= load_le64(buffer_ + i);
        for (; i < buffered_; ++i) xor_byte(i, buffer_[i]);
        xor_byte(buffered_, pad_);
        xor_byte(rate_ - 1, 0x80);
        engine_->permute(lanes_);
        squeezing_ = true;
        buffered_ = 0;  // now counts output bytes taken from the current block
    }
    void xor_byte(size_t i, uint8_t b) { lanes_[i / 8] ^= uint64_t{b} << (8 * (i % 8)); }

    // Copies sponge bytes [offset, offset + len) of the current state to out:
    // byte i is byte i % 8 of lane i / 8, little-endian (see engines.hpp).
    // Straight into out, with no stack copy of the output to wipe.
    void extract(size_t offset, uint8_t* out, size_t len) const {
        for (; len != 0 && offset % 8 != 0; --len) *out++ = lane_byte(offset++);
        for (; len >= 8; len -= 8, offset += 8, out += 8) store_le64(out, lanes_[offset / 8]);
        for (; len != 0; --len) *out++ = lane_byte(offset++);
    }
    uint8_t lane_byte(size_t i) const { return static_cast<uint8_t>(lanes_[i / 8] >> (8 * (i % 8))); }

    const KeccakEngine* engine_;
    size_t rate_;
    uint8_t pad_;
    bool squeezing_;
    size_t buffered_;  // absorbing: input bytes in buffer_; squeezing: output bytes used
    uint64_t lanes_[25];
    uint8_t buffer_[kMaxRate];
};

}  // namespace hwaccel
