// Threads racing on what the provider initialises lazily or shares: every
// thread is held at a start line so their first calls collide. The suite of
// the ThreadSanitizer job (scripts/tsan.sh); plain builds run it too.
//
// [first-use] must be the first thing its process does with hwaccel (CTest
// runs it alone): CPU detection, the once-per-process self-test results, the
// core allocator choice, the OpenSSL version and each file's AVX-512 probe
// are then all first reached by 8 threads at once, half of them loading
// hwaccel into one shared library context, half into their own.
// [reload] then loads and unloads hwaccel, in the shared context and in
// private ones, while other threads use it.
//
// Each thread fetches, makes contexts, duplicates them mid-message (dupctx),
// finishes both copies and frees them, for SHA-256, SHA3-256, SHAKE128,
// SM4-CTR (all against the default provider's answers, computed before the
// threads start), SM4-GCM and SM4-XTS (against RFC 8998 / GB/T 17964-2021:
// OpenSSL 3.0's default provider has neither). Threads never call Catch2
// (not thread-safe): they count failures and keep the first one's text.
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "provider_fixture.hpp"

using namespace hwaccel::test;
using Bytes = std::vector<unsigned char>;

namespace {

constexpr int kThreads = 8;
const char* const kDigests[] = {"SHA2-256", "SHA3-256", "SHAKE-128"};
constexpr size_t kXofLength = 40;

Bytes hex(const char* s) {
    Bytes out;
    auto nibble = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
    for (; s[0] && s[1]; s += 2) out.push_back(static_cast<unsigned char>(nibble(s[0]) << 4 | nibble(s[1])));
    return out;
}

// RFC 8998's SM4-GCM vector and GB/T 17964-2021's SM4-XTS one (the default
// "xts_standard" GB), as in test/vectors/sm4/evpciph_sm4-openssl-4.0.txt.
struct Kat {
    Bytes key, iv, aad, plain, cipher, tag;
};
const Kat& gcm_kat() {
    static const Kat k{hex("0123456789abcdeffedcba9876543210"), hex("00001234567800000000abcd"),
                       hex("feedfacedeadbeeffeedfacedeadbeefabaddad2"),
                       hex("aaaaaaaaaaaaaaaabbbbbbbbbbbbbbbbccccccccccccccccdddddddddddddddd"
                           "eeeeeeeeeeeeeeeeffffffffffffffffeeeeeeeeeeeeeeeeaaaaaaaaaaaaaaaa"),
                       hex("17f399f08c67d5ee19d0dc9969c4bb7d5fd46fd3756489069157b282bb200735"
                           "d82710ca5c22f0ccfa7cbf93d496ac15a56834cbcf98c397b4024a2691233b8d"),
                       hex("83de3541e4c2b58177e065a9bf7b62ec")};
    return k;
}
const Kat& xts_kat() {
    static const Kat k{hex("2B7E151628AED2A6ABF7158809CF4F3C000102030405060708090A0B0C0D0E0F"),
                       hex("F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF"), {},
                       hex("6BC1BEE22E409F96E93D7E117393172AAE2D8A571E03AC9C9EB76FAC45AF8E51"
                           "30C81C46A35CE411E5FBC1191A0A52EFF69F2445DF4F9B17"),
                       hex("E9538251C71D7B80BBE4483FEF497BD12C5C581BD6242FC51E08964FB4F60FDB"
                           "0BA42F63499279213D318D2C11F6886E903BE7F93A1B3479"),
                       {}};
    return k;
}

// The default provider's answers for the digests and SM4-CTR, over a few
// messages; computed on the main thread before any thread starts.
struct Expected {
    std::vector<Bytes> msgs;
    Bytes key, iv;
    std::vector<std::vector<Bytes>> md;  // [digest][msg]
    std::vector<Bytes> ctr;              // [msg]
};

// One thread's tally.
struct Tally {
    int failures = 0;
    std::string first;
    void fail(const std::string& what) {
        if (failures++ == 0) first = what;
    }
};

bool is_hwaccel(const OSSL_PROVIDER* p) {
    return p != nullptr && std::string(OSSL_PROVIDER_get0_name(p)) == "hwaccel";
}

// Hashes msg with md (properties decide the provider), duplicating the
// context after the first half; both copies must give `want` (empty: just
// return what the original gave).
Bytes hash_with_dup(const EVP_MD* md, const Bytes& msg, const Bytes& want, Tally& t) {
    EVP_MD_CTX* a = EVP_MD_CTX_new();
    EVP_MD_CTX* b = EVP_MD_CTX_new();
    bool xof = (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF) != 0;
    size_t n = xof ? kXofLength : static_cast<size_t>(EVP_MD_get_size(md));
    Bytes out_a(n), out_b(n);
    size_t half = msg.size() / 2;
    bool ok = a && b && EVP_DigestInit_ex(a, md, nullptr) == 1 &&
              EVP_DigestUpdate(a, msg.data(), half) == 1 && EVP_MD_CTX_copy_ex(b, a) == 1;
    for (EVP_MD_CTX* c : {a, b}) {
        Bytes& out = c == a ? out_a : out_b;
        ok = ok && EVP_DigestUpdate(c, msg.data() + half, msg.size() - half) == 1 &&
             (xof ? EVP_DigestFinalXOF(c, out.data(), n) : EVP_DigestFinal_ex(c, out.data(), nullptr)) == 1;
    }
    EVP_MD_CTX_free(b);
    EVP_MD_CTX_free(a);
    const std::string name = EVP_MD_get0_name(md);
    if (!ok) t.fail(name + ": an EVP call failed");
    else if (out_a != out_b) t.fail(name + ": the duplicated context differs");
    else if (!want.empty() && out_a != want) t.fail(name + ": differs from the default provider");
    return out_a;
}

// Runs `in` through a cipher context in two updates, duplicating the context
// between them; the original's output, after checking the copy's matches.
Bytes crypt_with_dup(const EVP_CIPHER* c, const Kat& k, bool enc, const Bytes& in, size_t split,
                     Bytes* tag, Tally& t) {
    const std::string name = EVP_CIPHER_get0_name(c);
    EVP_CIPHER_CTX* a = EVP_CIPHER_CTX_new();
    EVP_CIPHER_CTX* b = EVP_CIPHER_CTX_new();
    bool aead = (EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER) != 0;
    Bytes out_a(in.size() + 16), out_b(in.size() + 16), tag_b(16);
    int n1 = 0, n2 = 0, n3 = 0, m2 = 0, m3 = 0, ignored = 0;
    bool ok = a && b && EVP_CipherInit_ex2(a, c, nullptr, nullptr, enc ? 1 : 0, nullptr) == 1;
    if (aead) ok = ok && EVP_CIPHER_CTX_ctrl(a, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(k.iv.size()), nullptr) == 1;
    ok = ok && EVP_CipherInit_ex2(a, nullptr, k.key.data(), k.iv.data(), enc ? 1 : 0, nullptr) == 1;
    if (aead && !k.aad.empty())
        ok = ok && EVP_CipherUpdate(a, nullptr, &ignored, k.aad.data(), static_cast<int>(k.aad.size())) == 1;
    if (aead && !enc && tag)
        ok = ok && EVP_CIPHER_CTX_ctrl(a, EVP_CTRL_AEAD_SET_TAG, 16, tag->data()) == 1;
    if (split != 0)
        ok = ok && EVP_CipherUpdate(a, out_a.data(), &n1, in.data(), static_cast<int>(split)) == 1;
    ok = ok && EVP_CIPHER_CTX_copy(b, a) == 1;
    if (ok) std::copy(out_a.begin(), out_a.begin() + n1, out_b.begin());
    const int rest = static_cast<int>(in.size() - split);
    ok = ok && EVP_CipherUpdate(a, out_a.data() + n1, &n2, in.data() + split, rest) == 1 &&
         EVP_CipherUpdate(b, out_b.data() + n1, &m2, in.data() + split, rest) == 1 &&
         EVP_CipherFinal_ex(a, out_a.data() + n1 + n2, &n3) == 1 &&
         EVP_CipherFinal_ex(b, out_b.data() + n1 + m2, &m3) == 1;
    if (ok && aead && enc && tag) {
        tag->resize(16);
        ok = EVP_CIPHER_CTX_ctrl(a, EVP_CTRL_AEAD_GET_TAG, 16, tag->data()) == 1 &&
             EVP_CIPHER_CTX_ctrl(b, EVP_CTRL_AEAD_GET_TAG, 16, tag_b.data()) == 1;
        if (ok && *tag != tag_b) t.fail(name + ": the duplicated context's tag differs");
    }
    EVP_CIPHER_CTX_free(b);
    EVP_CIPHER_CTX_free(a);
    if (!ok) {
        t.fail(name + (enc ? ": encryption" : ": decryption") + " failed");
        return {};
    }
    out_a.resize(n1 + n2 + n3);
    out_b.resize(n1 + m2 + m3);
    if (out_a != out_b) t.fail(name + ": the duplicated context's output differs");
    return out_a;
}

// Everything once in `ctx`, fetching from hwaccel there.
void exercise(OSSL_LIB_CTX* ctx, const Expected& want, Tally& t) {
    for (size_t d = 0; d < std::size(kDigests); ++d) {
        EVP_MD* md = EVP_MD_fetch(ctx, kDigests[d], "provider=hwaccel");
        if (!md || !is_hwaccel(EVP_MD_get0_provider(md))) {
            t.fail(std::string("fetching ") + kDigests[d] + " from hwaccel failed");
            EVP_MD_free(md);
            continue;
        }
        for (size_t m = 0; m < want.msgs.size(); ++m) hash_with_dup(md, want.msgs[m], want.md[d][m], t);
        EVP_MD_free(md);
    }
    auto fetch = [&](const char* name) {
        EVP_CIPHER* c = EVP_CIPHER_fetch(ctx, name, "provider=hwaccel");
        if (!c || !is_hwaccel(EVP_CIPHER_get0_provider(c))) {
            t.fail(std::string("fetching ") + name + " from hwaccel failed");
            EVP_CIPHER_free(c);
            return static_cast<EVP_CIPHER*>(nullptr);
        }
        return c;
    };
    if (EVP_CIPHER* ctr = fetch("SM4-CTR")) {
        Kat k{want.key, want.iv, {}, {}, {}, {}};
        for (size_t m = 0; m < want.msgs.size(); ++m) {
            const Bytes& msg = want.msgs[m];
            if (crypt_with_dup(ctr, k, true, msg, msg.size() / 3, nullptr, t) != want.ctr[m])
                t.fail("SM4-CTR: differs from the default provider");
            if (crypt_with_dup(ctr, k, false, want.ctr[m], msg.size() / 2, nullptr, t) != msg)
                t.fail("SM4-CTR: decryption differs");
        }
        EVP_CIPHER_free(ctr);
    }
    if (EVP_CIPHER* gcm = fetch("SM4-GCM")) {
        const Kat& k = gcm_kat();
        Bytes tag;
        if (crypt_with_dup(gcm, k, true, k.plain, 40, &tag, t) != k.cipher || tag != k.tag)
            t.fail("SM4-GCM: encryption differs from RFC 8998");
        tag = k.tag;
        if (crypt_with_dup(gcm, k, false, k.cipher, 17, &tag, t) != k.plain)
            t.fail("SM4-GCM: decryption differs from RFC 8998");
        EVP_CIPHER_free(gcm);
    }
    if (EVP_CIPHER* xts = fetch("SM4-XTS")) {
        // One update per data unit (XTS): the copy is made right after init.
        const Kat& k = xts_kat();
        if (crypt_with_dup(xts, k, true, k.plain, 0, nullptr, t) != k.cipher)
            t.fail("SM4-XTS: encryption differs from GB/T 17964-2021");
        if (crypt_with_dup(xts, k, false, k.cipher, 0, nullptr, t) != k.plain)
            t.fail("SM4-XTS: decryption differs from GB/T 17964-2021");
        EVP_CIPHER_free(xts);
    }
}

Expected expected_from_default() {
    Expected e;
    unsigned char x = 0x5a;
    for (size_t len : {0, 1, 63, 64, 65, 200, 1000}) {
        Bytes m(len);
        for (auto& b : m) b = x = static_cast<unsigned char>(x * 73 + 41);
        e.msgs.push_back(m);
    }
    e.key = hex("000102030405060708090a0b0c0d0e0f");
    e.iv = hex("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff");
    Tally t;
    for (const char* name : kDigests) {
        MdPtr md(EVP_MD_fetch(nullptr, name, "provider=default"));
        REQUIRE(md != nullptr);
        e.md.emplace_back();
        for (const Bytes& m : e.msgs) e.md.back().push_back(hash_with_dup(md.get(), m, {}, t));
    }
    CipherPtr ctr(EVP_CIPHER_fetch(nullptr, "SM4-CTR", "provider=default"));
    REQUIRE(ctr != nullptr);
    Kat k{e.key, e.iv, {}, {}, {}, {}};
    for (const Bytes& m : e.msgs) e.ctr.push_back(crypt_with_dup(ctr.get(), k, true, m, 0, nullptr, t));
    INFO(t.first);
    REQUIRE(t.failures == 0);
    return e;
}

// Holds every thread until all are ready, then lets them go at once (a spin
// rather than a condition variable, so the first calls really coincide).
class StartLine {
public:
    explicit StartLine(int n) : n_(n) {}
    void arrive_and_wait() {
        ready_.fetch_add(1, std::memory_order_acq_rel);
        while (!go_.load(std::memory_order_acquire)) std::this_thread::yield();
    }
    void open_when_all_ready() {
        while (ready_.load(std::memory_order_acquire) < n_) std::this_thread::yield();
        go_.store(true, std::memory_order_release);
    }

private:
    const int n_;
    std::atomic<int> ready_{0};
    std::atomic<bool> go_{false};
};

// A library context that finds hwaccel.so in the build tree.
OSSL_LIB_CTX* new_libctx() {
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    if (ctx) OSSL_PROVIDER_set_default_search_path(ctx, HWACCEL_MODULE_DIR);
    return ctx;
}

void check(const std::vector<Tally>& tallies) {
    for (size_t i = 0; i < tallies.size(); ++i) {
        INFO("thread " << i << ": " << tallies[i].failures << " failures, the first: " << tallies[i].first);
        CHECK(tallies[i].failures == 0);
    }
}

// kThreads threads released together from a start line, thread i running
// body(i, its tally); then every tally checked.
template <typename Body>
void run_together(Body body) {
    StartLine start(kThreads);
    std::vector<Tally> tallies(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back([&, i] {
            start.arrive_and_wait();
            body(i, tallies[i]);
        });
    start.open_when_all_ready();
    for (auto& th : threads) th.join();
    check(tallies);
}

}  // namespace

TEST_CASE("8 threads' first calls collide: loads in a shared and in own library contexts",
          "[first-use]") {
    const Expected want = expected_from_default();
    OSSL_LIB_CTX* shared = new_libctx();
    REQUIRE(shared != nullptr);
    // The shared context's instances are unloaded only after every thread is
    // done, so the module stays mapped throughout: were all instances gone
    // while a thread loads it again, the loader would unmap and map it at the
    // same address, ordered by its own lock, which TSan does not see; the
    // module's static initialisers and its first-use caches would then show
    // as races with the accesses before the unmapping (seen once, under load).
    std::vector<OSSL_PROVIDER*> shared_instances(kThreads, nullptr);
    run_together([&](int i, Tally& t) {
        const bool own = i % 2 == 1;
        OSSL_LIB_CTX* ctx = own ? new_libctx() : shared;
        OSSL_PROVIDER* prov = ctx ? OSSL_PROVIDER_load(ctx, "hwaccel") : nullptr;
        if (!is_hwaccel(prov)) t.fail("loading hwaccel failed");
        else
            for (int round = 0; round < 10; ++round) exercise(ctx, want, t);
        if (own) {
            if (prov) OSSL_PROVIDER_unload(prov);
            OSSL_LIB_CTX_free(ctx);
        } else {
            shared_instances[i] = prov;
        }
    });
    for (OSSL_PROVIDER* prov : shared_instances)
        if (prov) OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(shared);
}

TEST_CASE("hwaccel loads and unloads while other threads use it", "[reload]") {
    const Expected want = expected_from_default();
    OSSL_LIB_CTX* shared = new_libctx();
    REQUIRE(shared != nullptr);
    // Held throughout, so the module stays mapped and the shared context
    // keeps one activated instance while the others come and go.
    OSSL_PROVIDER* held = OSSL_PROVIDER_load(shared, "hwaccel");
    REQUIRE(is_hwaccel(held));
    run_together([&](int i, Tally& t) {
        for (int round = 0; round < 10; ++round) {
            if (i < 4) {
                // Users of the shared instance, fetching anew each round.
                exercise(shared, want, t);
            } else if (i < 6) {
                // Another reference to the shared instance, taken and dropped.
                OSSL_PROVIDER* p = OSSL_PROVIDER_load(shared, "hwaccel");
                if (!is_hwaccel(p)) t.fail("loading hwaccel again failed");
                else exercise(shared, want, t);
                if (p) OSSL_PROVIDER_unload(p);
            } else {
                // A whole instance of its own: init and teardown while
                // the shared one serves.
                OSSL_LIB_CTX* own = new_libctx();
                OSSL_PROVIDER* p = own ? OSSL_PROVIDER_load(own, "hwaccel") : nullptr;
                if (!is_hwaccel(p)) t.fail("loading hwaccel in an own context failed");
                else exercise(own, want, t);
                if (p) OSSL_PROVIDER_unload(p);
                OSSL_LIB_CTX_free(own);
            }
        }
    });
    OSSL_PROVIDER_unload(held);
    OSSL_LIB_CTX_free(shared);
}

