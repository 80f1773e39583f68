// GHASH on IBM Z CPACF: KIMD with function code 65 (KIMD-GHASH, MSA 4).
//
// The instruction does exactly what GhashEngine::update asks: for each
// 16-byte block X_i of the second operand, ICV = (ICV ^ X_i) * H, with the
// 32-byte parameter block holding the ICV (the running Y) followed by the
// hash subkey H, both in GCM's own byte order, which is the interface's. So
// there is nothing to precompute: set_key keeps H in GhashKey::h, update
// builds the parameter block on the stack, runs KIMD (the brc 1 loop of
// cpacf.hpp re-issues it after a partial completion) and takes Y back. The
// Linux kernel's ghash_s390.c and OpenSSL's gcm_ghash_s390x use the same
// layout.
//
// Constant-time: the hardware's; no branch or address here depends on H, Y
// or the data. The stack copy of H is wiped before returning, and so are the
// registers it passed through: a build for z13 or later (Ubuntu's target;
// RHEL 9's is z14) copies H and Y with VL/VST through v0, and set_key
// returned with H in v0; clear_vector_registers() zeroes v0-v7, v16-v31 and
// the low halves of v8-v15 there, f0-f7 in a build without the vector
// facility (Debian's z196). The s390x residue test checks both builds
// (docs/s390x.md).
#include <cstring>

#include "hwaccel/bytes.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "hwaccel/cpu.hpp"
#include "s390x/cpacf.hpp"
#include "s390x/s390x_engines.hpp"

namespace hwaccel::s390x {
namespace {

bool available(const CpuFeatures& cpu) { return cpu.cpacf_ghash; }

void set_key(GhashKey* key, const uint8_t h[16]) {
    // Nothing to precompute; the rest of the key is zeroed so that a key
    // replaced keeps nothing of the previous one.
    std::memmove(key->h, h, 16);
    secure_zero(key->engine_data, sizeof key->engine_data);
    key->engine_count = 0;
    clear_vector_registers();  // z13 builds copy H through v0
}

void update(GhashKey* key, uint8_t y[16], const uint8_t* data, size_t nblocks) {
    if (nblocks == 0) return;
    alignas(8) uint8_t param[32];  // ICV (Y), then H
    std::memcpy(param, y, 16);
    std::memcpy(param + 16, key->h, 16);
    kimd(kGhash, param, data, nblocks * 16);
    std::memcpy(y, param, 16);
    secure_zero(param, sizeof param);
    clear_vector_registers();  // z13 builds: H and Y passed through v0
}

}  // namespace

const GhashEngine ghash_cpacf = {
    .name = "cpacf",
    .available = available,
    .set_key = set_key,
    .update = update,
};

}  // namespace hwaccel::s390x
