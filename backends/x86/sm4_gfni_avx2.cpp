// SM4 with GFNI + AVX2, VEX encodings only, for CPUs with GFNI but without
// AVX-512 (Intel Alder Lake and later clients, Atom-class and E-core
// servers): 32 blocks per batch in four groups of 8, the folded GFNI round
// (sm4_x86_gfni_maths.hpp; kernel: sm4_x86_gfni_kernel.hpp). One block and
// the serial modes: the GFNI one-block path (sm4_x86_gfni_block.cpp). The
// only GFNI instructions are VEX-encoded GF2P8AFFINEQB and GF2P8AFFINEINVQB.
//
// No per-file compile flags: the kernel and the modes are compiled for
// GFNI/AVX2 through #pragma GCC target below (no AVX-512 in it, so no EVEX
// encoding); available() and every shared header (included first, so their
// inline functions stay baseline x86-64) are not.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "hwaccel/bytes.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/wipe_stack.hpp"
#include "x86/sm4_x86_engines.hpp"
#include "x86/sm4_x86_gfni_block.hpp"
#include "x86/sm4_x86_gfni_maths.hpp"
#include "x86/sm4_x86_maths.hpp"

namespace hwaccel::x86 {
namespace {
// Called on every CPU: baseline code, plain flag tests.
bool sm4_gfni_avx2_available(const CpuFeatures& c) { return c.gfni && c.avx2 && c.avx; }
}  // namespace
}  // namespace hwaccel::x86

// clang ignores "#pragma GCC target": the same target on every function
// defined in the region (lambdas and templates too).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("gfni,avx2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("gfni,avx2")
#endif
#include "x86/sm4_x86_gfni_kernel.hpp"

const hwaccel::Sm4Engine hwaccel::x86::sm4_gfni_avx2 =
    sm4x::gfni_engine<sm4x::GfniAvx2Kernel>("gfni-avx2", sm4_gfni_avx2_available);

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
