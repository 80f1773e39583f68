// The algorithms' own constants, defined once: block and digest sizes, sponge
// rates, padding bytes. OpenSSL-free, so backends, provider, tools and tests
// all take them from here. Sources: FIPS 180-4 (SHA-1, SHA-2), FIPS 202
// (SHA-3, SHAKE).
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwaccel {

// ---- SHA-1, SHA-224, SHA-256 (FIPS 180-4)
inline constexpr size_t kSha1BlockSize = 64;
inline constexpr size_t kSha1DigestSize = 20;
inline constexpr size_t kSha256BlockSize = 64;  // SHA-224 too
inline constexpr size_t kSha224DigestSize = 28;
inline constexpr size_t kSha256DigestSize = 32;
// Initial hash values (FIPS 180-4, 5.3.1-5.3.3).
inline constexpr uint32_t kSha1Init[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476,
                                          0xc3d2e1f0};
inline constexpr uint32_t kSha224Init[8] = {0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939,
                                            0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4};
inline constexpr uint32_t kSha256Init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                            0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
// Merkle-Damgard padding: 0x80, zeros, then the message length in bits as a
// 64-bit big-endian integer ending the last block.
inline constexpr uint8_t kMdPadByte = 0x80;
inline constexpr size_t kMdLengthBytes = 8;

// ---- Keccak, SHA-3, SHAKE (FIPS 202)
inline constexpr size_t kKeccakStateBytes = 200;  // b = 1600 bits
inline constexpr size_t kKeccakLanes = 25;

// rate = b - capacity. SHA-3: capacity = twice the digest length; SHAKE:
// capacity = twice the security strength.
constexpr size_t sha3_rate(size_t digest_size) { return kKeccakStateBytes - 2 * digest_size; }
constexpr size_t shake_rate(size_t security_bits) { return kKeccakStateBytes - security_bits / 4; }

inline constexpr size_t kSha3_224DigestSize = 28;
inline constexpr size_t kSha3_256DigestSize = 32;
inline constexpr size_t kSha3_384DigestSize = 48;
inline constexpr size_t kSha3_512DigestSize = 64;
inline constexpr size_t kSha3_224Rate = sha3_rate(kSha3_224DigestSize);  // 144
inline constexpr size_t kSha3_256Rate = sha3_rate(kSha3_256DigestSize);  // 136
inline constexpr size_t kSha3_384Rate = sha3_rate(kSha3_384DigestSize);  // 104
inline constexpr size_t kSha3_512Rate = sha3_rate(kSha3_512DigestSize);  // 72
inline constexpr size_t kShake128Rate = shake_rate(128);                 // 168
inline constexpr size_t kShake256Rate = shake_rate(256);                 // 136
inline constexpr size_t kKeccakMaxRate = kShake128Rate;

// The domain-separation bits plus the first bit of pad10*1, as one byte
// (SHA-3: 01 then 1; SHAKE: 1111 then 1, little-endian bit order), and the
// last bit of pad10*1, the top bit of the rate's last byte.
inline constexpr uint8_t kSha3Pad = 0x06;
inline constexpr uint8_t kShakePad = 0x1f;
inline constexpr uint8_t kKeccakFinalBit = 0x80;

static_assert(kSha3_224Rate == 144 && kSha3_256Rate == 136 && kSha3_384Rate == 104 &&
              kSha3_512Rate == 72 && kShake128Rate == 168 && kShake256Rate == 136);

}  // namespace hwaccel
