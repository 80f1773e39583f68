// The vector registers exactly as a function left them (x86-64): for tests
// that check an engine clears what it kept in registers before returning.
#pragma once

#if defined(__x86_64__)

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hwaccel::test {

// What call_and_dump_vectors stored: register r's bytes at r * width.
struct VectorRegisterDump {
    std::vector<uint8_t> bytes;
    size_t width;       // 32 (ymm0-15) or 64 (zmm0-31)
    const char* prefix; // "ymm" or "zmm"
};

// Zeroes every vector register, calls fn(ctx), and stores the registers
// right after fn returns: ymm0-15, or zmm0-31 with `zmm` (only on CPUs with
// AVX-512F). The zeroing first means whatever the dump holds, fn (or what it
// called) put there. Needs AVX. fn must not use vector registers after the
// call it stands for (a thunk: one call, then return; check its objdump).
VectorRegisterDump call_and_dump_vectors(void (*fn)(void*), void* ctx, bool zmm);

}  // namespace hwaccel::test

#endif
