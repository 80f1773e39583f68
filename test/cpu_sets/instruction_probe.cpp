// Checks that the emulator really is the CPU a feature-set run claims: one
// instruction per feature, run under a SIGILL handler; each must execute if
// HWACCEL_EXPECTED_CPU_FLAGS lists the feature (kernel flag names) and must
// fault if not. Without this, a qemu that quietly ran AVX-512 code would let
// the suites pass on a "CPU without AVX-512" and prove nothing.
#include <csetjmp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>

namespace {

sigjmp_buf on_fault;

void jump_back(int) { siglongjmp(on_fault, 1); }

// Whether `probe` ran to its end (false: it raised SIGILL).
bool executes(void (*probe)()) {
    if (sigsetjmp(on_fault, 1) != 0) return false;
    probe();
    return true;
}

// The assembler takes these mnemonics without -m flags: no target attribute needed.
void ssse3() { __asm__ volatile("pshufb %%xmm0, %%xmm0" ::: "xmm0"); }
void sse4_1() { __asm__ volatile("pblendw $1, %%xmm0, %%xmm0" ::: "xmm0"); }
void avx() { __asm__ volatile("vxorps %%ymm0, %%ymm0, %%ymm0" ::: "xmm0"); }
void avx2() { __asm__ volatile("vpaddd %%ymm0, %%ymm0, %%ymm0" ::: "xmm0"); }
void bmi1() { __asm__ volatile("andn %%rax, %%rax, %%rax" ::: "rax", "cc"); }
void bmi2() { __asm__ volatile("rorx $3, %%rax, %%rax" ::: "rax"); }
void aes() { __asm__ volatile("aesenclast %%xmm0, %%xmm0" ::: "xmm0"); }
void vaes() { __asm__ volatile("vaesenclast %%ymm0, %%ymm0, %%ymm0" ::: "xmm0"); }
void pclmulqdq() { __asm__ volatile("pclmulqdq $0, %%xmm0, %%xmm0" ::: "xmm0"); }
void vpclmulqdq() { __asm__ volatile("vpclmulqdq $0, %%ymm0, %%ymm0, %%ymm0" ::: "xmm0"); }
void sha_ni() { __asm__ volatile("sha256rnds2 %%xmm0, %%xmm1" ::: "xmm0", "xmm1"); }
void gfni() { __asm__ volatile("gf2p8affineqb $0, %%xmm0, %%xmm0" ::: "xmm0"); }
void avx512f() { __asm__ volatile("vpxord %%zmm0, %%zmm0, %%zmm0" ::: "xmm0"); }

}  // namespace

int main() {
    const char* expected = std::getenv("HWACCEL_EXPECTED_CPU_FLAGS");
    if (expected == nullptr) {
        std::fprintf(stderr, "HWACCEL_EXPECTED_CPU_FLAGS is not set\n");
        return 2;
    }
    std::set<std::string> listed;
    std::istringstream words(expected);
    for (std::string w; words >> w;) listed.insert(w);
    std::signal(SIGILL, jump_back);
    const struct {
        const char* flag;
        void (*probe)();
    } probes[] = {
        {"ssse3", ssse3}, {"sse4_1", sse4_1}, {"avx", avx},   {"avx2", avx2},
        {"bmi1", bmi1},   {"bmi2", bmi2},     {"aes", aes},   {"vaes", vaes},
        {"pclmulqdq", pclmulqdq}, {"vpclmulqdq", vpclmulqdq}, {"sha_ni", sha_ni},
        {"gfni", gfni},   {"avx512f", avx512f},
    };
    int wrong = 0;
    for (const auto& p : probes) {
        const bool should = listed.count(p.flag) == 1, does = executes(p.probe);
        std::printf("%-11s %s%s\n", p.flag, does ? "executes" : "faults",
                    should == does ? "" : should ? "  WRONG: listed, so it must execute" : "  WRONG: not listed, so it must fault");
        wrong += should != does;
    }
    std::printf(wrong ? "the CPU is not the one claimed\n" : "the CPU is the one claimed\n");
    return wrong ? 1 : 0;
}
