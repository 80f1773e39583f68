// Backend-level digest tests, after the Linux kernel's hash test template
// (lib/crypto/tests/hash-test-template.h; HARDWARE.md section 6), run for
// every (algorithm, engine) pair the registry can run on this machine. An
// engine added to the registry gets all of them by being listed and reporting
// itself available. Each case opens one section per pair, named like
// "SHA3-256 [generic]", so a failure names the algorithm and the engine.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "support/guarded_buffer.hpp"
#include "support/hashers.hpp"
#include "support/vectors.hpp"

using namespace hwaccel;
using namespace hwaccel::test;

namespace {

const std::vector<Combo>& combos() {
    static const std::vector<Combo> list = available_combos();
    return list;
}

// Output length used by the consistency tests: the digest size, or for SHAKE
// enough to need a permutation between output blocks.
size_t test_out_len(const AlgoInfo& a) { return a.xof ? 2 * a.block_size + 13 : a.digest_size; }

// Non-null even when empty: the backend never has to cope with null pointers
// (EVP_DigestUpdate returns early on zero length).
const uint8_t* ptr(const Bytes& b) {
    static const uint8_t kEmpty = 0;
    return b.empty() ? &kEmpty : b.data();
}

Bytes one_shot(const Combo& c, const uint8_t* data, size_t len, size_t out_len) {
    Hasher h = c.make();
    h.update(data, len);
    Bytes out(out_len);
    h.finish(out.data(), out_len);
    return out;
}

Bytes one_shot(const Combo& c, const Bytes& data, size_t out_len) {
    return one_shot(c, ptr(data), data.size(), out_len);
}

// Feeds data in random pieces, some of them empty.
void update_in_pieces(Hasher& h, const uint8_t* data, size_t len, Lcg& rng) {
    size_t pos = 0;
    bool any = false;
    while (pos < len) {
        if (rng.below(8) == 0) h.update(data + pos, 0);
        size_t part = rng.length(len - pos);
        h.update(data + pos, part);
        pos += part;
        any = true;
    }
    if (!any || rng.below(2) == 0) h.update(data + len, 0);
}

// A seed per test and section (FNV-1a of the label), so each pair gets its
// own data, the same on every run.
uint64_t seed_for(const Combo& c, uint64_t salt) {
    uint64_t h = 0xcbf29ce484222325u ^ salt;
    for (char ch : c.label()) h = (h ^ static_cast<uint8_t>(ch)) * 0x100000001b3u;
    return h;
}

std::string nist_file(const Combo& c, const char* kind) {
    return vector_path(std::string("nist/") + c.algo->nist_name + kind + ".rsp");
}

// Each vector file is parsed once, however many engines use it.
const std::vector<MsgVector>& msg_vectors(const std::string& path) {
    static std::map<std::string, std::vector<MsgVector>> cache;
    auto it = cache.find(path);
    if (it == cache.end()) it = cache.emplace(path, load_msg_vectors(path)).first;
    return it->second;
}

// Lines starting with "Msg" in an .rsp file, counted without the parser, so a
// parser that dropped records would be noticed.
size_t count_msg_lines(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    size_t n = 0;
    while (std::getline(in, line)) n += line.rfind("Msg", 0) == 0;
    return n;
}

// True if touching *p kills a child process (the parent survives).
bool access_faults(volatile uint8_t* p, bool write) {
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        // Default action, so neither Catch nor ASan reports the expected crash.
        std::signal(SIGSEGV, SIG_DFL);
        std::signal(SIGBUS, SIG_DFL);
        if (write)
            *p = 1;
        else
            (void)*p;
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace

// ------------------------------------------------------------------ test support

// The guard-page tests below are only as good as the guard pages.
TEST_CASE("test support: guarded buffer pages fault and placement is exact", "[support]") {
    GuardedBuffer buf(100);
    REQUIRE(buf.size() == GuardedBuffer::page_size());
    CHECK(access_faults(buf.end(), false));
    CHECK(access_faults(buf.end(), true));
    CHECK(access_faults(buf.begin() - 1, false));
    CHECK_FALSE(access_faults(buf.end() - 1, true));
    CHECK_FALSE(access_faults(buf.begin(), false));

    CHECK(buf.tail(10) + 10 == buf.end());
    CHECK(buf.tail(10, 3) + 13 == buf.end());
    for (size_t len : {0, 1, 63, 64, 65, 1000}) {
        for (size_t mis = 0; mis < 64; ++mis) {
            INFO("length " << len << ", misalignment " << mis);
            uint8_t* p = buf.tail_misaligned(len, mis);
            CHECK(reinterpret_cast<uintptr_t>(p) % 64 == mis);
            CHECK(p + len <= buf.end());
            CHECK(buf.end() - (p + len) < 64);
        }
    }
    CHECK_THROWS(buf.tail(buf.size() + 1));
}

TEST_CASE("test support: hex and evp_test value decoding", "[support]") {
    CHECK(from_hex("00fFa5") == Bytes{0x00, 0xff, 0xa5});
    CHECK(from_hex("").empty());
    CHECK_THROWS(from_hex("abc"));
    CHECK_THROWS(from_hex("zz"));
    CHECK(to_hex(Bytes{0x01, 0xab}) == "01ab");
    CHECK(parse_evp_value("\"a\\nb\"") == Bytes{'a', '\n', 'b'});
    CHECK(parse_evp_value("\"\"").empty());
    CHECK(parse_evp_value("").empty());
    CHECK(parse_evp_value("01:02") == Bytes{1, 2});
    CHECK_THROWS(parse_evp_value("\"a\\tb\""));
    CHECK(iequals("Sha3-256", "SHA3-256"));
    CHECK_FALSE(iequals("SHA3-256", "SHA3-25"));
}

// ------------------------------------------------------------------ registry

TEST_CASE("digest engines: every algorithm has an available engine", "[digest][registry]") {
    for (const AlgoInfo& a : all_algos()) {
        INFO(a.name);
        size_t generic = 0;
        for (const Combo& c : combos())
            if (c.algo == &a && c.is_generic) ++generic;
        // The portable engine closes every list and is always available.
        CHECK(generic == 1);
    }
    std::string tested, untested;
    for (const Combo& c : combos()) tested += " " + c.label();
    for (const Combo& c : unavailable_combos()) untested += " " + c.label();
    // Shown with -s; says what this run covered and what this CPU could not run.
    INFO("tested:" << tested);
    INFO("not available on this CPU:" << (untested.empty() ? " (none)" : untested));
    SUCCEED();
}

// ------------------------------------------------------------------ third-party vectors

TEST_CASE("digest engines: NIST CAVP ShortMsg and LongMsg", "[digest][nist]") {
    for (const Combo& c : combos()) {
        DYNAMIC_SECTION(c.label()) {
            for (const char* kind : {"ShortMsg", "LongMsg"}) {
                const auto& vectors = msg_vectors(nist_file(c, kind));
                REQUIRE(vectors.size() == count_msg_lines(nist_file(c, kind)));
                for (const MsgVector& v : vectors) {
                    INFO(v.where);
                    if (!c.algo->xof) REQUIRE(v.expected.size() == c.algo->digest_size);
                    CHECK(to_hex(one_shot(c, v.msg, v.expected.size())) == to_hex(v.expected));
                }
            }
        }
    }
}

TEST_CASE("digest engines: NIST CAVP SHAKE VariableOut", "[digest][nist]") {
    for (const Combo& c : combos()) {
        if (!c.algo->xof) continue;
        DYNAMIC_SECTION(c.label()) {
            const auto& vectors = msg_vectors(nist_file(c, "VariableOut"));
            REQUIRE(vectors.size() == count_msg_lines(nist_file(c, "VariableOut")));
            for (const MsgVector& v : vectors) {
                INFO(v.where);
                CHECK(to_hex(one_shot(c, v.msg, v.expected.size())) == to_hex(v.expected));
            }
        }
    }
}

// The three Monte Carlo algorithms differ (see vectors.hpp); all 100
// checkpoints of 1000 chained hashes each are checked.
TEST_CASE("digest engines: NIST CAVP Monte Carlo", "[digest][nist][monte]") {
    for (const Combo& c : combos()) {
        DYNAMIC_SECTION(c.label()) {
            const MonteVectors m = load_monte(nist_file(c, "Monte"));
            const size_t n = m.checkpoints.size();
            REQUIRE(n == 100);
            const std::vector<Bytes> got = monte_checkpoints(c, m, n);
            for (size_t j = 0; j < n; ++j) {
                INFO(m.file << " COUNT = " << j);
                // Every later checkpoint depends on this one: stop at the first.
                REQUIRE(to_hex(got[j]) == to_hex(m.checkpoints[j]));
            }
        }
    }
}

TEST_CASE("digest engines: OpenSSL evpmd_sha.txt", "[digest][openssl]") {
    static const std::vector<EvpDigestTest> tests =
        load_evp_digest_tests(vector_path("openssl/evpmd_sha.txt"));

    // Stanzas for algorithms we do not implement are skipped by name; anything
    // else unknown (e.g. a new alias) must fail rather than be skipped.
    SECTION("every stanza is recognised") {
        for (const EvpDigestTest& t : tests) {
            INFO(t.where << " Digest = " << t.digest);
            bool ours = false;
            for (const AlgoInfo& a : all_algos()) ours = ours || iequals(t.digest, a.name);
            bool known_other = false;
            for (const char* n : {"SHA384", "SHA512", "SHA512-224", "SHA512-256"})
                known_other = known_other || iequals(t.digest, n);
            CHECK((ours || known_other));
        }
    }
    for (const Combo& c : combos()) {
        DYNAMIC_SECTION(c.label()) {
            size_t ran = 0;
            for (const EvpDigestTest& t : tests) {
                if (!iequals(t.digest, c.algo->name)) continue;
                INFO(t.where);
                // A key we do not interpret could change the expected result.
                REQUIRE(t.other.empty());
                if (!c.algo->xof) REQUIRE(t.output.size() == c.algo->digest_size);
                Hasher h = c.make();
                t.feed([&h](const uint8_t* p, size_t n) { h.update(p, n); });
                Bytes out(t.output.size());
                h.finish(out.data(), out.size());
                CHECK(to_hex(out) == to_hex(t.output));
                ++ran;
            }
            CHECK(ran >= 3);
        }
    }
}

// ------------------------------------------------------------------ all lengths

namespace {

// Digests of every prefix 0..4096 of the LCG data seeded with 4096, fed in
// order into one more hasher of the same algorithm (the kernel's
// test_hash_all_lens_up_to_4096). The values below were computed once,
// independently of this code, with OpenSSL 3.0.22's command-line tool:
//   python3 -c 'import sys
//   s=4096; out=bytearray()
//   for _ in range(4096):
//       s=(s*25214903917+11)%2**48; out.append((s>>16)&255)
//   sys.stdout.buffer.write(out)' > data.bin
//   for n in $(seq 0 4096); do head -c $n data.bin | openssl dgst -ALG -binary; done |
//       openssl dgst -ALG
// with ALG = sha1, sha224, sha256, sha3-224, sha3-256, sha3-384, sha3-512.
// For SHAKE (the kernel's test_shake_all_lens_up_to_4096) the output length is
// in_len * 293 % 4097 and the outputs are consolidated with SHA3-256:
//   for n in $(seq 0 4096); do o=$((n*293%4097)); [ $o -gt 0 ] &&
//       head -c $n data.bin | openssl dgst -ALG -xoflen $o -binary; done |
//       openssl dgst -sha3-256
// with ALG = shake128, shake256 (a zero-length output adds nothing).
const char* consolidated_expected(Algo a) {
    switch (a) {
    case Algo::kSha1: return "e172a53cdaf2e556b8b5356ecec8375731b405dd";
    case Algo::kSha224: return "9eb882ab8337e46384ee2115c2bba3178fc49933a02c9feccad0f373";
    case Algo::kSha256: return "781cb19fe5e1cb418b34003357c31c8f5c84c78b876a13292fc41a705e40f2fe";
    case Algo::kSha3_224: return "83f2883420459fd25e9d36c042cc74d806d99fbf3932594e6e12628b";
    case Algo::kSha3_256: return "3b3367f8ea927862ddbe7215bd6ffae55eab9fb1e4237c2c80cf0975f8e2fa30";
    case Algo::kSha3_384:
        return "2d63d8ee11587daed93457ae99120b04943829efcfdd65eccfe699545f32d257"
               "8d76e5891d28075c3bda08ef85161009";
    case Algo::kSha3_512:
        return "f7dd0936f851622ba6906c2283e7ead3be6cb0b4ef184920f629265edf6d2f4d"
               "74a8ba6842c09eb54133612931590486255f06b0c83d5efa40999146182e31a5";
    case Algo::kShake128: return "89883a44ecfe3ceb2f1c1dda9e3664f0854c4912765a4de7a8fdcdbe45b46fb0";
    case Algo::kShake256: return "5afd66625c372b41771c015d647c637a7c769ea8d1b08e02169bfe0eb5d86ab5";
    }
    return "";
}

Bytes consolidated_all_lens(const Combo& c) {
    const Bytes data = lcg_bytes_seeded_from_len(4096);
    if (c.algo->xof) {
        // Consolidated with SHA3-256 on the same Keccak engine.
        Hasher total(algo_info(Algo::kSha3_256), make_sha3_256(c.keccak));
        Bytes out;
        for (size_t len = 0; len <= 4096; ++len) {
            out = one_shot(c, data.data(), len, len * 293 % 4097);
            total.update(ptr(out), out.size());
        }
        Bytes result(32);
        total.finish(result.data(), result.size());
        return result;
    }
    Hasher total = c.make();
    Hasher h = c.make();
    Bytes d(c.algo->digest_size);
    for (size_t len = 0; len <= 4096; ++len) {
        h.reset();
        h.update(data.data(), len);
        h.finish(d.data(), d.size());
        total.update(d.data(), d.size());
    }
    total.finish(d.data(), d.size());
    return d;
}

}  // namespace

TEST_CASE("digest engines: all lengths 0..4096, consolidated", "[digest][lengths]") {
    for (const Combo& c : combos()) {
        DYNAMIC_SECTION(c.label()) {
            const Bytes got = consolidated_all_lens(c);
            // Against OpenSSL's value, for every engine ...
            CHECK(to_hex(got) == consolidated_expected(c.algo->id));
            // ... and, for a clearer message, against the portable engine.
            if (!c.is_generic) CHECK(to_hex(got) == to_hex(consolidated_all_lens(c.generic())));
        }
    }
}

// ------------------------------------------------------------------ calling patterns

TEST_CASE("digest engines: random incremental updates equal one-shot", "[digest][incremental]") {
    for (const Combo& c : combos()) {
        DYNAMIC_SECTION(c.label()) {
            Lcg rng(seed_for(c, 1));
            for (int iter = 0; iter < 300; ++iter) {
                const size_t len = rng.length(16384);
                const size_t offset = rng.below(128);
                Bytes buf(offset + len + 1);
                rng.fill(buf.data() + offset, len);
                const uint8_t* data = buf.data() + offset;
                const size_t out_len = c.algo->xof ? rng.length(600) : c.algo->digest_size;
                INFO("iteration " << iter << ", length " << len << ", offset " << offset);
                const Bytes ref = one_shot(c, data, len, out_len);
                Hasher h = c.make();
                update_in_pieces(h, data, len, rng);
                Bytes out(out_len);
                h.finish(out.data(), out_len);
                REQUIRE(to_hex(out) == to_hex(ref));
            }
        }
    }
}

namespace {

// The kernel's "context object at the guard page": runs one hash with the
// hasher object itself as the last bytes before a guard page.
Bytes hash_with_object_at_guard(const Combo& c, const GuardedBuffer& obj_buf, const uint8_t* data,
                                size_t len, size_t out_len) {
    Hasher proto = c.make();
    Bytes out(out_len);
    std::visit(
        [&](const auto& like) {
            using H = std::decay_t<decltype(like)>;
            static_assert(std::is_trivially_destructible_v<H>);
            uint8_t* at = obj_buf.tail(sizeof(H));
            REQUIRE(reinterpret_cast<uintptr_t>(at) % alignof(H) == 0);
            H* h = construct_like(at, like, *c.algo);
            hasher_update(*h, data, len);
            hasher_finish(*h, out.data(), out_len);
        },
        proto.raw());
    return out;
}

}  // namespace

TEST_CASE("digest engines: buffers ending at a guard page", "[digest][guard]") {
    for (const Combo& c : combos()) {
        DYNAMIC_SECTION(c.label()) {
            Lcg rng(seed_for(c, 2));
            GuardedBuffer in_buf(16384), head_buf(16384), out_buf(4096), obj_buf(4096);
            for (int iter = 0; iter < 100; ++iter) {
                const size_t len = rng.length(16384);
                const Bytes data = rng.bytes(len);
                const size_t out_len = c.algo->xof ? rng.length(600) : c.algo->digest_size;
                INFO("iteration " << iter << ", length " << len << ", output " << out_len);
                const Bytes ref = one_shot(c, data, out_len);

                // Input ending at the guard page, one-shot, output ending at another.
                const uint8_t* in = in_buf.place(ptr(data), len);
                uint8_t* out = out_buf.tail(out_len);
                Hasher h = c.make();
                h.update(in, len);
                h.finish(out, out_len);
                CHECK(to_hex(out, out_len) == to_hex(ref));

                // The same input fed in pieces.
                h = c.make();
                update_in_pieces(h, in, len, rng);
                h.finish(out, out_len);
                CHECK(to_hex(out, out_len) == to_hex(ref));

                // Input starting right after the leading guard page (under-reads).
                if (len) std::memcpy(head_buf.begin(), data.data(), len);
                h = c.make();
                update_in_pieces(h, head_buf.begin(), len, rng);
                h.finish(out, out_len);
                CHECK(to_hex(out, out_len) == to_hex(ref));

                // The hasher object itself ending at the guard page.
                CHECK(to_hex(hash_with_object_at_guard(c, obj_buf, in, len, out_len)) ==
                      to_hex(ref));
            }
        }
    }
}

TEST_CASE("digest engines: misaligned input and output", "[digest][alignment]") {
    for (const Combo& c : combos()) {
        DYNAMIC_SECTION(c.label()) {
            Lcg rng(seed_for(c, 3));
            GuardedBuffer in_buf(4096), out_buf(4096);
            const size_t out_len = test_out_len(*c.algo);
            for (size_t in_off = 0; in_off < 64; ++in_off) {
                // At least a few blocks, so whole-block engine calls see the offset.
                const size_t len = 3 * c.algo->block_size + rng.length(600);
                const Bytes data = rng.bytes(len);
                const Bytes ref = one_shot(c, data, out_len);
                const uint8_t* in = in_buf.place_misaligned(data.data(), len, in_off);
                for (size_t out_off = 0; out_off < 64; ++out_off) {
                    INFO("input offset " << in_off << ", output offset " << out_off
                                         << ", length " << len);
                    uint8_t* out = out_buf.tail_misaligned(out_len, out_off);
                    Hasher h = c.make();
                    h.update(in, len);
                    h.finish(out, out_len);
                    REQUIRE(to_hex(out, out_len) == to_hex(ref));
                }
            }
        }
    }
}

TEST_CASE("digest engines: output aliasing the input", "[digest][overlap]") {
    for (const Combo& c : combos()) {
        DYNAMIC_SECTION(c.label()) {
            Lcg rng(seed_for(c, 4));
            const size_t out_len = test_out_len(*c.algo);
            for (int iter = 0; iter < 100; ++iter) {
                const size_t len = rng.length(4096);
                const Bytes data = rng.bytes(len);
                const Bytes ref = one_shot(c, data, out_len);
                INFO("iteration " << iter << ", length " << len);
                Bytes buf(std::max(len, out_len));

                // Output over the start of the input, one-shot then in pieces.
                std::copy(data.begin(), data.end(), buf.begin());
                Hasher h = c.make();
                h.update(buf.data(), len);
                h.finish(buf.data(), out_len);
                CHECK(to_hex(buf.data(), out_len) == to_hex(ref));

                std::copy(data.begin(), data.end(), buf.begin());
                h = c.make();
                update_in_pieces(h, buf.data(), len, rng);
                h.finish(buf.data(), out_len);
                CHECK(to_hex(buf.data(), out_len) == to_hex(ref));

                // Output over the end of the input.
                if (len >= out_len) {
                    std::copy(data.begin(), data.end(), buf.begin());
                    h = c.make();
                    update_in_pieces(h, buf.data(), len, rng);
                    h.finish(buf.data() + len - out_len, out_len);
                    CHECK(to_hex(buf.data() + len - out_len, out_len) == to_hex(ref));
                }
            }
        }
    }
}

TEST_CASE("digest engines: changing the input after update does not change the result",
          "[digest][overlap]") {
    for (const Combo& c : combos()) {
        DYNAMIC_SECTION(c.label()) {
            Lcg rng(seed_for(c, 5));
            const size_t out_len = test_out_len(*c.algo);
            for (int iter = 0; iter < 100; ++iter) {
                const size_t len = rng.length(4096);
                const Bytes data = rng.bytes(len);
                const Bytes ref = one_shot(c, data, out_len);
                INFO("iteration " << iter << ", length " << len);
                Bytes scratch = data;
                Hasher h = c.make();
                // Two updates, each scribbled over once it has returned: a
                // hasher that kept a pointer to its input would see the change.
                const size_t split = rng.below(len + 1);
                h.update(ptr(scratch), split);
                std::fill(scratch.begin(), scratch.begin() + split, uint8_t{0xa5});
                h.update(ptr(scratch) + split, len - split);
                std::fill(scratch.begin(), scratch.end(), uint8_t{0x5a});
                Bytes out(out_len);
                h.finish(out.data(), out_len);
                CHECK(to_hex(out) == to_hex(ref));
            }
        }
    }
}

TEST_CASE("digest engines: a copied hasher continues independently", "[digest][copy]") {
    for (const Combo& c : combos()) {
        DYNAMIC_SECTION(c.label()) {
            Lcg rng(seed_for(c, 6));
            const size_t out_len = test_out_len(*c.algo);
            for (int iter = 0; iter < 100; ++iter) {
                const Bytes prefix = rng.bytes(rng.length(3000));
                const Bytes tail_a = rng.bytes(rng.length(3000));
                const Bytes tail_b = rng.bytes(rng.length(3000));
                INFO("iteration " << iter << ", lengths " << prefix.size() << "+"
                                  << tail_a.size() << "/" << tail_b.size());
                Bytes msg_a = prefix, msg_b = prefix;
                msg_a.insert(msg_a.end(), tail_a.begin(), tail_a.end());
                msg_b.insert(msg_b.end(), tail_b.begin(), tail_b.end());
                const Bytes ref_a = one_shot(c, msg_a, out_len);
                const Bytes ref_b = one_shot(c, msg_b, out_len);

                Hasher original = c.make();
                original.update(ptr(prefix), prefix.size());
                Hasher copy = original;  // a value: this is dupctx
                original.update(ptr(tail_a), tail_a.size());
                copy.update(ptr(tail_b), tail_b.size());
                Bytes out_a(out_len), out_b(out_len);
                // Finishing (and wiping) the original must leave the copy intact.
                original.finish(out_a.data(), out_len);
                copy.finish(out_b.data(), out_len);
                CHECK(to_hex(out_a) == to_hex(ref_a));
                CHECK(to_hex(out_b) == to_hex(ref_b));

                if (c.algo->xof) {
                    // A copy taken part-way through squeezing continues the same stream.
                    Hasher x = c.make();
                    x.update(ptr(msg_a), msg_a.size());
                    const size_t first = rng.below(out_len + 1);
                    Bytes got1(out_len), got2(out_len);
                    x.squeeze(got1.data(), first);
                    std::copy(got1.begin(), got1.begin() + first, got2.begin());
                    Hasher y = x;
                    x.squeeze(got1.data() + first, out_len - first);
                    y.squeeze(got2.data() + first, out_len - first);
                    CHECK(to_hex(got1) == to_hex(ref_a));
                    CHECK(to_hex(got2) == to_hex(ref_a));
                }
            }
        }
    }
}

// The object bytes after finish are compared with those of a never-used
// hasher of the same configuration that was built in zeroed storage and
// wiped: anything derived from the message that survives (state, buffer,
// length) differs, while the engine pointer, rate and pad are equal on both
// sides. Both objects are built by constructor in zeroed storage, so their
// padding bytes are zero alike.
TEST_CASE("digest engines: state is wiped after finish", "[digest][wipe]") {
    for (const Combo& c : combos()) {
        DYNAMIC_SECTION(c.label()) {
            Lcg rng(seed_for(c, 7));
            Hasher proto = c.make();
            std::visit(
                [&](const auto& like) {
                    using H = std::decay_t<decltype(like)>;
                    static_assert(std::is_trivially_copyable_v<H>,
                                  "object bytes are inspected with memcmp");
                    alignas(H) unsigned char used_mem[sizeof(H)];
                    alignas(H) unsigned char clean_mem[sizeof(H)];
                    for (int iter = 0; iter < 20; ++iter) {
                        // Not std::memset: GCC drops stores made just before a
                        // constructor runs (-flifetime-dse), leaving stale padding.
                        secure_zero(used_mem, sizeof used_mem);
                        secure_zero(clean_mem, sizeof clean_mem);
                        H* used = construct_like(used_mem, like, *c.algo);
                        H* clean = construct_like(clean_mem, like, *c.algo);
                        clean->wipe();
                        // Lengths that leave a partial block buffered, and some that do not.
                        const size_t len =
                            iter < 2 ? (iter + 1) * c.algo->block_size : 1 + rng.length(2000);
                        const Bytes data = rng.bytes(len);
                        INFO("iteration " << iter << ", length " << len);
                        hasher_update(*used, ptr(data), len);
                        // Guards the test itself: the state must differ before finish.
                        REQUIRE(std::memcmp(used_mem, clean_mem, sizeof(H)) != 0);
                        Bytes out(test_out_len(*c.algo));
                        hasher_finish(*used, out.data(), out.size());
                        size_t first_diff = sizeof(H);
                        for (size_t i = 0; i < sizeof(H); ++i)
                            if (used_mem[i] != clean_mem[i]) {
                                first_diff = i;
                                break;
                            }
                        INFO("object size " << sizeof(H) << ", first differing byte "
                                            << first_diff);
                        CHECK(first_diff == sizeof(H));
                    }
                },
                proto.raw());
        }
    }
}

// ------------------------------------------------------------------ SHAKE output

TEST_CASE("digest engines: SHAKE output of every length 0..600 is a prefix of one squeeze",
          "[digest][shake]") {
    for (const Combo& c : combos()) {
        if (!c.algo->xof) continue;
        DYNAMIC_SECTION(c.label()) {
            Lcg rng(seed_for(c, 8));
            const size_t rate = c.algo->block_size;
            for (size_t in_len : {size_t{0}, size_t{1}, rate - 1, rate, rate + 1, size_t{1000}}) {
                const Bytes data = rng.bytes(in_len);
                const Bytes full = one_shot(c, data, 600);  // more than 3 rates of SHAKE128
                for (size_t n = 0; n <= 600; ++n) {
                    INFO("input length " << in_len << ", output length " << n);
                    const Bytes got = one_shot(c, data, n);
                    REQUIRE(to_hex(got) == to_hex(full.data(), n));
                }
            }
        }
    }
}

TEST_CASE("digest engines: SHAKE squeezed in random pieces equals one squeeze",
          "[digest][shake]") {
    for (const Combo& c : combos()) {
        if (!c.algo->xof) continue;
        DYNAMIC_SECTION(c.label()) {
            Lcg rng(seed_for(c, 9));
            for (int iter = 0; iter < 300; ++iter) {
                const Bytes data = rng.bytes(rng.length(1000));
                const size_t out_len = rng.length(3000);
                INFO("iteration " << iter << ", input " << data.size() << ", output " << out_len);
                const Bytes ref = one_shot(c, data, out_len);
                Hasher h = c.make();
                h.update(ptr(data), data.size());
                Bytes out(out_len + 1);
                size_t pos = 0;
                while (pos < out_len) {
                    if (rng.below(8) == 0) h.squeeze(out.data() + pos, 0);
                    size_t part = rng.length(out_len - pos);
                    h.squeeze(out.data() + pos, part);
                    pos += part;
                }
                REQUIRE(to_hex(out.data(), out_len) == to_hex(ref));
            }
        }
    }
}

// ------------------------------------------------------------------ differential

TEST_CASE("digest engines: every engine equals the generic engine on random input",
          "[digest][differential]") {
    size_t compared = 0;
    for (const Combo& c : combos()) {
        // The generic engine against itself could not fail.
        if (c.is_generic) continue;
        ++compared;
        DYNAMIC_SECTION(c.label()) {
            const Combo ref_combo = c.generic();
            Lcg rng(seed_for(c, 10));
            for (int iter = 0; iter < 300; ++iter) {
                const size_t len = rng.length(16384);
                const Bytes data = rng.bytes(len);
                const size_t out_len = c.algo->xof ? rng.length(1000) : c.algo->digest_size;
                INFO("iteration " << iter << ", length " << len << ", output " << out_len);
                const Bytes ref = one_shot(ref_combo, data, out_len);
                Hasher h = c.make();
                update_in_pieces(h, ptr(data), len, rng);
                Bytes out(out_len);
                h.finish(out.data(), out_len);
                REQUIRE(to_hex(out) == to_hex(ref));
            }
        }
    }
    if (compared == 0) WARN("no engine other than generic is available here: nothing to compare");
}
