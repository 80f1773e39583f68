// SHA-1 and SHA-256 (hence SHA-224) with the Zhaoxin PadLock Hash Engine:
// rep xsha1 (F3 0F A6 C8) and rep xsha256 (F3 0F A6 D0), as in the kernel's
// "lib/crypto: x86/sha: Add PHE Extensions support" series (HARDWARE.md
// section 1). Verified against an instruction-level model (test/zhaoxin/),
// not on silicon.
//
// Register interface in the mode used here (multi-block, RAX = -1):
//   RSI = data, RCX = number of 64-byte blocks, RDI = state buffer; the
//   instruction compresses RCX blocks into the state and advances RSI.
// The kernel's review of the instruction treats all four registers, RAX,
// RCX, RSI and RDI, as outputs as well as inputs, so all four are "+"
// operands: the compiler must not assume they still hold what we put there.
// (With RDI an input only, GCC 12 passed the RDI it had loaded for the
// instruction straight on as the address for the wipe's memset: an
// instruction that changes RDI would have had us zero 128 bytes elsewhere.
// The instruction model changes RDI after every instruction, and a must-fail
// test builds this file with the old constraint: test/zhaoxin/.)
//
// The padding mode (RAX = bytes already hashed, RCX = total length: the
// instruction pads and finalises) is deliberately not used:
//   - The provider never sees a one-shot digest. EVP_Digest() is
//     init/update/final, and update() may not keep the caller's pointer, so
//     the only place for the padding mode would be final(), with < 64
//     buffered bytes. There the blocks-mode final already costs one
//     instruction, also when the padding spills into a second block
//     (MdHasher::finish passes both blocks in one call; the model counts
//     this: test/zhaoxin/phe_engine_test.cpp, "[padding]").
//   - So the padding mode would save only the software padding (a memset of
//     under 64 bytes) on every message.
//   - It would widen the blocks-only engine interface (docs/DESIGN.md) for
//     this one engine, and it rests on undocumented corners (RAX not a
//     multiple of 64, nothing left to hash) that only silicon can settle.
#if !defined(__x86_64__)
#error "phe.cpp is x86-64 only"
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hwaccel/bytes.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "hwaccel/cpu.hpp"
#include "zhaoxin/phe_engines.hpp"

namespace hwaccel::zhaoxin {
namespace {

bool available(const CpuFeatures& cpu) { return cpu.phe; }

// The state buffer the instruction works on (RDI): Zhaoxin family 7 wants
// 32 bytes, 16-byte aligned; the older VIA/Nano microcode uses 128 bytes
// ("Don't reduce the buffer size below 128 Bytes", padlock-sha.c). 128 bytes
// at 16-byte alignment satisfies both, and the caller's state (4-byte
// aligned, 20 or 32 bytes) can never be handed over directly.
struct alignas(16) Scratch {
    uint32_t words[32];
};
static_assert(sizeof(Scratch) == 128 && alignof(Scratch) == 16);

// RAX = -1: multi-block mode, no padding, the state chained across blocks.
constexpr size_t kMultiBlock = ~size_t{0};

// The operands: RAX mode, RCX block count, RSI data, RDI state area, all
// inputs and outputs. HWACCEL_PHE_TEST_RDI_INPUT_ONLY is defined only by the
// must-fail test in test/zhaoxin/, never in a library: RDI an input only.
#ifndef HWACCEL_PHE_TEST_RDI_INPUT_ONLY
#define PHE_OPERANDS(mode, nblocks, data, area) \
    : "+a"(mode), "+c"(nblocks), "+S"(data), "+D"(area) : : "memory"
#else
#define PHE_OPERANDS(mode, nblocks, data, area) \
    : "+a"(mode), "+c"(nblocks), "+S"(data) : "D"(area) : "memory"
#endif

void sha1_blocks(uint32_t state[5], const uint8_t* data, size_t nblocks) {
    // RCX = 0 does nothing on Zhaoxin parts; not issuing it at all keeps us
    // off behaviour no one has documented for other PHE generations.
    if (nblocks == 0) return;
    Scratch s{};  // zeroed: the instruction may read past the five state words
    std::memcpy(s.words, state, 5 * sizeof(uint32_t));  // native-endian H0..H4
    size_t mode = kMultiBlock;  // in variables: every operand is an output too
    uint32_t* area = s.words;
    __asm__ __volatile__(".byte 0xf3,0x0f,0xa6,0xc8"  // rep xsha1
                         PHE_OPERANDS(mode, nblocks, data, area));
    std::memcpy(state, s.words, 5 * sizeof(uint32_t));
    secure_zero(&s, sizeof s);  // chaining values of e.g. an HMAC key
    // GCC copies the state in and out through xmm registers, and the state
    // the caller keeps is not a message's last (digest_stack_residue_test).
    clear_vector_registers();
}

void sha256_blocks(uint32_t state[8], const uint8_t* data, size_t nblocks) {
    if (nblocks == 0) return;
    Scratch s{};
    std::memcpy(s.words, state, 8 * sizeof(uint32_t));  // native-endian H0..H7
    size_t mode = kMultiBlock;  // in variables: every operand is an output too
    uint32_t* area = s.words;
    __asm__ __volatile__(".byte 0xf3,0x0f,0xa6,0xd0"  // rep xsha256
                         PHE_OPERANDS(mode, nblocks, data, area));
    std::memcpy(state, s.words, 8 * sizeof(uint32_t));
    secure_zero(&s, sizeof s);
    clear_vector_registers();  // as sha1_blocks
}

#undef PHE_OPERANDS

}  // namespace

const Sha1Engine sha1_phe = {.name = "phe", .available = available, .blocks = sha1_blocks};
const Sha256Engine sha256_phe = {
    .name = "phe", .available = available, .blocks = sha256_blocks};

}  // namespace hwaccel::zhaoxin
