// Allocation failure through hwaccel. Each scenario drives one digest or one
// SM4 mode and direction through EVP (new, init, update, copy into a fresh
// and into an initialised context, final, re-init). It first runs with every
// allocation granted, counting them (K); then once for every N in 1..K with
// the Nth allocation refused, and once more for every N with the Nth and all
// later ones refused. Every operation must either succeed with the right
// output or fail with an error on the queue (hwaccel's malloc failure, the
// default provider's code ERR_R_MALLOC_FAILURE in library PROV, when the
// refused allocation was the provider's); nothing may crash or leak
// (the allocator counts live blocks; the ASan build adds LeakSanitizer).
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "failing_allocator.hpp"
#include "provider_fixture.hpp"

using namespace hwaccel::test;
using Bytes = std::vector<unsigned char>;

namespace {

const char* const kModes[] = {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB", "SM4-CTR"};
constexpr size_t kXofLength = 100;

Bytes pattern(size_t n, unsigned seed) {
    Bytes b(n);
    for (size_t i = 0; i < n; ++i) b[i] = static_cast<unsigned char>(i * 131 + seed * 7 + (i >> 5));
    return b;
}

// Judges each operation of one scenario run; records what went wrong.
class Judge {
public:
    // lenient: only wrong outputs count (for runs through libcrypto's own
    // machinery, where a refusal in one call can make a later call fail).
    explicit Judge(bool lenient = false) : lenient_(lenient) {}

    // `ok`: the operation's result. `silent_ok`: OpenSSL 3.0's own
    // EVP_*_CTX_new fail without queueing an error; that is libcrypto's
    // behaviour, outside the provider.
    bool step(const std::string& what, bool ok, bool silent_ok = false) {
        Refusals refused = take_refusals();  // those made by this operation
        if (refused.count > 0) last_site_ = refused.first_site;
        if (ok) return true;
        ++failed_steps_;
        const ErrorCodes taken = take_error_codes();
        const std::string& errors = taken.text;
        if (lenient_) return false;
        if (refused.count == 0)
            complain(what + " failed though none of its allocations was refused: " + errors);
        else if (refused.in_provider && !has_openssl_error(taken, ERR_LIB_PROV, ERR_R_MALLOC_FAILURE))
            complain(what + " failed on hwaccel's allocation without hwaccel's malloc-failure error: [" +
                     errors + "] (first refused: " + refused.first_site + ")");
        else if (errors.empty() && !silent_ok)
            complain(what + " failed with no error on the queue (refused " + refused.first_site + ")");
        return false;
    }

    // A successful operation's output must be the right one.
    void output(const std::string& what, const Bytes& got, const Bytes& want) {
        if (got != want)
            complain(what + ": wrong output (last refused allocation: " +
                     (last_site_.empty() ? std::string("none") : last_site_) + ")");
    }

    int failed_steps() const { return failed_steps_; }
    const std::vector<std::string>& complaints() const { return complaints_; }

private:
    void complain(const std::string& s) { complaints_.push_back(s); }
    bool lenient_;
    int failed_steps_ = 0;
    std::string last_site_;
    std::vector<std::string> complaints_;
};

using Scenario = std::function<void(Judge&)>;

struct Tally {
    long allocations = 0;   // K: allocations of the all-granted run
    long runs = 0;
    long runs_with_failure = 0;
    long libcrypto_leaks = 0;  // runs after which libcrypto's own blocks leaked
};

// What a scenario needs made before and freed after each run, outside the
// counted allocations.
struct Surroundings {
    std::function<void()> before = [] {};
    std::function<void()> after = [] {};
    // Leaks whose every block was allocated by libcrypto itself (not by a file
    // under the provider's sources) are counted, not failed: OpenSSL 3.0
    // leaks on some of its own failure paths.
    bool tolerate_libcrypto_leaks = false;
    // Also refuse every allocation from the Nth on (off where each run is
    // costly and the single refusals already reach every failure path).
    bool suffixes = true;
};

// Runs `scenario` with nothing refused, then with every single allocation
// refused in turn, then (unless told otherwise) with every suffix of
// allocations refused.
Tally exhaust(const Scenario& scenario, const Surroundings& around = {}) {
    Tally t;
    ERR_clear_error();
    set_provider_source(HWACCEL_PROVIDER_SOURCE_DIR);
    // One run first, uncounted: what an instance keeps from run to run (a
    // spare digest context per algorithm and thread, provider/spare_contexts.hpp) then
    // exists before the baseline instead of counting as the first run's leak.
    {
        Judge warm_up(around.tolerate_libcrypto_leaks);
        around.before();
        scenario(warm_up);
        around.after();
        ERR_clear_error();
        for (const auto& c : warm_up.complaints()) FAIL_CHECK("warm-up: " << c);
        CHECK(warm_up.failed_steps() == 0);
    }
    long baseline = live_blocks();
    {
        Judge j(around.tolerate_libcrypto_leaks);
        around.before();
        arm({});
        scenario(j);
        disarm();
        around.after();
        t.allocations = allocations_since_arm();
        for (const auto& c : j.complaints()) FAIL_CHECK(c);
        CHECK(j.failed_steps() == 0);
        CHECK(live_blocks() == baseline);
    }
    for (bool and_after : {false, true}) {
        if (and_after && !around.suffixes) break;
        for (long n = 1; n <= t.allocations; ++n) {
            const long serial = allocation_serial();
            Judge j(around.tolerate_libcrypto_leaks);
            around.before();
            arm({n, and_after});
            scenario(j);
            disarm();
            around.after();
            ERR_clear_error();
            ++t.runs;
            if (j.failed_steps() > 0) ++t.runs_with_failure;
            for (const auto& c : j.complaints())
                FAIL_CHECK("allocation " << n << (and_after ? " and after" : "") << ": " << c);
            if (live_blocks() == baseline) continue;
            std::string sites = live_sites_after(serial, 1000);
            if (around.tolerate_libcrypto_leaks && sites.find(HWACCEL_PROVIDER_SOURCE_DIR) == std::string::npos) {
                ++t.libcrypto_leaks;
                baseline = live_blocks();
                continue;
            }
            FAIL_CHECK("allocation " << n << (and_after ? " and after" : "") << " refused: "
                                         << live_blocks() - baseline << " block(s) leaked, allocated at "
                                         << sites);
        }
    }
    return t;
}

// The digest of `msg` (kXofLength bytes for an XOF), by `md`.
bool finish_digest(EVP_MD_CTX* ctx, bool xof, Bytes& out) {
    if (xof) {
        out.assign(kXofLength, 0);
        return EVP_DigestFinalXOF(ctx, out.data(), out.size()) == 1;
    }
    out.assign(EVP_MAX_MD_SIZE, 0);
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx, out.data(), &len) != 1) return false;
    out.resize(len);
    return true;
}

Bytes reference_digest(const EVP_MD* md, bool xof, const Bytes& msg) {
    MdCtxPtr ctx(EVP_MD_CTX_new());
    REQUIRE(EVP_DigestInit_ex(ctx.get(), md, nullptr) == 1);
    REQUIRE(EVP_DigestUpdate(ctx.get(), msg.data(), msg.size()) == 1);
    Bytes out;
    REQUIRE(finish_digest(ctx.get(), xof, out));
    return out;
}

Scenario digest_scenario(const EVP_MD* md, bool xof, const Bytes& msg, const Bytes& want) {
    const size_t split = 100;
    return [=](Judge& j) {
        // Continues `ctx` after the split and checks its digest.
        auto finish = [&](const char* who, EVP_MD_CTX* ctx) {
            Bytes out;
            if (j.step(std::string(who) + " update", EVP_DigestUpdate(ctx, msg.data() + split, msg.size() - split) == 1) &&
                j.step(std::string(who) + " final", finish_digest(ctx, xof, out)))
                j.output(std::string(who) + " digest", out, want);
        };
        MdCtxPtr a(EVP_MD_CTX_new());
        if (!j.step("EVP_MD_CTX_new", a != nullptr, true)) return;
        if (!j.step("init", EVP_DigestInit_ex(a.get(), md, nullptr) == 1)) return;
        if (!j.step("update", EVP_DigestUpdate(a.get(), msg.data(), split) == 1)) return;

        // A copy into a fresh context (the provider's dupctx).
        MdCtxPtr fresh(EVP_MD_CTX_new());
        if (j.step("EVP_MD_CTX_new (copy)", fresh != nullptr, true) &&
            j.step("EVP_MD_CTX_copy_ex into a fresh context", EVP_MD_CTX_copy_ex(fresh.get(), a.get()) == 1))
            finish("fresh copy", fresh.get());
        // A copy over an initialised context (its provider context is replaced).
        MdCtxPtr used(EVP_MD_CTX_new());
        if (j.step("EVP_MD_CTX_new (used)", used != nullptr, true) &&
            j.step("init (used)", EVP_DigestInit_ex(used.get(), md, nullptr) == 1) &&
            j.step("EVP_MD_CTX_copy_ex over an initialised context", EVP_MD_CTX_copy_ex(used.get(), a.get()) == 1))
            finish("copy over used", used.get());
#if OPENSSL_VERSION_NUMBER >= 0x30100000L
        MdCtxPtr dup(EVP_MD_CTX_dup(a.get()));
        if (j.step("EVP_MD_CTX_dup", dup != nullptr)) finish("dup", dup.get());
#endif
        // The original, whatever happened to its copies.
        finish("original", a.get());
        // Re-initialised after final: the whole message again.
        Bytes out;
        if (j.step("re-init", EVP_DigestInit_ex(a.get(), md, nullptr) == 1) &&
            j.step("update after re-init", EVP_DigestUpdate(a.get(), msg.data(), msg.size()) == 1) &&
            j.step("final after re-init", finish_digest(a.get(), xof, out)))
            j.output("re-initialised digest", out, want);
    };
}

struct CipherJob {
    Bytes key, iv, in, want;
    bool enc;
};

// Encrypts or decrypts `in` in two pieces; appends to `out`.
bool cipher_update(EVP_CIPHER_CTX* ctx, const unsigned char* in, size_t n, Bytes& out) {
    size_t at = out.size();
    out.resize(at + n + 32);
    int outl = 0;
    if (EVP_CipherUpdate(ctx, out.data() + at, &outl, in, static_cast<int>(n)) != 1) return false;
    out.resize(at + outl);
    return true;
}

bool cipher_final(EVP_CIPHER_CTX* ctx, Bytes& out) {
    size_t at = out.size();
    out.resize(at + 32);
    int outl = 0;
    if (EVP_CipherFinal_ex(ctx, out.data() + at, &outl) != 1) return false;
    out.resize(at + outl);
    return true;
}

Bytes reference_cipher(const EVP_CIPHER* c, const CipherJob& job) {
    CipherCtxPtr ctx(EVP_CIPHER_CTX_new());
    REQUIRE(EVP_CipherInit_ex2(ctx.get(), c, job.key.data(), job.iv.empty() ? nullptr : job.iv.data(),
                               job.enc ? 1 : 0, nullptr) == 1);
    Bytes out;
    REQUIRE(cipher_update(ctx.get(), job.in.data(), job.in.size(), out));
    REQUIRE(cipher_final(ctx.get(), out));
    return out;
}

Scenario cipher_scenario(const EVP_CIPHER* cipher, const CipherJob& job) {
    const size_t split = 37;
    return [=](Judge& j) {
        const unsigned char* iv = job.iv.empty() ? nullptr : job.iv.data();
        auto finish = [&](const char* who, EVP_CIPHER_CTX* ctx, Bytes out) {
            if (j.step(std::string(who) + " update", cipher_update(ctx, job.in.data() + split, job.in.size() - split, out)) &&
                j.step(std::string(who) + " final", cipher_final(ctx, out)))
                j.output(std::string(who) + " output", out, job.want);
        };
        CipherCtxPtr a(EVP_CIPHER_CTX_new());
        if (!j.step("EVP_CIPHER_CTX_new", a != nullptr, true)) return;
        if (!j.step("init", EVP_CipherInit_ex2(a.get(), cipher, job.key.data(), iv, job.enc ? 1 : 0, nullptr) == 1))
            return;
        Bytes head;
        if (!j.step("update", cipher_update(a.get(), job.in.data(), split, head))) return;

        CipherCtxPtr fresh(EVP_CIPHER_CTX_new());
        if (j.step("EVP_CIPHER_CTX_new (copy)", fresh != nullptr, true) &&
            j.step("EVP_CIPHER_CTX_copy into a fresh context", EVP_CIPHER_CTX_copy(fresh.get(), a.get()) == 1))
            finish("fresh copy", fresh.get(), head);
        CipherCtxPtr used(EVP_CIPHER_CTX_new());
        if (j.step("EVP_CIPHER_CTX_new (used)", used != nullptr, true) &&
            j.step("init (used)", EVP_CipherInit_ex2(used.get(), cipher, job.key.data(), iv, job.enc ? 1 : 0, nullptr) == 1) &&
            j.step("EVP_CIPHER_CTX_copy over an initialised context", EVP_CIPHER_CTX_copy(used.get(), a.get()) == 1))
            finish("copy over used", used.get(), head);
#if OPENSSL_VERSION_NUMBER >= 0x30100000L
        CipherCtxPtr dup(EVP_CIPHER_CTX_dup(a.get()));
        if (j.step("EVP_CIPHER_CTX_dup", dup != nullptr)) finish("dup", dup.get(), head);
#endif
        finish("original", a.get(), head);
        // Re-keyed on the same context: the whole input in one piece.
        Bytes out;
        if (j.step("re-init", EVP_CipherInit_ex2(a.get(), nullptr, job.key.data(), iv, job.enc ? 1 : 0, nullptr) == 1) &&
            j.step("update after re-init", cipher_update(a.get(), job.in.data(), job.in.size(), out)) &&
            j.step("final after re-init", cipher_final(a.get(), out)))
            j.output("re-initialised output", out, job.want);
    };
}

}  // namespace

TEST_CASE("allocation failure: every digest, init/update/copy/final", "[alloc]") {
    LoadedProvider prov;
    for (const auto& d : all_digests()) {
        INFO(d.name);
        MdPtr ours = prov.md(d.name), theirs = prov.default_md(d.name);
        Bytes msg = pattern(300, 1);
        Bytes want = reference_digest(theirs.get(), d.xof, msg);
        Tally t = exhaust(digest_scenario(ours.get(), d.xof, msg, want));
        // The provider allocates a context per new/dup: there is something to refuse.
        CHECK(t.allocations >= 4);
        CHECK(t.runs_with_failure > 0);
        WARN(d.name << ": " << t.allocations << " allocations, " << t.runs << " runs with refusals, "
                    << t.runs_with_failure << " of them saw an operation fail");
    }
}

TEST_CASE("allocation failure: every SM4 mode, both directions", "[alloc]") {
    LoadedProvider prov;
    for (const char* mode : kModes) {
        CipherPtr ours = prov.cipher(mode), theirs = prov.default_cipher(mode);
        for (bool enc : {true, false}) {
            INFO(mode << (enc ? " encrypt" : " decrypt"));
            CipherJob job;
            job.key = pattern(16, 2);
            job.iv = EVP_CIPHER_get_iv_length(theirs.get()) > 0 ? pattern(16, 3) : Bytes{};
            job.enc = true;
            job.in = pattern(100, 4);  // not a whole number of blocks: ECB/CBC pad
            Bytes ciphertext = reference_cipher(theirs.get(), job);
            if (!enc) job.in = ciphertext;
            job.enc = enc;
            job.want = reference_cipher(theirs.get(), job);
            Tally t = exhaust(cipher_scenario(ours.get(), job));
            CHECK(t.allocations >= 4);
            CHECK(t.runs_with_failure > 0);
            WARN(mode << (enc ? " encrypt: " : " decrypt: ") << t.allocations << " allocations, " << t.runs
                      << " runs with refusals, " << t.runs_with_failure << " of them saw an operation fail");
        }
    }
}

TEST_CASE("allocation failure: loading hwaccel into a library context and using it", "[alloc][load]") {
    // Loading is mostly libcrypto's work (name map, method store, property
    // cache); the rule is the same: a digest that comes out is the right one,
    // and nothing leaks, whichever allocation fails. Each run gets a fresh
    // library context, made and freed outside the counted allocations: the
    // context keeps what loading adds to its caches until it is freed, and
    // OpenSSL 3.0's OSSL_LIB_CTX_new itself leaks on its own failure paths.
    // Not run under the sanitizers (CMakeLists.txt): LeakSanitizer then also
    // reports the provider's own context (allocated with operator new in
    // OSSL_provider_init), because libcrypto's provider_init, when its copy
    // of the reason strings cannot be allocated after a successful
    // OSSL_provider_init, returns failure without ever calling the provider's
    // teardown (crypto/provider_core.c, 3.0 to 3.5): an OpenSSL leak the
    // provider is never told about.
    Bytes msg = pattern(200, 5);
    Bytes want;
    {
        LoadedProvider prov;
        MdPtr theirs = prov.default_md("SHA2-256");
        want = reference_digest(theirs.get(), false, msg);
    }
    OSSL_LIB_CTX* libctx = nullptr;
    Surroundings around;
    around.tolerate_libcrypto_leaks = true;
    around.suffixes = false;
    around.before = [&] {
        libctx = OSSL_LIB_CTX_new();
        REQUIRE(libctx != nullptr);
        REQUIRE(OSSL_PROVIDER_set_default_search_path(libctx, HWACCEL_MODULE_DIR) == 1);
    };
    around.after = [&] {
        OSSL_LIB_CTX_free(libctx);
        libctx = nullptr;
    };
    Tally t = exhaust([&](Judge& j) {
        OSSL_PROVIDER* prov = OSSL_PROVIDER_load(libctx, "hwaccel");
        if (!j.step("OSSL_PROVIDER_load", prov != nullptr, true)) return;
        MdPtr md(EVP_MD_fetch(libctx, "SHA2-256", "provider=hwaccel"));
        unsigned char out[32];
        unsigned int len = 0;
        if (j.step("EVP_MD_fetch", md != nullptr, true) &&
            j.step("EVP_Digest", EVP_Digest(msg.data(), msg.size(), out, &len, md.get(), nullptr) == 1, true))
            j.output("digest", Bytes(out, out + len), want);
        md.reset();
        OSSL_PROVIDER_unload(prov);
        take_errors();
    }, around);
    WARN("loading: " << t.allocations << " allocations, " << t.runs << " runs with refusals, "
                     << t.runs_with_failure << " of them saw an operation fail, after "
                     << t.libcrypto_leaks << " libcrypto leaked blocks of its own");
}
