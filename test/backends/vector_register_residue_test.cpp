// The x86, arm64 and s390x SM4, GHASH and digest engines leave no key
// material in the vector registers when they return (x86-64, arm64 and
// s390x, each for its own engines). Every entry point of every such engine this CPU runs is called
// through a trampoline that zeroes all vector registers, makes the call and
// stores them (ymm0-15, or zmm0-31 with AVX-512F; arm64: all 128 bits of
// v0-v31) right after it returns (support/vector_register_dump.hpp); then
// no 4-byte word of the key's material may appear in those bytes at any
// offset. Key material: the standard round keys (Sm4Key::enc, dec), their
// bulk kernels' forms (M rk ^ c1 for AESENCLAST, A1 rk ^ c1 for GFNI), the
// user key, and the words of engine_data that depend on the key (those that
// differ between two keys; the others are constants; the bulk kernels'
// forms are x86's only); for GHASH, H and the words of its table that differ
// between two H. The digest engines (SHA-NI, Keccak x86-avx512 and
// x86-bmi2; arm64-ce SHA-1/SHA-256, arm64-sha3) likewise leave no state:
// under HMAC their chaining value is key-derived, and the message may be the
// key block. The portable engines too, as built here (their clearing is
// hwaccel/clear_vector_registers.hpp). Each word in both byte
// orders; zero words are ignored.
//
// The same words are looked for in the caller-saved general-purpose
// registers (x86-64 rax, rcx, rdx, rsi, rdi, r8-r11; arm64 x0-x18) and in
// the 64 KiB of stack below the call, which the trampoline zeroes before it
// and copies after it: what the engine's frames, spill slots and red zone
// kept (and a libc function it called; glibc's memcpy and memset keep
// nothing on the stack). rax/x0 may hold a return value: only secret words
// count. Engines with a known gap there are listed, with the reason, and
// reported instead of failed (the list is empty); engines run under an
// instruction model get their vector registers checked only.
//
// s390x (with the vector facility at run time: qemu-user's default CPU has
// it) checks the vector registers only, all 128 bits of v0-v31: the CPACF
// engines (under the instruction model in qemu, as said above) and the
// portable ones. A z196 build has no vector instruction but spills general
// registers to f0-f7, the high halves of v0-v7: checked so. The -march=z13
// build of scripts/cross-s390x.sh (step e; --z13 for every suite) checks
// what GCC vectorised. The ELF ABI keeps only the high halves of v8-v15
// (f8-f15) for the caller: the low halves are the engine's to clear.
//
// arm64's v8-v15 are checked whole: AAPCS64 keeps only their low halves
// (d8-d15) for the caller, so an engine may return with its own values in
// the upper halves. Compiled code restores d8-d15 with 64-bit loads, which
// zero the upper halves (the probe test below shows it); hand-written code
// that wrote an upper half would be caught here.
#include <catch2/catch.hpp>

#if defined(__x86_64__) || defined(__aarch64__) || defined(__s390x__)

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "cpu/detect.hpp"                // backend internals (hwaccel_backend_internals)
#include "generic/generic_engines.hpp"
#include "hwaccel/algorithm_facts.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"
#include "hwaccel/wipe_stack.hpp"
#include "support/mapped_addresses.hpp"
#include "support/secret_words.hpp"
#include "support/vector_register_dump.hpp"
#include "support/vectors.hpp"
#if defined(__x86_64__)
#include "x86/ghash_x86_engines.hpp"
#include "x86/sm4_x86_engines.hpp"
#include "x86/sm4_x86_gfni_maths.hpp"
#include "x86/sm4_x86_maths.hpp"
#include "x86/x86_engines.hpp"
#elif defined(__s390x__)
#include <sys/auxv.h>

#include "s390x/s390x_engines.hpp"
#else
#include "arm64/arm64_engines.hpp"
#endif

using hwaccel::GhashEngine;
using hwaccel::GhashKey;
using hwaccel::Sm4Direction;
using hwaccel::Sm4Engine;
using hwaccel::Sm4Key;
using hwaccel::XtsStandard;

namespace {

using hwaccel::test::Lcg;  // deterministic, so a failure reproduces
using hwaccel::test::SecretWords;
using hwaccel::test::CallResidue;
using hwaccel::test::VectorRegisterDump;

#if defined(__x86_64__)
// The test names' ISA and tag. arm64's carry no [arm64]: the cross script's
// runs that select "[arm64]" (other -cpu models, masked features) add no
// engine to the -cpu max run's, which checks every one it can run.
#define HWACCEL_RESIDUE_ISA "x86"
#define HWACCEL_RESIDUE_TAG "[x86]"

// The trampoline's instructions need the real CPU's features, whatever
// HWACCEL_TEST_CPU makes cpu_features() claim (the model suites build this
// file too): libgcc's detection, which checks the OS's XSAVE state as well.
bool can_dump() { return __builtin_cpu_supports("avx"); }
bool dump_zmm() { return __builtin_cpu_supports("avx512f"); }
VectorRegisterDump dump_after(void (*fn)(void*), void* ctx) {
    return hwaccel::test::call_and_dump_vectors(fn, ctx, dump_zmm());
}
#elif defined(__s390x__)
// No [s390x] tag: cross-s390x.sh's first run ("~[s390x]") checks the
// portable engines, its second the CPACF engines under the model.
#define HWACCEL_RESIDUE_ISA "s390x"
#define HWACCEL_RESIDUE_TAG ""

// The trampoline's VZERO/VSTM need the vector facility (z13 and later),
// whatever this build targets; HWCAP_S390_VXRS (bit 11).
bool can_dump() { return (getauxval(AT_HWCAP) & (1ul << 11)) != 0; }
VectorRegisterDump dump_after(void (*fn)(void*), void* ctx) { return hwaccel::test::call_and_dump_vectors(fn, ctx); }
#else
#define HWACCEL_RESIDUE_ISA "arm64"
#define HWACCEL_RESIDUE_TAG ""

bool can_dump() { return true; }  // ASIMD: every arm64 CPU
VectorRegisterDump dump_after(void (*fn)(void*), void* ctx) { return hwaccel::test::call_and_dump_vectors(fn, ctx); }
#endif

CallResidue residue_after(void (*fn)(void*), void* ctx) {
#if defined(__x86_64__)
    return hwaccel::test::call_and_dump_residue(fn, ctx, dump_zmm());
#elif defined(__s390x__)
    return {dump_after(fn, ctx), {}, {}};  // no GPR or stack dump on s390x
#else
    return hwaccel::test::call_and_dump_residue(fn, ctx);
#endif
}

// ------------------------------------------------- GPRs and the stack

// Engines known to leave secret words in GPRs or on their stack after they
// return, and why that is left so: those findings are reported (a warning
// with the first), not failed; their vector registers are checked as every
// engine's. Family as in the test sections: "sm4", "ghash", "sha1",
// "sha256", "keccak".
struct KnownStackGap {
    const char* family;
    const char* engine;
    const char* reason;
};
// Empty: the x86-64 and arm64 engines all passed when it was last filled
// (x86-64: sm4 gfni-avx2, vaes-avx2, aesni-avx2, sha1/sha256/keccak generic
// and keccak x86-bmi2, now fixed: docs/DESIGN.md).
const std::vector<KnownStackGap> kKnownStackGaps = {};

const KnownStackGap* known_stack_gap(const std::string& family, const std::string& engine) {
    for (const KnownStackGap& g : kKnownStackGaps)
        if (family == g.family && engine == g.engine) return &g;
    return nullptr;
}

// ASan and -O0 builds: their engines' frames are not the Release build's
// (red zones; ASan's build spilled what Release keeps in registers: sha-ni's
// state, gfni-avx512's round keys, the one-block XTS paths' words, beyond
// the wipes sized for Release). There every engine's GPR and stack
// findings are reported, as a listed gap's are, not failed; the Release
// suites check them.
// The backends' own answer (wipe_stack.hpp: -O0 and sanitizer builds), not
// this file's: the suites' code may be compiled at another level than the
// engines' (at -O1 unless the build type is Debug).
const bool kInstrumentedBuild = hwaccel::backend_frames_instrumented();
const KnownStackGap kInstrumentedBuildGap = {"", "", "a sanitizer or -O0 build, whose frames are not Release's"};

// Checks calls of one engine: the vector registers, the caller-saved GPRs
// and the stack below the call (support/vector_register_dump.hpp). GPR and
// stack findings of a listed engine go to report() instead of the result.
// An engine that runs under an instruction model (the CPU lacks what it
// needs; HWACCEL_TEST_CPU claims it: the GFNI and PHE model suites) traps
// into the model's signal handler, whose frame, with every register in it,
// lands on the stack below the call: its GPRs and stack are the model's,
// not the engine's, and are not checked.
class ResidueCheck {
public:
    template <class Engine>
    ResidueCheck(const std::string& family, const Engine& e)
        : name_(family + " engine " + e.name),
          gap_(kInstrumentedBuild ? &kInstrumentedBuildGap : known_stack_gap(family, e.name)),
          modelled_(!e.available(hwaccel::detect_cpu())) {}

#if defined(__s390x__)
    static constexpr bool kVectorsOnly = true;  // the s390x dump has no GPRs or stack
#else
    static constexpr bool kVectorsOnly = false;
#endif

    // "" if the call left no secret word anywhere it looks, else where.
    std::string operator()(const SecretWords& s, void (*fn)(void*), void* ctx) {
        const CallResidue r = residue_after(fn, ctx);
        std::string found = s.find_in(r.vectors);
        if (modelled_ || kVectorsOnly) return found;
        // The deepest byte the call wrote (a zero written is not seen: a
        // lower bound). The dump's lowest 256 bytes must stay zero, so that
        // every frame lies within it.
        size_t lowest = 0;
        while (lowest < r.stack.bytes.size() && r.stack.bytes[lowest] == 0) ++lowest;
        deepest_ = std::max(deepest_, r.stack.bytes.size() - lowest);
        if (lowest < 256) found += "stack used beyond the dump's 64 KiB; ";
        // Return addresses and pointers can spell a secret word by chance
        // (support/mapped_addresses.hpp): not searched.
        VectorRegisterDump gprs = r.gprs, stack = r.stack;
        hwaccel::test::mask_mapped_addresses(gprs);
        hwaccel::test::mask_mapped_addresses(stack);
        const std::string beyond = s.find_in(gprs) + s.find_in(stack);
        if (gap_ == nullptr) return found + beyond;
        if (!beyond.empty() && gap_calls_++ == 0) gap_first_ = beyond;
        return found;
    }

    // What a listed engine left on the stack, and how deep each engine's
    // calls went.
    void report() const {
        if (kVectorsOnly) {
            WARN(name_ << (modelled_ ? " (under the instruction model)" : "")
                       << ": vector registers checked; GPRs and stack not dumped on s390x");
            return;
        }
        if (modelled_) {
            WARN(name_ << " runs under an instruction model here: its GPRs and stack not checked");
            return;
        }
        if (gap_ != nullptr)
            WARN("GPRs and stack reported, not checked, " << name_ << " (" << gap_->reason << "): " << gap_calls_
                                     << " calls left secret words in GPRs or on the stack"
                                     << (gap_calls_ > 0 ? ", the first: " + gap_first_ : std::string()));
        WARN(name_ << ": deepest nonzero stack byte left " << deepest_ << " bytes below the call");
    }

private:
    std::string name_;
    const KnownStackGap* gap_;
    bool modelled_;
    size_t deepest_ = 0;
    int gap_calls_ = 0;
    std::string gap_first_;
};

TEST_CASE("The list of known stack residue gaps", "[wipe]") {
    if (ResidueCheck::kVectorsOnly)
        WARN("GPRs and stack not dumped on this ISA: vector registers only");
    else if (kKnownStackGaps.empty())
        WARN("GPRs and stack checked for every engine: no known gap");
    for (const KnownStackGap& g : kKnownStackGaps)
        WARN("GPRs and stack not checked for " << g.family << " engine " << g.engine << ": " << g.reason);
    SUCCEED();
}

// The engines of the registry's list that are in ours and that this CPU runs.
template <class Engine, size_t N>
std::vector<const Engine*> engines_of(hwaccel::EngineList<Engine> all, const Engine* const (&ours)[N]) {
    std::vector<const Engine*> list;
    for (const Engine* e : all)
        for (const Engine* o : ours)
            if (e == o && e->available(hwaccel::cpu_features())) list.push_back(e);
    return list;
}

template <class Map>
uint32_t map_bytes(uint32_t w, Map f) {  // bytewise, big-endian (memory order of the kernels)
    uint32_t r = 0;
    for (int j = 0; j < 4; ++j) r = r << 8 | f((w >> (24 - 8 * j)) & 0xFF);
    return __builtin_bswap32(r);
}

// Everything of an SM4 key that must not stay in a register. other: another
// key scheduled by the same engine, to tell key words from constants.
SecretWords sm4_secrets(const Sm4Key& k, const Sm4Key& other, const uint8_t user_key[16]) {
    SecretWords s;
    s.add_bytes(user_key, 16, "user key");
    for (int i = 0; i < 32; ++i) {
        const std::string n = "[" + std::to_string(i) + "]";
        s.add(k.enc[i], "enc" + n);
        s.add(k.dec[i], "dec" + n);
#if defined(__x86_64__)
        namespace aes = hwaccel::x86::sm4x;
        namespace gfni = hwaccel::x86::sm4x::gfni;
        s.add(map_bytes(k.enc[i], [](unsigned b) { return aes::kM(b) ^ aes::kC1; }), "M rk ^ c1" + n);
        s.add(map_bytes(k.enc[i], [](unsigned b) { return gfni::affine(gfni::kA1, b) ^ gfni::kC1; }), "A1 rk ^ c1" + n);
#endif
    }
    s.add_differing(k.engine_data, other.engine_data, Sm4Key::kEngineDataSize, "engine_data");
    return s;
}

#if defined(__x86_64__)
// The check itself: a word left on purpose in a register is found there,
// in register 7, and with AVX-512F in register 23 (beyond VZEROALL).
[[gnu::noinline]] void leave_word_in_register_7(void* word) {
    __asm__ volatile("vbroadcastss (%0), %%ymm7" : : "r"(word) : "xmm7", "memory");
}
[[gnu::noinline]] __attribute__((target("avx512f"))) void leave_word_in_register_23(void* word) {
    __asm__ volatile("vpbroadcastd (%0), %%zmm23" : : "r"(word) : "xmm23", "memory");
}

TEST_CASE("The vector register residue check finds a word left in a register", "[x86][wipe]") {
    if (!can_dump()) return;
    uint32_t word = 0x5ec4e7a1;
    SecretWords s;
    s.add(word, "probe");
    const bool zmm = dump_zmm();
    const std::string reg7 = std::string(zmm ? "zmm" : "ymm") + "7 byte 0;";
    CHECK(s.find_in(dump_after(leave_word_in_register_7, &word)).find(reg7) !=
          std::string::npos);
    uint32_t other = 0x0badcafe;
    CHECK(s.find_in(dump_after(leave_word_in_register_7, &other)) == "");
    if (zmm)
        CHECK(s.find_in(hwaccel::test::call_and_dump_vectors(leave_word_in_register_23, &word, true))
                  .find("zmm23 byte 0;") != std::string::npos);
}
#elif defined(__s390x__)
// The check itself: a word left on purpose in a register is found there: in
// v7 (call-clobbered) and in the low half of v12 (its high half, f12, is
// call-saved, the low half is not): element 2 of 4, bytes 8-11, written as
// an engine may, f12 kept. In top-level assembly with .machine, so that the
// z196 build assembles it too (it runs only with the vector facility).
__asm__(
    ".text\n"
    ".machine push\n"
    ".machine \"z13\"\n"
    ".p2align 3\n"
    ".globl hwaccel_test_leave_word_in_v7\n"
    ".hidden hwaccel_test_leave_word_in_v7\n"
    ".type hwaccel_test_leave_word_in_v7, @function\n"
    "hwaccel_test_leave_word_in_v7:\n"
    "    vlrepf %v7, 0(%r2)\n"
    "    br %r14\n"
    ".size hwaccel_test_leave_word_in_v7, .-hwaccel_test_leave_word_in_v7\n"
    ".globl hwaccel_test_leave_word_in_v12_low\n"
    ".hidden hwaccel_test_leave_word_in_v12_low\n"
    ".type hwaccel_test_leave_word_in_v12_low, @function\n"
    "hwaccel_test_leave_word_in_v12_low:\n"
    "    vlef %v12, 0(%r2), 2\n"
    "    br %r14\n"
    ".size hwaccel_test_leave_word_in_v12_low, .-hwaccel_test_leave_word_in_v12_low\n"
    ".machine pop\n");
extern "C" void hwaccel_test_leave_word_in_v7(void* word);
extern "C" void hwaccel_test_leave_word_in_v12_low(void* word);

TEST_CASE("The vector register residue check finds a word left in a register", "[wipe]") {
    if (!can_dump()) return;
    uint32_t word = 0x5ec4e7a1;
    SecretWords s;
    s.add(word, "probe");
    CHECK(s.find_in(dump_after(hwaccel_test_leave_word_in_v7, &word)).find("probe in v7 byte 0;") == 0);
    uint32_t other = 0x0badcafe;
    CHECK(s.find_in(dump_after(hwaccel_test_leave_word_in_v7, &other)) == "");
    CHECK(s.find_in(dump_after(hwaccel_test_leave_word_in_v12_low, &word)) == "probe in v12 byte 8; ");
}
#else
// The check itself: a word left on purpose in a register is found there: in
// v7 (caller-saved) and in the upper half of v12 (its low half is
// callee-saved, the upper half is not). The latter in top-level assembly, as
// an engine written in assembly could: it writes lane 3 only and keeps d12,
// as the ABI allows. A compiled function that used v12 whole (a clobber)
// restores d12 with a 64-bit load, which zeroes the upper half: nothing left.
[[gnu::noinline]] void leave_word_in_register_7(void* word) {
    __asm__ volatile("ld1r {v7.4s}, [%0]" : : "r"(word) : "v7", "memory");
}
[[gnu::noinline]] void use_register_12_whole(void* word) {
    __asm__ volatile("ld1r {v12.4s}, [%0]" : : "r"(word) : "v12", "memory");
}
__asm__(
    ".text\n"
    ".p2align 2\n"
    ".type hwaccel_test_leave_word_in_v12_upper, %function\n"
    "hwaccel_test_leave_word_in_v12_upper:\n"
    "    ld1 {v12.s}[3], [x0]\n"
    "    ret\n"
    ".size hwaccel_test_leave_word_in_v12_upper, .-hwaccel_test_leave_word_in_v12_upper\n");
extern "C" void hwaccel_test_leave_word_in_v12_upper(void* word);

TEST_CASE("The vector register residue check finds a word left in a register", "[wipe]") {
    uint32_t word = 0x5ec4e7a1;
    SecretWords s;
    s.add(word, "probe");
    CHECK(s.find_in(dump_after(leave_word_in_register_7, &word)).find("v7 byte 0;") != std::string::npos);
    uint32_t other = 0x0badcafe;
    CHECK(s.find_in(dump_after(leave_word_in_register_7, &other)) == "");
    CHECK(s.find_in(dump_after(hwaccel_test_leave_word_in_v12_upper, &word)) == "probe in v12 byte 12; ");
    CHECK(s.find_in(dump_after(use_register_12_whole, &word)) == "");
}
#endif

#if !defined(__s390x__)  // s390x dumps no GPRs or stack
// The GPR and stack check itself: a word a function leaves in a caller-saved
// GPR, or on its stack below the call, is found there. In top-level assembly,
// to know the register and the offset: the word in r10 (x9) and at 208 bytes
// below the stack pointer at the call (x86-64: the return address is the
// first 8 of them). A compiled function that keeps a copy in a local array is
// found too, and not once it has wiped the array. The symbol is global
// (hidden): a local one is reached through a GOT entry for .text plus an
// offset, which the arm64 linker resolved to .text's start (another probe).
#if defined(__x86_64__)
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl hwaccel_test_leave_word_in_gpr_and_stack\n"
    ".hidden hwaccel_test_leave_word_in_gpr_and_stack\n"
    ".type hwaccel_test_leave_word_in_gpr_and_stack, @function\n"
    "hwaccel_test_leave_word_in_gpr_and_stack:\n"
    "    mov (%rdi), %r10d\n"
    "    sub $200, %rsp\n"
    "    mov %r10d, (%rsp)\n"
    "    add $200, %rsp\n"
    "    ret\n"
    ".size hwaccel_test_leave_word_in_gpr_and_stack, .-hwaccel_test_leave_word_in_gpr_and_stack\n");
#define HWACCEL_PROBE_GPR "r10"
#else
__asm__(
    ".text\n"
    ".p2align 2\n"
    ".globl hwaccel_test_leave_word_in_gpr_and_stack\n"
    ".hidden hwaccel_test_leave_word_in_gpr_and_stack\n"
    ".type hwaccel_test_leave_word_in_gpr_and_stack, %function\n"
    "hwaccel_test_leave_word_in_gpr_and_stack:\n"
    "    ldr w9, [x0]\n"
    "    sub sp, sp, #208\n"
    "    str w9, [sp]\n"
    "    add sp, sp, #208\n"
    "    ret\n"
    ".size hwaccel_test_leave_word_in_gpr_and_stack, .-hwaccel_test_leave_word_in_gpr_and_stack\n");
#define HWACCEL_PROBE_GPR "x9"
#endif
extern "C" void hwaccel_test_leave_word_in_gpr_and_stack(void* word);

// A compiled function's local copy of the word (volatile: kept), wiped or not.
template <bool kWipe>
[[gnu::noinline]] void keep_word_in_local_array(void* word) {
    volatile uint32_t copy[16];
    for (int i = 0; i < 16; ++i) copy[i] = *static_cast<const uint32_t*>(word) + (i == 9 ? 0 : 1);
    if (kWipe)
        for (int i = 0; i < 16; ++i) copy[i] = 0;
    __asm__ volatile("" : : "r"(copy) : "memory");  // the array is used
}

TEST_CASE("The stack residue check does not take an address for a secret word", "[wipe]") {
    // A return address (this test's own code) in the slot just below the
    // call's stack pointer, as a thunk's call leaves it, and a zero top byte
    // of a pointer before it: a secret word made of the address's two low
    // bytes and a zero byte straddles them, as in the clang flake.
    uint64_t code = reinterpret_cast<uintptr_t>(&keep_word_in_local_array<false>);
    REQUIRE(hwaccel::test::is_mapped_address(code));
    VectorRegisterDump stack{std::vector<uint8_t>(64, 0), 64, "sp-", nullptr, true};
    std::memcpy(stack.bytes.data() + 48, &code, 8);            // sp-16..sp-9
    const uint8_t straddle[4] = {0, stack.bytes[48], stack.bytes[49], stack.bytes[50]};  // from sp-17
    uint32_t word;
    std::memcpy(&word, straddle, 4);
    const uint32_t secret = 0x5ec4e7a1;
    std::memcpy(stack.bytes.data() + 8, &secret, 4);           // a real spill at sp-56
    hwaccel::test::SecretWords s;
    s.add(word, "straddling");
    s.add(secret, "spilled");
    CHECK(s.find_in(stack) == "spilled in sp-56; straddling in sp-17; ");
    hwaccel::test::mask_mapped_addresses(stack);
    CHECK(s.find_in(stack) == "spilled in sp-56; ");
}

TEST_CASE("The GPR and stack residue check finds a word left in a register or on the stack", "[wipe]") {
    if (!can_dump()) return;
    uint32_t word = 0x5ec4e7a1;
    SecretWords s;
    s.add(word, "probe");
    const CallResidue r = residue_after(hwaccel_test_leave_word_in_gpr_and_stack, &word);
    CHECK(s.find_in(r.gprs) == "probe in " HWACCEL_PROBE_GPR " byte 0; ");
    CHECK(s.find_in(r.stack) == "probe in sp-208; ");
    CHECK(s.find_in(r.vectors) == "");
    CHECK(s.find_in(residue_after(keep_word_in_local_array<false>, &word).stack).find("probe in sp-") == 0);
    CHECK(s.find_in(residue_after(keep_word_in_local_array<true>, &word).stack) == "");
    uint32_t other = 0x0badcafe;
    const CallResidue clean = residue_after(hwaccel_test_leave_word_in_gpr_and_stack, &other);
    CHECK(s.find_in(clean.gprs) + s.find_in(clean.stack) == "");
}
#endif

// ------------------------------------------------------------ SM4 calls

enum class Entry {
    kSetKey, kSetKeyPair, kEcb, kEncryptBlock, kCtr, kCbcDecrypt, kCfbDecrypt,
    kCbcEncrypt, kCfbEncrypt, kOfb, kXts, kCcm, kCtrWithFirst,
};

// One engine call, all it may need.
struct Sm4Call {
    const Sm4Engine* engine;
    Entry entry;
    Sm4Direction direction;
    XtsStandard standard;
    Sm4Key* key;
    Sm4Key* key2;
    const uint8_t* user_key;
    const uint8_t* user_key2;
    uint8_t* out;
    const uint8_t* in;
    size_t nblocks;
    uint8_t* iv;  // counter, IV or tweak
    uint8_t* mac;
};

// The call, for the trampoline. Nothing after the engine's return may use a
// vector register, and nothing does (objdump -d of this file's object, GCC
// 12 at -O1, -O2 and -O3: no vector instruction in sm4_thunk or
// ghash_thunk): at -O2 and -O3 each case is a tail call (JMP to the
// engine's function), or for the seven-argument xts and ccm a CALL followed
// by POPs, ADD to the stack pointer and RET; at -O1 a CALL, ADD and RET.
[[gnu::noinline]] void sm4_thunk(void* p) {
    const Sm4Call& c = *static_cast<const Sm4Call*>(p);
    const Sm4Engine& e = *c.engine;
    switch (c.entry) {
        case Entry::kSetKey: return e.set_key(c.key, c.user_key);
        case Entry::kSetKeyPair: return e.set_key_pair(c.key, c.user_key, c.key2, c.user_key2);
        case Entry::kEcb: return e.ecb(c.key, c.direction, c.out, c.in, c.nblocks);
        case Entry::kEncryptBlock: return e.encrypt_block(c.key, c.out, c.in);
        case Entry::kCtr: return e.ctr(c.key, c.out, c.in, c.nblocks, c.iv);
        case Entry::kCtrWithFirst: return e.ctr_with_first(c.key, c.mac, c.out, c.in, c.nblocks, c.iv);
        case Entry::kCbcDecrypt: return e.cbc_decrypt(c.key, c.out, c.in, c.nblocks, c.iv);
        case Entry::kCfbDecrypt: return e.cfb_decrypt(c.key, c.out, c.in, c.nblocks, c.iv);
        case Entry::kCbcEncrypt: return e.cbc_encrypt(c.key, c.out, c.in, c.nblocks, c.iv);
        case Entry::kCfbEncrypt: return e.cfb_encrypt(c.key, c.out, c.in, c.nblocks, c.iv);
        case Entry::kOfb: return e.ofb(c.key, c.out, c.in, c.nblocks, c.iv);
        case Entry::kXts: return e.xts(c.key, c.direction, c.standard, c.out, c.in, c.nblocks, c.iv);
        case Entry::kCcm: return e.ccm(c.key, c.direction, c.out, c.in, c.nblocks, c.iv, c.mac);
    }
}

// This ISA's engines and the portable one, those of them this CPU runs.
std::vector<const Sm4Engine*> sm4_engines_checked() {
#if defined(__x86_64__)
    namespace x = hwaccel::x86;
    const Sm4Engine* ours[] = {&x::sm4_gfni_avx512, &x::sm4_gfni_avx2, &x::sm4_vaes_avx2, &x::sm4_aesni_avx2,
                               &hwaccel::generic::sm4};
#elif defined(__s390x__)
    const Sm4Engine* ours[] = {&hwaccel::generic::sm4};  // CPACF has no SM4
#else
    const Sm4Engine* ours[] = {&hwaccel::arm64::sm4_ce, &hwaccel::generic::sm4};
#endif
    return engines_of(hwaccel::sm4_engines(), ours);
}

std::string dir_name(Sm4Direction d) { return d == Sm4Direction::kEncrypt ? "encrypt" : "decrypt"; }

TEST_CASE(HWACCEL_RESIDUE_ISA " and portable SM4 engines leave no key material in vector registers",
          "[sm4]" HWACCEL_RESIDUE_TAG "[wipe]") {
    if (!can_dump()) return;  // no x86 SM4 engine runs here either
    Lcg rng(0x5e11);
    uint8_t user_key[16], user_key2[16];
    rng.fill(user_key, 16);
    rng.fill(user_key2, 16);
    constexpr size_t kMaxBlocks = 100;
    std::vector<uint8_t> in(16 * kMaxBlocks), out(16 * kMaxBlocks);
    rng.fill(in.data(), in.size());

    for (const Sm4Engine* e : sm4_engines_checked()) {
        SECTION(std::string("engine ") + e->name) {
            ResidueCheck check("sm4", *e);
            Sm4Key key{}, key2{};
            e->set_key(&key, user_key);
            e->set_key(&key2, user_key2);
            const SecretWords secrets = sm4_secrets(key, key2, user_key);
            const SecretWords secrets2 = sm4_secrets(key2, key, user_key2);

            // Runs c through the trampoline; the leak found, "" if none.
            auto leak = [&](Sm4Call c, const SecretWords& s) {
                c.engine = e;
                uint8_t iv[16], mac[16];
                rng.fill(iv, 16);
                rng.fill(mac, 16);
                c.iv = iv;
                c.mac = mac;
                c.in = in.data();
                c.out = out.data();
                return check(s, sm4_thunk, &c);
            };

            {
                Sm4Key k{};
                Sm4Call c{};
                c.entry = Entry::kSetKey;
                c.key = &k;
                c.user_key = user_key;
                INFO("set_key");
                CHECK(leak(c, secrets) == "");
            }
            if (e->set_key_pair != nullptr) {
                Sm4Key a{}, b{};
                Sm4Call c{};
                c.entry = Entry::kSetKeyPair;
                c.key = &a;
                c.key2 = &b;
                c.user_key = user_key;
                c.user_key2 = user_key2;
                const std::string first = leak(c, secrets), second = leak(c, secrets2);
                INFO("set_key_pair");
                CHECK(first == "");
                CHECK(second == "");
            }
            {
                Sm4Call c{};
                c.entry = Entry::kEncryptBlock;
                c.key = &key;
                INFO("encrypt_block");
                CHECK(leak(c, secrets) == "");
            }
            struct Bulk {
                Entry entry;
                const char* name;
                bool present;
            };
            const Bulk bulk[] = {
                {Entry::kCtr, "ctr", e->ctr != nullptr},
                {Entry::kCtrWithFirst, "ctr_with_first", e->ctr_with_first != nullptr},
                {Entry::kCbcDecrypt, "cbc_decrypt", e->cbc_decrypt != nullptr},
                {Entry::kCfbDecrypt, "cfb_decrypt", e->cfb_decrypt != nullptr},
                {Entry::kCbcEncrypt, "cbc_encrypt", e->cbc_encrypt != nullptr},
                {Entry::kCfbEncrypt, "cfb_encrypt", e->cfb_encrypt != nullptr},
                {Entry::kOfb, "ofb", e->ofb != nullptr},
            };
            // 1 block (the one-block path), one group (8), several groups
            // in one batch (24: three groups of 8 in the x86 kernels), and
            // several batches (100).
            for (size_t n : {size_t{1}, size_t{8}, size_t{24}, size_t{100}}) {
                for (Sm4Direction d : {Sm4Direction::kEncrypt, Sm4Direction::kDecrypt}) {
                    Sm4Call c{};
                    c.entry = Entry::kEcb;
                    c.direction = d;
                    c.key = &key;
                    c.nblocks = n;
                    INFO("ecb " << dir_name(d) << ", " << n << " blocks");
                    CHECK(leak(c, secrets) == "");
                }
                for (const Bulk& b : bulk) {
                    if (!b.present) continue;
                    Sm4Call c{};
                    c.entry = b.entry;
                    c.key = &key;
                    c.nblocks = n;
                    INFO(b.name << ", " << n << " blocks");
                    CHECK(leak(c, secrets) == "");
                }
                for (Sm4Direction d : {Sm4Direction::kEncrypt, Sm4Direction::kDecrypt}) {
                    if (e->xts != nullptr) {
                        for (XtsStandard st : {XtsStandard::kGb, XtsStandard::kIeee}) {
                            Sm4Call c{};
                            c.entry = Entry::kXts;
                            c.direction = d;
                            c.standard = st;
                            c.key = &key;
                            c.nblocks = n;
                            INFO("xts " << dir_name(d) << (st == XtsStandard::kGb ? " GB" : " IEEE") << ", " << n
                                        << " blocks");
                            CHECK(leak(c, secrets) == "");
                        }
                    }
                    if (e->ccm != nullptr) {
                        Sm4Call c{};
                        c.entry = Entry::kCcm;
                        c.direction = d;
                        c.key = &key;
                        c.nblocks = n;
                        INFO("ccm " << dir_name(d) << ", " << n << " blocks");
                        CHECK(leak(c, secrets) == "");
                    }
                }
            }
            check.report();
        }
    }
}

// ------------------------------------------------------------ GHASH

struct GhashCall {
    const GhashEngine* engine;
    GhashKey* key;
    const uint8_t* h;  // set_key when non-null, else update
    uint8_t* y;
    const uint8_t* data;
    size_t nblocks;
};

// As sm4_thunk (its comment says how it was checked).
[[gnu::noinline]] void ghash_thunk(void* p) {
    const GhashCall& c = *static_cast<const GhashCall*>(p);
    if (c.h != nullptr) return c.engine->set_key(c.key, c.h);
    return c.engine->update(c.key, c.y, c.data, c.nblocks);
}

std::vector<const GhashEngine*> ghash_engines_checked() {
#if defined(__x86_64__)
    namespace x = hwaccel::x86;
    const GhashEngine* ours[] = {&x::ghash_vpclmul_avx512, &x::ghash_vpclmul_avx2, &x::ghash_pclmul,
                                 &hwaccel::generic::ghash};
#elif defined(__s390x__)
    const GhashEngine* ours[] = {&hwaccel::s390x::ghash_cpacf, &hwaccel::generic::ghash};
#else
    const GhashEngine* ours[] = {&hwaccel::arm64::ghash_pmull, &hwaccel::generic::ghash};
#endif
    return engines_of(hwaccel::ghash_engines(), ours);
}

TEST_CASE(HWACCEL_RESIDUE_ISA " and portable GHASH engines leave no key material in vector registers",
          "[ghash]" HWACCEL_RESIDUE_TAG "[wipe]") {
    if (!can_dump()) return;
    Lcg rng(0x9a54);
    uint8_t h[16], h2[16];
    rng.fill(h, 16);
    rng.fill(h2, 16);
    constexpr size_t kMaxBlocks = 100;
    std::vector<uint8_t> data(16 * kMaxBlocks);
    rng.fill(data.data(), data.size());

    for (const GhashEngine* e : ghash_engines_checked()) {
        SECTION(std::string("engine ") + e->name) {
            // The whole table: each key after the longest update.
            GhashKey full{}, full2{};
            uint8_t y[16] = {0};
            e->set_key(&full, h);
            e->update(&full, y, data.data(), kMaxBlocks);
            e->set_key(&full2, h2);
            e->update(&full2, y, data.data(), kMaxBlocks);
            SecretWords secrets;
            secrets.add_bytes(h, 16, "H");
            secrets.add_differing(full.engine_data, full2.engine_data, GhashKey::kEngineDataSize, "engine_data");

            ResidueCheck check("ghash", *e);
            auto leak = [&](GhashCall c) {
                c.engine = e;
                return check(secrets, ghash_thunk, &c);
            };
            {
                GhashKey k{};
                INFO("set_key");
                CHECK(leak({nullptr, &k, h, nullptr, nullptr, 0}) == "");
            }
            for (size_t n : {size_t{1}, size_t{8}, size_t{100}}) {
                GhashKey fresh{};
                e->set_key(&fresh, h);
                rng.fill(y, 16);
                const std::string after_set_key = leak({nullptr, &fresh, nullptr, y, data.data(), n});
                const std::string table_complete = leak({nullptr, &full, nullptr, y, data.data(), n});
                INFO("update, " << n << " blocks");
                CHECK(after_set_key == "");
                CHECK(table_complete == "");
            }
            check.report();
        }
    }
}

// ------------------------------------------------------------ digests

// The x86 digest engines: their state is key-derived under HMAC (the
// chaining value after the key block), and the message may be the key
// block itself. Secrets: the state before and after the call, every
// chaining value between its blocks, and the message's words. Keccak's
// lanes count as their two 32-bit halves (the words SecretWords looks for).

enum class DigestEntry { kSha1, kSha256, kAbsorb, kPermute, kFinish, kSqueeze, kOneshot };

struct DigestCall {
    DigestEntry entry;
    const hwaccel::Sha1Engine* sha1;
    const hwaccel::Sha256Engine* sha256;
    const hwaccel::KeccakEngine* keccak;
    uint32_t* state32;
    uint64_t* state64;
    const uint8_t* data;
    size_t n;  // blocks (sha1, sha256, absorb) or bytes (finish, oneshot)
    size_t rate;
    uint8_t pad;
    uint8_t* out;
    size_t out_len;
};

// As sm4_thunk (its comment says how it was checked; this one too, GCC 12
// -O2: no vector instruction, each case a CALL, then ADD to the stack
// pointer and RET).
[[gnu::noinline]] void digest_thunk(void* p) {
    const DigestCall& c = *static_cast<const DigestCall*>(p);
    switch (c.entry) {
        case DigestEntry::kSha1: return c.sha1->blocks(c.state32, c.data, c.n);
        case DigestEntry::kSha256: return c.sha256->blocks(c.state32, c.data, c.n);
        case DigestEntry::kAbsorb: return c.keccak->absorb(c.state64, c.data, c.n, c.rate);
        case DigestEntry::kPermute: return c.keccak->permute(c.state64);
        case DigestEntry::kFinish: c.keccak->finish(c.state64, c.data, c.n, c.rate, c.pad, c.out, c.out_len); return;
        case DigestEntry::kSqueeze: c.keccak->squeeze(c.state64, c.out, c.out_len, c.rate); return;
        case DigestEntry::kOneshot: c.keccak->oneshot(c.data, c.n, c.rate, c.pad, c.out, c.out_len); return;
    }
}

void add_words(SecretWords& s, const uint32_t* w, size_t n, const std::string& name) {
    for (size_t i = 0; i < n; ++i) s.add(w[i], name + "[" + std::to_string(i) + "]");
}
void add_lanes(SecretWords& s, const uint64_t lanes[25], const std::string& name) {
    for (int i = 0; i < 25; ++i) {
        s.add(static_cast<uint32_t>(lanes[i]), name + " lane " + std::to_string(i) + " low");
        s.add(static_cast<uint32_t>(lanes[i] >> 32), name + " lane " + std::to_string(i) + " high");
    }
}

// SHA-1 and SHA-256 share everything but the state's size and the call.
template <class Engine>
void check_md_engine(const Engine& e) {
    constexpr bool kSha1 = std::is_same_v<Engine, hwaccel::Sha1Engine>;
    ResidueCheck check(kSha1 ? "sha1" : "sha256", e);
    constexpr size_t state_words = kSha1 ? 5 : 8;
    Lcg rng(0x5a7e);
    constexpr size_t kMaxBlocks = 20;
    std::vector<uint8_t> msg(64 * kMaxBlocks);
    rng.fill(msg.data(), msg.size());
    for (size_t n : {size_t{1}, size_t{2}, size_t{kMaxBlocks}}) {
        uint32_t start[8], state[8];
        for (uint32_t& w : start) w = rng.next32();
        SecretWords secrets;
        secrets.add_bytes(msg.data(), 64 * n, "message");
        add_words(secrets, start, state_words, "state in");
        std::memcpy(state, start, sizeof state);
        for (size_t b = 0; b < n; ++b) {  // the chaining values, one block at a time
            e.blocks(state, msg.data() + 64 * b, 1);
            add_words(secrets, state, state_words, "state after block " + std::to_string(b));
        }
        std::memcpy(state, start, sizeof state);
        DigestCall c{};
        if constexpr (kSha1) {
            c.entry = DigestEntry::kSha1;
            c.sha1 = &e;
        } else {
            c.entry = DigestEntry::kSha256;
            c.sha256 = &e;
        }
        c.state32 = state;
        c.data = msg.data();
        c.n = n;
        const std::string leak = check(secrets, digest_thunk, &c);
        INFO("blocks, " << n << " blocks");
        CHECK(leak == "");
    }
    check.report();
}

TEST_CASE(HWACCEL_RESIDUE_ISA " and portable SHA-1 and SHA-256 engines leave no state in vector registers",
          "[sha1][sha256]" HWACCEL_RESIDUE_TAG "[wipe]") {
    if (!can_dump()) return;
#if defined(__x86_64__)
    namespace x = hwaccel::x86;
    const hwaccel::Sha1Engine* sha1_ours[] = {&x::sha1_sha_ni, &hwaccel::generic::sha1};
    const hwaccel::Sha256Engine* sha256_ours[] = {&x::sha256_sha_ni, &hwaccel::generic::sha256};
#elif defined(__s390x__)
    const hwaccel::Sha1Engine* sha1_ours[] = {&hwaccel::s390x::sha1_cpacf, &hwaccel::generic::sha1};
    const hwaccel::Sha256Engine* sha256_ours[] = {&hwaccel::s390x::sha256_cpacf, &hwaccel::generic::sha256};
#else
    const hwaccel::Sha1Engine* sha1_ours[] = {&hwaccel::arm64::sha1_ce, &hwaccel::generic::sha1};
    const hwaccel::Sha256Engine* sha256_ours[] = {&hwaccel::arm64::sha256_ce, &hwaccel::generic::sha256};
#endif
    for (const hwaccel::Sha1Engine* e : engines_of(hwaccel::sha1_engines(), sha1_ours))
        SECTION(std::string("sha1 engine ") + e->name) { check_md_engine(*e); }
    for (const hwaccel::Sha256Engine* e : engines_of(hwaccel::sha256_engines(), sha256_ours))
        SECTION(std::string("sha256 engine ") + e->name) { check_md_engine(*e); }
}

TEST_CASE(HWACCEL_RESIDUE_ISA " and portable Keccak engines leave no state in vector registers",
          "[sha3]" HWACCEL_RESIDUE_TAG "[wipe]") {
    if (!can_dump()) return;
    using hwaccel::KeccakEngine;
#if defined(__x86_64__)
    namespace x = hwaccel::x86;
    const KeccakEngine* ours[] = {&x::keccak_x86_avx512, &x::keccak_x86_bmi2, &hwaccel::generic::keccak};
#elif defined(__s390x__)
    const KeccakEngine* ours[] = {&hwaccel::s390x::keccak_cpacf, &hwaccel::generic::keccak};
#else
    const KeccakEngine* ours[] = {&hwaccel::arm64::keccak_sha3, &hwaccel::generic::keccak};
#endif
    Lcg rng(0x6ecc);
    constexpr size_t kMaxBlocks = 8;
    std::vector<uint8_t> msg(168 * kMaxBlocks);

    for (const KeccakEngine* e : engines_of(hwaccel::keccak_engines(), ours)) {
        SECTION(std::string("engine ") + e->name) {
            ResidueCheck check("keccak", *e);
            // Runs c from a random state (and message) through the
            // trampoline; the leak, "" if none. reference does the same call
            // directly, to give the state after it. The output is the
            // caller's (and is the state's first bytes): its words are no
            // secret.
            auto leak = [&](DigestCall c, auto reference) {
                uint64_t start[25], state[25];
                for (uint64_t& l : start) l = uint64_t{rng.next32()} << 32 | rng.next32();
                rng.fill(msg.data(), msg.size());
                std::vector<uint8_t> out(c.out_len + 1), out_ref(c.out_len + 1);
                std::memcpy(state, start, sizeof state);
                reference(state, out_ref.data());
                SecretWords secrets;
                secrets.add_bytes(msg.data(), msg.size(), "message");
                add_lanes(secrets, start, "state in");
                add_lanes(secrets, state, "state out");
                secrets.forget_bytes(out_ref.data(), c.out_len);
                std::memcpy(state, start, sizeof state);
                c.keccak = e;
                c.state64 = state;
                c.data = msg.data();
                c.out = out.data();
                return check(secrets, digest_thunk, &c);
            };

            for (size_t rate : {size_t{72}, size_t{136}, size_t{168}})
                for (size_t n : {size_t{1}, size_t{3}, kMaxBlocks}) {
                    DigestCall c{};
                    c.entry = DigestEntry::kAbsorb;
                    c.n = n;
                    c.rate = rate;
                    INFO("absorb, rate " << rate << ", " << n << " blocks");
                    CHECK(leak(c, [&](uint64_t* st, uint8_t*) { e->absorb(st, msg.data(), n, rate); }) == "");
                }
            {
                DigestCall c{};
                c.entry = DigestEntry::kPermute;
                INFO("permute");
                CHECK(leak(c, [&](uint64_t* st, uint8_t*) { e->permute(st); }) == "");
            }
            // SHA3-256 (rate 136, 32 bytes out) and SHAKE128 (rate 168, 400
            // bytes out: more than two blocks, a partial lane at the end).
            struct Final {
                size_t rate;
                uint8_t pad;
                size_t out_len;
            };
            const Final finals[] = {{136, hwaccel::kSha3Pad, 32}, {168, hwaccel::kShakePad, 400}};
            for (const Final& f : finals)
                for (size_t len : {size_t{0}, size_t{13}, f.rate + 13, 3 * f.rate}) {
                    DigestCall c{};
                    c.rate = f.rate;
                    c.pad = f.pad;
                    c.out_len = f.out_len;
                    c.n = len;
                    if (e->finish != nullptr) {
                        c.entry = DigestEntry::kFinish;
                        INFO("finish, rate " << f.rate << ", " << len << " bytes in, " << f.out_len << " out");
                        CHECK(leak(c, [&](uint64_t* st, uint8_t* o) {
                                  e->finish(st, msg.data(), len, f.rate, f.pad, o, f.out_len);
                              }) == "");
                    }
                    if (e->oneshot != nullptr) {
                        // No state in: the one it ends with is finish's from zero.
                        c.entry = DigestEntry::kOneshot;
                        INFO("oneshot, rate " << f.rate << ", " << len << " bytes in, " << f.out_len << " out");
                        CHECK(leak(c, [&](uint64_t* st, uint8_t* o) {
                                  std::memset(st, 0, 200);
                                  e->oneshot(msg.data(), len, f.rate, f.pad, o, f.out_len);
                                  if (e->finish != nullptr) e->finish(st, msg.data(), len, f.rate, f.pad, o, f.out_len);
                              }) == "");
                    }
                }
            if (e->squeeze != nullptr) {
                DigestCall c{};
                c.entry = DigestEntry::kSqueeze;
                c.rate = 168;
                c.out_len = 400;
                INFO("squeeze, rate 168, 400 bytes");
                CHECK(leak(c, [&](uint64_t* st, uint8_t* o) { e->squeeze(st, o, 400, 168); }) == "");
            }
            check.report();
        }
    }
}

}  // namespace

#endif
