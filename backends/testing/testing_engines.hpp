// Engines that exist only in test builds (HWACCEL_TESTING): the registry
// lists them, but never chooses them on its own; a test forces them with
// HWACCEL_ENGINES.
#pragma once

#include "hwaccel/engines.hpp"

namespace hwaccel::testing {

// "minimal-test": the portable engine's required functions (set_key, ecb,
// encrypt_block) and none of the optional ones, so the provider builds every
// mode itself (provider/cipher/sm4_modes.cpp), as it would for a new engine.
extern const Sm4Engine sm4_minimal;

}  // namespace hwaccel::testing
