// SM4 with VAES + AVX2: 32 blocks per batch in four groups of 8 blocks, one
// 256-bit VAESENCLAST per group and round (sm4_x86_common.hpp has the method).
//
// No per-file compile flags: the engine code is compiled for VAES/AVX2/AES-NI
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
bool sm4_vaes_available(const CpuFeatures& c) { return c.vaes && c.avx2 && c.aesni; }
}  // namespace
}  // namespace hwaccel::x86

#pragma GCC push_options
#pragma GCC target("vaes,avx2,aes")

#include "x86/sm4_x86_common.hpp"

namespace hwaccel::x86 {
namespace {

struct Vaes {
    static constexpr bool kVaes = true;
    static HWACCEL_SM4_INLINE __m256i enclast(__m256i x, __m256i k) { return _mm256_aesenclast_epi128(x, k); }
};
using E = sm4x::Engine<Vaes>;

}  // namespace

const Sm4Engine sm4_vaes_avx2 = {
    "vaes-avx2", sm4_vaes_available, sm4x::set_key, E::ecb, sm4x::encrypt_block,
    E::ctr,      E::cbc_decrypt,     E::cfb_decrypt,
    sm4x::cbc_encrypt, sm4x::cfb_encrypt, sm4x::ofb,
};

}  // namespace hwaccel::x86

#pragma GCC pop_options
