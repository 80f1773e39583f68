// Engines on the Zhaoxin PadLock Hash Engine (PHE): rep xsha1 / rep xsha256.
// Listed by the registry after SHA-NI (a CPU with both uses SHA-NI, as the
// kernel does) and before the portable engine, under #if defined(__x86_64__).
#pragma once

#include "hwaccel/engines.hpp"

namespace hwaccel::zhaoxin {

extern const Sha1Engine sha1_phe;      // phe.cpp: CpuFeatures::phe (see phe_detect.hpp)
extern const Sha256Engine sha256_phe;  // phe.cpp: the same instruction family, SHA-224 too

}  // namespace hwaccel::zhaoxin
