#include "phe_model.hpp"

#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace hwaccel::test::phe {
namespace {

// ------------------------------------------------------------ FIPS 180-4
// The model's own compression functions: nothing shared with backends/.

uint32_t rol(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
uint32_t ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

uint32_t big_endian_word(const uint8_t* p) {
    return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

void sha1_compress(uint32_t h[5], const uint8_t block[64]) {
    uint32_t w[80];
    for (int t = 0; t < 16; ++t) w[t] = big_endian_word(block + 4 * t);
    for (int t = 16; t < 80; ++t) w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; ++t) {
        uint32_t f, k;
        if (t < 20) {
            f = (b & c) | (~b & d);  // Ch
            k = 0x5a827999;
        } else if (t < 40) {
            f = b ^ c ^ d;  // Parity
            k = 0x6ed9eba1;
        } else if (t < 60) {
            f = (b & c) | (b & d) | (c & d);  // Maj
            k = 0x8f1bbcdc;
        } else {
            f = b ^ c ^ d;
            k = 0xca62c1d6;
        }
        const uint32_t tmp = rol(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = tmp;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

// Our own copy of the round constants, on purpose: the model is an independent
// implementation to test the engines against (hwaccel/sha256_constants.hpp).
constexpr uint32_t kK[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

void sha256_compress(uint32_t h[8], const uint8_t block[64]) {
    uint32_t w[64];
    for (int t = 0; t < 16; ++t) w[t] = big_endian_word(block + 4 * t);
    for (int t = 16; t < 64; ++t) {
        const uint32_t s0 = ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ (w[t - 15] >> 3);
        const uint32_t s1 = ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < 64; ++t) {
        const uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) +
                            kK[t] + w[t];
        const uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

// ------------------------------------------------------------ the instruction

std::atomic<uint64_t> g_xsha1{0}, g_xsha256{0}, g_multi{0}, g_padding{0}, g_zero{0}, g_blocks{0};
std::atomic<bool> g_poison{false};
std::atomic<bool> g_installed{false};
std::atomic<bool> g_active{false};
struct sigaction g_previous;
thread_local Trace t_trace;

size_t state_words(Insn insn) { return insn == Insn::kXsha1 ? 5 : 8; }

void compress(Insn insn, uint32_t* h, const uint8_t* block) {
    if (insn == Insn::kXsha1)
        sha1_compress(h, block);
    else
        sha256_compress(h, block);
}

Result check(const Regs& r) {
    if (r.rdi % 16 != 0) return Result::kMisalignedState;
    if (r.rax == kMultiBlock || (r.rax == 0 && r.rcx == 0)) return Result::kDone;
    if (r.rax % 64 != 0) return Result::kPaddingNotBlockMultiple;
    if (r.rax > r.rcx) return Result::kPaddingPastTotal;
    if (r.rax == r.rcx) return Result::kPaddingNothingLeft;
    return Result::kDone;
}

// RDI after every instruction. The kernel's review counts RDI among the
// outputs and nothing says what it holds afterwards, so the model makes it
// useless: the input with its top 16 bits flipped, a non-canonical address,
// so an engine that goes on using RDI as the state pointer faults on its
// first access, and one that compares or stores it sees a different value.
constexpr uint64_t kRdiScramble = 0xdead000000000000ull;

Result run_effect(Insn insn, Regs& r, uint64_t& blocks);

// execute(), also reporting how many 64-byte compressions it performed.
Result run(Insn insn, Regs& r, uint64_t& blocks) {
    const Result result = run_effect(insn, r, blocks);
    if (result == Result::kDone) r.rdi ^= kRdiScramble;
    return result;
}

// The effect on memory and on RAX, RCX, RSI.
Result run_effect(Insn insn, Regs& r, uint64_t& blocks) {
    blocks = 0;
    const Result ok = check(r);
    if (ok != Result::kDone) return ok;
    if (r.rcx == 0) return Result::kDone;  // documented: does nothing

    const size_t words = state_words(insn);
    uint8_t* area = reinterpret_cast<uint8_t*>(r.rdi);
    const uint8_t* in = reinterpret_cast<const uint8_t*>(r.rsi);
    uint32_t h[8];
    std::memcpy(h, area, words * 4);  // native-endian words, like a C uint32_t[]

    uint64_t consumed;
    if (r.rax == kMultiBlock) {
        for (uint64_t i = 0; i < r.rcx; ++i) compress(insn, h, in + 64 * i);
        consumed = 64 * r.rcx;
        blocks = r.rcx;
        r.rcx = 0;
    } else {
        const uint64_t left = r.rcx - r.rax;
        const uint64_t whole = left / 64;
        for (uint64_t i = 0; i < whole; ++i) compress(insn, h, in + 64 * i);
        // The tail, 0x80, zeros and the bit length of the whole message.
        uint8_t last[128] = {};
        const size_t tail = left % 64;
        std::memcpy(last, in + 64 * whole, tail);
        last[tail] = 0x80;
        const size_t final_blocks = tail < 56 ? 1 : 2;
        const uint64_t bits = r.rcx * 8;
        for (int i = 0; i < 8; ++i)
            last[64 * final_blocks - 1 - i] = static_cast<uint8_t>(bits >> (8 * i));
        for (size_t i = 0; i < final_blocks; ++i) compress(insn, h, last + 64 * i);
        consumed = left;
        blocks = whole + final_blocks;
        r.rax = r.rcx;
    }
    r.rsi += consumed;

    std::memcpy(area, h, words * 4);
    // The rest of the 128-byte area is the instruction's: leave it dirty.
    for (size_t i = words * 4; i < kStateArea; ++i) area[i] = static_cast<uint8_t>(0xa5 ^ i);
    return Result::kDone;
}

}  // namespace

const char* describe(Result r) {
    switch (r) {
    case Result::kDone: return "done";
    case Result::kMisalignedState: return "state buffer (RDI) not 16-byte aligned";
    case Result::kPaddingNotBlockMultiple:
        return "padding mode with RAX (bytes already hashed) not a multiple of 64";
    case Result::kPaddingPastTotal: return "padding mode with RAX greater than RCX (total length)";
    case Result::kPaddingNothingLeft:
        return "padding mode with nothing left to hash (RAX == RCX != 0): undocumented";
    }
    return "?";
}

Result execute(Insn insn, Regs& r) {
    uint64_t blocks;
    return run(insn, r, blocks);
}

bool decode(const uint8_t* p, Insn& insn) {
    if (p[0] != 0xf3 || p[1] != 0x0f || p[2] != 0xa6) return false;
    if (p[3] == 0xc8) {
        insn = Insn::kXsha1;
        return true;
    }
    if (p[3] == 0xd0) {
        insn = Insn::kXsha256;
        return true;
    }
    return false;
}

namespace {

void write_stderr(const char* s) {
    ssize_t ignored = write(STDERR_FILENO, s, std::strlen(s));
    (void)ignored;
}

void on_sigill(int, siginfo_t*, void* context) {
    auto* uc = static_cast<ucontext_t*>(context);
    greg_t* g = uc->uc_mcontext.gregs;
    Insn insn;
    if (!decode(reinterpret_cast<const uint8_t*>(g[REG_RIP]), insn)) {
        // Not ours: returning re-executes it under the previous disposition.
        sigaction(SIGILL, &g_previous, nullptr);
        return;
    }
    Regs r;
    r.rax = static_cast<uint64_t>(g[REG_RAX]);
    r.rcx = static_cast<uint64_t>(g[REG_RCX]);
    r.rsi = static_cast<uint64_t>(g[REG_RSI]);
    r.rdi = static_cast<uint64_t>(g[REG_RDI]);
    const Regs before = r;
    uint64_t blocks = 0;
    const Result result = run(insn, r, blocks);
    if (result != Result::kDone) {
        write_stderr("phe model: ");
        write_stderr(insn == Insn::kXsha1 ? "rep xsha1: " : "rep xsha256: ");
        write_stderr(describe(result));
        write_stderr("\n");
        std::abort();
    }
    (insn == Insn::kXsha1 ? g_xsha1 : g_xsha256).fetch_add(1, std::memory_order_relaxed);
    (before.rax == kMultiBlock ? g_multi : g_padding).fetch_add(1, std::memory_order_relaxed);
    if (before.rcx == 0) g_zero.fetch_add(1, std::memory_order_relaxed);
    g_blocks.fetch_add(blocks, std::memory_order_relaxed);
    if (g_poison.load(std::memory_order_relaxed)) {
        r.rax = 0x5ca1ab1e0badf00dull;
        r.rcx = 0xdeadbeefcafef00dull;
        r.rsi = 0x0123456789abcdefull;
    }
    g[REG_RAX] = static_cast<greg_t>(r.rax);
    g[REG_RCX] = static_cast<greg_t>(r.rcx);
    g[REG_RSI] = static_cast<greg_t>(r.rsi);
    g[REG_RDI] = static_cast<greg_t>(r.rdi);  // scrambled by run(): see kRdiScramble
    g[REG_RIP] += 4;
    t_trace.valid = true;
    t_trace.insn = insn;
    t_trace.before = before;
    t_trace.after = r;
}

}  // namespace

void install() {
    if (g_installed.exchange(true)) return;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigill;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGILL, &sa, &g_previous) != 0) {
        write_stderr("phe model: sigaction(SIGILL) failed\n");
        std::abort();
    }
    // The probe: one block in multi-block mode, the best-documented form.
    alignas(16) uint8_t area[kStateArea] = {};
    static const uint8_t block[64] = {};
    uint64_t rax = kMultiBlock, rcx = 1;
    const uint8_t* rsi = block;
    uint8_t* rdi = area;
    const uint64_t before = g_xsha256.load();
    __asm__ __volatile__(".byte 0xf3,0x0f,0xa6,0xd0"  // rep xsha256
                         : "+a"(rax), "+c"(rcx), "+S"(rsi), "+D"(rdi)
                         :
                         : "memory");
    g_active.store(g_xsha256.load() != before);
    reset_counters();
    t_trace = Trace{};
}

bool installed() { return g_installed.load(); }
bool model_active() { return g_active.load(); }

Counters counters() {
    Counters c;
    c.xsha1 = g_xsha1.load();
    c.xsha256 = g_xsha256.load();
    c.multi_block = g_multi.load();
    c.padding = g_padding.load();
    c.zero_count = g_zero.load();
    c.blocks = g_blocks.load();
    return c;
}

void reset_counters() {
    for (auto* a : {&g_xsha1, &g_xsha256, &g_multi, &g_padding, &g_zero, &g_blocks}) a->store(0);
}

Trace last_trace() { return t_trace; }
void clear_trace() { t_trace = Trace{}; }

void set_poison_outputs(bool on) { g_poison.store(on); }

}  // namespace hwaccel::test::phe
