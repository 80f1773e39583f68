// The xmm/ymm registers of an interrupted thread, as Linux saves them in the
// signal frame (x86-64), for reading and for writing back on sigreturn.
//
// uc_mcontext.fpregs points at the frame's extended state: the 512-byte
// legacy FXSAVE area (xmm0-15 at byte 160, 16 bytes each), then, when the
// kernel saved with XSAVE, the XSAVE header at 512 (XSTATE_BV, the
// components actually saved) and the components in the standard (not
// compacted) layout. The kernel marks such a frame in the FXSAVE area's
// software-reserved bytes (464..511): magic1 = FP_XSTATE_MAGIC1, the frame's
// feature mask and xstate_size, and puts FP_XSTATE_MAGIC2 right after the
// xstate (arch/x86/include/uapi/asm/sigcontext.h, struct _fpx_sw_bytes).
//
// The upper halves of ymm0-15 are the YMM_Hi128 component (XSAVE feature 2),
// whose offset CPUID leaf 0xD sub-leaf 2 gives (EBX; EAX its size, 256); on
// AVX-512 machines bits 511:256 of zmm0-15 are ZMM_Hi256 (feature 6, sub-leaf
// 6), which a VEX-encoded write also clears. A component whose XSTATE_BV bit
// is clear is in its initial state (all zero) and its bytes in the frame are
// not meaningful: reading gives zeros, writing first materialises it (zeros
// for every register, bit set), so the kernel's XRSTOR loads what we wrote.
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <cstdint>

namespace hwaccel::test::gfni {

// Where this CPU's XSAVE standard layout puts the vector components (from
// CPUID, read once); 0 if the component does not exist.
struct XsaveLayout {
    uint32_t ymm_hi128 = 0;  // offset of YMM_Hi128
    uint32_t zmm_hi256 = 0;  // offset of ZMM_Hi256
};
const XsaveLayout& xsave_layout();

class FrameVectors {
public:
    explicit FrameVectors(ucontext_t* uc);

    // Whether the frame carries XSAVE state with the ymm upper halves; if
    // not, why (for the model's abort message).
    bool usable() const { return error_ == nullptr; }
    const char* error() const { return error_; }

    // Register reg (0..15), its low 32 bytes.
    void read_ymm(int reg, uint8_t out[32]) const;
    // Writes `bytes` (16 or 32) to register reg and zeroes the rest of it up
    // to the widest register the frame holds (VEX: bits MAX_VL-1:VL = 0).
    void write_vex(int reg, const uint8_t* in, size_t bytes);

private:
    uint8_t* component(int feature, uint32_t offset);  // materialised
    bool saved(int feature) const;

    uint8_t* fp_ = nullptr;
    uint64_t frame_features_ = 0;  // the kernel's mask for this frame
    const char* error_ = nullptr;
};

}  // namespace hwaccel::test::gfni
