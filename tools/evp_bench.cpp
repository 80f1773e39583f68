// hwaccel-evp-bench: what an application sees through EVP, hwaccel against
// OpenSSL's default provider, interleaved call by call in one process.
//
// `openssl speed` (scripts/bench.py) runs each provider for a second at a
// time; on a shared machine the load moves between those seconds, and ratios
// at one length swing by 10-30% from run to run. Here every timed call of
// hwaccel is followed by the same call of default, and the medians of many
// thousands of pairs are compared, so both see the same machine. The calls
// are those `openssl speed -evp` makes: for a digest init + update + final of
// the length, for a cipher one update of the length on a context set up once.
//
// usage: hwaccel-evp-bench [--module-dir DIR] [--markdown] [ALG ...]
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <x86intrin.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Alg {
    const char* label;  // as scripts/bench.py names it
    const char* name;   // OpenSSL's name
    bool cipher;
    bool encrypt;
};
const Alg kAlgs[] = {
    {"sha1", "SHA1", false, true},          {"sha224", "SHA224", false, true},
    {"sha256", "SHA256", false, true},      {"sha3-224", "SHA3-224", false, true},
    {"sha3-256", "SHA3-256", false, true},  {"sha3-384", "SHA3-384", false, true},
    {"sha3-512", "SHA3-512", false, true},  {"shake128", "SHAKE128", false, true},
    {"shake256", "SHAKE256", false, true},  {"sm4-ecb", "SM4-ECB", true, true},
    {"sm4-cbc", "SM4-CBC", true, true},     {"sm4-cbc-dec", "SM4-CBC", true, false},
    {"sm4-cfb", "SM4-CFB", true, true},     {"sm4-cfb-dec", "SM4-CFB", true, false},
    {"sm4-ofb", "SM4-OFB", true, true},     {"sm4-ctr", "SM4-CTR", true, true},
};
constexpr size_t kLengths[] = {16, 64, 256, 1024, 8192, 16384};

uint8_t input[16384 + 16], output[16384 + 32];

// One timed operation for one provider.
class Op {
public:
    Op(const Alg& a, const char* provider) : alg_(a) {
        const std::string q = std::string("provider=") + provider;
        if (a.cipher) {
            cipher_ = EVP_CIPHER_fetch(nullptr, a.name, q.c_str());
            cctx_ = EVP_CIPHER_CTX_new();
            static const uint8_t key[16] = {1, 2, 3, 4}, iv[16] = {5, 6, 7, 8};
            ok_ = cipher_ && cctx_ && EVP_CipherInit_ex2(cctx_, cipher_, key, iv, a.encrypt ? 1 : 0, nullptr) &&
                  EVP_CIPHER_CTX_set_padding(cctx_, 0);
        } else {
            md_ = EVP_MD_fetch(nullptr, a.name, q.c_str());
            mctx_ = EVP_MD_CTX_new();
            ok_ = md_ && mctx_;
            xof_ = md_ && (EVP_MD_get_flags(md_) & EVP_MD_FLAG_XOF);
        }
    }
    ~Op() {
        EVP_CIPHER_CTX_free(cctx_);
        EVP_CIPHER_free(cipher_);
        EVP_MD_CTX_free(mctx_);
        EVP_MD_free(md_);
    }
    bool ok() const { return ok_; }
    void run(size_t len) {
        if (alg_.cipher) {
            int outl = 0;
            EVP_CipherUpdate(cctx_, output, &outl, input, static_cast<int>(len));
        } else {
            unsigned int outl = 0;
            EVP_DigestInit_ex2(mctx_, md_, nullptr);
            EVP_DigestUpdate(mctx_, input, len);
            if (xof_) EVP_DigestFinalXOF(mctx_, output, 32);
            else EVP_DigestFinal_ex(mctx_, output, &outl);
        }
    }

private:
    const Alg& alg_;
    EVP_CIPHER* cipher_ = nullptr;
    EVP_CIPHER_CTX* cctx_ = nullptr;
    EVP_MD* md_ = nullptr;
    EVP_MD_CTX* mctx_ = nullptr;
    bool ok_ = false, xof_ = false;
};

double median(std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    std::string module_dir;
    bool markdown = false;
    std::vector<std::string> wanted;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--module-dir") == 0 && i + 1 < argc) module_dir = argv[++i];
        else if (std::strcmp(argv[i], "--markdown") == 0) markdown = true;
        else if (std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0) {
            std::printf("usage: hwaccel-evp-bench [--module-dir DIR] [--markdown] [ALG ...]\n"
                        "EVP calls through hwaccel and default, interleaved call by call;\n"
                        "medians in TSC ticks. ALG: labels as in scripts/bench.py.\n");
            return 0;
        } else wanted.push_back(argv[i]);
    }
    if (module_dir.empty()) module_dir = HWACCEL_MODULE_DIR;
    OSSL_PROVIDER_set_default_search_path(nullptr, module_dir.c_str());
    if (!OSSL_PROVIDER_load(nullptr, "hwaccel") || !OSSL_PROVIDER_load(nullptr, "default")) {
        std::fprintf(stderr, "hwaccel-evp-bench: cannot load the providers (module dir %s)\n",
                     module_dir.c_str());
        ERR_print_errors_fp(stderr);
        return 1;
    }
    std::printf("EVP calls, hwaccel and default interleaved call by call; medians of TSC ticks per call.\n");
    for (const Alg& a : kAlgs) {
        if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), a.label) == wanted.end()) continue;
        Op h(a, "hwaccel"), d(a, "default");
        if (!h.ok() || !d.ok()) {
            std::fprintf(stderr, "hwaccel-evp-bench: %s not available from both providers\n", a.label);
            return 1;
        }
        if (markdown) std::printf("\n**%s**\n\n| length | default ticks | hwaccel ticks | ratio |\n|---:|---:|---:|---:|\n", a.label);
        else std::printf("\n%s\n  length  default ticks  hwaccel ticks   ratio\n", a.label);
        for (size_t len : kLengths) {
            // About 0.3 s per length and provider on this machine's speeds.
            const int pairs = len >= 8192 ? 2001 : len >= 1024 ? 10001 : 5001;
            // Short calls are timed 8 at a time: the TSC here counts in steps
            // of ~25 ticks, a few percent of a 16-byte call.
            const int batch = len >= 1024 ? 1 : 8;
            std::vector<double> th, td;
            th.reserve(pairs);
            td.reserve(pairs);
            for (int i = 0; i < 50; ++i) h.run(len), d.run(len);
            for (int i = 0; i < pairs; ++i) {
                const uint64_t t0 = __rdtsc();
                for (int k = 0; k < batch; ++k) h.run(len);
                const uint64_t t1 = __rdtsc();
                for (int k = 0; k < batch; ++k) d.run(len);
                const uint64_t t2 = __rdtsc();
                th.push_back(double(t1 - t0) / batch);
                td.push_back(double(t2 - t1) / batch);
            }
            const double mh = median(th), md = median(td);
            if (markdown) std::printf("| %zu | %.0f | %.0f | %.2fx |\n", len, md, mh, md / mh);
            else std::printf("  %6zu  %13.0f  %13.0f  %5.2fx\n", len, md, mh, md / mh);
        }
    }
    return 0;
}
