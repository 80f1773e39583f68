// The vector registers exactly as a function left them (x86-64, arm64): for
// tests that check an engine clears what it kept in registers before returning.
#pragma once

#if defined(__x86_64__) || defined(__aarch64__)

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hwaccel::test {

// What call_and_dump_vectors stored: register r's bytes at r * width.
struct VectorRegisterDump {
    std::vector<uint8_t> bytes;
    size_t width;       // 32 (ymm0-15), 64 (zmm0-31) or 16 (arm64 v0-31)
    const char* prefix; // "ymm", "zmm" or "v"
};

#if defined(__x86_64__)

// Zeroes every vector register, calls fn(ctx), and stores the registers
// right after fn returns: ymm0-15, or zmm0-31 with `zmm` (only on CPUs with
// AVX-512F). The zeroing first means whatever the dump holds, fn (or what it
// called) put there. Needs AVX. fn must not use vector registers after the
// call it stands for (a thunk: one call, then return; check its objdump).
VectorRegisterDump call_and_dump_vectors(void (*fn)(void*), void* ctx, bool zmm);
#else
// arm64: zeroes v0-v31 whole, calls fn(ctx), stores all 128 bits of each
// (q0-q31) right after fn returns. v8-v15 included: AAPCS64 preserves only
// their low 64 bits (d8-d15), so fn may leave its own values in the upper
// halves. The same rule for fn as above (a thunk).
VectorRegisterDump call_and_dump_vectors(void (*fn)(void*), void* ctx);
#endif

}  // namespace hwaccel::test

#endif
