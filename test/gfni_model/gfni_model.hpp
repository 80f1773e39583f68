// An instruction-level model of the VEX-encoded GFNI affine instructions
// (vgf2p8affineqb, vgf2p8affineinvqb; xmm and ymm), for x86-64 machines
// without GFNI, so that the gfni-avx2 SM4 engine runs its suites there.
// Test-only.
//
// On a CPU without GFNI these instructions raise #UD, delivered as SIGILL
// with RIP at the instruction. The handler that install() sets up decodes the
// instruction at RIP (vex_gfni_decode.hpp), reads its source registers from
// the xmm/ymm state the kernel saved in the signal frame and its memory
// operand from memory, computes the result (gfni_affine.hpp, written from
// the SDM's description) and writes it into the frame's destination
// register, zeroing the register above the vector length as a VEX-encoded
// instruction does; sigreturn then loads it. RIP is advanced past the
// instruction.
//
// The instructions' contract, read literally (SDM): the only output is the
// destination register. They write no general-purpose register, no flag,
// no memory, and read the memory operand only. The model changes exactly
// the destination and RIP in the frame, and the frame test
// (gfni_frame_test.cpp) checks every other register and RFLAGS against the
// real instruction's.
//
// What the model cannot show: speed, and behaviour on a memory operand that
// faults (the model's own read then faults inside the handler and the
// process dies, where the hardware would raise SIGSEGV for the instruction).
#pragma once

#include <ucontext.h>

#include <cstdint>

namespace hwaccel::test::gfni {

enum class Outcome {
    kEmulated,         // performed; the frame's destination and RIP updated
    kNotGfni,          // not a VEX GFNI affine instruction: nothing changed
    kUnusableFrame,    // the frame lacks the ymm state: nothing changed
};

// One instruction at the frame's RIP, performed on the frame. The SIGILL
// handler's whole work, apart from counting; the frame test calls it from a
// SIGSEGV handler to prove it on a CPU where GFNI does not trap.
Outcome perform_at_rip(ucontext_t* uc);

// Installs the SIGILL handler (once; later calls do nothing). Anything
// else that raises SIGILL gets the previous disposition back and is
// re-executed, so it still kills the process as it would have.
void install();

// Whether GFNI instructions really trap into the model: install() probes
// with one vgf2p8affineqb. False on a CPU with GFNI (they run natively).
bool model_active();

// AVX with the OS saving ymm state (CPUID leaf 1, XCR0), from the CPU itself.
bool cpu_has_avx_natively();

// GFNI in CPUID (leaf 7 ECX bit 8) with the OS saving ymm state, read from
// the CPU itself: HWACCEL_TEST_CPU's claims do not change it.
bool cpu_has_gfni_natively();

// Instructions the SIGILL handler has performed (all threads).
struct Counters {
    uint64_t affine = 0;          // vgf2p8affineqb
    uint64_t affine_inverse = 0;  // vgf2p8affineinvqb
    uint64_t ymm = 0;             // of which VEX.256
    uint64_t memory_operand = 0;  // of which with the matrices in memory
};
Counters counters();
void reset_counters();

}  // namespace hwaccel::test::gfni

// For Catch2 tests that inspect the model (counters): on a CPU with GFNI
// there is nothing to inspect, so they warn and return.
#define GFNI_MODEL_ONLY()                                                          \
    do {                                                                           \
        if (!hwaccel::test::gfni::model_active()) {                                \
            WARN("GFNI executes natively on this CPU: model-only test skipped");   \
            return;                                                                \
        }                                                                          \
    } while (0)
