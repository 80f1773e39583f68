// SM4 with AES-NI + AVX2, for CPUs without VAES (Haswell to Comet Lake, Zen 1
// and 2): the VAES engine's kernel with each 256-bit AESENCLAST split into
// two 128-bit ones (sm4_x86_kernel.hpp). AVX2 rather than AVX: 8 blocks per
// ymm op cost 26 ops per group and round against 47 with xmm. One block and
// the serial modes: the shared one-block path (sm4_x86_block.cpp).
//
// No per-file compile flags: the kernel and the modes are compiled for
// AVX2/AES-NI through #pragma GCC target below; available() and every shared
// header (included first, so their inline functions stay baseline x86-64)
// are not.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwaccel/bytes.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/wipe_stack.hpp"
#include "x86/sm4_x86_block.hpp"
#include "x86/sm4_x86_engines.hpp"
#include "x86/sm4_x86_maths.hpp"

namespace hwaccel::x86 {
namespace {
// Called on every CPU: baseline code, plain flag tests.
bool sm4_aesni_available(const CpuFeatures& c) { return c.aesni && c.avx2 && c.avx && c.ssse3; }
}  // namespace
}  // namespace hwaccel::x86

// clang ignores "#pragma GCC target": the same target on every function
// defined in the region (lambdas and templates too).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,aes"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,aes")
#endif
#include "x86/sm4_x86_kernel.hpp"

const hwaccel::Sm4Engine hwaccel::x86::sm4_aesni_avx2 =
    sm4x::aes_engine</*kVaes=*/false>("aesni-avx2", sm4_aesni_available);

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
