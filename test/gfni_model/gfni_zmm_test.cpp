// On AVX-512 machines a VEX-encoded write clears the destination up to bit
// 511 (SDM: DEST[MAX_VL-1:VL] <- 0), so the model must also clear the
// register's ZMM_Hi256 bytes in the frame. The register harness works on
// ymm only, so this sets zmm5 to all ones with EVEX, runs one instruction
// (destination zmm5) from a non-executable page through the model, as the
// frame test does, and reads zmm5 back whole; then natively.
#include <cpuid.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gfni_model.hpp"
#include "vex_gfni_encode.hpp"

using namespace hwaccel::test::gfni;

namespace {

uint8_t* g_page = nullptr;
int g_performed = 0;

__attribute__((force_align_arg_pointer)) void on_segv(int, siginfo_t* info, void* context) {
    auto* uc = static_cast<ucontext_t*>(context);
    greg_t* g = uc->uc_mcontext.gregs;
    const auto rip = reinterpret_cast<uint8_t*>(g[REG_RIP]);
    if (info->si_addr == rip && rip >= g_page && rip < g_page + 4096) {
        if (*rip == 0xc3) {
            g[REG_RIP] = *reinterpret_cast<greg_t*>(g[REG_RSP]);
            g[REG_RSP] += 8;
            return;
        }
        if (perform_at_rip(uc) == Outcome::kEmulated) {
            ++g_performed;
            return;
        }
    }
    signal(SIGSEGV, SIG_DFL);
}

bool cpu_has_avx512f() {
    unsigned a, b, c, d;
    if (!cpu_has_avx_natively() || __get_cpuid_max(0, nullptr) < 7) return false;
    __cpuid_count(7, 0, a, b, c, d);
    if (!(b >> 16 & 1)) return false;
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & 0xe6) == 0xe6;
}

// zmm5 = all ones, zmm6/zmm7 = the sources, call the page, store zmm5.
// Below the red zone, so the call's push cannot hit the compiler's data.
__attribute__((target("avx512f"))) void run(const uint8_t* code, const uint8_t src1[32],
                                            const uint8_t src2[32], uint8_t out[64]) {
    __asm__ volatile(
        "vpternlogd $0xff, %%zmm5, %%zmm5, %%zmm5\n\t"
        "vmovdqu %[s1], %%ymm6\n\t"
        "vmovdqu %[s2], %%ymm7\n\t"
        "sub $128, %%rsp\n\t"
        "call *%[code]\n\t"
        "add $128, %%rsp\n\t"
        "vmovdqu64 %%zmm5, %[out]\n\t"
        : [out] "=m"(*reinterpret_cast<uint8_t(*)[64]>(out))
        : [code] "r"(code), [s1] "m"(*reinterpret_cast<const uint8_t(*)[32]>(src1)),
          [s2] "m"(*reinterpret_cast<const uint8_t(*)[32]>(src2))
        : "xmm5", "xmm6", "xmm7", "memory");
}

}  // namespace

TEST_CASE("gfni frame: a VEX write clears the zmm bits above it (AVX-512 machines)",
          "[gfni][model][frame][zmm]") {
    if (!cpu_has_avx512f()) {
        WARN("no AVX-512 state on this CPU: nothing above bit 255 to clear");
        return;
    }
    g_page = static_cast<uint8_t*>(
        mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    REQUIRE(g_page != MAP_FAILED);
    uint8_t src1[32], src2[32];
    for (int i = 0; i < 32; ++i) src1[i] = static_cast<uint8_t>(i * 37 + 1), src2[i] = static_cast<uint8_t>(i * 11 + 5);
    for (bool ymm : {false, true}) {
        INFO((ymm ? "ymm" : "xmm") << " form");
        Form f;
        f.ymm = ymm;
        f.dst = 5, f.src1 = 6, f.src2 = 7, f.imm8 = 0x3e;
        const std::vector<uint8_t> bytes = encode(f);
        REQUIRE(mprotect(g_page, 4096, PROT_READ | PROT_WRITE) == 0);
        std::memcpy(g_page, bytes.data(), bytes.size());
        g_page[bytes.size()] = 0xc3;

        REQUIRE(mprotect(g_page, 4096, PROT_READ) == 0);
        struct sigaction sa, old;
        std::memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_segv;
        sa.sa_flags = SA_SIGINFO;
        sigaction(SIGSEGV, &sa, &old);
        uint8_t model[64];
        g_performed = 0;
        run(g_page, src1, src2, model);
        sigaction(SIGSEGV, &old, nullptr);
        REQUIRE(g_performed == 1);
        const uint8_t zeros[64] = {};
        CHECK(std::memcmp(model + (ymm ? 32 : 16), zeros, ymm ? 32 : 48) == 0);

        if (cpu_has_gfni_natively()) {
            REQUIRE(mprotect(g_page, 4096, PROT_READ | PROT_EXEC) == 0);
            uint8_t native[64];
            run(g_page, src1, src2, native);
            CHECK(std::memcmp(model, native, 64) == 0);
        }
    }
    munmap(g_page, 4096);
}
