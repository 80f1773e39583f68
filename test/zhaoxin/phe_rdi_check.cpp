// The PHE engine's block functions under the instruction model, which
// changes RDI after every instruction, in a child process: exit 0 if every
// digest is right and the child lived, 1 otherwise, 77 where PHE runs
// natively (nothing to show).
//
// Built twice (CMakeLists.txt): phe_rdi_check over backends/zhaoxin/phe.cpp as
// it ships, which must pass, and phe_rdi_input_only over the same file with
// HWACCEL_PHE_TEST_RDI_INPUT_ONLY, RDI an input only of the asm as before the
// kernel review's finding, which must fail: GCC 12 then hands the RDI it
// loaded for the instruction straight on to the wipe's memset, so under the
// model the engine writes through a non-canonical pointer and dies. Should a
// compiler stop reusing RDI there, the must-fail entry fails and says so
// (GCC 12 with the sanitizers already does not: those builds leave it out).
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "phe_model.hpp"
#include "zhaoxin/phe_engines.hpp"

// phe.cpp is compiled into this program alone, without the backends' CPU
// detection, which its clear_vector_registers() asks whether xmm16-31 exist.
namespace hwaccel {
bool cpu_has_xmm16_31() { return __builtin_cpu_supports("avx512f"); }
}  // namespace hwaccel

namespace {

// The child's exit code for wrong digests; any other non-zero one (ASan's
// report of the wild write exits with 1) or a signal is a crash.
constexpr int kWrongDigest = 3;

// FIPS 180-2 appendix A.1 and B.1: SHA-1 and SHA-256 of "abc", one block.
constexpr uint32_t kSha1Abc[5] = {0xa9993e36, 0x4706816a, 0xba3e2571, 0x7850c26c, 0x9cd0d89d};
constexpr uint32_t kSha256Abc[8] = {0xba7816bf, 0x8f01cfea, 0x414140de, 0x5dae2223,
                                    0xb00361a3, 0x96177a9c, 0xb410ff61, 0xf20015ad};

void abc_block(uint8_t block[64]) {
    std::memset(block, 0, 64);
    std::memcpy(block, "abc", 3);
    block[3] = 0x80;
    block[63] = 24;  // bit length, big-endian
}

int run_engine() {
    uint8_t block[64];
    abc_block(block);
    uint32_t h1[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
    uint32_t h256[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    hwaccel::zhaoxin::sha1_phe.blocks(h1, block, 1);
    hwaccel::zhaoxin::sha256_phe.blocks(h256, block, 1);
    const bool ok1 = std::memcmp(h1, kSha1Abc, sizeof h1) == 0;
    const bool ok256 = std::memcmp(h256, kSha256Abc, sizeof h256) == 0;
    std::printf("SHA-1(\"abc\") %s, SHA-256(\"abc\") %s\n", ok1 ? "right" : "WRONG",
                ok256 ? "right" : "WRONG");
    return ok1 && ok256 ? 0 : kWrongDigest;
}

}  // namespace

int main() {
    hwaccel::test::phe::install();
    if (!hwaccel::test::phe::model_active()) {
        std::printf("PHE executes natively on this CPU: the model's RDI is not in play\n");
        return 77;
    }
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        std::signal(SIGSEGV, SIG_DFL);
        std::signal(SIGBUS, SIG_DFL);
        const int rc = run_engine();
        std::fflush(stdout);
        _exit(rc);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid) return 2;
    if (WIFSIGNALED(status)) {
        std::printf("FAIL: the engine crashed under the model, which changes RDI (killed by %s)\n",
                    strsignal(WTERMSIG(status)));
        return 1;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        std::printf("the engine is right under the model, which changes RDI\n");
        return 0;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == kWrongDigest) {
        std::printf("FAIL: wrong digests under the model, which changes RDI\n");
        return 1;
    }
    std::printf("FAIL: the engine crashed under the model, which changes RDI (exit code %d: a "
                "sanitizer's report, above)\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 1;
}
