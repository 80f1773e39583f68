// hwaccel_wipe_stack_and_scratch_registers (hwaccel/wipe_stack.hpp): top-level
// assembly on x86-64 and arm64, so that its own frame is none (it writes
// from its entry stack pointer down) and the registers it zeroes are the
// last thing it does.
#include "hwaccel/wipe_stack.hpp"

#include <cstdint>

#include "hwaccel/bytes.hpp"

#if defined(__x86_64__) && defined(__ELF__)

// rdi = bytes. The loop stores zeros from rsp - bytes up to rsp (its return
// address, not included), 32 bytes an iteration; no vector register (a
// legacy-SSE store could cost a state transition on Intel after AVX code).
// The stack pointer is lowered over the area while it is written (rax holds
// the old one, and the CFA): stores below it are invalid to valgrind, which
// runs the portable engines in the constant-time check.
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl hwaccel_wipe_stack_and_scratch_registers\n"
    ".hidden hwaccel_wipe_stack_and_scratch_registers\n"
    ".type hwaccel_wipe_stack_and_scratch_registers, @function\n"
    "hwaccel_wipe_stack_and_scratch_registers:\n"
    ".cfi_startproc\n"
    "    endbr64\n"
    "    mov %rsp, %rax\n"
    ".cfi_def_cfa_register %rax\n"
    "    sub %rdi, %rsp\n"
    "    mov %rsp, %rdx\n"
    "    xor %ecx, %ecx\n"
    "    jmp 2f\n"
    "1:  mov %rcx, (%rdx)\n"
    "    mov %rcx, 8(%rdx)\n"
    "    mov %rcx, 16(%rdx)\n"
    "    mov %rcx, 24(%rdx)\n"
    "    add $32, %rdx\n"
    "2:  cmp %rax, %rdx\n"
    "    jb 1b\n"
    "    mov %rax, %rsp\n"
    ".cfi_def_cfa_register %rsp\n"
    "    xor %eax, %eax\n"
    "    xor %edx, %edx\n"
    "    xor %esi, %esi\n"
    "    xor %edi, %edi\n"
    "    xor %r8d, %r8d\n"
    "    xor %r9d, %r9d\n"
    "    xor %r10d, %r10d\n"
    "    xor %r11d, %r11d\n"
    "    ret\n"
    ".cfi_endproc\n"
    ".size hwaccel_wipe_stack_and_scratch_registers, .-hwaccel_wipe_stack_and_scratch_registers\n");

#elif defined(__aarch64__) && defined(__ELF__)

// x0 = bytes. Stores zeros from sp - bytes up to sp (AAPCS64 has no red
// zone: what lies below sp is the callees' old frames), with sp lowered over
// them meanwhile (as on x86-64: valgrind), then zeroes x0-x17
// and x18, a temporary on Linux that GCC allocates (the portable Keccak
// left a lane there); not where it is the platform's (Android: the shadow
// call stack).
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl hwaccel_wipe_stack_and_scratch_registers\n"
    ".hidden hwaccel_wipe_stack_and_scratch_registers\n"
    ".type hwaccel_wipe_stack_and_scratch_registers, %function\n"
    "hwaccel_wipe_stack_and_scratch_registers:\n"
    ".cfi_startproc\n"
    "    mov x9, sp\n"
    ".cfi_def_cfa x9, 0\n"
    "    sub x10, x9, x0\n"
    "    mov sp, x10\n"
    "    b 2f\n"
    "1:  stp xzr, xzr, [x10], #16\n"
    "    stp xzr, xzr, [x10], #16\n"
    "2:  cmp x10, x9\n"
    "    b.lo 1b\n"
    "    mov sp, x9\n"
    ".cfi_def_cfa sp, 0\n"
    "    .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17\n"
    "    mov x\\r, xzr\n"
    "    .endr\n"
#if !defined(__ANDROID__)
    "    mov x18, xzr\n"
#endif
    "    ret\n"
    ".cfi_endproc\n"
    ".size hwaccel_wipe_stack_and_scratch_registers, .-hwaccel_wipe_stack_and_scratch_registers\n");

#else

// Its frame (the array) lies just below its caller's: where the caller's
// callees were.
extern "C" void hwaccel_wipe_stack_and_scratch_registers(size_t bytes) {
    uint8_t area[4096];
    hwaccel::secure_zero(area, bytes < sizeof area ? bytes : sizeof area);
}

#endif

bool hwaccel::backend_frames_instrumented() { return hwaccel::kInstrumentedFrames; }
