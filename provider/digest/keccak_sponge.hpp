// The Keccak sponge (SHA-3 and SHAKE) over an engine's absorb/permute
// functions, and its optional finish/squeeze/oneshot where the engine has
// them (engines.hpp). OpenSSL-free so the backend tests use it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwaccel/algorithm_facts.hpp"
#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"

namespace hwaccel {

// A plain value: copying it is a deep copy (dupctx).
class KeccakSponge {
public:
    static constexpr size_t kMaxRate = kKeccakMaxRate;
    // With an engine that has oneshot, a message of up to this many bytes is
    // held unabsorbed until the final, which then costs one instruction for
    // the whole message (CPACF: one KLMD instead of KIMD blocks plus a KLMD
    // for the tail). Two SHAKE128 blocks: covers the 256-byte messages the
    // kernel's one-shot figures are for, at every rate.
    static constexpr size_t kHoldBytes = 2 * kMaxRate;

    KeccakSponge(const KeccakEngine* engine, size_t rate, uint8_t pad)
        : engine_(engine), rate_(rate), pad_(pad) {
        reset();
    }

    void reset() {
        // libc memset: no rep stosq (see bytes.hpp). Tried: 25 8-byte stores,
        // so that the engine's 8-byte loads of a new state are forwarded
        // (faster in a tight memset-then-absorb loop, 1-4% slower at 256
        // bytes through EVP); and the tail copied in 8-byte moves: no gain.
        secure_zero(data_.lanes, sizeof data_.lanes);
        buffered_ = 0;
        squeezing_ = false;
        holding_ = engine_->oneshot != nullptr;
    }

    // reset() for a sponge that wipe() has cleared since it was last used:
    // the lanes are zero already, so only the flags go back (a second
    // 200-byte clear per message where EVP reuses a context after final).
    void reset_wiped() { holding_ = engine_->oneshot != nullptr; }

    size_t rate() const { return rate_; }
    bool squeezing() const { return squeezing_; }

    // Absorbs input; must not be called once squeezing has begun.
    void update(const uint8_t* data, size_t len) {
        if (holding_) {
            if (len <= kHoldBytes - buffered_) {
                if (len != 0) std::memcpy(data_.buffer + buffered_, data, len);
                buffered_ += len;
                note_written(buffered_);
                return;
            }
            stop_holding();
        }
        if (buffered_ != 0) {
            size_t take = rate_ - buffered_;
            if (take > len) take = len;
            std::memcpy(data_.buffer + buffered_, data, take);
            buffered_ += take;
            note_written(buffered_);
            data += take;
            len -= take;
            if (buffered_ < rate_) return;
            engine_->absorb(data_.lanes, data_.buffer, 1, rate_);
            buffered_ = 0;
        }
        if (size_t n = whole_blocks(len)) {
            engine_->absorb(data_.lanes, data, n, rate_);
            data += n * rate_;
            len -= n * rate_;
        }
        if (len != 0) {
            std::memcpy(data_.buffer, data, len);
            buffered_ = len;
            note_written(len);
        }
    }

    // Produces the next `len` bytes of output; the first call pads the input.
    // Any sequence of squeezes yields the same bytes as one long squeeze.
    void squeeze(uint8_t* out, size_t len) {
        if (!squeezing_) {
            if (engine_->finish &&
                engine_->finish(data_.lanes, data_.buffer, buffered_, rate_, pad_, out, len)) {
                // The state is the one that produced the last output block.
                squeezing_ = true;
                holding_ = false;
                buffered_ = used_of_last_block(len);
                return;
            }
            pad_and_switch();
        }
        // The rest of the current block from the state, then whole blocks.
        if (buffered_ != rate_ && len != 0) {
            size_t take = rate_ - buffered_;
            if (take > len) take = len;
            extract(buffered_, out, take);
            buffered_ += take;
            out += take;
            len -= take;
        }
        if (len != 0 && engine_->squeeze && engine_->squeeze(data_.lanes, out, len, rate_)) {
            buffered_ = used_of_last_block(len);
            return;
        }
        while (len != 0) {
            if (buffered_ == rate_) {
                engine_->permute(data_.lanes);
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

    // The final: writes `len` bytes of output (after any earlier squeezes)
    // and wipes; reset() before further use. A message that was held whole
    // goes to the engine's oneshot: no state to load or keep.
    void finish(uint8_t* out, size_t len) {
        if (holding_ && !squeezing_ &&
            engine_->oneshot(data_.buffer, buffered_, rate_, pad_, out, len)) {
            wipe();
            return;
        }
        // The usual final (SHA-3, short SHAKE output): one block of output
        // straight after the padding, without squeeze()'s bookkeeping.
        if (!squeezing_ && engine_->finish == nullptr && len <= rate_) {
            pad_and_switch();
            extract(0, out, len);
        } else {
            squeeze(out, len);
        }
        wipe();
    }

    // Clears everything derived from the message; engine, rate and pad stay.
    void wipe() {
        // The lanes, and the buffer up to written_: the rest never held message bytes.
        secure_zero(&data_, offsetof(Data, buffer) + written_);
        written_ = 0;
        buffered_ = 0;
        squeezing_ = false;
        holding_ = false;  // until reset() or reset_wiped()
    }

    const KeccakEngine* engine() const { return engine_; }

    // The state while absorbing, as a state can be saved and restored
    // (EVP_MD_CTX_serialize, OpenSSL 4.0): the 25 lanes and the input bytes
    // waiting for a whole block (block[0..buffered), buffered < rate, the
    // rest zero). It holds message-derived secrets: wipe it after use.
    struct Snapshot {
        uint64_t lanes[kKeccakLanes];
        size_t buffered;
        uint8_t block[kMaxRate];
    };
    // False once squeezing has begun: only an absorbing sponge is saved. A
    // held message is absorbed into a copy first, so the snapshot has the
    // one shape every engine and OpenSSL share.
    bool save(Snapshot& s) const {
        if (squeezing_) return false;
        if (holding_) {
            KeccakSponge absorbed(*this);
            absorbed.stop_holding();
            absorbed.save(s);
            absorbed.wipe();
            return true;
        }
        std::memcpy(s.lanes, data_.lanes, sizeof s.lanes);
        s.buffered = buffered_;
        std::memset(s.block, 0, sizeof s.block);
        std::memcpy(s.block, data_.buffer, buffered_);
        return true;
    }
    // Requires s.buffered < rate().
    void load(const Snapshot& s) {
        wipe();
        std::memcpy(data_.lanes, s.lanes, sizeof data_.lanes);
        std::memcpy(data_.buffer, s.block, s.buffered);
        note_written(s.buffered);
        buffered_ = s.buffered;
    }

private:
    // The buffered tail and the padding go straight into the state, then the
    // bare permutation: no block-sized copy to clear, absorb and wipe (that
    // was a tenth of a 16-byte SHA3-256). The buffer keeps its message bytes
    // until wipe(), as it does while absorbing.
    void pad_and_switch() {
        if (holding_) stop_holding();
        size_t i = 0;
        for (; i + 8 <= buffered_; i += 8) data_.lanes[i / 8] ^= load_le64(data_.buffer + i);
        for (; i < buffered_; ++i) xor_byte(i, data_.buffer[i]);
        xor_byte(buffered_, pad_);
        xor_byte(rate_ - 1, kKeccakFinalBit);
        engine_->permute(data_.lanes);
        squeezing_ = true;
        buffered_ = 0;  // now counts output bytes taken from the current block
    }
    // The held message is too long for a one-shot (or the engine declined):
    // its whole blocks are absorbed, the tail stays buffered as usual.
    void stop_holding() {
        holding_ = false;
        if (size_t n = buffered_ / rate_) {
            engine_->absorb(data_.lanes, data_.buffer, n, rate_);
            buffered_ -= n * rate_;
            std::memmove(data_.buffer, data_.buffer + n * rate_, buffered_);
        }
    }

    // The rate is known only at run time here, and a 64-bit division is
    // 10-20 cycles on x86-64 (several per short message, mostly on the
    // critical path): the usual short lengths are settled by compares.
    size_t whole_blocks(size_t len) const {
        if (len < rate_) return 0;
        return len < 2 * rate_ ? 1 : len / rate_;
    }
    // After `len` bytes of output, how many of the current block's are used
    // (a full block counts as used up, none for no output).
    size_t used_of_last_block(size_t len) const {
        if (len <= rate_) return len;
        const size_t rest = len % rate_;
        return rest != 0 ? rest : rate_;
    }
    void xor_byte(size_t i, uint8_t b) { data_.lanes[i / 8] ^= uint64_t{b} << (8 * (i % 8)); }

    // Copies sponge bytes [offset, offset + len) of the current state to out:
    // byte i is byte i % 8 of lane i / 8, little-endian (see engines.hpp).
    // Straight into out, with no stack copy of the output to wipe.
    void extract(size_t offset, uint8_t* out, size_t len) const {
        if (len == 0) return;  // out may be null then (a zero-length final)
        if (kLittleEndian) {  // the lanes' bytes are the sponge's bytes in order
            std::memcpy(out, reinterpret_cast<const uint8_t*>(data_.lanes) + offset, len);
            return;
        }
        for (; len != 0 && offset % 8 != 0; --len) *out++ = lane_byte(offset++);
        for (; len >= 8; len -= 8, offset += 8, out += 8) store_le64(out, data_.lanes[offset / 8]);
        for (; len != 0; --len) *out++ = lane_byte(offset++);
    }
    void note_written(size_t end) {
        if (end > written_) written_ = end;
    }
    uint8_t lane_byte(size_t i) const { return static_cast<uint8_t>(data_.lanes[i / 8] >> (8 * (i % 8))); }

    const KeccakEngine* engine_;
    size_t rate_;
    uint8_t pad_;
    bool squeezing_;
    bool holding_;     // nothing absorbed yet: the whole message is in data_.buffer
    size_t buffered_;  // absorbing: input bytes in data_.buffer; squeezing: output bytes used
    size_t written_ = 0;  // data_.buffer[0, written_) may hold message bytes (wipe clears them)
    // Together, so that wipe() clears both with one memset.
    struct Data {
        uint64_t lanes[kKeccakLanes];
        uint8_t buffer[kHoldBytes];
    } data_;
    static_assert(offsetof(Data, buffer) == sizeof(Data::lanes));
};

}  // namespace hwaccel
