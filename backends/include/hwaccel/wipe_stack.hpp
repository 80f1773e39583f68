// Zeroes the stack that the functions an entry point called used, and the
// caller-saved general-purpose registers, as libgcrypt's _gcry_burn_stack
// does for the stack: compiled code spills what does not fit in registers
// (the portable SHA-1/SHA-256 left their chaining value, the portable Keccak
// lanes, in their frames and in rcx/rdx/rsi/r8), and no wipe of a local
// variable reaches a spill slot. Call it at the end of an entry point,
// after its work is done in a function that is not inlined into it (so
// that the work's frames lie below the entry point's stack pointer):
//   x86-64   the `bytes` below its return address (the caller's stack
//            pointer; the red zone included), then rax, rcx, rdx, rsi, rdi,
//            r8-r11;
//   arm64    the `bytes` below the stack pointer, then x0-x18 (x18 not
//            on Android);
//   others   a local array of up to 4 KiB, which lies below the caller's
//            frame (the registers cannot be reached from C++).
// `bytes`: a positive multiple of 32, at least the deepest the work goes
// (the register residue test checks it on x86-64 and arm64): wipe_bytes()
// of what an optimised build needs. Cost: about one cycle per 16 bytes
// (two 8-byte stores a cycle), so no more than needed.
#pragma once

#include <cstddef>

namespace hwaccel {

// Unoptimised and sanitizer builds: their frames are larger (no register
// allocation across statements; red zones around locals; spills around the
// runtime's calls, as TSan's __tsan_* hooks) and keep what an optimised
// build holds in registers. GCC defines __SANITIZE_ADDRESS__ and
// __SANITIZE_THREAD__ (__SANITIZE_HWADDRESS__ from GCC 13); clang 14 (the
// fuzz build) only answers __has_feature.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer) || __has_feature(hwaddress_sanitizer)
#define HWACCEL_WIPE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(__SANITIZE_HWADDRESS__)
#define HWACCEL_WIPE_SANITIZED 1
#endif
#if !defined(__OPTIMIZE__) || defined(HWACCEL_WIPE_SANITIZED)
inline constexpr bool kInstrumentedFrames = true;
#else
inline constexpr bool kInstrumentedFrames = false;
#endif

// The size to wipe for work whose stack use in an optimised build is
// `optimised` bytes (a multiple of 32): 8 times that in the builds above.
constexpr size_t wipe_bytes(size_t optimised) { return kInstrumentedFrames ? 8 * optimised : optimised; }

// For work that leaves no secret on the stack in an optimised build (its
// secrets stay in registers: the residue test checks it there) but may spill
// them in the builds above, whose frames are not checked: no wipe in an
// optimised build, wipe_bytes(optimised) in those.
constexpr size_t wipe_bytes_if_instrumented(size_t optimised) {
    return kInstrumentedFrames ? wipe_bytes(optimised) : 0;
}

// kInstrumentedFrames as the backends were compiled: a test compiled with
// other flags (the suites' own code is built at -O1 when the build type is
// not Debug, whatever CMAKE_CXX_FLAGS say) asks this, not its own copy.
bool backend_frames_instrumented();

}  // namespace hwaccel

// A C symbol, called directly: a C++ wrapper would add its own frame at -O0.
extern "C" __attribute__((visibility("hidden"))) void hwaccel_wipe_stack_and_scratch_registers(size_t bytes);
