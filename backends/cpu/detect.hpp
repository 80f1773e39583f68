// Per-architecture detection, called once by cpu_features().
#pragma once

#include "hwaccel/cpu.hpp"

namespace hwaccel {

CpuFeatures detect_cpu();

}  // namespace hwaccel
