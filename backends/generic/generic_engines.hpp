// The portable engines: plain C++, correct on any byte order, always available.
#pragma once

#include "hwaccel/engines.hpp"

namespace hwaccel::generic {

extern const Sha1Engine sha1;
extern const Sha256Engine sha256;
extern const KeccakEngine keccak;
extern const Sm4Engine sm4;
extern const GhashEngine ghash;  // ghash.cpp: constant-time carry-less multiplies

}  // namespace hwaccel::generic
