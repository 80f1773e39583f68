// SHA-1, SHA-256 (hence SHA-224) and Keccak (SHA-3, SHAKE) on IBM Z CPACF.
//
// SHA-1/SHA-256: the engine's state is the chaining words as native integers,
// which on big-endian s390x is byte for byte the KIMD parameter block (the ICV
// in big-endian words), so KIMD runs on it directly. Padding stays in
// provider/digest/md_hasher.hpp, as in the kernel's library code: KLMD would
// save one buffer fill per message, not worth an interface change.
//
// Keccak: absorb maps onto KIMD with the function code whose rate matches
// (KIMD on a SHA-3 code is a pure absorb, no padding: SHAKE256's rate 136 is
// SHA3-256's). permute is KIMD-SHA3-512 over one 72-byte block of zeros:
// XOR with zeros changes nothing, so that is the bare Keccak-f[1600] in
// hardware (the kernel's sha3_keccakf does the same).
//
// The engine's optional members are KLMD: the tail, the padding and the
// output in one instruction (finish), more SHAKE output in one instruction
// (squeeze), a whole short message from the zero state (oneshot).
#include <cstring>

#include "generic/generic_engines.hpp"
#include "hwaccel/algorithm_facts.hpp"
#include "hwaccel/bytes.hpp"
#include "hwaccel/clear_vector_registers.hpp"
#include "hwaccel/cpu.hpp"
#include "s390x/cpacf.hpp"
#include "s390x/s390x_engines.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
              "the SHA-1/SHA-256 engines use the native state as the big-endian ICV");

namespace hwaccel::s390x {
namespace {

// ---------------------------------------------------------------- layout
//
// The one place where the two Keccak state layouts meet. Engines hold lane i
// as a native uint64_t (engines.hpp); the CPACF parameter block is 200 bytes
// with lane i little-endian at bytes 8i..8i+7, i.e. sponge byte order. On
// big-endian s390x this is a byte swap of every lane, done in place so the
// caller's state array itself serves as the parameter block.

uint8_t* to_cpacf_layout(uint64_t state[25]) {
    for (int i = 0; i < 25; ++i) store_le64(reinterpret_cast<uint8_t*>(state + i), state[i]);
    return reinterpret_cast<uint8_t*>(state);
}

void from_cpacf_layout(uint64_t state[25]) {
    for (int i = 0; i < 25; ++i) state[i] = load_le64(reinterpret_cast<const uint8_t*>(state + i));
}

// ---------------------------------------------------------------- function codes

// KIMD code absorbing at this rate; 0 when none is usable here (code 0 is
// the query, never an absorb).
unsigned long absorb_code(size_t rate) {
    switch (rate) {
    case kSha3_224Rate: return kSha3_224;
    case kSha3_256Rate: return kSha3_256;  // = kShake256Rate
    case kSha3_384Rate: return kSha3_384;
    case kSha3_512Rate: return kSha3_512;
    case kShake128Rate: return cpu_features().cpacf_shake ? kShake128 : 0;
    default: return 0;
    }
}

// KLMD code that pads with `pad` at this rate, and whether it is a SHAKE code.
unsigned long final_code(size_t rate, uint8_t pad, bool& shake) {
    const CpuFeatures& cpu = cpu_features();
    shake = pad == kShakePad;
    if (pad == kSha3Pad && cpu.cpacf_sha3) {
        switch (rate) {
        case kSha3_224Rate: return kSha3_224;
        case kSha3_256Rate: return kSha3_256;
        case kSha3_384Rate: return kSha3_384;
        case kSha3_512Rate: return kSha3_512;
        }
    }
    if (shake && cpu.cpacf_sha3 && cpu.cpacf_shake) {
        if (rate == kShake128Rate) return kShake128;
        if (rate == kShake256Rate) return kShake256;
    }
    return 0;
}

// ---------------------------------------------------------------- engines

bool sha1_available(const CpuFeatures& cpu) { return cpu.cpacf_sha1; }
bool sha256_available(const CpuFeatures& cpu) { return cpu.cpacf_sha256; }
bool keccak_available(const CpuFeatures& cpu) { return cpu.cpacf_sha3; }

void sha1_blocks(uint32_t state[5], const uint8_t* data, size_t nblocks) {
    kimd(kSha1, state, data, nblocks * 64);
}

void sha256_blocks(uint32_t state[8], const uint8_t* data, size_t nblocks) {
    kimd(kSha256, state, data, nblocks * 64);
}

void keccak_absorb(uint64_t state[25], const uint8_t* data, size_t nblocks, size_t rate) {
    const unsigned long fc = absorb_code(rate);
    if (fc == 0) {
        // SHAKE128's rate on a machine without KIMD-SHAKE-128.
        generic::keccak.absorb(state, data, nblocks, rate);
        return;
    }
    kimd(fc, to_cpacf_layout(state), data, nblocks * rate);
    from_cpacf_layout(state);
    clear_vector_registers();  // z13 builds swap the lanes through vector registers
}

alignas(8) const uint8_t kZeroBlock[kSha3_512Rate] = {};

void keccak_permute(uint64_t state[25]) {
    kimd(kSha3_512, to_cpacf_layout(state), kZeroBlock, sizeof kZeroBlock);
    from_cpacf_layout(state);
    clear_vector_registers();
}

bool keccak_oneshot_member(const uint8_t* data, size_t len, size_t rate, uint8_t pad, uint8_t* out,
                           size_t out_len) {
    return keccak_oneshot(data, len, rate, pad, out, out_len);
}

}  // namespace

const Sha1Engine sha1_cpacf = {.name = "cpacf", .available = sha1_available, .blocks = sha1_blocks};
const Sha256Engine sha256_cpacf = {
    .name = "cpacf", .available = sha256_available, .blocks = sha256_blocks};
const KeccakEngine keccak_cpacf = {
    .name = "cpacf",
    .available = keccak_available,
    .absorb = keccak_absorb,
    .permute = keccak_permute,
    .finish = keccak_finish,
    .squeeze = keccak_squeeze,
    .oneshot = keccak_oneshot_member,
};

// ---------------------------------------------------------------- KLMD paths

bool keccak_finish(uint64_t state[25], const uint8_t* data, size_t len, size_t rate, uint8_t pad,
                   uint8_t* out, size_t out_len) {
    bool shake = false;
    const unsigned long fc = final_code(rate, pad, shake);
    if (fc == 0 || (!shake && out_len > rate)) return false;
    uint8_t* block = to_cpacf_layout(state);
    if (shake) {
        klmd_shake(fc, block, data, len, out, out_len);
    } else {
        klmd(fc, block, data, len);
        std::memcpy(out, block, out_len);  // the digest is the state's first bytes
    }
    from_cpacf_layout(state);
    clear_vector_registers();
    return true;
}

bool keccak_squeeze(uint64_t state[25], uint8_t* out, size_t out_len, size_t rate) {
    bool shake = false;
    const unsigned long fc = final_code(rate, kShakePad, shake);
    if (fc == 0) return false;
    if (out_len == 0) return true;
    klmd_shake(fc | kFlagPs, to_cpacf_layout(state), nullptr, 0, out, out_len);
    from_cpacf_layout(state);
    clear_vector_registers();
    return true;
}

bool keccak_oneshot(const uint8_t* data, size_t len, size_t rate, uint8_t pad, uint8_t* out,
                    size_t out_len, bool force_nip) {
    bool shake = false;
    const unsigned long fc = final_code(rate, pad, shake);
    if (fc == 0 || (!shake && out_len > rate)) return false;
    uint8_t block[200];
    unsigned long flags = 0;
    if (force_nip || has_facility(facts(), kFacilityMsa12)) {
        // The CPU starts from the zero state without reading the block; the
        // kernel adds DUFOP on its SHA-3 one-shot, OpenSSL's first SHAKE
        // squeeze uses NIP alone.
        flags = shake ? kFlagNip : kFlagNip | kFlagDufop;
    } else {
        std::memset(block, 0, sizeof block);
    }
    if (shake) {
        klmd_shake(fc | flags, block, data, len, out, out_len);
    } else {
        klmd(fc | flags, block, data, len);
        std::memcpy(out, block, out_len);
    }
    secure_zero(block, sizeof block);
    clear_vector_registers();
    return true;
}

}  // namespace hwaccel::s390x
