// The byte formats of OpenSSL 4.0's EVP_MD_CTX_serialize for SHA-224/256
// and SHA-3/SHAKE, so a state saved by the default provider continues in
// hwaccel and the other way round. Source: OpenSSL 4.0.2,
// providers/implementations/digests/sha2_prov.c (SHA256_Serialize) and
// sha3_prov.c (KECCAK_Serialize); every integer little-endian.
//
//   SHA-224/256: "SHA256v1", u32 md_len, u32 num, u32 h[8], u32 Nl, u32 Nh
//                (the message length in bits), the 64-byte block as 16 u32
//                words (OpenSSL's data[] array: host-order words of the
//                block bytes), 120 bytes.
//   SHA-3/SHAKE: "KECCAKv1", u64 impl-id (0x040000 + bits for SHA-3,
//                0x020000 + bits for SHAKE), u64 md_size (digest size, or
//                SHAKE's xoflen, SIZE_MAX if unset), u64 block_size (the
//                rate), u64 bufsz, u64 pad, u64 xof_state (0: nothing
//                absorbed yet, 1: absorbing), u64 A[25], 168-byte buffer,
//                424 bytes.
//
// hwaccel writes zeros where the block and buffer hold no message (OpenSSL
// writes whatever bytes are left there from earlier blocks), and saves only
// an absorbing state: SHAKE after EVP_DigestSqueeze began is refused
// (OpenSSL's squeezing layout depends on its engine).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "digest/keccak_sponge.hpp"
#include "digest/md_hasher.hpp"
#include "hwaccel/bytes.hpp"

namespace hwaccel::serialized {

inline void put32(uint8_t*& p, uint32_t v) {
    for (int i = 0; i < 4; ++i) *p++ = static_cast<uint8_t>(v >> (8 * i));
}
inline void put64(uint8_t*& p, uint64_t v) {
    store_le64(p, v);
    p += 8;
}
inline uint32_t get32(const uint8_t*& p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= uint32_t{*p++} << (8 * i);
    return v;
}
inline uint64_t get64(const uint8_t*& p) {
    uint64_t v = load_le64(p);
    p += 8;
    return v;
}

// --- SHA-224 / SHA-256 -------------------------------------------------------

inline constexpr char kSha256Magic[8] = {'S', 'H', 'A', '2', '5', '6', 'v', '1'};
inline constexpr size_t kSha256Size = 8 + 4 + 4 + 8 * 4 + 2 * 4 + 64;
static_assert(kSha256Size == 120);

template <class Traits>
void write_sha256(const typename MdHasher<Traits>::Snapshot& s, uint32_t md_len, uint8_t* out) {
    static_assert(Traits::kStateWords == 8 && Traits::kBlockSize == 64);
    uint8_t* p = out;
    std::memcpy(p, kSha256Magic, sizeof kSha256Magic);
    p += sizeof kSha256Magic;
    put32(p, md_len);
    put32(p, static_cast<uint32_t>(s.buffered));
    for (uint32_t h : s.state) put32(p, h);
    const uint64_t bits = s.total * 8;
    put32(p, static_cast<uint32_t>(bits));
    put32(p, static_cast<uint32_t>(bits >> 32));
    // OpenSSL's data[] words hold the block bytes in memory order; it stores
    // each word little-endian, so this is the bytes themselves on a
    // little-endian machine and each 4 reversed on a big-endian one.
    for (size_t i = 0; i < 64; i += 4) {
        uint32_t word;
        std::memcpy(&word, s.block + i, 4);
        put32(p, word);
    }
}

// Null, or why `in` is not a state of this digest (then `s` is unspecified).
template <class Traits>
const char* read_sha256(const uint8_t* in, size_t len, uint32_t md_len,
                        typename MdHasher<Traits>::Snapshot& s) {
    if (len != kSha256Size) return "wrong length";
    if (std::memcmp(in, kSha256Magic, sizeof kSha256Magic) != 0) return "not a SHA-256 state";
    const uint8_t* p = in + sizeof kSha256Magic;
    if (get32(p) != md_len) return "state of another digest size";
    const uint32_t num = get32(p);
    if (num >= 64) return "buffered byte count beyond the block";
    s.buffered = num;
    for (uint32_t& h : s.state) h = get32(p);
    const uint64_t low = get32(p), high = get32(p);
    const uint64_t bits = low | high << 32;
    // hwaccel counts whole bytes.
    if (bits % 8 != 0) return "message length not a whole number of bytes";
    s.total = bits / 8;
    for (size_t i = 0; i < 64; i += 4) {
        const uint32_t word = get32(p);
        std::memcpy(s.block + i, &word, 4);
    }
    return nullptr;
}

// --- SHA-3 / SHAKE -----------------------------------------------------------

inline constexpr char kKeccakMagic[8] = {'K', 'E', 'C', 'C', 'A', 'K', 'v', '1'};
inline constexpr size_t kKeccakBufferSize = 168;  // OpenSSL's buf: 200 - 32 bytes
inline constexpr size_t kKeccakSize = 8 + 8 + 8 + 4 * 8 + 25 * 8 + kKeccakBufferSize;
static_assert(kKeccakSize == 424);
inline constexpr uint64_t kSha3Id = 0x040000;
inline constexpr uint64_t kShakeId = 0x020000;

// impl_id: kSha3Id or kShakeId plus the bit length (224..512, 128, 256).
inline void write_keccak(const KeccakSponge::Snapshot& s, uint64_t impl_id, uint64_t md_size,
                         size_t rate, uint8_t pad, uint8_t* out) {
    uint8_t* p = out;
    std::memcpy(p, kKeccakMagic, sizeof kKeccakMagic);
    p += sizeof kKeccakMagic;
    put64(p, impl_id);
    put64(p, md_size);
    put64(p, rate);
    put64(p, s.buffered);
    put64(p, pad);
    // OpenSSL's xof_state: INIT until a whole block went into the state.
    // An all-zero state after a permutation does not happen in practice.
    bool absorbed = false;
    for (uint64_t lane : s.lanes) absorbed |= lane != 0;
    put64(p, absorbed ? 1 : 0);
    for (uint64_t lane : s.lanes) put64(p, lane);
    static_assert(sizeof s.block <= kKeccakBufferSize);
    std::memset(p, 0, kKeccakBufferSize);
    std::memcpy(p, s.block, sizeof s.block);
}

inline const char* read_keccak(const uint8_t* in, size_t len, uint64_t impl_id, uint64_t md_size,
                               size_t rate, uint8_t pad, KeccakSponge::Snapshot& s) {
    if (len != kKeccakSize) return "wrong length";
    if (std::memcmp(in, kKeccakMagic, sizeof kKeccakMagic) != 0) return "not a Keccak state";
    const uint8_t* p = in + sizeof kKeccakMagic;
    if (get64(p) != impl_id) return "state of another SHA-3/SHAKE algorithm";
    if (get64(p) != md_size) return "state with another output length (xoflen)";
    if (get64(p) != rate) return "state with another block size";
    const uint64_t bufsz = get64(p);
    if (bufsz >= rate) return "buffered byte count beyond the block";
    if (get64(p) != pad) return "state with another padding";
    // 2 and 3 (final, squeezing) are states we do not continue from.
    if (get64(p) > 1) return "state after final or squeeze";
    s.buffered = bufsz;
    for (uint64_t& lane : s.lanes) lane = get64(p);
    std::memcpy(s.block, p, sizeof s.block);
    return nullptr;
}

}  // namespace hwaccel::serialized
