#include "cipher/sm4_xts_mode.hpp"

#include <cstring>

#include "hwaccel/bytes.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "hwaccel/wipe_stack.hpp"

namespace hwaccel {
namespace {

constexpr size_t kBlock = 16;
// Blocks per pass: the tweaks (2 KiB) and the data they cover stay in L1
// between the XOR, the engine's ECB and the second XOR, and the ECB runs at
// its full width.
constexpr size_t kChunkBlocks = 128;
// What sm4_xts wipes below itself after a data unit over an engine without
// its own XTS (a multiple of 32): xts_unit's and xts_blocks' frames.
constexpr size_t kXtsFrameBytes = wipe_bytes(3072);
constexpr size_t kFusedMinBlocks = 8;

// A tweak as a 128-bit number in the order its standard's arithmetic reads
// it: IEEE little-endian (lo = bytes 0..7), GB big-endian (hi = bytes 0..7).
struct Tweak {
    uint64_t lo, hi;
};

template <XtsStandard S>
Tweak load_tweak(const uint8_t b[16]) {
    if constexpr (S == XtsStandard::kIeee) return {load_le64(b), load_le64(b + 8)};
    return {load_be64(b + 8), load_be64(b)};
}

template <XtsStandard S>
void store_tweak(uint8_t b[16], Tweak t) {
    if constexpr (S == XtsStandard::kIeee) {
        store_le64(b, t.lo);
        store_le64(b + 8, t.hi);
    } else {
        store_be64(b, t.hi);
        store_be64(b + 8, t.lo);
    }
}

// Multiplication by x, without a branch on the tweak (it is secret).
template <XtsStandard S>
Tweak times_x(Tweak t) {
    if constexpr (S == XtsStandard::kIeee) {
        const uint64_t carry = t.hi >> 63;
        return {(t.lo << 1) ^ (0x87 & (0 - carry)), (t.hi << 1) | (t.lo >> 63)};
    }
    const uint64_t carry = t.lo & 1;
    return {(t.lo >> 1) | (t.hi << 63), (t.hi >> 1) ^ ((uint64_t{0xe1} << 56) & (0 - carry))};
}

// Multiplication by x^8, the step between every 8th tweak: the byte shifted
// out comes back reduced, a carry-less product with the polynomial's low
// terms (shifts and XORs only: no branch, no table).
template <XtsStandard S>
Tweak times_x8(Tweak t) {
    if constexpr (S == XtsStandard::kIeee) {
        const uint64_t b = t.hi >> 56;  // x^120..x^127 -> x^128..x^135 = b * (x^7 + x^2 + x + 1)
        return {(t.lo << 8) ^ b ^ (b << 1) ^ (b << 2) ^ (b << 7), (t.hi << 8) | (t.lo >> 56)};
    }
    // Reflected: the low byte falls off; its bit k would have come back as
    // 0xe1 << 56 shifted right 7 - k more times.
    const uint64_t b = t.lo & 0xff;
    return {(t.lo >> 8) | (t.hi << 56), (t.hi >> 8) ^ ((b ^ (b << 5) ^ (b << 6) ^ (b << 7)) << 49)};
}

void xor_bytes(uint8_t* out, const uint8_t* a, const uint8_t* b, size_t len) {
    for (size_t i = 0; i < len; i += 8) {
        uint64_t x, y;
        std::memcpy(&x, a + i, 8);
        std::memcpy(&y, b + i, 8);
        x ^= y;
        std::memcpy(out + i, &x, 8);
    }
}

// The tweaks of n blocks from t into `tweaks` (room for n rounded up to 8),
// as 8 independent chains a factor x^8 apart, so the serial dependency of
// one multiplication after another does not bound the speed; t becomes the
// next block's tweak.
template <XtsStandard S>
void make_tweaks(Tweak& t, uint8_t* tweaks, size_t n) {
    if (n < 8) {  // short units (and the stealing blocks): the chain alone
        for (size_t i = 0; i < n; ++i) {
            store_tweak<S>(tweaks + i * kBlock, t);
            t = times_x<S>(t);
        }
        return;
    }
    Tweak lane[8];
    lane[0] = t;
    for (int k = 1; k < 8; ++k) lane[k] = times_x<S>(lane[k - 1]);
    size_t i = 0;
    for (;;) {
        for (int k = 0; k < 8; ++k) store_tweak<S>(tweaks + (i + k) * kBlock, lane[k]);
        for (int k = 0; k < 8; ++k) lane[k] = times_x8<S>(lane[k]);
        i += 8;
        if (i >= n) break;
    }
    t = i == n ? lane[0] : load_tweak<S>(tweaks + n * kBlock);
    secure_zero(lane, sizeof lane);
}

// nblocks whole blocks starting at tweak t; t becomes the next block's.
template <XtsStandard S>
void xts_blocks(const Sm4XtsKey& key, Sm4Direction direction, Tweak& t, uint8_t* out,
                const uint8_t* in, size_t nblocks) {
    // The engine's fused XTS makes the tweaks in registers; below a group of
    // 8 blocks its full-width group costs more than ECB's short paths
    // (hwaccel-evp-bench: 16 and 64 bytes slower, 256 bytes faster; with the
    // x86 engines' first tweaks made in parallel, 2-7 blocks measured even:
    // no reason to move the threshold).
    if (key.engine->xts != nullptr && nblocks >= kFusedMinBlocks) {
        uint8_t bytes[kBlock];
        store_tweak<S>(bytes, t);
        key.engine->xts(&key.data, direction, S, out, in, nblocks, bytes);
        t = load_tweak<S>(bytes);
        secure_zero(bytes, sizeof bytes);
        return;
    }
    uint8_t tweaks[(kChunkBlocks + 8) * kBlock];
    size_t used = 0;
    while (nblocks != 0) {
        const size_t n = nblocks < kChunkBlocks ? nblocks : kChunkBlocks;
        make_tweaks<S>(t, tweaks, n);
        // The engine runs in place in `out`: one buffer, and in == out works.
        xor_bytes(out, in, tweaks, n * kBlock);
        key.engine->ecb(&key.data, direction, out, out, n);
        xor_bytes(out, out, tweaks, n * kBlock);
        if (n > used) used = n;
        in += n * kBlock;
        out += n * kBlock;
        nblocks -= n;
    }
    secure_zero(tweaks, (used + 7) / 8 * 8 * kBlock);
}

template <XtsStandard S>
void xts_unit(const Sm4XtsKey& key, Sm4Direction direction, const uint8_t iv[16], uint8_t* out,
              const uint8_t* in, size_t len) {
    uint8_t first[kBlock];
    key.engine->encrypt_block(&key.tweak, first, iv);
    Tweak t = load_tweak<S>(first);
    secure_zero(first, sizeof first);
    const size_t full = len / kBlock, tail = len % kBlock;
    if (tail == 0) {
        xts_blocks<S>(key, direction, t, out, in, full);
        secure_zero(&t, sizeof t);
        return;
    }
    // Ciphertext stealing over the last whole block m-1 and the tail m:
    // encryption runs them with tweaks T_{m-1} then T_m, decryption with T_m
    // then T_{m-1} (the stolen bytes were encrypted under T_{m-1}).
    xts_blocks<S>(key, direction, t, out, in, full - 1);
    in += (full - 1) * kBlock;
    out += (full - 1) * kBlock;
    Tweak t_last = times_x<S>(t);
    Tweak& first_tweak = direction == Sm4Direction::kEncrypt ? t : t_last;
    Tweak& second_tweak = direction == Sm4Direction::kEncrypt ? t_last : t;
    uint8_t head[kBlock], last[kBlock];
    xts_blocks<S>(key, direction, first_tweak, head, in, 1);
    // Read the tail before writing it: in may equal out.
    std::memcpy(last, in + kBlock, tail);
    std::memcpy(last + tail, head + tail, kBlock - tail);
    std::memcpy(out + kBlock, head, tail);
    xts_blocks<S>(key, direction, second_tweak, out, last, 1);
    secure_zero(head, sizeof head);
    secure_zero(last, sizeof last);
    secure_zero(&t, sizeof t);
    secure_zero(&t_last, sizeof t_last);
}

inline void xts_unit_of(const Sm4XtsKey& key, XtsStandard standard, Sm4Direction direction,
                        const uint8_t iv[16], uint8_t* out, const uint8_t* in, size_t len) {
    if (standard == XtsStandard::kIeee)
        xts_unit<XtsStandard::kIeee>(key, direction, iv, out, in, len);
    else
        xts_unit<XtsStandard::kGb>(key, direction, iv, out, in, len);
}

// xts_unit in a frame of its own, below its caller's, where a wipe after it
// reaches.
[[gnu::noinline]] void xts_unit_apart(const Sm4XtsKey& key, XtsStandard standard, Sm4Direction direction,
                                      const uint8_t iv[16], uint8_t* out, const uint8_t* in, size_t len) {
    xts_unit_of(key, standard, direction, iv, out, in, len);
}

}  // namespace

void sm4_xts(const Sm4XtsKey& key, XtsStandard standard, Sm4Direction direction,
             const uint8_t iv[16], uint8_t* out, const uint8_t* in, size_t len) {
    if (key.engine->xts != nullptr) {
        xts_unit_of(key, standard, direction, iv, out, in, len);
        // GCC moves the tweaks through vector registers: the unit's next
        // tweak stayed in one (message_stack_residue_test).
        clear_vector_registers();
        return;
    }
    xts_unit_apart(key, standard, direction, iv, out, in, len);
    // Over an engine without its own XTS (the portable one) xts_blocks runs
    // its tweak buffer through ECB, and GCC keeps copies of the tweak (a
    // secret: E_K2(IV) and its multiples) in spill slots at the bottom of
    // its 2.5 KiB frame, which the wipes of t, t_last and the buffer do not
    // reach (message_stack_residue_test found the first tweak there). The
    // wipe costs about 130 TSC ticks (Zen 5), little beside that engine's
    // bitsliced ECB; over an engine with its own XTS the same test finds
    // nothing in these frames, and a 256-byte unit would pay 20% for it.
    hwaccel_wipe_stack_and_scratch_registers(kXtsFrameBytes);
    clear_vector_registers();
}

}  // namespace hwaccel
