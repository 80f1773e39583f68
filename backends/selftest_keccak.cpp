// Known answers for the Keccak engines: the bare permutation, one-block and
// multi-block absorbs in one call at every rate the provider uses, and a
// SHAKE output longer than one rate (absorb, then permute to squeeze).
#include "hwaccel/algorithm_facts.hpp"
#include "hwaccel/bytes.hpp"
#include "hwaccel/engines.hpp"
#include "selftest_kat.hpp"

namespace hwaccel::selftest {
namespace {

// Keccak-f[1600] applied once to the all-zero state, lanes 0..24 (the Keccak
// team's KeccakF-1600-IntermediateValues.txt).
constexpr uint64_t kPermutedZero[25] = {
    0xF1258F7940E1DDE7, 0x84D5CCF933C0478A, 0xD598261EA65AA9EE, 0xBD1547306F80494D,
    0x8B284E056253D057, 0xFF97A42D7F8E6FD4, 0x90FEE5A0A44647C4, 0x8C5BDA0CD6192E76,
    0xAD30A6F71B19059C, 0x30935AB7D08FFC64, 0xEB5AA93F2317D635, 0xA9A6E6260D712103,
    0x81A57C16DBCF555F, 0x43B831CD0347C826, 0x01F22F1A11A5569F, 0x05E5635A21D9AE61,
    0x64BEFEF28CC970F2, 0x613670957BC46611, 0xB87C5A554FD00ECB, 0x8C3EE88A1CCF32C8,
    0x940C7922AE3A2614, 0x1841F924A2C509E4, 0x16F53526E70465C2, 0x75F644E97F30A13B,
    0xEAF1FF7B5CECA249,
};

struct SpongeAnswer {
    const char* algorithm;
    size_t rate;
    uint8_t pad;
    size_t message_length;  // of pattern(), or 0 for "abc"
    size_t output_length;
    const char* want_hex;   // the output, or for long outputs its SHA-256
};

// "abc": FIPS 202 example values (NIST, SHA3-256). The rest: the pattern()
// message of 1200 bytes through `openssl dgst -sha3-224` (-sha3-256,
// -sha3-384, -sha3-512), and `openssl dgst -shake128 -xoflen 200 | sha256sum`
// (-shake256 likewise): 200 bytes are more than one rate, so the squeeze
// needs the engine's permute.
constexpr SpongeAnswer kAnswers[] = {
    {"SHA3-256", kSha3_256Rate, kSha3Pad, 0, kSha3_256DigestSize,
     "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"},
    {"SHA3-224", kSha3_224Rate, kSha3Pad, 1200, kSha3_224DigestSize,
     "0431341dd83172b53a85c2e7ba9cec3b3cfa8f98038271e2ff6e9b28"},
    {"SHA3-256", kSha3_256Rate, kSha3Pad, 1200, kSha3_256DigestSize,
     "540746645349882409a33ffcea8ac6c9cc6bd2f5db4727652ea2a69b4992a901"},
    {"SHA3-384", kSha3_384Rate, kSha3Pad, 1200, kSha3_384DigestSize,
     "8613840828acfebdbcf18f77484d0b7d10bddc6e5770b5461daf2263f5adbc75"
     "00da536f6afe616dcdbfaf95250f079b"},
    {"SHA3-512", kSha3_512Rate, kSha3Pad, 1200, kSha3_512DigestSize,
     "77a550d6b67385bef24bb4d0b91828a7d7132bd07b7f3cef503782b76ca05b6a"
     "19dbffb08bc8f600ff33aca97b84df49598186a427783f382735bc950c1f2821"},
    {"SHAKE128", kShake128Rate, kShakePad, 1200, 200,
     "f64d4a18fe668da702955922609e04fae18888e6805ec84a09a8d32ed309ffc0"},
    {"SHAKE256", kShake256Rate, kShakePad, 1200, 200,
     "437783ea7f381efe92d394aa3a6ef4781b941a6be9af131ff7166a23657cfe00"},
};

bool check_permute(KatRun& run, const KeccakEngine& engine) {
    uint64_t state[25] = {};
    engine.permute(state);
    uint8_t got[200], want[200];
    for (int i = 0; i < 25; ++i) store_le64(got + 8 * i, state[i]), store_le64(want + 8 * i, kPermutedZero[i]);
    return run.expect("permute", 1, got, want, sizeof got);
}

bool check_sponge(KatRun& run, const KeccakEngine& engine, const SpongeAnswer& a) {
    std::vector<uint8_t> padded = a.message_length ? pattern(a.message_length)
                                                   : std::vector<uint8_t>{'a', 'b', 'c'};
    padded.push_back(a.pad);
    while (padded.size() % a.rate != 0) padded.push_back(0);
    padded.back() |= 0x80;
    const size_t nblocks = padded.size() / a.rate;

    uint64_t state[25] = {};
    engine.absorb(state, padded.data(), nblocks, a.rate);  // every block in one call
    std::vector<uint8_t> out;
    uint8_t lane[8];
    while (true) {
        for (size_t i = 0; i < a.rate / 8; ++i) store_le64(lane, state[i]), out.insert(out.end(), lane, lane + 8);
        if (out.size() >= a.output_length) break;
        engine.permute(state);
    }
    out.resize(a.output_length);
    const std::vector<uint8_t> want = from_hex(a.want_hex);
    if (a.output_length > a.rate) return run.expect_digest("absorb+permute", nblocks, out.data(), out.size(), want.data());
    return run.expect("absorb", nblocks, out.data(), want.data(), want.size());
}

}  // namespace

std::string keccak_known_answers(const KeccakEngine& engine) {
    KatRun run("sha3", engine.name);
    if (!check_permute(run, engine)) return run.failure();
    for (const SpongeAnswer& a : kAnswers)
        if (!check_sponge(run, engine, a)) break;
    return run.failure();
}

}  // namespace hwaccel::selftest
