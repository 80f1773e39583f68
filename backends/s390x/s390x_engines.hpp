// IBM Z CPACF engines (cpacf_engines.cpp). Each reports itself available only
// for the function codes the machine's KIMD/KLMD queries report; the registry
// lists them under #if defined(__s390x__).
#pragma once

#include <cstddef>
#include <cstdint>

#include "hwaccel/engines.hpp"

namespace hwaccel::s390x {

extern const Sha1Engine sha1_cpacf;      // KIMD-SHA-1   (cpu.cpacf_sha1)
extern const Sha256Engine sha256_cpacf;  // KIMD-SHA-256 (cpu.cpacf_sha256)
extern const KeccakEngine keccak_cpacf;  // KIMD-SHA3-*, KIMD-SHAKE-128, KLMD (cpu.cpacf_sha3;
                                         // SHAKE128's rate and SHAKE's KLMD also need
                                         // cpu.cpacf_shake, else done in software)
extern const GhashEngine ghash_cpacf;    // KIMD-GHASH   (cpu.cpacf_ghash)

// ---- The KLMD paths behind keccak_cpacf's optional members finish, squeeze
// and oneshot (engines.hpp), exposed for the s390x tests. Each returns
// false, touching nothing, when no function code fits (rate, pad) or the
// machine lacks it; the sponge then uses absorb/permute.

// Absorbs all of data (any length), pads with `pad` (kSha3Pad or kShakePad,
// plus the final bit) and writes the first out_len bytes of
// output (SHA-3 pads: out_len <= rate). The state is left as after the
// permutation that produced the last output block (after the padding one if
// out_len == 0), so a sponge continues at offset out_len % rate, or with a
// permutation when out_len is a non-zero multiple of rate.
bool keccak_finish(uint64_t state[25], const uint8_t* data, size_t len, size_t rate, uint8_t pad,
                   uint8_t* out, size_t out_len);

// SHAKE only, from a padded state at a block boundary: for each block of
// output, permute, then copy min(rate, remaining) bytes (KLMD with PS).
bool keccak_squeeze(uint64_t state[25], uint8_t* out, size_t out_len, size_t rate);

// The whole digest from the zero state in one KLMD; with facility 86 (MSA 12)
// the state is not even initialised (NIP|DUFOP), as the kernel's one-shot.
// `force_nip` is for tests: use NIP without facility 86 (only under a model).
bool keccak_oneshot(const uint8_t* data, size_t len, size_t rate, uint8_t pad, uint8_t* out,
                    size_t out_len, bool force_nip = false);

}  // namespace hwaccel::s390x
