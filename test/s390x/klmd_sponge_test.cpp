// The sponge over the CPACF engine's KLMD members (finish, squeeze, oneshot):
// the same bytes as the portable sponge for any split of input and output,
// and the number of CPACF instructions each path takes, counted by the model
// with partial completion off, against the same engine without the optional
// members (what the sponge did before they existed). The counts are
// asserted, so a path that stops being taken fails here.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstring>

#include "digest/keccak_sponge.hpp"
#include "digest/md_hasher.hpp"
#include "hwaccel/algorithm_facts.hpp"
#include "hwaccel/cpu.hpp"
#include "s390x/cpacf_model.hpp"
#include "support/vectors.hpp"
// Backend internals, through hwaccel_backend_internals.
#include "generic/generic_engines.hpp"
#include "s390x/cpacf.hpp"
#include "s390x/s390x_engines.hpp"

using namespace hwaccel;
using namespace hwaccel::test;
namespace model = hwaccel::test::cpacf_model;

namespace {

// keccak_cpacf with absorb and permute only: the sponge's software padding
// and squeezing, as before the KLMD members were wired in.
const KeccakEngine kKimdOnly = {"cpacf-kimd-only", s390x::keccak_cpacf.available,
                                s390x::keccak_cpacf.absorb, s390x::keccak_cpacf.permute};

struct Counts {
    uint64_t kimd = 0, klmd = 0;
    uint64_t total() const { return kimd + klmd; }
};

// Instructions the model executes during f(), each run to completion.
template <class F>
Counts count(F f) {
    const unsigned partial = model::partial_every();
    model::set_partial_every(0);
    const model::Stats& s = model::stats();
    const uint64_t kimd = s.kimd, klmd = s.klmd;
    f();
    model::set_partial_every(partial);
    return {s.kimd - kimd, s.klmd - klmd};
}

void report(const char* what, const Counts& before, const Counts& after) {
    std::printf("CPACF instructions, %s: before %llu KIMD + %llu KLMD, after %llu KIMD + %llu KLMD\n",
                what, static_cast<unsigned long long>(before.kimd),
                static_cast<unsigned long long>(before.klmd),
                static_cast<unsigned long long>(after.kimd),
                static_cast<unsigned long long>(after.klmd));
}

// The model executes (and can count) these codes only where the machine
// does not: under qemu, with the features claimed by HWACCEL_TEST_CPU.
bool counting_possible() {
    const CpuFeatures& cpu = cpu_features();
    if (!cpu.cpacf_sha3 || !cpu.cpacf_shake || !cpu.cpacf_sha256) return false;
    const s390x::CpacfFacts& f = s390x::facts();
    for (unsigned long fc : {s390x::kSha256, s390x::kSha3_256, s390x::kSha3_512, s390x::kShake128})
        if (s390x::has_function(f.kimd, fc) || s390x::has_function(f.klmd, fc)) return false;
    return true;
}

Bytes sponge_digest(const KeccakEngine* e, size_t rate, uint8_t pad, const Bytes& msg,
                    size_t out_len) {
    KeccakSponge s(e, rate, pad);
    s.update(msg.data(), msg.size());
    Bytes out(out_len);
    s.finish(out.data(), out_len);
    return out;
}

struct Algo {
    const char* name;
    size_t rate;
    uint8_t pad;
    size_t digest;  // 0: SHAKE
};
constexpr Algo kAlgos[] = {
    {"SHA3-224", kSha3_224Rate, kSha3Pad, kSha3_224DigestSize},
    {"SHA3-256", kSha3_256Rate, kSha3Pad, kSha3_256DigestSize},
    {"SHA3-384", kSha3_384Rate, kSha3Pad, kSha3_384DigestSize},
    {"SHA3-512", kSha3_512Rate, kSha3Pad, kSha3_512DigestSize},
    {"SHAKE128", kShake128Rate, kShakePad, 0},
    {"SHAKE256", kShake256Rate, kShakePad, 0},
};

}  // namespace

TEST_CASE("klmd sponge: any split of input and output equals the portable sponge",
          "[s390x][klmd]") {
    const CpuFeatures& cpu = cpu_features();
    if (!cpu.cpacf_sha3) {
        WARN("CPACF SHA-3 not reported (set HWACCEL_TEST_CPU to claim it under the model)");
        return;
    }
    Lcg rng(91);
    for (const Algo& a : kAlgos) {
        DYNAMIC_SECTION(a.name) {
            const size_t hold = KeccakSponge::kHoldBytes;
            for (size_t len : {size_t{0}, size_t{1}, a.rate - 1, a.rate, a.rate + 1, hold - 1, hold,
                               hold + 1, 2 * hold + 3, size_t{1000}}) {
                const Bytes msg = rng.bytes(len);
                for (int iter = 0; iter < 4; ++iter) {
                    const size_t out_len = a.digest ? a.digest : rng.below(3 * a.rate + 2);
                    INFO("input " << len << ", output " << out_len << ", iteration " << iter);
                    KeccakSponge ref(&generic::keccak, a.rate, a.pad);
                    ref.update(msg.data(), len);
                    Bytes want(out_len);
                    ref.squeeze(want.data(), out_len);

                    KeccakSponge s(&s390x::keccak_cpacf, a.rate, a.pad);
                    for (size_t at = 0; at < len;) {  // random update pieces
                        size_t piece = 1 + rng.below(len - at < 400 ? len - at : 400);
                        if (iter == 0) piece = len - at;
                        s.update(msg.data() + at, piece);
                        at += piece;
                    }
                    Bytes got(out_len + 1, 0xee);
                    if (iter % 2 == 0) {
                        s.finish(got.data(), out_len);  // the provider's final
                    } else {
                        for (size_t at = 0; at < out_len;) {  // EVP_DigestSqueeze pieces
                            size_t piece = 1 + rng.below(out_len - at < 300 ? out_len - at : 300);
                            s.squeeze(got.data() + at, piece);
                            at += piece;
                        }
                        s.wipe();
                    }
                    CHECK(to_hex(got.data(), out_len) == to_hex(want));
                    CHECK(got[out_len] == 0xee);
                }
            }
        }
    }
}

TEST_CASE("klmd sponge: CPACF instructions per message, before and after the KLMD members",
          "[s390x][klmd][count]") {
    if (!counting_possible()) {
        WARN("the codes are not all executed by the model here: nothing to count");
        return;
    }
    Lcg rng(92);
    const Bytes msg256 = rng.bytes(256);
    const Bytes msg64 = rng.bytes(64);
    const Bytes msg1000 = rng.bytes(1000);
    Bytes before, after;

    // SHA3-256 of 256 bytes. Before: KIMD for the whole block, KIMD-permute
    // after the software padding. After: the message is held (nothing
    // absorbed yet) and the final is one KLMD from the zero state.
    Counts b = count([&] { before = sponge_digest(&kKimdOnly, kSha3_256Rate, kSha3Pad, msg256, 32); });
    Counts c = count([&] {
        after = sponge_digest(&s390x::keccak_cpacf, kSha3_256Rate, kSha3Pad, msg256, 32);
    });
    CHECK(before == after);
    CHECK(b.kimd == 2);
    CHECK(b.klmd == 0);
    CHECK(c.kimd == 0);
    CHECK(c.klmd == 1);
    report("SHA3-256, 256 bytes", b, c);

    // SHAKE128, 64 bytes in, 1,000 out. Before: KIMD-permute after the
    // padding, then one per further 168-byte block (5). After: one KLMD that
    // pads and writes all 1,000 bytes.
    b = count([&] { before = sponge_digest(&kKimdOnly, kShake128Rate, kShakePad, msg64, 1000); });
    c = count([&] {
        after = sponge_digest(&s390x::keccak_cpacf, kShake128Rate, kShakePad, msg64, 1000);
    });
    CHECK(before == after);
    CHECK(b.kimd == 6);
    CHECK(b.klmd == 0);
    CHECK(c.kimd == 0);
    CHECK(c.klmd == 1);
    report("SHAKE128, 64 bytes in, 1000 out", b, c);

    // Longer than the sponge holds: SHA3-256 of 1,000 bytes. The whole
    // blocks are one KIMD either way; the tail and padding then take one
    // KLMD instead of the KIMD-permute: the same count.
    b = count([&] { before = sponge_digest(&kKimdOnly, kSha3_256Rate, kSha3Pad, msg1000, 32); });
    c = count([&] {
        after = sponge_digest(&s390x::keccak_cpacf, kSha3_256Rate, kSha3Pad, msg1000, 32);
    });
    CHECK(before == after);
    CHECK(b.total() == 2);
    CHECK(c.kimd == 1);
    CHECK(c.klmd == 1);

    // EVP_DigestSqueeze in pieces (SHAKE128, 100 then 900 bytes): the first
    // squeeze is one KLMD (finish: the state is kept), the second takes the
    // rest of the current block from the state and one KLMD with PS for the
    // remaining 832 bytes.
    auto squeeze_pieces = [&](const KeccakEngine* e, Bytes& out) {
        KeccakSponge s(e, kShake128Rate, kShakePad);
        s.update(msg64.data(), msg64.size());
        out.assign(1000, 0);
        s.squeeze(out.data(), 100);
        s.squeeze(out.data() + 100, 900);
        s.wipe();
    };
    b = count([&] { squeeze_pieces(&kKimdOnly, before); });
    c = count([&] { squeeze_pieces(&s390x::keccak_cpacf, after); });
    CHECK(to_hex(after) ==
          to_hex(sponge_digest(&generic::keccak, kShake128Rate, kShakePad, msg64, 1000)));
    CHECK(before == after);
    CHECK(b.kimd == 6);
    CHECK(c.kimd == 0);
    CHECK(c.klmd == 2);
}

TEST_CASE("klmd sponge: SHA-256's final blocks are one KIMD, also when the padding spills",
          "[s390x][klmd][count]") {
    if (!counting_possible()) {
        WARN("the codes are not all executed by the model here: nothing to count");
        return;
    }
    Lcg rng(93);
    for (size_t len : {size_t{55}, size_t{56}, size_t{63}, size_t{64 + 60}}) {
        INFO("message " << len);
        const Bytes msg = rng.bytes(len);
        uint8_t got[kSha256DigestSize], want[kSha256DigestSize];
        MdHasher<Sha256Traits> ref(&generic::sha256);
        ref.update(msg.data(), len);
        ref.finish(want);
        const Counts c = count([&] {
            MdHasher<Sha256Traits> h(&s390x::sha256_cpacf);
            h.update(msg.data(), len);
            h.finish(got);
        });
        CHECK(to_hex(got, sizeof got) == to_hex(want, sizeof want));
        // One KIMD per whole block absorbed by update, one for the final
        // block(s): before, 56..63 bytes took two for the final.
        CHECK(c.kimd == len / 64 + 1);
        CHECK(c.klmd == 0);
    }
}
