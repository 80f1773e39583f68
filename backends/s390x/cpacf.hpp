// IBM Z CPACF message-digest instructions, KIMD (B93E) and KLMD (B93F), as
// inline asm, and the facts detection learns about them. s390x only.
//
// Register interface (HARDWARE.md 2.3): GR0 = function code | flags, GR1 =
// parameter block, the R2 field names an even/odd pair (source address,
// length), and for KLMD-SHAKE the R1 field names an even/odd pair (output
// address, length). Condition code 3 means partial completion: the CPU has
// updated the registers and the parameter block, and issuing the same
// instruction again continues (the "brc 1,0b" loop every user has). GR0 is an
// in/out operand here because it stays in the register across that loop and
// the CPU may change flag bits in it between the two issues.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwaccel/cpu.hpp"

namespace hwaccel::s390x {

// Function codes (GR0 bits 57-63).
constexpr unsigned long kQuery = 0x00;
constexpr unsigned long kSha1 = 0x01;
constexpr unsigned long kSha256 = 0x02;
constexpr unsigned long kSha512 = 0x03;
constexpr unsigned long kSha3_224 = 0x20;
constexpr unsigned long kSha3_256 = 0x21;
constexpr unsigned long kSha3_384 = 0x22;
constexpr unsigned long kSha3_512 = 0x23;
constexpr unsigned long kShake128 = 0x24;
constexpr unsigned long kShake256 = 0x25;
constexpr unsigned long kGhash = 0x41;  // KIMD only (MSA 4)

// GR0 flag bits.
constexpr unsigned long kFlagNip = 0x8000;    // SHA-3: ignore the parameter block, start from 0
constexpr unsigned long kFlagDufop = 0x4000;  // KLMD: set with NIP on a one-shot (MSA 12)
constexpr unsigned long kFlagPs = 0x0100;     // KLMD SHAKE: state already padded, squeeze

// Facility bits (STFLE, bit 0 = leftmost bit of the first doubleword).
constexpr unsigned kFacilityMsa = 17;    // KIMD/KLMD exist
constexpr unsigned kFacilityMsa4 = 77;   // KIMD-GHASH among others
constexpr unsigned kFacilityMsa12 = 86;  // SHA-3 NIP/DUFOP one-shot enhancements

#if defined(__s390x__)

// KIMD until complete: whole blocks of `len` bytes into the parameter block.
inline void kimd(unsigned long fc, void* param, const uint8_t* src, size_t len) {
    register unsigned long r0 asm("0") = fc;
    register void* r1 asm("1") = param;
    register const uint8_t* r2 asm("2") = src;
    register size_t r3 asm("3") = len;
    asm volatile("0: .insn rre,0xb93e0000,0,2\n\tbrc 1,0b"
                 : "+d"(r0), "+d"(r2), "+d"(r3)
                 : "a"(r1)
                 : "cc", "memory");
}

// KLMD until complete without an output operand (SHA-1/2/3: the result is
// left in the parameter block).
inline void klmd(unsigned long fc, void* param, const uint8_t* src, size_t len) {
    register unsigned long r0 asm("0") = fc;
    register void* r1 asm("1") = param;
    register const uint8_t* r2 asm("2") = src;
    register size_t r3 asm("3") = len;
    asm volatile("0: .insn rre,0xb93f0000,0,2\n\tbrc 1,0b"
                 : "+d"(r0), "+d"(r2), "+d"(r3)
                 : "a"(r1)
                 : "cc", "memory");
}

// KLMD-SHAKE until complete: absorbs and pads src (unless kFlagPs), then
// writes out_len bytes of output through the R1 pair (GR4/GR5).
inline void klmd_shake(unsigned long fc, void* param, const uint8_t* src, size_t len, uint8_t* out,
                       size_t out_len) {
    register unsigned long r0 asm("0") = fc;
    register void* r1 asm("1") = param;
    register const uint8_t* r2 asm("2") = src;
    register size_t r3 asm("3") = len;
    register uint8_t* r4 asm("4") = out;
    register size_t r5 asm("5") = out_len;
    asm volatile("0: .insn rre,0xb93f0000,4,2\n\tbrc 1,0b"
                 : "+d"(r0), "+d"(r2), "+d"(r3), "+d"(r4), "+d"(r5)
                 : "a"(r1)
                 : "cc", "memory");
}

#endif  // __s390x__

// What detection learns, kept whole so engines and tests can ask about one
// function code or facility.
struct CpacfFacts {
    uint64_t facilities[4] = {};  // STFLE doublewords
    uint8_t kimd[16] = {};        // KIMD query bitmap (zero without facility 17)
    uint8_t klmd[16] = {};        // KLMD query bitmap
};

inline bool has_facility(const CpacfFacts& f, unsigned bit) {
    return bit < 256 && ((f.facilities[bit / 64] >> (63 - bit % 64)) & 1) != 0;
}

// Query bitmaps number function codes from the leftmost bit.
inline bool has_function(const uint8_t bitmap[16], unsigned long fc) {
    return fc < 128 && (bitmap[fc >> 3] & (0x80u >> (fc & 7))) != 0;
}

// Pure: which CpuFeatures.cpacf_* flags these facts justify.
//   cpacf_sha1 / cpacf_sha256: KIMD code 1 / 2 (the engines use KIMD only).
//   cpacf_sha3: KIMD and KLMD codes 0x20..0x23, all four (as the kernel and
//               OpenSSL require; permute uses KIMD-SHA3-512).
//   cpacf_shake: KIMD and KLMD codes 0x24 and 0x25.
//   cpacf_ghash: facility 77 (MSA 4) and KIMD code 0x41 (there is no
//                KLMD-GHASH).
void apply_facts(const CpacfFacts& facts, CpuFeatures& features);

#if defined(__s390x__)
// Runs STFLE and the KIMD/KLMD queries (detect_s390x.cpp).
CpacfFacts probe_facts();
// probe_facts(), once per process.
const CpacfFacts& facts();
#endif

}  // namespace hwaccel::s390x
