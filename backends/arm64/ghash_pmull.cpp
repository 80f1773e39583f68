// GHASH with the ARMv8 Crypto Extension's 64x64 carry-less multiply
// (PMULL/PMULL2, FEAT_PMULL, HWCAP_PMULL): 8 blocks per reduction, their
// Karatsuba products summed unreduced. The same arithmetic as the x86 CLMUL
// engines (backends/x86/ghash_x86_clmul.hpp explains it at length), with
// PMULL on lane 0 and PMULL2 on lane 1 in place of PCLMULQDQ's selectors.
//
// Representation. A block is loaded with its 16 bytes reversed (REV64, then
// EXT to swap the halves), so the register holds GCM's 128-bit string as one
// integer whose bit 127 - i is the coefficient of x^i, low quadword in lane
// 0. The carry-less product of two such operands is the reversal of the
// field product; it is reduced by a Montgomery reduction modulo the
// reversed polynomial P' = x^128 + x^127 + x^126 + x^121 + 1, two 64-bit
// folds each one PMULL of the low quadword by x^63 + x^62 + x^57
// (0xc2 << 56), the x^128 term being the swap of the halves. The factor x
// the reduction loses is put into H once: the table holds H'^k = H^k * x
// mod P'. No bit reversal (RBIT) is needed.
//
// Table (GhashKey::engine_data, 256 of its bytes), 16-byte slots: slot s
// holds H'^(8 - s) (s = 0..7), slot 8 + s the XOR of that power's halves
// (Karatsuba's middle operand) in lane 0. Descending powers make block i of
// an m-block group (m <= 8) read slot 8 - m + i: it meets H'^(m - i). Only
// the first GhashKey::engine_count powers are computed; set_key computes
// H' alone and update extends the table when a call first needs more, so
// a message of a few blocks under a new key pays for no more.
//
// Constant-time: PMULL's timing does not depend on its operands, and no
// branch or address depends on H, Y or the data (group sizes depend on the
// block count only). H is key material: the entry points clear the
// caller-saved vector registers before returning (v8-v15's low halves are
// restored by the compiler with scalar loads, which zero the upper halves),
// and the functions keep everything in registers: none spills a vector
// register to the stack (GCC 12, -O2; check after changes with
//   aarch64-linux-gnu-objdump -d build-aarch64/backends/CMakeFiles/hwaccel_backend_objects.dir/arm64/ghash_pmull.cpp.o | grep 'q[0-9]*, \[sp'
// which should print nothing).
//
// Compiled with -march=armv8-a+crypto (backends/CMakeLists.txt, this file
// only); available() keeps the functions off CPUs without HWCAP_PMULL. The
// object exports only the engine table (everything else is internal), so
// the linker can never pick code built with that flag for another file.
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "arm64/arm64_engines.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"

namespace hwaccel::arm64 {
namespace {

#define HWACCEL_PMULL_INLINE inline __attribute__((always_inline))

// 8 blocks per reduction: 24 PMULLs and one reduction's 2 per group, the
// powers and data of a group in the 32 vector registers.
constexpr size_t kGroup = 8;
constexpr size_t kPowers = kGroup;
static_assert(kPowers <= 255, "GhashKey::engine_count is a byte");
constexpr size_t kKaratsubaSlots = kPowers;  // first Karatsuba slot
static_assert(16 * (kPowers + kKaratsubaSlots) <= GhashKey::kEngineDataSize, "engine_data too small");

// Offset in engine_data of the slot of block i in a group of m blocks.
HWACCEL_PMULL_INLINE size_t power_slot(size_t m, size_t i) { return 16 * (kPowers - m + i); }
HWACCEL_PMULL_INLINE size_t karatsuba_slot(size_t m, size_t i) { return 16 * (kKaratsubaSlots + kPowers - m + i); }

HWACCEL_PMULL_INLINE uint64x2_t swap_halves(uint64x2_t v) { return vextq_u64(v, v, 1); }

// The 16 bytes reversed: memory's big-endian 128-bit string as a register
// integer (arm64 is little-endian), and back.
HWACCEL_PMULL_INLINE uint64x2_t load_reversed(const uint8_t* p) {
    return swap_halves(vreinterpretq_u64_u8(vrev64q_u8(vld1q_u8(p))));
}
HWACCEL_PMULL_INLINE void store_reversed(uint8_t* p, uint64x2_t v) {
    vst1q_u8(p, vrev64q_u8(vreinterpretq_u8_u64(swap_halves(v))));
}

// Lane 0 times lane 0 (PMULL), lane 1 times lane 1 (PMULL2).
HWACCEL_PMULL_INLINE uint64x2_t mul_low(uint64x2_t a, uint64x2_t b) {
    return vreinterpretq_u64_p128(
        vmull_p64(static_cast<poly64_t>(vgetq_lane_u64(a, 0)), static_cast<poly64_t>(vgetq_lane_u64(b, 0))));
}
HWACCEL_PMULL_INLINE uint64x2_t mul_high(uint64x2_t a, uint64x2_t b) {
    return vreinterpretq_u64_p128(vmull_high_p64(vreinterpretq_p64_u64(a), vreinterpretq_p64_u64(b)));
}

// x^63 + x^62 + x^57: P' without x^128 and 1, over x^64.
constexpr uint64_t kFold = 0xc200000000000000ull;

// Unreduced 256-bit product hi:lo, with Karatsuba's middle product apart.
struct Wide {
    uint64x2_t lo, hi, mid;
};

HWACCEL_PMULL_INLINE Wide zero_wide() { return {vdupq_n_u64(0), vdupq_n_u64(0), vdupq_n_u64(0)}; }

// acc += a * h, where k holds h's Karatsuba word (the XOR of its halves) in lane 0.
HWACCEL_PMULL_INLINE void accumulate(Wide& acc, uint64x2_t a, uint64x2_t h, uint64x2_t k) {
    acc.lo = veorq_u64(acc.lo, mul_low(a, h));
    acc.hi = veorq_u64(acc.hi, mul_high(a, h));
    acc.mid = veorq_u64(acc.mid, mul_low(veorq_u64(a, swap_halves(a)), k));
}

// (hi:lo) * x^-128 mod P', given Karatsuba's three sums.
HWACCEL_PMULL_INLINE uint64x2_t reduce(const Wide& w) {
    const uint64x2_t zero = vdupq_n_u64(0);
    const uint64x2_t mid = veorq_u64(w.mid, veorq_u64(w.lo, w.hi));
    uint64x2_t lo = veorq_u64(w.lo, vextq_u64(zero, mid, 1));  // mid's low half into lo's high
    const uint64x2_t hi = veorq_u64(w.hi, vextq_u64(mid, zero, 1));  // mid's high half into hi's low
    const uint64x2_t c = vdupq_n_u64(kFold);
    // Each fold cancels the low quadword q (adding q * P') and divides by
    // x^64: q * (x^63 + x^62 + x^57) lands in place, q * x^128 / x^64 is
    // the swap.
    lo = veorq_u64(swap_halves(lo), mul_low(lo, c));
    lo = veorq_u64(swap_halves(lo), mul_low(lo, c));
    return veorq_u64(lo, hi);
}

HWACCEL_PMULL_INLINE uint64x2_t karatsuba_word(uint64x2_t h) { return veorq_u64(h, swap_halves(h)); }

HWACCEL_PMULL_INLINE uint64x2_t multiply(uint64x2_t a, uint64x2_t h) {
    Wide w = zero_wide();
    accumulate(w, a, h, karatsuba_word(h));
    return reduce(w);
}

HWACCEL_PMULL_INLINE uint64x2_t load_slot(const GhashKey* key, size_t offset) {
    return vreinterpretq_u64_u8(vld1q_u8(key->engine_data + offset));
}

HWACCEL_PMULL_INLINE void store_power(GhashKey* key, size_t k, uint64x2_t power) {
    uint8_t* slot = key->engine_data + 16 * (kPowers - k);
    vst1q_u8(slot, vreinterpretq_u8_u64(power));
    vst1q_u8(slot + 16 * kKaratsubaSlots, vreinterpretq_u8_u64(karatsuba_word(power)));
}

// H' = H * x mod P': a shift by one, then P' - x^128 added, by mask, when a
// bit left the top. The previous key's powers are wiped whatever the key
// held (its count may be uninitialised memory). The wipe is secure_zero's
// small-size form: its large one keeps a function pointer as a unique
// global ("u") symbol, which the cross build's weak-symbol check refuses in
// these objects.
void set_key_powers(GhashKey* key, const uint8_t h[16]) {
    std::memset(key->engine_data, 0, sizeof key->engine_data);
    __asm__ __volatile__("" : : "r"(key->engine_data) : "memory");  // the stores must happen
    std::memcpy(key->h, h, 16);
    const uint64x2_t v = load_reversed(h);
    const uint64x2_t zero = vdupq_n_u64(0);
    // Each half shifted, the low half's top bit carried into the high half.
    const uint64x2_t shifted = vorrq_u64(vshlq_n_u64(v, 1), vshrq_n_u64(vextq_u64(zero, v, 1), 63));
    // All ones if bit 127 was set.
    const uint64x2_t top = vreinterpretq_u64_s64(vdupq_laneq_s64(vshrq_n_s64(vreinterpretq_s64_u64(v), 63), 1));
    const uint64x2_t poly = vcombine_u64(vcreate_u64(1), vcreate_u64(kFold));
    store_power(key, 1, veorq_u64(shifted, vandq_u64(top, poly)));
    key->engine_count = 1;
}

// H'^1..H'^n (n <= kPowers) in the table, the missing ones as products of
// two lower ones (Montgomery keeps the single factor x), H'^k = H'^(k - b) *
// H'^b with b the largest power of two below k, as the x86 CLMUL engines
// do: log2(n) products deep, not n - 1. Depends on n and the counts of
// earlier updates only, never on H.
HWACCEL_PMULL_INLINE void ensure_powers(GhashKey* key, size_t n) {
    if (n <= key->engine_count) return;
    for (size_t k = key->engine_count + size_t{1}; k <= n; ++k) {  // k >= 2: set_key stored H'^1
        const size_t b = size_t{1} << (63 - __builtin_clzll(k - 1));
        store_power(key, k, multiply(load_slot(key, 16 * (kPowers - (k - b))), load_slot(key, 16 * (kPowers - b))));
    }
    key->engine_count = static_cast<uint8_t>(n);  // n <= kPowers = 8
}

// The key pointer, made opaque to the compiler once per group, so it does
// not hoist the table's loads out of the loop and, short of registers, copy
// H's powers to the stack, where they would outlive the call.
HWACCEL_PMULL_INLINE const GhashKey* per_group(const GhashKey* key) {
    __asm__("" : "+r"(key));
    return key;
}

// GHASH over blocks X_0..X_{m-1} from Y is sum_i (X_i ^ [i = 0] Y) * H^(m - i):
// each group's products are summed unreduced and reduced once. Y's product
// joins last, so the data's products do not wait for the previous group.
void update(GhashKey* key, uint8_t y_bytes[16], const uint8_t* data, size_t nblocks) {
    if (nblocks == 0) return;
    ensure_powers(key, nblocks < kGroup ? nblocks : kGroup);
    uint64x2_t y = load_reversed(y_bytes);
    while (nblocks > 0) {
        const size_t m = nblocks < kGroup ? nblocks : kGroup;
        const GhashKey* k = per_group(key);
        Wide acc = zero_wide();
        for (size_t i = 1; i < m; ++i)
            accumulate(acc, load_reversed(data + 16 * i), load_slot(k, power_slot(m, i)),
                       load_slot(k, karatsuba_slot(m, i)));
        const uint64x2_t h_m = load_slot(k, power_slot(m, 0));
        const uint64x2_t k_m = load_slot(k, karatsuba_slot(m, 0));
        accumulate(acc, load_reversed(data), h_m, k_m);
        accumulate(acc, y, h_m, k_m);
        y = reduce(acc);
        data += 16 * m;
        nblocks -= m;
    }
    store_reversed(y_bytes, y);
    clear_vector_registers();
}

void set_key(GhashKey* key, const uint8_t h[16]) {
    set_key_powers(key, h);
    clear_vector_registers();
}

// PMULL is FEAT_PMULL; arm_pmull implies Advanced SIMD.
bool available(const CpuFeatures& cpu) { return cpu.arm_pmull; }

}  // namespace

const GhashEngine ghash_pmull = {
    .name = "arm64-pmull",
    .available = available,
    .set_key = set_key,
    .update = update,
};

}  // namespace hwaccel::arm64
