// What the known-answer tests of every family share: the record of one
// engine's run, the fixed input message, and a SHA-256 over the portable
// engine for comparing long outputs with a stored digest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hwaccel::selftest {

// One engine's run: remembers the first check whose result differs from the
// known answer. In test builds (HWACCEL_TESTING) HWACCEL_TEST_BREAK =
// "family:engine[:check],..." makes the run see a corrupted result for that
// engine (every check, or the named one), so tests can watch the fallback.
class KatRun {
public:
    KatRun(const char* family, const char* engine);

    // Compares n bytes; `check` names the engine member, nblocks the input
    // size (0: not about blocks, as the key schedule).
    bool expect(const char* check, size_t nblocks, const uint8_t* got, const uint8_t* want, size_t n);
    // Compares the SHA-256 of n bytes with `want_sha256`.
    bool expect_digest(const char* check, size_t nblocks, const uint8_t* got, size_t n,
                       const uint8_t want_sha256[32]);

    // Empty, or e.g. "ctr on 77 blocks".
    const std::string& failure() const { return failure_; }

private:
    bool broken(const char* check) const;

    std::string family_;
    std::string engine_;
    std::string failure_;
};

// The fixed test message: byte i is (167 i + 13) mod 251. The stored digests
// were computed from the same bytes, written by
//   python3 -c 'import sys; sys.stdout.buffer.write(bytes((i*167+13)%251 for i in range(N)))'
std::vector<uint8_t> pattern(size_t n);

// SHA-1/SHA-256 padding: msg, 0x80, zeros, the bit length as 64-bit
// big-endian, to a whole number of 64-byte blocks.
std::vector<uint8_t> md_padded(const uint8_t* msg, size_t len);

// SHA-256 of a message with the portable engine (whose own known answers the
// sha256 family checks), for comparing outputs too long to store.
void sha256_portable(const uint8_t* msg, size_t len, uint8_t out[32]);

// "0a1b..." -> bytes, for readable constants.
std::vector<uint8_t> from_hex(const char* hex);

}  // namespace hwaccel::selftest
