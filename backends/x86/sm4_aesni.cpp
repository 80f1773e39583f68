// SM4 with AES-NI + AVX2, for CPUs without VAES (Haswell to Comet Lake, Zen 1
// and 2): the VAES engine's kernel with each 256-bit AESENCLAST split into
// two 128-bit ones (sm4_x86_common.hpp has the method). AVX2 rather than AVX:
// 8 blocks per ymm op cost 26 ops per group and round against 47 with xmm.
//
// No per-file compile flags: the engine code is compiled for AVX2/AES-NI
// through #pragma GCC target below; available() and every shared header
// (included first, so their inline functions stay baseline x86-64) are not.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwaccel/bytes.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "x86/sm4_x86_engines.hpp"

namespace hwaccel::x86 {
namespace {
// Called on every CPU: baseline code, plain flag tests.
bool sm4_aesni_available(const CpuFeatures& c) { return c.aesni && c.avx2 && c.avx && c.ssse3; }
}  // namespace
}  // namespace hwaccel::x86

#pragma GCC push_options
#pragma GCC target("avx2,aes")

#include "x86/sm4_x86_common.hpp"

namespace hwaccel::x86 {
namespace {

struct AesNi {
    static constexpr bool kVaes = false;
    static HWACCEL_SM4_INLINE __m256i enclast(__m256i x, __m256i k) {
        const __m128i key = _mm256_castsi256_si128(k);
        const __m128i lo = _mm_aesenclast_si128(_mm256_castsi256_si128(x), key);
        const __m128i hi = _mm_aesenclast_si128(_mm256_extracti128_si256(x, 1), key);
        return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
    }
};
using E = sm4x::Engine<AesNi>;

}  // namespace

const Sm4Engine sm4_aesni_avx2 = {
    "aesni-avx2", sm4_aesni_available, sm4x::set_key, E::ecb, sm4x::encrypt_block,
    E::ctr,       E::cbc_decrypt,      E::cfb_decrypt,
    sm4x::cbc_encrypt, sm4x::cfb_encrypt, sm4x::ofb,
};

}  // namespace hwaccel::x86

#pragma GCC pop_options
