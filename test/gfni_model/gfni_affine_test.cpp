// The model's semantics (gfni_affine.hpp): known values first, which run on
// any CPU, then against the real instructions where the CPU has GFNI.
//
// Known values, independent of the model's code:
//   - inverses in AES's field (FIPS 197 section 4.4: {53}{ca} = {01}), and
//     x * x^-1 = 1 checked with a multiplication written here;
//   - the identity matrix 0x0102040810204080 (A.byte[7-i] = 1 << i) gives
//     x back, and x^-1 in the INV form;
//   - the AES S-box (FIPS 197 figure 7) as the INV form with matrix
//     0xf1e3c78f1f3e7cf8 and constant 0x63 (Intel's GFNI white paper);
//   - the SM4 S-box (GB/T 32907, test/support/sm4_sbox.hpp) as the affine
//     form with 0x4c287db91a22505d / 0x3e, then the INV form with
//     0xf3ab34a974a6b589 / 0xd3 (issue 13), on all 256 inputs.
#include <immintrin.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>

#include "gfni_affine.hpp"
#include "gfni_model.hpp"
#include "support/sm4_sbox.hpp"

using namespace hwaccel::test::gfni;

namespace {

constexpr uint64_t kIdentity = 0x0102040810204080ull;

uint8_t slow_multiply(uint8_t a, uint8_t b) {  // shift-and-add, reduced by 0x11B at the end
    unsigned p = 0;
    for (int i = 0; i < 8; ++i)
        if (b >> i & 1) p ^= unsigned{a} << i;
    for (int i = 14; i >= 8; --i)
        if (p >> i & 1) p ^= 0x11bu << (i - 8);
    return static_cast<uint8_t>(p);
}

uint8_t one(Op op, uint64_t matrix, uint8_t x, uint8_t imm8) {
    uint8_t src1[8] = {x}, src2[8], out[8];
    std::memcpy(src2, &matrix, 8);
    gf2p8affine(op, src1, src2, imm8, 8, out);
    return out[0];
}


// The immediate must be a constant: one instantiation per value.
template <int Imm>
__attribute__((target("avx2,gfni"))) void ymm_imm(Op op, const uint8_t* x, const uint8_t* a, uint8_t* out) {
    const __m256i vx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x));
    const __m256i va = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a));
    const __m256i r = op == Op::kAffine ? _mm256_gf2p8affine_epi64_epi8(vx, va, Imm)
                                        : _mm256_gf2p8affineinv_epi64_epi8(vx, va, Imm);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), r);
}
template <int Imm>
__attribute__((target("avx2,gfni"))) void xmm_imm(Op op, const uint8_t* x, const uint8_t* a, uint8_t* out) {
    const __m128i vx = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x));
    const __m128i va = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a));
    const __m128i r = op == Op::kAffine ? _mm_gf2p8affine_epi64_epi8(vx, va, Imm)
                                        : _mm_gf2p8affineinv_epi64_epi8(vx, va, Imm);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), r);
}

template <int... I>
struct ImmTable {
    using Fn = void (*)(Op, const uint8_t*, const uint8_t*, uint8_t*);
    static constexpr Fn ymm[] = {ymm_imm<I>...};
    static constexpr Fn xmm[] = {xmm_imm<I>...};
};
// A spread of constants: 0, all ones, single bits, and arbitrary ones.
using Imms = ImmTable<0x00, 0xff, 0x01, 0x80, 0x3e, 0xd3, 0x63, 0x5a, 0xa7, 0x1c>;
constexpr uint8_t kImms[] = {0x00, 0xff, 0x01, 0x80, 0x3e, 0xd3, 0x63, 0x5a, 0xa7, 0x1c};

}  // namespace

TEST_CASE("gfni semantics: inverses in GF(2^8) mod 0x11B", "[gfni][model][semantics]") {
    CHECK(gf_inverse(0x00) == 0x00);
    CHECK(gf_inverse(0x01) == 0x01);
    CHECK(gf_inverse(0x53) == 0xca);  // FIPS 197 4.4
    CHECK(gf_inverse(0xca) == 0x53);
    CHECK(slow_multiply(0x57, 0x83) == 0xc1);  // FIPS 197 4.2's example
    for (int x = 1; x < 256; ++x) {
        INFO("x = " << x);
        CHECK(slow_multiply(static_cast<uint8_t>(x), gf_inverse(static_cast<uint8_t>(x))) == 1);
    }
}

TEST_CASE("gfni semantics: identity matrix, constant, AES and SM4 S-boxes", "[gfni][model][semantics]") {
    static const uint8_t kAesSbox[][2] = {{0x00, 0x63}, {0x01, 0x7c}, {0x53, 0xed}, {0xff, 0x16},
                                          {0x10, 0xca}, {0x9a, 0xb8}, {0xc9, 0xdd}};  // FIPS 197 fig. 7
    for (int x = 0; x < 256; ++x) {
        const auto b = static_cast<uint8_t>(x);
        INFO("x = " << x);
        CHECK(one(Op::kAffine, kIdentity, b, 0) == b);
        CHECK(one(Op::kAffine, kIdentity, b, 0xa5) == (b ^ 0xa5));
        CHECK(one(Op::kAffine, 0, b, 0x3c) == 0x3c);
        CHECK(one(Op::kAffineInverse, kIdentity, b, 0) == gf_inverse(b));
        // Bit i of the result reads row A.byte[7-i]: row 0 only (A.byte[7] = 0xff) is parity.
        CHECK(one(Op::kAffine, 0xff00000000000000ull, b, 0) == (__builtin_parity(x) ? 1 : 0));
        const uint8_t sm4 = one(Op::kAffineInverse, 0xf3ab34a974a6b589ull,
                                one(Op::kAffine, 0x4c287db91a22505dull, b, 0x3e), 0xd3);
        CHECK(sm4 == hwaccel::test::kSm4Sbox[x]);
    }
    for (const auto& p : kAesSbox) {
        INFO("x = " << int{p[0]});
        CHECK(one(Op::kAffineInverse, 0xf1e3c78f1f3e7cf8ull, p[0], 0x63) == p[1]);
    }
    // Each 64-bit lane uses its own matrix.
    uint8_t x[32], a[32], out[32];
    for (int i = 0; i < 32; ++i) x[i] = static_cast<uint8_t>(17 * i + 3);
    const uint64_t lanes[4] = {kIdentity, 0, 0xff00000000000000ull, kIdentity};
    std::memcpy(a, lanes, 32);
    gf2p8affine(Op::kAffine, x, a, 0, 32, out);
    for (int i = 0; i < 32; ++i) {
        INFO("byte " << i);
        const int lane = i / 8;
        const uint8_t want = lane == 0 || lane == 3 ? x[i] : lane == 1 ? 0 : __builtin_parity(x[i]);
        CHECK(out[i] == want);
    }
}

TEST_CASE("gfni semantics: against the real instructions, all 256 inputs, random matrices",
          "[gfni][model][semantics][hardware]") {
    // Without GFNI the instructions below trap: with the model installed
    // (gfni_main.cpp) this then checks its SIGILL route against its own
    // semantics, as under qemu-x86_64 -cpu max (gfni_model_tests_qemu).
    int trials = 100;
    if (!cpu_has_gfni_natively()) {
        if (!model_active()) {
            WARN("this CPU lacks GFNI (or the OS's AVX state): comparison with the real "
                 "instructions skipped; the known-value tests above still ran");
            return;
        }
        WARN("no GFNI here: checked via the model's SIGILL route");
        trials = 4;
    }
    std::mt19937_64 rng(13);
    uint8_t x[256], a[256], model[256], hw[256];
    for (int i = 0; i < 256; ++i) x[i] = static_cast<uint8_t>(i);
    for (int trial = 0; trial < trials; ++trial) {
        for (auto& b : a) b = static_cast<uint8_t>(rng());
        if (trial == 0) std::memset(a, 0, sizeof a);
        if (trial == 1)
            for (int q = 0; q < 32; ++q) std::memcpy(a + 8 * q, &kIdentity, 8);
        for (size_t k = 0; k < sizeof kImms; ++k)
            for (Op op : {Op::kAffine, Op::kAffineInverse}) {
                INFO("trial " << trial << " imm8 " << int{kImms[k]} << " inverse " << (op == Op::kAffineInverse));
                for (int i = 0; i < 256; i += 32) Imms::ymm[k](op, x + i, a + i, hw + i);
                gf2p8affine(op, x, a, kImms[k], 256, model);  // 32 bytes at a time would do the same
                CHECK(std::memcmp(model, hw, 256) == 0);
                for (int i = 0; i < 256; i += 16) Imms::xmm[k](op, x + i, a + i, hw + i);
                CHECK(std::memcmp(model, hw, 256) == 0);
            }
    }
}
