#include "generic/generic_engines.hpp"
#include "testing/testing_engines.hpp"

namespace hwaccel::testing {
namespace {

bool always(const CpuFeatures&) { return true; }

// Through the portable engine's members at call time (not copied at static
// initialisation, whose order across files is unspecified).
void set_key(Sm4Key* key, const uint8_t user_key[16]) { generic::sm4.set_key(key, user_key); }
void ecb(const Sm4Key* key, Sm4Direction direction, uint8_t* out, const uint8_t* in, size_t nblocks) {
    generic::sm4.ecb(key, direction, out, in, nblocks);
}
void encrypt_block(const Sm4Key* key, uint8_t out[16], const uint8_t in[16]) {
    generic::sm4.encrypt_block(key, out, in);
}

}  // namespace

// Every optional member absent.
const Sm4Engine sm4_minimal = {
    .name = "minimal-test",
    .available = always,
    .set_key = set_key,
    .ecb = ecb,
    .encrypt_block = encrypt_block,
    .ctr = nullptr,
    .cbc_decrypt = nullptr,
    .cfb_decrypt = nullptr,
    .cbc_encrypt = nullptr,
    .cfb_encrypt = nullptr,
    .ofb = nullptr,
    .xts = nullptr,
    .ccm = nullptr,
};

}  // namespace hwaccel::testing
