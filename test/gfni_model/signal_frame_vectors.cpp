#include "signal_frame_vectors.hpp"

#include <cpuid.h>

#include <cstring>

namespace hwaccel::test::gfni {
namespace {

// struct _fpx_sw_bytes in the FXSAVE area's software-reserved bytes, and
// the XSAVE header (Linux uapi asm/sigcontext.h; Intel SDM vol. 1, 13.4).
constexpr size_t kXmmOffset = 160;
constexpr size_t kSwBytes = 464;
constexpr uint32_t kMagic1 = 0x46505853;  // FP_XSTATE_MAGIC1
constexpr uint32_t kMagic2 = 0x46505845;  // FP_XSTATE_MAGIC2
constexpr size_t kXstateBv = 512;
constexpr int kFeatureSse = 1, kFeatureYmm = 2, kFeatureZmmHi256 = 6;

template <typename T>
T load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

uint32_t component_offset(unsigned subleaf) {
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid_max(0, nullptr) < 0xd) return 0;
    __cpuid_count(0xd, subleaf, eax, ebx, ecx, edx);
    return eax != 0 ? ebx : 0;  // EAX: size, 0 if the component does not exist
}

}  // namespace

const XsaveLayout& xsave_layout() {
    static const XsaveLayout layout = [] {
        XsaveLayout l;
        l.ymm_hi128 = component_offset(kFeatureYmm);
        l.zmm_hi256 = component_offset(kFeatureZmmHi256);
        return l;
    }();
    return layout;
}

FrameVectors::FrameVectors(ucontext_t* uc) {
    fp_ = reinterpret_cast<uint8_t*>(uc->uc_mcontext.fpregs);
    if (fp_ == nullptr) {
        error_ = "the signal frame has no floating-point state";
        return;
    }
    if (load<uint32_t>(fp_ + kSwBytes) != kMagic1) {
        error_ = "the signal frame has no XSAVE state (FP_XSTATE_MAGIC1 missing)";
        return;
    }
    frame_features_ = load<uint64_t>(fp_ + kSwBytes + 8);
    const uint32_t xstate_size = load<uint32_t>(fp_ + kSwBytes + 16);
    if (load<uint32_t>(fp_ + xstate_size) != kMagic2) {
        error_ = "the signal frame's XSAVE state is not terminated by FP_XSTATE_MAGIC2";
        return;
    }
    const XsaveLayout& l = xsave_layout();
    if (!(frame_features_ >> kFeatureYmm & 1) || l.ymm_hi128 == 0 ||
        l.ymm_hi128 + 16 * 16 > xstate_size) {
        error_ = "the signal frame does not hold the ymm upper halves (YMM_Hi128)";
        return;
    }
    if ((frame_features_ >> kFeatureZmmHi256 & 1) &&
        (l.zmm_hi256 == 0 || l.zmm_hi256 + 16 * 32 > xstate_size)) {
        error_ = "the signal frame's ZMM_Hi256 component is not where CPUID says";
        return;
    }
}

bool FrameVectors::saved(int feature) const {
    return load<uint64_t>(fp_ + kXstateBv) >> feature & 1;
}

uint8_t* FrameVectors::component(int feature, uint32_t offset) {
    if (!saved(feature)) {
        // Initial state: all registers zero. Make that explicit, then mark it saved.
        const size_t per_register = feature == kFeatureSse ? 16 : feature == kFeatureYmm ? 16 : 32;
        std::memset(fp_ + offset, 0, 16 * per_register);
        const uint64_t bv = load<uint64_t>(fp_ + kXstateBv) | (uint64_t{1} << feature);
        std::memcpy(fp_ + kXstateBv, &bv, sizeof bv);
    }
    return fp_ + offset;
}

void FrameVectors::read_ymm(int reg, uint8_t out[32]) const {
    std::memset(out, 0, 32);
    if (saved(kFeatureSse)) std::memcpy(out, fp_ + kXmmOffset + 16 * reg, 16);
    if (saved(kFeatureYmm)) std::memcpy(out + 16, fp_ + xsave_layout().ymm_hi128 + 16 * reg, 16);
}

void FrameVectors::write_vex(int reg, const uint8_t* in, size_t bytes) {
    std::memcpy(component(kFeatureSse, kXmmOffset) + 16 * reg, in, 16);
    uint8_t* hi = component(kFeatureYmm, xsave_layout().ymm_hi128) + 16 * reg;
    if (bytes == 32)
        std::memcpy(hi, in + 16, 16);
    else
        std::memset(hi, 0, 16);
    // Bits 511:256 (AVX-512 machines): already zero unless saved.
    if ((frame_features_ >> kFeatureZmmHi256 & 1) && saved(kFeatureZmmHi256))
        std::memset(fp_ + xsave_layout().zmm_hi256 + 32 * reg, 0, 32);
}

}  // namespace hwaccel::test::gfni
