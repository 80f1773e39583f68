// Known answers for the SM4 engines: the GB/T 32907-2016 example (key
// schedule, one block through encrypt_block and ecb), then 77 blocks through
// ecb and every optional mode member the engine has (two full 32-block
// batches of the x86 kernels and a partial one; the portable engine's
// bitsliced path), 13 blocks in place (the small-batch paths) and 1 block
// (the serial paths); then the fused CCM body against the members proved.
#include <cstring>

#include "hwaccel/engines.hpp"
#include "hwaccel/sm4_ccm_blocks.hpp"
#include "selftest_kat.hpp"

namespace hwaccel::selftest {
namespace {

// GB/T 32907-2016, Appendix A, example 1: key = plaintext, the round keys
// rk0..rk31 it lists, and the ciphertext.
constexpr char kExampleKey[] = "0123456789abcdeffedcba9876543210";
constexpr char kExampleCiphertext[] = "681edf34d206965e86b3e94f536e4246";
constexpr uint32_t kExampleRoundKeys[32] = {
    0xf12186f9, 0x41662b61, 0x5a6ab19a, 0x7ba92077, 0x367360f4, 0x776a0c61, 0xb6bb89b3, 0x24763151,
    0xa520307c, 0xb7584dbd, 0xc30753ed, 0x7ee55b57, 0x6988608c, 0x30d895b7, 0x44ba14af, 0x104495a1,
    0xd120b428, 0x73b55fa3, 0xcc874966, 0x92244439, 0xe89e641f, 0x98ca015a, 0xc7159060, 0x99e1fd2e,
    0xb79bd80c, 0x1d2115b0, 0x0e228aeb, 0xf1780c81, 0x428d3654, 0x62293496, 0x01cf72e5, 0x9124a012,
};

// The bulk checks encrypt or decrypt the 1232-byte pattern() message under
// the example key. Digests from
//   python3 -c '...range(1232)...' > msg
//   openssl enc [-d] -sm4-<mode> -K <kExampleKey> -iv <iv> -nopad -in msg | sha256sum
constexpr size_t kBulkBlocks = 77;
constexpr size_t kSmallBlocks = 13;
constexpr char kIv[] = "fedcba98765432100123456789abcdef";
// Low word 32 below a carry, so the 77 blocks carry into the next word.
constexpr char kCounter[] = "00112233445566778899aabbffffffe0";
constexpr char kEcbEncrypt[] = "7c43e4ca2cabf7f341970dfebca821ba3878498a4c2e2b276ed71ff4ef364ae9";
constexpr char kEcbDecrypt[] = "b79ef44e904d2a48c133ba5c509fed6dadbb3af71afe9222a696fd6530cc6bdb";

using ModeFn = void (*)(const Sm4Key*, uint8_t*, const uint8_t*, size_t, uint8_t[16]);

// What a mode leaves in its iv/counter argument after n blocks.
enum class Chaining { kCounterPlusN, kLastInput, kLastOutput, kOutputXorInput };

struct ModeAnswer {
    const char* check;
    ModeFn Sm4Engine::*member;
    const char* iv;
    Chaining chaining;
    const char* sha256;  // of the 77-block output
};

constexpr ModeAnswer kModes[] = {
    {"ctr", &Sm4Engine::ctr, kCounter, Chaining::kCounterPlusN,  // openssl enc -sm4-ctr
     "de8b5f38fbe6a8c86d2f906134b866af3663c97305444a3b9ce6407c1edcbf33"},
    {"cbc_decrypt", &Sm4Engine::cbc_decrypt, kIv, Chaining::kLastInput,  // enc -d -sm4-cbc
     "ecd8bba1678be34dc42187705f85b90b3d5622b553c544c7b8349842ec32dcea"},
    {"cfb_decrypt", &Sm4Engine::cfb_decrypt, kIv, Chaining::kLastInput,  // enc -d -sm4-cfb
     "9cfb29ee4fb730baba8653cf9e40795d23b578ad0fb91213767e5392dd026631"},
    {"cbc_encrypt", &Sm4Engine::cbc_encrypt, kIv, Chaining::kLastOutput,  // enc -sm4-cbc
     "ee4dd7c6e3196f6267f5f1832ebcb4a6ac7907292044ff46df01e39fae4e0ef3"},
    {"cfb_encrypt", &Sm4Engine::cfb_encrypt, kIv, Chaining::kLastOutput,  // enc -sm4-cfb
     "2563dd19190c724f94aafbb9b01cdfce1a830fcb3edb001c35aea4f43fce742e"},
    {"ofb", &Sm4Engine::ofb, kIv, Chaining::kOutputXorInput,  // enc -sm4-ofb
     "10a287e595104b933222e127f196a9fe8100f25649734c1c8e28733d53b559c8"},
};

// The 128-bit big-endian counter plus n.
void counter_add(uint8_t c[16], size_t n) {
    unsigned carry = 0;
    for (int i = 15; i >= 0; --i) {
        const unsigned sum = c[i] + (n & 0xff) + carry;
        c[i] = static_cast<uint8_t>(sum);
        carry = sum >> 8;
        n >>= 8;
    }
}

void expected_chaining(const ModeAnswer& m, size_t n, const uint8_t* in, const uint8_t* out,
                       uint8_t chain[16]) {
    const std::vector<uint8_t> iv = from_hex(m.iv);
    const size_t last = 16 * (n - 1);
    switch (m.chaining) {
    case Chaining::kCounterPlusN:
        std::memcpy(chain, iv.data(), 16);
        counter_add(chain, n);
        break;
    case Chaining::kLastInput:
        std::memcpy(chain, in + last, 16);
        break;
    case Chaining::kLastOutput:
        std::memcpy(chain, out + last, 16);
        break;
    case Chaining::kOutputXorInput:
        for (int i = 0; i < 16; ++i) chain[i] = out[last + i] ^ in[last + i];
        break;
    }
}

// 77 blocks against the stored digest; then 13 blocks in place and 1 block
// against the start of that output, which the first step proved right.
bool check_mode(KatRun& run, const Sm4Engine& engine, const Sm4Key& key, const ModeAnswer& m,
                const std::vector<uint8_t>& message) {
    const ModeFn fn = engine.*m.member;
    if (fn == nullptr) return true;  // the provider's loop, checked with the engine's ecb
    const std::vector<uint8_t> want_digest = from_hex(m.sha256);
    std::vector<uint8_t> full(message.size());
    for (size_t n : {kBulkBlocks, kSmallBlocks, size_t{1}}) {
        std::vector<uint8_t> iv = from_hex(m.iv);
        std::vector<uint8_t> out(16 * n);
        if (n == kSmallBlocks) {
            std::memcpy(out.data(), message.data(), out.size());
            fn(&key, out.data(), out.data(), n, iv.data());  // in place
        } else {
            fn(&key, out.data(), message.data(), n, iv.data());
        }
        if (n == kBulkBlocks) {
            if (!run.expect_digest(m.check, n, out.data(), out.size(), want_digest.data())) return false;
            full = out;
        } else if (!run.expect(m.check, n, out.data(), full.data(), out.size())) {
            return false;
        }
        uint8_t chain[16];
        expected_chaining(m, n, message.data(), full.data(), chain);
        if (!run.expect(m.check, n, iv.data(), chain, 16)) return false;
    }
    return true;
}

bool check_ecb(KatRun& run, const Sm4Engine& engine, const Sm4Key& key, Sm4Direction direction,
               const std::vector<uint8_t>& message) {
    const bool decrypt = direction == Sm4Direction::kDecrypt;
    const char* check = decrypt ? "ecb decrypt" : "ecb";
    const std::vector<uint8_t> want_digest = from_hex(decrypt ? kEcbDecrypt : kEcbEncrypt);
    std::vector<uint8_t> full(message.size());
    engine.ecb(&key, direction, full.data(), message.data(), kBulkBlocks);
    if (!run.expect_digest(check, kBulkBlocks, full.data(), full.size(), want_digest.data())) return false;
    std::vector<uint8_t> small(message.begin(), message.begin() + 16 * kSmallBlocks);
    engine.ecb(&key, direction, small.data(), small.data(), kSmallBlocks);  // in place
    return run.expect(check, kSmallBlocks, small.data(), full.data(), small.size());
}

// The fused CCM body (Sm4Engine::ccm), 13 blocks each way from a counter
// about to carry: against the generic path over the same engine, whose ctr
// and cbc_encrypt (or ecb and encrypt_block) the checks before it proved.
bool check_ccm(KatRun& run, const Sm4Engine& engine, const Sm4Key& key, const std::vector<uint8_t>& message) {
    if (engine.ccm == nullptr) return true;
    for (Sm4Direction d : {Sm4Direction::kEncrypt, Sm4Direction::kDecrypt}) {
        const char* check = d == Sm4Direction::kDecrypt ? "ccm decrypt" : "ccm";
        std::vector<uint8_t> c1 = from_hex(kCounter), c2 = c1, m1 = from_hex(kIv), m2 = m1;
        std::vector<uint8_t> got(16 * kSmallBlocks), want(got.size());
        engine.ccm(&key, d, got.data(), message.data(), kSmallBlocks, c1.data(), m1.data());
        sm4_ccm_blocks_unfused(engine, &key, d, want.data(), message.data(), kSmallBlocks, c2.data(), m2.data());
        if (!run.expect(check, kSmallBlocks, got.data(), want.data(), got.size()) ||
            !run.expect(check, kSmallBlocks, c1.data(), c2.data(), 16) ||
            !run.expect(check, kSmallBlocks, m1.data(), m2.data(), 16))
            return false;
    }
    return true;
}

// The example: round keys, then one block each way through ecb and encrypt_block.
bool check_example(KatRun& run, const Sm4Engine& engine, Sm4Key& key) {
    const std::vector<uint8_t> plain = from_hex(kExampleKey);
    const std::vector<uint8_t> cipher = from_hex(kExampleCiphertext);
    engine.set_key(&key, plain.data());
    uint32_t reversed[32];
    for (int i = 0; i < 32; ++i) reversed[i] = kExampleRoundKeys[31 - i];
    if (!run.expect("set_key", 0, reinterpret_cast<const uint8_t*>(key.enc),
                    reinterpret_cast<const uint8_t*>(kExampleRoundKeys), sizeof key.enc) ||
        !run.expect("set_key", 0, reinterpret_cast<const uint8_t*>(key.dec),
                    reinterpret_cast<const uint8_t*>(reversed), sizeof key.dec))
        return false;
    uint8_t out[16];
    engine.encrypt_block(&key, out, plain.data());
    if (!run.expect("encrypt_block", 1, out, cipher.data(), 16)) return false;
    engine.ecb(&key, Sm4Direction::kEncrypt, out, plain.data(), 1);
    if (!run.expect("ecb", 1, out, cipher.data(), 16)) return false;
    engine.ecb(&key, Sm4Direction::kDecrypt, out, cipher.data(), 1);
    return run.expect("ecb decrypt", 1, out, plain.data(), 16);
}

// Two key schedules at once (Sm4Engine::set_key_pair, XTS's keys): the
// example key and its complement, against set_key on each (proved by
// check_example), every byte of both keys.
bool check_key_pair(KatRun& run, const Sm4Engine& engine) {
    if (engine.set_key_pair == nullptr) return true;
    std::vector<uint8_t> ka = from_hex(kExampleKey), kb = ka;
    for (uint8_t& b : kb) b = static_cast<uint8_t>(~b);
    Sm4Key pair_a{}, pair_b{}, single_a{}, single_b{};
    engine.set_key_pair(&pair_a, ka.data(), &pair_b, kb.data());
    engine.set_key(&single_a, ka.data());
    engine.set_key(&single_b, kb.data());
    return run.expect("set_key_pair", 0, reinterpret_cast<const uint8_t*>(&pair_a),
                      reinterpret_cast<const uint8_t*>(&single_a), sizeof pair_a) &&
           run.expect("set_key_pair", 0, reinterpret_cast<const uint8_t*>(&pair_b),
                      reinterpret_cast<const uint8_t*>(&single_b), sizeof pair_b);
}

}  // namespace

std::string sm4_known_answers(const Sm4Engine& engine) {
    KatRun run("sm4", engine.name);
    const std::vector<uint8_t> message = pattern(16 * kBulkBlocks);
    Sm4Key key;
    if (check_example(run, engine, key) && check_ecb(run, engine, key, Sm4Direction::kEncrypt, message) &&
        check_ecb(run, engine, key, Sm4Direction::kDecrypt, message)) {
        bool ok = true;
        for (const ModeAnswer& m : kModes)
            if (!(ok = check_mode(run, engine, key, m, message))) break;
        if (ok) ok = check_ccm(run, engine, key, message);
        if (ok) check_key_pair(run, engine);
    }
    return run.failure();  // the example key is public: nothing to wipe
}

}  // namespace hwaccel::selftest
