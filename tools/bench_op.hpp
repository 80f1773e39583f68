// What hwaccel-evp-bench times: an algorithm (as scripts/bench.py labels it)
// and one implementation's way to make the call `openssl speed -evp` makes
// for it (a provider through EVP, or libgcrypt: gcrypt_op.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bench {

struct Alg {
    const char* label;  // as scripts/bench.py names it
    const char* name;   // OpenSSL's name
    bool cipher;
    bool encrypt;
    // AEAD (SM4-GCM, SM4-CCM): each call is one whole message, the calls
    // `openssl speed` makes for them: the IV or nonce (CCM: and the length),
    // the text, final, the 16-byte tag; output: text || tag.
    bool aead = false;
};

// CCM's nonce: RFC 8998's 12 bytes (kIv's first bytes); GCM's IV: kAeadIv
// (12 bytes, its default). Tags: 16 bytes.
constexpr size_t kAeadNonceLen = 12, kAeadTagLen = 16;
constexpr uint8_t kAeadIv[12] = {9, 10, 11, 12};

// Key and IV every implementation is set up with, so their outputs can be
// compared before they are timed.
constexpr uint8_t kKey[16] = {1, 2, 3, 4}, kIv[16] = {5, 6, 7, 8};
// XTS takes two keys, which must differ (hwaccel refuses equal halves).
constexpr uint8_t kXtsKey[32] = {1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9, 10, 11, 12};

// XTS runs the IEEE Std 1619 tweak order, the one libgcrypt implements (the
// default provider's default is GB/T 17964; both cost the same).
inline bool is_xts(const char* label) { return std::strncmp(label, "sm4-xts", 7) == 0; }

class Op {
public:
    virtual ~Op() = default;
    virtual bool ok() const = 0;
    // For a digest init + update + final of `len` bytes, for a cipher one
    // update of `len` bytes on a context set up once (the chaining value
    // carries over from call to call, as in `openssl speed`).
    virtual void run(const uint8_t* in, size_t len, uint8_t* out) = 0;
    // How many bytes run() writes for `len` input bytes.
    virtual size_t out_len(size_t len) const = 0;
};

}  // namespace bench
