// Byte-order helpers that are correct on big- and little-endian hosts and
// free of undefined behaviour (memcpy instead of pointer casts); compilers turn
// them into single loads/stores plus a byte swap where needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace hwaccel {

inline constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

inline uint32_t load_be32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return kLittleEndian ? __builtin_bswap32(v) : v;
}

inline void store_be32(uint8_t* p, uint32_t v) {
    if (kLittleEndian) v = __builtin_bswap32(v);
    std::memcpy(p, &v, 4);
}

inline uint64_t load_be64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return kLittleEndian ? __builtin_bswap64(v) : v;
}

inline uint64_t load_le64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return kLittleEndian ? v : __builtin_bswap64(v);
}

inline void store_le64(uint8_t* p, uint64_t v) {
    if (!kLittleEndian) v = __builtin_bswap64(v);
    std::memcpy(p, &v, 8);
}

inline void store_be64(uint8_t* p, uint64_t v) {
    if (kLittleEndian) v = __builtin_bswap64(v);
    std::memcpy(p, &v, 8);
}

inline constexpr uint32_t rotl32(uint32_t x, int n) { return (x << n) | (x >> ((32 - n) & 31)); }
inline constexpr uint32_t rotr32(uint32_t x, int n) { return (x >> n) | (x << ((32 - n) & 31)); }
inline constexpr uint64_t rotl64(uint64_t x, int n) { return (x << n) | (x >> ((64 - n) & 63)); }

// Zeroes memory in a way the optimiser may not remove (for wiping secrets
// where OPENSSL_cleanse is out of reach: backends never link libcrypto). The
// empty asm claims to read the memory, so the stores must happen; small
// wipes stay inline. From 64 bytes on, libc's memset: GCC expands a larger
// inline memset into rep stosq, whose start-up cost was a few percent of a
// 16-byte SHA-3 call.
inline void secure_zero(void* p, size_t n) {
    if (n >= 64) {
        // Through a volatile pointer: no inline expansion of the call.
        static void* (*const volatile libc_memset)(void*, int, size_t) = std::memset;
        libc_memset(p, 0, n);
    } else {
        std::memset(p, 0, n);
    }
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

}  // namespace hwaccel
