#include "vex_gfni_encode.hpp"

namespace hwaccel::test::gfni {
namespace {

int disp_size(const Form& f) {
    switch (f.kind) {
    case Form::kRegister: return 0;
    case Form::kIndexOnly:
    case Form::kAbsolute:
    case Form::kRipRelative: return 4;
    default:
        // [RBP]/[R13] has no mod-00 form: that slot means RIP-relative / no base.
        if (f.disp_bytes == 0 && (f.base & 7) == 5) return 1;
        return f.disp_bytes;
    }
}

}  // namespace

std::vector<uint8_t> encode(const Form& f) {
    const int reg_ext = f.dst >> 3;
    int index_ext = 0, rm_ext = 0;
    uint8_t mod = 0, rm = 0;
    bool sib = false;
    uint8_t sib_byte = 0;
    const int disp = disp_size(f);
    switch (f.kind) {
    case Form::kRegister:
        mod = 3, rm = f.src2 & 7, rm_ext = f.src2 >> 3;
        break;
    case Form::kRipRelative:
        mod = 0, rm = 5, rm_ext = f.vex_b;
        break;
    case Form::kAbsolute:  // SIB, no index (100), no base (101 with mod 00)
        mod = 0, rm = 4, sib = true, rm_ext = f.vex_b;
        sib_byte = static_cast<uint8_t>(f.scale_log2 << 6 | 4 << 3 | 5);
        break;
    case Form::kIndexOnly:
        mod = 0, rm = 4, sib = true, rm_ext = f.vex_b, index_ext = f.index >> 3;
        sib_byte = static_cast<uint8_t>(f.scale_log2 << 6 | (f.index & 7) << 3 | 5);
        break;
    case Form::kBase:
    case Form::kBaseIndex:
        mod = disp == 0 ? 0 : disp == 1 ? 1 : 2;
        rm_ext = f.base >> 3;
        if (f.kind == Form::kBaseIndex || (f.base & 7) == 4) {
            rm = 4, sib = true;
            const int index = f.kind == Form::kBaseIndex ? f.index : 4;  // 100: none
            index_ext = f.kind == Form::kBaseIndex ? f.index >> 3 : 0;
            sib_byte = static_cast<uint8_t>(f.scale_log2 << 6 | (index & 7) << 3 | (f.base & 7));
        } else {
            rm = f.base & 7;
        }
        break;
    }
    std::vector<uint8_t> out;
    out.push_back(0xc4);
    // R, X, B stored inverted; map 00011 = 0F3A.
    out.push_back(static_cast<uint8_t>((!reg_ext) << 7 | (!index_ext) << 6 | (!rm_ext) << 5 | 0x03));
    // W1, vvvv inverted, L, pp = 01 (66).
    out.push_back(static_cast<uint8_t>(0x80 | (~f.src1 & 15) << 3 | (f.ymm ? 4 : 0) | 0x01));
    out.push_back(f.inverse ? 0xcf : 0xce);
    out.push_back(static_cast<uint8_t>(mod << 6 | (f.dst & 7) << 3 | rm));
    if (sib) out.push_back(sib_byte);
    for (int i = 0; i < disp; ++i) out.push_back(static_cast<uint8_t>(static_cast<uint32_t>(f.disp) >> (8 * i)));
    out.push_back(f.imm8);
    return out;
}

size_t disp32_offset(const Form&) { return 5; }  // C4 xx xx op modrm | disp32

}  // namespace hwaccel::test::gfni
