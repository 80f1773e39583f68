// SM4 with VAES + AVX2: 32 blocks per batch in four groups of 8 blocks, one
// 256-bit VAESENCLAST per group and round (the kernel: sm4_x86_kernel.hpp;
// the method: sm4_x86_maths.hpp). One block and the serial modes: the shared
// one-block path (sm4_x86_block.cpp).
//
// No per-file compile flags: the kernel and the modes are compiled for
// VAES/AVX2/AES-NI through #pragma GCC target below; available() and every
// shared header (included first, so their inline functions stay baseline
// x86-64) are not.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwaccel/bytes.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "x86/sm4_x86_block.hpp"
#include "x86/sm4_x86_engines.hpp"
#include "x86/sm4_x86_maths.hpp"

namespace hwaccel::x86 {
namespace {
// Called on every CPU: baseline code, plain flag tests.
bool sm4_vaes_available(const CpuFeatures& c) { return c.vaes && c.avx2 && c.aesni; }
}  // namespace
}  // namespace hwaccel::x86

#pragma GCC push_options
#pragma GCC target("vaes,avx2,aes")

#include "x86/sm4_x86_kernel.hpp"
#include "x86/sm4_x86_modes.hpp"

namespace hwaccel::x86 {
namespace {
using Modes = sm4x::BulkModes<sm4x::AesKernel</*kVaes=*/true>>;
}  // namespace

const Sm4Engine sm4_vaes_avx2 = {
    .name = "vaes-avx2",
    .available = sm4_vaes_available,
    .set_key = sm4x::set_key,
    .ecb = Modes::ecb,
    .encrypt_block = sm4x::encrypt_block,
    .ctr = Modes::ctr,
    .cbc_decrypt = Modes::cbc_decrypt,
    .cfb_decrypt = Modes::cfb_decrypt,
    .cbc_encrypt = sm4x::cbc_encrypt,
    .cfb_encrypt = sm4x::cfb_encrypt,
    .ofb = sm4x::ofb,
};

}  // namespace hwaccel::x86

#pragma GCC pop_options
