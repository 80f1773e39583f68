// Tests of the PHE instruction model alone: no engine, no hasher. The
// instructions are issued by inline asm in this file, so the trap path is
// exercised independently of backends/zhaoxin/. The expected values come from
// FIPS 180-2's worked examples (appendix B.1-B.3 for SHA-256, A.1-A.3 for
// SHA-1) and the NIST CAVP files.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "phe_model.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;
using phe::Insn;
using phe::Regs;

namespace {

constexpr uint32_t kSha1Init[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
constexpr uint32_t kSha224Init[8] = {0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939,
                                     0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4};
constexpr uint32_t kSha256Init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

// The 128-byte, 16-byte-aligned area the instruction works on.
struct alignas(16) Area {
    uint32_t w[32];
};

Area area_with(const uint32_t* init, size_t words) {
    Area a;
    std::memset(&a, 0x3c, sizeof a);
    std::memcpy(a.w, init, words * 4);
    return a;
}

uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

// Issues the instruction for real; the model's SIGILL handler carries it out.
Regs issue(Insn insn, Regs r) {
    uint64_t a = r.rax, c = r.rcx, s = r.rsi, d = r.rdi;
    if (insn == Insn::kXsha1)
        __asm__ __volatile__(".byte 0xf3,0x0f,0xa6,0xc8"
                             : "+a"(a), "+c"(c), "+S"(s), "+D"(d)
                             :
                             : "memory");
    else
        __asm__ __volatile__(".byte 0xf3,0x0f,0xa6,0xd0"
                             : "+a"(a), "+c"(c), "+S"(s), "+D"(d)
                             :
                             : "memory");
    Regs out;
    out.rax = a, out.rcx = c, out.rsi = s, out.rdi = d;
    return out;
}

Regs regs(uint64_t rax, uint64_t rcx, const void* rsi, const void* rdi) {
    Regs r;
    r.rax = rax, r.rcx = rcx, r.rsi = addr(rsi), r.rdi = addr(rdi);
    return r;
}

std::vector<uint32_t> words(const Area& a, size_t n) { return {a.w, a.w + n}; }

// The digest: the state words big-endian, truncated to digest_len.
Bytes digest_of(const Area& a, size_t digest_len) {
    Bytes out(digest_len);
    for (size_t i = 0; i < digest_len; ++i)
        out[i] = static_cast<uint8_t>(a.w[i / 4] >> (24 - 8 * (i % 4)));
    return out;
}

// FIPS 180 padding done here, independently of the model's padding mode.
Bytes padded(const Bytes& msg) {
    Bytes p = msg;
    p.push_back(0x80);
    while (p.size() % 64 != 56) p.push_back(0);
    const uint64_t bits = uint64_t{msg.size()} * 8;
    for (int i = 7; i >= 0; --i) p.push_back(static_cast<uint8_t>(bits >> (8 * i)));
    return p;
}

Bytes text(const char* s) { return Bytes(s, s + std::strlen(s)); }

const char* kTwoBlock = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

// Whether running f in a child process ends it with `sig`.
template <class F>
bool dies_with(int sig, F f) {
    pid_t pid = fork();
    if (pid == 0) {
        // Quiet: the child's own abort message is expected.
        std::signal(SIGABRT, SIG_DFL);
        if (freopen("/dev/null", "w", stderr) == nullptr) _exit(3);
        f();
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

}  // namespace

TEST_CASE("phe model: the handler is installed before the tests", "[phe][model]") {
    CHECK(phe::installed());
    if (!phe::model_active()) WARN("PHE executes natively here: the model is not exercised");
}

TEST_CASE("phe model: decodes exactly the two instructions", "[phe][model]") {
    const uint8_t xsha1[] = {0xf3, 0x0f, 0xa6, 0xc8}, xsha256[] = {0xf3, 0x0f, 0xa6, 0xd0},
                  xsha384[] = {0xf3, 0x0f, 0xa6, 0xd8}, no_rep[] = {0x90, 0x0f, 0xa6, 0xc8};
    Insn insn;
    REQUIRE(phe::decode(xsha1, insn));
    CHECK(insn == Insn::kXsha1);
    REQUIRE(phe::decode(xsha256, insn));
    CHECK(insn == Insn::kXsha256);
    CHECK_FALSE(phe::decode(xsha384, insn));
    CHECK_FALSE(phe::decode(no_rep, insn));
}

// FIPS 180-2 appendix B.1: SHA-256("abc") = ba7816bf 8f01cfea 414140de 5dae2223
// b00361a3 96177a9c b410ff61 f20015ad, one block. In padding mode the
// instruction pads "abc" itself; the state stays native-endian words.
TEST_CASE("phe model: SHA-256 of \"abc\", padding mode, through the trap", "[phe][model]") {
    const Bytes msg = text("abc");
    Area a = area_with(kSha256Init, 8);
    phe::reset_counters();
    phe::clear_trace();
    const Regs in = regs(0, 3, msg.data(), &a);
    const Regs out = issue(Insn::kXsha256, in);
    CHECK(words(a, 8) == std::vector<uint32_t>{0xba7816bf, 0x8f01cfea, 0x414140de, 0x5dae2223,
                                               0xb00361a3, 0x96177a9c, 0xb410ff61, 0xf20015ad});
    CHECK(to_hex(digest_of(a, 32)) ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    (void)out;
    PHE_MODEL_ONLY();
    const phe::Counters c = phe::counters();
    CHECK(c.xsha256 == 1);
    CHECK(c.padding == 1);
    CHECK(c.blocks == 1);
    const phe::Trace t = phe::last_trace();
    REQUIRE(t.valid);
    CHECK(t.insn == Insn::kXsha256);
    CHECK(t.before.rcx == 3);
}

TEST_CASE("phe model: SHA-1 of \"abc\", padding mode, through the trap", "[phe][model]") {
    // FIPS 180-2 appendix A.1.
    const Bytes msg = text("abc");
    Area a = area_with(kSha1Init, 5);
    issue(Insn::kXsha1, regs(0, 3, msg.data(), &a));
    CHECK(words(a, 5) ==
          std::vector<uint32_t>{0xa9993e36, 0x4706816a, 0xba3e2571, 0x7850c26c, 0x9cd0d89d});
}

TEST_CASE("phe model: multi-block mode on blocks padded by hand", "[phe][model]") {
    for (Insn insn : {Insn::kXsha1, Insn::kXsha256}) {
        const bool s1 = insn == Insn::kXsha1;
        const size_t n = s1 ? 5 : 8;
        SECTION(s1 ? "rep xsha1" : "rep xsha256") {
            // "abc": one block; the two-block message of appendix A.2/B.2.
            const Bytes abc = padded(text("abc")), two = padded(text(kTwoBlock));
            REQUIRE(abc.size() == 64);
            REQUIRE(two.size() == 128);
            Area a = area_with(s1 ? kSha1Init : kSha256Init, n);
            const Regs in = regs(phe::kMultiBlock, 1, abc.data(), &a);
            issue(insn, in);
            CHECK(to_hex(digest_of(a, 4 * n)) ==
                  (s1 ? "a9993e364706816aba3e25717850c26c9cd0d89d"
                      : "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));

            a = area_with(s1 ? kSha1Init : kSha256Init, n);
            phe::reset_counters();
            issue(insn, regs(phe::kMultiBlock, 2, two.data(), &a));
            CHECK(to_hex(digest_of(a, 4 * n)) ==
                  (s1 ? "84983e441c3bd26ebaae4aa1f95129e5e54670f1"
                      : "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
            if (phe::model_active()) {
                CHECK(phe::counters().blocks == 2);
                CHECK(phe::counters().multi_block == 1);
            }
        }
    }
}

TEST_CASE("phe model: padding mode pads a spilling tail into two blocks", "[phe][model]") {
    // 56 bytes: the length no longer fits, so the padding takes a second block.
    const Bytes msg = text(kTwoBlock);
    Area a = area_with(kSha256Init, 8);
    phe::reset_counters();
    issue(Insn::kXsha256, regs(0, msg.size(), msg.data(), &a));
    CHECK(to_hex(digest_of(a, 32)) ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    PHE_MODEL_ONLY();
    CHECK(phe::counters().blocks == 2);
}

// FIPS 180-2 A.3 / B.3: one million 'a', 15625 blocks in a single instruction.
TEST_CASE("phe model: one million 'a' in one instruction, both modes", "[phe][model]") {
    const Bytes msg(1000000, 'a');
    const Bytes pad = padded(msg);
    for (Insn insn : {Insn::kXsha1, Insn::kXsha256}) {
        const bool s1 = insn == Insn::kXsha1;
        const size_t n = s1 ? 5 : 8;
        const char* expected = s1 ? "34aa973cd4c4daa4f61eeb2bdbad27316534016f"
                                  : "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
        INFO((s1 ? "rep xsha1" : "rep xsha256"));
        Area a = area_with(s1 ? kSha1Init : kSha256Init, n);
        issue(insn, regs(0, msg.size(), msg.data(), &a));
        CHECK(to_hex(digest_of(a, 4 * n)) == expected);

        a = area_with(s1 ? kSha1Init : kSha256Init, n);
        issue(insn, regs(phe::kMultiBlock, pad.size() / 64, pad.data(), &a));
        CHECK(to_hex(digest_of(a, 4 * n)) == expected);
    }
}

// ShortMsg covers every length 0..64 bytes (SHA-1/SHA-2), LongMsg long ones;
// each message goes through the padding mode in one instruction.
TEST_CASE("phe model: NIST CAVP ShortMsg and LongMsg in padding mode", "[phe][model][nist]") {
    struct Alg {
        const char* file;
        Insn insn;
        const uint32_t* init;
        size_t words, digest_len;
    };
    const Alg algs[] = {{"SHA1", Insn::kXsha1, kSha1Init, 5, 20},
                        {"SHA224", Insn::kXsha256, kSha224Init, 8, 28},
                        {"SHA256", Insn::kXsha256, kSha256Init, 8, 32}};
    for (const Alg& alg : algs) {
        for (const char* kind : {"ShortMsg", "LongMsg"}) {
            const std::string path = vector_path(std::string("nist/") + alg.file + kind + ".rsp");
            const auto vectors = load_msg_vectors(path);
            REQUIRE(vectors.size() > 60);
            for (const MsgVector& v : vectors) {
                INFO(v.where);
                Area a = area_with(alg.init, alg.words);
                if (v.msg.empty()) {
                    // RCX = 0 does nothing: the caller pads the empty message
                    // itself and runs one block in multi-block mode.
                    const Area before = a;
                    issue(alg.insn, regs(0, 0, nullptr, &a));
                    CHECK(std::memcmp(&a, &before, sizeof a) == 0);
                    const Bytes p = padded(v.msg);
                    issue(alg.insn, regs(phe::kMultiBlock, 1, p.data(), &a));
                } else {
                    issue(alg.insn, regs(0, v.msg.size(), v.msg.data(), &a));
                }
                CHECK(to_hex(digest_of(a, alg.digest_len)) == to_hex(v.expected));
            }
        }
    }
}

// RAX = bytes already hashed: a message hashed partly in multi-block mode
// and finished in padding mode equals the whole message in padding mode.
TEST_CASE("phe model: padding mode continues from RAX bytes already hashed", "[phe][model]") {
    Lcg rng(5);
    for (int iter = 0; iter < 200; ++iter) {
        const Insn insn = iter % 2 ? Insn::kXsha1 : Insn::kXsha256;
        const size_t n = insn == Insn::kXsha1 ? 5 : 8;
        const uint32_t* init = insn == Insn::kXsha1 ? kSha1Init : kSha256Init;
        const size_t len = 1 + rng.length(2000);
        const size_t done_blocks = rng.below((len - 1) / 64 + 1);  // leaves >= 1 byte
        const Bytes msg = rng.bytes(len);
        INFO("iteration " << iter << ", length " << len << ", blocks first " << done_blocks);

        Area whole = area_with(init, n);
        issue(insn, regs(0, len, msg.data(), &whole));

        Area parts = area_with(init, n);
        if (done_blocks) issue(insn, regs(phe::kMultiBlock, done_blocks, msg.data(), &parts));
        issue(insn, regs(64 * done_blocks, len, msg.data() + 64 * done_blocks, &parts));
        CHECK(words(parts, n) == words(whole, n));
    }
}

TEST_CASE("phe model: RCX = 0 does nothing in either mode", "[phe][model]") {
    const Bytes msg(64, 0x61);
    for (Insn insn : {Insn::kXsha1, Insn::kXsha256}) {
        for (uint64_t rax : {phe::kMultiBlock, uint64_t{0}}) {
            INFO("RAX " << rax);
            Area a = area_with(kSha256Init, 8);
            const Area before = a;
            phe::reset_counters();
            const Regs in = regs(rax, 0, msg.data(), &a);
            const Regs out = issue(insn, in);
            CHECK(std::memcmp(&a, &before, sizeof a) == 0);
            CHECK(out.rsi == in.rsi);
            if (phe::model_active()) {
                CHECK(phe::counters().zero_count == 1);
                CHECK(phe::counters().blocks == 0);
            }
        }
    }
}

// The model's documented pessimism: the whole 128-byte area is the
// instruction's, so bytes past the state words do not survive.
TEST_CASE("phe model: the rest of the 128-byte state area is overwritten", "[phe][model]") {
    PHE_MODEL_ONLY();
    const Bytes block = padded(text("abc"));
    for (Insn insn : {Insn::kXsha1, Insn::kXsha256}) {
        const size_t n = insn == Insn::kXsha1 ? 5 : 8;
        Area a = area_with(kSha256Init, 8);
        const Area before = a;
        issue(insn, regs(phe::kMultiBlock, 1, block.data(), &a));
        const auto* now = reinterpret_cast<const uint8_t*>(&a);
        const auto* old = reinterpret_cast<const uint8_t*>(&before);
        size_t changed = 0;
        for (size_t i = 4 * n; i < sizeof a; ++i) changed += now[i] != old[i];
        CHECK(changed == sizeof a - 4 * n);
    }
}

TEST_CASE("phe model: requirements the documentation states are enforced", "[phe][model]") {
    const Bytes msg(256, 0x62);
    alignas(16) uint8_t raw[160];
    std::memset(raw, 0x11, sizeof raw);
    uint8_t snapshot[sizeof raw];
    std::memcpy(snapshot, raw, sizeof raw);
    struct Case {
        uint64_t rax, rcx;
        size_t rdi_offset;
        phe::Result expected;
    };
    const Case cases[] = {
        {phe::kMultiBlock, 1, 4, phe::Result::kMisalignedState},
        {phe::kMultiBlock, 1, 8, phe::Result::kMisalignedState},
        {0, 10, 1, phe::Result::kMisalignedState},
        {10, 100, 0, phe::Result::kPaddingNotBlockMultiple},
        {128, 100, 0, phe::Result::kPaddingPastTotal},
        {64, 0, 0, phe::Result::kPaddingPastTotal},
        {128, 128, 0, phe::Result::kPaddingNothingLeft},
    };
    for (const Case& c : cases) {
        for (Insn insn : {Insn::kXsha1, Insn::kXsha256}) {
            INFO("RAX " << c.rax << ", RCX " << c.rcx << ", RDI offset " << c.rdi_offset);
            Regs r = regs(c.rax, c.rcx, msg.data(), raw + c.rdi_offset);
            const Regs before = r;
            CHECK(phe::execute(insn, r) == c.expected);
            CHECK(std::memcmp(&r, &before, sizeof r) == 0);
            CHECK(std::memcmp(raw, snapshot, sizeof raw) == 0);
        }
    }
    // Through the trap, a violation stops the process rather than guess.
    PHE_MODEL_ONLY();
    CHECK(dies_with(SIGABRT, [&] { issue(Insn::kXsha256, regs(0, 10, msg.data(), raw + 4)); }));
    CHECK(dies_with(SIGABRT, [&] { issue(Insn::kXsha1, regs(10, 100, msg.data(), raw)); }));
}

TEST_CASE("phe model: other illegal instructions still kill the process", "[phe][model]") {
    CHECK(dies_with(SIGILL, [] { __asm__ __volatile__("ud2"); }));
    // rep xsha384 (PHE2) is not modelled: SIGILL as on this CPU without the
    // model (with RCX = 0, in case a CPU does execute it).
    if (phe::model_active())
        CHECK(dies_with(SIGILL, [] {
            __asm__ __volatile__(".byte 0xf3,0x0f,0xa6,0xd8" : : "a"(-1L), "c"(0L) : "rsi", "memory");
        }));
    // ... and the model is still in place afterwards in this process.
    const Bytes msg = text("abc");
    Area a = area_with(kSha1Init, 5);
    issue(Insn::kXsha1, regs(0, 3, msg.data(), &a));
    CHECK(a.w[0] == 0xa9993e36);
}

TEST_CASE("phe model: poisoned outputs leave garbage in RAX, RCX, RSI too", "[phe][model]") {
    PHE_MODEL_ONLY();
    const Bytes msg = text("abc");
    Area a = area_with(kSha256Init, 8);
    phe::set_poison_outputs(true);
    const Regs in = regs(0, 3, msg.data(), &a);
    const Regs out = issue(Insn::kXsha256, in);
    phe::set_poison_outputs(false);
    CHECK(a.w[0] == 0xba7816bf);
    CHECK(out.rax != 3);
    CHECK(out.rcx != 3);
    CHECK(out.rsi != in.rsi + 3);
    CHECK(out.rdi != in.rdi);
}

// The kernel's review counts RDI among the outputs: the model changes it
// after every instruction, to a non-canonical address (any use as a pointer
// faults), in both modes and for the RCX = 0 no-op, through the trap and
// through execute() alike. phe_rdi_must_fail shows an engine that relied on
// RDI failing under it.
TEST_CASE("phe model: RDI is changed after every instruction", "[phe][model][outputs]") {
    PHE_MODEL_ONLY();
    const Bytes msg = Lcg(8).bytes(200);
    const auto non_canonical = [](uint64_t v) {
        const uint64_t top = v >> 47;  // bits 47..63 must all be equal in a canonical address
        return top != 0 && top != 0x1ffff;
    };
    for (Insn insn : {Insn::kXsha1, Insn::kXsha256}) {
        INFO((insn == Insn::kXsha1 ? "rep xsha1" : "rep xsha256"));
        for (const Regs& in : {regs(phe::kMultiBlock, 3, msg.data(), nullptr),
                               regs(64, 200, msg.data() + 64, nullptr),
                               regs(phe::kMultiBlock, 0, msg.data(), nullptr),
                               regs(0, 0, msg.data(), nullptr)}) {
            INFO("RAX " << in.rax << ", RCX " << in.rcx);
            Area a = area_with(kSha256Init, 8);
            Regs with_area = in;
            with_area.rdi = addr(&a);
            const Regs out = issue(insn, with_area);
            CHECK(out.rdi != with_area.rdi);
            CHECK(non_canonical(out.rdi));
            Area b = area_with(kSha256Init, 8);
            Regs direct = in;
            direct.rdi = addr(&b);
            REQUIRE(phe::execute(insn, direct) == phe::Result::kDone);
            CHECK((direct.rdi ^ addr(&b)) == (out.rdi ^ addr(&a)));
            CHECK(std::memcmp(&a, &b, sizeof a) == 0);
        }
    }
}

TEST_CASE("phe model: threads trap concurrently", "[phe][model][threads]") {
    const Bytes pad = padded(text("abc"));
    std::vector<std::thread> threads;
    std::vector<int> bad(4, 0);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 300; ++i) {
                Area a = area_with(kSha256Init, 8);
                issue(Insn::kXsha256, regs(phe::kMultiBlock, 1, pad.data(), &a));
                bad[t] += a.w[0] != 0xba7816bf || a.w[7] != 0xf20015ad;
            }
        });
    for (auto& th : threads) th.join();
    CHECK(bad == std::vector<int>(4, 0));
}

// What the registers hold afterwards: documented only as "outputs", so these
// are the model's assumptions (phe_model.hpp), kept apart so that a run on
// silicon that disagrees points at them. Engines must not rely on them.
TEST_CASE("phe model: registers after the instruction (assumed)", "[phe][model][outputs]") {
    const Bytes msg = Lcg(7).bytes(300);
    for (Insn insn : {Insn::kXsha1, Insn::kXsha256}) {
        INFO((insn == Insn::kXsha1 ? "rep xsha1" : "rep xsha256"));
        Area a = area_with(kSha256Init, 8);
        // Multi-block: RSI past the blocks, RCX counted down to 0, RAX kept.
        Regs in = regs(phe::kMultiBlock, 4, msg.data(), &a);
        Regs out = issue(insn, in);
        CHECK(out.rsi == in.rsi + 256);
        CHECK(out.rcx == 0);
        CHECK(out.rax == phe::kMultiBlock);
        // Padding: RSI past the message, RAX = bytes hashed = RCX.
        in = regs(128, 300, msg.data() + 128, &a);
        out = issue(insn, in);
        CHECK(out.rsi == in.rsi + 172);
        CHECK(out.rax == 300);
        CHECK(out.rcx == 300);
    }
}
