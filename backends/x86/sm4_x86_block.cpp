// The one-block path of the x86 SM4 engines (declared in sm4_x86_block.hpp):
// the key schedule, one block through 32 rounds in the serial layout
// (sm4_x86_maths.hpp), and the serial modes. Register-only look-ups, no
// secret-dependent branch or address: constant time.
//
// No per-file compile flags: the code below the includes is compiled for
// AVX2/AES-NI through #pragma GCC target (VEX-encoded 128-bit AESENCLAST and
// 256-bit key preparation), the set that both the AES-NI and the VAES
// engines require; the shared headers, included first, stay baseline.
#include "x86/sm4_x86_block.hpp"

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/sm4_key_schedule.hpp"
#include "hwaccel/wipe_stack.hpp"
#include "x86/sm4_x86_maths.hpp"

// clang ignores "#pragma GCC target": the same target on every function
// defined in the region (lambdas and templates too).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,aes"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,aes")
#endif

#include "x86/sm4_x86_simd.hpp"

namespace hwaccel::x86::sm4x {
namespace {

// --- key schedule ------------------------------------------------------------------
//
// K[i+4] = K[i] ^ L'(S(K[i+1] ^ K[i+2] ^ K[i+3] ^ CK_i)), L'(x) = x ^ (x <<< 13)
// ^ (x <<< 23), run in xmm registers the way the cipher's rounds are (see
// sm4_x86_maths.hpp): the words kept in the M domain, Y = M K, so that the
// S-box input Y1 ^ Y2 ^ Y3 ^ (M CK_i ^ c1) needs no look-up before
// AESENCLAST, and after it M L' N as nibble tables and byte rotations. L' in
// bytes (little-endian byte j of the word, source byte j - d):
//     out_j = in_j ^ (in_{j-1} << 5) ^ (in_{j-2} >> 3) ^ (in_{j-2} << 7) ^ (in_{j-3} >> 1)
// (shifts within the byte), so U_d = M T_d N with T_0 = 1, T_1 = <<5,
// T_2 = >>3 ^ <<7, T_3 = >>1, each rotated into place by a byte shuffle that
// also undoes ShiftRows. One key is broadcast to the four lanes (ShiftRows
// then moves nothing, and u_0 needs no shuffle); a pair sits in lanes
// (a, b, a, b) of the same chain and costs about what one key does.
// Against the generic expand with an xmm S-box (every word to xmm and back
// to a GPR for L'): set_key 483 against 735 TSC ticks, set_key_pair 525
// against 756 (medians, interleaved, Zen 5 under load). The chain is the
// limit: a round costs about 13 ticks, and neither fewer shuffles nor the
// words in registers instead of memory measured faster.
constexpr uint8_t key_t_d(int d, unsigned x) {
    switch (d) {
        case 0: return static_cast<uint8_t>(x);
        case 1: return static_cast<uint8_t>(x << 5);
        case 2: return static_cast<uint8_t>((x >> 3) ^ (x << 7));
        default: return static_cast<uint8_t>(x >> 1);
    }
}
struct KeyConsts {
    Table16 u_lo[4], u_hi[4];  // U_d = M T_d N, low and high nibble
    Table16 rot[4];            // byte j of each word from byte j - d, ShiftRows undone
    Table16 m0f, kc;
    Table16 ck[33];            // M CK_i ^ c1 bytewise, broadcast; ck[32] = 0 (read, unused)
};
static_assert(offsetof(KeyConsts, rot) == 128 && offsetof(KeyConsts, m0f) == 192 &&
                  offsetof(KeyConsts, kc) == 208 && offsetof(KeyConsts, ck) == 224,
              "asm offsets");
constexpr KeyConsts kKey = [] {
    KeyConsts c{};
    for (int d = 0; d < 4; ++d) {
        for (unsigned n = 0; n < 16; ++n) {
            c.u_lo[d].b[n] = kM(key_t_d(d, kN(n)));
            c.u_hi[d].b[n] = kM(key_t_d(d, kN(n << 4)));
            // Out byte j of column col is U_d of byte j - d of the same column
            // before ShiftRows, which moved byte r of column col to col - r.
            const unsigned col = n >> 2, r = (n - d) & 3;
            c.rot[d].b[n] = static_cast<uint8_t>(4 * ((col - r) & 3) + r);
        }
    }
    for (int n = 0; n < 16; ++n) {
        c.m0f.b[n] = 0x0F;
        c.kc.b[n] = kKc;
    }
    for (int i = 0; i < 32; ++i) {
        uint32_t w = 0;
        for (int j = 0; j < 4; ++j) w |= static_cast<uint32_t>(kM((sm4_schedule::ck_word(i) >> (8 * j)) & 0xFF) ^ kC1) << (8 * j);
        for (int n = 0; n < 16; ++n) c.ck[i].b[n] = static_cast<uint8_t>(w >> (8 * (n & 3)));
    }
    return c;
}();

// Y[0..3] (M domain) of two keys into y[0..3], lanes (a, b, a, b). The user keys' words stay in
// vector registers: loaded through GPRs (load_be32), GCC 12 at -Os left
// one in r10 after set_key_pair (scripts/flags-matrix.sh).
HWACCEL_SM4_INLINE void key_chain_start(__m128i y[4], const uint8_t ka[16], const uint8_t kb[16]) {
    using sm4_schedule::kFK;
    const __m128i fk = _mm_setr_epi32(static_cast<int>(kFK[0]), static_cast<int>(kFK[1]),
                                      static_cast<int>(kFK[2]), static_cast<int>(kFK[3]));
    const __m128i a = _mm_xor_si128(_mm_shuffle_epi8(loadu128(ka), ld(kBswap32)), fk);
    const __m128i b = _mm_xor_si128(_mm_shuffle_epi8(loadu128(kb), ld(kBswap32)), fk);
    const __m128i lo = _mm_unpacklo_epi32(a, b), hi = _mm_unpackhi_epi32(a, b);  // a0 b0 a1 b1, a2 b2 a3 b3
    y[0] = affine128(_mm_unpacklo_epi64(lo, lo), kMLo, kMHi);
    y[1] = affine128(_mm_unpackhi_epi64(lo, lo), kMLo, kMHi);
    y[2] = affine128(_mm_unpacklo_epi64(hi, hi), kMLo, kMHi);
    y[3] = affine128(_mm_unpackhi_epi64(hi, hi), kMLo, kMHi);
}

// One key-schedule round, in assembly for the same reason as
// HWACCEL_SM4_SROUND: issued in chain order. The chain is AESENCLAST, split,
// look-ups, rotations, three xors; the words Y[i..i+3] are read from memory
// (y, broadcast, 16 bytes each) and Y[i+4] written there and, as a 32-bit
// word, to mk. Tables U_d in xmm8-15 (lo d in 8 + d, hi in 12 + d); t in
// xmm0; Y[i+3], the newest word, also in xmm7; pre = Y[i] ^ Y[i+2] ^
// Y[i+3] ^ ck'[i+1] in xmm5, so that the next input is pre ^ F with F the
// new word's xor into Y[i]. With two keys in the lanes (a, b, a, b) u_0 too
// needs ShiftRows undone (ROT0); a broadcast key does not.
#define HWACCEL_SM4_KROUND(ROT0, STORE)             \
    "vaesenclast 208(%[c]), %%xmm0, %%xmm0\n\t"      \
    "vmovdqa 16(%[k]), %%xmm5\n\t"                   \
    "vpsrlw $4, %%xmm0, %%xmm1\n\t"                  \
    "vpand 192(%[c]), %%xmm0, %%xmm0\n\t"            \
    "vpand 192(%[c]), %%xmm1, %%xmm1\n\t"            \
    "vpshufb %%xmm0, %%xmm9, %%xmm3\n\t"             \
    "vpshufb %%xmm1, %%xmm13, %%xmm4\n\t"            \
    "vpshufb %%xmm0, %%xmm10, %%xmm2\n\t"            \
    "vpshufb %%xmm1, %%xmm14, %%xmm6\n\t"            \
    "vpxor %%xmm4, %%xmm3, %%xmm3\n\t"               \
    "vpxor %%xmm6, %%xmm2, %%xmm2\n\t"               \
    "vpshufb %%xmm0, %%xmm11, %%xmm4\n\t"            \
    "vpshufb %%xmm1, %%xmm15, %%xmm6\n\t"            \
    "vpshufb 144(%[c]), %%xmm3, %%xmm3\n\t"          \
    "vpshufb 160(%[c]), %%xmm2, %%xmm2\n\t"          \
    "vpxor %%xmm6, %%xmm4, %%xmm4\n\t"               \
    "vpshufb %%xmm0, %%xmm8, %%xmm0\n\t"             \
    "vpshufb %%xmm1, %%xmm12, %%xmm1\n\t"            \
    "vpshufb 176(%[c]), %%xmm4, %%xmm4\n\t"          \
    "vpxor 0(%[y]), %%xmm5, %%xmm5\n\t"              \
    "vpxor 32(%[y]), %%xmm5, %%xmm5\n\t"             \
    "vpxor %%xmm7, %%xmm5, %%xmm5\n\t"               \
    "vpxor %%xmm1, %%xmm0, %%xmm0\n\t"               \
    ROT0                                             \
    "vpxor %%xmm2, %%xmm3, %%xmm3\n\t"               \
    "vpxor %%xmm4, %%xmm0, %%xmm0\n\t"               \
    "vpxor %%xmm3, %%xmm0, %%xmm3\n\t"               \
    "vpxor %%xmm3, %%xmm5, %%xmm0\n\t"               \
    "vpxor 0(%[y]), %%xmm3, %%xmm7\n\t"              \
    "vmovdqa %%xmm7, 64(%[y])\n\t"                   \
    STORE " %%xmm7, (%[m])\n\t"

// The 32 rounds: y[0..3] in, y[4..35] and mk (M domain) out. kPair: two
// keys in the lanes (a, b, a, b), mk as 32 pairs (a, b); else one key,
// broadcast, mk as 32 words.
#define HWACCEL_SM4_KROUNDS(ROT0, STORE, MSTEP)      \
        "vmovdqa 0(%[c]), %%xmm8\n\t"                 \
        "vmovdqa 16(%[c]), %%xmm9\n\t"                \
        "vmovdqa 32(%[c]), %%xmm10\n\t"               \
        "vmovdqa 48(%[c]), %%xmm11\n\t"               \
        "vmovdqa 64(%[c]), %%xmm12\n\t"               \
        "vmovdqa 80(%[c]), %%xmm13\n\t"               \
        "vmovdqa 96(%[c]), %%xmm14\n\t"               \
        "vmovdqa 112(%[c]), %%xmm15\n\t"              \
        "vmovdqa 48(%[y]), %%xmm7\n\t"                \
        "vmovdqa 0(%[k]), %%xmm0\n\t"                 \
        "vpxor 16(%[y]), %%xmm0, %%xmm0\n\t"          \
        "vpxor 32(%[y]), %%xmm0, %%xmm0\n\t"          \
        "vpxor %%xmm7, %%xmm0, %%xmm0\n\t"            \
        "1:\n\t"                                      \
        HWACCEL_SM4_KROUND(ROT0, STORE)                \
        "add $16, %[k]\n\t"                           \
        "add $16, %[y]\n\t"                           \
        "add $" MSTEP ", %[m]\n\t"                    \
        "dec %[n]\n\t"                                \
        "jnz 1b\n\t"                                  \
        "vpxor %%xmm0, %%xmm0, %%xmm0\n\t"            \
        "vpxor %%xmm1, %%xmm1, %%xmm1\n\t"            \
        "vpxor %%xmm2, %%xmm2, %%xmm2\n\t"            \
        "vpxor %%xmm3, %%xmm3, %%xmm3\n\t"            \
        "vpxor %%xmm4, %%xmm4, %%xmm4\n\t"            \
        "vpxor %%xmm5, %%xmm5, %%xmm5\n\t"            \
        "vpxor %%xmm6, %%xmm6, %%xmm6\n\t"            \
        "vpxor %%xmm7, %%xmm7, %%xmm7\n\t"

template <bool kPair>
HWACCEL_SM4_INLINE void key_rounds(__m128i* y, uint32_t* mk) {
    const KeyConsts* c = &kKey;
    const Table16* k = kKey.ck;
    size_t n = 32;
    if constexpr (kPair) {
        __asm__ volatile(HWACCEL_SM4_KROUNDS("vpshufb 128(%[c]), %%xmm0, %%xmm0\n\t", "vmovq", "8")
                         : [k] "+r"(k), [y] "+r"(y), [m] "+r"(mk), [n] "+r"(n)
                         : [c] "r"(c)
                         : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                           "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
    } else {
        __asm__ volatile(HWACCEL_SM4_KROUNDS("", "vmovd", "4")
                         : [k] "+r"(k), [y] "+r"(y), [m] "+r"(mk), [n] "+r"(n)
                         : [c] "r"(c)
                         : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                           "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
    }
}

// The standard round keys of both keys of a pair from the M-domain words
// (mk: pairs (a, b)): enc, and dec reversed.
HWACCEL_SM4_INLINE void keys_from_m(Sm4Key* a, Sm4Key* b, const uint32_t mk[64]) {
    const __m256i split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    for (int j = 0; j < 8; ++j) {
        __m256i v = affine256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(mk + 8 * j)), kMinvLo, kMinvHi);
        v = _mm256_permutevar8x32_epi32(v, split);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(a->enc + 4 * j), _mm256_castsi256_si128(v));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(b->enc + 4 * j), _mm256_extracti128_si256(v, 1));
    }
    for (int i = 0; i < 32; ++i) a->dec[i] = a->enc[31 - i];
    for (int i = 0; i < 32; ++i) b->dec[i] = b->enc[31 - i];
}

// The standard round keys of one chain from its M-domain words: enc, and
// dec reversed.
HWACCEL_SM4_INLINE void key_from_m(Sm4Key* key, const uint32_t mk[32]) {
    for (int j = 0; j < 4; ++j) {
        const __m256i v = affine256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(mk + 8 * j)), kMinvLo, kMinvHi);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(key->enc + 8 * j), v);
    }
    for (int i = 0; i < 32; ++i) key->dec[i] = key->enc[31 - i];
}

// Round keys of the serial path, M domain with c1, each spread to 8 bytes
// (one half of the serial layout) and loaded duplicated (MOVDDUP) when used.
// set_key writes them into the key's engine_data, both directions, so the
// one-block path starts at once (built per call they cost several percent
// of a block): 4 loads, 4 affine maps, 8 unpacks, 8 stores per direction, then an
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

// --- one block, lowest latency -----------------------------------------------------


// One block: 32 rounds of 21 instructions. In assembly so that the chain's
// operations are issued in a chosen order: the schedulers pick the oldest
// ready op, and with GCC's order off-chain xors and loads delayed the chain
// (intrinsics measured about 5% slower). Per round the chain is AESENCLAST,
// split, look-ups (four on two shuffle ports), u0 and u2, u1, shuffle, xor;
// the whole round runs close to the bare chain (u2's look-ups go first: P2, P3 can then start
// while u0 is formed). With pp = Y[i+2] ^ Y[i+3] ^ rk'[i+1] the next input
// is t = pp ^ Y[i] ^ o and the new Y[i] = t ^ pp, both off the chain. t and
// Y[0..3] are wherever GCC puts them (xmm0, xmm3-xmm6 are what the clobbers
// leave); tables in xmm10-xmm13, AESENCLAST key in xmm14, nibble mask in
// xmm15, rotation masks in memory.
// The round is written once for both register widths: V is "x" (one block,
// xmm) or "y" (two blocks, one per 128-bit lane: ccm_two_lanes below), KLOAD
// the instruction that puts an 8-byte key into every 64-bit half (vmovddup
// or vpbroadcastq), R1..R3 the offsets of the rotation masks (16 or 32
// bytes each).
#define HWACCEL_SM4_SROUND_V(V, KLOAD, R1, R2, R3, Y0, Y2, Y3, K) \
    "vaesenclast %%" V "mm14, %[t], %[t]\n\t"              \
    KLOAD " " K "(%[k]), %%" V "mm7\n\t"                   \
    "vpxor " Y2 ", %%" V "mm7, %%" V "mm7\n\t"             \
    "vpxor " Y3 ", %%" V "mm7, %%" V "mm7\n\t"             \
    "vpxor " Y0 ", %%" V "mm7, %%" V "mm8\n\t"             \
    "vpsrlw $4, %[t], %%" V "mm2\n\t"                      \
    "vpand %%" V "mm15, %[t], %%" V "mm1\n\t"              \
    "vpshufb %%" V "mm1, %%" V "mm11, %[t]\n\t"            \
    "vpshufb %%" V "mm2, %%" V "mm10, %%" V "mm9\n\t"      \
    "vpshufb %%" V "mm1, %%" V "mm13, %%" V "mm1\n\t"      \
    "vpshufb %%" V "mm2, %%" V "mm12, %%" V "mm2\n\t"      \
    "vpxor %%" V "mm9, %[t], %[t]\n\t"                     \
    "vpxor %%" V "mm2, %%" V "mm1, %%" V "mm1\n\t"         \
    "vpshufb " R2 "(%[c]), %[t], %%" V "mm2\n\t"           \
    "vpshufb " R3 "(%[c]), %[t], %%" V "mm9\n\t"           \
    "vpxor %%" V "mm1, %[t], %[t]\n\t"                     \
    "vpxor %%" V "mm1, %%" V "mm8, %%" V "mm8\n\t"         \
    "vpxor %%" V "mm9, %%" V "mm2, %%" V "mm2\n\t"         \
    "vpshufb " R1 "(%[c]), %[t], %[t]\n\t"                 \
    "vpxor %%" V "mm2, %%" V "mm8, %%" V "mm8\n\t"         \
    "vpxor %%" V "mm8, %[t], %[t]\n\t"                     \
    "vpxor %[t], %%" V "mm7, " Y0 "\n\t"
#define HWACCEL_SM4_SROUND(Y0, Y2, Y3, K) HWACCEL_SM4_SROUND_V("x", "vmovddup", "0", "16", "32", Y0, Y2, Y3, K)

// The 32 rounds: the tables into registers (LOAD: vmovdqa, or
// vbroadcasti128 for both lanes, from T), then 4 passes of 8 rounds, the
// words' roles rotating (Y0 the oldest word, replaced) and the round keys
// read at SerialKeys' places.
#define HWACCEL_SM4_SERIAL_LOOP(LOAD, V, T, ROUND) \
    LOAD " 48(" T "), %%" V "mm13\n\t"          \
    LOAD " 64(" T "), %%" V "mm12\n\t"          \
    LOAD " 80(" T "), %%" V "mm11\n\t"          \
    LOAD " 96(" T "), %%" V "mm10\n\t"          \
    LOAD " 112(" T "), %%" V "mm15\n\t"         \
    LOAD " 128(" T "), %%" V "mm14\n\t"         \
    "1:\n\t"                                     \
    ROUND("%[y0]", "%[y2]", "%[y3]", "8")          \
    ROUND("%[y1]", "%[y3]", "%[y0]", "32")         \
    ROUND("%[y2]", "%[y0]", "%[y1]", "40")         \
    ROUND("%[y3]", "%[y1]", "%[y2]", "16")         \
    ROUND("%[y0]", "%[y2]", "%[y3]", "24")         \
    ROUND("%[y1]", "%[y3]", "%[y0]", "48")         \
    ROUND("%[y2]", "%[y0]", "%[y1]", "56")         \
    ROUND("%[y3]", "%[y1]", "%[y2]", "64")         \
    "add $64, %[k]\n\t"                          \
    "dec %[n]\n\t"                               \
    "jnz 1b\n\t"

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
        HWACCEL_SM4_SERIAL_LOOP("vmovdqa", "x", "%[c]", HWACCEL_SM4_SROUND)
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

HWACCEL_SM4_INLINE SerialKeys serial_keys(const Sm4Key* key, Sm4Direction direction) {
    return direction == Sm4Direction::kDecrypt ? serial_dec(key) : serial_enc(key);
}

// The serial modes, fused: the chaining value stays in the serial layout
// and M domain from block to block, so between two blocks' rounds the chain
// has just the xor of the next input (CBC) or of the output (CFB); the
// conversions of plaintext and ciphertext run off the chain, beside the
// rounds. With the round keys prepared once per call this measured about a
// quarter faster per block than a loop over encrypt_block
// (`hwaccel-engine-bench vaes-avx2`, CBC encrypt).
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

// --- two blocks, one per 128-bit lane (VAES) ----------------------------------------
//
// VAESENCLAST and VPSHUFB on ymm registers work on each 128-bit lane alone,
// so the one-block round on ymm carries two independent blocks at the
// latency of one: CCM's CBC-MAC chain in the low lane and a CTR block in the
// high one, so that the keystream costs nothing beside the MAC (as the GFNI
// path's ccm_lanes does with 32-bit lanes). VAES only: just the vaes-avx2
// engine's table points at it.
struct SerialConsts2 {
    Table16 r1[2], r2[2], r3[2];  // 0, 32, 64: kSerial's rotation masks for both lanes
};
constexpr SerialConsts2 kSerial2 = {{kR1, kR1}, {kR2, kR2}, {kR3, kR3}};

struct SerialWords2 {
    __m256i w[4];
};
HWACCEL_SM4_INLINE SerialWords2 two_lanes(const SerialWords& low, const SerialWords& high) {
    SerialWords2 r;
    for (int j = 0; j < 4; ++j) r.w[j] = _mm256_inserti128_si256(_mm256_castsi128_si256(low.w[j]), high.w[j], 1);
    return r;
}
HWACCEL_SM4_INLINE SerialWords low_lane(const SerialWords2& v) {
    return {{_mm256_castsi256_si128(v.w[0]), _mm256_castsi256_si128(v.w[1]), _mm256_castsi256_si128(v.w[2]),
             _mm256_castsi256_si128(v.w[3])}};
}
HWACCEL_SM4_INLINE SerialWords high_lane(const SerialWords2& v) {
    return {{_mm256_extracti128_si256(v.w[0], 1), _mm256_extracti128_si256(v.w[1], 1),
             _mm256_extracti128_si256(v.w[2], 1), _mm256_extracti128_si256(v.w[3], 1)}};
}

#define HWACCEL_SM4_SROUND2(Y0, Y2, Y3, K) \
    HWACCEL_SM4_SROUND_V("y", "vpbroadcastq", "0", "32", "64", Y0, Y2, Y3, K)

// serial_rounds on both lanes.
HWACCEL_SM4_INLINE SerialWords2 serial_rounds2(const SerialKeys& ks, const SerialWords2& x) {
    __m256i y0 = x.w[0], y1 = x.w[1], y2 = x.w[2], y3 = x.w[3];
    __m256i t;
    const uint8_t* k = ks.data();
    size_t n = 4;
    // The first input, round key 0 included, inside the assembly: computed
    // outside, GCC hoisted the key out of ccm_chain's loop and spilled it.
    __asm__ volatile(
        "vpbroadcastq 0(%[k]), %[t]\n\t"
        "vpxor %[y1], %[t], %[t]\n\t"
        "vpxor %[y2], %[t], %[t]\n\t"
        "vpxor %[y3], %[t], %[t]\n\t"
        HWACCEL_SM4_SERIAL_LOOP("vbroadcasti128", "y", "%[s]", HWACCEL_SM4_SROUND2)
        : [t] "=&x"(t), [y0] "+x"(y0), [y1] "+x"(y1), [y2] "+x"(y2), [y3] "+x"(y3), [k] "+r"(k),
          [n] "+r"(n)
        : [c] "r"(&kSerial2), [s] "r"(&kSerial)
        : "cc", "memory", "xmm1", "xmm2", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
          "xmm13", "xmm14", "xmm15");
    return {{y3, y2, y1, y0}};
}

// CCM's body (Sm4Engine::ccm): MAC and keystream block i in one pass of the
// rounds. Encryption MACs plaintext i beside keystream i; decryption needs
// keystream i before plaintext i, so its MAC runs one block behind: a first
// pass makes keystream 0 alone, and the last pass MACs alone. The
// plaintext enters the MAC in the domain (decryption: ciphertext words plus
// the keystream's words from the high lane), not through memory, to keep
// the chain short.
// Bytes below the entry point's frame: ccm_chain's, red zone included. Release
// (-O3) needs about 320; Debian's package flags (-O2 -fstack-protector-strong)
// left a key-derived word 593 bytes down. 1 KiB covers both with room for
// other compilers' frames, for about 40 cycles a call.
constexpr size_t kCcmChainFrame = 1024;
[[gnu::noinline]] void ccm_chain(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in,
                                 size_t n, uint8_t counter[16], uint8_t mac[16]) {
    const SerialKeys ks = serial_enc(key);
    Counter128 ctr{load_be64(counter), load_be64(counter + 8)};
    SerialWords m = spread_plain(loadu128(mac));  // the MAC's chaining value
    if (direction == Sm4Direction::kEncrypt) {
        for (size_t i = 0; i < n; ++i) {
            const __m128i p = loadu128(in + 16 * i);
            const SerialWords2 r =
                serial_rounds2(ks, two_lanes(xor_words(m, spread_plain(p)), spread_plain(ctr.next())));
            m = low_lane(r);
            storeu128(out + 16 * i, _mm_xor_si128(p, gather_plain(high_lane(r))));
        }
    } else {
        SerialWords k = serial_rounds(ks, spread_plain(ctr.next()));  // keystream 0
        for (size_t i = 0; i < n; ++i) {
            const __m128i c = loadu128(in + 16 * i);
            storeu128(out + 16 * i, _mm_xor_si128(c, gather_plain(k)));
            // MAC ^ plaintext i = MAC ^ c_i ^ keystream i, in the domain.
            const SerialWords x = xor_words(xor_words(m, k), spread_plain(c));
            if (i + 1 < n) {
                const SerialWords2 r = serial_rounds2(ks, two_lanes(x, spread_plain(ctr.next())));
                m = low_lane(r);
                k = high_lane(r);
            } else {
                m = serial_rounds(ks, x);
            }
        }
    }
    storeu128(mac, gather_plain(m));
    store_be64(counter, ctr.hi);
    store_be64(counter + 8, ctr.lo);
}

}  // namespace

// Standard round keys (the portable engine's format). Constant time: the
// S-box is AESENCLAST plus register look-ups.
void set_key(Sm4Key* key, const uint8_t user_key[16]) {
    __m128i y[36];
    alignas(32) uint32_t mk[32];
    key_chain_start(y, user_key, user_key);
    key_rounds<false>(y, mk);
    key_from_m(key, mk);
    secure_zero(y, sizeof y);
    secure_zero(mk, sizeof mk);
    write_serial_keys(key->engine_data + kSerialEnc, key->enc);
    write_serial_keys(key->engine_data + kSerialDec, key->dec);
    zeroall();  // the serial keys were written from ymm registers
}

// The two keys in the lanes of one chain: a pair costs about what one key does.
void set_key_pair(Sm4Key* a, const uint8_t ka[16], Sm4Key* b, const uint8_t kb[16]) {
    __m128i y[36];
    alignas(32) uint32_t mk[64];
    key_chain_start(y, ka, kb);
    key_rounds<true>(y, mk);
    keys_from_m(a, b, mk);
    secure_zero(y, sizeof y);
    secure_zero(mk, sizeof mk);
    write_serial_keys(a->engine_data + kSerialEnc, a->enc);
    write_serial_keys(a->engine_data + kSerialDec, a->dec);
    write_serial_keys(b->engine_data + kSerialEnc, b->enc);
    write_serial_keys(b->engine_data + kSerialDec, b->dec);
    zeroall();  // as set_key
}

// Returns its block in a register: the bulk modes that call it clear the
// registers once they are done (K::clear_registers, sm4_x86_modes.hpp).
__m128i crypt_block(const Sm4Key* key, Sm4Direction direction, __m128i block) {
    return serial_crypt(serial_keys(key, direction), block);
}

// The engine entry points below end with VZEROALL: the rounds leave key
// words and the block's inner words in xmm registers.
void encrypt_block(const Sm4Key* key, uint8_t out[16], const uint8_t in[16]) {
    storeu128(out, serial_crypt(serial_enc(key), loadu128(in)));
    zeroall();
}

void cbc_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    serial_chain<Serial::kCbc>(key, out, in, n, iv);
    zeroall();
}
void cfb_encrypt(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    serial_chain<Serial::kCfb>(key, out, in, n, iv);
    zeroall();
}
void ofb(const Sm4Key* key, uint8_t* out, const uint8_t* in, size_t n, uint8_t iv[16]) {
    serial_chain<Serial::kOfb>(key, out, in, n, iv);
    zeroall();
}

void ccm_two_lanes(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t n,
                   uint8_t counter[16], uint8_t mac[16]) {
    if (n == 0) return;
    ccm_chain(key, direction, out, in, n, counter, mac);
    zeroall();
    // ccm_chain's frame: with two lanes' words, counters and tables live
    // beside the rounds' 11 clobbered registers, GCC spills (a round key
    // among them: the residue test saw it 289 bytes down).
    burn_stack(wipe_bytes(kCcmChainFrame));
}

}  // namespace hwaccel::x86::sm4x

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
