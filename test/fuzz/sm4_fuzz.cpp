// Differential fuzz target: SM4-ECB/CBC/CFB/OFB/CTR (hwaccel vs default).
// The fuzzer's bytes pick the mode, direction, padding, key and IV, then a
// sequence of operations: updates in chosen pieces (out of place or in
// place), EVP_Cipher, `num` set through params, EVP_CIPHER_CTX_copy
// mid-stream, final, re-init with or without a new key/IV. After every
// operation the output, the updated IV and `num` must match.
#include <fuzzer/FuzzedDataProvider.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>

#include <cstring>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

#include "fuzz_support.hpp"

namespace hwaccel::fuzz {
namespace {

enum class Op : uint8_t {
    kUpdate, kUpdateInPlace, kLongUpdate, kCipher, kSetNum, kCopy, kFinal, kReinit, kMax = kReinit
};

constexpr size_t kBlock = 16;
constexpr size_t kMaxLongUpdate = 4096;  // 256 blocks: every bulk path several times

struct Mode {
    const char* name;
    bool block;  // ECB/CBC: whole blocks, padding
};
constexpr size_t kCtr = 4;  // index in kModes
const Mode kModes[] = {{"SM4-ECB", true}, {"SM4-CBC", true}, {"SM4-CFB", false},
                       {"SM4-OFB", false}, {"SM4-CTR", false}};

struct Pair {
    EVP_CIPHER_CTX* ours = EVP_CIPHER_CTX_new();
    EVP_CIPHER_CTX* theirs = EVP_CIPHER_CTX_new();
    size_t pending = 0;  // bytes default holds back (block modes); in place is only defined at 0
    Pair() { check(ours && theirs, "EVP_CIPHER_CTX_new"); }
    ~Pair() {
        EVP_CIPHER_CTX_free(ours);
        EVP_CIPHER_CTX_free(theirs);
    }
    Pair(const Pair&) = delete;
    Pair& operator=(const Pair&) = delete;
};

std::pair<EVP_CIPHER*, EVP_CIPHER*> fetched(size_t mode) {
    static std::pair<EVP_CIPHER*, EVP_CIPHER*> cache[std::size(kModes)];
    if (cache[mode].first == nullptr)
        cache[mode] = {fetch_cipher(kModes[mode].name, true), fetch_cipher(kModes[mode].name, false)};
    return cache[mode];
}

// The updated IV and num read back from both.
void compare_registers(Pair& p) {
    uint8_t a[kBlock] = {0}, b[kBlock] = {0};
    const int ra = EVP_CIPHER_CTX_get_updated_iv(p.ours, a, sizeof a);
    const int rb = EVP_CIPHER_CTX_get_updated_iv(p.theirs, b, sizeof b);
    check(ra == rb, "updated IV: return codes differ");
    check_same(a, b, static_cast<size_t>(EVP_CIPHER_CTX_get_iv_length(p.theirs)), "updated IV differs");
    check(EVP_CIPHER_CTX_get_num(p.ours) == EVP_CIPHER_CTX_get_num(p.theirs), "num differs");
}

// One piece through one context, in place (in a buffer of its own) or not.
int update_piece(EVP_CIPHER_CTX* ctx, std::vector<uint8_t>& out, const uint8_t* in, size_t len,
                 bool in_place) {
    std::vector<uint8_t> place(in, in + len);
    place.resize(len + kBlock);
    int outl = 0;
    if (EVP_CipherUpdate(ctx, place.data(), &outl, in_place ? place.data() : in,
                         static_cast<int>(len)) != 1)
        return -1;
    out.insert(out.end(), place.begin(), place.begin() + outl);
    return 1;
}

// One update on each: ours in two fuzzer-chosen pieces, maybe in place;
// theirs in one, in place only where OpenSSL defines it (nothing buffered).
void update(Pair& p, const std::vector<uint8_t>& data, size_t cut, bool in_place) {
    std::vector<uint8_t> a, b;
    int ra = update_piece(p.ours, a, data.data(), cut, in_place);
    if (ra == 1) ra = update_piece(p.ours, a, data.data() + cut, data.size() - cut, in_place);
    const int rb = update_piece(p.theirs, b, data.data(), data.size(), in_place && p.pending == 0);
    check(ra == rb, "update: return codes differ");
    check(rb == 1, "update failed on both");  // always valid here: a failure would hide everything after it
    check(a.size() == b.size(), "update: output lengths differ");
    check_same(a.data(), b.data(), b.size(), "update: outputs differ");
    p.pending = p.pending + data.size() - b.size();
}

void init(Pair& p, const std::pair<EVP_CIPHER*, EVP_CIPHER*>& c, const uint8_t* key,
          const uint8_t* iv, int enc, int padding) {
    // The cipher only the first time: passing it again makes EVP start from
    // a fresh provider context, without the key.
    const bool first = EVP_CIPHER_CTX_get0_cipher(p.ours) == nullptr;
    const int ra = EVP_CipherInit_ex2(p.ours, first ? c.first : nullptr, key, iv, enc, nullptr);
    const int rb = EVP_CipherInit_ex2(p.theirs, first ? c.second : nullptr, key, iv, enc, nullptr);
    check(ra == rb, "init: return codes differ");
    if (padding >= 0) {
        check(EVP_CIPHER_CTX_set_padding(p.ours, padding) == EVP_CIPHER_CTX_set_padding(p.theirs, padding),
              "set_padding: return codes differ");
    }
    p.pending = 0;
}

void run(const uint8_t* data, size_t size) {
    FuzzedDataProvider in(data, size);
    const size_t mode = in.ConsumeIntegralInRange<size_t>(0, std::size(kModes) - 1);
    const bool block = kModes[mode].block;
    const auto c = fetched(mode);
    int enc = in.ConsumeBool();
    HWACCEL_FUZZ_TRACE("%s enc=%d\n", kModes[mode].name, enc);
    uint8_t key[kBlock], iv[kBlock];
    in.ConsumeData(key, sizeof key);
    in.ConsumeData(iv, sizeof iv);
    auto p = std::make_unique<Pair>();
    init(*p, c, key, iv, enc, in.ConsumeBool());
    std::vector<uint8_t> buf;
    while (in.remaining_bytes() != 0) {
        const auto op = static_cast<Op>(in.ConsumeIntegralInRange<uint8_t>(0, static_cast<uint8_t>(Op::kMax)));
        HWACCEL_FUZZ_TRACE("op %d\n", static_cast<int>(op));
        switch (op) {
            case Op::kUpdate:
            case Op::kUpdateInPlace: {
                const bool in_place = in.ConsumeBool();
                buf = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 700));
                update(*p, buf, in.ConsumeIntegralInRange<size_t>(0, buf.size()), in_place);
                break;
            }
            case Op::kLongUpdate: {
                buf.resize(in.ConsumeIntegralInRange<size_t>(0, kMaxLongUpdate));
                fill_pattern(buf.data(), buf.size(), in.ConsumeIntegral<uint8_t>());
                update(*p, buf, in.ConsumeIntegralInRange<size_t>(0, buf.size()), in.ConsumeBool());
                break;
            }
            case Op::kCipher: {
                // EVP_Cipher: no buffering; whole blocks in the block modes.
                size_t len = in.ConsumeIntegralInRange<size_t>(0, 1200);
                if (block) len -= len % kBlock;
                buf.resize(len);
                fill_pattern(buf.data(), len, in.ConsumeIntegral<uint8_t>());
                std::vector<uint8_t> a = buf, b(len + kBlock);
                const bool in_place = in.ConsumeBool();
                const int ra = EVP_Cipher(p->ours, a.data(), in_place ? a.data() : buf.data(),
                                          static_cast<unsigned>(len));
                const int rb = EVP_Cipher(p->theirs, b.data(), buf.data(), static_cast<unsigned>(len));
                check(ra == rb, "EVP_Cipher: return codes differ");
                check(rb == static_cast<int>(len), "EVP_Cipher failed on both");
                check_same(a.data(), b.data(), len, "EVP_Cipher: outputs differ");
                break;
            }
            case Op::kSetNum: {
                // CTR: only while a keystream block is live (num != 0). At a
                // block boundary default would reuse whatever its buffer
                // holds (a block of an earlier message, or none): not a
                // semantics two implementations can share.
                if (mode == kCtr && EVP_CIPHER_CTX_get_num(p->theirs) == 0) break;
                unsigned num = in.ConsumeIntegralInRange<unsigned>(0, kBlock - 1);
                OSSL_PARAM params[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &num), OSSL_PARAM_END};
                const int ra = EVP_CIPHER_CTX_set_params(p->ours, params);
                const int rb = EVP_CIPHER_CTX_set_params(p->theirs, params);
                check(ra == rb, "set num: return codes differ");
                check(rb == 1, "set num failed on both");
                break;
            }
            case Op::kCopy: {
                auto copy = std::make_unique<Pair>();
                check(EVP_CIPHER_CTX_copy(copy->ours, p->ours) == 1, "copy (hwaccel)");
                check(EVP_CIPHER_CTX_copy(copy->theirs, p->theirs) == 1, "copy (default)");
                copy->pending = p->pending;
                if (in.ConsumeBool()) {  // the original goes on too, and must not touch the copy
                    buf = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 100));
                    update(*p, buf, buf.size(), false);
                }
                p = std::move(copy);
                break;
            }
            case Op::kFinal: {
                uint8_t a[2 * kBlock], b[2 * kBlock];
                int la = 0, lb = 0;
                const int ra = EVP_CipherFinal_ex(p->ours, a, &la);
                const int rb = EVP_CipherFinal_ex(p->theirs, b, &lb);
                check(ra == rb, "final: return codes differ");
                if (ra == 1) {
                    check(la == lb, "final: lengths differ");
                    check_same(a, b, static_cast<size_t>(la), "final: outputs differ");
                }
                init(*p, c, nullptr, nullptr, enc, -1);  // a new message, same key and IV
                break;
            }
            case Op::kReinit: {
                uint8_t what = in.ConsumeIntegral<uint8_t>();
                // A new direction in ECB/CBC comes with a key: default keeps
                // the old direction's key schedule otherwise (wrong output;
                // hwaccel's is right), a difference we do not fuzz.
                if (block && (what & 4)) what |= 1;
                HWACCEL_FUZZ_TRACE("reinit %#x\n", what);
                if (what & 1) in.ConsumeData(key, sizeof key);
                if (what & 2) in.ConsumeData(iv, sizeof iv);
                if (what & 4) enc = !enc;
                init(*p, c, what & 1 ? key : nullptr, what & 2 ? iv : nullptr, enc,
                     what & 8 ? (what >> 4) & 1 : -1);
                break;
            }
        }
        compare_registers(*p);
    }
}

}  // namespace
}  // namespace hwaccel::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    hwaccel::fuzz::providers();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    hwaccel::fuzz::run(data, size);
    return 0;
}
