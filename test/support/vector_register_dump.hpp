// The vector registers exactly as a function left them (x86-64, arm64,
// s390x with the vector facility): for
// tests that check an engine clears what it kept in registers before returning.
// call_and_dump_residue adds the caller-saved general-purpose registers and
// the stack the function used.
#pragma once

#if defined(__x86_64__) || defined(__aarch64__) || defined(__s390x__)

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hwaccel::test {

// What call_and_dump_vectors stored: register r's bytes at r * width.
struct VectorRegisterDump {
    std::vector<uint8_t> bytes;
    size_t width;       // 32 (ymm0-15), 64 (zmm0-31) or 16 (arm64, s390x v0-31); 8 for GPRs
    const char* prefix; // "ymm", "zmm" or "v"; for a stack dump "sp-"
    const char* const* names = nullptr;  // register r's name, where not prefix + r (GPRs)
    bool stack = false;  // bytes end just below the call's stack pointer: offsets are named sp-N
};

// The stack below the caller's stack pointer that call_and_dump_residue zeroes
// before the call and copies after it: every engine's deepest frame must fit
// (the residue test checks its lowest bytes stay zero). Within the 8 MiB main
// thread stack (and qemu-user's guest stack).
constexpr size_t kStackDumpBytes = 64 * 1024;

// Everything a call left behind that the next code could read.
struct CallResidue {
    VectorRegisterDump vectors;
    // x86-64: rax, rcx, rdx, rsi, rdi, r8-r11; arm64: x0-x18 (x18 is a
    // temporary on Linux). The caller-saved ones: the callee-saved are the
    // caller's again. rax/x0 may hold fn's return value (none for a thunk).
    VectorRegisterDump gprs;
    // kStackDumpBytes just below the stack pointer at the call (the return
    // address the call pushes on x86-64 is its last 8 bytes).
    VectorRegisterDump stack;
};

#if defined(__x86_64__)

// Zeroes every vector register, calls fn(ctx), and stores the registers
// right after fn returns: ymm0-15, or zmm0-31 with `zmm` (only on CPUs with
// AVX-512F). The zeroing first means whatever the dump holds, fn (or what it
// called) put there. Needs AVX. fn must not use vector registers after the
// call it stands for (a thunk: one call, then return; check its objdump).
VectorRegisterDump call_and_dump_vectors(void (*fn)(void*), void* ctx, bool zmm);
// The same, and also zeroes the kStackDumpBytes below its stack pointer
// before the call and dumps them and the caller-saved GPRs after it.
CallResidue call_and_dump_residue(void (*fn)(void*), void* ctx, bool zmm);
#elif defined(__s390x__)
// s390x: zeroes v0-v31 whole, calls fn(ctx), stores all 128 bits of each
// right after fn returns (VSTM). v8-v15 included: the ELF ABI preserves only
// their high halves (f8-f15), so fn may leave its own values in the low
// halves. Vector registers only (no GPR or stack dump). Needs the vector
// facility at run time (z13 and later: HWCAP_S390_VXRS), whatever the build
// targets. The same rule for fn as below (a thunk).
VectorRegisterDump call_and_dump_vectors(void (*fn)(void*), void* ctx);
#else
// arm64: zeroes v0-v31 whole, calls fn(ctx), stores all 128 bits of each
// (q0-q31) right after fn returns. v8-v15 included: AAPCS64 preserves only
// their low 64 bits (d8-d15), so fn may leave its own values in the upper
// halves. The same rule for fn as above (a thunk).
VectorRegisterDump call_and_dump_vectors(void (*fn)(void*), void* ctx);
CallResidue call_and_dump_residue(void (*fn)(void*), void* ctx);
#endif

}  // namespace hwaccel::test

#endif
