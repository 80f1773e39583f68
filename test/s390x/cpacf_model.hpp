// A test-only model of the CPACF message-digest instructions KIMD and KLMD
// (and KIMD-GHASH, function code 65),
// for running the CPACF engines under qemu-s390x, which implements only the
// query and SHA-512 (HARDWARE.md 3.1). Written from the documented semantics
// (HARDWARE.md 2 and 7), independently of the engines and of the portable
// code: its own SHA-1, SHA-256, SHA-512, Keccak-f[1600] and GF(2^128)
// multiply, constants derived from their definitions.
//
// execute() is the model proper: one instruction on a register file and on
// memory. install() puts it behind a SIGILL handler: qemu raises SIGILL
// (ILL_ILLOPN) for the function codes it lacks, with the PSW already past the
// 4-byte instruction; the handler decodes it, executes it on the saved
// registers, sets the condition code in the PSW and resumes after it. A real
// program check (bad operands) is made fatal, as on hardware.
//
// Where the documentation available to us is silent, the model chooses, and
// says so (docs/s390x.md):
//   * partial completion (cc 3) happens only at block boundaries, after at
//     least one block, with the registers and parameter block updated;
//   * on partial completion the model clears NIP in GR0 (the parameter block
//     now holds the state to continue from), and in the output phase of
//     KLMD-SHAKE it sets PS (so the next issue squeezes, not pads);
//   * DUFOP is accepted and has no effect;
//   * KLMD-SHAKE with PS ignores the second operand.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwaccel::test::cpacf_model {

struct Regs {
    uint64_t gr[16] = {};
    unsigned cc = 0;
};

enum class Result {
    kComplete,       // cc 0
    kPartial,        // cc 3: issue again to continue
    kSpecification,  // program check (bad function code, flags or operands)
    kNotModelled,    // not KIMD/KLMD
};

// The function codes the modelled machine has for KIMD (klmd false) or
// KLMD: query, SHA-1, SHA-256, SHA-512, SHA3-224..512, SHAKE128/256 on both;
// GHASH (0x41) on KIMD only (KLMD-GHASH is a specification exception).
bool implements(unsigned fc, bool klmd);

// Executes the instruction whose four bytes are `insn` (B93E KIMD or B93F
// KLMD, RRE). At most `max_units` blocks (absorbed or squeezed) are processed
// before stopping with partial completion; 0 means no limit.
Result execute(const uint8_t insn[4], Regs& regs, size_t max_units = 0);

// The SIGILL handler. partial_every = n > 0 makes every n-th trapped
// instruction stop after 1 to 3 blocks (when it has more), with cc 3.
void install(unsigned partial_every);
void uninstall();
bool installed();
void set_partial_every(unsigned n);
unsigned partial_every();

struct Stats {
    uint64_t traps = 0;    // instructions executed by the model from a trap
    uint64_t partial = 0;  // of which ended in cc 3
    uint64_t kimd = 0;     // of which KIMD
    uint64_t klmd = 0;     // of which KLMD
    uint64_t by_code[128] = {};
};
const Stats& stats();

// The reference functions inside the model, exposed for its own tests.
void sha1_block(uint32_t h[5], const uint8_t block[64]);
void sha256_block(uint32_t h[8], const uint8_t block[64]);
void sha512_block(uint64_t h[8], const uint8_t block[128]);
void keccak_f1600(uint64_t lanes[25]);
// out = x * h in GF(2^128), GCM's bit order (SP 800-38D 6.3); out may be x.
void gf128_multiply(uint8_t out[16], const uint8_t x[16], const uint8_t h[16]);

}  // namespace hwaccel::test::cpacf_model
