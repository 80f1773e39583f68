#include "digest_driver.hpp"

#include <fuzzer/FuzzedDataProvider.h>
#include <openssl/evp.h>

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "fuzz_support.hpp"

namespace hwaccel::fuzz {

namespace {

enum class Op : uint8_t { kUpdate, kLongUpdate, kCopy, kFinal, kFinalXof, kReinit, kEmptyUpdate, kMax = kEmptyUpdate };

constexpr size_t kMaxXof = 1000;
constexpr size_t kMaxLongUpdate = 4096;  // several bulk calls of every engine

// The same operations on ours and theirs.
struct Pair {
    EVP_MD_CTX* ours = EVP_MD_CTX_new();
    EVP_MD_CTX* theirs = EVP_MD_CTX_new();
    Pair() { check(ours && theirs, "EVP_MD_CTX_new"); }
    ~Pair() {
        EVP_MD_CTX_free(ours);
        EVP_MD_CTX_free(theirs);
    }
    Pair(const Pair&) = delete;
    Pair& operator=(const Pair&) = delete;
};

std::pair<EVP_MD*, EVP_MD*> fetched(const char* name) {
    static std::map<std::string, std::pair<EVP_MD*, EVP_MD*>> cache;
    auto it = cache.find(name);
    if (it == cache.end()) it = cache.emplace(name, std::make_pair(fetch_md(name, true), fetch_md(name, false))).first;
    return it->second;
}

void init(Pair& p, const std::pair<EVP_MD*, EVP_MD*>& md) {
    check(EVP_DigestInit_ex2(p.ours, md.first, nullptr) == 1, "init (hwaccel)");
    check(EVP_DigestInit_ex2(p.theirs, md.second, nullptr) == 1, "init (default)");
}

// Both finals, compared; XOFs with an explicit length when xoflen != 0.
void finish(Pair& p, bool xof_len_given, size_t xoflen) {
    uint8_t a[kMaxXof + 64], b[kMaxXof + 64];
    unsigned int la = 0, lb = 0;
    int ra, rb;
    if (xof_len_given) {
        ra = EVP_DigestFinalXOF(p.ours, a, xoflen);
        rb = EVP_DigestFinalXOF(p.theirs, b, xoflen);
        la = lb = static_cast<unsigned>(xoflen);
    } else {
        ra = EVP_DigestFinal_ex(p.ours, a, &la);
        rb = EVP_DigestFinal_ex(p.theirs, b, &lb);
    }
    check(ra == rb, "final: return codes differ");
    if (ra != 1) return;
    check(la == lb, "final: lengths differ");
    check_same(a, b, la, "final: digests differ");
}

}  // namespace

void run_digest_input(const std::vector<DigestChoice>& digests, const uint8_t* data, size_t size) {
    FuzzedDataProvider in(data, size);
    const DigestChoice& choice = digests[in.ConsumeIntegralInRange<size_t>(0, digests.size() - 1)];
    const auto md = fetched(choice.name);
    HWACCEL_FUZZ_TRACE("%s\n", choice.name);
    auto p = std::make_unique<Pair>();
    init(*p, md);
    std::vector<uint8_t> buf;
    while (in.remaining_bytes() != 0) {
        const auto op = static_cast<Op>(in.ConsumeIntegralInRange<uint8_t>(0, static_cast<uint8_t>(Op::kMax)));
        HWACCEL_FUZZ_TRACE("op %d\n", static_cast<int>(op));
        switch (op) {
            case Op::kUpdate: {
                // Ours in two fuzzer-chosen pieces, theirs in one.
                buf = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 600));
                const size_t cut = in.ConsumeIntegralInRange<size_t>(0, buf.size());
                check(EVP_DigestUpdate(p->ours, buf.data(), cut) == 1 &&
                          EVP_DigestUpdate(p->ours, buf.data() + cut, buf.size() - cut) == 1,
                      "update (hwaccel)");
                check(EVP_DigestUpdate(p->theirs, buf.data(), buf.size()) == 1, "update (default)");
                break;
            }
            case Op::kLongUpdate: {
                buf.resize(in.ConsumeIntegralInRange<size_t>(0, kMaxLongUpdate));
                fill_pattern(buf.data(), buf.size(), in.ConsumeIntegral<uint8_t>());
                check(EVP_DigestUpdate(p->ours, buf.data(), buf.size()) == 1, "long update (hwaccel)");
                check(EVP_DigestUpdate(p->theirs, buf.data(), buf.size()) == 1, "long update (default)");
                break;
            }
            case Op::kEmptyUpdate:
                check(EVP_DigestUpdate(p->ours, nullptr, 0) == 1, "empty update (hwaccel)");
                check(EVP_DigestUpdate(p->theirs, nullptr, 0) == 1, "empty update (default)");
                break;
            case Op::kCopy: {
                // EVP_MD_CTX_copy mid-stream; go on with the copy, and maybe
                // finish the original first (the two must not share state).
                auto copy = std::make_unique<Pair>();
                check(EVP_MD_CTX_copy_ex(copy->ours, p->ours) == 1, "copy (hwaccel)");
                check(EVP_MD_CTX_copy_ex(copy->theirs, p->theirs) == 1, "copy (default)");
                if (in.ConsumeBool()) finish(*p, false, 0);
                p = std::move(copy);
                break;
            }
            case Op::kFinal:
                finish(*p, false, 0);
                init(*p, md);
                break;
            case Op::kFinalXof:
                if (!choice.xof) break;
                finish(*p, true, in.ConsumeIntegralInRange<size_t>(0, kMaxXof));
                init(*p, md);
                break;
            case Op::kReinit:  // abandon the message
                init(*p, md);
                break;
        }
    }
    finish(*p, false, 0);
}

}  // namespace hwaccel::fuzz
