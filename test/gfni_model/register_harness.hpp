// Runs code at a given address with every ymm register, every general-purpose
// register (RSP included) and RFLAGS set from arrays, and records all of them
// afterwards: the frame test's way to execute one instruction, natively or
// through the model, and to see everything it changed. Test-only, not
// reentrant (one static register file), needs AVX.
//
// The code is entered with `call`, so it must end in `ret`; it runs on the
// stack RSP is loaded with (RSP - 8 holds the return address while it runs,
// and still does afterwards).
#pragma once

#include <cstdint>

namespace hwaccel::test::gfni {

struct RegisterFile {
    uint8_t ymm[16][32];
    uint64_t gpr[16];  // encoding order: RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8..R15
    uint64_t rflags;
};

// Loads `in`, calls `code`, stores into `out`. in.rflags: only the
// arithmetic flags (CF PF AF ZF SF OF) and DF are taken.
void run_with_registers(const void* code, const RegisterFile& in, RegisterFile& out);

constexpr uint64_t kHarnessFlags = 0x8d5 | 0x400;  // CF PF AF ZF SF OF, DF

}  // namespace hwaccel::test::gfni
