// Load: 32 threads over shared fetched algorithms under every engine
// selection, fork() after use with the child carrying on, and load/unload
// cycles of several library contexts with different engine overrides.
// (digest_evp_test.cpp has 8 threads over one digest at a time with the
// automatic selection; loading_test.cpp two contexts reloaded three times.)
#include <openssl/err.h>
#include <openssl/evp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hwaccel/registry.hpp"
#include "provider_fixture.hpp"

using namespace hwaccel::test;
using Bytes = std::vector<unsigned char>;

namespace {

const char* const kModes[] = {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB", "SM4-CTR"};
constexpr int kThreads = 32;
constexpr size_t kXofLength = 48;

Bytes random_bytes(std::mt19937_64& rng, size_t n) {
    Bytes b(n);
    for (auto& x : b) x = static_cast<unsigned char>(rng());
    return b;
}

// One-shot digest in two updates (kXofLength bytes for an XOF); empty on failure.
Bytes digest(const EVP_MD* md, const Bytes& msg) {
    MdCtxPtr ctx(EVP_MD_CTX_new());
    size_t half = msg.size() / 2;
    if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1 ||
        EVP_DigestUpdate(ctx.get(), msg.data(), half) != 1 ||
        EVP_DigestUpdate(ctx.get(), msg.data() + half, msg.size() - half) != 1)
        return {};
    bool xof = (EVP_MD_get_flags(md) & EVP_MD_FLAG_XOF) != 0;
    Bytes out(xof ? kXofLength : static_cast<size_t>(EVP_MD_get_size(md)));
    int ok = xof ? EVP_DigestFinalXOF(ctx.get(), out.data(), out.size())
                 : EVP_DigestFinal_ex(ctx.get(), out.data(), nullptr);
    return ok == 1 ? out : Bytes{};
}

// Encrypts or decrypts in two updates; empty on failure (inputs are never empty).
Bytes crypt(const EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& iv, const Bytes& in) {
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    if (!ctx || EVP_CipherInit_ex2(ctx.get(), c, key.data(), iv.data(), enc ? 1 : 0, nullptr) != 1) return {};
    Bytes out(in.size() + 32);
    int n1 = 0, n2 = 0, n3 = 0;
    int half = static_cast<int>(in.size() / 2);
    if (EVP_CipherUpdate(ctx.get(), out.data(), &n1, in.data(), half) != 1 ||
        EVP_CipherUpdate(ctx.get(), out.data() + n1, &n2, in.data() + half, static_cast<int>(in.size()) - half) != 1 ||
        EVP_CipherFinal_ex(ctx.get(), out.data() + n1 + n2, &n3) != 1)
        return {};
    out.resize(n1 + n2 + n3);
    return out;
}

// Every algorithm hwaccel serves, fetched once from it, with messages and
// the default provider's answers.
struct Workload {
    std::vector<MdPtr> mds;
    std::vector<CipherPtr> ciphers;
    std::vector<Bytes> msgs;
    Bytes key, iv;
    std::vector<std::vector<Bytes>> md_want;       // [md][msg]
    std::vector<std::vector<Bytes>> ct_want;       // [cipher][msg]

    explicit Workload(const LoadedProvider& prov, unsigned seed = 7) {
        std::mt19937_64 rng(seed);
        for (size_t len : {1, 15, 16, 100, 257, 1024, 1500, 4099}) msgs.push_back(random_bytes(rng, len));
        key = random_bytes(rng, 16);
        iv = random_bytes(rng, 16);
        for (const auto& d : all_digests()) {
            mds.push_back(prov.md(d.name));
            MdPtr theirs = prov.default_md(d.name);
            md_want.emplace_back();
            for (const auto& m : msgs) md_want.back().push_back(digest(theirs.get(), m));
        }
        for (const char* mode : kModes) {
            ciphers.push_back(prov.cipher(mode));
            CipherPtr theirs = prov.default_cipher(mode);
            ct_want.emplace_back();
            for (const auto& m : msgs) ct_want.back().push_back(crypt(theirs.get(), true, key, iv, m));
        }
    }

    // Everything once, starting at a different algorithm per caller; returns
    // the number of wrong or failed results.
    int run(size_t start) const {
        int bad = 0;
        for (size_t k = 0; k < mds.size(); ++k) {
            size_t i = (start + k) % mds.size();
            for (size_t m = 0; m < msgs.size(); ++m)
                if (digest(mds[i].get(), msgs[m]) != md_want[i][m]) ++bad;
        }
        for (size_t k = 0; k < ciphers.size(); ++k) {
            size_t i = (start + k) % ciphers.size();
            for (size_t m = 0; m < msgs.size(); ++m) {
                if (crypt(ciphers[i].get(), true, key, iv, msgs[m]) != ct_want[i][m]) ++bad;
                if (crypt(ciphers[i].get(), false, key, iv, ct_want[i][m]) != msgs[m]) ++bad;
            }
        }
        return bad;
    }
};

// Lets all threads start their work at once.
class StartLine {
public:
    void wait() {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [&] { return go_; });
    }
    void open() {
        {
            std::lock_guard<std::mutex> lock(m_);
            go_ = true;
        }
        cv_.notify_all();
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    bool go_ = false;
};

// The engines param without the notes in parentheses: "sha1=x,sha256=y,...".
std::string engines_without_notes(const std::string& text) {
    std::string out;
    int depth = 0;
    for (char ch : text) {
        if (ch == '(') ++depth;
        else if (ch == ')') --depth;
        else if (depth == 0 && ch != ' ') out += ch;
    }
    return out;
}

// What an override should select on this CPU.
std::string expected_engines(const std::string& spec) {
    const auto& cpu = hwaccel::cpu_features();
    hwaccel::Selection sel = hwaccel::best_selection(cpu);
    std::string error;
    REQUIRE(hwaccel::apply_overrides(sel, spec.c_str(), cpu, error));
    return hwaccel::describe(sel);
}

}  // namespace

TEST_CASE("32 threads share fetched algorithms, every engine selection", "[load][threads]") {
    for (const std::string& sel : engine_selections()) {
        INFO("HWACCEL_ENGINES=" << sel);
        LoadedProvider prov(sel);
        CHECK(engines_without_notes(prov.engines()) == expected_engines(sel));
        Workload work(prov);
        StartLine start;
        std::vector<int> bad(kThreads, 0);
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                start.wait();
                for (int round = 0; round < 2; ++round) bad[t] += work.run(t + round);
            });
        start.open();
        for (auto& th : threads) th.join();
        for (int t = 0; t < kThreads; ++t) {
            INFO("thread " << t);
            CHECK(bad[t] == 0);
        }
    }
}

TEST_CASE("fork after use: the child carries on hashing and encrypting", "[load][fork]") {
    LoadedProvider prov;
    Workload work(prov);
    // Used by threads first, so the fork inherits a provider that has served.
    std::vector<std::thread> threads;
    std::vector<int> bad(4, 0);
    for (int t = 0; t < 4; ++t) threads.emplace_back([&, t] { bad[t] = work.run(t); });
    for (auto& th : threads) th.join();
    for (int b : bad) REQUIRE(b == 0);

    // Contexts mid-message at the fork: both sides finish them.
    const Bytes& msg = work.msgs[6];
    std::vector<MdCtxPtr> open_mds;
    for (const auto& md : work.mds) {
        open_mds.emplace_back(EVP_MD_CTX_new());
        REQUIRE(EVP_DigestInit_ex(open_mds.back().get(), md.get(), nullptr) == 1);
        REQUIRE(EVP_DigestUpdate(open_mds.back().get(), msg.data(), 700) == 1);
    }
    std::vector<CipherCtxPtr> open_ciphers;
    std::vector<Bytes> cipher_heads;
    for (const auto& c : work.ciphers) {
        open_ciphers.emplace_back(EVP_CIPHER_CTX_new());
        REQUIRE(EVP_CipherInit_ex2(open_ciphers.back().get(), c.get(), work.key.data(), work.iv.data(), 1, nullptr) == 1);
        Bytes head(700 + 16);
        int n = 0;
        REQUIRE(EVP_CipherUpdate(open_ciphers.back().get(), head.data(), &n, msg.data(), 700) == 1);
        head.resize(n);
        cipher_heads.push_back(head);
    }
    // Finishes the open contexts; returns the number of wrong results.
    auto finish_open = [&]() {
        int wrong = 0;
        for (size_t i = 0; i < open_mds.size(); ++i) {
            EVP_MD_CTX* ctx = open_mds[i].get();
            bool xof = (EVP_MD_get_flags(work.mds[i].get()) & EVP_MD_FLAG_XOF) != 0;
            Bytes out(xof ? kXofLength : static_cast<size_t>(EVP_MD_get_size(work.mds[i].get())));
            bool ok = EVP_DigestUpdate(ctx, msg.data() + 700, msg.size() - 700) == 1 &&
                      (xof ? EVP_DigestFinalXOF(ctx, out.data(), out.size())
                           : EVP_DigestFinal_ex(ctx, out.data(), nullptr)) == 1;
            if (!ok || out != work.md_want[i][6]) ++wrong;
        }
        for (size_t i = 0; i < open_ciphers.size(); ++i) {
            Bytes out = cipher_heads[i];
            size_t at = out.size();
            out.resize(at + msg.size());
            int n = 0, m = 0;
            bool ok = EVP_CipherUpdate(open_ciphers[i].get(), out.data() + at, &n, msg.data() + 700,
                                       static_cast<int>(msg.size() - 700)) == 1 &&
                      EVP_CipherFinal_ex(open_ciphers[i].get(), out.data() + at + n, &m) == 1;
            out.resize(at + n + m);
            if (!ok || out != work.ct_want[i][6]) ++wrong;
        }
        return wrong;
    };

    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        // No Catch2 in the child: the verdict is the exit code.
        int wrong = finish_open();
        // New contexts, several threads, a fresh provider load as well.
        std::vector<std::thread> ts;
        std::vector<int> b(4, 0);
        for (int t = 0; t < 4; ++t) ts.emplace_back([&, t] { b[t] = work.run(t); });
        for (auto& th : ts) th.join();
        for (int x : b) wrong += x;
        try {
            LoadedProvider again("all=generic");
            Workload w2(again);
            wrong += w2.run(0);
        } catch (...) {
            ++wrong;
        }
        _exit(wrong == 0 ? 0 : 10 + (wrong > 100 ? 100 : wrong));
    }
    CHECK(finish_open() == 0);  // the parent finishes its own copies
    CHECK(work.run(3) == 0);
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    INFO("child status " << status);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("load and unload in several library contexts with different engine overrides", "[load][reload]") {
    std::vector<std::string> sels = engine_selections();
    sels.push_back("all=generic");
    // Rounds rotate which override each of four contexts gets and the order
    // in which they are unloaded; every context must report its own engines
    // and compute right results while the others come and go.
    const size_t kContexts = 4;
    for (size_t round = 0; round < 2 * sels.size(); ++round) {
        std::vector<std::unique_ptr<LoadedProvider>> live;
        std::vector<std::string> specs;
        for (size_t c = 0; c < kContexts; ++c) {
            specs.push_back(sels[(round + c * 3) % sels.size()]);
            live.push_back(std::make_unique<LoadedProvider>(specs.back()));
        }
        for (size_t c = 0; c < kContexts; ++c) {
            INFO("round " << round << ", context " << c << ": HWACCEL_ENGINES=" << specs[c]);
            CHECK(engines_without_notes(live[c]->engines()) == expected_engines(specs[c]));
            Workload work(*live[c], static_cast<unsigned>(round * 10 + c));
            CHECK(work.run(round) == 0);
        }
        // Unload in a rotating order, checking the survivors after each.
        for (size_t k = 0; k < kContexts; ++k) {
            size_t victim = (round + k) % live.size();
            live.erase(live.begin() + victim);
            specs.erase(specs.begin() + victim);
            if (!live.empty()) {
                size_t probe = round % live.size();
                INFO("after an unload, HWACCEL_ENGINES=" << specs[probe]);
                MdPtr md = live[probe]->md("SHA2-256");
                MdPtr ref = live[probe]->default_md("SHA2-256");
                Bytes m(333, static_cast<unsigned char>(round));
                CHECK(digest(md.get(), m) == digest(ref.get(), m));
            }
        }
    }
}
