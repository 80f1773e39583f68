// The differential digest driver: the fuzzer's bytes pick the digest, then a
// sequence of operations (updates in fuzzer-chosen pieces, EVP_MD_CTX_copy
// mid-stream, final, XOF finals of chosen lengths, re-init), each done on an
// hwaccel context and a default-provider context; every result must match.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hwaccel::fuzz {

struct DigestChoice {
    const char* name;
    bool xof;
};

// Runs one input against the given digests.
void run_digest_input(const std::vector<DigestChoice>& digests, const uint8_t* data, size_t size);

}  // namespace hwaccel::fuzz
