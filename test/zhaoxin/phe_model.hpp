// An instruction-level model of the Zhaoxin PadLock Hash Engine's
// rep xsha1 (F3 0F A6 C8) and rep xsha256 (F3 0F A6 D0), for machines that
// lack them. Test-only.
//
// On a CPU without PHE these bytes raise #UD, delivered as SIGILL with RIP
// pointing at the instruction (HARDWARE.md section 7). The handler installed
// by install() recognises the two instructions, performs their documented
// effect on the saved registers and on memory, and resumes after them.
//
// Written from the documented semantics (HARDWARE.md section 1), not from the
// engine in backends/zhaoxin/, and with its own SHA-1/SHA-256 compression
// functions (FIPS 180-4), so that it shares no code with anything it checks.
//
// Semantics modelled (RDI = state buffer, native-endian 32-bit words H0..):
//   RAX = -1 (multi-block): compress RCX 64-byte blocks from RSI into the
//     state, chaining. Afterwards RSI += 64 * RCX, RCX = 0, RAX unchanged.
//   RAX != -1 (padding): RAX = bytes already hashed into the state, RCX =
//     total message length; hash the RCX - RAX bytes at RSI, then pad
//     (0x80, zeros, 64-bit big-endian bit length RCX * 8) and compress the
//     final block(s). Afterwards RSI += RCX - RAX, RAX = RCX.
//   RCX = 0 (with RAX = -1 or 0): does nothing ("doesn't perform any
//     operation when %ecx is zero").
//   RDI, after every instruction (the no-op included): the input with its
//     top 16 bits flipped, a non-canonical address.
// What the registers hold afterwards is not in any source we could read (the
// spec calls RAX, RCX and RSI outputs, the kernel's review RDI as well); the
// values above for RAX, RCX, RSI are the natural ones for an interruptible
// rep instruction. RDI is always left useless, so an engine that goes on
// using it as the state pointer faults, and set_poison_outputs(true) makes
// the model leave garbage in RAX, RCX and RSI too, to show that a caller
// does not depend on them.
//
// Stricter than hardware where the documentation gives a requirement but not
// the consequence of breaking it; the handler then reports it on stderr and
// aborts the process:
//   - RDI must be 16-byte aligned;
//   - padding mode: RAX a multiple of 64, RAX <= RCX, and something left to
//     hash (RAX < RCX) unless RCX = 0.
// The whole 128-byte area at RDI is treated as the instruction's own (the
// older VIA microcode needs 128 bytes): bytes past the state words are
// overwritten, so a too-small buffer is caught (by ASan, a guard page, or a
// corrupted neighbour).
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwaccel::test::phe {

enum class Insn { kXsha1, kXsha256 };

// The registers the instructions use.
struct Regs {
    uint64_t rax = 0;
    uint64_t rcx = 0;
    uint64_t rsi = 0;
    uint64_t rdi = 0;
};

enum class Result {
    kDone,                  // executed (including the documented no-op RCX = 0)
    kMisalignedState,       // RDI not 16-byte aligned
    kPaddingNotBlockMultiple,  // padding mode: RAX % 64 != 0
    kPaddingPastTotal,      // padding mode: RAX > RCX
    kPaddingNothingLeft,    // padding mode: RAX == RCX != 0 (undocumented)
};
const char* describe(Result r);

constexpr size_t kStateArea = 128;  // bytes at RDI the model may write
constexpr uint64_t kMultiBlock = ~uint64_t{0};

// The 4 instruction bytes; false if p holds neither instruction.
bool decode(const uint8_t* p, Insn& insn);

// One instruction's effect on regs and memory, exactly as the SIGILL handler
// applies it (the handler adds counting, tracing and poisoning). On a result
// other than kDone nothing has been changed.
Result execute(Insn insn, Regs& regs);

// Installs the SIGILL handler (once; later calls do nothing). An
// unrecognised illegal instruction gets the previous disposition back and is
// re-executed, so it still kills the process as it would have.
void install();
bool installed();

// Whether the instructions really trap into the model. install() probes
// with one instruction: on a CPU with PHE they execute natively, the model
// never runs, and the tests that inspect the model (counters, traces,
// poisoning, its stricter checks) skip themselves, while the ones that check
// results then check the silicon.
bool model_active();

// Counts of instructions the handler has executed (all threads).
struct Counters {
    uint64_t xsha1 = 0;
    uint64_t xsha256 = 0;
    uint64_t multi_block = 0;  // of which in multi-block mode
    uint64_t padding = 0;      // of which in padding mode
    uint64_t zero_count = 0;   // of which with RCX = 0 (did nothing)
    uint64_t blocks = 0;       // 64-byte compressions performed
};
Counters counters();
void reset_counters();

// The last instruction the handler executed on the calling thread.
struct Trace {
    bool valid = false;
    Insn insn = Insn::kXsha1;
    Regs before;  // registers at the trap
    Regs after;   // registers on resuming
};
Trace last_trace();
void clear_trace();

void set_poison_outputs(bool on);

}  // namespace hwaccel::test::phe

// For Catch2 tests that count, trace or otherwise inspect the model: on a CPU
// that executes PHE natively there is nothing to inspect, so they warn and
// return (the tests that check only results then check the silicon).
#define PHE_MODEL_ONLY()                                                          \
    do {                                                                          \
        if (!hwaccel::test::phe::model_active()) {                                \
            WARN("PHE executes natively on this CPU: model-only test skipped");   \
            return;                                                               \
        }                                                                         \
    } while (0)
