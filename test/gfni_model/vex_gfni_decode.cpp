#include "vex_gfni_decode.hpp"

namespace hwaccel::test::gfni {

bool decode(const uint8_t* p, Instruction& insn) {
    Instruction d;
    size_t n = 0;
    if (p[n++] != 0xc4) return false;  // three-byte VEX
    const uint8_t vex1 = p[n++];       // R X B m-mmmm (R, X, B inverted)
    if ((vex1 & 0x1f) != 0x03) return false;  // map 0F3A
    const int r = (~vex1 >> 7) & 1, x = (~vex1 >> 6) & 1, b = (~vex1 >> 5) & 1;
    const uint8_t vex2 = p[n++];  // W vvvv L pp (vvvv inverted)
    if ((vex2 & 0x80) == 0) return false;  // W1 only
    if ((vex2 & 0x03) != 0x01) return false;  // pp = 66
    d.src1 = (~vex2 >> 3) & 0x0f;
    d.vector_bytes = (vex2 & 0x04) ? 32 : 16;
    const uint8_t opcode = p[n++];
    if (opcode == 0xce)
        d.op = Op::kAffine;
    else if (opcode == 0xcf)
        d.op = Op::kAffineInverse;
    else
        return false;

    const uint8_t modrm = p[n++];
    const int mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
    d.dst = reg | (r << 3);
    if (mod == 3) {
        d.src2 = rm | (b << 3);
    } else {
        d.src2_in_memory = true;
        int disp_bytes = mod == 1 ? 1 : mod == 2 ? 4 : 0;
        if (rm == 4) {  // SIB follows
            const uint8_t sib = p[n++];
            const int ss = sib >> 6, idx = ((sib >> 3) & 7) | (x << 3), base = sib & 7;
            d.index = idx == 4 ? -1 : idx;  // 100 without VEX.X: no index (R12 with it)
            d.scale = 1 << ss;
            if (base == 5 && mod == 0) {
                d.base = -1;  // no base, disp32, whatever VEX.B says
                disp_bytes = 4;
            } else {
                d.base = base | (b << 3);
            }
        } else if (rm == 5 && mod == 0) {
            d.rip_relative = true;  // whatever VEX.B says
            disp_bytes = 4;
        } else {
            d.base = rm | (b << 3);
        }
        if (disp_bytes == 1) {
            d.displacement = static_cast<int8_t>(p[n++]);
        } else if (disp_bytes == 4) {
            uint32_t v = 0;
            for (int i = 0; i < 4; ++i) v |= uint32_t{p[n++]} << (8 * i);
            d.displacement = static_cast<int32_t>(v);
        }
    }
    d.imm8 = p[n++];
    d.length = n;
    insn = d;
    return true;
}

uint64_t effective_address(const Instruction& insn, const uint64_t gpr[16], uint64_t rip) {
    // Address arithmetic wraps modulo 2^64, as the hardware's does.
    uint64_t address = static_cast<uint64_t>(insn.displacement);
    if (insn.rip_relative) return rip + insn.length + address;
    if (insn.base >= 0) address += gpr[insn.base];
    if (insn.index >= 0) address += gpr[insn.index] * static_cast<uint64_t>(insn.scale);
    return address;
}

}  // namespace hwaccel::test::gfni
