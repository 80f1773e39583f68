// IBM Z feature detection: STFLE facility bits, then the KIMD and KLMD query
// bitmaps, so an engine is chosen only for the function codes this machine
// reports (HARDWARE.md 2.2).
#include <sys/auxv.h>

#include "cpu/detect.hpp"
#include "s390x/cpacf.hpp"

#ifndef HWCAP_S390_STFLE
#define HWCAP_S390_STFLE 4
#endif

namespace hwaccel {
namespace s390x {

void apply_facts(const CpacfFacts& f, CpuFeatures& out) {
    const bool msa = has_facility(f, kFacilityMsa);
    auto both = [&f](unsigned long fc) {
        return has_function(f.kimd, fc) && has_function(f.klmd, fc);
    };
    out.cpacf_sha1 = msa && has_function(f.kimd, kSha1);
    out.cpacf_sha256 = msa && has_function(f.kimd, kSha256);
    out.cpacf_sha3 =
        msa && both(kSha3_224) && both(kSha3_256) && both(kSha3_384) && both(kSha3_512);
    out.cpacf_shake = msa && both(kShake128) && both(kShake256);
    out.cpacf_ghash = msa && has_facility(f, kFacilityMsa4) && has_function(f.kimd, kGhash);
}

CpacfFacts probe_facts() {
    CpacfFacts f;
    // Every z/Architecture Linux has STFLE; the hwcap says so, and asking
    // first costs nothing.
    if ((getauxval(AT_HWCAP) & HWCAP_S390_STFLE) == 0) return f;
    register unsigned long r0 asm("0") = sizeof f.facilities / 8 - 1;  // doublewords - 1
    asm volatile(".insn s,0xb2b00000,%[list]"  // STFLE; cc 3 only means "more exist"
                 : "+d"(r0), [list] "=Q"(f.facilities)
                 :
                 : "cc");
    // Without the message-security assist, KIMD/KLMD are operation exceptions.
    if (!has_facility(f, kFacilityMsa)) return f;
    kimd(kQuery, f.kimd, nullptr, 0);
    klmd(kQuery, f.klmd, nullptr, 0);
    return f;
}

const CpacfFacts& facts() {
    static const CpacfFacts f = probe_facts();
    return f;
}

}  // namespace s390x

CpuFeatures detect_cpu() {
    CpuFeatures features;
    s390x::apply_facts(s390x::facts(), features);
    return features;
}

}  // namespace hwaccel
