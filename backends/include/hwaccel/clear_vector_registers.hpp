// Zeroes the caller-saved vector registers that compiled code, or the libc
// functions it calls, may have left secrets in: GCC vectorises copies and
// rounds (the generic SHA-1/SHA-256 left their chaining values in xmm
// registers, SM4's set_key and GHASH's table copies key words), and glibc's
// memcpy copies a provider context's key schedule through them. Portable C++
// cannot clear a register, so this knows the ISAs the code commonly runs on
// and does nothing elsewhere:
//   x86-64   xmm0-15 (PXOR, baseline SSE2; VPXOR when the build targets AVX,
//            which also zeroes the upper halves the compiler may then use),
//            and xmm16-31 on a CPU with AVX-512F (glibc's copies use them);
//   arm64    v0-v7 and v16-v31 (v8-v15's low halves are callee-saved: a
//            function that used them restored the caller's values);
//   s390x    in a build for the vector facility (__VX__: -march=z13 and
//            later, as Ubuntu and RHEL build) v0-v7 and v16-v31, and the low
//            halves (doubleword 1) of v8-v15: their high halves are f8-f15,
//            call-saved, restored by the function that used them; the low
//            halves are not (GCC vectorised the SM4 round keys, GHASH's H,
//            the SHA and Keccak states and the CPACF engines' parameter
//            blocks through v0 and v1, and left them there). A build without
//            it (Debian's z196) generates no vector instruction, but GCC
//            spills general registers to the floating-point registers
//            (LDGR/LGDR, z10 and later): the portable Keccak left two state
//            lanes in f0 and f2. There f0-f7 (call-clobbered; they are the
//            high halves of v0-v7) are zeroed with LZDR, which every
//            z/Architecture CPU has.
// One definition for the portable engines, the arm64 and s390x engines and
// the provider's key handling. Internal linkage (an anonymous namespace): each
// file gets its own inlined copy, and the weak-symbol check of
// cross-aarch64.sh has nothing shared to find.
// Call it once per entry point, after the last store of the result.
#pragma once

namespace hwaccel {

#if defined(__x86_64__) && !defined(__AVX512F__)
bool cpu_has_xmm16_31();  // hwaccel/cpu.hpp
#endif

namespace {

#if defined(__x86_64__)
// One asm string for both encodings: legacy-SSE PXOR in a build that does not
// target AVX (it may run where AVX does not exist; it zeroes bits 0-127, and
// glibc's AVX copies end with VZEROUPPER), VEX VPXOR otherwise (which also
// zeroes the upper halves such a build may use).
#if defined(__AVX__)
#define HWACCEL_ZERO_XMM_R "vpxor %%xmm\\r, %%xmm\\r, %%xmm\\r\n"
#else
#define HWACCEL_ZERO_XMM_R "pxor %%xmm\\r, %%xmm\\r\n"
#endif

#if !defined(__AVX512F__)
// Kept once per file (not asked per call): the answer cannot change. From
// hwaccel's own CPU detection, once per process, rather than libgcc's
// __builtin_cpu_supports, whose constructor ran about a dozen CPUID
// instructions at every load of the module (each a trip to the hypervisor
// in a VM).
inline bool cpu_has_avx512f() {
    static const bool has = cpu_has_xmm16_31();
    return has;
}
#endif
#endif

inline __attribute__((always_inline)) void clear_vector_registers() {
#if defined(__x86_64__)
    __asm__ volatile(".irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n" HWACCEL_ZERO_XMM_R ".endr" ::
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                           "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "memory");
    // xmm16-31 whenever the CPU has them, whatever this build targets:
    // glibc's memcpy and memset (EVEX versions) copy through ymm16-31, and
    // a memcpy that the compiler does not inline (sanitizer
    // builds) leaves the copied key there. A build that targets AVX-512F
    // may keep its own values there, so names them as clobbered; any other
    // cannot use them (nor name them).
#if defined(__AVX512F__)
    __asm__ volatile(".irp r, 16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
                     "vpxord %%xmm\\r, %%xmm\\r, %%xmm\\r\n"
                     ".endr" ::
                         : "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",
                           "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31",
                           "memory");
#else
    if (cpu_has_avx512f()) {
        __asm__ volatile(".irp r, 16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
                         "vpxord %%xmm\\r, %%xmm\\r, %%xmm\\r\n"
                         ".endr" ::
                             : "memory");
    }
#endif
#elif defined(__aarch64__)
    __asm__ volatile("movi v0.16b, #0\n movi v1.16b, #0\n movi v2.16b, #0\n movi v3.16b, #0\n"
                     "movi v4.16b, #0\n movi v5.16b, #0\n movi v6.16b, #0\n movi v7.16b, #0\n"
                     "movi v16.16b, #0\n movi v17.16b, #0\n movi v18.16b, #0\n movi v19.16b, #0\n"
                     "movi v20.16b, #0\n movi v21.16b, #0\n movi v22.16b, #0\n movi v23.16b, #0\n"
                     "movi v24.16b, #0\n movi v25.16b, #0\n movi v26.16b, #0\n movi v27.16b, #0\n"
                     "movi v28.16b, #0\n movi v29.16b, #0\n movi v30.16b, #0\n movi v31.16b, #0\n" ::
                         : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v16", "v17", "v18", "v19",
                           "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30",
                           "v31", "memory");
#elif defined(__s390x__) && defined(__VX__)
    // VLEIG writes doubleword 1 only, so f8-f15 keep the caller's values
    // even before the epilogue's restore; v8-v15 are still named clobbered,
    // for a value the compiler might keep there across this point.
    __asm__ volatile(".irp r, 0,1,2,3,4,5,6,7,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
                     "vzero %%v\\r\n"
                     ".endr\n"
                     ".irp r, 8,9,10,11,12,13,14,15\n"
                     "vleig %%v\\r, 0, 1\n"
                     ".endr" ::
                         : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12",
                           "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24",
                           "v25", "v26", "v27", "v28", "v29", "v30", "v31", "memory");
#elif defined(__s390x__)
    __asm__ volatile(".irp r, 0,1,2,3,4,5,6,7\n"
                     "lzdr %%f\\r\n"
                     ".endr" ::
                         : "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "memory");
#endif
}

}  // namespace
}  // namespace hwaccel

#if defined(__x86_64__)
#undef HWACCEL_ZERO_XMM_R
#endif
