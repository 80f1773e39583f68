// hwaccel::wipe: zeroes secrets in a way the optimiser may not remove. The
// module calls no libcrypto function (docs/DESIGN.md), so this stands in for
// OPENSSL_cleanse.
#pragma once

#include <cstddef>

#include "hwaccel/bytes.hpp"

namespace hwaccel {

inline void wipe(void* p, size_t n) { secure_zero(p, n); }

}  // namespace hwaccel
