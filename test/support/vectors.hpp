// Test-vector plumbing shared by the backend and EVP-level suites: hex,
// NIST CAVP .rsp files (digests, and ciphers in that style), OpenSSL evp_test
// stanza files (evpmd, evpciph), the Monte Carlo algorithms and a small
// deterministic PRNG. No Catch2, no OpenSSL: errors in
// a vector file throw std::runtime_error naming the file and line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hwaccel::test {

using Bytes = std::vector<uint8_t>;

// ---------------------------------------------------------------- hex

// Decodes hex (either case). Throws on an odd length or a non-hex character.
Bytes from_hex(std::string_view hex);
// Lower-case hex.
std::string to_hex(const uint8_t* data, size_t len);
inline std::string to_hex(const Bytes& b) { return to_hex(b.data(), b.size()); }

// Case-insensitive ASCII comparison (digest names in stanza files).
bool iequals(std::string_view a, std::string_view b);

// HWACCEL_VECTOR_DIR + "/" + relative, e.g. vector_path("nist/SHA1Monte.rsp").
std::string vector_path(const std::string& relative);

// ---------------------------------------------------------------- NIST CAVP

// One group of "Key = value" lines of an .rsp file (groups are separated by
// blank lines), with the "[Name = value]" / "[Text]" headers in force.
struct RspRecord {
    std::string file;
    size_t line = 0;                                  // line of the first field
    std::map<std::string, std::string> headers;       // "[L = 32]" -> {"L", "32"}
    std::vector<std::pair<std::string, std::string>> fields;

    // The value of `key`, or nullptr.
    const std::string* find(const std::string& key) const;
    // The value of `key`; throws if it is missing.
    const std::string& at(const std::string& key) const;
    // "file:line" for failure messages.
    std::string where() const;
};

// Reads the whole file; '#' comments and CR line ends are ignored.
std::vector<RspRecord> parse_rsp(const std::string& path);

// ShortMsg / LongMsg / VariableOut: one message and its expected output.
struct MsgVector {
    std::string where;  // "file:line"
    Bytes msg;          // empty when Len = 0 (the file then shows "Msg = 00")
    Bytes expected;     // MD, or Output for SHAKE
};

// Accepts SHA-1/2/3 (Len, Msg, MD) and SHAKE (Len or COUNT+Outputlen, Msg,
// Output) files. Checks Len and Outputlen (bits) against the decoded lengths.
std::vector<MsgVector> load_msg_vectors(const std::string& path);

// A Monte file: the seed and the 100 checkpoints.
struct MonteVectors {
    std::string file;
    Bytes seed;                      // "Seed" (SHA-1/2/3) or "Msg" (SHAKE)
    std::vector<Bytes> checkpoints;  // MD or Output, COUNT = 0, 1, ...
    // SHAKE only (bytes): the [Minimum/Maximum Output Length (bits)] headers.
    size_t min_out_len = 0;
    size_t max_out_len = 0;
};

MonteVectors load_monte(const std::string& path);

// Hash callback for the Monte algorithms: out receives out_len bytes.
using HashFn = std::function<void(const uint8_t* in, size_t in_len, uint8_t* out, size_t out_len)>;

// SHAVS 6.4 (SHA-1, SHA-2): MD0 = MD1 = MD2 = Seed; MDi = H(MDi-3 || MDi-2 ||
// MDi-1) for i = 3..1002; checkpoint = Seed = MD1002. Returns `count`
// checkpoints.
std::vector<Bytes> monte_sha2(const Bytes& seed, size_t digest_len, size_t count,
                              const HashFn& hash);

// SHA3VS 6.2.3 (SHA-3): MD0 = Seed; MDi = H(MDi-1) for i = 1..1000;
// checkpoint = MD0 = MD1000. Unlike SHAVS there is no 3-way concatenation.
std::vector<Bytes> monte_sha3(const Bytes& seed, size_t digest_len, size_t count,
                              const HashFn& hash);

// SHA3VS 6.3.3 (SHAKE): Output0 = Msg; each step hashes the leftmost 128 bits
// of the previous output (zero-padded if shorter) to OutputLen bytes, then
// sets OutputLen = min + (rightmost 16 bits of that output, big-endian) mod
// (max - min + 1). OutputLen starts at max; lengths here are in bytes.
// Checkpoint = Output1000, which also seeds the next 1000 steps.
std::vector<Bytes> monte_shake(const Bytes& msg, size_t min_out_len, size_t max_out_len,
                               size_t count, const HashFn& hash);

// ---------------------------------------------------------------- OpenSSL evp_test

// One buffer of a digest stanza: fed `count` times (OpenSSL evp_test.c).
struct EvpInput {
    Bytes data;
    size_t count = 1;
};

// A "Digest = NAME" stanza of e.g. evpmd_sha.txt.
struct EvpDigestTest {
    std::string where;   // "file:line" of the Digest line
    std::string title;   // latest "Title =" before it, if any
    std::string digest;  // as written (compare with iequals)
    std::vector<EvpInput> inputs;  // Ncopy already applied
    Bytes output;
    // Keys other than Digest/Input/Ncopy/Count/Output, in file order, so a
    // caller can refuse a stanza it does not understand (e.g. a future XOF
    // length or Result key) rather than misread it.
    std::vector<std::pair<std::string, std::string>> other;

    // Calls update(data, len) exactly as evp_test would.
    template <class F>
    void feed(F&& update) const {
        for (const EvpInput& in : inputs)
            for (size_t i = 0; i < in.count; ++i) update(in.data.data(), in.data.size());
    }
    size_t total_input_length() const;
};

// Decodes an evp_test value: "" -> empty, "\"text\"" -> bytes (only \n is an
// escape), otherwise hex (colons between bytes allowed, as in OPENSSL_hexstr2buf).
Bytes parse_evp_value(std::string_view value);

// Reads all Digest stanzas; other stanza types are skipped.
std::vector<EvpDigestTest> load_evp_digest_tests(const std::string& path);

// ---------------------------------------------------------------- cipher known answers

// One cipher known-answer test. Each gives both directions: encrypting the
// plaintext gives the ciphertext, decrypting that gives the plaintext back.
struct CipherVector {
    std::string where;   // "file:line" of its first line
    std::string cipher;  // the stanza's "Cipher" ("SM4-CBC"); empty from .rsp files
    Bytes key;
    Bytes iv;            // empty when the file gives none (ECB)
    Bytes plaintext;
    Bytes ciphertext;
    // Keys not named above (COUNT aside), in file order, so a caller can
    // refuse a test it does not understand (e.g. Operation, Tag) rather than
    // misread it.
    std::vector<std::pair<std::string, std::string>> other;
};

// The records of a NIST-style cipher .rsp file (COUNT, KEY, IV, PLAINTEXT,
// CIPHERTEXT; keys in any case), e.g. the draft-ribose-cfrg-sm4 files. Every
// record must have KEY, PLAINTEXT and CIPHERTEXT.
std::vector<CipherVector> load_rsp_cipher_vectors(const std::string& path);

// The "Cipher = NAME" stanzas of an OpenSSL evpciph_*.txt file (Key, IV,
// Plaintext, Ciphertext); other stanza types are skipped.
std::vector<CipherVector> load_evp_cipher_tests(const std::string& path);

// ---------------------------------------------------------------- PRNG

// The 48-bit linear congruential generator of the kernel's hash test template
// (seed = seed * 25214903917 + 11 mod 2^48, output bits 47..16), so data can be
// regenerated from a seed by any tool, including the script that produced the
// consolidated values in the tests.
class Lcg {
public:
    explicit Lcg(uint64_t seed = 0) : state_(seed & kMask) {}
    void seed(uint64_t s) { state_ = s & kMask; }
    uint32_t next32() {
        state_ = (state_ * 25214903917ULL + 11) & kMask;
        return static_cast<uint32_t>(state_ >> 16);
    }
    // Uniform enough for tests in [0, n); n > 0.
    size_t below(size_t n) { return next32() % n; }
    // Each byte is the low byte of one next32().
    void fill(uint8_t* out, size_t len) {
        for (size_t i = 0; i < len; ++i) out[i] = static_cast<uint8_t>(next32());
    }
    Bytes bytes(size_t len) {
        Bytes b(len);
        fill(b.data(), len);
        return b;
    }
    // A length in [0, max], biased to small values like the kernel's
    // rand_length(): a third below 128, a third below 3072, a third anywhere.
    size_t length(size_t max);

private:
    static constexpr uint64_t kMask = (uint64_t{1} << 48) - 1;
    uint64_t state_;
};

// `len` bytes from a generator seeded with `len` (kernel rand_bytes_seeded_from_len).
Bytes lcg_bytes_seeded_from_len(size_t len);

}  // namespace hwaccel::test
