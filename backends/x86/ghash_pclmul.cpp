// GHASH with PCLMULQDQ on xmm registers (SSSE3 for the byte reversal): 16
// blocks per reduction, Karatsuba products summed unreduced
// (ghash_x86_clmul.hpp has the arithmetic and the key schedule).
//
// Only the functions marked with the target attribute use the extensions;
// available() stays baseline x86-64, so no per-file compile flags.
#include "x86/ghash_x86_clmul.hpp"
#include "x86/ghash_x86_engines.hpp"
#include "hwaccel/cpu.hpp"

namespace hwaccel::x86 {
namespace {

using namespace ghash_clmul;

bool available(const CpuFeatures& c) { return c.pclmulqdq && c.ssse3; }

// 16 blocks per group (8 gave 7.2 GB/s at 16 KiB, 16 gives 8.7 on AMD Zen 5,
// where the PCLMULQDQ count is then the limit): the products are summed
// one block after another, so the group size costs no registers.
constexpr size_t kGroup = 16;

HWACCEL_CLMUL void set_key_entry(GhashKey* key, const uint8_t h[16]) {
    set_key(key, h);
    clear_xmm_registers();
}

}  // namespace

// Also the VPCLMULQDQ engines' code for a few blocks (ghash_x86_engines.hpp).
// Not inlined, not even across files under -flto: in a caller compiled for
// AVX-512 the compiler could move its values to xmm16-31, which the clear
// here reaches only in a build for AVX-512 as a whole.
__attribute__((noinline)) HWACCEL_CLMUL void pclmul_update(GhashKey* key, uint8_t y_bytes[16],
                                                           const uint8_t* data, size_t nblocks) {
    if (nblocks == 0) return;
    ensure_powers(key, nblocks < kGroup ? nblocks : kGroup);
    __m128i y = load_reversed(y_bytes);
    while (nblocks > 0) {
        const size_t m = nblocks < kGroup ? nblocks : kGroup;
        const GhashKey* k = per_group(key);
        Wide acc = zero_wide();
        accumulate_blocks(acc, k, data, m, 0);
        y = finish_group(acc, k, y, m);
        data += 16 * m;
        nblocks -= m;
    }
    store_reversed(y_bytes, y);
    clear_xmm_registers();
}

const GhashEngine ghash_pclmul = {
    .name = "pclmul",
    .available = available,
    .set_key = set_key_entry,
    .update = pclmul_update,
};

}  // namespace hwaccel::x86
