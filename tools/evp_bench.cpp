// hwaccel-evp-bench: what an application sees through EVP, hwaccel against
// OpenSSL's default provider (and libgcrypt, when built with it), interleaved
// call by call in one process.
//
// `openssl speed` (scripts/bench.py) runs each provider for a second at a
// time; on a shared machine the load moves between those seconds, and ratios
// at one length swing by 10-30% from run to run. Here every timed call of
// hwaccel is followed by the same call of default (and of libgcrypt), and the
// medians of many thousands of rounds are compared, so all see the same
// machine. The calls are those `openssl speed -evp` makes: for a digest init +
// update + final of the length, for a cipher one update of the length on a
// context set up once. Before timing an algorithm, every implementation's
// output is compared with the default provider's: a wrong mode or key setup
// is refused, not timed.
//
// scripts/bench.py builds a second copy with -DHWACCEL_EVP_BENCH_GCRYPT
// against a libgcrypt (gcrypt_op.hpp) for its libgcrypt column; --seconds
// times one implementation at a time the way `openssl speed` does, for
// bench.py's openssl-speed mode.
//
// --seconds with --threads N runs N threads at once, each with its own
// contexts over the one provider instance of this process, as a threaded
// server would: what an instance shares between threads shows there (a
// spare-context slot every thread wrote made hwaccel 0.63-0.77x default
// with 2 threads at 64 bytes; provider/spare_contexts.hpp).
//
// usage: hwaccel-evp-bench [--module-dir DIR] [--providers LIST] [--seconds S
//                          [--threads N]] [--markdown | --mr] [--info] [ALG ...]
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#include <x86intrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench_op.hpp"
#include "fenced_tsc.hpp"
#ifdef HWACCEL_EVP_BENCH_GCRYPT
#include "gcrypt_op.hpp"
#endif

namespace {

using bench::Alg;
using bench::Op;

const Alg kAlgs[] = {
    {"sha1", "SHA1", false, true},          {"sha224", "SHA224", false, true},
    {"sha256", "SHA256", false, true},      {"sha3-224", "SHA3-224", false, true},
    {"sha3-256", "SHA3-256", false, true},  {"sha3-384", "SHA3-384", false, true},
    {"sha3-512", "SHA3-512", false, true},  {"shake128", "SHAKE128", false, true},
    {"shake256", "SHAKE256", false, true},  {"sm4-ecb", "SM4-ECB", true, true},
    {"sm4-cbc", "SM4-CBC", true, true},     {"sm4-cbc-dec", "SM4-CBC", true, false},
    {"sm4-cfb", "SM4-CFB", true, true},     {"sm4-cfb-dec", "SM4-CFB", true, false},
    {"sm4-ofb", "SM4-OFB", true, true},     {"sm4-ctr", "SM4-CTR", true, true},
    {"sm4-ccm", "SM4-CCM", true, true, true},
    {"sm4-gcm", "SM4-GCM", true, true, true},
    {"sm4-xts", "SM4-XTS", true, true},     {"sm4-xts-dec", "SM4-XTS", true, false},
};
constexpr size_t kLengths[] = {16, 64, 256, 1024, 8192, 16384};
constexpr size_t kMaxLength = 16384;

uint8_t input[kMaxLength + 16], output[kMaxLength + 32];

// CCM declares the message length before its AAD and text; GCM does not.
bool is_ccm(const Alg& a) { return a.aead && std::strstr(a.name, "CCM") != nullptr; }

// One timed operation through one OpenSSL provider.
class EvpOp : public Op {
public:
    EvpOp(const Alg& a, const char* provider) : alg_(a), ccm_(is_ccm(a)) {
        const std::string q = std::string("provider=") + provider;
        if (a.cipher) {
            cipher_ = EVP_CIPHER_fetch(nullptr, a.name, q.c_str());
            cctx_ = EVP_CIPHER_CTX_new();
            if (is_ccm(a)) {
                size_t ivlen = bench::kAeadNonceLen;
                OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                                  OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr,
                                                          bench::kAeadTagLen),
                                  OSSL_PARAM_END};
                ok_ = cipher_ && cctx_ && EVP_CipherInit_ex2(cctx_, cipher_, nullptr, nullptr, 1, p) &&
                      EVP_CipherInit_ex2(cctx_, nullptr, bench::kKey, nullptr, 1, nullptr);
            } else {
                const bool xts = bench::is_xts(a.label);
                OSSL_PARAM ieee[] = {
                    OSSL_PARAM_construct_utf8_string("xts_standard", const_cast<char*>("IEEE"), 0),
                    OSSL_PARAM_END};
                const uint8_t* iv = a.aead ? bench::kAeadIv : bench::kIv;
                ok_ = cipher_ && cctx_ &&
                      EVP_CipherInit_ex2(cctx_, cipher_, xts ? bench::kXtsKey : bench::kKey, iv,
                                         a.encrypt ? 1 : 0, xts ? ieee : nullptr) &&
                      EVP_CIPHER_CTX_set_padding(cctx_, 0);
            }
        } else {
            md_ = EVP_MD_fetch(nullptr, a.name, q.c_str());
            mctx_ = EVP_MD_CTX_new();
            ok_ = md_ && mctx_;
            xof_ = md_ && (EVP_MD_get_flags(md_) & EVP_MD_FLAG_XOF);
        }
        ERR_clear_error();  // a provider without the algorithm is reported by ok()
    }
    ~EvpOp() override {
        EVP_CIPHER_CTX_free(cctx_);
        EVP_CIPHER_free(cipher_);
        EVP_MD_CTX_free(mctx_);
        EVP_MD_free(md_);
    }
    bool ok() const override { return ok_; }
    void run(const uint8_t* in, size_t len, uint8_t* out) override {
        if (alg_.aead) {
            int outl = 0;
            if (ccm_) {
                EVP_CipherInit_ex2(cctx_, nullptr, nullptr, bench::kIv, 1, nullptr);
                EVP_CipherUpdate(cctx_, nullptr, &outl, nullptr, static_cast<int>(len));
                EVP_CipherUpdate(cctx_, out, &outl, in, static_cast<int>(len));
                EVP_CipherFinal_ex(cctx_, out + len, &outl);
            } else {
                EVP_CipherInit_ex2(cctx_, nullptr, nullptr, bench::kAeadIv, -1, nullptr);
                EVP_CipherUpdate(cctx_, out, &outl, in, static_cast<int>(len));
                EVP_CipherFinal_ex(cctx_, out + outl, &outl);
            }
            EVP_CIPHER_CTX_ctrl(cctx_, EVP_CTRL_AEAD_GET_TAG, bench::kAeadTagLen, out + len);
        } else if (alg_.cipher) {
            int outl = 0;
            EVP_CipherUpdate(cctx_, out, &outl, in, static_cast<int>(len));
        } else {
            unsigned int outl = 0;
            EVP_DigestInit_ex2(mctx_, md_, nullptr);
            EVP_DigestUpdate(mctx_, in, len);
            if (xof_) EVP_DigestFinalXOF(mctx_, out, 32);
            else EVP_DigestFinal_ex(mctx_, out, &outl);
        }
    }
    size_t out_len(size_t len) const override {
        if (alg_.aead) return len + bench::kAeadTagLen;
        return alg_.cipher ? len : xof_ ? 32 : static_cast<size_t>(EVP_MD_get_size(md_));
    }

private:
    const Alg& alg_;
    const bool ccm_;  // is_ccm(alg_), once: a strstr per timed call was charged to the provider
    EVP_CIPHER* cipher_ = nullptr;
    EVP_CIPHER_CTX* cctx_ = nullptr;
    EVP_MD* md_ = nullptr;
    EVP_MD_CTX* mctx_ = nullptr;
    bool ok_ = false, xof_ = false;
};

// The implementations this build can time, by the names bench.py uses.
const char* const kKnown[] = {"hwaccel", "default",
#ifdef HWACCEL_EVP_BENCH_GCRYPT
                              "libgcrypt"
#endif
};

std::unique_ptr<Op> make_op(const std::string& impl, const Alg& a) {
#ifdef HWACCEL_EVP_BENCH_GCRYPT
    if (impl == "libgcrypt") return std::make_unique<bench::GcryptOp>(a);
#endif
    return std::make_unique<EvpOp>(a, impl.c_str());
}

// Two calls of 1024 bytes each (the second continues the first's chaining
// value) from fresh contexts must give the reference's bytes.
bool same_as(const std::string& reference, const std::string& impl, const Alg& a) {
    std::unique_ptr<Op> ref = make_op(reference, a), op = make_op(impl, a);
    if (!ref->ok() || !op->ok()) return false;
    constexpr size_t kLen = 1024;
    static uint8_t want[kLen + 32], got[kLen + 32];  // room for an AEAD tag
    for (int call = 0; call < 2; ++call) {
        ref->run(input, kLen, want);
        op->run(input, kLen, got);
        if (ref->out_len(kLen) != op->out_len(kLen) ||
            std::memcmp(want, got, ref->out_len(kLen)) != 0)
            return false;
    }
    return true;
}

double median(std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The TSC's rate against the wall clock: ticks per byte become MB/s with it.
double tsc_mhz() {
    const auto w0 = std::chrono::steady_clock::now();
    const uint64_t t0 = __rdtsc();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const uint64_t t1 = __rdtsc();
    const auto w1 = std::chrono::steady_clock::now();
    return double(t1 - t0) / std::chrono::duration<double, std::micro>(w1 - w0).count();
}

volatile sig_atomic_t time_is_up = 0;
void on_alarm(int) { time_is_up = 1; }

double user_seconds() {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    return double(r.ru_utime.tv_sec) + double(r.ru_utime.tv_usec) / 1e6;
}

// `openssl speed`'s method: calls for `seconds` of wall time, bytes per
// second of user CPU time. Printed as `openssl speed -mr` prints (+F lines,
// after one +H line of the lengths), with the implementation's name in the
// place of speed's algorithm number.
void time_alone(const std::string& impl, Op& op, const Alg& a, int seconds) {
    std::printf("+F:%s:%s", impl.c_str(), a.label);
    for (size_t len : kLengths) {
        for (int i = 0; i < 50; ++i) op.run(input, len, output);
        time_is_up = 0;
        uint64_t count = 0;
        const double u0 = user_seconds();
        alarm(static_cast<unsigned>(seconds));
        while (!time_is_up) {
            op.run(input, len, output);
            ++count;
        }
        const double used = user_seconds() - u0;
        std::printf(":%.2f", used > 0 ? double(count) * double(len) / used : 0.0);
    }
    std::printf("\n");
    std::fflush(stdout);
}

// --threads: `threads` threads, each with its own Op of `impl`, call for
// `seconds` of wall time per length; bytes per wall-clock second, summed
// over the threads (user CPU time would count the threads' seconds twice).
// Printed as time_alone prints.
void time_threads(const std::string& impl, const Alg& a, int seconds, int threads) {
    std::printf("+F:%s:%s", impl.c_str(), a.label);
    for (size_t len : kLengths) {
        std::vector<std::unique_ptr<Op>> ops;
        for (int t = 0; t < threads; ++t) {
            ops.push_back(make_op(impl, a));
            if (!ops.back()->ok()) {
                std::fprintf(stderr, "hwaccel-evp-bench: %s from %s: no context for thread %d\n",
                             a.label, impl.c_str(), t);
                std::exit(1);
            }
        }
        std::atomic<bool> go{false}, stop{false};
        std::atomic<int> ready{0};
        std::vector<uint64_t> counts(threads, 0);
        std::vector<std::thread> workers;
        for (int t = 0; t < threads; ++t)
            workers.emplace_back([&, t] {
                // Each thread its own buffers: shared ones would be a shared line too.
                std::vector<uint8_t> in(input, input + len), out(len + 32);
                for (int i = 0; i < 50; ++i) ops[t]->run(in.data(), len, out.data());
                ++ready;
                while (!go.load()) std::this_thread::yield();
                uint64_t n = 0;
                while (!stop.load(std::memory_order_relaxed)) {
                    ops[t]->run(in.data(), len, out.data());
                    ++n;
                }
                counts[t] = n;
            });
        while (ready.load() < threads) std::this_thread::yield();
        const auto w0 = std::chrono::steady_clock::now();
        go = true;
        std::this_thread::sleep_for(std::chrono::seconds(seconds));
        stop = true;
        for (auto& w : workers) w.join();
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
        uint64_t total = 0;
        for (uint64_t c : counts) total += c;
        std::printf(":%.2f", double(total) * double(len) / wall);
    }
    std::printf("\n");
    std::fflush(stdout);
}

enum class Format { text, markdown, mr };

// Interleaved: each round makes the call once (8 times for short lengths)
// with every implementation in turn; the medians per implementation.
void time_interleaved(const std::vector<std::string>& impls, std::vector<std::unique_ptr<Op>>& ops,
                      const Alg& a, Format format) {
    const size_t n = ops.size();
    const auto col = [&](const char* name) {
        return size_t(std::find(impls.begin(), impls.end(), name) - impls.begin());
    };
    const size_t h = col("hwaccel");
    if (format == Format::markdown) {
        std::printf("\n**%s**\n\n| length |", a.label);
        for (const auto& i : impls) std::printf(" %s ticks |", i.c_str());
        for (size_t c = 0; c < n && h < n; ++c)
            if (c != h) std::printf(" %s / hwaccel |", impls[c].c_str());
        std::printf("\n|---:|");
        for (size_t c = 0; c < n + (h < n ? n - 1 : 0); ++c) std::printf("---:|");
        std::printf("\n");
    } else if (format == Format::text) {
        std::printf("\n%s\n  length", a.label);
        for (const auto& i : impls) std::printf("  %15s", (i + " ticks").c_str());
        for (size_t c = 0; c < n && h < n; ++c)
            if (c != h) std::printf("  %17s", (impls[c] + "/hwaccel").c_str());
        std::printf("\n");
    }
    for (size_t len : kLengths) {
        // About 0.3 s per length and implementation on this machine's speeds.
        const int rounds = len >= 8192 ? 2001 : len >= 1024 ? 10001 : 5001;
        // Short calls are timed 8 at a time: the TSC here counts in steps
        // of ~25 ticks, a few percent of a 16-byte call.
        const int batch = len >= 1024 ? 1 : 8;
        std::vector<std::vector<double>> ticks(n);
        for (auto& t : ticks) t.reserve(rounds);
        for (int i = 0; i < 50; ++i)
            for (auto& op : ops) op->run(input, len, output);
        for (int i = 0; i < rounds; ++i) {
            for (size_t c = 0; c < n; ++c) {
                const uint64_t t0 = fenced_tsc();
                for (int k = 0; k < batch; ++k) ops[c]->run(input, len, output);
                ticks[c].push_back(double(fenced_tsc() - t0) / batch);
            }
        }
        std::vector<double> med(n);
        for (size_t c = 0; c < n; ++c) med[c] = median(ticks[c]);
        if (format == Format::mr) {
            std::printf("+T:%s:%zu", a.label, len);
            for (size_t c = 0; c < n; ++c) std::printf(":%s=%.1f", impls[c].c_str(), med[c]);
            std::printf("\n");
        } else if (format == Format::markdown) {
            std::printf("| %zu |", len);
            for (size_t c = 0; c < n; ++c) std::printf(" %.0f |", med[c]);
            for (size_t c = 0; c < n && h < n; ++c)
                if (c != h) std::printf(" %.2fx |", med[c] / med[h]);
            std::printf("\n");
        } else {
            std::printf("  %6zu", len);
            for (size_t c = 0; c < n; ++c) std::printf("  %15.0f", med[c]);
            for (size_t c = 0; c < n && h < n; ++c)
                if (c != h) std::printf("  %16.2fx", med[c] / med[h]);
            std::printf("\n");
        }
        std::fflush(stdout);
    }
}

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        const size_t comma = std::min(s.find(',', start), s.size());
        if (comma > start) out.push_back(s.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

void usage() {
    std::printf(
        "usage: hwaccel-evp-bench [--module-dir DIR] [--providers LIST] [--seconds S\n"
        "                         [--threads N]] [--markdown | --mr] [--info] [ALG ...]\n"
        "EVP calls through hwaccel and default (and libgcrypt when built with it),\n"
        "interleaved call by call; medians in TSC ticks per call. ALG: labels as in\n"
        "scripts/bench.py.\n"
        "  --providers LIST  comma list, timing order (default: all this build has:");
    for (const char* k : kKnown) std::printf(" %s", k);
    std::printf(
        ")\n"
        "  --seconds S       each implementation alone for S s per length, as openssl\n"
        "                    speed does (bytes per user CPU second, speed's -mr format)\n"
        "  --threads N       with --seconds: N threads at once over this process's one\n"
        "                    provider instance, each with its own contexts; bytes per\n"
        "                    wall-clock second summed over them\n"
        "  --mr              machine-readable: +I (facts), +T:ALG:LEN:IMPL=TICKS...\n"
        "  --info            print the TSC rate (MHz) and libgcrypt's version and\n"
        "                    hwflist (when built with it), +I lines, and exit\n");
}

}  // namespace

int main(int argc, char** argv) {
    std::string module_dir;
    Format format = Format::text;
    int seconds = 0, threads = 0;
    bool info_only = false;
    std::vector<std::string> impls(std::begin(kKnown), std::end(kKnown)), wanted;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--module-dir" && i + 1 < argc) module_dir = argv[++i];
        else if (arg == "--providers" && i + 1 < argc) impls = split(argv[++i]);
        else if (arg == "--seconds" && i + 1 < argc) seconds = std::atoi(argv[++i]);
        else if (arg == "--threads" && i + 1 < argc) {
            char* end = nullptr;
            const long n = std::strtol(argv[++i], &end, 10);
            threads = (*end == '\0' && n >= 1 && n <= 1024) ? int(n) : -1;
        }
        else if (arg == "--markdown") format = Format::markdown;
        else if (arg == "--mr") format = Format::mr;
        else if (arg == "--info") info_only = true;
        else if (arg == "-h" || arg == "--help") {
            usage();
            return 0;
        } else if (arg.compare(0, 1, "-") == 0) {
            std::fprintf(stderr, "hwaccel-evp-bench: unknown option %s (see --help)\n", arg.c_str());
            return 2;
        } else wanted.push_back(arg);
    }
    for (const auto& impl : impls) {
        if (std::find(std::begin(kKnown), std::end(kKnown), impl) == std::end(kKnown)) {
            std::fprintf(stderr, "hwaccel-evp-bench: %s is not one of this build's implementations "
                         "(see --help)\n", impl.c_str());
            return 2;
        }
    }
    if (impls.empty() || seconds < 0 || threads < 0 || (threads > 0 && seconds == 0)) {
        usage();
        return 2;
    }
    for (const auto& w : wanted) {
        if (std::none_of(std::begin(kAlgs), std::end(kAlgs),
                         [&](const Alg& a) { return w == a.label; })) {
            std::fprintf(stderr, "hwaccel-evp-bench: unknown algorithm %s\n", w.c_str());
            return 2;
        }
    }
    for (size_t i = 0; i < sizeof input; ++i) input[i] = uint8_t(i * 7 + 1);

    // The default provider is always loaded: it is the reference every
    // implementation's output is checked against.
    if (module_dir.empty()) module_dir = HWACCEL_MODULE_DIR;
    OSSL_PROVIDER_set_default_search_path(nullptr, module_dir.c_str());
    const bool need_hwaccel = std::find(impls.begin(), impls.end(), "hwaccel") != impls.end();
    if ((need_hwaccel && !OSSL_PROVIDER_load(nullptr, "hwaccel")) || !OSSL_PROVIDER_load(nullptr, "default")) {
        std::fprintf(stderr, "hwaccel-evp-bench: cannot load the providers (module dir %s)\n",
                     module_dir.c_str());
        ERR_print_errors_fp(stderr);
        return 1;
    }
    const bool mr = format == Format::mr || seconds > 0 || info_only;
    if (mr) {
        std::printf("+I:tsc-mhz:%.1f\n", tsc_mhz());
    } else {
        std::printf("EVP calls, %s interleaved call by call; medians of TSC ticks per call "
                    "(the TSC counts at %.0f MHz).\n", [&] {
                        std::string s;
                        for (const auto& i : impls) s += (s.empty() ? "" : ", ") + i;
                        return s;
                    }().c_str(), tsc_mhz());
    }
#ifdef HWACCEL_EVP_BENCH_GCRYPT
    if (std::find(impls.begin(), impls.end(), "libgcrypt") != impls.end()) {
        const std::string version = bench::gcrypt_init(), hwf = bench::gcrypt_hwflist();
        if (mr) std::printf("+I:libgcrypt-version:%s\n+I:libgcrypt-hwflist:%s\n", version.c_str(), hwf.c_str());
        else std::printf("libgcrypt %s, hwflist %s\n", version.c_str(), hwf.c_str());
    }
#endif
    if (info_only) return 0;
    if (seconds > 0) {
        signal(SIGALRM, on_alarm);
        if (threads > 0)
            std::printf("+I:method:%d threads, bytes per wall-clock second summed over them\n", threads);
        std::printf("+H");
        for (size_t len : kLengths) std::printf(":%zu", len);
        std::printf("\n");
    }
    for (const Alg& a : kAlgs) {
        if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), a.label) == wanted.end()) continue;
        // Providers must have every algorithm, but the default provider's
        // AEADs and SM4-XTS arrived late (3.5, 3.6); libgcrypt may lack one (SM4 before 1.9). Those
        // are left out of that algorithm's figures.
        // The reference is the default provider; for an AEAD it may lack
        // (SM4-GCM before OpenSSL 3.6) libgcrypt's, when built in.
        std::string reference;
        for (const char* r : {"default", "libgcrypt"}) {
            const bool usable = std::strcmp(r, "default") == 0 ||
                                std::find(impls.begin(), impls.end(), r) != impls.end();
            if (usable && make_op(r, a)->ok()) {
                reference = r;
                break;
            }
        }
        if (reference.empty()) {
            std::fprintf(stderr, "hwaccel-evp-bench: %s: no reference to check against\n", a.label);
            if (!a.aead && !bench::is_xts(a.label)) return 1;
            continue;
        }
        std::vector<std::string> here;
        std::vector<std::unique_ptr<Op>> ops;
        for (const auto& impl : impls) {
            std::unique_ptr<Op> op = make_op(impl, a);
            if (!op->ok()) {
                std::fprintf(stderr, "hwaccel-evp-bench: %s not available from %s\n", a.label, impl.c_str());
                // OpenSSL 3.0's default has no SM4-GCM/CCM/XTS: hwaccel is timed alone.
                if (impl != "libgcrypt" && !(impl == "default" && (a.aead || bench::is_xts(a.label)))) return 1;
                continue;
            }
            if (!same_as(reference, impl, a)) {
                std::fprintf(stderr, "hwaccel-evp-bench: %s from %s differs from %s's output: "
                             "not timed\n", a.label, impl.c_str(), reference.c_str());
                return 1;
            }
            here.push_back(impl);
            ops.push_back(std::move(op));
        }
        if (ops.empty()) continue;
        if (seconds > 0) {
            for (size_t c = 0; c < ops.size(); ++c) {
                if (threads > 0) time_threads(here[c], a, seconds, threads);
                else time_alone(here[c], *ops[c], a, seconds);
            }
        } else {
            time_interleaved(here, ops, a, format);
        }
    }
    return 0;
}
