// Tests of the CPACF instruction model itself, before anything relies on it:
// third-party vectors through its KLMD, partial completion, its register
// handling against qemu's own KIMD/KLMD-SHA-512 (or the hardware's), operand
// checks, and the trap path (SIGILL -> model -> resume with cc).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "s390x/cpacf_model.hpp"
#include "s390x/s390x_asm.hpp"
#include "support/hashers.hpp"
#include "support/vectors.hpp"
#include "s390x/cpacf.hpp"  // backend internals, through hwaccel_backend_internals

using namespace hwaccel::test;
namespace model = hwaccel::test::cpacf_model;
namespace s390x = hwaccel::s390x;

namespace {

uint64_t addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

// Issues `insn` on the model until it completes, like the brc 1 loop.
// Returns how many issues ended in cc 3.
int model_run(const uint8_t insn[4], model::Regs& r, size_t max_units) {
    int partial = 0;
    for (;;) {
        const model::Result res = model::execute(insn, r, max_units);
        if (res == model::Result::kPartial) {
            REQUIRE(r.cc == 3);
            ++partial;
            continue;
        }
        REQUIRE(res == model::Result::kComplete);
        REQUIRE(r.cc == 0);
        return partial;
    }
}

void put_be(uint8_t* p, uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i, v >>= 8) p[i] = static_cast<uint8_t>(v);
}

constexpr uint32_t kSha1Iv[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
constexpr uint32_t kSha224Iv[8] = {0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939,
                                   0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4};
constexpr uint32_t kSha256Iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
constexpr uint64_t kSha512Iv[8] = {0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b,
                                   0xa54ff53a5f1d36f1, 0x510e527fade682d1, 0x9b05688c2b3e6c1f,
                                   0x1f83d9abfb41bd6b, 0x5be0cd19137e2179};

unsigned code_of(Algo a) {
    switch (a) {
    case Algo::kSha1: return 0x01;
    case Algo::kSha224:
    case Algo::kSha256: return 0x02;
    case Algo::kSha3_224: return 0x20;
    case Algo::kSha3_256: return 0x21;
    case Algo::kSha3_384: return 0x22;
    case Algo::kSha3_512: return 0x23;
    case Algo::kShake128: return 0x24;
    case Algo::kShake256: return 0x25;
    }
    return 0xff;
}

// A whole message through the model's KLMD (after KIMD for a prefix of
// `kimd_blocks` blocks), as a program using CPACF directly would.
Bytes model_hash(const AlgoInfo& a, const Bytes& msg, size_t out_len, size_t max_units,
                 size_t kimd_blocks = 0, int* partials = nullptr) {
    uint8_t param[256] = {};
    const unsigned fc = code_of(a.id);
    if (a.family == Family::kSha1) {
        for (int i = 0; i < 5; ++i) put_be(param + 4 * i, kSha1Iv[i], 4);
        put_be(param + 20, msg.size() * 8, 8);
    } else if (a.family == Family::kSha256) {
        const uint32_t* iv = a.id == Algo::kSha224 ? kSha224Iv : kSha256Iv;
        for (int i = 0; i < 8; ++i) put_be(param + 4 * i, iv[i], 4);
        put_be(param + 32, msg.size() * 8, 8);
    }
    Bytes out(out_len);
    model::Regs r;
    r.gr[0] = fc;
    r.gr[1] = addr(param);
    r.gr[2] = addr(msg.data());
    r.gr[3] = kimd_blocks * a.block_size;
    int p = 0;
    if (kimd_blocks) p += model_run(kKimd_0_2, r, max_units);
    r.gr[3] = msg.size() - kimd_blocks * a.block_size;
    if (a.xof) {
        r.gr[4] = addr(out.data());
        r.gr[5] = out_len;
        p += model_run(kKlmd_4_2, r, max_units);
        CHECK(r.gr[5] == 0);
        CHECK(r.gr[4] == addr(out.data()) + out_len);
    } else {
        p += model_run(kKlmd_0_2, r, max_units);
        std::memcpy(out.data(), param, out_len);
    }
    CHECK(r.gr[3] == 0);
    CHECK(r.gr[2] == addr(msg.data()) + msg.size());
    if (partials) *partials = p;
    return out;
}

// True if running fn in a child process ends it with SIGILL.
bool dies_with_sigill(const std::function<void()>& fn) {
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        const rlimit no_core = {0, 0};  // an expected crash needs no core file
        setrlimit(RLIMIT_CORE, &no_core);
        // Nor the model's and qemu's reports of it.
        const int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, 2);
        fn();
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGILL;
}

// Is this function code executed by the model here (the machine's KIMD query
// lacks it), rather than by qemu or the hardware?
bool emulated(unsigned long fc) { return !s390x::has_function(s390x::facts().kimd, fc); }

}  // namespace

// ------------------------------------------------------------------ reference functions

TEST_CASE("model: its hash functions give the FIPS examples", "[s390x][model]") {
    const Bytes abc = {'a', 'b', 'c'};
    CHECK(to_hex(model_hash(algo_info(Algo::kSha1), abc, 20, 0)) ==
          "a9993e364706816aba3e25717850c26c9cd0d89d");
    CHECK(to_hex(model_hash(algo_info(Algo::kSha256), abc, 32, 0)) ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(to_hex(model_hash(algo_info(Algo::kSha3_256), abc, 32, 0)) ==
          "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532");
    CHECK(to_hex(model_hash(algo_info(Algo::kShake128), Bytes{}, 32, 0)) ==
          "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26");

    // SHA-512 (only used to compare with qemu): FIPS 180-2 "abc".
    uint64_t h[8];
    std::memcpy(h, kSha512Iv, sizeof h);
    uint8_t block[128] = {'a', 'b', 'c', 0x80};
    block[127] = 24;
    model::sha512_block(h, block);
    CHECK(h[0] == 0xddaf35a193617abaULL);
    CHECK(h[7] == 0x2a9ac94fa54ca49fULL);
}

TEST_CASE("model: NIST CAVP vectors through its KLMD", "[s390x][model]") {
    for (const AlgoInfo& a : all_algos()) {
        DYNAMIC_SECTION(a.name) {
            std::vector<const char*> kinds = {"ShortMsg", "LongMsg"};
            if (a.xof) kinds.push_back("VariableOut");
            size_t n = 0;
            for (const char* kind : kinds) {
                const auto vectors = load_msg_vectors(
                    vector_path(std::string("nist/") + a.nist_name + kind + ".rsp"));
                for (const MsgVector& v : vectors) {
                    INFO(v.where);
                    // Every fifth vector also with one block per issue (cc 3 in between).
                    const size_t units = n++ % 5 == 0 ? 1 : 0;
                    CHECK(to_hex(model_hash(a, v.msg, v.expected.size(), units)) ==
                          to_hex(v.expected));
                }
            }
            CHECK(n > 0);
        }
    }
}

// ------------------------------------------------------------------ GHASH

namespace {

// McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)", revised,
// Appendix B: H, the hashed blocks (C, then len(A) || len(C)) and GHASH.
struct GhashCase {
    const char* h;
    const char* blocks;
    const char* ghash;
};
const GhashCase kGhashCases[] = {
    {"66e94bd4ef8a2c3b884cfa59ca342b2e",  // test case 2
     "0388dace60b6a392f328c2b971b2fe78"
     "00000000000000000000000000000080",
     "f38cbb1ad69223dcc3457ae5b6b0f885"},
    {"b83b533708bf535d0aa6e52980d53b78",  // test case 3
     "42831ec2217774244b7221b784d0d49c"
     "e3aa212f2c02a4e035c17e2329aca12e"
     "21d514b25466931c7d8f6a5aac84aa05"
     "1ba30b396a0aac973d58e091473f5985"
     "00000000000000000000000000000200",
     "7f1b32b81b820d02614f8895ac1d4eac"},
};
// Test case 3's X_1..X_4: GHASH after each block of C.
const char* const kCase3Running[] = {
    "59ed3f2bb1a0aaa07c9f56c6a504647b", "b714c9048389afd9f9bc5c1d4378e052",
    "47400c6577b1ee8d8f40b2721e86ff10", "4796cf49464704b5dd91f159bb1b7f95"};

// KIMD-GHASH on the model from ICV `y`, at most `units` blocks per issue.
Bytes model_ghash(const Bytes& h, const Bytes& y, const Bytes& data, size_t units,
                  int* partials = nullptr) {
    uint8_t param[32];
    std::memcpy(param, y.data(), 16);
    std::memcpy(param + 16, h.data(), 16);
    model::Regs r;
    r.gr[0] = 0x41;
    r.gr[1] = addr(param);
    r.gr[2] = addr(data.data());
    r.gr[3] = data.size();
    const int p = model_run(kKimd_0_2, r, units);
    if (partials) *partials = p;
    CHECK(r.gr[0] == 0x41);
    CHECK(r.gr[2] == addr(data.data()) + data.size());
    CHECK(r.gr[3] == 0);
    CHECK(to_hex(param + 16, 16) == to_hex(h));  // H is only read
    return Bytes(param, param + 16);
}

}  // namespace

TEST_CASE("model: KIMD-GHASH gives the McGrew-Viega GHASH values", "[s390x][model][ghash]") {
    for (const GhashCase& c : kGhashCases) {
        INFO("H " << c.h);
        for (size_t units : {0, 1, 2}) {
            CHECK(to_hex(model_ghash(from_hex(c.h), Bytes(16, 0), from_hex(c.blocks), units)) ==
                  c.ghash);
        }
    }
    // One block per issue: after each cc 3 the ICV in the parameter block is
    // the running value.
    const Bytes h = from_hex(kGhashCases[1].h), blocks = from_hex(kGhashCases[1].blocks);
    uint8_t param[32] = {};
    std::memcpy(param + 16, h.data(), 16);
    model::Regs r;
    r.gr[0] = 0x41;
    r.gr[1] = addr(param);
    r.gr[2] = addr(blocks.data());
    r.gr[3] = blocks.size();
    for (const char* running : kCase3Running) {
        REQUIRE(model::execute(kKimd_0_2, r, 1) == model::Result::kPartial);
        CHECK(r.cc == 3);
        CHECK(to_hex(param, 16) == running);
    }
    REQUIRE(model::execute(kKimd_0_2, r, 1) == model::Result::kComplete);
    CHECK(to_hex(param, 16) == kGhashCases[1].ghash);
}

TEST_CASE("model: its GF(2^128) multiply is a field multiply", "[s390x][model][ghash]") {
    Lcg rng(65);
    Bytes one(16, 0);
    one[0] = 0x80;  // x^0: the top bit of byte 0
    Bytes x_to_1(16, 0);
    x_to_1[0] = 0x40;
    for (int iter = 0; iter < 50; ++iter) {
        const Bytes a = rng.bytes(16), b = rng.bytes(16), c = rng.bytes(16);
        uint8_t ab[16], ba[16], t[16], u[16], v[16];
        model::gf128_multiply(ab, a.data(), b.data());
        model::gf128_multiply(ba, b.data(), a.data());
        CHECK(to_hex(ab, 16) == to_hex(ba, 16));  // commutative
        model::gf128_multiply(t, a.data(), one.data());
        CHECK(to_hex(t, 16) == to_hex(a));  // 1 is neutral
        // Distributive: a * (b ^ c) = a * b ^ a * c.
        Bytes bc(16);
        for (int i = 0; i < 16; ++i) bc[i] = b[i] ^ c[i];
        model::gf128_multiply(t, a.data(), bc.data());
        model::gf128_multiply(u, a.data(), c.data());
        for (int i = 0; i < 16; ++i) u[i] ^= ab[i];
        CHECK(to_hex(t, 16) == to_hex(u, 16));
        // Associative: (a * b) * c = a * (b * c).
        model::gf128_multiply(t, ab, c.data());
        model::gf128_multiply(v, b.data(), c.data());
        model::gf128_multiply(u, a.data(), v);
        CHECK(to_hex(t, 16) == to_hex(u, 16));
    }
    // x^127 * x = x^128 = x^7 + x^2 + x + 1: bits 0, 1, 2, 7 (0xe1 in byte 0).
    Bytes x127(16, 0);
    x127[15] = 0x01;
    uint8_t t[16];
    model::gf128_multiply(t, x127.data(), x_to_1.data());
    CHECK(to_hex(t, 16) == "e1000000000000000000000000000000");
}

TEST_CASE("model: KIMD-GHASH partial completion continues where it stopped",
          "[s390x][model][ghash]") {
    Lcg rng(66);
    for (int iter = 0; iter < 20; ++iter) {
        const size_t nblocks = 1 + rng.below(20);
        const Bytes h = rng.bytes(16), y = rng.bytes(16), data = rng.bytes(16 * nblocks);
        INFO(nblocks << " blocks");
        const Bytes whole = model_ghash(h, y, data, 0);
        // Block by block, each issue from the last's ICV.
        Bytes step = y;
        for (size_t i = 0; i < nblocks; ++i)
            step = model_ghash(h, step, Bytes(data.begin() + 16 * i, data.begin() + 16 * (i + 1)), 0);
        CHECK(to_hex(step) == to_hex(whole));
        for (size_t units : {1, 2, 3}) {
            int partials = 0;
            CHECK(to_hex(model_ghash(h, y, data, units, &partials)) == to_hex(whole));
            CHECK(static_cast<size_t>(partials) == (nblocks - 1) / units);
        }
    }
}

// ------------------------------------------------------------------ partial completion

TEST_CASE("model: partial completion continues where it stopped", "[s390x][model]") {
    Lcg rng(61);
    for (const AlgoInfo& a : all_algos()) {
        DYNAMIC_SECTION(a.name) {
            for (int iter = 0; iter < 20; ++iter) {
                const Bytes msg = rng.bytes(rng.below(6 * a.block_size));
                const size_t out_len = a.xof ? rng.below(4 * a.block_size) : a.digest_size;
                const size_t kimd_blocks = rng.below(msg.size() / a.block_size + 1);
                INFO("length " << msg.size() << ", output " << out_len << ", KIMD blocks "
                               << kimd_blocks);
                const Bytes whole = model_hash(a, msg, out_len, 0, kimd_blocks);
                for (size_t units : {1, 2, 3}) {
                    int partials = 0;
                    CHECK(to_hex(model_hash(a, msg, out_len, units, kimd_blocks, &partials)) ==
                          to_hex(whole));
                    // One block (absorbed or squeezed) per issue. An issue
                    // that finishes its instruction is not partial; KLMD's
                    // padding is a block of its own for Keccak, and goes with
                    // the last whole block for SHA; the first SHAKE output
                    // block goes with the padding.
                    if (units == 1) {
                        const size_t kb = kimd_blocks;
                        const size_t m = (msg.size() - kb * a.block_size) / a.block_size;
                        size_t expected = kb > 0 ? kb - 1 : 0;
                        if (a.family == Family::kKeccak) {
                            expected += m;
                            if (a.xof && out_len > 0) expected += (out_len - 1) / a.block_size;
                        } else {
                            expected += m > 0 ? m - 1 : 0;
                        }
                        CHECK(static_cast<size_t>(partials) == expected);
                    }
                }
            }
        }
    }
}

TEST_CASE("model: registers after a partial completion", "[s390x][model]") {
    Bytes data(4 * 136, 0x5a);
    uint8_t param[200] = {};
    model::Regs r;
    r.gr[0] = 0x21 | 0x8000;  // SHA3-256 with NIP
    r.gr[1] = addr(param);
    r.gr[2] = addr(data.data());
    r.gr[3] = data.size();
    r.gr[9] = 0x1234;
    REQUIRE(model::execute(kKimd_0_2, r, 1) == model::Result::kPartial);
    CHECK(r.cc == 3);
    CHECK(r.gr[2] == addr(data.data()) + 136);
    CHECK(r.gr[3] == 3 * 136);
    CHECK(r.gr[0] == 0x21);  // NIP cleared: the parameter block holds the state now
    CHECK(r.gr[9] == 0x1234);

    // KLMD-SHAKE: in the output phase the model sets PS before stopping.
    Bytes out(3 * 168);
    std::memset(param, 0, sizeof param);
    model::Regs s;
    s.gr[0] = 0x24;
    s.gr[1] = addr(param);
    s.gr[2] = addr(data.data());
    s.gr[3] = 10;
    s.gr[4] = addr(out.data());
    s.gr[5] = out.size();
    REQUIRE(model::execute(kKlmd_4_2, s, 1) == model::Result::kPartial);  // pad + first block
    CHECK(s.gr[3] == 0);
    CHECK(s.gr[5] == 2 * 168);
    CHECK((s.gr[0] & 0x100) != 0);
    REQUIRE(model::execute(kKlmd_4_2, s, 0) == model::Result::kComplete);
    CHECK(s.gr[5] == 0);
    CHECK(to_hex(out) ==
          to_hex(model_hash(algo_info(Algo::kShake128), Bytes(10, 0x5a), out.size(), 0)));
}

// ------------------------------------------------------------------ flags

TEST_CASE("model: NIP ignores the parameter block, PS continues a squeeze", "[s390x][model]") {
    Lcg rng(62);
    for (Algo id : {Algo::kSha3_256, Algo::kShake128, Algo::kShake256}) {
        const AlgoInfo& a = algo_info(id);
        INFO(a.name);
        const Bytes msg = rng.bytes(300);
        const size_t out_len = a.xof ? 2 * a.block_size + 17 : a.digest_size;
        const Bytes ref = model_hash(a, msg, a.xof ? 5 * a.block_size : out_len, 0);

        uint8_t param[200];
        rng.fill(param, sizeof param);  // garbage that NIP must ignore
        Bytes out(out_len);
        model::Regs r;
        r.gr[0] = code_of(id) | 0x8000;
        r.gr[1] = addr(param);
        r.gr[2] = addr(msg.data());
        r.gr[3] = msg.size();
        r.gr[4] = addr(out.data());
        r.gr[5] = out_len;
        model_run(a.xof ? kKlmd_4_2 : kKlmd_0_2, r, 0);
        if (!a.xof) std::memcpy(out.data(), param, out_len);
        CHECK(to_hex(out) == to_hex(Bytes(ref.begin(), ref.begin() + out_len)));

        if (a.xof) {
            // The state now is the one that produced the last (partial) block;
            // finish that block from it, then squeeze on with PS.
            const size_t used = out_len % a.block_size;
            Bytes more(a.block_size - used + 2 * a.block_size);
            std::memcpy(more.data(), param + used, a.block_size - used);
            model::Regs s;
            s.gr[0] = code_of(id) | 0x100;
            s.gr[1] = addr(param);
            s.gr[4] = addr(more.data() + a.block_size - used);
            s.gr[5] = 2 * a.block_size;
            s.gr[2] = 2;  // ignored with PS
            s.gr[3] = 0;
            model_run(kKlmd_4_2, s, 1);
            Bytes got(out);
            got.insert(got.end(), more.begin(), more.end());
            CHECK(to_hex(got) == to_hex(Bytes(ref.begin(), ref.begin() + got.size())));
        }
    }
}

// ------------------------------------------------------------------ against qemu

namespace {

// Compares one issue of `insn` by qemu/hardware (function code 3, SHA-512,
// which qemu implements) with the model, from the same registers, memory
// and incoming condition code.
void compare_sha512(Issue (*issue)(const Issue&), const uint8_t insn[4], unsigned r2,
                    const Bytes& data, size_t len, const uint8_t param_in[80]) {
    uint8_t p_real[80], p_model[80];
    std::memcpy(p_real, param_in, 80);
    std::memcpy(p_model, param_in, 80);
    Issue in;
    for (int i = 0; i < 8; ++i) in.gr[i] = 0x1111111111111111ULL * (i + 1);  // sentinels
    in.gr[0] = 0x03;
    in.gr[r2] = addr(data.data());
    in.gr[r2 + 1] = len;
    in.cc = 3;  // stale cc 3: must come back 0

    in.gr[1] = addr(p_real);
    Issue real = issue(in);
    int rounds = 0;
    while (real.cc == 3 && rounds++ < 1000) real = issue(real);

    model::Regs m;
    for (int i = 0; i < 8; ++i) m.gr[i] = in.gr[i];
    m.gr[1] = addr(p_model);
    m.cc = in.cc;
    REQUIRE(model_run(insn, m, 0) == 0);  // unlimited: one issue

    for (int i = 0; i < 8; ++i) {
        INFO("GR" << i);
        if (i == 1) {
            CHECK(real.gr[1] == addr(p_real));
            CHECK(m.gr[1] == addr(p_model));
        } else {
            CHECK(real.gr[i] == m.gr[i]);
        }
    }
    CHECK(real.cc == 0);
    CHECK(m.cc == 0);
    CHECK(to_hex(p_real, 80) == to_hex(p_model, 80));
}

}  // namespace

TEST_CASE("model: register handling equals qemu's own KIMD/KLMD-SHA-512", "[s390x][model][qemu]") {
    // qemu 7.2 implements function code 3 itself (as does any IBM Z), so the
    // very same instruction runs on both sides.
    REQUIRE(!emulated(0x03));
    Lcg rng(63);
    const Bytes data = rng.bytes(2000);
    uint8_t param[80] = {};
    for (int i = 0; i < 8; ++i) put_be(param + 8 * i, kSha512Iv[i], 8);

    for (size_t len : {0, 128, 256, 1280}) {
        INFO("KIMD, length " << len);
        compare_sha512(kimd_0_2, kKimd_0_2, 2, data, len, param);
        compare_sha512(kimd_0_6, kKimd_0_6, 6, data, len, param);
    }
    for (size_t len : {0, 1, 111, 112, 127, 128, 129, 1000, 2000}) {
        INFO("KLMD, length " << len);
        // MBL: the total bit length, 128 bits big-endian after the chaining value.
        put_be(param + 64, 0, 8);
        put_be(param + 72, len * 8, 8);
        compare_sha512(klmd_0_2, kKlmd_0_2, 2, data, len, param);
        compare_sha512(klmd_0_6, kKlmd_0_6, 6, data, len, param);
        // An MBL that is not this message's: both must take it as given.
        put_be(param + 72, 12345, 8);
        compare_sha512(klmd_0_2, kKlmd_0_2, 2, data, len, param);
    }
    // The chained result is SHA-512 itself.
    uint8_t p[80] = {};
    for (int i = 0; i < 8; ++i) put_be(p + 8 * i, kSha512Iv[i], 8);
    put_be(p + 72, 24, 8);
    const Bytes abc = {'a', 'b', 'c'};
    Issue in;
    in.gr[0] = 0x03;
    in.gr[1] = addr(p);
    in.gr[2] = addr(abc.data());
    in.gr[3] = 3;
    klmd_0_2(in);
    CHECK(to_hex(p, 64) ==
          "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
          "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
}

TEST_CASE("model: query answers like the machine's, plus the modelled codes",
          "[s390x][model][qemu]") {
    for (bool klmd : {false, true}) {
        INFO((klmd ? "KLMD" : "KIMD"));
        uint8_t real_map[16] = {}, model_map[16] = {};
        Issue in;
        in.gr[1] = addr(real_map);
        in.gr[2] = 0x2222;
        in.gr[3] = 0x3333;
        in.cc = 3;
        const Issue real = klmd ? klmd_0_2(in) : kimd_0_2(in);
        model::Regs m;
        for (int i = 0; i < 8; ++i) m.gr[i] = in.gr[i];
        m.gr[1] = addr(model_map);
        REQUIRE(model::execute(klmd ? kKlmd_0_2 : kKimd_0_2, m, 0) == model::Result::kComplete);
        CHECK(real.cc == 0);
        CHECK(m.cc == 0);
        for (int i = 0; i < 8; ++i)
            if (i != 1) CHECK(real.gr[i] == m.gr[i]);
        for (unsigned fc = 0; fc < 128; ++fc) {
            INFO("function code " << fc);
            // Whatever this machine executes itself, the model answers too.
            if (s390x::has_function(real_map, fc)) CHECK(s390x::has_function(model_map, fc));
            CHECK(s390x::has_function(model_map, fc) == model::implements(fc, klmd));
        }
    }
}

// ------------------------------------------------------------------ program checks

TEST_CASE("model: malformed operands are specification exceptions", "[s390x][model]") {
    uint8_t param[200] = {};
    Bytes data(200);
    auto regs = [&](uint64_t gr0, uint64_t len) {
        model::Regs r;
        r.gr[0] = gr0;
        r.gr[1] = addr(param);
        for (int i : {2, 4, 6}) r.gr[i] = addr(data.data());
        for (int i : {3, 5, 7}) r.gr[i] = len;
        return r;
    };
    using model::Result;
    auto run = [](const uint8_t insn[4], model::Regs r) { return model::execute(insn, r, 0); };
    CHECK(run(kKimd_0_3, regs(0x21, 136)) == Result::kSpecification);         // odd R2
    CHECK(run(kKimd_0_0, regs(0x21, 136)) == Result::kSpecification);         // R2 = GR0
    CHECK(run(kKimd_0_2, regs(0x21 | 0x80, 136)) == Result::kSpecification);  // modifier bit
    CHECK(run(kKimd_0_2, regs(0x04, 136)) == Result::kSpecification);         // unassigned code
    CHECK(run(kKimd_0_2, regs(0x41, 136)) == Result::kSpecification);         // GHASH: not whole blocks
    CHECK(run(kKlmd_0_2, regs(0x41, 128)) == Result::kSpecification);         // no KLMD-GHASH
    CHECK(run(kKimd_0_2, regs(0x41, 128)) == Result::kComplete);
    CHECK(run(kKimd_0_2, regs(0x21, 135)) == Result::kSpecification);         // not whole blocks
    CHECK(run(kKimd_0_2, regs(0x01, 65)) == Result::kSpecification);
    CHECK(run(kKlmd_5_2, regs(0x24, 10)) == Result::kSpecification);  // SHAKE output: odd R1
    CHECK(run(kKlmd_0_2, regs(0x24, 10)) == Result::kSpecification);  // SHAKE output: R1 = GR0
    CHECK(run(kKlmd_0_2, regs(0x21, 10)) == Result::kComplete);       // SHA-3 ignores R1
    const uint8_t other[4] = {0xb9, 0x04, 0x00, 0x12};                // LGR
    CHECK(run(other, regs(0x21, 0)) == Result::kNotModelled);
}

TEST_CASE("model: program checks end the process, under qemu and under the model",
          "[s390x][model][qemu]") {
    uint8_t param[200] = {};
    static uint8_t data[256];
    auto issue_with = [&](Issue (*fn)(const Issue&), uint64_t gr0, uint64_t len, bool with_model) {
        return [=, &param] {
            if (!with_model) model::uninstall();
            Issue in;
            in.gr[0] = gr0;
            in.gr[1] = addr(param);
            for (int i : {2, 4, 6}) in.gr[i] = addr(data);
            for (int i : {3, 5, 7}) in.gr[i] = len;
            fn(in);
        };
    };
    for (bool with_model : {false, true}) {
        INFO((with_model ? "model installed" : "qemu alone"));
        // SHA-512, which qemu executes: its own operand checks.
        CHECK(dies_with_sigill(issue_with(kimd_0_3, 0x03, 128, with_model)));
        CHECK(dies_with_sigill(issue_with(kimd_0_0, 0x03, 128, with_model)));
        CHECK(dies_with_sigill(issue_with(kimd_0_2, 0x03 | 0x80, 128, with_model)));
        // Codes the model executes: its checks must be fatal too, not skipped.
        CHECK(dies_with_sigill(issue_with(kimd_0_3, 0x21, 136, with_model)));
        CHECK(dies_with_sigill(issue_with(kimd_0_2, 0x21, 135, with_model)));
        CHECK(dies_with_sigill(issue_with(klmd_5_2, 0x24, 10, with_model)));
        CHECK(dies_with_sigill(issue_with(kimd_0_2, 0x41, 17, with_model)));  // GHASH: 16-byte blocks
        CHECK(dies_with_sigill(issue_with(klmd_0_2, 0x41, 16, with_model)));  // no KLMD-GHASH
    }
    // A well-formed instruction survives with the model (the control case).
    CHECK_FALSE(dies_with_sigill(issue_with(kimd_0_2, 0x21, 136, true)));
    CHECK_FALSE(dies_with_sigill(issue_with(kimd_0_2, 0x41, 32, true)));
    if (emulated(0x21)) {
        INFO("SHA3-256 is not executed by this machine itself");
        CHECK(dies_with_sigill(issue_with(kimd_0_2, 0x21, 136, false)));
    }
}

// ------------------------------------------------------------------ trap path

TEST_CASE("model: a trapped KIMD resumes with the registers, memory and cc", "[s390x][model]") {
    REQUIRE(model::installed());
    if (!emulated(0x02)) {
        WARN("this machine executes KIMD-SHA-256 itself; the trap path is not exercised");
    }
    // "abc" padded to one block, then three blocks of the next test.
    uint8_t block[64] = {'a', 'b', 'c', 0x80};
    block[63] = 24;
    uint8_t param[32];
    for (int i = 0; i < 8; ++i) put_be(param + 4 * i, kSha256Iv[i], 4);
    Issue in;
    in.gr[0] = 0x02;
    in.gr[1] = addr(param);
    in.gr[2] = addr(block);
    in.gr[3] = 64;
    in.gr[4] = 0x4444;
    in.gr[5] = 0x5555;
    in.gr[6] = 0x6666;
    in.gr[7] = 0x7777;
    in.cc = 3;
    const uint64_t traps = model::stats().traps;
    const Issue out = kimd_0_2(in);
    CHECK(out.cc == 0);
    CHECK(out.gr[0] == 0x02);
    CHECK(out.gr[1] == addr(param));
    CHECK(out.gr[2] == addr(block) + 64);
    CHECK(out.gr[3] == 0);
    CHECK(out.gr[4] == 0x4444);
    CHECK(out.gr[7] == 0x7777);
    CHECK(to_hex(param, 32) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    if (emulated(0x02)) CHECK(model::stats().traps == traps + 1);
}

TEST_CASE("model: cc=3 from the trap handler re-enters through the engine's loop",
          "[s390x][model]") {
    if (!emulated(0x21)) {
        WARN("this machine executes SHA3-256 itself: nothing to model");
        return;
    }
    const unsigned saved = model::partial_every();
    model::set_partial_every(1);  // every issue stops early when it can
    Lcg rng(64);
    const Bytes data = rng.bytes(8 * 136);
    uint8_t p_loop[200] = {}, p_ref[200] = {};
    const uint64_t partial = model::stats().partial;
    // One issue at a time: cc 3 comes back with the registers advanced.
    Issue in;
    in.gr[0] = 0x21;
    in.gr[1] = addr(p_loop);
    in.gr[2] = addr(data.data());
    in.gr[3] = data.size();
    Issue out = kimd_0_2(in);
    CHECK(out.cc == 3);
    CHECK(out.gr[3] < data.size());
    CHECK(out.gr[2] == addr(data.data()) + (data.size() - out.gr[3]));
    CHECK((data.size() - out.gr[3]) % 136 == 0);
    while (out.cc == 3) out = kimd_0_2(out);
    CHECK(out.gr[3] == 0);
    // The engines' helper loops by itself (brc 1).
    s390x::kimd(0x21, p_ref, data.data(), data.size());
    model::set_partial_every(saved);
    CHECK(to_hex(p_loop, 200) == to_hex(p_ref, 200));
    CHECK(model::stats().partial > partial + 2);
    model::Regs m;
    uint8_t p_model[200] = {};
    m.gr[0] = 0x21;
    m.gr[1] = addr(p_model);
    m.gr[2] = addr(data.data());
    m.gr[3] = data.size();
    model_run(kKimd_0_2, m, 0);
    CHECK(to_hex(p_model, 200) == to_hex(p_ref, 200));
}

TEST_CASE("model: a SIGILL it does not model stays fatal", "[s390x][model]") {
    // Opcode 0x0000 is an operation exception (SIGILL, ILL_ILLOPC).
    CHECK(dies_with_sigill([] { asm volatile(".long 0x00000000" ::: "memory"); }));
}
