// call_and_dump_vectors (vector_register_dump.hpp): a trampoline in
// top-level assembly for each ISA (x86-64, arm64), so that no compiled code runs between the function's
// return and the stores that could touch a vector register.
#include "support/vector_register_dump.hpp"

#if defined(__x86_64__)

// void hwaccel_test_call_and_dump(void (*fn)(void*), void* ctx, uint8_t* dump, int zmm)
// System V: fn in rdi, ctx in rsi, dump in rdx, zmm in ecx. The dump
// pointer and the flag live in callee-saved rbx and r12 across the call
// (r13 is pushed for the call's 16-byte stack alignment). VZEROALL clears
// zmm0-15 whole; EVEX XORs clear zmm16-31. The .irp loops spell out one
// instruction per register.
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl hwaccel_test_call_and_dump\n"
    ".hidden hwaccel_test_call_and_dump\n"
    ".type hwaccel_test_call_and_dump, @function\n"
    "hwaccel_test_call_and_dump:\n"
    ".cfi_startproc\n"
    "    push %rbx\n"
    ".cfi_adjust_cfa_offset 8\n"
    ".cfi_rel_offset %rbx, 0\n"
    "    push %r12\n"
    ".cfi_adjust_cfa_offset 8\n"
    ".cfi_rel_offset %r12, 0\n"
    "    push %r13\n"
    ".cfi_adjust_cfa_offset 8\n"
    ".cfi_rel_offset %r13, 0\n"
    "    mov %rdx, %rbx\n"
    "    mov %ecx, %r12d\n"
    "    mov %rdi, %rax\n"
    "    mov %rsi, %rdi\n"
    "    test %r12d, %r12d\n"
    "    jz 1f\n"
    "    .irp r, 16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
    "    vpxord %zmm\\r, %zmm\\r, %zmm\\r\n"
    "    .endr\n"
    "1:  vzeroall\n"
    "    call *%rax\n"
    "    test %r12d, %r12d\n"
    "    jz 2f\n"
    "    .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
    "    vmovdqu64 %zmm\\r, 64*\\r(%rbx)\n"
    "    .endr\n"
    "    jmp 3f\n"
    "2:\n"
    "    .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
    "    vmovdqu %ymm\\r, 32*\\r(%rbx)\n"
    "    .endr\n"
    "3:  vzeroupper\n"
    "    pop %r13\n"
    ".cfi_adjust_cfa_offset -8\n"
    "    pop %r12\n"
    ".cfi_adjust_cfa_offset -8\n"
    "    pop %rbx\n"
    ".cfi_adjust_cfa_offset -8\n"
    "    ret\n"
    ".cfi_endproc\n"
    ".size hwaccel_test_call_and_dump, .-hwaccel_test_call_and_dump\n");

extern "C" void hwaccel_test_call_and_dump(void (*fn)(void*), void* ctx, uint8_t* dump, int zmm);

namespace hwaccel::test {

VectorRegisterDump call_and_dump_vectors(void (*fn)(void*), void* ctx, bool zmm) {
    VectorRegisterDump d{std::vector<uint8_t>(zmm ? 32 * 64 : 16 * 32), zmm ? 64u : 32u, zmm ? "zmm" : "ymm"};
    hwaccel_test_call_and_dump(fn, ctx, d.bytes.data(), zmm ? 1 : 0);
    return d;
}

}  // namespace hwaccel::test

#elif defined(__aarch64__)

// void hwaccel_test_call_and_dump(void (*fn)(void*), void* ctx, uint8_t* dump)
// AAPCS64: fn in x0, ctx in x1, dump in x2. The dump pointer lives in
// callee-saved x19 across the call; fn goes through x16 (IP0). The
// trampoline zeroes v8-v15 too, so it saves and restores its caller's d8-d15
// (their callee-saved low halves) around everything. The stores come
// straight after BLR: nothing between them writes a vector register.
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl hwaccel_test_call_and_dump\n"
    ".hidden hwaccel_test_call_and_dump\n"
    ".type hwaccel_test_call_and_dump, %function\n"
    "hwaccel_test_call_and_dump:\n"
    ".cfi_startproc\n"
    "    stp x29, x30, [sp, #-96]!\n"
    ".cfi_def_cfa_offset 96\n"
    ".cfi_offset 29, -96\n"
    ".cfi_offset 30, -88\n"
    "    mov x29, sp\n"
    "    stp d8, d9, [sp, #16]\n"
    "    stp d10, d11, [sp, #32]\n"
    "    stp d12, d13, [sp, #48]\n"
    "    stp d14, d15, [sp, #64]\n"
    ".cfi_offset 72, -80\n"
    ".cfi_offset 73, -72\n"
    ".cfi_offset 74, -64\n"
    ".cfi_offset 75, -56\n"
    ".cfi_offset 76, -48\n"
    ".cfi_offset 77, -40\n"
    ".cfi_offset 78, -32\n"
    ".cfi_offset 79, -24\n"
    "    str x19, [sp, #80]\n"
    ".cfi_offset 19, -16\n"
    "    mov x19, x2\n"
    "    mov x16, x0\n"
    "    mov x0, x1\n"
    "    .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
    "    movi v\\r\\().16b, #0\n"
    "    .endr\n"
    "    blr x16\n"
    "    .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
    "    str q\\r, [x19, #16*\\r]\n"
    "    .endr\n"
    "    ldr x19, [sp, #80]\n"
    "    ldp d8, d9, [sp, #16]\n"
    "    ldp d10, d11, [sp, #32]\n"
    "    ldp d12, d13, [sp, #48]\n"
    "    ldp d14, d15, [sp, #64]\n"
    "    ldp x29, x30, [sp], #96\n"
    ".cfi_restore 29\n"
    ".cfi_restore 30\n"
    ".cfi_def_cfa_offset 0\n"
    "    ret\n"
    ".cfi_endproc\n"
    ".size hwaccel_test_call_and_dump, .-hwaccel_test_call_and_dump\n");

extern "C" void hwaccel_test_call_and_dump(void (*fn)(void*), void* ctx, uint8_t* dump);

namespace hwaccel::test {

VectorRegisterDump call_and_dump_vectors(void (*fn)(void*), void* ctx) {
    VectorRegisterDump d{std::vector<uint8_t>(32 * 16), 16, "v"};
    hwaccel_test_call_and_dump(fn, ctx, d.bytes.data());
    return d;
}

}  // namespace hwaccel::test

#endif
