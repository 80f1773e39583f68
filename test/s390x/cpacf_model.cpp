// The CPACF KIMD/KLMD model; see cpacf_model.hpp for what it does and what it
// assumes. Everything reachable from the signal handler is async-signal-safe:
// no allocation, no locks, no stdio (write(2) only).
#include "s390x/cpacf_model.hpp"

#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <cfloat>
#include <cmath>
#include <cstring>

namespace hwaccel::test::cpacf_model {
namespace {

// ---------------------------------------------------------------- constants
//
// Derived from their definitions (FIPS 180-4 4.2, 5.3; FIPS 202 3.2) rather
// than typed in, so the model shares no table with any engine.

static_assert(LDBL_MANT_DIG >= 100, "SHA-512 constants need 64 fraction bits: s390x long double");

struct Tables {
    uint32_t k1[4];
    uint32_t k256[64];
    uint64_t k512[80];
    uint64_t keccak_rc[24];
    unsigned rho[25];  // rotation of lane x + 5y
    unsigned pi[25];   // where pi moves lane x + 5y: to y + 5((2x + 3y) mod 5)

    Tables() {
        unsigned primes[80];
        for (unsigned n = 2, count = 0; count < 80; ++n) {
            bool prime = true;
            for (unsigned d = 2; d * d <= n; ++d) prime = prime && n % d != 0;
            if (prime) primes[count++] = n;
        }
        // SHA-1: the integer parts of 2^30 * sqrt(2), sqrt(3), sqrt(5), sqrt(10).
        const double roots[4] = {2, 3, 5, 10};
        for (int i = 0; i < 4; ++i)
            k1[i] = static_cast<uint32_t>(std::ldexp(std::sqrt(roots[i]), 30));
        // SHA-256 / SHA-512: the first 32 / 64 fraction bits of the cube roots
        // of the first 64 / 80 primes.
        for (int i = 0; i < 80; ++i) {
            const long double c = std::cbrt(static_cast<long double>(primes[i]));
            const long double frac = c - std::floor(c);
            k512[i] = static_cast<uint64_t>(std::ldexp(frac, 64));
            if (i < 64) k256[i] = static_cast<uint32_t>(k512[i] >> 32);
        }
        // Keccak iota: RC[ir] has bit 2^j - 1 = rc(j + 7 ir), rc the LFSR
        // x^8 + x^6 + x^5 + x^4 + 1 (FIPS 202 algorithms 5 and 6).
        auto rc = [](unsigned t) {
            unsigned r = 1;  // bit i = R[i]
            for (unsigned i = 0; i < t % 255; ++i) {
                r <<= 1;
                if (r & 0x100) r ^= 0x171;  // R[0,4,5,6] ^= R[8]; truncate
            }
            return r & 1;
        };
        for (unsigned ir = 0; ir < 24; ++ir) {
            keccak_rc[ir] = 0;
            for (unsigned j = 0; j < 7; ++j)
                keccak_rc[ir] |= static_cast<uint64_t>(rc(j + 7 * ir)) << ((1u << j) - 1);
        }
        for (unsigned x = 0; x < 5; ++x)
            for (unsigned y = 0; y < 5; ++y) pi[x + 5 * y] = y + 5 * ((2 * x + 3 * y) % 5);
        // Rho: walk (x, y) from (1, 0) by (y, 2x + 3y) with offsets (t+1)(t+2)/2.
        rho[0] = 0;
        for (unsigned t = 0, x = 1, y = 0; t < 24; ++t) {
            rho[x + 5 * y] = ((t + 1) * (t + 2) / 2) % 64;
            const unsigned nx = y, ny = (2 * x + 3 * y) % 5;
            x = nx;
            y = ny;
        }
    }
};

const Tables kTables;

uint32_t rol32(uint32_t v, unsigned n) { return n == 0 ? v : (v << n) | (v >> (32 - n)); }
uint64_t rol64(uint64_t v, unsigned n) { return n % 64 == 0 ? v : (v << n) | (v >> (64 - n)); }

// Byte-at-a-time big/little-endian access: the model must not depend on the
// host's byte order or alignment.
uint64_t get_be(const uint8_t* p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = v << 8 | p[i];
    return v;
}
void put_be(uint8_t* p, uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i, v >>= 8) p[i] = static_cast<uint8_t>(v);
}
uint64_t get_le64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
    return v;
}
void put_le64(uint8_t* p, uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) p[i] = static_cast<uint8_t>(v);
}

// ---------------------------------------------------------------- functions

struct Code {
    unsigned fc;
    enum Kind { kQueryCode, kSha, kSha3, kShake, kGhash } kind;
    size_t block;  // bytes per block (the rate for Keccak)
    int word;      // SHA: chaining word size in bytes
    int words;     // SHA: chaining words
    size_t mbl;    // SHA: KLMD message-bit-length field size
};

constexpr Code kCodes[] = {
    {0x00, Code::kQueryCode, 0, 0, 0, 0},
    {0x01, Code::kSha, 64, 4, 5, 8},     // SHA-1: 5 words, 64-bit MBL
    {0x02, Code::kSha, 64, 4, 8, 8},     // SHA-256
    {0x03, Code::kSha, 128, 8, 8, 16},   // SHA-512: 128-bit MBL
    {0x20, Code::kSha3, 144, 0, 0, 0},   // SHA3-224
    {0x21, Code::kSha3, 136, 0, 0, 0},   // SHA3-256
    {0x22, Code::kSha3, 104, 0, 0, 0},   // SHA3-384
    {0x23, Code::kSha3, 72, 0, 0, 0},    // SHA3-512
    {0x24, Code::kShake, 168, 0, 0, 0},  // SHAKE128
    {0x25, Code::kShake, 136, 0, 0, 0},  // SHAKE256
    {0x41, Code::kGhash, 16, 0, 0, 0},   // GHASH: KIMD only
};

// KLMD has every code but GHASH (MSA 4 defines KIMD-GHASH alone).
bool has_code(const Code& c, bool klmd) { return !(klmd && c.kind == Code::kGhash); }

const Code* find_code(unsigned fc, bool klmd) {
    for (const Code& c : kCodes)
        if (c.fc == fc && has_code(c, klmd)) return &c;
    return nullptr;
}

constexpr uint64_t kNip = 0x8000;
constexpr uint64_t kPs = 0x0100;

// A chaining value of any of the SHA codes, as 64-bit words.
void sha_compress(const Code& c, uint64_t h[8], const uint8_t* block) {
    if (c.fc == 0x03) {
        sha512_block(h, block);
        return;
    }
    uint32_t s[8];
    for (int i = 0; i < c.words; ++i) s[i] = static_cast<uint32_t>(h[i]);
    if (c.fc == 0x01)
        sha1_block(s, block);
    else
        sha256_block(s, block);
    for (int i = 0; i < c.words; ++i) h[i] = s[i];
}

// Processing budget: blocks left before a partial completion.
struct Budget {
    size_t left;  // SIZE_MAX when unlimited
    size_t used = 0;
    // True when the next block must wait for the next issue (cc 3): the
    // budget is spent and at least one block was done by this issue.
    bool exhausted() const { return used > 0 && left == 0; }
    void spend() {
        ++used;
        if (left != SIZE_MAX && left != 0) --left;
    }
};

Result run_sha(const Code& c, bool klmd, Regs& r, unsigned r2, Budget& budget) {
    uint8_t* param = reinterpret_cast<uint8_t*>(r.gr[1]);
    uint64_t& addr = r.gr[r2];
    uint64_t& len = r.gr[r2 + 1];
    if (!klmd && len % c.block != 0) return Result::kSpecification;
    uint64_t h[8];
    for (int i = 0; i < c.words; ++i) h[i] = get_be(param + i * c.word, c.word);
    auto store = [&] {
        for (int i = 0; i < c.words; ++i) put_be(param + i * c.word, h[i], c.word);
    };
    // Whole blocks; KLMD keeps the last (possibly empty) partial block.
    while (len >= c.block) {
        if (budget.exhausted()) {
            store();
            return Result::kPartial;
        }
        sha_compress(c, h, reinterpret_cast<const uint8_t*>(addr));
        addr += c.block;
        len -= c.block;
        budget.spend();
    }
    if (klmd) {
        // Final padding: 0x80, zeros, the message bit length taken from the
        // parameter block after the chaining value (MBL, big-endian).
        uint8_t last[256] = {};
        std::memcpy(last, reinterpret_cast<const uint8_t*>(addr), len);
        last[len] = 0x80;
        const size_t total = len + 1 + c.mbl <= c.block ? c.block : 2 * c.block;
        std::memcpy(last + total - c.mbl, param + c.words * c.word, c.mbl);
        for (size_t off = 0; off < total; off += c.block) sha_compress(c, h, last + off);
        addr += len;
        len = 0;
    }
    store();
    return Result::kComplete;
}

Result run_keccak(const Code& c, bool klmd, const uint8_t insn[4], Regs& r, unsigned r2,
                  Budget& budget) {
    const unsigned r1 = insn[3] >> 4;
    const bool shake_out = klmd && c.kind == Code::kShake;
    if (shake_out && (r1 == 0 || r1 % 2 != 0)) return Result::kSpecification;
    uint8_t* param = reinterpret_cast<uint8_t*>(r.gr[1]);
    uint64_t& addr = r.gr[r2];
    uint64_t& len = r.gr[r2 + 1];
    if (!klmd && len % c.block != 0) return Result::kSpecification;
    const bool ps = shake_out && (r.gr[0] & kPs) != 0;

    uint64_t a[25] = {};
    if ((r.gr[0] & kNip) == 0)
        for (int i = 0; i < 25; ++i) a[i] = get_le64(param + 8 * i);
    auto store = [&] {
        for (int i = 0; i < 25; ++i) put_le64(param + 8 * i, a[i]);
    };
    auto partial = [&](uint64_t set_flags) {
        store();
        // The parameter block now holds the state to continue from.
        r.gr[0] = (r.gr[0] & ~kNip) | set_flags;
        return Result::kPartial;
    };
    auto absorb = [&](const uint8_t* block) {
        for (size_t i = 0; i < c.block / 8; ++i) a[i] ^= get_le64(block + 8 * i);
        keccak_f1600(a);
    };

    if (!ps) {
        while (len >= c.block) {
            if (budget.exhausted()) return partial(0);
            absorb(reinterpret_cast<const uint8_t*>(addr));
            addr += c.block;
            len -= c.block;
            budget.spend();
        }
        if (klmd) {
            if (budget.exhausted()) return partial(0);
            // Pad: the code's domain bits and the first 1, the last 1 (FIPS 202 B.2).
            uint8_t last[168] = {};
            std::memcpy(last, reinterpret_cast<const uint8_t*>(addr), len);
            last[len] ^= c.kind == Code::kShake ? 0x1f : 0x06;
            last[c.block - 1] ^= 0x80;
            absorb(last);
            addr += len;
            len = 0;
            budget.spend();
        }
    }
    if (shake_out) {
        uint64_t& out = r.gr[r1];
        uint64_t& out_len = r.gr[r1 + 1];
        // Without PS the first block comes from the state the padding left;
        // after that (and with PS from the start) each block is preceded by
        // a permutation.
        bool permute_first = ps;
        while (out_len != 0) {
            if (permute_first && budget.exhausted()) return partial(kPs);
            if (permute_first) keccak_f1600(a);
            uint8_t block[200];
            for (int i = 0; i < 25; ++i) put_le64(block + 8 * i, a[i]);
            const size_t n = out_len < c.block ? out_len : c.block;
            std::memcpy(reinterpret_cast<uint8_t*>(out), block, n);
            out += n;
            out_len -= n;
            permute_first = true;
            budget.spend();
        }
    }
    store();
    return Result::kComplete;
}

// KIMD-GHASH: the parameter block is the ICV (the running GHASH value)
// and then H, 16 bytes each in GCM's byte order; for each block X of the
// second operand, ICV = (ICV ^ X) * H. Partial completion at block
// boundaries, like the other codes, with the ICV stored.
Result run_ghash(Regs& r, unsigned r2, Budget& budget) {
    uint8_t* param = reinterpret_cast<uint8_t*>(r.gr[1]);
    uint64_t& addr = r.gr[r2];
    uint64_t& len = r.gr[r2 + 1];
    if (len % 16 != 0) return Result::kSpecification;
    uint8_t icv[16], h[16];
    std::memcpy(icv, param, 16);
    std::memcpy(h, param + 16, 16);
    while (len != 0) {
        if (budget.exhausted()) {
            std::memcpy(param, icv, 16);
            return Result::kPartial;
        }
        const uint8_t* x = reinterpret_cast<const uint8_t*>(addr);
        for (int i = 0; i < 16; ++i) icv[i] ^= x[i];
        gf128_multiply(icv, icv, h);
        addr += 16;
        len -= 16;
        budget.spend();
    }
    std::memcpy(param, icv, 16);
    return Result::kComplete;
}

// ---------------------------------------------------------------- handler

Stats g_stats;
unsigned g_partial_every = 0;
bool g_installed = false;
struct sigaction g_previous;

void say(const char* text, uint64_t value) {
    char buf[128];
    size_t n = 0;
    for (const char* p = text; *p && n < 100; ++p) buf[n++] = *p;
    buf[n++] = '0';
    buf[n++] = 'x';
    for (int shift = 60; shift >= 0; shift -= 4)
        buf[n++] = "0123456789abcdef"[(value >> shift) & 15];
    buf[n++] = '\n';
    ssize_t ignored = write(2, buf, n);
    (void)ignored;
}

// Makes the trap fatal, as the program check would be on hardware: the
// default action is restored and the instruction issued again.
void fail(ucontext_t* uc, uint64_t insn_addr) {
    signal(SIGILL, SIG_DFL);
    uc->uc_mcontext.psw.addr = insn_addr;
}

void on_sigill(int, siginfo_t* si, void* context) {
    ucontext_t* uc = static_cast<ucontext_t*>(context);
    const uint64_t insn_addr = reinterpret_cast<uint64_t>(si->si_addr);
    // qemu (like Linux) reports the instruction in si_addr with the PSW past it.
    if (si->si_code != ILL_ILLOPN || uc->uc_mcontext.psw.addr != insn_addr + 4) {
        say("cpacf model: SIGILL it does not model at ", insn_addr);
        fail(uc, insn_addr);
        return;
    }
    const uint8_t* insn = reinterpret_cast<const uint8_t*>(insn_addr);
    Regs regs;
    for (int i = 0; i < 16; ++i) regs.gr[i] = uc->uc_mcontext.gregs[i];
    regs.cc = (uc->uc_mcontext.psw.mask >> 44) & 3;

    // Threads may trap at once (the EVP suites share digests between
    // threads): the counters are atomic, the rest is per call.
    const uint64_t n = __atomic_add_fetch(&g_stats.traps, 1, __ATOMIC_RELAXED);
    const unsigned every = __atomic_load_n(&g_partial_every, __ATOMIC_RELAXED);
    size_t budget = 0;
    if (every != 0 && n % every == 0) budget = 1 + (n / every) % 3;
    const Result result = execute(insn, regs, budget);
    if (result != Result::kComplete && result != Result::kPartial) {
        say(result == Result::kSpecification ? "cpacf model: specification exception at "
                                             : "cpacf model: not KIMD/KLMD at ",
            insn_addr);
        fail(uc, insn_addr);
        return;
    }
    __atomic_add_fetch(&g_stats.by_code[regs.gr[0] & 0x7f], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(insn[1] == 0x3f ? &g_stats.klmd : &g_stats.kimd, 1, __ATOMIC_RELAXED);
    if (result == Result::kPartial) __atomic_add_fetch(&g_stats.partial, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 16; ++i) uc->uc_mcontext.gregs[i] = regs.gr[i];
    const uint64_t cc = result == Result::kPartial ? 3 : 0;
    uc->uc_mcontext.psw.mask = (uc->uc_mcontext.psw.mask & ~(uint64_t{3} << 44)) | cc << 44;
}

}  // namespace

// ---------------------------------------------------------------- reference functions

void sha1_block(uint32_t h[5], const uint8_t block[64]) {
    uint32_t w[80];
    for (int t = 0; t < 16; ++t) w[t] = static_cast<uint32_t>(get_be(block + 4 * t, 4));
    for (int t = 16; t < 80; ++t) w[t] = rol32(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; ++t) {
        uint32_t f;
        if (t < 20)
            f = (b & c) | (~b & d);
        else if (t < 40 || t >= 60)
            f = b ^ c ^ d;
        else
            f = (b & c) | (b & d) | (c & d);
        const uint32_t tmp = rol32(a, 5) + f + e + kTables.k1[t / 20] + w[t];
        e = d;
        d = c;
        c = rol32(b, 30);
        b = a;
        a = tmp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

// FIPS 180-4 6.2.2 and 6.4.2: SHA-256 and SHA-512 are one compression over
// different words, round counts, constants and rotation amounts.
struct Sha256Shape {
    using Word = uint32_t;
    static constexpr int kRounds = 64;
    static constexpr unsigned kSmallSigma0[3] = {7, 18, 3}, kSmallSigma1[3] = {17, 19, 10};
    static constexpr unsigned kBigSigma0[3] = {2, 13, 22}, kBigSigma1[3] = {6, 11, 25};
    static Word k(int t) { return kTables.k256[t]; }
};
struct Sha512Shape {
    using Word = uint64_t;
    static constexpr int kRounds = 80;
    static constexpr unsigned kSmallSigma0[3] = {1, 8, 7}, kSmallSigma1[3] = {19, 61, 6};
    static constexpr unsigned kBigSigma0[3] = {28, 34, 39}, kBigSigma1[3] = {14, 18, 41};
    static Word k(int t) { return kTables.k512[t]; }
};

template <class Word>
Word ror(Word v, unsigned n) {
    constexpr unsigned kBits = 8 * sizeof(Word);
    return n % kBits == 0 ? v : static_cast<Word>((v >> n) | (v << (kBits - n)));
}

// sigma: two rotations and a shift; Sigma: three rotations.
template <class Word>
Word small_sigma(Word v, const unsigned (&r)[3]) {
    return ror(v, r[0]) ^ ror(v, r[1]) ^ (v >> r[2]);
}
template <class Word>
Word big_sigma(Word v, const unsigned (&r)[3]) {
    return ror(v, r[0]) ^ ror(v, r[1]) ^ ror(v, r[2]);
}

template <class Shape>
void sha2_block(typename Shape::Word h[8], const uint8_t* block) {
    using Word = typename Shape::Word;
    constexpr int kBytes = sizeof(Word);
    Word w[Shape::kRounds];
    for (int t = 0; t < 16; ++t) w[t] = static_cast<Word>(get_be(block + kBytes * t, kBytes));
    for (int t = 16; t < Shape::kRounds; ++t)
        w[t] = w[t - 16] + small_sigma(w[t - 15], Shape::kSmallSigma0) + w[t - 7] +
               small_sigma(w[t - 2], Shape::kSmallSigma1);
    Word a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int t = 0; t < Shape::kRounds; ++t) {
        const Word t1 =
            hh + big_sigma(e, Shape::kBigSigma1) + ((e & f) ^ (~e & g)) + Shape::k(t) + w[t];
        const Word t2 = big_sigma(a, Shape::kBigSigma0) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

void sha256_block(uint32_t h[8], const uint8_t block[64]) { sha2_block<Sha256Shape>(h, block); }

void sha512_block(uint64_t h[8], const uint8_t block[128]) { sha2_block<Sha512Shape>(h, block); }

// FIPS 202 3.3 step by step; lane (x, y) is a[x + 5y].
void keccak_f1600(uint64_t a[25]) {
    constexpr int kPlus1[5] = {1, 2, 3, 4, 0}, kPlus2[5] = {2, 3, 4, 0, 1},
                  kMinus1[5] = {4, 0, 1, 2, 3};
    for (int ir = 0; ir < 24; ++ir) {
        uint64_t c[5], b[25];
        // theta
        for (int x = 0; x < 5; ++x) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
        for (int x = 0; x < 5; ++x) {
            const uint64_t d = c[kMinus1[x]] ^ rol64(c[kPlus1[x]], 1);
            for (int y = 0; y < 25; y += 5) a[x + y] ^= d;
        }
        // rho and pi: B[y, 2x + 3y] = rot(A[x, y], r[x, y])
        for (int i = 0; i < 25; ++i) b[kTables.pi[i]] = rol64(a[i], kTables.rho[i]);
        // chi
        for (int y = 0; y < 25; y += 5)
            for (int x = 0; x < 5; ++x)
                a[x + y] = b[x + y] ^ (~b[kPlus1[x] + y] & b[kPlus2[x] + y]);
        // iota
        a[0] ^= kTables.keccak_rc[ir];
    }
}

// SP 800-38D 6.3, Algorithm 1, one bit at a time. A block is the bit
// string x_0 x_1 ... x_127 with x_0 the top bit of byte 0 (the coefficient
// of x^0). Here it is held as two big-endian words, so x_0 is the top bit
// of `hi` and x_127 the bottom bit of `lo`. Z collects V = H * x^i for each
// set bit x_i of X; V * x is V >> 1, and when the bit shifted out (x_127)
// was set, x^128 = x^7 + x^2 + x + 1 comes back as R = 11100001 || 0^120.
void gf128_multiply(uint8_t out[16], const uint8_t x[16], const uint8_t h[16]) {
    const uint64_t x_hi = get_be(x, 8), x_lo = get_be(x + 8, 8);
    uint64_t v_hi = get_be(h, 8), v_lo = get_be(h + 8, 8);
    uint64_t z_hi = 0, z_lo = 0;
    for (int i = 0; i < 128; ++i) {
        const uint64_t bit = i < 64 ? (x_hi >> (63 - i)) & 1 : (x_lo >> (127 - i)) & 1;
        if (bit) {
            z_hi ^= v_hi;
            z_lo ^= v_lo;
        }
        const bool carry = (v_lo & 1) != 0;
        v_lo = v_lo >> 1 | v_hi << 63;
        v_hi >>= 1;
        if (carry) v_hi ^= uint64_t{0xe1} << 56;
    }
    put_be(out, z_hi, 8);
    put_be(out + 8, z_lo, 8);
}

// ---------------------------------------------------------------- the model

bool implements(unsigned fc, bool klmd) { return find_code(fc, klmd) != nullptr; }

Result execute(const uint8_t insn[4], Regs& r, size_t max_units) {
    if (insn[0] != 0xb9 || (insn[1] != 0x3e && insn[1] != 0x3f)) return Result::kNotModelled;
    const bool klmd = insn[1] == 0x3f;
    const unsigned r2 = insn[3] & 15;
    // Operand checks first, as hardware and qemu do: the second operand is an
    // even/odd pair other than GR0/GR1; KIMD/KLMD have no modifier bit.
    if (r2 == 0 || r2 % 2 != 0) return Result::kSpecification;
    if (r.gr[0] & 0x80) return Result::kSpecification;
    const Code* code = find_code(r.gr[0] & 0x7f, klmd);
    if (code == nullptr) return Result::kSpecification;

    Budget budget{max_units == 0 ? SIZE_MAX : max_units};
    Result result = Result::kComplete;
    switch (code->kind) {
    case Code::kQueryCode: {
        uint8_t bitmap[16] = {};
        for (const Code& c : kCodes)
            if (has_code(c, klmd)) bitmap[c.fc / 8] |= 0x80 >> (c.fc % 8);
        std::memcpy(reinterpret_cast<uint8_t*>(r.gr[1]), bitmap, sizeof bitmap);
        break;
    }
    case Code::kSha: result = run_sha(*code, klmd, r, r2, budget); break;
    case Code::kSha3:
    case Code::kShake: result = run_keccak(*code, klmd, insn, r, r2, budget); break;
    case Code::kGhash: result = run_ghash(r, r2, budget); break;
    }
    if (result == Result::kComplete) r.cc = 0;
    if (result == Result::kPartial) r.cc = 3;
    return result;
}

void install(unsigned partial_every) {
    g_partial_every = partial_every;
    if (g_installed) return;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigill;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGILL, &sa, &g_previous);
    g_installed = true;
}

void uninstall() {
    if (!g_installed) return;
    sigaction(SIGILL, &g_previous, nullptr);
    g_installed = false;
}

bool installed() { return g_installed; }
void set_partial_every(unsigned n) { __atomic_store_n(&g_partial_every, n, __ATOMIC_RELAXED); }
unsigned partial_every() { return g_partial_every; }
const Stats& stats() { return g_stats; }

}  // namespace hwaccel::test::cpacf_model
