// The self-test's bookkeeping: each engine's result stored once per process,
// the record of one run, and (test builds only) the injected failures.
#include "hwaccel/selftest.hpp"

#include <algorithm>
#include <iterator>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <utility>

#include "generic/generic_engines.hpp"
#include "hwaccel/algorithm_facts.hpp"
#include "hwaccel/bytes.hpp"
#include "selftest_kat.hpp"

namespace hwaccel {
namespace selftest {

std::string sha1_known_answers(const Sha1Engine& engine);
std::string sha256_known_answers(const Sha256Engine& engine);
std::string keccak_known_answers(const KeccakEngine& engine);
std::string sm4_known_answers(const Sm4Engine& engine);
std::string ghash_known_answers(const GhashEngine& engine);

namespace {

// Results by engine, like CPU detection: computed on first use, then kept.
// Plain fixed storage, not std containers: the object is constant-
// initialised and has no destructor, so nothing runs when hwaccel.so is
// unloaded (dlclose) or loaded again at the same address while other
// threads load and unload it; every access is under the mutex. With a
// std::vector, its construction after a reload and its destruction at the
// unload before were unordered writes (ThreadSanitizer saw them in the
// first-use test when all instances had been unloaded mid-test).
constexpr size_t kMaxEngines = 64;         // all families' engines, with room
constexpr size_t kMaxFailureText = 240;    // a failure's text, cut there
struct StoredResult {
    const void* engine;
    size_t length;  // of text
    char text[kMaxFailureText];  // empty: passed
};
struct Results {
    std::mutex mutex;
    size_t count;
    StoredResult by_engine[kMaxEngines];
#ifdef HWACCEL_TESTING
    char break_spec[256];  // HWACCEL_TEST_BREAK the results were computed under
#endif
};
static_assert(std::is_trivially_destructible_v<Results>, "nothing may run at unload");

Results& results() {
    static Results r{};  // constant-initialised: std::mutex and zeros
    return r;
}

#ifdef HWACCEL_TESTING
std::string break_spec() {
    const char* spec = secure_getenv("HWACCEL_TEST_BREAK");
    return spec ? spec : "";
}
#endif

template <class Engine, class Run>
std::string stored(const Engine& engine, Run run) {
    Results& r = results();
    std::lock_guard<std::mutex> lock(r.mutex);
#ifdef HWACCEL_TESTING
    // A test process may change the injected failures between loads.
    const std::string spec = break_spec().substr(0, sizeof r.break_spec - 1);
    if (spec != r.break_spec) {
        r.count = 0;
        std::memcpy(r.break_spec, spec.c_str(), spec.size() + 1);
    }
#endif
    for (size_t i = 0; i < r.count; ++i)
        if (r.by_engine[i].engine == &engine) return std::string(r.by_engine[i].text, r.by_engine[i].length);
    std::string failure = run(engine);
    if (r.count < kMaxEngines) {
        StoredResult& slot = r.by_engine[r.count++];
        slot.engine = &engine;
        slot.length = std::min(failure.size(), kMaxFailureText);
        std::memcpy(slot.text, failure.data(), slot.length);
    }
    return failure;
}

}  // namespace

KatRun::KatRun(const char* family, const char* engine) : family_(family), engine_(engine) {}

bool KatRun::broken(const char* check) const {
#ifdef HWACCEL_TESTING
    // "family:engine" breaks every check, "family:engine:check" one of them.
    const std::string spec = break_spec();
    size_t pos = 0;
    while (pos < spec.size()) {
        size_t comma = spec.find(',', pos);
        if (comma == std::string::npos) comma = spec.size();
        const std::string item = spec.substr(pos, comma - pos);
        pos = comma + 1;
        const std::string target = family_ + ":" + engine_;
        if (item == target || item == target + ":" + check) return true;
    }
#else
    (void)check;
#endif
    return false;
}

bool KatRun::expect(const char* check, size_t nblocks, const uint8_t* got, const uint8_t* want,
                    size_t n) {
    if (!failure_.empty()) return false;
    bool same = std::memcmp(got, want, n) == 0;
    if (broken(check)) same = false;  // as if the engine had flipped a bit
    if (!same) {
        failure_ = check;
        if (nblocks != 0)
            failure_ += " on " + std::to_string(nblocks) + (nblocks == 1 ? " block" : " blocks");
    }
    return same;
}

bool KatRun::expect_digest(const char* check, size_t nblocks, const uint8_t* got, size_t n,
                           const uint8_t want_sha256[32]) {
    uint8_t digest[32];
    sha256_portable(got, n, digest);
    return expect(check, nblocks, digest, want_sha256, sizeof digest);
}

std::vector<uint8_t> pattern(size_t n) {
    std::vector<uint8_t> out(n);
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>((i * 167 + 13) % 251);
    return out;
}

std::vector<uint8_t> md_padded(const uint8_t* msg, size_t len) {
    std::vector<uint8_t> out(msg, msg + len);
    out.push_back(0x80);
    while (out.size() % 64 != 56) out.push_back(0);
    uint8_t bits[8];
    store_be64(bits, uint64_t{len} * 8);
    out.insert(out.end(), bits, bits + 8);
    return out;
}

void sha256_portable(const uint8_t* msg, size_t len, uint8_t out[32]) {
    // FIPS 180-4 section 5.3.3.
    uint32_t state[8];
    std::copy(std::begin(kSha256Init), std::end(kSha256Init), state);
    const std::vector<uint8_t> padded = md_padded(msg, len);
    generic::sha256.blocks(state, padded.data(), padded.size() / 64);
    for (int i = 0; i < 8; ++i) store_be32(out + 4 * i, state[i]);
}

std::vector<uint8_t> from_hex(const char* hex) {
    auto nibble = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
    std::vector<uint8_t> out;
    for (; hex[0] != '\0' && hex[1] != '\0'; hex += 2)
        out.push_back(static_cast<uint8_t>(nibble(hex[0]) << 4 | nibble(hex[1])));
    return out;
}

}  // namespace selftest

std::string known_answers(const Sha1Engine& e) { return selftest::sha1_known_answers(e); }
std::string known_answers(const Sha256Engine& e) { return selftest::sha256_known_answers(e); }
std::string known_answers(const KeccakEngine& e) { return selftest::keccak_known_answers(e); }
std::string known_answers(const Sm4Engine& e) { return selftest::sm4_known_answers(e); }
std::string known_answers(const GhashEngine& e) { return selftest::ghash_known_answers(e); }

std::string self_test(const Sha1Engine& e) { return selftest::stored(e, selftest::sha1_known_answers); }
std::string self_test(const Sha256Engine& e) { return selftest::stored(e, selftest::sha256_known_answers); }
std::string self_test(const KeccakEngine& e) { return selftest::stored(e, selftest::keccak_known_answers); }
std::string self_test(const Sm4Engine& e) { return selftest::stored(e, selftest::sm4_known_answers); }
std::string self_test(const GhashEngine& e) { return selftest::stored(e, selftest::ghash_known_answers); }

}  // namespace hwaccel
