// Architectures without accelerated engines yet: only the portable engines run.
#include "cpu/detect.hpp"

namespace hwaccel {

CpuFeatures detect_cpu() { return CpuFeatures{}; }

}  // namespace hwaccel
