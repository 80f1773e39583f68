// call_and_dump_vectors and call_and_dump_residue (vector_register_dump.hpp):
// a trampoline in top-level assembly for each ISA (x86-64, arm64, s390x), so that no
// compiled code runs between the function's return and the stores that could
// touch a register, and none between the stack's zeroing, the call and its copy.
#include "support/vector_register_dump.hpp"

#if defined(__x86_64__) || defined(__aarch64__)
namespace {
static_assert(hwaccel::test::kStackDumpBytes == 65536, "the trampolines' immediates (65536 bytes, 8192 quadwords)");
}
#endif

#if defined(__x86_64__)

// void hwaccel_test_call_and_dump(void (*fn)(void*), void* ctx, uint8_t* dump, int zmm,
//                                 uint64_t* gprs, uint8_t* stack)
// System V: fn in rdi, ctx in rsi, dump in rdx, zmm in ecx, gprs in r8,
// stack in r9 (either may be null: not dumped, and the stack not zeroed).
// They live in callee-saved rbx, r12-r15 across the call (five pushes: the
// call's 16-byte stack alignment). REP STOSQ zeroes the 64 KiB below the
// stack pointer (the call's return address and fn's frames go there); after
// the call the GPRs are stored first (a MOV to memory changes no register),
// then the vectors, then REP MOVSQ copies the stack region out. VZEROALL
// clears zmm0-15 whole; EVEX XORs clear zmm16-31. The .irp loops spell out
// one instruction per register.
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl hwaccel_test_call_and_dump\n"
    ".hidden hwaccel_test_call_and_dump\n"
    ".type hwaccel_test_call_and_dump, @function\n"
    "hwaccel_test_call_and_dump:\n"
    ".cfi_startproc\n"
    "    .irp r, rbx,r12,r13,r14,r15\n"
    "    push %\\r\n"
    ".cfi_adjust_cfa_offset 8\n"
    ".cfi_rel_offset %\\r, 0\n"
    "    .endr\n"
    "    mov %rdx, %rbx\n"
    "    mov %ecx, %r12d\n"
    "    mov %r8, %r13\n"
    "    mov %r9, %r14\n"
    "    mov %rdi, %r15\n"
    "    test %r14, %r14\n"
    "    jz 5f\n"
    "    lea -65536(%rsp), %rdi\n"
    "    mov $8192, %ecx\n"
    "    xor %eax, %eax\n"
    "    rep stosq\n"
    "5:  mov %rsi, %rdi\n"
    "    test %r12d, %r12d\n"
    "    jz 1f\n"
    "    .irp r, 16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
    "    vpxord %zmm\\r, %zmm\\r, %zmm\\r\n"
    "    .endr\n"
    "1:  vzeroall\n"
    "    call *%r15\n"
    "    test %r13, %r13\n"
    "    jz 4f\n"
    "    mov %rax, 0(%r13)\n"
    "    mov %rcx, 8(%r13)\n"
    "    mov %rdx, 16(%r13)\n"
    "    mov %rsi, 24(%r13)\n"
    "    mov %rdi, 32(%r13)\n"
    "    mov %r8, 40(%r13)\n"
    "    mov %r9, 48(%r13)\n"
    "    mov %r10, 56(%r13)\n"
    "    mov %r11, 64(%r13)\n"
    "4:  test %r12d, %r12d\n"
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
    "    test %r14, %r14\n"
    "    jz 6f\n"
    "    lea -65536(%rsp), %rsi\n"
    "    mov %r14, %rdi\n"
    "    mov $8192, %ecx\n"
    "    rep movsq\n"
    "6:\n"
    "    .irp r, r15,r14,r13,r12,rbx\n"
    "    pop %\\r\n"
    ".cfi_adjust_cfa_offset -8\n"
    ".cfi_restore %\\r\n"
    "    .endr\n"
    "    ret\n"
    ".cfi_endproc\n"
    ".size hwaccel_test_call_and_dump, .-hwaccel_test_call_and_dump\n");

extern "C" void hwaccel_test_call_and_dump(void (*fn)(void*), void* ctx, uint8_t* dump, int zmm, uint8_t* gprs,
                                           uint8_t* stack);

namespace hwaccel::test {

namespace {
const char* const kGprNames[] = {"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"};
constexpr size_t kGprs = sizeof kGprNames / sizeof kGprNames[0];

VectorRegisterDump empty_vectors(bool zmm) {
    return {std::vector<uint8_t>(zmm ? 32 * 64 : 16 * 32), zmm ? 64u : 32u, zmm ? "zmm" : "ymm"};
}
}  // namespace

VectorRegisterDump call_and_dump_vectors(void (*fn)(void*), void* ctx, bool zmm) {
    VectorRegisterDump d = empty_vectors(zmm);
    hwaccel_test_call_and_dump(fn, ctx, d.bytes.data(), zmm ? 1 : 0, nullptr, nullptr);
    return d;
}

CallResidue call_and_dump_residue(void (*fn)(void*), void* ctx, bool zmm) {
    CallResidue r{empty_vectors(zmm), {std::vector<uint8_t>(8 * kGprs), 8, "", kGprNames},
                  {std::vector<uint8_t>(kStackDumpBytes), kStackDumpBytes, "sp-", nullptr, true}};
    hwaccel_test_call_and_dump(fn, ctx, r.vectors.bytes.data(), zmm ? 1 : 0, r.gprs.bytes.data(),
                               r.stack.bytes.data());
    return r;
}

}  // namespace hwaccel::test

#elif defined(__aarch64__)

// void hwaccel_test_call_and_dump(void (*fn)(void*), void* ctx, uint8_t* dump,
//                                 uint8_t* gprs, uint8_t* stack)
// AAPCS64: fn in x0, ctx in x1, dump in x2, gprs in x3, stack in x4 (either
// of the last two may be null: not dumped, and the stack not zeroed). They
// live in callee-saved x19-x21 across the call; fn goes through x16 (IP0).
// The trampoline zeroes v8-v15 too, so it saves and restores its caller's
// d8-d15 (their callee-saved low halves) around everything. The 64 KiB below
// its stack pointer (fn's frames; AAPCS64 has no red zone) are zeroed before
// the call and copied out after it. The stores come straight after BLR,
// GPRs first (a store changes no register): nothing between them writes a
// vector register.
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl hwaccel_test_call_and_dump\n"
    ".hidden hwaccel_test_call_and_dump\n"
    ".type hwaccel_test_call_and_dump, %function\n"
    "hwaccel_test_call_and_dump:\n"
    ".cfi_startproc\n"
    "    stp x29, x30, [sp, #-112]!\n"
    ".cfi_def_cfa_offset 112\n"
    ".cfi_offset 29, -112\n"
    ".cfi_offset 30, -104\n"
    "    mov x29, sp\n"
    "    stp d8, d9, [sp, #16]\n"
    "    stp d10, d11, [sp, #32]\n"
    "    stp d12, d13, [sp, #48]\n"
    "    stp d14, d15, [sp, #64]\n"
    ".cfi_offset 72, -96\n"
    ".cfi_offset 73, -88\n"
    ".cfi_offset 74, -80\n"
    ".cfi_offset 75, -72\n"
    ".cfi_offset 76, -64\n"
    ".cfi_offset 77, -56\n"
    ".cfi_offset 78, -48\n"
    ".cfi_offset 79, -40\n"
    "    stp x19, x20, [sp, #80]\n"
    "    str x21, [sp, #96]\n"
    ".cfi_offset 19, -32\n"
    ".cfi_offset 20, -24\n"
    ".cfi_offset 21, -16\n"
    "    mov x19, x2\n"
    "    mov x20, x3\n"
    "    mov x21, x4\n"
    "    mov x16, x0\n"
    "    mov x0, x1\n"
    "    cbz x21, 1f\n"
    "    mov x12, sp\n"
    "    sub x9, x12, #65536\n"
    "2:  stp xzr, xzr, [x9], #16\n"
    "    cmp x9, x12\n"
    "    b.ne 2b\n"
    "1:\n"
    "    .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
    "    movi v\\r\\().16b, #0\n"
    "    .endr\n"
    "    blr x16\n"
    "    cbz x20, 3f\n"
    "    stp x0, x1, [x20]\n"
    "    stp x2, x3, [x20, #16]\n"
    "    stp x4, x5, [x20, #32]\n"
    "    stp x6, x7, [x20, #48]\n"
    "    stp x8, x9, [x20, #64]\n"
    "    stp x10, x11, [x20, #80]\n"
    "    stp x12, x13, [x20, #96]\n"
    "    stp x14, x15, [x20, #112]\n"
    "    stp x16, x17, [x20, #128]\n"
    "    str x18, [x20, #144]\n"
    "3:\n"
    "    .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
    "    str q\\r, [x19, #16*\\r]\n"
    "    .endr\n"
    "    cbz x21, 4f\n"
    "    mov x12, sp\n"
    "    sub x9, x12, #65536\n"
    "5:  ldp x10, x11, [x9], #16\n"
    "    stp x10, x11, [x21], #16\n"
    "    cmp x9, x12\n"
    "    b.ne 5b\n"
    "4:\n"
    "    ldp x19, x20, [sp, #80]\n"
    "    ldr x21, [sp, #96]\n"
    "    ldp d8, d9, [sp, #16]\n"
    "    ldp d10, d11, [sp, #32]\n"
    "    ldp d12, d13, [sp, #48]\n"
    "    ldp d14, d15, [sp, #64]\n"
    "    ldp x29, x30, [sp], #112\n"
    ".cfi_restore 29\n"
    ".cfi_restore 30\n"
    ".cfi_def_cfa_offset 0\n"
    "    ret\n"
    ".cfi_endproc\n"
    ".size hwaccel_test_call_and_dump, .-hwaccel_test_call_and_dump\n");

extern "C" void hwaccel_test_call_and_dump(void (*fn)(void*), void* ctx, uint8_t* dump, uint8_t* gprs,
                                           uint8_t* stack);

namespace hwaccel::test {

namespace {
const char* const kGprNames[] = {"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",  "x9",
                                 "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18"};
constexpr size_t kGprs = sizeof kGprNames / sizeof kGprNames[0];

VectorRegisterDump empty_vectors() { return {std::vector<uint8_t>(32 * 16), 16, "v"}; }
}  // namespace

VectorRegisterDump call_and_dump_vectors(void (*fn)(void*), void* ctx) {
    VectorRegisterDump d = empty_vectors();
    hwaccel_test_call_and_dump(fn, ctx, d.bytes.data(), nullptr, nullptr);
    return d;
}

CallResidue call_and_dump_residue(void (*fn)(void*), void* ctx) {
    CallResidue r{empty_vectors(), {std::vector<uint8_t>(8 * kGprs), 8, "", kGprNames},
                  {std::vector<uint8_t>(kStackDumpBytes), kStackDumpBytes, "sp-", nullptr, true}};
    hwaccel_test_call_and_dump(fn, ctx, r.vectors.bytes.data(), r.gprs.bytes.data(), r.stack.bytes.data());
    return r;
}

}  // namespace hwaccel::test

#elif defined(__s390x__)

// void hwaccel_test_call_and_dump(void (*fn)(void*), void* ctx, uint8_t* dump)
// s390x ELF ABI: fn in r2, ctx in r3, dump in r4. The trampoline zeroes
// v8-v15 too, so it saves its caller's f8-f15 (their call-saved high halves)
// in its own frame and restores them after the dump; r6-r15 go to the
// caller's register save area, dump lives in call-saved r12 across the call.
// The VSTMs come straight after BASR: nothing between them writes a vector
// register. Vector instructions through .machine, so a z196 build (no
// vector facility in its target) assembles it too; it runs only where the
// CPU has them (the caller checks HWCAP).
__asm__(
    ".text\n"
    ".machine push\n"
    ".machine \"z13\"\n"
    ".p2align 3\n"
    ".globl hwaccel_test_call_and_dump\n"
    ".hidden hwaccel_test_call_and_dump\n"
    ".type hwaccel_test_call_and_dump, @function\n"
    "hwaccel_test_call_and_dump:\n"
    "    stmg %r6, %r15, 48(%r15)\n"
    "    lgr %r1, %r15\n"
    "    aghi %r15, -224\n"  // 160-byte frame for fn's save area + f8-f15
    "    stg %r1, 0(%r15)\n"  // back chain
    "    std %f8, 160(%r15)\n"
    "    std %f9, 168(%r15)\n"
    "    std %f10, 176(%r15)\n"
    "    std %f11, 184(%r15)\n"
    "    std %f12, 192(%r15)\n"
    "    std %f13, 200(%r15)\n"
    "    std %f14, 208(%r15)\n"
    "    std %f15, 216(%r15)\n"
    "    lgr %r12, %r4\n"
    "    lgr %r1, %r2\n"
    "    lgr %r2, %r3\n"
    "    .irp r, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31\n"
    "    vzero %v\\r\n"
    "    .endr\n"
    "    basr %r14, %r1\n"
    "    vstm %v0, %v15, 0(%r12)\n"
    "    vstm %v16, %v31, 256(%r12)\n"
    "    ld %f8, 160(%r15)\n"
    "    ld %f9, 168(%r15)\n"
    "    ld %f10, 176(%r15)\n"
    "    ld %f11, 184(%r15)\n"
    "    ld %f12, 192(%r15)\n"
    "    ld %f13, 200(%r15)\n"
    "    ld %f14, 208(%r15)\n"
    "    ld %f15, 216(%r15)\n"
    "    lmg %r6, %r15, 272(%r15)\n"  // 224 + 48: the caller's save area
    "    br %r14\n"
    ".size hwaccel_test_call_and_dump, .-hwaccel_test_call_and_dump\n"
    ".machine pop\n");

extern "C" void hwaccel_test_call_and_dump(void (*fn)(void*), void* ctx, uint8_t* dump);

namespace hwaccel::test {

VectorRegisterDump call_and_dump_vectors(void (*fn)(void*), void* ctx) {
    VectorRegisterDump d{std::vector<uint8_t>(32 * 16), 16, "v"};
    hwaccel_test_call_and_dump(fn, ctx, d.bytes.data());
    return d;
}

}  // namespace hwaccel::test

#endif
