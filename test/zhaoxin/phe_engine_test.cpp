// The PHE engine's block functions under the instruction model: how they
// drive the instruction (registers, counts, buffer), beyond the digest suite
// in test/backends/, which this binary also runs on the engine.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "digest/md_hasher.hpp"
#include "generic/generic_engines.hpp"
#include "hwaccel/cpu.hpp"
#include "hwaccel/registry.hpp"
#include "phe_model.hpp"
#include "support/guarded_buffer.hpp"
#include "support/hashers.hpp"
#include "support/vectors.hpp"
#include "zhaoxin/phe_engines.hpp"

using namespace hwaccel;
using namespace hwaccel::test;

namespace {

// Runs f for SHA-1 and SHA-256 with the matching engines and state size.
template <class F>
void for_both(F f) {
    f("sha1", phe::Insn::kXsha1, size_t{5}, zhaoxin::sha1_phe.blocks, generic::sha1.blocks);
    f("sha256", phe::Insn::kXsha256, size_t{8}, zhaoxin::sha256_phe.blocks, generic::sha256.blocks);
}

template <class Engine>
int position(EngineList<Engine> list, const char* name) {
    for (size_t i = 0; i < list.count; ++i)
        if (std::string(list.items[i]->name) == name) return static_cast<int>(i);
    return -1;
}

}  // namespace

TEST_CASE("phe engine: this run claims PHE and the digest suite covers the engine", "[phe]") {
    // Without HWACCEL_TEST_CPU=+phe the digest suite would skip the engine
    // and still pass: make that a failure.
    REQUIRE(cpu_features().phe);
    std::vector<std::string> covered;
    for (const Combo& c : available_combos())
        if (std::string(c.engine_name()) == "phe") covered.push_back(c.algo->name);
    CHECK(covered == std::vector<std::string>{"SHA1", "SHA224", "SHA256"});
    // Registry order: after SHA-NI, before the portable engine (last).
    const int sha1_phe = position(sha1_engines(), "phe");
    const int sha256_phe = position(sha256_engines(), "phe");
    CHECK(sha1_phe > position(sha1_engines(), "sha-ni"));
    CHECK(sha256_phe > position(sha256_engines(), "sha-ni"));
    CHECK(sha1_phe == static_cast<int>(sha1_engines().count) - 2);
    CHECK(sha256_phe == static_cast<int>(sha256_engines().count) - 2);
}

TEST_CASE("phe engine: one instruction per call, multi-block mode, RCX = nblocks", "[phe]") {
    PHE_MODEL_ONLY();
    Lcg rng(11);
    const Bytes data = rng.bytes(64 * 1000);
    for_both([&](const char* name, phe::Insn insn, size_t words, auto blocks, auto) {
        for (size_t n : {1, 2, 3, 16, 255, 1000}) {
            INFO(name << ", " << n << " blocks");
            uint32_t state[8] = {1, 2, 3, 4, 5, 6, 7, 8};
            phe::reset_counters();
            phe::clear_trace();
            blocks(state, data.data(), n);
            const phe::Counters c = phe::counters();
            CHECK((insn == phe::Insn::kXsha1 ? c.xsha1 : c.xsha256) == 1);
            CHECK(c.xsha1 + c.xsha256 == 1);
            CHECK(c.multi_block == 1);
            CHECK(c.zero_count == 0);
            CHECK(c.blocks == n);
            const phe::Trace t = phe::last_trace();
            REQUIRE(t.valid);
            CHECK(t.insn == insn);
            CHECK(t.before.rax == phe::kMultiBlock);
            CHECK(t.before.rcx == n);
            CHECK(t.before.rsi == reinterpret_cast<uint64_t>(data.data()));
            CHECK(t.after.rsi == reinterpret_cast<uint64_t>(data.data() + 64 * n));
            // A private, aligned scratch area, never the caller's state.
            CHECK(t.before.rdi % 16 == 0);
            CHECK(t.before.rdi != reinterpret_cast<uint64_t>(state));
            (void)words;
        }
    });
}

TEST_CASE("phe engine: zero blocks issue no instruction", "[phe]") {
    PHE_MODEL_ONLY();
    for_both([&](const char* name, phe::Insn, size_t, auto blocks, auto) {
        INFO(name);
        uint32_t state[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        const uint8_t byte = 0;
        phe::reset_counters();
        blocks(state, &byte, 0);
        const phe::Counters c = phe::counters();
        CHECK(c.xsha1 + c.xsha256 == 0);
        CHECK(state[0] == 1);
        CHECK(state[7] == 8);
    });
}

// The block functions themselves, on arbitrary chaining values (not only the
// initial ones a hasher starts from), against the portable engine.
TEST_CASE("phe engine: equals the portable block function on random states", "[phe]") {
    Lcg rng(12);
    for_both([&](const char* name, phe::Insn, size_t words, auto blocks, auto reference) {
        for (int iter = 0; iter < 300; ++iter) {
            const size_t n = 1 + rng.below(40);
            const size_t offset = rng.below(64);
            Bytes buf(offset + 64 * n);
            rng.fill(buf.data(), buf.size());
            uint32_t got[8], want[8];
            for (size_t i = 0; i < 8; ++i) got[i] = want[i] = rng.next32();
            INFO(name << ", iteration " << iter << ", " << n << " blocks at offset " << offset);
            blocks(got, buf.data() + offset, n);
            reference(want, buf.data() + offset, n);
            REQUIRE(std::vector<uint32_t>(got, got + words) ==
                    std::vector<uint32_t>(want, want + words));
            // Words past the state are not the engine's to touch.
            CHECK(std::vector<uint32_t>(got + words, got + 8) ==
                  std::vector<uint32_t>(want + words, want + 8));
        }
    });
}

// RAX, RCX, RSI and RDI are outputs of the instruction: the engine must not
// assume they still hold its inputs. The model always changes RDI and here
// leaves garbage in the other three as well.
TEST_CASE("phe engine: does not depend on RAX, RCX, RSI, RDI after the instruction", "[phe]") {
    PHE_MODEL_ONLY();
    Lcg rng(13);
    phe::set_poison_outputs(true);
    for_both([&](const char* name, phe::Insn, size_t words, auto blocks, auto reference) {
        uint32_t got[8] = {}, want[8] = {};
        for (int iter = 0; iter < 100; ++iter) {
            const Bytes data = rng.bytes(64 * (1 + rng.below(8)));
            INFO(name << ", iteration " << iter);
            blocks(got, data.data(), data.size() / 64);
            reference(want, data.data(), data.size() / 64);
            REQUIRE(std::memcmp(got, want, 4 * words) == 0);
        }
    });
    phe::set_poison_outputs(false);
}

// The caller's state and data at guard pages: the engine reads and writes
// exactly the state words and the whole blocks, nothing around them.
TEST_CASE("phe engine: state and data ending at guard pages", "[phe][guard]") {
    Lcg rng(14);
    GuardedBuffer state_buf(64), data_buf(64 * 64), head_buf(64 * 64);
    for_both([&](const char* name, phe::Insn, size_t words, auto blocks, auto reference) {
        for (int iter = 0; iter < 50; ++iter) {
            const size_t n = 1 + rng.below(64);
            const Bytes data = rng.bytes(64 * n);
            uint32_t want[8];
            for (size_t i = 0; i < words; ++i) want[i] = rng.next32();
            auto* state = reinterpret_cast<uint32_t*>(state_buf.tail(4 * words));
            std::memcpy(state, want, 4 * words);
            INFO(name << ", iteration " << iter << ", " << n << " blocks");
            blocks(state, data_buf.place(data.data(), data.size()), n);
            std::memcpy(head_buf.begin(), data.data(), data.size());
            blocks(state, head_buf.begin(), n);
            reference(want, data.data(), n);
            reference(want, data.data(), n);
            REQUIRE(std::memcmp(state, want, 4 * words) == 0);
        }
    });
}

// The measurement behind not using the padding mode (see phe.cpp): with the
// blocks-only interface a one-shot digest of any length costs at most one
// instruction for the whole blocks of update() and exactly one for final(),
// also when the padding spills into a second block (MdHasher::finish hands
// both final blocks over in one call). The padding mode could only save the
// software padding.
TEST_CASE("phe engine: instructions per one-shot digest through the hasher", "[phe][padding]") {
    PHE_MODEL_ONLY();
    uint64_t total = 0;
    const Bytes data = Lcg(15).bytes(300);
    for (size_t len = 0; len <= 300; ++len) {
        INFO("length " << len);
        MdHasher<Sha256Traits> h(&zhaoxin::sha256_phe);
        phe::reset_counters();
        h.update(data.data(), len);
        const uint64_t in_update = phe::counters().xsha256;
        uint8_t out[32];
        h.finish(out);
        const phe::Counters c = phe::counters();
        const uint64_t in_final = c.xsha256 - in_update;
        CHECK(in_update == (len >= 64 ? 1u : 0u));
        CHECK(in_final == 1u);
        CHECK(c.blocks == (len + 9 + 63) / 64);  // message + 0x80 + 8-byte length
        CHECK(c.zero_count == 0);
        CHECK(c.padding == 0);
        total += c.xsha256;
    }
    // 301 lengths: one final instruction each, which the padding mode would
    // also need, plus one update instruction from 64 bytes on.
    CHECK(total == 301 + (300 - 63));
}
