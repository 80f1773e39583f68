// SM4 on x86-64 through the AES S-box: what the AES-NI and the VAES engines
// share (sm4_aesni.cpp, sm4_vaes.cpp). Private to those two files, and to be
// included only inside their "#pragma GCC target" region, after every shared
// header: hence the unnamed namespace (no inline function of it may be merged
// with a copy built for another ISA) and no includes of its own beyond what
// the .cpp files include first.
//
// The S-box. Both S-boxes are affine maps around inversion in GF(2^8) (two
// different polynomials), so (Saarinen, mjosaarinen/sm4ni)
//     SM4_S(x) = N * AES_S(M * x ^ c1) ^ c2
// with M, N 8x8 bit matrices. AESENCLAST computes AES_S (plus ShiftRows and
// a key XOR); an 8x8 matrix applied bytewise is two 16-entry nibble look-ups
// with PSHUFB, register-only and so constant time. M, N, c1, c2 are derived
// below at compile time from the two S-boxes' definitions (static_asserts
// check them; the tests check every engine against the standard table).
//
// Folding. The state words are kept multiplied by M ("M domain": Y = M X
// bytewise) and the round keys as rk' = M rk ^ c1, so the round input
// Y1^Y2^Y3^rk' is already M(X1^X2^X3^rk) ^ c1: no look-up before AESENCLAST.
// After it, N, SM4's linear transform L, the return to the M domain and AES's
// ShiftRows are all linear in the AESENCLAST output s, and L only moves bytes
// by whole-byte rotations plus a per-byte linear map T_d that depends on the
// byte distance d, with T_3 = T_2 and T_1 = T_0 ^ T_2. So
//     M L N SR^-1 (s) = P0(u0) ^ P1(u0 ^ u2) ^ P2(u2) ^ P3(u2),  u_d = U_d(s)
// with U_d = M T_d N as nibble tables (4 PSHUFB) and P_d byte shuffles (4
// PSHUFB, ShiftRows undone inside them). N's constant c2 is cancelled through
// the AESENCLAST key (kc = N^-1 c2), so everything after AESENCLAST is linear.
// A bulk round is 25 vector ops per 8 blocks, loads and stores included; an
// unfolded round (the input affine map before AESENCLAST, as in the Linux
// kernel's sm4-aesni-avx) needs its 5 more.
//
// Bulk layout: 4x4 32-bit transpose per 128-bit lane, so register j of a
// group holds word j of 8 blocks; a group is 8 blocks (one ymm per word).
// Batches of 9-32 blocks (2-4 groups) run in an assembly kernel, a single
// group in registers (see kRegisterGroups).
//
// Serial layout (encrypt_block): a state word's 4 bytes sit at the even
// bytes of each 64-bit half, the odd bytes zero, both halves equal. Then
// ShiftRows is the identity (row 0 stays, row 2 moves by 8 bytes = the other,
// equal half), the AESENCLAST key turns the odd bytes back into zero
// (AES_S(0) = 0x63), and the high nibble is a bare PSRLW (the odd neighbour
// shifts in zeros).
//
// Measured on the development machine (Zen 3 VM at ~2.95 GHz, TSC 2.45 GHz;
// tools/engine_bench.cpp), 16 KiB per call: VAES ~1.8 TSC ticks (2.2 cycles)
// per byte in every parallel mode, 12-13x the default provider; AES-NI
// ~2.05 ticks. The serial path: see encrypt_block and serial_chain.
#pragma once


#define HWACCEL_SM4_INLINE inline __attribute__((always_inline))

namespace hwaccel::x86::sm4x {
namespace {

// --- compile-time derivation of the affine maps ---------------------------------

constexpr uint8_t rotl8(unsigned x, int n) {
    return static_cast<uint8_t>(((x << n) | ((x & 0xFF) >> (8 - n))) & 0xFF);
}
constexpr unsigned parity8(unsigned x) {
    x ^= x >> 4;
    x ^= x >> 2;
    x ^= x >> 1;
    return x & 1;
}
constexpr uint8_t gf_mul(unsigned a, unsigned b, unsigned poly) {
    unsigned r = 0;
    for (int i = 0; i < 8; ++i) {
        if (b & (1u << i)) r ^= a;
        a <<= 1;
        if (a & 0x100) a ^= poly;
    }
    return static_cast<uint8_t>(r);
}
constexpr uint8_t gf_inv(unsigned a, unsigned poly) {  // a^254, 0 -> 0
    unsigned r = 1, p = a;
    for (int e = 254; e != 0; e >>= 1) {
        if (e & 1) r = gf_mul(r, p, poly);
        p = gf_mul(p, p, poly);
    }
    return static_cast<uint8_t>(r);
}

// An 8x8 bit matrix as the images of the 8 unit vectors.
struct Lin {
    uint8_t col[8];
    constexpr uint8_t operator()(unsigned x) const {
        unsigned r = 0;
        for (int i = 0; i < 8; ++i)
            if (x & (1u << i)) r ^= col[i];
        return static_cast<uint8_t>(r);
    }
};
template <class F>
constexpr Lin lin_of(F f) {
    Lin m{};
    for (int i = 0; i < 8; ++i) m.col[i] = f(1u << i);
    return m;
}
constexpr Lin compose(Lin a, Lin b) {  // a after b
    Lin m{};
    for (int i = 0; i < 8; ++i) m.col[i] = a(b.col[i]);
    return m;
}
constexpr Lin inverse(Lin m) {  // by search: 8 x 256 evaluations
    Lin r{};
    for (int i = 0; i < 8; ++i)
        for (unsigned x = 0; x < 256; ++x)
            if (m(x) == (1u << i)) r.col[i] = static_cast<uint8_t>(x);
    return r;
}

constexpr unsigned kAesPoly = 0x11B;  // x^8+x^4+x^3+x+1
constexpr unsigned kSm4Poly = 0x1F5;  // x^8+x^7+x^6+x^5+x^4+x^2+1
// SM4_S(x) = As * inv(As * x ^ 0xD3) ^ 0xD3 (inversion mod kSm4Poly), As the
// circulant matrix whose row i is 0xA7 rotated left by i (same as the comment
// in backends/generic/sm4.cpp). AES_S(y) = Aa * inv(y) ^ 0x63, Aa(b) = b ^
// rotl 1..4 (FIPS-197).
constexpr Lin kAs = lin_of([](unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 8; ++i) r |= parity8(x & rotl8(0xA7, i)) << i;
    return static_cast<uint8_t>(r);
});
constexpr Lin kAa = lin_of([](unsigned b) {
    return static_cast<uint8_t>(b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4));
});
// Field isomorphism GF(2^8)/kSm4Poly -> GF(2^8)/kAesPoly: x -> beta, beta a
// root of kSm4Poly in the AES field (0x23 is one of its eight roots).
constexpr uint8_t kBeta = 0x23;
constexpr Lin kPhi = [] {
    Lin m{};
    unsigned p = 1;
    for (int i = 0; i < 8; ++i) {
        m.col[i] = static_cast<uint8_t>(p);
        p = gf_mul(p, kBeta, kAesPoly);
    }
    return m;
}();
constexpr bool beta_is_root() {
    unsigned v = 0, p = 1;
    for (int i = 0; i <= 8; ++i) {
        if (kSm4Poly & (1u << i)) v ^= p;
        p = gf_mul(p, kBeta, kAesPoly);
    }
    return v == 0;
}
static_assert(beta_is_root(), "beta must be a root of the SM4 field polynomial");

// SM4_S(x) = N * AES_S(M x ^ c1) ^ c2.
constexpr Lin kM = compose(kPhi, kAs);
constexpr uint8_t kC1 = kPhi(0xD3);
constexpr Lin kN = compose(kAs, compose(inverse(kPhi), inverse(kAa)));
constexpr uint8_t kC2 = static_cast<uint8_t>(kN(0x63) ^ 0xD3);
constexpr Lin kMinv = inverse(kM);
// AESENCLAST key byte that cancels c2: N (AES_S ^ kc) = N AES_S ^ c2.
constexpr uint8_t kKc = inverse(kN)(kC2);

constexpr uint8_t aes_sbox(unsigned y) { return static_cast<uint8_t>(kAa(gf_inv(y, kAesPoly)) ^ 0x63); }
constexpr uint8_t sm4_sbox(unsigned x) { return static_cast<uint8_t>(kN(aes_sbox(kM(x) ^ kC1)) ^ kC2); }
// A few entries of the GB/T 32907-2016 table (the tests check all 256
// through the engines).
static_assert(aes_sbox(0x00) == 0x63 && aes_sbox(0x53) == 0xED, "AES S-box");
static_assert(sm4_sbox(0x00) == 0xD6 && sm4_sbox(0x01) == 0x90 && sm4_sbox(0x10) == 0x2B &&
                  sm4_sbox(0x7F) == 0x9E && sm4_sbox(0xA5) == 0x66 && sm4_sbox(0xFF) == 0x48,
              "SM4 S-box through the AES S-box");

// SM4's L on a word whose memory byte p (p = 0 most significant) is b: the
// contribution to memory byte p + d (mod 4) is T_d(b), the same for every p
// (L commutes with byte rotation).
constexpr uint32_t rotl32c(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
constexpr uint32_t sm4_l(uint32_t b) {
    return b ^ rotl32c(b, 2) ^ rotl32c(b, 10) ^ rotl32c(b, 18) ^ rotl32c(b, 24);
}
constexpr uint8_t t_d(int d, unsigned b) {
    return static_cast<uint8_t>(sm4_l(uint32_t{b} << 24) >> (24 - 8 * d));
}
constexpr bool t_identities() {
    for (unsigned b = 0; b < 256; ++b)
        if (t_d(3, b) != t_d(2, b) || t_d(1, b) != (t_d(0, b) ^ t_d(2, b))) return false;
    return true;
}
static_assert(t_identities(), "T_3 = T_2 and T_1 = T_0 ^ T_2: two tables serve all four");

// --- tables -------------------------------------------------------------------

struct Table16 {
    alignas(16) uint8_t b[16];
};
// Entry n of the low table is f(n), of the high table f(n << 4).
template <class F>
constexpr Table16 nibble_lo(F f) {
    Table16 t{};
    for (unsigned n = 0; n < 16; ++n) t.b[n] = f(n);
    return t;
}
template <class F>
constexpr Table16 nibble_hi(F f) {
    Table16 t{};
    for (unsigned n = 0; n < 16; ++n) t.b[n] = f(n << 4);
    return t;
}
constexpr uint8_t u_d(int d, unsigned s) { return kM(t_d(d, kN(s))); }

// X -> M X (data), rk -> M rk ^ c1 (round keys: c1 rides on the low table),
// M^-1, N (key schedule), and the round tables U_d = M T_d N.
constexpr Table16 kMLo = nibble_lo([](unsigned x) { return kM(x); });
constexpr Table16 kMHi = nibble_hi([](unsigned x) { return kM(x); });
constexpr Table16 kMC1Lo = nibble_lo([](unsigned x) { return static_cast<uint8_t>(kM(x) ^ kC1); });
constexpr Table16 kMinvLo = nibble_lo([](unsigned x) { return kMinv(x); });
constexpr Table16 kMinvHi = nibble_hi([](unsigned x) { return kMinv(x); });
constexpr Table16 kNLo = nibble_lo([](unsigned x) { return kN(x); });
constexpr Table16 kNHi = nibble_hi([](unsigned x) { return kN(x); });
constexpr Table16 kU0Lo = nibble_lo([](unsigned s) { return u_d(0, s); });
constexpr Table16 kU0Hi = nibble_hi([](unsigned s) { return u_d(0, s); });
constexpr Table16 kU2Lo = nibble_lo([](unsigned s) { return u_d(2, s); });
constexpr Table16 kU2Hi = nibble_hi([](unsigned s) { return u_d(2, s); });

// Dense layout (AES state byte 4c + r is byte r, MSB first, of word column
// c): term d takes its byte for (c, q) from U_d(s) at the place where
// AESENCLAST's ShiftRows put byte (c, q - d): P_d = rot_d o SR^-1. P0 is the
// kernel's .Linv_shift_row.
constexpr Table16 dense_shuffle(int d) {
    Table16 t{};
    for (int c = 0; c < 4; ++c)
        for (int q = 0; q < 4; ++q) {
            const int p = (q - d + 4) % 4;
            t.b[4 * c + q] = static_cast<uint8_t>(4 * ((c - p + 4) % 4) + p);
        }
    return t;
}
constexpr Table16 kP0 = dense_shuffle(0), kP1 = dense_shuffle(1), kP2 = dense_shuffle(2),
                  kP3 = dense_shuffle(3);
static_assert(kP0.b[1] == 0x0D && kP0.b[2] == 0x0A && kP0.b[15] == 0x03, "inverse ShiftRows");
constexpr Table16 kBswap32 = {{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12}};

// Serial layout: slot v (v = 0..3) of a word is its little-endian byte v
// (memory byte 3 - v), at bytes 2v and 8 + 2v; odd bytes zero. Little-endian
// slots let PUNPCKLBW/PUNPCKHBW with zero spread round keys two at a time.
constexpr uint8_t kZ = 0x80;  // PSHUFB: zero this byte
// Word j of a block (memory order) into the serial layout.
constexpr Table16 spread_block(int j) {
    Table16 t{};
    for (int i = 0; i < 16; ++i) t.b[i] = (i & 1) ? kZ : static_cast<uint8_t>(4 * j + 3 - (i & 7) / 2);
    return t;
}
// Memory byte q takes memory byte q - d: slot v takes slot v + d.
constexpr Table16 serial_rot(int d) {
    Table16 t{};
    for (int i = 0; i < 16; ++i)
        t.b[i] = (i & 1) ? kZ : static_cast<uint8_t>((i & 8) + 2 * (((i & 7) / 2 + d) % 4));
    return t;
}
// Serial layout back to word j of a dense block.
constexpr Table16 gather_word(int j) {
    Table16 t{};
    for (int i = 0; i < 16; ++i) t.b[i] = (i / 4 == j) ? static_cast<uint8_t>(2 * (3 - i % 4)) : kZ;
    return t;
}
constexpr Table16 kSpreadBlock[4] = {spread_block(0), spread_block(1), spread_block(2), spread_block(3)};
constexpr Table16 kR1 = serial_rot(1), kR2 = serial_rot(2), kR3 = serial_rot(3);
constexpr Table16 kGather[4] = {gather_word(0), gather_word(1), gather_word(2), gather_word(3)};
// AESENCLAST key of the serial layout: kc on the data bytes, 0x63 on the zero
// bytes so they stay zero.
constexpr Table16 kSerialKey = [] {
    Table16 t{};
    for (int i = 0; i < 16; ++i) t.b[i] = (i & 1) ? 0x63 : kKc;
    return t;
}();

// --- xmm helpers ----------------------------------------------------------------

HWACCEL_SM4_INLINE __m128i ld(const Table16& t) { return _mm_load_si128(reinterpret_cast<const __m128i*>(t.b)); }
HWACCEL_SM4_INLINE __m128i loadu128(const uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }
HWACCEL_SM4_INLINE void storeu128(uint8_t* p, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }

// Bytewise 8x8 matrix (plus the low table's constant) on a dense register.
HWACCEL_SM4_INLINE __m128i affine128(__m128i x, const Table16& lo, const Table16& hi) {
    const __m128i m = _mm_set1_epi8(0x0F);
    const __m128i l = _mm_and_si128(x, m);
    const __m128i h = _mm_and_si128(_mm_srli_epi16(x, 4), m);
    return _mm_xor_si128(_mm_shuffle_epi8(ld(lo), l), _mm_shuffle_epi8(ld(hi), h));
}

HWACCEL_SM4_INLINE __m256i bc(const Table16& t) {
    return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(t.b)));
}
HWACCEL_SM4_INLINE __m256i loadu256(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
HWACCEL_SM4_INLINE void storeu256(uint8_t* p, __m256i v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
HWACCEL_SM4_INLINE __m256i xor256(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }

HWACCEL_SM4_INLINE __m256i affine256(__m256i x, const Table16& lo, const Table16& hi) {
    const __m256i m = _mm256_set1_epi8(0x0F);
    const __m256i l = _mm256_and_si256(x, m);
    const __m256i h = _mm256_and_si256(_mm256_srli_epi16(x, 4), m);
    return xor256(_mm256_shuffle_epi8(bc(lo), l), _mm256_shuffle_epi8(bc(hi), h));
}

// The SM4 S-box on the four bytes of x (key schedule): broadcast so that
// ShiftRows has nothing to move.
HWACCEL_SM4_INLINE uint32_t sbox_word(uint32_t x) {
    __m128i v = affine128(_mm_set1_epi32(static_cast<int>(x)), kMC1Lo, kMHi);
    v = _mm_aesenclast_si128(v, _mm_set1_epi8(static_cast<char>(kKc)));
    return static_cast<uint32_t>(_mm_cvtsi128_si32(affine128(v, kNLo, kNHi)));
}

// GB/T 32907-2016 FK and CK.
constexpr uint32_t kFK[4] = {0xA3B1BAC6, 0x56AA3350, 0x677D9197, 0xB27022DC};
constexpr uint32_t ck_word(int i) {
    uint32_t w = 0;
    for (int j = 0; j < 4; ++j) w = (w << 8) | (((4 * i + j) * 7) & 0xFF);
    return w;
}

// Round keys of the serial path, M domain with c1, each spread to 8 bytes
// (one half of the serial layout) and loaded duplicated (MOVDDUP) when used.
// set_key writes them into the key's engine_data, both directions, so the
// one-block path starts at once (built per call they cost ~30 cycles, 7% of a
// block): 4 loads, 4 affine maps, 8 unpacks, 8 stores per direction, then an
// 8-byte zero slot that round 31 reads as "the next key".
constexpr size_t kSerialKeyBytes = 264;
constexpr size_t kSerialEnc = 0, kSerialDec = kSerialKeyBytes;
static_assert(2 * kSerialKeyBytes <= Sm4Key::kEngineDataSize, "serial keys fit the key's engine data");

HWACCEL_SM4_INLINE void write_serial_keys(uint8_t* dst, const uint32_t rk[32]) {
    const __m256i zero = _mm256_setzero_si256();
    for (int j = 0; j < 4; ++j) {
        const __m256i v = affine256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(rk + 8 * j)), kMC1Lo, kMHi);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 64 * j), _mm256_unpacklo_epi8(v, zero));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + 64 * j + 32), _mm256_unpackhi_epi8(v, zero));
    }
    _mm_storel_epi64(reinterpret_cast<__m128i*>(dst + 256), _mm256_castsi256_si128(zero));
}

// One direction's serial keys.
class SerialKeys {
public:
    explicit SerialKeys(const uint8_t* p) : b_(p) {}
    const uint8_t* data() const { return b_; }
    // Round key i in both halves. Key 8j + r sits in the unpacked registers
    // at lane (r & 4), half (r & 1) of the lo (r & 2 = 0) or hi store.
    HWACCEL_SM4_INLINE __m128i get(int i) const {
        const int r = i & 7;
        const int off = 64 * (i >> 3) + ((r & 2) ? 32 : 0) + ((r & 4) ? 16 : 0) + 8 * (r & 1);
        return _mm_castpd_si128(_mm_loaddup_pd(reinterpret_cast<const double*>(b_ + off)));
    }

private:
    const uint8_t* b_;
};
HWACCEL_SM4_INLINE SerialKeys serial_enc(const Sm4Key* key) { return SerialKeys(key->engine_data + kSerialEnc); }
HWACCEL_SM4_INLINE SerialKeys serial_dec(const Sm4Key* key) { return SerialKeys(key->engine_data + kSerialDec); }

// Standard round keys (the portable engine's format). Constant time: the
// S-box is AESENCLAST plus register look-ups.
inline void set_key(Sm4Key* key, const uint8_t user_key[16]) {
    uint32_t k[4];
    for (int i = 0; i < 4; ++i) k[i] = load_be32(user_key + 4 * i) ^ kFK[i];
    for (int i = 0; i < 32; ++i) {
        const uint32_t t = sbox_word(k[(i + 1) & 3] ^ k[(i + 2) & 3] ^ k[(i + 3) & 3] ^ ck_word(i));
        k[i & 3] ^= t ^ rotl32(t, 13) ^ rotl32(t, 23);
        key->enc[i] = k[i & 3];
    }
    for (int i = 0; i < 32; ++i) key->dec[i] = key->enc[31 - i];
    secure_zero(k, sizeof k);
    write_serial_keys(key->engine_data + kSerialEnc, key->enc);
    write_serial_keys(key->engine_data + kSerialDec, key->dec);
}

// Wipes n 32-byte-aligned 32-byte slots with vector stores. In assembly:
// GCC turns store loops and memset of these sizes into rep stosq, whose
// start-up cost showed in profiles (5% of a 32-block batch; more per block).
HWACCEL_SM4_INLINE void wipe32(void* p, size_t n) {
    __asm__ volatile(
        "vpxor %%xmm0, %%xmm0, %%xmm0\n\t"
        "1:\n\t"
        "vmovdqa %%ymm0, (%[p])\n\t"
        "add $32, %[p]\n\t"
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        : [p] "+r"(p), [n] "+r"(n)
        :
        : "cc", "memory", "xmm0");
}

// --- one block, lowest latency -----------------------------------------------------


// One block: 32 rounds of 21 instructions. In assembly so that the chain's
// operations are issued in a chosen order: the schedulers pick the oldest
// ready op, and with GCC's order off-chain xors and loads delayed the chain
// (intrinsics measured 5% slower, 525 against 497 cycles per block). Per
// round the chain is AESENCLAST (4), split (1), look-ups (2: four on two
// shuffle ports), u0 and u2 (1), u1 (1), shuffle (1), xor (1) = 11 cycles in
// theory; the bare chain measures 13.3 here (tools: a loop of just these
// ops), the whole round ~14 (u2's look-ups go first: P2, P3 can then start
// while u0 is formed). With pp = Y[i+2] ^ Y[i+3] ^ rk'[i+1] the next input
// is t = pp ^ Y[i] ^ o and the new Y[i] = t ^ pp, both off the chain. t and
// Y[0..3] are wherever GCC puts them (xmm0, xmm3-xmm6 are what the clobbers
// leave); tables in xmm10-xmm13, AESENCLAST key in xmm14, nibble mask in
// xmm15, rotation masks in memory.
#define HWACCEL_SM4_SROUND(Y0, Y2, Y3, K)              \
    "vaesenclast %%xmm14, %[t], %[t]\n\t"              \
    "vmovddup " K "(%[k]), %%xmm7\n\t"                 \
    "vpxor " Y2 ", %%xmm7, %%xmm7\n\t"                 \
    "vpxor " Y3 ", %%xmm7, %%xmm7\n\t"                 \
    "vpxor " Y0 ", %%xmm7, %%xmm8\n\t"                 \
    "vpsrlw $4, %[t], %%xmm2\n\t"                      \
    "vpand %%xmm15, %[t], %%xmm1\n\t"                  \
    "vpshufb %%xmm1, %%xmm11, %[t]\n\t"                \
    "vpshufb %%xmm2, %%xmm10, %%xmm9\n\t"              \
    "vpshufb %%xmm1, %%xmm13, %%xmm1\n\t"              \
    "vpshufb %%xmm2, %%xmm12, %%xmm2\n\t"              \
    "vpxor %%xmm9, %[t], %[t]\n\t"                     \
    "vpxor %%xmm2, %%xmm1, %%xmm1\n\t"                 \
    "vpshufb 16(%[c]), %[t], %%xmm2\n\t"               \
    "vpshufb 32(%[c]), %[t], %%xmm9\n\t"               \
    "vpxor %%xmm1, %[t], %[t]\n\t"                     \
    "vpxor %%xmm1, %%xmm8, %%xmm8\n\t"                 \
    "vpxor %%xmm9, %%xmm2, %%xmm2\n\t"                 \
    "vpshufb 0(%[c]), %[t], %[t]\n\t"                  \
    "vpxor %%xmm2, %%xmm8, %%xmm8\n\t"                 \
    "vpxor %%xmm8, %[t], %[t]\n\t"                     \
    "vpxor %[t], %%xmm7, " Y0 "\n\t"

struct SerialConsts {
    Table16 r1, r2, r3;                          // 0, 16, 32
    Table16 u0l, u0h, u2l, u2h, m0f, key;        // 48 ...
};
constexpr SerialConsts kSerial = {
    kR1, kR2, kR3, kU0Lo, kU0Hi, kU2Lo, kU2Hi,
    {{0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F}},
    kSerialKey,
};
static_assert(offsetof(SerialConsts, u0l) == 48 && offsetof(SerialConsts, key) == 128, "asm offsets");

// Serial layout helpers: a dense M-domain block to its four words, and back.
struct SerialWords {
    __m128i w[4];
};
HWACCEL_SM4_INLINE SerialWords spread(__m128i dense) {
    return {{_mm_shuffle_epi8(dense, ld(kSpreadBlock[0])), _mm_shuffle_epi8(dense, ld(kSpreadBlock[1])),
             _mm_shuffle_epi8(dense, ld(kSpreadBlock[2])), _mm_shuffle_epi8(dense, ld(kSpreadBlock[3]))}};
}
HWACCEL_SM4_INLINE __m128i gather(const SerialWords& v) {
    const __m128i a = _mm_or_si128(_mm_shuffle_epi8(v.w[0], ld(kGather[0])), _mm_shuffle_epi8(v.w[1], ld(kGather[1])));
    const __m128i b = _mm_or_si128(_mm_shuffle_epi8(v.w[2], ld(kGather[2])), _mm_shuffle_epi8(v.w[3], ld(kGather[3])));
    return _mm_or_si128(a, b);
}
HWACCEL_SM4_INLINE SerialWords spread_plain(__m128i block) { return spread(affine128(block, kMLo, kMHi)); }
HWACCEL_SM4_INLINE __m128i gather_plain(const SerialWords& v) { return affine128(gather(v), kMinvLo, kMinvHi); }
HWACCEL_SM4_INLINE SerialWords xor_words(const SerialWords& a, const SerialWords& b) {
    return {{_mm_xor_si128(a.w[0], b.w[0]), _mm_xor_si128(a.w[1], b.w[1]), _mm_xor_si128(a.w[2], b.w[2]),
             _mm_xor_si128(a.w[3], b.w[3])}};
}

// The 32 rounds on one block's words X0..X3 (serial layout, M domain).
// Returns the output block's words in block order, (X35, X34, X33, X32).
HWACCEL_SM4_INLINE SerialWords serial_rounds(const SerialKeys& ks, const SerialWords& x) {
    __m128i y0 = x.w[0], y1 = x.w[1], y2 = x.w[2], y3 = x.w[3];
    __m128i t = _mm_xor_si128(_mm_xor_si128(y1, y2), _mm_xor_si128(y3, ks.get(0)));
    const uint8_t* k = ks.data();
    size_t n = 4;
    // Key 8j + r at 64 j + {0, 8, 32, 40, 16, 24, 48, 56}[r] (SerialKeys).
    __asm__ volatile(
        "vmovdqa 48(%[c]), %%xmm13\n\t"
        "vmovdqa 64(%[c]), %%xmm12\n\t"
        "vmovdqa 80(%[c]), %%xmm11\n\t"
        "vmovdqa 96(%[c]), %%xmm10\n\t"
        "vmovdqa 112(%[c]), %%xmm15\n\t"
        "vmovdqa 128(%[c]), %%xmm14\n\t"
        "1:\n\t"
        HWACCEL_SM4_SROUND("%[y0]", "%[y2]", "%[y3]", "8")
        HWACCEL_SM4_SROUND("%[y1]", "%[y3]", "%[y0]", "32")
        HWACCEL_SM4_SROUND("%[y2]", "%[y0]", "%[y1]", "40")
        HWACCEL_SM4_SROUND("%[y3]", "%[y1]", "%[y2]", "16")
        HWACCEL_SM4_SROUND("%[y0]", "%[y2]", "%[y3]", "24")
        HWACCEL_SM4_SROUND("%[y1]", "%[y3]", "%[y0]", "48")
        HWACCEL_SM4_SROUND("%[y2]", "%[y0]", "%[y1]", "56")
        HWACCEL_SM4_SROUND("%[y3]", "%[y1]", "%[y2]", "64")
        "add $64, %[k]\n\t"
        "dec %[n]\n\t"
        "jnz 1b\n\t"
        : [t] "+x"(t), [y0] "+x"(y0), [y1] "+x"(y1), [y2] "+x"(y2), [y3] "+x"(y3), [k] "+r"(k),
          [n] "+r"(n)
        : [c] "r"(&kSerial)
        : "cc", "memory", "xmm1", "xmm2", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
          "xmm13", "xmm14", "xmm15");
    return {{y3, y2, y1, y0}};
}

HWACCEL_SM4_INLINE __m128i serial_crypt(const SerialKeys& ks, __m128i block) {
    return gather_plain(serial_rounds(ks, spread_plain(block)));
}

// The serial modes, fused: the chaining value stays in the serial layout
// and M domain from block to block, so between two blocks' rounds the chain
// has just the xor of the next input (CBC) or of the output (CFB); the
// conversions of plaintext and ciphertext run off the chain, beside the
// rounds. With the round keys prepared once per call this measured ~25%
// faster per block than a loop over encrypt_block.
//   CBC encrypt: c_i = E(p_i ^ c_{i-1})
//   CFB encrypt: c_i = p_i ^ E(c_{i-1})
//   OFB:         o_i = E(o_{i-1}), out_i = in_i ^ o_i
// iv: c_0 or o_0 on entry, the last c or o on return. in == out is allowed.
enum class Serial { kCbc, kCfb, kOfb };
template <Serial kMode>
void serial_chain(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    const SerialKeys ks = serial_enc(key);
    SerialWords c = spread_plain(loadu128(iv));
    for (size_t i = 0; i < n; ++i) {
        const __m128i p = loadu128(in + 16 * i);
        if constexpr (kMode == Serial::kCbc) {
            c = serial_rounds(ks, xor_words(spread_plain(p), c));
        } else if constexpr (kMode == Serial::kCfb) {
            c = xor_words(spread_plain(p), serial_rounds(ks, c));
        } else {
            c = serial_rounds(ks, c);
        }
        const __m128i o = gather_plain(c);
        storeu128(out + 16 * i, kMode == Serial::kOfb ? _mm_xor_si128(o, p) : o);
    }
    storeu128(iv, gather_plain(c));
}

inline void encrypt_block(const Sm4Key* key, uint8_t out[16], const uint8_t in[16]) {
    storeu128(out, serial_crypt(serial_enc(key), loadu128(in)));
}

// --- bulk: groups of 8 blocks in ymm registers -----------------------------------

// Round keys of the bulk path: M rk ^ c1, bytes in memory order, one word
// per round (broadcast when used). Wiped on destruction.
struct BulkKeys {
    alignas(32) uint32_t k[32];
    explicit BulkKeys(const uint32_t rk[32]) {
        const __m256i bs = bc(kBswap32);
        for (int j = 0; j < 4; ++j) {
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rk + 8 * j));
            _mm256_store_si256(reinterpret_cast<__m256i*>(k + 8 * j),
                               affine256(_mm256_shuffle_epi8(v, bs), kMC1Lo, kMHi));
        }
    }
    ~BulkKeys() { wipe32(k, sizeof k / 32); }
    BulkKeys(const BulkKeys&) = delete;
    BulkKeys& operator=(const BulkKeys&) = delete;
};

// 4x4 transpose of 32-bit words in each 128-bit lane (its own inverse).
HWACCEL_SM4_INLINE void transpose(__m256i& a, __m256i& b, __m256i& c, __m256i& d) {
    const __m256i t0 = _mm256_unpacklo_epi32(a, b), t1 = _mm256_unpackhi_epi32(a, b);
    const __m256i t2 = _mm256_unpacklo_epi32(c, d), t3 = _mm256_unpackhi_epi32(c, d);
    a = _mm256_unpacklo_epi64(t0, t2);
    b = _mm256_unpackhi_epi64(t0, t2);
    c = _mm256_unpacklo_epi64(t1, t3);
    d = _mm256_unpackhi_epi64(t1, t3);
}

// A group: 8 blocks as 4 "rows" of two blocks (row k = blocks 2k, 2k+1) or,
// once transposed, as 4 words (word j of blocks 0,2,4,6 | 1,3,5,7).
struct Rows {
    __m256i r[4];
};
HWACCEL_SM4_INLINE Rows load_rows(const uint8_t* p) {
    return {{loadu256(p), loadu256(p + 32), loadu256(p + 64), loadu256(p + 96)}};
}
HWACCEL_SM4_INLINE void store_rows(uint8_t* p, const Rows& v) {
    for (int k = 0; k < 4; ++k) storeu256(p + 32 * k, v.r[k]);
}
HWACCEL_SM4_INLINE Rows xor_rows(const Rows& a, const Rows& b) {
    Rows r;
    for (int k = 0; k < 4; ++k) r.r[k] = xor256(a.r[k], b.r[k]);
    return r;
}
// m < 8 blocks (a batch's last group), block by block: no stack copy to wipe.
// The branches are on the length only.
HWACCEL_SM4_INLINE Rows rows_of(const __m128i (&b)[8]) {
    Rows r;
    for (int k = 0; k < 4; ++k) r.r[k] = _mm256_inserti128_si256(_mm256_castsi128_si256(b[2 * k]), b[2 * k + 1], 1);
    return r;
}
HWACCEL_SM4_INLINE Rows load_rows_partial(const uint8_t* p, size_t m) {
    __m128i b[8];
    for (size_t i = 0; i < 8; ++i) b[i] = i < m ? loadu128(p + 16 * i) : _mm_setzero_si128();
    return rows_of(b);
}
HWACCEL_SM4_INLINE void store_rows_partial(uint8_t* p, const Rows& v, size_t m) {
    for (size_t i = 0; i < m; ++i) {
        const __m256i r = v.r[i / 2];
        storeu128(p + 16 * i, (i & 1) ? _mm256_extracti128_si256(r, 1) : _mm256_castsi256_si128(r));
    }
}
HWACCEL_SM4_INLINE Rows load_rows_any(const uint8_t* p, size_t m) {
    return m == 8 ? load_rows(p) : load_rows_partial(p, m);
}
HWACCEL_SM4_INLINE void store_rows_any(uint8_t* p, const Rows& v, size_t m) {
    if (m == 8) store_rows(p, v);
    else store_rows_partial(p, v, m);
}
// The "previous block" rows of CBC/CFB decryption for blocks base..base+m-1
// of `in`: block i -> in[i - 1], block 0 -> iv.
HWACCEL_SM4_INLINE Rows load_prev_rows(const uint8_t* in, size_t base, size_t m, const uint8_t* iv) {
    if (base != 0 && m == 8) return load_rows(in + 16 * base - 16);
    __m128i b[8];
    b[0] = loadu128(base ? in + 16 * base - 16 : iv);
    for (size_t i = 1; i < 8; ++i) b[i] = i < m ? loadu128(in + 16 * (base + i - 1)) : _mm_setzero_si128();
    return rows_of(b);
}

// Rows -> M-domain words, and back (output words in SM4's reversed order).
HWACCEL_SM4_INLINE Rows to_state(Rows v) {
    transpose(v.r[0], v.r[1], v.r[2], v.r[3]);
    for (int j = 0; j < 4; ++j) v.r[j] = affine256(v.r[j], kMLo, kMHi);
    return v;
}
HWACCEL_SM4_INLINE Rows from_state(const Rows& x) {
    Rows v{{affine256(x.r[3], kMinvLo, kMinvHi), affine256(x.r[2], kMinvLo, kMinvHi),
            affine256(x.r[1], kMinvLo, kMinvHi), affine256(x.r[0], kMinvLo, kMinvHi)}};
    transpose(v.r[0], v.r[1], v.r[2], v.r[3]);
    return v;
}

// Batches of up to this many groups run register-resident, longer ones in
// the assembly kernel. Since the kernel keeps each group's newest word in a
// register it wins from two groups on (measured, cycles per call, VAES /
// AES-NI): 9-16 blocks 767 against 975-1004 / 1063 against 1358, 17-24
// blocks 1034-1122 against 1181-1211 / 1328 against 1476-1505; one group
// (2-8 blocks) is the same either way (620-649), and stays in registers.
constexpr int kRegisterGroups = 1;

// --- the bulk round kernel (inline assembly) --------------------------------------
//
// Why assembly: with intrinsics GCC keeps the 16 state registers of 4 groups
// in ymm registers it does not have and spills them around every round
// (measured: AES-NI 3.6 against 3.0 cycles/byte, VAES about equal). Here the
// state lives in memory (the batch's Rows array) and is used as memory
// operands, except each group's newest word; the 16 ymm registers hold the 4
// look-up tables (ymm10-13), the AESENCLAST key (ymm14), the nibble mask
// (ymm15), two round keys (ymm8, ymm9), the newest word of the 4 groups
// (ymm4-7) and temporaries (ymm0-3).
//
// One group and round (HWACCEL_SM4_ROUND), 25 vector ops: 3 xors and a load
// forming t, AESENCLAST, split (PSRLW + 2 PAND), 4 PSHUFB look-ups giving u0
// and u2, u1 = u0 ^ u2 (T1 = T0 ^ T2), the 4 byte shuffles P0..P3 (memory
// operands), 4 xors into the new word, its store. On the development machine
// this op mix alone runs at ~3.1 ops per cycle (7.9 cycles per group and
// round measured with no dependencies at all); the kernel reaches ~8.

struct Mask32 {
    alignas(32) uint8_t b[32];
};
constexpr Mask32 dup(const Table16& t) {
    Mask32 m{};
    for (int i = 0; i < 32; ++i) m.b[i] = t.b[i & 15];
    return m;
}
struct KernelConsts {
    Mask32 p[4];                            // 0, 32, 64, 96: P0..P3
    Table16 u0l, u0h, u2l, u2h, m0f, key;   // 128, 144, ...: broadcast at entry
};
constexpr KernelConsts kKernel = {
    {dup(kP0), dup(kP1), dup(kP2), dup(kP3)},
    kU0Lo, kU0Hi, kU2Lo, kU2Hi,
    {{0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F, 0x0F}},
    {{kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc, kKc}},
};
static_assert(offsetof(KernelConsts, u0l) == 128 && offsetof(KernelConsts, key) == 208, "asm offsets");

#define HWACCEL_SM4_AES_VAES "vaesenclast %%ymm14, %%ymm0, %%ymm0\n\t"
// Without VAES: two 128-bit AESENCLAST per ymm (VEX AESENCLAST clears the
// upper half, VINSERTI128 puts it back).
#define HWACCEL_SM4_AES_AESNI                \
    "vextracti128 $1, %%ymm0, %%xmm1\n\t"    \
    "vaesenclast %%xmm14, %%xmm0, %%xmm0\n\t" \
    "vaesenclast %%xmm14, %%xmm1, %%xmm1\n\t" \
    "vinserti128 $1, %%xmm1, %%ymm0, %%ymm0\n\t"

// One round of one group: slot A ^= F(slot B ^ slot C ^ rk ^ N), N the
// group's newest word (the slot the group's previous round wrote), kept in a
// register so that the chain from one round to the next never goes through
// memory (a store-to-load round trip on it measured 9.3 cycles per group and
// round against 6.9 without). Slots B and C were written two and three
// rounds back: their loads are off the chain. The new word goes to slot A
// and to N. 25 ops; the chain is xor, AESENCLAST, split, look-up, two xors,
// shuffle, two xors: about 13 cycles, well under the 4 groups' ~27 cycles of
// port work per round.
#define HWACCEL_SM4_ROUND(AES, RK, N, A, B, C)  \
    "vmovdqa " B "(%[st]), %%ymm0\n\t"          \
    "vpxor " C "(%[st]), %%ymm0, %%ymm0\n\t"    \
    "vpxor %%" RK ", %%ymm0, %%ymm0\n\t"        \
    "vpxor %%" N ", %%ymm0, %%ymm0\n\t"         \
    AES                                         \
    "vpsrlw $4, %%ymm0, %%ymm1\n\t"             \
    "vpand %%ymm15, %%ymm0, %%ymm0\n\t"         \
    "vpand %%ymm15, %%ymm1, %%ymm1\n\t"         \
    "vpshufb %%ymm0, %%ymm13, %%ymm2\n\t"       \
    "vpshufb %%ymm0, %%ymm11, %%ymm0\n\t"       \
    "vpshufb %%ymm1, %%ymm12, %%ymm3\n\t"       \
    "vpshufb %%ymm1, %%ymm10, %%ymm1\n\t"       \
    "vpxor %%ymm3, %%ymm2, %%ymm2\n\t"          \
    "vpxor %%ymm1, %%ymm0, %%ymm0\n\t"          \
    "vpxor %%ymm0, %%ymm2, %%ymm1\n\t"          \
    "vpshufb 32(%[c]), %%ymm1, %%ymm1\n\t"      \
    "vpshufb 0(%[c]), %%ymm2, %%ymm2\n\t"       \
    "vpshufb 64(%[c]), %%ymm0, %%ymm3\n\t"      \
    "vpshufb 96(%[c]), %%ymm0, %%ymm0\n\t"      \
    "vpxor " A "(%[st]), %%ymm2, %%ymm2\n\t"    \
    "vpxor %%ymm3, %%ymm0, %%ymm0\n\t"          \
    "vpxor %%ymm0, %%ymm2, %%ymm2\n\t"          \
    "vpxor %%ymm1, %%ymm2, %%" N "\n\t"         \
    "vmovdqa %%" N ", " A "(%[st])\n\t"

// Group g's words at st + 128 g + 32 j; its newest word in ymm(4 + g).
#define HWACCEL_SM4_GROUP0 "ymm4", "0", "32", "64", "96"
#define HWACCEL_SM4_GROUP1 "ymm5", "128", "160", "192", "224"
#define HWACCEL_SM4_GROUP2 "ymm6", "256", "288", "320", "352"
#define HWACCEL_SM4_GROUP3 "ymm7", "384", "416", "448", "480"
// Round j of a loop iteration updates word j from words j+1, j+2 and the
// newest, word j+3 (mod 4). Round keys in ymm9, ymm8, ymm9, ymm8.
#define HWACCEL_SM4_J0(AES, N, w0, w1, w2, w3) HWACCEL_SM4_ROUND(AES, "ymm9", N, w0, w1, w2)
#define HWACCEL_SM4_J1(AES, N, w0, w1, w2, w3) HWACCEL_SM4_ROUND(AES, "ymm8", N, w1, w2, w3)
#define HWACCEL_SM4_J2(AES, N, w0, w1, w2, w3) HWACCEL_SM4_ROUND(AES, "ymm9", N, w2, w3, w0)
#define HWACCEL_SM4_J3(AES, N, w0, w1, w2, w3) HWACCEL_SM4_ROUND(AES, "ymm8", N, w3, w0, w1)
#define HWACCEL_SM4_LOADN(AES, N, w0, w1, w2, w3) "vmovdqa " w3 "(%[st]), %%" N "\n\t"
#define HWACCEL_SM4_CALL(M, ...) M(__VA_ARGS__)

#define HWACCEL_SM4_KERNEL(LOADN, ROUND0, ROUND1, ROUND2, ROUND3)          \
    __asm__ volatile(                                                    \
        "vbroadcasti128 128(%[c]), %%ymm13\n\t"                          \
        "vbroadcasti128 144(%[c]), %%ymm12\n\t"                          \
        "vbroadcasti128 160(%[c]), %%ymm11\n\t"                          \
        "vbroadcasti128 176(%[c]), %%ymm10\n\t"                          \
        "vbroadcasti128 192(%[c]), %%ymm15\n\t"                          \
        "vbroadcasti128 208(%[c]), %%ymm14\n\t"                          \
        LOADN                                                            \
        "1:\n\t"                                                         \
        "vpbroadcastd 0(%[rk]), %%ymm9\n\t"                              \
        "vpbroadcastd 4(%[rk]), %%ymm8\n\t"                              \
        ROUND0 ROUND1                                                    \
        "vpbroadcastd 8(%[rk]), %%ymm9\n\t"                              \
        "vpbroadcastd 12(%[rk]), %%ymm8\n\t"                             \
        ROUND2 ROUND3                                                    \
        "add $16, %[rk]\n\t"                                             \
        "dec %[n]\n\t"                                                   \
        "jnz 1b\n\t"                                                     \
        : [rk] "+r"(rk), [n] "+r"(n)                                     \
        : [st] "r"(st), [c] "r"(&kKernel)                                \
        : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", \
          "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",     \
          "xmm13", "xmm14", "xmm15")

// 32 rounds on G groups kept at st (128 bytes each, 32-byte aligned); rkm:
// the 32 round keys M rk ^ c1 in memory byte order.
template <bool Vaes, int G>
HWACCEL_SM4_INLINE void kernel(uint8_t* st, const uint32_t* rkm) {
    const uint32_t* rk = rkm;
    size_t n = 8;
#define HWACCEL_SM4_H(AES, W, g) HWACCEL_SM4_CALL(W, AES, HWACCEL_SM4_GROUP##g)
#define HWACCEL_SM4_G1(AES, W) HWACCEL_SM4_H(AES, W, 0)
#define HWACCEL_SM4_G2(AES, W) HWACCEL_SM4_G1(AES, W) HWACCEL_SM4_H(AES, W, 1)
#define HWACCEL_SM4_G3(AES, W) HWACCEL_SM4_G2(AES, W) HWACCEL_SM4_H(AES, W, 2)
#define HWACCEL_SM4_G4(AES, W) HWACCEL_SM4_G3(AES, W) HWACCEL_SM4_H(AES, W, 3)
#define HWACCEL_SM4_ALL(GS, AES)                                                                   \
    HWACCEL_SM4_KERNEL(GS(AES, HWACCEL_SM4_LOADN), GS(AES, HWACCEL_SM4_J0), GS(AES, HWACCEL_SM4_J1), \
                       GS(AES, HWACCEL_SM4_J2), GS(AES, HWACCEL_SM4_J3))
#define HWACCEL_SM4_BODY(AES)                                   \
    if constexpr (G == 1) HWACCEL_SM4_ALL(HWACCEL_SM4_G1, AES); \
    else if constexpr (G == 2) HWACCEL_SM4_ALL(HWACCEL_SM4_G2, AES); \
    else if constexpr (G == 3) HWACCEL_SM4_ALL(HWACCEL_SM4_G3, AES); \
    else HWACCEL_SM4_ALL(HWACCEL_SM4_G4, AES);
    if constexpr (Vaes) {
        HWACCEL_SM4_BODY(HWACCEL_SM4_AES_VAES)
    } else {
        HWACCEL_SM4_BODY(HWACCEL_SM4_AES_AESNI)
    }
}

// Register-resident rounds (intrinsics), for a single group: there the
// latency of a round (~13 cycles) is the limit either way, and the state
// need not go through memory.
struct RoundConsts {
    __m256i m0f, key, u0l, u0h, u2l, u2h, p0, p1, p2, p3;
};
HWACCEL_SM4_INLINE RoundConsts round_consts() {
    return {_mm256_set1_epi8(0x0F), _mm256_set1_epi8(static_cast<char>(kKc)),
            bc(kU0Lo), bc(kU0Hi), bc(kU2Lo), bc(kU2Hi),
            bc(kP0), bc(kP1), bc(kP2), bc(kP3)};
}
template <class Aes>
HWACCEL_SM4_INLINE __m256i round_f(__m256i t, const RoundConsts& c) {
    const __m256i s = Aes::enclast(t, c.key);
    const __m256i lo = _mm256_and_si256(s, c.m0f);
    const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(s, 4), c.m0f);
    const __m256i u0 = xor256(_mm256_shuffle_epi8(c.u0l, lo), _mm256_shuffle_epi8(c.u0h, hi));
    const __m256i u2 = xor256(_mm256_shuffle_epi8(c.u2l, lo), _mm256_shuffle_epi8(c.u2h, hi));
    const __m256i u1 = xor256(u0, u2);
    return xor256(xor256(_mm256_shuffle_epi8(u0, c.p0), _mm256_shuffle_epi8(u1, c.p1)),
                  xor256(_mm256_shuffle_epi8(u2, c.p2), _mm256_shuffle_epi8(u2, c.p3)));
}
template <class Aes, int G>
HWACCEL_SM4_INLINE void rounds_in_registers(Rows (&x)[G], const BulkKeys& keys) {
    const RoundConsts c = round_consts();
    for (int r = 0; r < 32; r += 4) {
        const __m256i k0 = _mm256_set1_epi32(static_cast<int>(keys.k[r]));
        const __m256i k1 = _mm256_set1_epi32(static_cast<int>(keys.k[r + 1]));
        const __m256i k2 = _mm256_set1_epi32(static_cast<int>(keys.k[r + 2]));
        const __m256i k3 = _mm256_set1_epi32(static_cast<int>(keys.k[r + 3]));
        __m256i p[G];
        for (int g = 0; g < G; ++g) {
            p[g] = xor256(x[g].r[2], x[g].r[3]);
            x[g].r[0] = xor256(x[g].r[0], round_f<Aes>(xor256(p[g], xor256(x[g].r[1], k0)), c));
        }
        for (int g = 0; g < G; ++g)
            x[g].r[1] = xor256(x[g].r[1], round_f<Aes>(xor256(p[g], xor256(x[g].r[0], k1)), c));
        for (int g = 0; g < G; ++g) {
            p[g] = xor256(x[g].r[0], x[g].r[1]);
            x[g].r[2] = xor256(x[g].r[2], round_f<Aes>(xor256(p[g], xor256(x[g].r[3], k2)), c));
        }
        for (int g = 0; g < G; ++g)
            x[g].r[3] = xor256(x[g].r[3], round_f<Aes>(xor256(p[g], xor256(x[g].r[2], k3)), c));
    }
}

// 32 rounds on the G groups of a batch. The kernel works on the Rows array
// in place (its layout is the kernel's: group g at 128 g, word j at 32 j), so
// no copy to a separate buffer (GCC made those rep movsq, 13% of the time).
template <class Aes, int G>
HWACCEL_SM4_INLINE void rounds(Rows (&x)[G], const BulkKeys& keys) {
    static_assert(sizeof(Rows) == 128 && alignof(Rows) == 32, "kernel layout");
    if constexpr (G <= kRegisterGroups) rounds_in_registers<Aes, G>(x, keys);
    else kernel<Aes::kVaes, G>(reinterpret_cast<uint8_t*>(x), keys.k);
}
// Wipes a batch's cipher state once it is no longer needed, where it lives
// in memory (the kernel's batches).
template <int G>
HWACCEL_SM4_INLINE void wipe_state(Rows (&x)[G]) {
    if constexpr (G > kRegisterGroups) wipe32(x, 4 * G);
}

// --- modes ----------------------------------------------------------------------
// Each batch: read every input block of the batch, run the rounds, then write
// (so in == out works); m blocks, 8(G-1) < m <= 8G.

template <class Aes, int G>
void ecb_batch(const BulkKeys& keys, uint8_t* out, const uint8_t* in, size_t m) {
    Rows x[G];
    for (int g = 0; g < G; ++g) x[g] = to_state(load_rows_any(in + 128 * g, m - 8 * g < 8 ? m - 8 * g : 8));
    rounds<Aes, G>(x, keys);
    for (int g = 0; g < G; ++g) store_rows_any(out + 128 * g, from_state(x[g]), m - 8 * g < 8 ? m - 8 * g : 8);
    wipe_state(x);
}

// Counter blocks counter + first + i (128-bit big-endian, wrapping) for the
// 8 blocks of group g, directly in the transposed layout; no branch on the
// counter value.
struct Counter {
    uint32_t w[4];  // native values of the four big-endian words
};
HWACCEL_SM4_INLINE Rows counter_state(const Counter& c, uint32_t first) {
    // Lane k of word j is block 2k (low lane) or 2(k-4)+1 (high lane).
    const __m256i idx = _mm256_add_epi32(_mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7),
                                         _mm256_set1_epi32(static_cast<int>(first)));
    const __m256i bias = _mm256_set1_epi32(INT32_MIN);
    const __m256i zero = _mm256_setzero_si256();
    const __m256i w3 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(c.w[3])), idx);
    // Unsigned w3 < idx: the low word wrapped.
    const __m256i c3 = _mm256_cmpgt_epi32(_mm256_xor_si256(idx, bias), _mm256_xor_si256(w3, bias));
    const __m256i w2 = _mm256_sub_epi32(_mm256_set1_epi32(static_cast<int>(c.w[2])), c3);
    const __m256i c2 = _mm256_and_si256(c3, _mm256_cmpeq_epi32(w2, zero));
    const __m256i w1 = _mm256_sub_epi32(_mm256_set1_epi32(static_cast<int>(c.w[1])), c2);
    const __m256i c1 = _mm256_and_si256(c2, _mm256_cmpeq_epi32(w1, zero));
    const __m256i w0 = _mm256_sub_epi32(_mm256_set1_epi32(static_cast<int>(c.w[0])), c1);
    const __m256i bs = bc(kBswap32);
    return {{affine256(_mm256_shuffle_epi8(w0, bs), kMLo, kMHi), affine256(_mm256_shuffle_epi8(w1, bs), kMLo, kMHi),
             affine256(_mm256_shuffle_epi8(w2, bs), kMLo, kMHi), affine256(_mm256_shuffle_epi8(w3, bs), kMLo, kMHi)}};
}

template <class Aes, int G>
void ctr_batch(const BulkKeys& keys, uint8_t* out, const uint8_t* in, size_t m, const Counter& c,
               uint32_t first) {
    Rows x[G];
    for (int g = 0; g < G; ++g) x[g] = counter_state(c, first + 8 * g);
    rounds<Aes, G>(x, keys);
    for (int g = 0; g < G; ++g) {
        const size_t mg = m - 8 * g < 8 ? m - 8 * g : 8;
        store_rows_any(out + 128 * g, xor_rows(from_state(x[g]), load_rows_any(in + 128 * g, mg)), mg);
    }
    wipe_state(x);
}

template <class Aes, int G>
void cbc_dec_batch(const BulkKeys& keys, uint8_t* out, const uint8_t* in, size_t m, const uint8_t* iv) {
    Rows x[G];
    for (int g = 0; g < G; ++g) x[g] = to_state(load_rows_any(in + 128 * g, m - 8 * g < 8 ? m - 8 * g : 8));
    rounds<Aes, G>(x, keys);
    // Last group first: in place, group g overwrites ciphertext that only
    // groups <= g still read.
    for (int g = G - 1; g >= 0; --g) {
        const size_t mg = m - 8 * g < 8 ? m - 8 * g : 8;
        const Rows prev = load_prev_rows(in, 8 * g, mg, iv);
        store_rows_any(out + 128 * g, xor_rows(from_state(x[g]), prev), mg);
    }
    wipe_state(x);
}

template <class Aes, int G>
void cfb_dec_batch(const BulkKeys& keys, uint8_t* out, const uint8_t* in, size_t m, const uint8_t* iv) {
    Rows x[G];
    for (int g = 0; g < G; ++g) {
        const size_t mg = m - 8 * g < 8 ? m - 8 * g : 8;
        x[g] = to_state(load_prev_rows(in, 8 * g, mg, iv));
    }
    rounds<Aes, G>(x, keys);
    for (int g = 0; g < G; ++g) {
        const size_t mg = m - 8 * g < 8 ? m - 8 * g : 8;
        store_rows_any(out + 128 * g, xor_rows(from_state(x[g]), load_rows_any(in + 128 * g, mg)), mg);
    }
    wipe_state(x);
}

// --- engine entry points, for an Aes policy ---------------------------------------

HWACCEL_SM4_INLINE Counter load_counter(const uint8_t c[16]) {
    return {{load_be32(c), load_be32(c + 4), load_be32(c + 8), load_be32(c + 12)}};
}
HWACCEL_SM4_INLINE void store_counter(uint8_t c[16], const Counter& v) {
    for (int j = 0; j < 4; ++j) store_be32(c + 4 * j, v.w[j]);
}
// counter + n mod 2^128, without branches on the counter.
HWACCEL_SM4_INLINE Counter counter_add(const Counter& c, uint64_t n) {
    const uint64_t hi = uint64_t{c.w[0]} << 32 | c.w[1];
    const uint64_t lo = uint64_t{c.w[2]} << 32 | c.w[3];
    const uint64_t sum = lo + n;
    const uint64_t h = hi + (sum < lo);
    return {{static_cast<uint32_t>(h >> 32), static_cast<uint32_t>(h), static_cast<uint32_t>(sum >> 32),
             static_cast<uint32_t>(sum)}};
}

// Calls f(std::integral_constant<int, G>{}) for the G that covers m (1..32)
// blocks.
template <class F>
HWACCEL_SM4_INLINE void by_groups(size_t m, F&& f) {
    switch ((m + 7) / 8) {
        case 1: f(std::integral_constant<int, 1>{}); break;
        case 2: f(std::integral_constant<int, 2>{}); break;
        case 3: f(std::integral_constant<int, 3>{}); break;
        default: f(std::integral_constant<int, 4>{}); break;
    }
}

template <class Aes>
struct Engine {
    static constexpr size_t kBatch = 32;

    // One block goes the serial way (~540 cycles measured, against ~640 for
    // an 8-block group with VAES, ~880 with AES-NI); from two blocks on one
    // group is cheaper than two serial blocks (~1000). Same rule in every mode.
    static void ecb(const Sm4Key* key, bool decrypt, uint8_t* out, const uint8_t* in, size_t n) {
        if (n == 1) return storeu128(out, serial_crypt(decrypt ? serial_dec(key) : serial_enc(key), loadu128(in)));
        const BulkKeys keys(decrypt ? key->dec : key->enc);
        while (n != 0) {
            const size_t m = n < kBatch ? n : kBatch;
            by_groups(m, [&](auto g) { ecb_batch<Aes, decltype(g)::value>(keys, out, in, m); });
            in += 16 * m;
            out += 16 * m;
            n -= m;
        }
    }

    static void ctr(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t counter[16]) {
        Counter c = load_counter(counter);
        if (n == 1) {
            const __m128i k = serial_crypt(serial_enc(key), loadu128(counter));
            storeu128(out, _mm_xor_si128(k, loadu128(in)));
            store_counter(counter, counter_add(c, 1));
            return;
        }
        const BulkKeys keys(key->enc);
        while (n != 0) {
            const size_t m = n < kBatch ? n : kBatch;
            by_groups(m, [&](auto g) { ctr_batch<Aes, decltype(g)::value>(keys, out, in, m, c, 0); });
            in += 16 * m;
            out += 16 * m;
            c = counter_add(c, m);
            n -= m;
        }
        store_counter(counter, c);
    }

    // CBC and CFB decryption: the chaining block of a batch is the previous
    // batch's last ciphertext block, saved before the batch overwrote it.
    template <bool Cbc>
    static void chained(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
        const uint32_t* rk = Cbc ? key->dec : key->enc;
        if (n == 1) {
            const __m128i c = loadu128(in);
            const SerialKeys ks = Cbc ? serial_dec(key) : serial_enc(key);
            const __m128i v = loadu128(iv);
            const __m128i p = Cbc ? _mm_xor_si128(serial_crypt(ks, c), v) : _mm_xor_si128(serial_crypt(ks, v), c);
            storeu128(out, p);
            storeu128(iv, c);
            return;
        }
        const BulkKeys keys(rk);
        uint8_t prev[16];
        std::memcpy(prev, iv, 16);
        while (n != 0) {
            const size_t m = n < kBatch ? n : kBatch;
            uint8_t last[16];
            std::memcpy(last, in + 16 * (m - 1), 16);
            by_groups(m, [&](auto g) {
                if (Cbc) cbc_dec_batch<Aes, decltype(g)::value>(keys, out, in, m, prev);
                else cfb_dec_batch<Aes, decltype(g)::value>(keys, out, in, m, prev);
            });
            std::memcpy(prev, last, 16);
            in += 16 * m;
            out += 16 * m;
            n -= m;
        }
        std::memcpy(iv, prev, 16);
    }
    static void cbc_decrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
        chained<true>(key, out, in, n, iv);
    }
    static void cfb_decrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
        chained<false>(key, out, in, n, iv);
    }
};

inline void cbc_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    serial_chain<Serial::kCbc>(key, out, in, n, iv);
}
inline void cfb_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    serial_chain<Serial::kCfb>(key, out, in, n, iv);
}
inline void ofb(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    serial_chain<Serial::kOfb>(key, out, in, n, iv);
}

}  // namespace
}  // namespace hwaccel::x86::sm4x
