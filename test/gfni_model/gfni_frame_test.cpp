// The model's frame editing end to end, on any CPU, against the silicon where
// the CPU has GFNI.
//
// On a GFNI machine nothing traps, so the SIGILL path cannot be exercised
// directly. Instead the instruction is placed in a page mapped without
// PROT_EXEC: jumping there raises SIGSEGV with RIP at the instruction and the
// same signal frame a SIGILL would get (full register state, XSAVE extended
// state), and a SIGSEGV handler installed for this test only calls the very
// function the SIGILL handler calls (perform_at_rip). The `ret` after the
// instruction faults as well and the handler performs it too (pops RIP).
// The same bytes are then run from the page mapped executable: on a CPU with
// GFNI that is the real instruction, elsewhere the model's SIGILL path.
//
// Each case sets every ymm register, every general-purpose register (RSP
// included), RFLAGS and the memory operand, and compares all of them
// afterwards with the expected state: only the destination changes, to the
// SDM's result with the bits above the vector length zeroed; every other
// register, RFLAGS and RSP are as before. Forms: xmm and ymm, both opcodes,
// every destination register, matrices in a register or in memory through
// [base], [base+disp8/32], SIB with base and index (every scale, the same
// register as both), index without base, absolute disp32, RIP-relative in
// both directions, RSP/R12 as base (SIB needed), RBP/R13 (disp8 needed), R12
// as index (VEX.X), and a VEX.B the CPU must ignore where there is no base.
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gfni_affine.hpp"
#include "gfni_model.hpp"
#include "register_harness.hpp"
#include "vex_gfni_encode.hpp"

using namespace hwaccel::test::gfni;

namespace {

constexpr size_t kPage = 4096;
constexpr size_t kInsnOffset = 2048;  // in the code page; data on either side
constexpr size_t kDataSize = 65536;

struct Mappings {
    uint8_t* code = nullptr;  // one page: data, the instruction + ret, data
    uint8_t* data = nullptr;  // the memory operands and the stack RSP points into
};

// Below 2 GiB, so an absolute disp32 can reach the data and RIP-relative
// displacements stay in range. MAP_32BIT does that natively; qemu-user
// ignores it, so then a free address is asked for.
void* map_low(size_t size) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (p != MAP_FAILED && reinterpret_cast<uintptr_t>(p) + size < 0x7fff0000u) return p;
    if (p != MAP_FAILED) munmap(p, size);
    for (uintptr_t hint = 0x20000000; hint < 0x70000000; hint += 0x01000000) {
        p = mmap(reinterpret_cast<void*>(hint), size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == reinterpret_cast<void*>(hint)) return p;
        if (p != MAP_FAILED) munmap(p, size);  // a kernel without MAP_FIXED_NOREPLACE: a hint only
    }
    return MAP_FAILED;
}

const Mappings& mappings() {
    static const Mappings m = [] {
        Mappings r;
        void* code = map_low(kPage);
        void* data = map_low(kDataSize);
        if (code == MAP_FAILED || data == MAP_FAILED) return r;
        r.code = static_cast<uint8_t*>(code);
        r.data = static_cast<uint8_t*>(data);
        return r;
    }();
    return m;
}

uint8_t* stack_slot() { return mappings().data + kDataSize / 2; }  // RSP at the instruction

// ------------------------------------------------------- the SIGSEGV route

int g_performed = 0;
int g_rets = 0;
bool g_foreign_fault = false;

// Realigns the stack: see on_sigill in gfni_model.cpp (qemu-user 7.2).
__attribute__((force_align_arg_pointer)) void on_segv(int, siginfo_t* info, void* context) {
    auto* uc = static_cast<ucontext_t*>(context);
    greg_t* g = uc->uc_mcontext.gregs;
    const auto rip = reinterpret_cast<uint8_t*>(g[REG_RIP]);
    const uint8_t* page = mappings().code;
    if (info->si_addr == rip && rip >= page && rip < page + kPage) {  // a fetch from our page
        if (*rip == 0xc3) {  // ret
            g[REG_RIP] = *reinterpret_cast<greg_t*>(g[REG_RSP]);
            g[REG_RSP] += 8;
            ++g_rets;
            return;
        }
        if (perform_at_rip(uc) == Outcome::kEmulated) {
            ++g_performed;
            return;
        }
    }
    // Anything else is a real fault: die of it.
    g_foreign_fault = true;
    signal(SIGSEGV, SIG_DFL);
}

// The handler, on an alternate stack (RSP may point anywhere in a case),
// for the lifetime of the object.
class SegvRoute {
public:
    SegvRoute() {
        stack_.resize(1 << 16);
        stack_t ss{};
        ss.ss_sp = stack_.data();
        ss.ss_size = stack_.size();
        sigaltstack(&ss, &old_stack_);
        struct sigaction sa;
        std::memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_segv;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, &old_action_);
    }
    ~SegvRoute() {
        sigaction(SIGSEGV, &old_action_, nullptr);
        sigaltstack(&old_stack_, nullptr);
    }

private:
    std::vector<uint8_t> stack_;
    stack_t old_stack_{};
    struct sigaction old_action_;
};

// ----------------------------------------------------------------- a case

struct Case {
    Form form;
    RegisterFile in;
    uint8_t* operand = nullptr;  // memory operand's address (memory forms)
};

std::string describe(const Case& c, const std::vector<uint8_t>& bytes) {
    std::ostringstream s;
    static const char* kinds[] = {"register", "base", "base+index", "index", "absolute", "rip"};
    s << (c.form.inverse ? "vgf2p8affineinvqb" : "vgf2p8affineqb") << (c.form.ymm ? " ymm" : " xmm")
      << " dst=" << c.form.dst << " src1=" << c.form.src1 << " " << kinds[c.form.kind];
    if (c.form.kind == Form::kRegister) s << " src2=" << c.form.src2;
    if (c.form.kind == Form::kBase || c.form.kind == Form::kBaseIndex) s << " base=" << c.form.base;
    if (c.form.kind == Form::kBaseIndex || c.form.kind == Form::kIndexOnly)
        s << " index=" << c.form.index << " scale=" << (1 << c.form.scale_log2);
    s << " disp=" << c.form.disp << " bytes=";
    for (uint8_t b : bytes) {
        static const char hex[] = "0123456789abcdef";
        s << hex[b >> 4] << hex[b & 15];
    }
    return s.str();
}

// A random operand address in the data mapping. One that overlaps the stack
// slot (e.g. [RSP]) reads the return address the call pushed there, on every
// route alike, and the expected result is computed from memory afterwards.
uint8_t* random_operand(std::mt19937_64& rng) {
    return mappings().data + 256 + rng() % (kDataSize - 512);
}

// Below RSP's red zone lies the stack a SIGILL handler's frame is written
// to (the model's route, without an alternate stack: as on a CPU without
// GFNI, where the kernel writes it there): no operand may live there, as in
// any code that follows the ABI.
constexpr size_t kSignalStack = 16384;

bool in_data(const uint8_t* a) {
    const bool in_mapping = a >= mappings().data + 64 && a + 64 <= mappings().data + kDataSize;
    const bool below_red_zone = a < stack_slot() - 128 && a + 32 > stack_slot() - kSignalStack;
    return in_mapping && !below_red_zone;
}

int32_t random_disp(std::mt19937_64& rng, int bytes) {
    if (bytes == 1) return static_cast<int8_t>(rng());
    if (bytes == 4) return static_cast<int32_t>(rng() % 60000) - 30000;
    return 0;
}

// Fills in the registers and the operand address for c.form; false if the
// random choices do not fit (the caller draws again).
bool place_operand(Case& c, std::mt19937_64& rng) {
    Form& f = c.form;
    uint64_t* gpr = c.in.gpr;
    const uint64_t rsp = reinterpret_cast<uint64_t>(stack_slot());
    gpr[4] = rsp + 8;  // the call pushes the return address to rsp
    const uint64_t scale = uint64_t{1} << f.scale_log2;
    uint64_t a = reinterpret_cast<uint64_t>(random_operand(rng));
    switch (f.kind) {
    case Form::kRegister: return true;
    case Form::kBase:
        f.disp = random_disp(rng, f.disp_bytes);
        if (f.base == 4)
            a = rsp + static_cast<uint64_t>(static_cast<int64_t>(f.disp));
        else
            gpr[f.base] = a - static_cast<uint64_t>(static_cast<int64_t>(f.disp));
        break;
    case Form::kBaseIndex:
        f.disp = random_disp(rng, f.disp_bytes);
        if (f.base == 4) {
            const uint64_t k = rng() % 4096;
            gpr[f.index] = k;
            a = rsp + static_cast<uint64_t>(static_cast<int64_t>(f.disp)) + k * scale;
        } else if (f.base == f.index) {
            const int64_t v = (static_cast<int64_t>(a) - f.disp) / static_cast<int64_t>(1 + scale);
            gpr[f.base] = static_cast<uint64_t>(v);
            a = static_cast<uint64_t>(f.disp + v * static_cast<int64_t>(1 + scale));
        } else {
            // Any index value: the sum wraps modulo 2^64, as the hardware's does.
            gpr[f.index] = rng() % 2 ? rng() : rng() % 1000;
            gpr[f.base] = a - gpr[f.index] * scale - static_cast<uint64_t>(static_cast<int64_t>(f.disp));
        }
        break;
    case Form::kIndexOnly: {
        const uint64_t k = rng() % (1u << 20);
        gpr[f.index] = k;
        f.disp = static_cast<int32_t>(static_cast<int64_t>(a) - static_cast<int64_t>(k * scale));
        break;
    }
    case Form::kAbsolute: f.disp = static_cast<int32_t>(a); break;
    case Form::kRipRelative:
        if (rng() % 2) a = reinterpret_cast<uint64_t>(mappings().code) + (rng() % 2 ? rng() % 1024 : 3072 + rng() % 960);
        break;  // disp set once the length is known
    }
    c.operand = reinterpret_cast<uint8_t*>(a);
    const bool in_code = c.operand >= mappings().code && c.operand + 32 <= mappings().code + kInsnOffset - 32;
    const bool in_code_after = c.operand >= mappings().code + kInsnOffset + 64 && c.operand + 32 <= mappings().code + kPage;
    return in_data(c.operand) || in_code || in_code_after;
}

Case random_case(std::mt19937_64& rng, Form form) {
    for (;;) {
        Case c;
        c.form = form;
        for (auto& r : c.in.ymm)
            for (auto& b : r) b = static_cast<uint8_t>(rng());
        for (auto& g : c.in.gpr) g = rng();
        c.in.rflags = rng();
        if (place_operand(c, rng)) return c;
    }
}

// The state the instruction must leave: `in` with only the destination changed.
RegisterFile expected_state(const Case& c) {
    RegisterFile out = c.in;
    const size_t bytes = c.form.ymm ? 32 : 16;
    const uint8_t* src2 = c.form.kind == Form::kRegister ? c.in.ymm[c.form.src2] : c.operand;
    uint8_t result[32] = {};
    gf2p8affine(c.form.inverse ? Op::kAffineInverse : Op::kAffine, c.in.ymm[c.form.src1], src2,
                c.form.imm8, bytes, result);
    std::memcpy(out.ymm[c.form.dst], result, 32);  // upper 16 zero for xmm
    out.rflags = (c.in.rflags & kHarnessFlags) | 0x202;
    return out;
}

void check_state(const RegisterFile& got, const RegisterFile& want, const std::string& route) {
    INFO(route);
    for (int r = 0; r < 16; ++r) {
        INFO("ymm" << r);
        CHECK(std::memcmp(got.ymm[r], want.ymm[r], 32) == 0);
    }
    for (int r = 0; r < 16; ++r) {
        INFO("general-purpose register " << r);
        CHECK(got.gpr[r] == want.gpr[r]);
    }
    CHECK((got.rflags & (kHarnessFlags | 0x202)) == want.rflags);
}

void run_case(Case& c) {
    const Mappings& m = mappings();
    uint8_t* insn = m.code + kInsnOffset;
    std::vector<uint8_t> bytes = encode(c.form);
    if (c.form.kind == Form::kRipRelative) {
        const int64_t disp = reinterpret_cast<int64_t>(c.operand) -
                             reinterpret_cast<int64_t>(insn + bytes.size());
        c.form.disp = static_cast<int32_t>(disp);
        bytes = encode(c.form);
    }
    // The memory operand's bytes: random, and the same for every route.
    REQUIRE(mprotect(m.code, kPage, PROT_READ | PROT_WRITE) == 0);
    std::mt19937_64 fill(bytes.size() * 7919 + c.form.dst);
    if (c.operand)
        for (int i = 0; i < 32; ++i) c.operand[i] = static_cast<uint8_t>(fill());
    std::memcpy(insn, bytes.data(), bytes.size());
    insn[bytes.size()] = 0xc3;  // ret
    const std::string what = describe(c, bytes);
    INFO(what);

    // Through the model's frame editing (SIGSEGV route).
    REQUIRE(mprotect(m.code, kPage, PROT_READ) == 0);
    RegisterFile got;
    {
        SegvRoute route;
        g_performed = g_rets = 0;
        run_with_registers(insn, c.in, got);
    }
    REQUIRE_FALSE(g_foreign_fault);
    REQUIRE(g_performed == 1);
    REQUIRE(g_rets == 1);
    const RegisterFile want = expected_state(c);  // memory as the instruction saw it
    check_state(got, want, "model, frame edited from a SIGSEGV handler");

    // Natively: the silicon, or on a CPU without GFNI the model's SIGILL path.
    if (cpu_has_gfni_natively() || model_active()) {
        REQUIRE(mprotect(m.code, kPage, PROT_READ | PROT_EXEC) == 0);
        const uint64_t before = counters().affine + counters().affine_inverse;
        run_with_registers(insn, c.in, got);
        const uint64_t trapped = counters().affine + counters().affine_inverse - before;
        check_state(got, want, cpu_has_gfni_natively() ? "the CPU's GFNI" : "model, SIGILL route");
        CHECK(trapped == (cpu_has_gfni_natively() ? 0u : 1u));
    }
}

bool harness_usable() {
    if (!cpu_has_avx_natively()) {
        WARN("no AVX on this CPU: the register harness (ymm) cannot run, frame test skipped");
        return false;
    }
    REQUIRE(mappings().code != nullptr);
    if (!cpu_has_gfni_natively() && !model_active())
        WARN("no GFNI on this CPU and the model is not installed: model route only");
    else if (!cpu_has_gfni_natively())
        WARN("no GFNI on this CPU: compared with the model's SIGILL route, not with silicon");
    return true;
}

}  // namespace

TEST_CASE("gfni frame: every destination, operand form and width, model against silicon",
          "[gfni][model][frame]") {
    if (!harness_usable()) return;
    std::mt19937_64 rng(20261201);
    int cases = 0;
    for (int inverse = 0; inverse < 2; ++inverse)
        for (int ymm = 0; ymm < 2; ++ymm)
            for (int dst = 0; dst < 16; ++dst) {
                Form base_form;
                base_form.inverse = inverse;
                base_form.ymm = ymm;
                base_form.dst = dst;
                base_form.imm8 = static_cast<uint8_t>(rng());
                // Every register as base across the loop; index never RSP (that slot means none).
                const int base = (dst + 5 * ymm + 3 * inverse) % 16;
                auto pick_index = [&] {
                    int i;
                    do i = static_cast<int>(rng() % 16);
                    while (i == 4);
                    return i;
                };
                std::vector<Form> forms;
                Form f = base_form;
                f.kind = Form::kRegister;
                f.src1 = static_cast<int>(rng() % 16);
                f.src2 = static_cast<int>(rng() % 16);
                forms.push_back(f);
                f.src2 = dst;  // the destination is also a source
                f.src1 = dst;
                forms.push_back(f);
                for (int disp : {0, 1, 4}) {
                    f = base_form;
                    f.src1 = static_cast<int>(rng() % 16);
                    f.kind = Form::kBase;
                    f.base = base;
                    f.disp_bytes = disp;
                    f.scale_log2 = static_cast<int>(rng() % 4);  // in an index-less SIB: ignored
                    forms.push_back(f);
                    f.kind = Form::kBaseIndex;
                    f.index = pick_index();
                    if (disp == 1) f.index = base == 4 ? 12 : base;  // R12 as index; base = index
                    forms.push_back(f);
                }
                for (Form::Kind kind : {Form::kIndexOnly, Form::kAbsolute, Form::kRipRelative}) {
                    f = base_form;
                    f.src1 = static_cast<int>(rng() % 16);
                    f.kind = kind;
                    f.index = pick_index();
                    f.scale_log2 = static_cast<int>(rng() % 4);
                    f.vex_b = rng() % 2;
                    forms.push_back(f);
                }
                for (const Form& form : forms) {
                    Case c = random_case(rng, form);
                    run_case(c);
                    ++cases;
                }
            }
    CHECK(cases == 2 * 2 * 16 * 11);  // 2 register + 3 x 2 base(+index) + 3 no-base forms
}

TEST_CASE("gfni frame: random forms", "[gfni][model][frame]") {
    if (!harness_usable()) return;
    std::mt19937_64 rng(7);
    for (int n = 0; n < 400; ++n) {
        Form f;
        f.inverse = rng() % 2;
        f.ymm = rng() % 2;
        f.dst = static_cast<int>(rng() % 16);
        f.src1 = static_cast<int>(rng() % 16);
        f.src2 = static_cast<int>(rng() % 16);
        f.kind = static_cast<Form::Kind>(rng() % 6);
        f.base = static_cast<int>(rng() % 16);
        do f.index = static_cast<int>(rng() % 16);
        while (f.index == 4);
        f.scale_log2 = static_cast<int>(rng() % 4);
        const int sizes[] = {0, 1, 4};
        f.disp_bytes = sizes[rng() % 3];
        f.vex_b = rng() % 2;
        f.imm8 = static_cast<uint8_t>(rng());
        Case c = random_case(rng, f);
        run_case(c);
    }
}
