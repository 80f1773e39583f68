// The digests' entry points leave no chaining state of a message on the stack
// below their caller, in the caller-saved registers or in the vector
// registers: the state after each whole block but the last is what an HMAC
// keeps of its key (the inner and outer states after K ^ ipad, K ^ opad), so
// it is as secret as a key. The digest itself, which the caller is given,
// is not looked for. The sibling of message_stack_residue_test.cpp (SM4),
// with the same trampoline; written after scripts/mutation-sweep.py found
// the digests' snapshot and context wipes untested. Every SHA-1, SHA-256
// and Keccak engine this CPU runs; x86-64, as its sibling.
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <catch2/catch.hpp>

#if defined(__x86_64__)

#include <cstring>
#include <string>
#include <vector>

#include "cpu/detect.hpp"  // backend internals: the real CPU, whatever HWACCEL_TEST_CPU claims
#include "fake_core.hpp"
#include "generic/generic_engines.hpp"
#include "hwaccel/engines.hpp"
#include "hwaccel/registry.hpp"
#include "hwaccel/wipe_stack.hpp"
#include "support/secret_words.hpp"
#include "support/stack_shift.hpp"
#include "support/vector_register_dump.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;

namespace {

enum class Call { kUpdate, kFinal, kDupctx, kFreectx, kSerialize, kDeserialize };
struct CallArgs {
    Call call;
    const DigestFns* fns;
    void* vctx;
    unsigned char* out;
    size_t size;
    const unsigned char* in;
    size_t len;
    size_t outl;
    int result;
    void* dup;
};

[[gnu::noinline]] void call_thunk(void* p) {
    CallArgs& c = *static_cast<CallArgs*>(p);
    switch (c.call) {
        case Call::kUpdate: c.result = c.fns->update(c.vctx, c.in, c.len); return;
        case Call::kFinal: c.result = c.fns->final(c.vctx, c.out, &c.outl, c.size); return;
        case Call::kDupctx: c.dup = c.fns->dupctx(c.vctx); return;
        case Call::kFreectx: c.fns->freectx(c.vctx); return;
        case Call::kSerialize: c.result = c.fns->serialize(c.vctx, c.out, &c.outl); return;
        case Call::kDeserialize: c.result = c.fns->deserialize(c.vctx, c.in, c.len); return;
    }
}

struct Digest {
    const char* name;    // the provider's first name
    const char* family;  // as "engines" names it
    size_t block;        // bytes per block (the rate for Keccak)
    size_t out;          // bytes of output asked for
};
const Digest kDigests[] = {
    {"SHA1", "sha1", 64, 20},       {"SHA2-224", "sha256", 64, 28}, {"SHA2-256", "sha256", 64, 32},
    {"SHA3-224", "sha3", 144, 28},  {"SHA3-256", "sha3", 136, 32},  {"SHA3-384", "sha3", 104, 48},
    {"SHA3-512", "sha3", 72, 64},   {"SHAKE-128", "sha3", 168, 32}, {"SHAKE-256", "sha3", 136, 32},
};

// The chaining states after each of the message's first `blocks` whole
// blocks, computed with the portable engines.
SecretWords chaining_states(const Digest& d, const uint8_t* msg, size_t blocks) {
    SecretWords s;
    const std::string family = d.family;
    if (family == "sha1") {
        uint32_t h[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
        for (size_t b = 0; b < blocks; ++b) {
            hwaccel::generic::sha1.blocks(h, msg + 64 * b, 1);
            s.add_bytes(reinterpret_cast<const uint8_t*>(h), sizeof h, "state after block " + std::to_string(b));
        }
    } else if (family == "sha256") {
        uint32_t h256[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
        uint32_t h224[8] = {0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939, 0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4};
        uint32_t* h = std::strcmp(d.name, "SHA2-224") == 0 ? h224 : h256;
        for (size_t b = 0; b < blocks; ++b) {
            hwaccel::generic::sha256.blocks(h, msg + 64 * b, 1);
            s.add_bytes(reinterpret_cast<const uint8_t*>(h), 32, "state after block " + std::to_string(b));
        }
    } else {
        uint64_t lanes[25] = {};
        for (size_t b = 0; b < blocks; ++b) {
            hwaccel::generic::keccak.absorb(lanes, msg + d.block * b, 1, d.block);
            s.add_bytes(reinterpret_cast<const uint8_t*>(lanes), sizeof lanes, "lanes after block " + std::to_string(b));
        }
    }
    return s;
}

template <class Engine>
std::vector<std::string> engines_here(hwaccel::EngineList<Engine> list) {
    std::vector<std::string> names;
    for (const Engine* e : list)
        if (e->available(hwaccel::cpu_features())) names.push_back(e->name);
    return names;
}
template <class Engine>
bool modelled(hwaccel::EngineList<Engine> list, const std::string& name) {
    for (const Engine* e : list)
        if (name == e->name) return !e->available(hwaccel::detect_cpu());
    return false;
}

}  // namespace

TEST_CASE("the digests leave no chaining state on the stack or in registers", "[provider][digest][wipe]") {
    if (!__builtin_cpu_supports("avx")) return;  // the trampoline's
    for_each_stack_shift([&](unsigned shift) {
        INFO("stack shifted by " << 16 * shift << " bytes");
        const bool zmm = __builtin_cpu_supports("avx512f");
        const bool instrumented = hwaccel::backend_frames_instrumented();
        Lcg rng(0xd16e);
        for (const Digest& d : kDigests) {
            const std::string family = d.family;
            const std::vector<std::string> engines = family == "sha1"     ? engines_here(hwaccel::sha1_engines())
                                                     : family == "sha256" ? engines_here(hwaccel::sha256_engines())
                                                                          : engines_here(hwaccel::keccak_engines());
            for (const std::string& engine : engines) {
                INFO(d.name << " on " << family << "=" << engine);
                const bool is_modelled = family == "sha1"     ? modelled(hwaccel::sha1_engines(), engine)
                                         : family == "sha256" ? modelled(hwaccel::sha256_engines(), engine)
                                                              : modelled(hwaccel::keccak_engines(), engine);
                const bool registers_only = instrumented || is_modelled;
                g_core = FakeCore{};
                g_core.engines = family + "=" + engine;
                Module m;
                REQUIRE(m.init_result == 1);
                const DigestFns fns(m.digest(d.name));
                // Two whole blocks and half of one: the states after the first
                // two are the message's secrets.
                std::vector<uint8_t> msg(2 * d.block + d.block / 2);
                rng.fill(msg.data(), msg.size());
                const SecretWords secrets = chaining_states(d, msg.data(), 2);
                auto leak = [&](CallArgs& c) {
                    const CallResidue r = call_and_dump_residue(call_thunk, &c, zmm);
                    if (registers_only) return secrets.find_in(r.vectors);
                    return secrets.find_in(r.stack) + secrets.find_in(r.gprs) + secrets.find_in(r.vectors);
                };

                void* vctx = fns.newctx(m.provctx);
                REQUIRE(vctx != nullptr);
                // SHAKE's length (OpenSSL 3.4 and later give it no default).
                size_t xoflen = d.out;
                OSSL_PARAM xof[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &xoflen), OSSL_PARAM_END};
                REQUIRE(fns.init(vctx, std::strncmp(d.name, "SHAKE", 5) == 0 ? xof : nullptr) == 1);
                CallArgs c{Call::kUpdate, &fns, vctx, nullptr, 0, msg.data(), msg.size(), 0, 0, nullptr};
                const std::string update = leak(c);
                REQUIRE(c.result == 1);
                CHECK(update == "");

                c = CallArgs{Call::kDupctx, &fns, vctx, nullptr, 0, nullptr, 0, 0, 0, nullptr};
                const std::string dup = leak(c);
                REQUIRE(c.dup != nullptr);
                fns.freectx(c.dup);
                CHECK(dup == "");
                if (fns.serialize != nullptr && fns.deserialize != nullptr) {
                    std::vector<uint8_t> state(1024);
                    // outl in: the buffer's size.
                    c = CallArgs{Call::kSerialize, &fns, vctx, state.data(), 0, nullptr, 0, state.size(), 0, nullptr};
                    const std::string saved = leak(c);
                    REQUIRE(c.result == 1);
                    // The serialized state is the caller's (it asked for it).
                    const size_t n = c.outl;
                    void* other = fns.dupctx(vctx);
                    REQUIRE(other != nullptr);
                    c = CallArgs{Call::kDeserialize, &fns, other, nullptr, 0, state.data(), n, 0, 0, nullptr};
                    const std::string loaded = leak(c);
                    REQUIRE(c.result == 1);
                    fns.freectx(other);
                    INFO("serialize, then deserialize into a copy");
                    CHECK(saved == "");
                    CHECK(loaded == "");
                }
                std::vector<uint8_t> out(d.out);
                c = CallArgs{Call::kFinal, &fns, vctx, out.data(), out.size(), nullptr, 0, 0, 0, nullptr};
                const std::string final = leak(c);
                INFO((g_core.errors.empty() ? "" : g_core.errors.back()));
                REQUIRE(c.result == 1);
                CHECK(final == "");
                c = CallArgs{Call::kFreectx, &fns, vctx, nullptr, 0, nullptr, 0, 0, 0, nullptr};
                const std::string freed = leak(c);
                CHECK(freed == "");
            }
        }
    });
}

#endif
