// The decoder on instructions assembled by GNU as 2.40 (bytes copied from
// `objdump -d`), on the encodings it must refuse, and against the tests' own
// encoder over every operand form. Runs on any CPU.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "vex_gfni_decode.hpp"
#include "vex_gfni_encode.hpp"

using namespace hwaccel::test::gfni;

namespace {

enum : int { RAX, RCX, RDX, RBX, RSP, RBP, RSI, RDI, R8, R9, R10, R11, R12, R13, R14, R15 };

struct Known {
    std::vector<uint8_t> bytes;
    const char* text;
    Op op;
    size_t vector_bytes;
    int dst, src1;
    bool memory;
    int src2, base, index, scale;
    int64_t disp;
    bool rip;
    uint8_t imm8;
};

const Known kKnown[] = {
    {{0xc4, 0xe3, 0xed, 0xce, 0xd9, 0x3e}, "vgf2p8affineqb $0x3e,%ymm1,%ymm2,%ymm3",
     Op::kAffine, 32, 3, 2, false, 1, -1, -1, 1, 0, false, 0x3e},
    {{0xc4, 0xc3, 0xb9, 0xcf, 0xc7, 0xd3}, "vgf2p8affineinvqb $0xd3,%xmm15,%xmm8,%xmm0",
     Op::kAffineInverse, 16, 0, 8, false, 15, -1, -1, 1, 0, false, 0xd3},
    {{0xc4, 0x63, 0x8d, 0xce, 0x08, 0x01}, "vgf2p8affineqb $0x1,(%rax),%ymm14,%ymm9",
     Op::kAffine, 32, 9, 14, true, 0, RAX, -1, 1, 0, false, 1},
    {{0xc4, 0x63, 0xe1, 0xcf, 0x64, 0x24, 0x10, 0x02}, "vgf2p8affineinvqb $0x2,0x10(%rsp),%xmm3,%xmm12",
     Op::kAffineInverse, 16, 12, 3, true, 0, RSP, -1, 1, 0x10, false, 2},
    {{0xc4, 0x03, 0xc5, 0xce, 0xbc, 0xe5, 0xbb, 0xdc, 0xfe, 0xff, 0x03},
     "vgf2p8affineqb $0x3,-0x12345(%r13,%r12,8),%ymm7,%ymm15",
     Op::kAffine, 32, 15, 7, true, 0, R13, R12, 8, -0x12345, false, 3},
    {{0xc4, 0xe3, 0xfd, 0xce, 0x0d, 0x40, 0x00, 0x00, 0x00, 0x04}, "vgf2p8affineqb $0x4,0x40(%rip),%ymm0,%ymm1",
     Op::kAffine, 32, 1, 0, true, 0, -1, -1, 1, 0x40, true, 4},
    {{0xc4, 0xe3, 0xd5, 0xcf, 0x34, 0x8d, 0x00, 0x10, 0x00, 0x00, 0x05},
     "vgf2p8affineinvqb $0x5,0x1000(,%rcx,4),%ymm5,%ymm6",
     Op::kAffineInverse, 32, 6, 5, true, 0, -1, RCX, 4, 0x1000, false, 5},
    {{0xc4, 0xc3, 0xf1, 0xce, 0x55, 0x00, 0x06}, "vgf2p8affineqb $0x6,0x0(%r13),%xmm1,%xmm2",
     Op::kAffine, 16, 2, 1, true, 0, R13, -1, 1, 0, false, 6},
    {{0xc4, 0xe3, 0xf5, 0xce, 0x14, 0x25, 0xff, 0xff, 0xff, 0x7f, 0x07}, "vgf2p8affineqb $0x7,0x7fffffff,%ymm1,%ymm2",
     Op::kAffine, 32, 2, 1, true, 0, -1, -1, 1, 0x7fffffff, false, 7},
};

}  // namespace

TEST_CASE("gfni decoder: instructions as GNU as encodes them", "[gfni][model][decoder]") {
    for (const Known& k : kKnown) {
        INFO(k.text);
        Instruction d;
        REQUIRE(decode(k.bytes.data(), d));
        CHECK(d.length == k.bytes.size());
        CHECK(d.op == k.op);
        CHECK(d.vector_bytes == k.vector_bytes);
        CHECK(d.dst == k.dst);
        CHECK(d.src1 == k.src1);
        CHECK(d.src2_in_memory == k.memory);
        CHECK(d.imm8 == k.imm8);
        if (!k.memory) {
            CHECK(d.src2 == k.src2);
            continue;
        }
        CHECK(d.rip_relative == k.rip);
        CHECK(d.base == k.base);
        CHECK(d.index == k.index);
        if (k.index >= 0) CHECK(d.scale == k.scale);
        CHECK(d.displacement == k.disp);
    }
}

TEST_CASE("gfni decoder: addresses", "[gfni][model][decoder]") {
    uint64_t gpr[16];
    for (int i = 0; i < 16; ++i) gpr[i] = 0x1000 * (i + 1);
    Instruction d;
    REQUIRE(decode(kKnown[4].bytes.data(), d));  // -0x12345(%r13,%r12,8)
    CHECK(effective_address(d, gpr, 0) == 0xe000 + 8 * 0xd000 - 0x12345);
    REQUIRE(decode(kKnown[5].bytes.data(), d));  // 0x40(%rip): from the next instruction
    CHECK(effective_address(d, gpr, 0x400000) == 0x400000 + 10 + 0x40);
    REQUIRE(decode(kKnown[6].bytes.data(), d));  // 0x1000(,%rcx,4)
    CHECK(effective_address(d, gpr, 0) == 0x1000 + 4 * 0x2000);
    gpr[RCX] = ~uint64_t{0};  // wraps modulo 2^64
    CHECK(effective_address(d, gpr, 0) == 0x1000 - 4);
}

TEST_CASE("gfni decoder: refuses what it does not model", "[gfni][model][decoder]") {
    const std::vector<uint8_t> ok = kKnown[0].bytes;  // c4 e3 ed ce d9 3e
    Instruction d;
    REQUIRE(decode(ok.data(), d));
    auto refused = [&](std::vector<uint8_t> b, const char* why) {
        INFO(why);
        b.resize(16, 0);
        CHECK_FALSE(decode(b.data(), d));
    };
    std::vector<uint8_t> b = ok;
    b[2] &= 0x7f;
    refused(b, "VEX.W0");
    b = ok, b[2] = (b[2] & ~3) | 0;
    refused(b, "pp = none");
    b = ok, b[2] = (b[2] & ~3) | 2;
    refused(b, "pp = F3");
    b = ok, b[1] = (b[1] & ~0x1f) | 2;
    refused(b, "map 0F38");
    b = ok, b[3] = 0xcd;
    refused(b, "opcode CD");
    b = {0x66, 0x0f, 0x3a, 0xce, 0xca, 0x01};
    refused(b, "legacy SSE gf2p8affineqb");
    b = {0x62, 0xf3, 0xed, 0x28, 0xce, 0xd9, 0x3e};
    refused(b, "EVEX");
    b = ok, b.insert(b.begin(), 0x67);
    refused(b, "address-size prefix");
    b = {0x0f, 0x0b};
    refused(b, "ud2");
}

TEST_CASE("gfni decoder: every form the encoder makes", "[gfni][model][decoder]") {
    std::mt19937_64 rng(99);
    for (int n = 0; n < 20000; ++n) {
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
        f.disp = f.disp_bytes == 1 ? static_cast<int8_t>(rng()) : static_cast<int32_t>(rng());
        if (f.disp_bytes == 0 && f.kind != Form::kIndexOnly && f.kind != Form::kAbsolute &&
            f.kind != Form::kRipRelative)
            f.disp = 0;
        f.vex_b = rng() % 2;
        f.imm8 = static_cast<uint8_t>(rng());
        std::vector<uint8_t> bytes = encode(f);
        Instruction d;
        REQUIRE(decode(bytes.data(), d));
        INFO("form kind " << f.kind << " base " << f.base << " index " << f.index << " disp bytes "
                          << f.disp_bytes);
        CHECK(d.length == bytes.size());
        CHECK(d.op == (f.inverse ? Op::kAffineInverse : Op::kAffine));
        CHECK(d.vector_bytes == (f.ymm ? 32u : 16u));
        CHECK(d.dst == f.dst);
        CHECK(d.src1 == f.src1);
        CHECK(d.imm8 == f.imm8);
        CHECK(d.src2_in_memory == (f.kind != Form::kRegister));
        switch (f.kind) {
        case Form::kRegister: CHECK(d.src2 == f.src2); break;
        case Form::kRipRelative:
            CHECK(d.rip_relative);
            CHECK(d.displacement == f.disp);
            break;
        case Form::kAbsolute:
            CHECK((d.base == -1 && d.index == -1 && !d.rip_relative));
            CHECK(d.displacement == f.disp);
            break;
        case Form::kIndexOnly:
            CHECK((d.base == -1 && d.index == f.index && d.scale == 1 << f.scale_log2));
            CHECK(d.displacement == f.disp);
            break;
        case Form::kBase:
        case Form::kBaseIndex:
            CHECK(d.base == f.base);
            CHECK(d.index == (f.kind == Form::kBaseIndex ? f.index : -1));
            if (f.kind == Form::kBaseIndex) CHECK(d.scale == 1 << f.scale_log2);
            // Encoded displacement (RBP/R13 without one get disp8 0).
            CHECK(d.displacement == (f.disp_bytes == 1 ? static_cast<int8_t>(f.disp) : f.disp_bytes ? f.disp : 0));
            break;
        }
    }
}
