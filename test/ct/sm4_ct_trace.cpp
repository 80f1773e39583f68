// Constant-time check for every SM4 engine this CPU can run, natively: no
// emulator, so it also covers instructions valgrind cannot run (the 256-bit
// VAESENCLAST of the vaes-avx2 engine).
//
// Method: trace equivalence. Each engine call runs twice, in two forked
// children that differ only in the secret bytes, held in the same buffers at
// the same addresses. Each child is single-stepped with ptrace and its
// registers recorded before every instruction; then the two traces are
// compared step by step. On x86-64 every memory address is computed from
// general-purpose registers (plus RIP and constants), and every branch shows
// in RIP. So if at every step
//   - RIP is the same in both runs (no secret-dependent branch or loop count),
//   - the registers that form the instruction's address are the same (base,
//     index, RSP, the implicit RSI/RDI/RCX of string instructions, ...),
//   - and so are the operands of DIV/IDIV, whose latency depends on them,
// then neither control flow nor any address depends on the secret. Other GPRs
// may differ: the portable engine computes on secret data in GPRs, which is
// fine as long as it never becomes an address or a branch. The report says
// whether a function kept every GPR and RFLAGS identical throughout (the x86
// engines keep secrets in vector registers) or at how many steps they
// carried secret data.
//
// What it cannot see: vector registers (so VSIB gathers and masked vector
// loads and stores, whose accesses depend on them, are rejected outright), and
// timing differences inside one instruction (vector instructions, and GPR
// arithmetic other than DIV, take data-independent time on the CPUs we
// target; PDEP/PEXT before AMD Zen 3 do not, and no SM4 engine uses them).
// Each call runs with several secrets: a random x (seeded per call from a
// run seed that is printed, and set with HWACCEL_CT_SEED to reproduce a run),
// its bitwise complement (every secret bit differs), and at one block count
// per code path kExtraSecrets more random ones (a complement pair cannot
// show, say, a branch on two secret bytes being equal). Every run is compared
// with run 0, so all the secrets are pairwise trace-equivalent.
//
// Besides the engines' own functions, the provider's mode code that handles
// secrets (provider/cipher/sm4_modes.cpp: the partial-block byte loops, the
// serial loops over encrypt_block the portable engine uses for CBC/CFB
// encryption and OFB, and the fallbacks for engines without fused parallel
// modes) is traced over every engine as it is and over a copy of it without
// the optional members ("bare"), which takes every fallback. And the
// provider's PKCS#7 unpad (provider/cipher/pkcs7.hpp, the very inline function
// the provider calls), over the blocks of pkcs7_unpad_cases.hpp, several to a
// job instead of x and ~x: valid and invalid, every pad length, so its verdict
// and length differ between the runs while its instructions must not.
//
// Built a second time with SM4_CT_TRACE_DELIBERATE_LEAK (sm4_ct_trace_leak):
// every traced call then also does a table lookup indexed by a secret byte
// and a branch on a secret bit, which must be reported; the CTest entries
// assert that they are. With --native the calls run without tracing, to show
// that the leak variant's failure is the check's finding, not a crash.
//
// The GHASH engines (the family serving SM4-GCM) are traced the same way:
// set_key with H secret, and update with H, Y and the data secret, at the
// block counts where their code paths change (kGhash*Counts).
//
// SM4-GCM and SM4-XTS: each x86 engine's fused xts member (both standards,
// both directions; key, tweak and data secret); the provider's XTS
// (provider/cipher/sm4_xts_mode.cpp: tweak chains, stealing) over every
// engine as it is and bare; the provider's GCM (sm4_gcm_mode.cpp: J0 from a
// 12- or 17-byte IV, AAD and text from mid-block, CTR, GHASH, the tag) over
// every SM4 engine with the GHASH engine chosen first, and over every other
// GHASH engine with the first SM4 engine, its decryption followed by the tag
// comparison (constant_time_equal.hpp, the function sm4_gcm.cpp calls); and
// that comparison on its own, with equal and unequal tags (differing at
// various bytes) in the runs, like the unpad cases.
//
// Usage: sm4_ct_trace [--native] [engine ...]   (default: every engine)
// Where ptrace is not permitted the check FAILS, unless HWACCEL_ALLOW_CT_SKIP=1
// says a skip is acceptable: then it exits 77 (CTest's SKIP_RETURN_CODE).
#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cipher/pkcs7.hpp"
#include "cipher/sm4_gcm_mode.hpp"
#include "cipher/sm4_modes.hpp"
#include "cipher/sm4_xts_mode.hpp"
#include "constant_time_equal.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"
#include "hwaccel/sm4_ccm_blocks.hpp"
#include "pkcs7_unpad_cases.hpp"
#include "support/engine_manifest.hpp"

// fn(arg) between two int3 markers, on the stack whose top is stack_top, and
// entered with every GPR but RSP, RAX (fn) and RDI (arg) zeroed. So both runs
// start from identical registers: nothing the child computed before (its
// secrets included) lingers in one, and the stack is at the same address
// whichever thread forked the child. The call sits between the markers in the
// assembly itself, so the compiler cannot move it across them.
extern "C" void sm4_ct_traced_call(void (*fn)(const void*), const void* arg, void* stack_top);
extern "C" const char sm4_ct_trace_begin[];  // just after the first int3
extern "C" const char sm4_ct_trace_end[];    // the second int3
__asm__(R"(
    .pushsection .text
    .p2align 4
    .globl sm4_ct_traced_call
    .hidden sm4_ct_traced_call
    .type sm4_ct_traced_call, @function
sm4_ct_traced_call:
    push %rbx
    push %rbp
    push %r12
    push %r13
    push %r14
    push %r15
    mov %rsp, %rax
    mov %rdx, %rsp
    push %rax
    sub $8, %rsp
    mov %rdi, %rax
    mov %rsi, %rdi
    xor %ebx, %ebx
    xor %ecx, %ecx
    xor %edx, %edx
    xor %esi, %esi
    xor %ebp, %ebp
    xor %r8d, %r8d
    xor %r9d, %r9d
    xor %r10d, %r10d
    xor %r11d, %r11d
    xor %r12d, %r12d
    xor %r13d, %r13d
    xor %r14d, %r14d
    xor %r15d, %r15d
    int3
    .globl sm4_ct_trace_begin
    .hidden sm4_ct_trace_begin
sm4_ct_trace_begin:
    call *%rax
    .globl sm4_ct_trace_end
    .hidden sm4_ct_trace_end
sm4_ct_trace_end:
    int3
    add $8, %rsp
    pop %rsp
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %rbp
    pop %rbx
    ret
    .size sm4_ct_traced_call, .-sm4_ct_traced_call
    .popsection
)");

namespace {

constexpr int kSkipExit = 77;         // CTest SKIP_RETURN_CODE
constexpr int kExtraSecrets = 4;      // random secrets beyond x and ~x, where traced
constexpr int kMaxRuns = 2 + kExtraSecrets;
constexpr int kChildCannotTrace = 3;  // a child's exit code: PTRACE_TRACEME refused
constexpr size_t kMaxSteps = 1000000; // per call; the longest takes ~100000
constexpr size_t kMaxBlocks = 100;

// Block counts, at each engine's internal boundaries: a longer call only
// repeats the same instructions on more blocks, and a step costs ~20 us here.
#ifndef SM4_CT_TRACE_DELIBERATE_LEAK
// x86 engines: one block (the serial path), register-resident groups of 8 (2,
// 3, 8, 9, 17), the 32-block batch kernel (31, 32), batches plus a tail (33,
// 70; for gfni-avx512, whose batches are 96 blocks in 6 zmm, 9 and 17 are
// zmm pairs with a half-empty one, 70 its assembly kernel on 9 groups).
const std::vector<size_t> kX86Counts = {1, 2, 3, 8, 9, 17, 31, 32, 33, 70};
// gfni-avx512 only: its assembly kernel on 7 groups (55: a half-empty zmm,
// a partial group) and a full 12-group batch plus a tail (100).
const std::vector<size_t> kGfniAvx512Counts = {55, 100};
// The portable engine: one block, byte-sliced chunks of 8 (2; 9 = a chunk plus
// a one-block tail). Its bitsliced kernel (from 64 blocks, ~100000 steps a
// call) is traced once, through ecb: every mode reaches it through the same
// Kernels::crypt.
const std::vector<size_t> kPortableCounts = {1, 2, 9};
constexpr size_t kPortableBitsliced = 70;
const std::vector<size_t> kSerialCounts = {1, 3};
// The calls that get kExtraSecrets more random secrets, within the time a
// CTest entry should take (~20 us a step, per run): set_key and
// encrypt_block, every x86 function at one block, the portable ECB at one
// block (its byte-sliced kernel, which every portable function reaches),
// and the mode functions over the bare x86 engines.
const std::vector<size_t> kX86ExtraCounts = {1};
const std::vector<size_t> kPortableExtraCounts = {1};  // ecb (enc) only
const std::vector<size_t> kSerialExtraCounts = {1};
constexpr bool kFullCheck = true;
#else
// The leak is the same in every call: one call per function shows it is found
// there, with x and ~x, and the engines' own functions suffice.
constexpr bool kFullCheck = false;
const std::vector<size_t> kSerialCounts = {2};
const std::vector<size_t> kX86Counts = {2};
const std::vector<size_t> kPortableCounts = {2};
constexpr size_t kPortableBitsliced = 0;
const std::vector<size_t> kX86ExtraCounts, kPortableExtraCounts, kSerialExtraCounts, kGfniAvx512Counts;
#endif
// GHASH: the portable engine one block at a time (1 block, then the loop:
// 2; ~1300 steps a block); the CLMUL engines' groups (16 blocks in xmm, 32
// in ymm pairs or zmm quads) and each kind of tail: quads, pairs, single
// blocks (1, 3, 7, 16, 35).
// The fused xts member: one block, groups of 8 (3, 8, 9, 17), a 32-block
// batch plus a tail (33).
#ifndef SM4_CT_TRACE_DELIBERATE_LEAK
const std::vector<size_t> kXtsCounts = {1, 3, 8, 9, 17, 33};
#else
const std::vector<size_t> kXtsCounts = {2};
#endif
#ifndef SM4_CT_TRACE_DELIBERATE_LEAK
const std::vector<size_t> kGhashPortableCounts = {1, 2};
const std::vector<size_t> kGhashClmulCounts = {1, 3, 7, 16, 35};
#else
const std::vector<size_t> kGhashPortableCounts = {2};
const std::vector<size_t> kGhashClmulCounts = {2};
#endif

// --- what is traced -------------------------------------------------------------

enum class Fn { set_key, set_key_pair, ecb_enc, ecb_dec, encrypt_block, ctr, ctr_with_first, cbc_decrypt, cfb_decrypt, cbc_encrypt, cfb_encrypt, ofb,
                // CCM's body (sm4_ccm_blocks: the fused ccm member, or its generic path).
                ccm_enc, ccm_dec,
                // The provider's mode code (sm4_modes.cpp) over the engine.
                mode_cbc_enc, mode_cbc_dec, mode_cfb_enc, mode_cfb_dec, mode_ofb, mode_ctr,
                // The provider's PKCS#7 unpad: no engine (Job::engine null).
                pkcs7_unpad,
                // A GHASH engine's members (Job::ghash).
                ghash_set_key, ghash_update,
                // The fused XTS member; the provider's XTS and GCM over the
                // engine (GCM: with Job::gcm_ghash); the tag comparison (no engine).
                xts, mode_xts, mode_gcm_enc, mode_gcm_dec, tag_compare };
constexpr Fn kFns[] = {Fn::set_key, Fn::set_key_pair, Fn::ecb_enc, Fn::ecb_dec, Fn::encrypt_block,
                       Fn::ctr, Fn::ctr_with_first, Fn::cbc_decrypt, Fn::cfb_decrypt, Fn::cbc_encrypt,
                       Fn::cfb_encrypt, Fn::ofb, Fn::ccm_enc, Fn::ccm_dec};
const std::vector<Fn> kNoFns;
const std::vector<Fn> kModeFns = {Fn::mode_cbc_enc, Fn::mode_cbc_dec, Fn::mode_cfb_enc,
                           Fn::mode_cfb_dec, Fn::mode_ofb, Fn::mode_ctr};

const char* fn_name(Fn f) {
    switch (f) {
        case Fn::set_key: return "set_key";
        case Fn::set_key_pair: return "set_key_pair";
        case Fn::ecb_enc: return "ecb (enc)";
        case Fn::ecb_dec: return "ecb (dec)";
        case Fn::encrypt_block: return "encrypt_block";
        case Fn::ctr: return "ctr";
        case Fn::ctr_with_first: return "ctr_with_first";
        case Fn::cbc_decrypt: return "cbc_decrypt";
        case Fn::cfb_decrypt: return "cfb_decrypt";
        case Fn::cbc_encrypt: return "cbc_encrypt";
        case Fn::cfb_encrypt: return "cfb_encrypt";
        case Fn::ofb: return "ofb";
        case Fn::ccm_enc: return "ccm (enc)";
        case Fn::ccm_dec: return "ccm (dec)";
        case Fn::mode_cbc_enc: return "sm4_cbc (enc)";
        case Fn::mode_cbc_dec: return "sm4_cbc (dec)";
        case Fn::mode_cfb_enc: return "sm4_cfb (enc)";
        case Fn::mode_cfb_dec: return "sm4_cfb (dec)";
        case Fn::mode_ofb: return "sm4_ofb";
        case Fn::mode_ctr: return "sm4_ctr";
        case Fn::pkcs7_unpad: return "pkcs7_unpad";
        case Fn::ghash_set_key: return "set_key";
        case Fn::ghash_update: return "update";
        case Fn::xts: return "xts";
        case Fn::mode_xts: return "sm4_xts";
        case Fn::mode_gcm_enc: return "sm4_gcm (enc)";
        case Fn::mode_gcm_dec: return "sm4_gcm (dec)";
        case Fn::tag_compare: return "constant_time_equal";
    }
    return "?";
}
bool is_mode(Fn f) { return f >= Fn::mode_cbc_enc && f <= Fn::mode_ctr; }
bool is_gcm(Fn f) { return f == Fn::mode_gcm_enc || f == Fn::mode_gcm_dec; }
// The stream modes are traced from the middle of a block: a 5-byte call
// before the traced one leaves num = 5 and a secret keystream (or CFB/OFB
// register); the traced call then finishes that block (11 bytes), runs n
// whole blocks and ends a few bytes into the next one (Job::tail_bytes).
bool is_stream_mode(Fn f) { return is_mode(f) && f != Fn::mode_cbc_enc && f != Fn::mode_cbc_dec; }
constexpr size_t kWarmUpBytes = 5;
bool takes_count(Fn f) {
    return f != Fn::set_key && f != Fn::set_key_pair && f != Fn::encrypt_block && f != Fn::pkcs7_unpad && f != Fn::ghash_set_key &&
           f != Fn::tag_compare;
}
// The fused serial modes run one block after another through the same code
// (~900 steps a block): one and three blocks show the first block and the
// block-to-block path.
bool is_serial(Fn f) {
    return f == Fn::cbc_encrypt || f == Fn::cfb_encrypt || f == Fn::ofb || f == Fn::ccm_enc || f == Fn::ccm_dec;
}
bool present(const hwaccel::Sm4Engine& e, Fn f) {
    if (f == Fn::ctr) return e.ctr != nullptr;
    if (f == Fn::ctr_with_first) return e.ctr_with_first != nullptr;
    if (f == Fn::cbc_decrypt) return e.cbc_decrypt != nullptr;
    if (f == Fn::cfb_decrypt) return e.cfb_decrypt != nullptr;
    if (f == Fn::cbc_encrypt) return e.cbc_encrypt != nullptr;
    if (f == Fn::cfb_encrypt) return e.cfb_encrypt != nullptr;
    if (f == Fn::ofb) return e.ofb != nullptr;
    // Without the member, sm4_ccm_blocks only calls ctr and cbc_encrypt
    // (or encrypt_block), traced on their own.
    if (f == Fn::ccm_enc || f == Fn::ccm_dec) return e.ccm != nullptr;
    if (f == Fn::xts) return e.xts != nullptr;
    if (f == Fn::set_key_pair) return e.set_key_pair != nullptr;
    return true;
}
// CBC and CFB decryption read public ciphertext and IV (which may pass through
// GPRs, e.g. the copy of the chaining block): there only the key is secret.
bool input_is_secret(Fn f) {
    return f != Fn::cbc_decrypt && f != Fn::cfb_decrypt && f != Fn::mode_cbc_dec && f != Fn::mode_cfb_dec;
}

struct Job {
    const hwaccel::Sm4Engine* engine;  // as registered (named in the report); null for unpad
    Fn fn;
    size_t blocks;      // pkcs7_unpad: the unpad case of run 1 (run k: blocks + k - 1)
    int runs;           // secrets compared: x, ~x and runs - 2 random ones
    bool bare = false;  // mode functions: over a copy of the engine without optional members
    size_t tail_bytes = 3;  // stream mode functions: bytes past the whole blocks
    const hwaccel::GhashEngine* ghash = nullptr;  // GHASH jobs (engine null)
    // XTS: bit 0 IEEE (else GB), bit 1 decryption. GCM: the GHASH engine.
    int xts_variant = 0;
    const hwaccel::GhashEngine* gcm_ghash = nullptr;
};

// GCM's traced message: text of n blocks plus bits (run_job), over the engine
// as it is or bare. The portable engine as it is only (its fallbacks are its
// own path), at one block.
struct GcmCount {
    size_t blocks;
    bool bare;
};
const std::vector<GcmCount> kGcmX86 = {{2, false}, {33, false}, {2, true}};
const std::vector<GcmCount> kGcmPortable = {{1, false}};

// The GHASH engine the registry chooses first on this CPU.
const hwaccel::GhashEngine* first_ghash() {
    for (const hwaccel::GhashEngine* g : hwaccel::ghash_engines())
        if (g->available(hwaccel::cpu_features())) return g;
    return nullptr;
}

// The engine a job runs: for bare jobs a copy without the optional fused
// modes, made before any child is forked, so the copy is at the same address
// in every run.
std::map<const hwaccel::Sm4Engine*, hwaccel::Sm4Engine> bare_copies;
void make_bare_copies() {
    for (const hwaccel::Sm4Engine* e : hwaccel::sm4_engines()) {
        hwaccel::Sm4Engine bare = *e;
        bare.ctr = nullptr;
        bare.cbc_decrypt = bare.cfb_decrypt = nullptr;
        bare.cbc_encrypt = bare.cfb_encrypt = bare.ofb = nullptr;
        bare.xts = nullptr;
        bare_copies[e] = bare;
    }
}
const hwaccel::Sm4Engine& engine_of(const Job& job) {
    return job.bare ? bare_copies.at(job.engine) : *job.engine;
}

// Everything a traced call touches, its stack included. Static storage,
// written only by the children: a forked child has it at the parent's
// addresses, so both runs use the same addresses.
struct Buffers {
    alignas(64) uint8_t user_key[16];
    alignas(64) uint8_t user_key2[16];  // set_key_pair's second key
    alignas(64) hwaccel::Sm4Key key;
    alignas(64) uint8_t in[16 * kMaxBlocks];
    alignas(64) uint8_t out[16 * kMaxBlocks];
    alignas(64) uint8_t counter_or_iv[16];
    alignas(64) uint8_t mac[16];  // CCM's CBC-MAC chaining value (secret)
    alignas(64) hwaccel::Sm4State state;  // the mode functions' context
    alignas(64) hwaccel::GhashKey ghash_key;
    alignas(64) uint8_t ghash_y[16];
    alignas(64) hwaccel::Sm4XtsKey xts_key;
    alignas(64) hwaccel::Sm4GcmState gcm;
    alignas(64) uint8_t tag[16];
    alignas(64) uint8_t expected_tag[16];
    alignas(64) uint8_t stack[1 << 20];
};
Buffers buffers;

// The run seed: every secret derives from it, the job and the run.
uint64_t run_seed = 0;

uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Secret bytes for run `run` of the job numbered `job_index`: run 0 a random
// x, run 1 its complement, later runs independent random values. `stream`
// tells the buffers apart.
void fill_secret(uint8_t* p, size_t n, size_t job_index, int run, uint64_t stream) {
    uint64_t x = run_seed ^ (job_index * 0x100000001b3ull) ^ (stream << 56) ^
                 (run >= 2 ? static_cast<uint64_t>(run) << 48 : 0);
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = splitmix64(x);
        for (size_t k = 0; k < 8 && i + k < n; ++k, v >>= 8)
            p[i + k] = static_cast<uint8_t>(run == 1 ? ~v : v);
    }
}

void fill_public(uint8_t* p, size_t n, uint8_t seed) {
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(seed + 31 * i + (i >> 3));
}

// The unpad case of a run: run 0, which every other run is compared with, a
// valid padding (its length varying with the job), then the job's cases.
int unpad_case_of(const Job& job, int run) {
    return run == 0 ? static_cast<int>(job.blocks) % hwaccel::test::kUnpadValid
                    : static_cast<int>(job.blocks) + run - 1;
}

// Sets up one run of a job, outside the traced region. Only the secrets
// differ between runs; public data is the same in all.
void prepare(const Job& job, size_t job_index, int run) {
    Buffers& b = buffers;
    if (job.ghash && !is_gcm(job.fn)) {  // H (in user_key), Y and the data all secret
        fill_secret(b.user_key, sizeof b.user_key, job_index, run, 1);
        fill_secret(b.in, sizeof b.in, job_index, run, 2);
        fill_secret(b.ghash_y, sizeof b.ghash_y, job_index, run, 3);
        if (job.fn != Fn::ghash_set_key) job.ghash->set_key(&b.ghash_key, b.user_key);
        return;
    }
    if (job.fn == Fn::tag_compare) {  // run 0 equal tags; run k one bit off at a byte of its own
        fill_secret(b.tag, sizeof b.tag, job_index, run, 1);
        std::memcpy(b.expected_tag, b.tag, sizeof b.tag);
        if (run != 0) b.expected_tag[(5 * run) % 16] ^= static_cast<uint8_t>(1u << (run % 8));
        return;
    }
    if (job.fn == Fn::pkcs7_unpad) {  // the decrypted block: secret filler, then the case's padding
        fill_secret(b.in, 16, job_index, run, 2);
        hwaccel::test::make_unpad_block(hwaccel::test::unpad_case(unpad_case_of(job, run)), b.in);
        return;
    }
    const hwaccel::Sm4Engine& e = engine_of(job);
    fill_secret(b.user_key, sizeof b.user_key, job_index, run, 1);
    fill_secret(b.user_key2, sizeof b.user_key2, job_index, run, 5);
    if (input_is_secret(job.fn)) fill_secret(b.in, sizeof b.in, job_index, run, 2);
    else fill_public(b.in, sizeof b.in, 2);
    fill_secret(b.mac, sizeof b.mac, job_index, run, 4);
    std::memset(b.out, 0, sizeof b.out);
    // Public: the CTR counter (its low 64 bits carry inside the longer calls)
    // or the IV.
    fill_public(b.counter_or_iv, sizeof b.counter_or_iv, 3);
    std::memset(b.counter_or_iv + 8, 0xFF, 7);
    b.counter_or_iv[15] = 0xF0;
    // The bulk functions see the round keys, not the user key: computed here,
    // different in every run.
    if (job.fn != Fn::set_key) e.set_key(&b.key, b.user_key);
    if (job.fn == Fn::xts || job.fn == Fn::mode_xts) {  // the tweak (or IV) and the tweak key secret too
        fill_secret(b.counter_or_iv, sizeof b.counter_or_iv, job_index, run, 3);
        uint8_t tweak_key[16];
        fill_secret(tweak_key, sizeof tweak_key, job_index, run, 4);
        b.xts_key.engine = &e;
        e.set_key(&b.xts_key.data, b.user_key);
        e.set_key(&b.xts_key.tweak, tweak_key);
        return;
    }
    if (job.fn == Fn::mode_gcm_enc || job.fn == Fn::mode_gcm_dec) {  // key (H) set; IV, AAD, text, tag secret
        fill_secret(b.counter_or_iv, sizeof b.counter_or_iv, job_index, run, 3);
        fill_secret(b.expected_tag, sizeof b.expected_tag, job_index, run, 4);
        std::memset(&b.gcm, 0, sizeof b.gcm);
        hwaccel::sm4_gcm_bind(b.gcm, &e, job.gcm_ghash);
        hwaccel::sm4_gcm_set_key(b.gcm, b.user_key);
        return;
    }
    if (!is_mode(job.fn)) return;
    hwaccel::Sm4State& st = b.state;
    std::memset(&st, 0, sizeof st);
    st.engine = &e;
    e.set_key(&st.key, b.user_key);
    std::memcpy(st.iv, b.counter_or_iv, sizeof st.iv);
    // Mid-block: num = 5, and the keystream (CTR) or the register (CFB, OFB)
    // derived from the secret key.
    uint8_t warm_out[kWarmUpBytes];
    if (job.fn == Fn::mode_cfb_enc || job.fn == Fn::mode_cfb_dec)
        hwaccel::sm4_cfb(st, job.fn == Fn::mode_cfb_enc ? hwaccel::Sm4Direction::kEncrypt : hwaccel::Sm4Direction::kDecrypt,
                         warm_out, b.in, kWarmUpBytes);
    else if (job.fn == Fn::mode_ofb)
        hwaccel::sm4_ofb(st, warm_out, b.in, kWarmUpBytes);
    else if (job.fn == Fn::mode_ctr)
        hwaccel::sm4_ctr(st, warm_out, b.in, kWarmUpBytes);
}

#ifdef SM4_CT_TRACE_DELIBERATE_LEAK
volatile uint8_t leak_sink;

// The classic table S-box (the load's address depends on a secret byte), then
// a branch on a secret bit. Out of line so the report names it.
[[gnu::noinline]] void sm4_ct_deliberate_leak(const uint8_t* secret) {
    static const uint8_t table[16] = {0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7,
                                      0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c, 0x05};
    leak_sink = table[secret[0] & 15];
    // An instruction on one side only: GCC cannot turn this into a CMOV.
    if (secret[1] & 1) __asm__ volatile("nop" ::: "memory");
}
#endif

// The traced region: one engine call (and, in the leak variant, the leak).
void run_job(const void* arg) {
    const Job& job = *static_cast<const Job*>(arg);
    Buffers& b = buffers;
    if (job.fn == Fn::pkcs7_unpad) {  // its verdict and length may differ; stored without a branch
        size_t len;
        b.out[0] = hwaccel::pkcs7_unpad(b.in, &len);
        std::memcpy(b.out + 8, &len, sizeof len);
        return;
    }
    if (job.fn == Fn::tag_compare) {  // the verdict differs between runs; stored without a branch
        b.out[0] = hwaccel::constant_time_equal(b.tag, b.expected_tag, sizeof b.tag);
        return;
    }
    if (job.fn == Fn::ghash_set_key) job.ghash->set_key(&b.ghash_key, b.user_key);
    if (job.fn == Fn::ghash_update) job.ghash->update(&b.ghash_key, b.ghash_y, b.in, job.blocks);
    if (job.ghash && !is_gcm(job.fn)) {
#ifdef SM4_CT_TRACE_DELIBERATE_LEAK
        sm4_ct_deliberate_leak(b.user_key);
#endif
        return;
    }
    const hwaccel::Sm4Engine& e = engine_of(job);
    hwaccel::Sm4State& st = b.state;
    const size_t bytes = (16 - kWarmUpBytes) + 16 * job.blocks + job.tail_bytes;
    const uint8_t* stream_in = b.in + kWarmUpBytes;
    switch (job.fn) {
        case Fn::set_key: e.set_key(&b.key, b.user_key); break;
        case Fn::set_key_pair: e.set_key_pair(&b.xts_key.data, b.user_key, &b.xts_key.tweak, b.user_key2); break;
        case Fn::ecb_enc: e.ecb(&b.key, hwaccel::Sm4Direction::kEncrypt, b.out, b.in, job.blocks); break;
        case Fn::ecb_dec: e.ecb(&b.key, hwaccel::Sm4Direction::kDecrypt, b.out, b.in, job.blocks); break;
        case Fn::encrypt_block: e.encrypt_block(&b.key, b.out, b.in); break;
        case Fn::ctr: e.ctr(&b.key, b.out, b.in, job.blocks, b.counter_or_iv); break;
        case Fn::ctr_with_first: e.ctr_with_first(&b.key, b.mac, b.out, b.in, job.blocks, b.counter_or_iv); break;
        case Fn::cbc_decrypt: e.cbc_decrypt(&b.key, b.out, b.in, job.blocks, b.counter_or_iv); break;
        case Fn::cfb_decrypt: e.cfb_decrypt(&b.key, b.out, b.in, job.blocks, b.counter_or_iv); break;
        case Fn::cbc_encrypt: e.cbc_encrypt(&b.key, b.out, b.in, job.blocks, b.counter_or_iv); break;
        case Fn::cfb_encrypt: e.cfb_encrypt(&b.key, b.out, b.in, job.blocks, b.counter_or_iv); break;
        case Fn::ofb: e.ofb(&b.key, b.out, b.in, job.blocks, b.counter_or_iv); break;
        case Fn::ccm_enc:
            hwaccel::sm4_ccm_blocks(e, &b.key, hwaccel::Sm4Direction::kEncrypt, b.out, b.in, job.blocks,
                                    b.counter_or_iv, b.mac);
            break;
        case Fn::ccm_dec:
            hwaccel::sm4_ccm_blocks(e, &b.key, hwaccel::Sm4Direction::kDecrypt, b.out, b.in, job.blocks,
                                    b.counter_or_iv, b.mac);
            break;
        case Fn::mode_cbc_enc: hwaccel::sm4_cbc(st, hwaccel::Sm4Direction::kEncrypt, b.out, b.in, job.blocks); break;
        case Fn::mode_cbc_dec: hwaccel::sm4_cbc(st, hwaccel::Sm4Direction::kDecrypt, b.out, b.in, job.blocks); break;
        case Fn::mode_cfb_enc: hwaccel::sm4_cfb(st, hwaccel::Sm4Direction::kEncrypt, b.out, stream_in, bytes); break;
        case Fn::mode_cfb_dec: hwaccel::sm4_cfb(st, hwaccel::Sm4Direction::kDecrypt, b.out, stream_in, bytes); break;
        case Fn::mode_ofb: hwaccel::sm4_ofb(st, b.out, stream_in, bytes); break;
        case Fn::mode_ctr: hwaccel::sm4_ctr(st, b.out, stream_in, bytes); break;
        case Fn::xts: {
            const auto dir = job.xts_variant & 2 ? hwaccel::Sm4Direction::kDecrypt : hwaccel::Sm4Direction::kEncrypt;
            const auto standard = job.xts_variant & 1 ? hwaccel::XtsStandard::kIeee : hwaccel::XtsStandard::kGb;
            e.xts(&b.key, dir, standard, b.out, b.in, job.blocks, b.counter_or_iv);
            break;
        }
        case Fn::mode_xts: {  // with a stolen tail of job.tail_bytes
            const auto dir = job.xts_variant & 2 ? hwaccel::Sm4Direction::kDecrypt : hwaccel::Sm4Direction::kEncrypt;
            const auto standard = job.xts_variant & 1 ? hwaccel::XtsStandard::kIeee : hwaccel::XtsStandard::kGb;
            hwaccel::sm4_xts(b.xts_key, standard, dir, b.counter_or_iv, b.out, b.in, 16 * job.blocks + job.tail_bytes);
            break;
        }
        case Fn::mode_gcm_enc:
        case Fn::mode_gcm_dec: {
            // J0 through GHASH (17-byte IV) when encrypting, IV || 1 when
            // decrypting; AAD across a block; text from mid-block through n
            // blocks and a few bytes; the tag, and decryption's verdict.
            const bool enc = job.fn == Fn::mode_gcm_enc;
            hwaccel::Sm4GcmState& g = b.gcm;
            hwaccel::sm4_gcm_set_iv(g, b.counter_or_iv, enc ? 17 : 12);
            bool ok = hwaccel::sm4_gcm_aad(g, b.in + 300, kWarmUpBytes) && hwaccel::sm4_gcm_aad(g, b.in + 305, 20);
            auto crypt = enc ? hwaccel::sm4_gcm_encrypt : hwaccel::sm4_gcm_decrypt;
            ok &= crypt(g, b.out, b.in, kWarmUpBytes);
            ok &= crypt(g, b.out + kWarmUpBytes, stream_in, bytes);
            hwaccel::sm4_gcm_tag(g, b.tag);
            if (!enc) ok &= hwaccel::constant_time_equal(b.tag, b.expected_tag, sizeof b.tag);
            b.out[1500] = ok;
            break;
        }
        case Fn::pkcs7_unpad: case Fn::tag_compare: break;  // above
        case Fn::ghash_set_key: case Fn::ghash_update: break;  // above
    }
#ifdef SM4_CT_TRACE_DELIBERATE_LEAK
    sm4_ct_deliberate_leak(b.user_key);
#endif
}

void call_between_markers(const Job& job) {
    sm4_ct_traced_call(run_job, &job, buffers.stack + sizeof buffers.stack);
}

// --- which GPRs an instruction's addresses and latency depend on -----------------

// GPR numbers as the encoding has them: 0 rax, 1 rcx, 2 rdx, 3 rbx, 4 rsp,
// 5 rbp, 6 rsi, 7 rdi, 8-15 r8-r15.
constexpr int kRax = 0, kRcx = 1, kRdx = 2, kRbx = 3, kRsp = 4, kRbp = 5, kRsi = 6, kRdi = 7;
const char* const kGprNames[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                   "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
constexpr uint32_t bit(int r) { return 1u << r; }

struct Operands {
    uint32_t regs = 0;                      // GPRs that must not depend on the secret
    const char* role = "memory address";    // what they do, for the report
    const char* unsupported = nullptr;      // an access this check cannot judge
};

// One-byte opcodes with a ModRM byte (64-bit mode; 0F, VEX and EVEX handled
// apart).
bool map0_has_modrm(uint8_t op) {
    if (op < 0x40) return (op & 7) < 4;  // the ALU r/m forms 00-03, 08-0B, ..., 38-3B
    switch (op) {
        case 0x63: case 0x69: case 0x6B: case 0xC0: case 0xC1: case 0xC6: case 0xC7:
        case 0xF6: case 0xF7: case 0xFE: case 0xFF:
            return true;
    }
    return (op >= 0x80 && op <= 0x8F) || (op >= 0xD0 && op <= 0xD3) || (op >= 0xD8 && op <= 0xDF);
}
// 0F xx opcodes without one: system instructions, Jcc rel32, BSWAP, ...
bool map1_has_modrm(uint8_t op) {
    if ((op >= 0x80 && op <= 0x8F) || (op >= 0xC8 && op <= 0xCF) || (op >= 0x30 && op <= 0x37)) return false;
    switch (op) {
        case 0x05: case 0x06: case 0x07: case 0x08: case 0x09: case 0x0B: case 0x0E: case 0x77:
        case 0xA0: case 0xA1: case 0xA2: case 0xA8: case 0xA9: case 0xAA:
            return false;
    }
    return true;
}

// Decodes as much of the instruction at p as the check needs: prefixes, the
// opcode and the ModRM/SIB address registers. RIP-relative and absolute
// addresses need no register; LEA and the hint NOPs compute an address but
// do not access it.
Operands decode(const uint8_t* p) {
    Operands o;
    bool rep = false;
    for (;; ++p) {
        const uint8_t b = *p;
        if (b == 0xF2 || b == 0xF3) rep = true;
        else if (b != 0xF0 && b != 0x2E && b != 0x36 && b != 0x3E && b != 0x26 && b != 0x64 &&
                 b != 0x65 && b != 0x66 && b != 0x67)
            break;
    }
    uint8_t rex = 0;
    if ((*p & 0xF0) == 0x40) rex = *p++;
    bool rex_x = rex & 2, rex_b = rex & 1;
    const bool rex_r = rex & 4;
    bool vex = false;  // VEX or EVEX
    int map;
    uint8_t op;
    if (*p == 0xC5) {  // two-byte VEX (C4, C5 and 62 are never LES, LDS, BOUND in 64-bit mode)
        vex = true, map = 1, rex_x = rex_b = false, op = p[2], p += 3;
    } else if (*p == 0xC4) {
        vex = true, map = p[1] & 0x1F, rex_x = !(p[1] & 0x40), rex_b = !(p[1] & 0x20), op = p[3], p += 4;
    } else if (*p == 0x62) {  // EVEX
        vex = true, map = p[1] & 0x07, rex_x = !(p[1] & 0x40), rex_b = !(p[1] & 0x20), op = p[4], p += 5;
    } else if (*p == 0x0F) {
        if (p[1] == 0x38) map = 2, op = p[2], p += 3;
        else if (p[1] == 0x3A) map = 3, op = p[2], p += 3;
        else map = 1, op = p[1], p += 2;
    } else {
        map = 0, op = *p++;
    }

    if (map == 0 && op == 0x8F && (*p & 0x38) != 0) {
        o.unsupported = "an XOP instruction";
        return o;
    }
    if (vex && map == 2) {
        if ((op >= 0x90 && op <= 0x93) || (op >= 0xA0 && op <= 0xA3) || op == 0xC6 || op == 0xC7) {
            o.unsupported = "a gather or scatter (its addresses come from a vector register)";
            return o;
        }
        if ((op >= 0x2C && op <= 0x2F) || op == 0x8C || op == 0x8E) {
            o.unsupported = "a masked vector load or store (its mask is a vector register)";
            return o;
        }
    }
    if (map == 1 && op == 0xF7) {
        o.unsupported = "MASKMOVDQU (its mask is a vector register)";
        return o;
    }

    // Implicit operands.
    if (map == 0) {
        // String instructions: MOVS and CMPS address [rsi] and [rdi], STOS
        // and SCAS [rdi], LODS [rsi]; with a REP prefix rcx is the count.
        if ((op >= 0xA4 && op <= 0xA7) || (op >= 0xAA && op <= 0xAF)) {
            const bool rsi = op <= 0xA7 || op == 0xAC || op == 0xAD;
            const bool rdi = op <= 0xA7 || op == 0xAA || op == 0xAB || op >= 0xAE;
            o.regs = (rsi ? bit(kRsi) : 0) | (rdi ? bit(kRdi) : 0) | (rep ? bit(kRcx) : 0);
            o.role = "string instruction pointer or count";
            return o;
        }
        if (op == 0xD7) {  // XLAT: [rbx + al]
            o.regs = bit(kRbx) | bit(kRax);
            return o;
        }
        if (op == 0xC9) {  // LEAVE reads [rbp]
            o.regs = bit(kRbp);
            return o;
        }
    }

    const bool has_modrm = map == 0 ? map0_has_modrm(op) : map == 1 ? vex || map1_has_modrm(op) : true;
    if (!has_modrm || (vex && map == 1 && op == 0x77)) return o;  // VZEROUPPER/VZEROALL
    const uint8_t modrm = *p;
    const int mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;

    if (map == 0 && (op == 0xF6 || op == 0xF7) && reg >= 6) {
        if (mod != 3) {
            o.unsupported = "DIV/IDIV on a memory operand (its value, which sets the latency, is not in a register)";
            return o;
        }
        o.regs = bit(kRax) | bit(kRdx) | bit(rm | (rex_b ? 8 : 0));
        o.role = "DIV/IDIV operand (its latency depends on the value)";
        return o;
    }
    if (mod == 3) return o;                                     // register operand
    if (map == 0 && op == 0x8D) return o;                       // LEA
    if (map == 1 && op >= 0x19 && op <= 0x1F) return o;         // hint NOPs
    if (rm == 4) {
        const uint8_t sib = p[1];
        const int index = ((sib >> 3) & 7) | (rex_x ? 8 : 0);
        if (index != kRsp) o.regs |= bit(index);                 // 4 without REX.X: no index
        if (!((sib & 7) == 5 && mod == 0)) o.regs |= bit((sib & 7) | (rex_b ? 8 : 0));
    } else if (!(rm == 5 && mod == 0)) {                        // else RIP-relative
        o.regs |= bit(rm | (rex_b ? 8 : 0));
    }
    // BT, BTS, BTR, BTC with a register bit offset address memory beyond the
    // operand.
    if (map == 1 && (op == 0xA3 || op == 0xAB || op == 0xB3 || op == 0xBB)) {
        o.regs |= bit(reg | (rex_r ? 8 : 0));
        o.role = "memory address (with the bit offset of BT/BTS/BTR/BTC)";
    }
    return o;
}

// --- naming code addresses ---------------------------------------------------------

// "function+0xoff in file" from the ELF symbol table of the file the address
// belongs to: dladdr sees only exported symbols, and the engines' are hidden.
struct Symbol {
    uint64_t start, size;
    std::string name;
};
const std::vector<Symbol>& symbols_of(const std::string& file) {
    static std::map<std::string, std::vector<Symbol>> cache;
    auto it = cache.find(file);
    if (it != cache.end()) return it->second;
    std::vector<Symbol>& syms = cache[file];
    const int fd = open(file.c_str(), O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(Elf64_Ehdr))) {
        if (fd >= 0) close(fd);
        return syms;
    }
    void* map = mmap(nullptr, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return syms;
    const auto* base = static_cast<const uint8_t*>(map);
    const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base);
    const auto* sh = reinterpret_cast<const Elf64_Shdr*>(base + eh->e_shoff);
    // .symtab when the file has one, else .dynsym (stripped libraries).
    for (uint32_t want : {uint32_t{SHT_SYMTAB}, uint32_t{SHT_DYNSYM}}) {
        for (int i = 0; i < eh->e_shnum; ++i) {
            if (sh[i].sh_type != want) continue;
            const auto* sym = reinterpret_cast<const Elf64_Sym*>(base + sh[i].sh_offset);
            const char* str = reinterpret_cast<const char*>(base + sh[sh[i].sh_link].sh_offset);
            for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); ++k)
                if (ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC && sym[k].st_value != 0)
                    syms.push_back({sym[k].st_value, sym[k].st_size, str + sym[k].st_name});
        }
        if (!syms.empty()) break;
    }
    munmap(map, st.st_size);
    return syms;
}

std::string hex(uint64_t v) {
    char s[24];
    std::snprintf(s, sizeof s, "0x%llx", static_cast<unsigned long long>(v));
    return s;
}

std::string symbolize(uint64_t addr) {
    Dl_info info;
    if (!dladdr(reinterpret_cast<void*>(addr), &info) || !info.dli_fbase) return hex(addr);
    const std::string file = info.dli_fname && *info.dli_fname ? info.dli_fname : "/proc/self/exe";
    const uint64_t off = addr - reinterpret_cast<uint64_t>(info.dli_fbase);
    const std::string where = file.substr(file.rfind('/') + 1);
    for (const Symbol& s : symbols_of(file)) {
        if (off < s.start || off >= s.start + (s.size ? s.size : 1)) continue;
        int status = 0;
        char* d = abi::__cxa_demangle(s.name.c_str(), nullptr, nullptr, &status);
        std::string name = status == 0 && d ? d : s.name;
        std::free(d);
        if (name.size() > 110) name = name.substr(0, 107) + "...";
        return hex(addr) + " (" + name + "+" + hex(off - s.start) + " in " + where + ")";
    }
    return hex(addr) + " (" + where + "+" + hex(off) + ")";
}

// --- recording a run -----------------------------------------------------------------

struct Skip {
    std::string why;
};

// The registers before one instruction.
struct Step {
    uint64_t rip, eflags, gpr[16];
};
Step step_of(const user_regs_struct& r) {
    return {r.rip, r.eflags,
            {r.rax, r.rcx, r.rdx, r.rbx, r.rsp, r.rbp, r.rsi, r.rdi,
             r.r8, r.r9, r.r10, r.r11, r.r12, r.r13, r.r14, r.r15}};
}

struct Trace {
    std::vector<Step> steps;  // from the start marker to the end marker
    std::string error;        // the run itself went wrong
    std::string skip;         // ptrace is not permitted
};

std::string describe_status(int status) {
    if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return std::string("was killed by ") + strsignal(WTERMSIG(status));
    if (WIFSTOPPED(status)) return std::string("stopped on ") + strsignal(WSTOPSIG(status));
    return "status " + std::to_string(status);
}

// ptrace itself refused (seccomp, a container policy, another tracer):
// the check cannot run (see unavailable()). Anything else is a failure of
// the run.
void ptrace_or_throw(__ptrace_request request, pid_t pid, void* data, const char* what) {
    if (ptrace(request, pid, nullptr, data) == 0) return;
    if (errno == EPERM || errno == ENOSYS || errno == EACCES)
        throw Skip{std::string(what) + ": " + std::strerror(errno)};
    throw std::string(what) + ": " + std::strerror(errno);
}

// Waits for the SIGTRAP stop that a marker or a single step produces.
void wait_trap(pid_t pid) {
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) throw std::string("waitpid: ") + std::strerror(errno);
    if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP) return;
    if (WIFEXITED(status) && WEXITSTATUS(status) == kChildCannotTrace)
        throw Skip{"PTRACE_TRACEME was refused"};
    throw "the traced child " + describe_status(status);
}

pid_t spawn(const Job& job, size_t job_index, int run) {
    const pid_t pid = fork();
    if (pid < 0) throw std::string("fork: ") + std::strerror(errno);
    if (pid == 0) {
        // Forked from a threaded process: only async-signal-safe calls here,
        // no stdio.
        if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) _exit(kChildCannotTrace);
        prepare(job, job_index, run);
        call_between_markers(job);
        _exit(0);
    }
    return pid;
}

// Runs the job as run `run` in a child and records its registers at every
// step from the start marker to the end marker.
void record(const Job& job, size_t job_index, int run, Trace& t) {
    t.steps.clear();
    t.error.clear();
    t.skip.clear();
    pid_t pid = -1;
    try {
        pid = spawn(job, job_index, run);
        wait_trap(pid);  // the start marker
        // The child dies with the tracer, whatever happens to it.
        ptrace_or_throw(PTRACE_SETOPTIONS, pid, reinterpret_cast<void*>(PTRACE_O_EXITKILL), "PTRACE_SETOPTIONS");
        const uint64_t begin = reinterpret_cast<uint64_t>(sm4_ct_trace_begin);
        const uint64_t end = reinterpret_cast<uint64_t>(sm4_ct_trace_end);
        for (;;) {
            user_regs_struct r;
            ptrace_or_throw(PTRACE_GETREGS, pid, &r, "PTRACE_GETREGS");
            if (t.steps.empty() && r.rip != begin) throw std::string("the child did not stop at the start marker");
            t.steps.push_back(step_of(r));
            if (r.rip == end) break;
            if (t.steps.size() > kMaxSteps)
                throw "no end marker after " + std::to_string(kMaxSteps) + " steps";
            ptrace_or_throw(PTRACE_SINGLESTEP, pid, nullptr, "PTRACE_SINGLESTEP");
            wait_trap(pid);
        }
    } catch (const Skip& s) {
        t.skip = s.why;
    } catch (const std::string& e) {
        t.error = "run " + std::to_string(run) + ": " + e;
    }
    if (pid > 0) kill(pid, SIGKILL), waitpid(pid, nullptr, 0);
}

// --- comparing two runs -------------------------------------------------------------

struct Result {
    uint64_t steps = 0;       // instructions compared
    uint64_t data_steps = 0;  // of which with a GPR or RFLAGS differing (secret data)
    std::string address_leak, flow_leak, error;
    bool failed() const { return !address_leak.empty() || !flow_leak.empty() || !error.empty(); }
};

std::string regs_differing(const Step& a, const Step& b, uint32_t mask) {
    std::string s;
    for (int r = 0; r < 16; ++r)
        if (mask & bit(r))
            s += std::string(s.empty() ? "" : ", ") + kGprNames[r] + " " + hex(a.gpr[r]) + " vs " + hex(b.gpr[r]);
    return s;
}

Result compare(const Trace& a, const Trace& b) {
    Result res;
    const uint64_t end = reinterpret_cast<uint64_t>(sm4_ct_trace_end);
    const size_t n = a.steps.size() < b.steps.size() ? a.steps.size() : b.steps.size();
    for (size_t i = 0; i < n; ++i) {
        const Step& x = a.steps[i];
        const Step& y = b.steps[i];
        if (x.rip != y.rip) {
            res.flow_leak = "control flow depends on the secret after step " + std::to_string(i) +
                            ": the instruction at " + symbolize(a.steps[i ? i - 1 : 0].rip) + " went on to " +
                            hex(x.rip) + " in one run and " + hex(y.rip) + " in the other";
            return res;
        }
        if (x.rip == end) break;
        res.steps = i + 1;
        // The children ran the parent's code at the parent's addresses (fork),
        // so the instruction is read from the parent's own copy.
        const Operands ops = decode(reinterpret_cast<const uint8_t*>(x.rip));
        if (ops.unsupported) {
            res.error = "step " + std::to_string(i) + " at " + symbolize(x.rip) + " is " + ops.unsupported +
                        ", which this check cannot judge";
            return res;
        }
        uint32_t differ = 0;
        for (int g = 0; g < 16; ++g)
            if (x.gpr[g] != y.gpr[g]) differ |= bit(g);
        if (differ || x.eflags != y.eflags) ++res.data_steps;
        // The stack pointer addresses every push, pop, call and local.
        const uint32_t leaked = differ & (ops.regs | bit(kRsp));
        if (leaked && res.address_leak.empty()) {
            const char* role = (leaked & ops.regs) ? ops.role : "stack pointer";
            res.address_leak = std::string(role) + " depends on the secret at step " + std::to_string(i) + ", " +
                               symbolize(x.rip) + ": " + regs_differing(x, y, leaked);
        }
    }
    return res;
}

uint64_t recorded_steps = 0;  // over every run: what the time goes on (~20 us a step)

const char* secret_of_run(int run) {
    return run == 0 ? "x" : run == 1 ? "its complement" : "another random secret";
}

// Which two runs a failure is between, for the report.
std::string pair_of_runs(const Job& job, int run) {
    if (job.fn != Fn::pkcs7_unpad) return std::string(" (x against ") + secret_of_run(run) + ")";
    auto describe = [&](int r) {
        const hwaccel::test::UnpadCase c = hwaccel::test::unpad_case(unpad_case_of(job, r));
        return "pad byte " + std::to_string(c.pad) +
               (c.wrong_at >= 0 ? " with byte " + std::to_string(c.wrong_at) + " a bit off" : "");
    };
    return " (block with " + describe(0) + " against " + describe(run) + ")";
}

// Every run of a job, two at a time (one tracer thread each: the machine's
// two cores step two children in parallel), then each compared with run 0.
Result trace(const Job& job, size_t job_index, std::vector<Trace>& traces) {
    traces.resize(job.runs);
    std::thread other([&] {
        for (int run = 1; run < job.runs; run += 2) record(job, job_index, run, traces[run]);
    });
    for (int run = 0; run < job.runs; run += 2) record(job, job_index, run, traces[run]);
    other.join();
    for (const Trace& t : traces) {
        if (!t.skip.empty()) throw Skip{t.skip};
        recorded_steps += t.steps.size();
    }
    Result res;
    for (const Trace& t : traces)
        if (!t.error.empty()) res.error += (res.error.empty() ? "" : "; ") + t.error;
    if (!res.error.empty()) return res;
    for (int run = 1; run < job.runs; ++run) {
        Result r = compare(traces[0], traces[run]);
        const std::string pair = pair_of_runs(job, run);
        for (std::string* m : {&r.address_leak, &r.flow_leak, &r.error})
            if (!m->empty()) *m += pair;
        if (r.failed()) return r;
        res.steps = r.steps;
        if (r.data_steps > res.data_steps) res.data_steps = r.data_steps;
    }
    return res;
}

// --- the two modes -------------------------------------------------------------------

bool contains(const std::vector<size_t>& v, size_t n) {
    for (size_t x : v)
        if (x == n) return true;
    return false;
}

std::vector<Job> jobs_for(const hwaccel::Sm4Engine& e) {
    // The portable engine closes every engine list.
    const hwaccel::Sm4Engine* portable = *(hwaccel::sm4_engines().end() - 1);
    const bool is_portable = &e == portable;
    const std::vector<size_t>& counts = is_portable ? kPortableCounts : kX86Counts;
    const std::vector<size_t>& extra = is_portable ? kPortableExtraCounts : kX86ExtraCounts;
    std::vector<Job> jobs;
    auto add = [&](Fn f, size_t n, bool more_secrets, bool bare = false) {
        jobs.push_back({&e, f, n, more_secrets && kFullCheck ? kMaxRuns : 2, bare, 3});
    };
    for (Fn f : kFns) {
        if (!present(e, f)) continue;
        if (!takes_count(f)) add(f, 1, true);
        else if (is_serial(f))
            for (size_t n : kSerialCounts) add(f, n, contains(kSerialExtraCounts, n));
        else {
            for (size_t n : counts) add(f, n, contains(extra, n) && (!is_portable || f == Fn::ecb_enc));
            if (std::strcmp(e.name, "gfni-avx512") == 0)
                for (size_t n : kGfniAvx512Counts) add(f, n, false);
        }
        if (is_portable && f == Fn::ecb_enc && kPortableBitsliced) add(f, kPortableBitsliced, false);
    }
    // The provider's mode code over the bare engines, which takes every
    // fallback and serial loop (over an engine with fused modes it only
    // dispatches to them, traced above): CBC over two blocks, the stream
    // modes over the rest of a block, one whole block and 3 bytes of the
    // next. Over the x86 engines with every secret; over the portable one
    // (~9000 steps a block) with x and ~x and without the 3 bytes: the serial
    // loops and fallbacks there are the ones the portable engine uses as it is.
    for (Fn f : kFullCheck ? kModeFns : kNoFns) {
        const size_t n = is_stream_mode(f) ? 1 : is_portable ? 1 : 2;
        add(f, n, !is_portable, true);
        if (is_portable) jobs.back().tail_bytes = 0;
    }
    // The fused XTS member: both standards and both directions at one block;
    // at every count GB encryption and IEEE decryption (the direction only
    // picks the round keys: the same instructions either way).
    for (int variant = 0; variant < 4; ++variant)
        for (size_t n : present(e, Fn::xts) ? kXtsCounts : std::vector<size_t>{}) {
            if (n != 1 && variant != 0 && variant != 3) continue;
            add(Fn::xts, n, contains(kX86ExtraCounts, n));
            jobs.back().xts_variant = variant;
        }
    if (!kFullCheck) return jobs;
    // The provider's XTS with a 5-byte stolen tail: bare, a one-block unit
    // (no tail), the serial tweak chain (2 blocks) and the 8 lanes over ECB
    // (9); as it is, the fused member (9). Both standards and directions at 2
    // blocks, GB encryption and IEEE decryption at the others. The portable
    // engine (~9000 steps a block): bare at one block and a tail, GB
    // encryption only (its IEEE and decryption paths are the same mode code
    // as over the bare x86 engines).
    struct XtsJob {
        size_t blocks, tail;
        bool bare;
    };
    const std::vector<XtsJob> xts_jobs =
        is_portable ? std::vector<XtsJob>{{1, 5, true}}
                    : std::vector<XtsJob>{{1, 0, true}, {2, 5, true}, {9, 5, true}, {9, 5, false}};
    for (bool bare : {true, false})
        for (int variant = 0; variant < 4; ++variant)
            for (const XtsJob& x : xts_jobs) {
                if (x.bare != bare || (is_portable && variant != 0)) continue;
                if (x.blocks != 2 && variant != 0 && variant != 3) continue;
                if (!x.bare && !present(e, Fn::xts)) continue;
                add(Fn::mode_xts, x.blocks, false, x.bare);
                jobs.back().xts_variant = variant;
                jobs.back().tail_bytes = x.tail;
            }
    // The provider's GCM over this engine (as it is: its ctr; bare: the
    // mode's own CTR fallback) and the GHASH engine chosen first.
    for (Fn f : {Fn::mode_gcm_enc, Fn::mode_gcm_dec})
        for (const GcmCount& c : is_portable ? kGcmPortable : kGcmX86) {
            add(f, c.blocks, false, c.bare);
            jobs.back().gcm_ghash = first_ghash();
        }
    return jobs;
}

std::vector<const hwaccel::GhashEngine*> ghash_checked;  // set by main
void add_ghash_jobs(std::vector<Job>& jobs, const std::vector<const hwaccel::GhashEngine*>& engines);

std::vector<Job> all_jobs(const std::vector<const hwaccel::Sm4Engine*>& engines) {
    std::vector<Job> jobs;
    for (const hwaccel::Sm4Engine* e : engines)
        for (const Job& j : jobs_for(*e)) jobs.push_back(j);
    // The tag comparison, engine-free: equal in run 0, unequal after.
    if (kFullCheck) jobs.push_back({nullptr, Fn::tag_compare, 1, kMaxRuns});
    // PKCS#7 unpad, engine-free: every case, kMaxRuns - 1 to a job after its
    // valid run 0 (~300 steps a run).
    const int per_job = kMaxRuns - 1;
    for (int first = 0; kFullCheck && first < hwaccel::test::kUnpadCases; first += per_job) {
        const int runs = 1 + std::min(per_job, hwaccel::test::kUnpadCases - first);
        jobs.push_back({nullptr, Fn::pkcs7_unpad, static_cast<size_t>(first), runs});
    }
    add_ghash_jobs(jobs, ghash_checked);
    return jobs;
}

// The GHASH jobs: set_key, then update at each count, with kExtraSecrets
// more random secrets at one block, and for the portable set_key (the CLMUL
// engines' set_key is straight-line code of ~1000 steps).
void add_ghash_jobs(std::vector<Job>& jobs, const std::vector<const hwaccel::GhashEngine*>& engines) {
    const hwaccel::Sm4Engine* sm4_first = nullptr;
    for (const hwaccel::Sm4Engine* s : hwaccel::sm4_engines())
        if (!sm4_first && s->available(hwaccel::cpu_features())) sm4_first = s;
    const hwaccel::GhashEngine* portable = *(hwaccel::ghash_engines().end() - 1);
    for (const hwaccel::GhashEngine* e : engines) {
        const int more = kFullCheck ? kMaxRuns : 2;
        jobs.push_back({nullptr, Fn::ghash_set_key, 1, e == portable ? more : 2, false, 0, e});
        for (size_t n : e == portable ? kGhashPortableCounts : kGhashClmulCounts)
            jobs.push_back({nullptr, Fn::ghash_update, n, n == 1 ? more : 2, false, 0, e});
        // SM4-GCM over this GHASH engine and the first SM4 engine (over the
        // first GHASH engine, GCM runs with every SM4 engine's jobs).
        if (!kFullCheck || e == first_ghash() || sm4_first == nullptr) continue;
        for (Fn f : {Fn::mode_gcm_enc, Fn::mode_gcm_dec}) {
            jobs.push_back({sm4_first, f, 2, 2, false, 3, e});
            jobs.back().gcm_ghash = e;
        }
    }
}

// The GHASH engines named on the command line (all if none) that this CPU runs.
std::vector<const hwaccel::GhashEngine*> ghash_engines_to_check(const std::vector<std::string>& names) {
    std::vector<const hwaccel::GhashEngine*> engines;
    for (const hwaccel::GhashEngine* e : hwaccel::ghash_engines()) {
        bool named = names.empty();
        for (const std::string& n : names) named |= n == e->name || "ghash:" + std::string(e->name) == n;
        if (!named) continue;
        if (e->available(hwaccel::cpu_features())) engines.push_back(e);
        else std::printf("ghash engine %s: not supported by this CPU, not checked\n", e->name);
    }
    return engines;
}

// Those named on the command line (all if none) that this CPU can run.
std::vector<const hwaccel::Sm4Engine*> engines_to_check(const std::vector<std::string>& names) {
    std::vector<const hwaccel::Sm4Engine*> engines;
    for (const hwaccel::Sm4Engine* e : hwaccel::sm4_engines()) {
        bool named = names.empty();
        for (const std::string& n : names) named |= n == e->name;
        if (!named) continue;
        if (e->available(hwaccel::cpu_features())) engines.push_back(e);
        else std::printf("sm4 engine %s: not supported by this CPU, not checked\n", e->name);
    }
    return engines;
}

// Without a tracer an int3 would kill the process; this handler makes the
// markers no-ops.
void ignore_trap(int) {}

int run_native(const std::vector<const hwaccel::Sm4Engine*>& engines) {
    signal(SIGTRAP, ignore_trap);
    size_t calls = 0;
    const std::vector<Job> jobs = all_jobs(engines);
    for (size_t i = 0; i < jobs.size(); ++i)
        for (int run = 0; run < jobs[i].runs; ++run) {
            prepare(jobs[i], i, run);
            call_between_markers(jobs[i]);
            ++calls;
        }
    std::printf("%zu calls ran natively, untraced\n", calls);
    return 0;
}

int run_traced(const std::vector<const hwaccel::Sm4Engine*>& engines) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<Job> jobs = all_jobs(engines);  // at fixed addresses while traced
    std::printf("secrets: x random (HWACCEL_CT_SEED=0x%016llx), its complement, and at one block count\n"
                "per code path %d more random ones; every run compared with x's\n",
                static_cast<unsigned long long>(run_seed), kExtraSecrets);
    // Warm-up: lazy PLT binding and any first-use work happen here, once,
    // rather than in every traced call (they would be identical in every run
    // anyway; this only saves steps). The markers are no-ops meanwhile.
    signal(SIGTRAP, ignore_trap);
    for (size_t i = 0; i < jobs.size(); ++i) {
        prepare(jobs[i], i, 0);
        call_between_markers(jobs[i]);
    }
    signal(SIGTRAP, SIG_DFL);
    std::fflush(stdout);

    std::vector<Trace> traces;
    int failed = 0;
    uint64_t total_steps = 0;
    // Jobs are grouped by engine: an SM4 engine, a GHASH engine, or neither (unpad).
    auto owner = [](const Job& j) { return j.ghash ? static_cast<const void*>(j.ghash) : j.engine; };
    for (size_t i = 0; i < jobs.size();) {
        const hwaccel::Sm4Engine* e = jobs[i].engine;
        const hwaccel::GhashEngine* g = jobs[i].ghash;
        const void* group = owner(jobs[i]);
        const char* name = g ? g->name : e ? e->name : "provider";
        uint64_t engine_steps = 0;
        int engine_failed = 0;
        while (i < jobs.size() && owner(jobs[i]) == group) {
            // One line per function: its calls over all block counts.
            const Fn f = jobs[i].fn;
            const bool bare = jobs[i].bare;
            uint64_t steps = 0, data_steps = 0;
            int calls = 0, bad = 0, secrets = 0;
            const int variant = jobs[i].xts_variant;
            const hwaccel::GhashEngine* over = jobs[i].gcm_ghash;
            // GCM: the other engine of the pair (in a GHASH group, the SM4 one).
            const char* partner = over ? (jobs[i].ghash ? jobs[i].engine->name : over->name) : nullptr;
            for (; i < jobs.size() && owner(jobs[i]) == group && jobs[i].fn == f && jobs[i].bare == bare &&
                   jobs[i].xts_variant == variant && jobs[i].gcm_ghash == over;
                 ++i) {
                const Job& job = jobs[i];
                const Result r = trace(job, i, traces);
                steps += r.steps;
                data_steps += r.data_steps;
                secrets += job.runs;
                ++calls;
                if (!r.failed()) continue;
                // Details for the first failing call of a function; later ones
                // only count.
                if (bad++ == 0) {
                    const std::string call = std::string(name) + (bare ? " bare" : "") + " " + fn_name(f) +
                                             (f == Fn::xts || f == Fn::mode_xts ? " variant " + std::to_string(variant) : "") +
                                             (partner ? std::string(" +") + partner : "") +
                                             (takes_count(f) ? ", " + std::to_string(job.blocks) + " blocks" : "");
                    for (const std::string* m : {&r.address_leak, &r.flow_leak, &r.error})
                        if (!m->empty()) std::printf("FAIL %s: %s\n", call.c_str(), m->c_str());
                }
            }
            std::string how;
            if (bad) how = std::to_string(bad) + " of " + std::to_string(calls) + " calls FAILED";
            else if (data_steps == 0) how = "GPRs and RFLAGS identical at every step";
            else
                how = "secret data in GPRs/RFLAGS at " + std::to_string(data_steps) +
                      " steps, never in an address, a branch or a DIV";
            std::string label = std::string(bare ? "bare " : "") + fn_name(f);
            if (f == Fn::xts || f == Fn::mode_xts)
                label += std::string(variant & 1 ? " IEEE" : " GB") + (variant & 2 ? " dec" : " enc");
            if (partner) label += std::string(" +") + partner;
            std::printf("  %-10s %-30s %2d call(s) %2d secrets %7llu steps: %s\n", name, label.c_str(), calls,
                        secrets, static_cast<unsigned long long>(steps), how.c_str());
            std::fflush(stdout);
            engine_steps += steps;
            engine_failed += bad;
        }
        std::printf("%s%s: %s, %llu steps compared\n", g ? "ghash engine " : e ? "sm4 engine " : "PKCS#7 unpad and tag comparison in the ", name,
                    engine_failed ? "FAILED" : "no secret-dependent branch or address",
                    static_cast<unsigned long long>(engine_steps));
#ifndef SM4_CT_TRACE_DELIBERATE_LEAK
        if (group && !engine_failed) hwaccel::test::record_engine(g ? "ghash" : "sm4", name, "ct-trace");  // the engine manifest
#endif
        total_steps += engine_steps;
        failed += engine_failed;
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%zu engine(s), %llu steps compared, %llu recorded in %.1f s, %d failing call(s)\n",
                engines.size() + ghash_checked.size(), static_cast<unsigned long long>(total_steps),
                static_cast<unsigned long long>(recorded_steps), secs, failed);
    return failed || (engines.empty() && ghash_checked.empty()) ? 1 : 0;
}

// The seed of every secret: HWACCEL_CT_SEED (hex or decimal) reproduces a
// run; otherwise a fresh one.
uint64_t choose_seed() {
    if (const char* s = std::getenv("HWACCEL_CT_SEED"); s && *s) return std::strtoull(s, nullptr, 0);
    uint64_t seed = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    if (FILE* f = std::fopen("/dev/urandom", "rb")) {
        if (std::fread(&seed, sizeof seed, 1, f) != 1) seed ^= static_cast<uint64_t>(getpid());
        std::fclose(f);
    }
    return seed;
}

// A missing tool makes the check fail, unless HWACCEL_ALLOW_CT_SKIP=1 says
// a skip is acceptable here.
int unavailable(const std::string& why) {
    const char* allow = std::getenv("HWACCEL_ALLOW_CT_SKIP");
    if (allow && std::strcmp(allow, "1") == 0) {
        std::printf("SKIPPED (HWACCEL_ALLOW_CT_SKIP=1): ptrace is not permitted here (%s)\n", why.c_str());
        return kSkipExit;
    }
    std::printf("FAIL: ptrace is not permitted here (%s), so the constant-time trace check cannot run;\n"
                "allow ptrace (e.g. the container's seccomp profile, kernel.yama.ptrace_scope) or set\n"
                "HWACCEL_ALLOW_CT_SKIP=1 to accept skipping it\n",
                why.c_str());
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    bool native = false;
    std::vector<std::string> names;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--native") == 0) native = true;
        else if (argv[i][0] == '-') {
            std::fprintf(stderr, "usage: %s [--native] [engine ...]\n", argv[0]);
            return 2;
        } else names.push_back(argv[i]);
    }
    run_seed = choose_seed();
    make_bare_copies();
    const std::vector<const hwaccel::Sm4Engine*> engines = engines_to_check(names);
    ghash_checked = ghash_engines_to_check(names);
    if (native) return run_native(engines);
    try {
        return run_traced(engines);
    } catch (const Skip& s) {
        return unavailable(s.why);
    }
}
