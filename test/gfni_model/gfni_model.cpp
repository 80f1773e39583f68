#include "gfni_model.hpp"

#include <cpuid.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "gfni_affine.hpp"
#include "signal_frame_vectors.hpp"
#include "vex_gfni_decode.hpp"

namespace hwaccel::test::gfni {
namespace {

std::atomic<uint64_t> g_affine{0}, g_inverse{0}, g_ymm{0}, g_memory{0};
std::atomic<bool> g_installed{false};
std::atomic<bool> g_active{false};
struct sigaction g_previous;

// gregs index of general-purpose register n as the encoding numbers them.
constexpr int kGregOf[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                             REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                             REG_R12, REG_R13, REG_R14, REG_R15};

void write_stderr(const char* s) {
    ssize_t ignored = write(STDERR_FILENO, s, std::strlen(s));
    (void)ignored;
}

Outcome perform(ucontext_t* uc, Instruction& insn) {
    greg_t* g = uc->uc_mcontext.gregs;
    const uint64_t rip = static_cast<uint64_t>(g[REG_RIP]);
    if (!decode(reinterpret_cast<const uint8_t*>(rip), insn)) return Outcome::kNotGfni;
    FrameVectors vectors(uc);
    if (!vectors.usable()) return Outcome::kUnusableFrame;

    uint8_t src1[32], src2[32], result[32];
    vectors.read_ymm(insn.src1, src1);
    if (insn.src2_in_memory) {
        uint64_t gpr[16];
        for (int i = 0; i < 16; ++i) gpr[i] = static_cast<uint64_t>(g[kGregOf[i]]);
        const uint64_t address = effective_address(insn, gpr, rip);
        std::memcpy(src2, reinterpret_cast<const void*>(address), insn.vector_bytes);
    } else {
        vectors.read_ymm(insn.src2, src2);
    }
    gf2p8affine(insn.op, src1, src2, insn.imm8, insn.vector_bytes, result);
    vectors.write_vex(insn.dst, result, insn.vector_bytes);
    g[REG_RIP] = static_cast<greg_t>(rip + insn.length);
    return Outcome::kEmulated;
}

// force_align_arg_pointer: qemu-user 7.2 enters signal handlers with RSP
// misaligned by 8 (its x86-64 signal frame; fixed in later QEMU), and GCC's
// aligned SSE spills then fault. Natively it costs one AND.
__attribute__((force_align_arg_pointer)) void on_sigill(int, siginfo_t*, void* context) {
    auto* uc = static_cast<ucontext_t*>(context);
    Instruction insn;
    const Outcome outcome = perform(uc, insn);
    if (outcome == Outcome::kNotGfni) {
        // Not ours: returning re-executes it under the previous disposition.
        sigaction(SIGILL, &g_previous, nullptr);
        return;
    }
    if (outcome == Outcome::kUnusableFrame) {
        write_stderr("gfni model: ");
        write_stderr(FrameVectors(uc).error());
        write_stderr("\n");
        std::abort();
    }
    (insn.op == Op::kAffine ? g_affine : g_inverse).fetch_add(1, std::memory_order_relaxed);
    if (insn.vector_bytes == 32) g_ymm.fetch_add(1, std::memory_order_relaxed);
    if (insn.src2_in_memory) g_memory.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

Outcome perform_at_rip(ucontext_t* uc) {
    Instruction insn;
    return perform(uc, insn);
}

bool cpu_has_avx_natively() {
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
    const bool osxsave = ecx >> 27 & 1, avx = ecx >> 28 & 1;
    if (!osxsave || !avx) return false;
    uint32_t xcr0_lo, xcr0_hi;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    return (xcr0_lo & 0x6) == 0x6;  // the OS saves xmm and ymm
}

bool cpu_has_gfni_natively() {
    unsigned eax, ebx, ecx, edx;
    if (!cpu_has_avx_natively() || __get_cpuid_max(0, nullptr) < 7) return false;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    return ecx >> 8 & 1;
}

void install() {
    if (g_installed.exchange(true)) return;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigill;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGILL, &sa, &g_previous) != 0) {
        write_stderr("gfni model: sigaction(SIGILL) failed\n");
        std::abort();
    }
    // The probe: one instruction (zero matrix on xmm0), which only the model
    // counts. Without AVX there is nothing the model could run on.
    if (!cpu_has_avx_natively()) return;
    const uint64_t before = g_affine.load();
    __asm__ __volatile__(
        "vpxor %%xmm0, %%xmm0, %%xmm0\n\t"
        "vgf2p8affineqb $0, %%xmm0, %%xmm0, %%xmm0"
        :
        :
        : "xmm0");
    g_active.store(g_affine.load() != before);
    reset_counters();
}

bool model_active() { return g_active.load(); }

Counters counters() {
    Counters c;
    c.affine = g_affine.load();
    c.affine_inverse = g_inverse.load();
    c.ymm = g_ymm.load();
    c.memory_operand = g_memory.load();
    return c;
}

void reset_counters() {
    for (auto* a : {&g_affine, &g_inverse, &g_ymm, &g_memory}) a->store(0);
}

}  // namespace hwaccel::test::gfni
