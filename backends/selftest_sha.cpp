// Known answers for the SHA-1 and SHA-256 engines: the FIPS 180 examples
// (one block, two blocks) and a 19-block message in one call, the bulk path.
#include "hwaccel/algorithm_facts.hpp"
#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"
#include "selftest_kat.hpp"

namespace hwaccel::selftest {
namespace {

// FIPS 180-2, Appendix A and B (also NIST's "Example Algorithms" pages).
constexpr char kOneBlock[] = "abc";
constexpr char kTwoBlocks[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
// The 1200-byte pattern() message, 19 blocks padded:
//   python3 -c '...range(1200)...' | openssl dgst -sha1 (-sha256)
constexpr size_t kLongLength = 1200;

struct Answers {
    const char* one_block;
    const char* two_blocks;
    const char* long_message;
};

constexpr Answers kSha1 = {
    "a9993e364706816aba3e25717850c26c9cd0d89d",
    "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
    "7685fde41ac0d2329ddc5011c0027bdf7ec9a834",
};
constexpr Answers kSha256 = {
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    "08e4ffc0c63f3af04bc489109826c2bd85333f9fb42c025183a77e9cab5e134c",
};

// Pads the message and hands every block to the engine in one call.
template <class Engine, size_t Words>
bool check(KatRun& run, const Engine& engine, const uint32_t (&init)[Words], const uint8_t* msg,
           size_t len, const char* want_hex) {
    const std::vector<uint8_t> padded = md_padded(msg, len);
    uint32_t state[Words];
    for (size_t i = 0; i < Words; ++i) state[i] = init[i];
    const size_t nblocks = padded.size() / 64;
    engine.blocks(state, padded.data(), nblocks);
    uint8_t digest[4 * Words];
    for (size_t i = 0; i < Words; ++i) store_be32(digest + 4 * i, state[i]);
    const std::vector<uint8_t> want = from_hex(want_hex);
    return run.expect("blocks", nblocks, digest, want.data(), want.size());
}

template <class Engine, size_t Words>
std::string known_answers(const char* family, const Engine& engine, const uint32_t (&init)[Words],
                          const Answers& answers) {
    KatRun run(family, engine.name);
    const std::vector<uint8_t> long_message = pattern(kLongLength);
    (void)(check(run, engine, init, reinterpret_cast<const uint8_t*>(kOneBlock), sizeof kOneBlock - 1,
                 answers.one_block) &&
           check(run, engine, init, reinterpret_cast<const uint8_t*>(kTwoBlocks),
                 sizeof kTwoBlocks - 1, answers.two_blocks) &&
           check(run, engine, init, long_message.data(), long_message.size(), answers.long_message));
    return run.failure();
}

}  // namespace

std::string sha1_known_answers(const Sha1Engine& engine) {
    return known_answers("sha1", engine, kSha1Init, kSha1);
}

std::string sha256_known_answers(const Sha256Engine& engine) {
    return known_answers("sha256", engine, kSha256Init, kSha256);
}

}  // namespace hwaccel::selftest
