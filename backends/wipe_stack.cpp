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
    "    sub %rdi, %rax\n"
    "    xor %ecx, %ecx\n"
    "    jmp 2f\n"
    "1:  mov %rcx, (%rax)\n"
    "    mov %rcx, 8(%rax)\n"
    "    mov %rcx, 16(%rax)\n"
    "    mov %rcx, 24(%rax)\n"
    "    add $32, %rax\n"
    "2:  cmp %rsp, %rax\n"
    "    jb 1b\n"
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
// zone: what lies below sp is the callees' old frames), then zeroes x0-x17
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
    "    sub x10, x9, x0\n"
    "    b 2f\n"
    "1:  stp xzr, xzr, [x10], #16\n"
    "    stp xzr, xzr, [x10], #16\n"
    "2:  cmp x10, x9\n"
    "    b.lo 1b\n"
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
