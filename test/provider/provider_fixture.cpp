#include "provider_fixture.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <stdexcept>

#include "hwaccel/registry.hpp"
#include "support/engine_manifest.hpp"

namespace hwaccel::test {

namespace {

// Sets an environment variable for the lifetime of the object.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old, had_old_ = true;
        if (value.empty())
            unsetenv(name);
        else
            setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (had_old_)
            setenv(name_, old_.c_str(), 1);
        else
            unsetenv(name_);
    }

private:
    const char* name_;
    std::string old_;
    bool had_old_ = false;
};

}  // namespace

LoadedProvider::LoadedProvider(const std::string& engines) {
    ScopedEnv env("HWACCEL_ENGINES", engines);
    libctx_ = OSSL_LIB_CTX_new();
    if (libctx_ == nullptr) throw std::runtime_error("OSSL_LIB_CTX_new failed");
    OSSL_PROVIDER_set_default_search_path(libctx_, HWACCEL_MODULE_DIR);
    hwaccel_ = OSSL_PROVIDER_load(libctx_, "hwaccel");
    default_ = OSSL_PROVIDER_load(libctx_, "default");
    if (hwaccel_ == nullptr || default_ == nullptr) {
        std::string why = take_errors();
        this->~LoadedProvider();
        throw std::runtime_error("loading providers failed: " + why);
    }
}

LoadedProvider::~LoadedProvider() {
    if (hwaccel_) OSSL_PROVIDER_unload(hwaccel_);
    if (default_) OSSL_PROVIDER_unload(default_);
    if (libctx_) OSSL_LIB_CTX_free(libctx_);
    hwaccel_ = default_ = nullptr;
    libctx_ = nullptr;
}

MdPtr LoadedProvider::md(const char* name) const {
    MdPtr md(EVP_MD_fetch(libctx_, name, "provider=hwaccel"));
    INFO("fetching " << name << " from hwaccel: " << take_errors());
    REQUIRE(md != nullptr);
    REQUIRE(provider_of(md.get()) == "hwaccel");
    record_provider_engine(engines(), family_of_algorithm(name), "evp");  // the engine manifest
    return md;
}

MdPtr LoadedProvider::default_md(const char* name) const {
    MdPtr md(EVP_MD_fetch(libctx_, name, "provider=default"));
    REQUIRE(md != nullptr);
    REQUIRE(provider_of(md.get()) == "default");
    return md;
}

CipherPtr LoadedProvider::cipher(const char* name) const {
    CipherPtr c(EVP_CIPHER_fetch(libctx_, name, "provider=hwaccel"));
    INFO("fetching " << name << " from hwaccel: " << take_errors());
    REQUIRE(c != nullptr);
    REQUIRE(provider_of(c.get()) == "hwaccel");
    for (const std::string& family : families_of_algorithm(name))
        record_provider_engine(engines(), family, "evp");  // the engine manifest
    return c;
}

CipherPtr LoadedProvider::default_cipher(const char* name) const {
    CipherPtr c(EVP_CIPHER_fetch(libctx_, name, "provider=default"));
    REQUIRE(c != nullptr);
    REQUIRE(provider_of(c.get()) == "default");
    return c;
}

CipherPtr LoadedProvider::default_cipher_if_any(const char* name) const {
    ERR_set_mark();
    CipherPtr c(EVP_CIPHER_fetch(libctx_, name, "provider=default"));
    ERR_pop_to_mark();
    return c;
}

std::string LoadedProvider::engines() const {
    char* value = nullptr;
    OSSL_PARAM request[] = {OSSL_PARAM_utf8_ptr("engines", &value, 0), OSSL_PARAM_END};
    if (!OSSL_PROVIDER_get_params(hwaccel_, request) || value == nullptr) return "";
    return value;
}

std::vector<std::string> engine_selections(const std::vector<std::string>& families) {
    const CpuFeatures& cpu = cpu_features();
    std::vector<std::string> out = {""};
    auto add_family = [&](const std::string& family, auto list) {
        for (const auto* e : list)
            if (e->available(cpu)) out.push_back(family + "=" + e->name);
    };
    for (const std::string& family : families) {
        if (family == "sha1") add_family(family, sha1_engines());
        else if (family == "sha256") add_family(family, sha256_engines());
        else if (family == "sha3") add_family(family, keccak_engines());
        else if (family == "sm4") add_family(family, sm4_engines());
        else if (family == "ghash") add_family(family, ghash_engines());
        else throw std::invalid_argument("no engine family " + family);
    }
    return out;
}

// GHASH engines serve SM4-GCM only: the suites that select them ask for them.
std::vector<std::string> engine_selections() {
    return engine_selections({"sha1", "sha256", "sha3", "sm4"});
}

std::string provider_of(const EVP_MD* md) {
    return OSSL_PROVIDER_get0_name(EVP_MD_get0_provider(md));
}

std::string provider_of(const EVP_CIPHER* cipher) {
    return OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(cipher));
}

void final_digest(EVP_MD_CTX* ctx, unsigned char* out, size_t n, bool xof) {
    if (xof) {
        REQUIRE(EVP_DigestFinalXOF(ctx, out, n) == 1);
        return;
    }
    unsigned int len = 0;
    REQUIRE(EVP_DigestFinal_ex(ctx, out, &len) == 1);
    REQUIRE(len == n);
}

std::string take_errors() { return take_error_codes().text; }

ErrorCodes take_error_codes() {
    ErrorCodes out;
    const char* file;
    const char* func;
    const char* data;
    int line, flags;
    unsigned long code;
    while ((code = ERR_get_error_all(&file, &line, &func, &data, &flags)) != 0) {
        out.codes.push_back(code);
        char buf[256];
        ERR_error_string_n(code, buf, sizeof buf);
        out.text += buf;
        if ((flags & ERR_TXT_STRING) && data) out.text += std::string(" (") + data + ")";
        out.text += "\n";
    }
    return out;
}

bool is_openssl_error(unsigned long code, int lib, int reason) {
    return code != 0 && ERR_GET_LIB(code) == lib && ERR_GET_REASON(code) == reason;
}

bool has_openssl_error(const ErrorCodes& errors, int lib, int reason) {
    for (unsigned long code : errors.codes)
        if (is_openssl_error(code, lib, reason)) return true;
    return false;
}

bool has_hwaccel_error(const ErrorCodes& errors, unsigned int own_reason) {
    for (unsigned long code : errors.codes)
        if (static_cast<unsigned int>(ERR_GET_REASON(code)) == own_reason) return true;
    return false;
}

bool shake_has_default_length() { return OpenSSL_version_num() < 0x30400000L; }

const std::vector<DigestName>& all_digests() {
    static const std::vector<DigestName> list = {
        {"SHA1", false},     {"SHA2-224", false}, {"SHA2-256", false},
        {"SHA3-224", false}, {"SHA3-256", false}, {"SHA3-384", false},
        {"SHA3-512", false}, {"SHAKE-128", true}, {"SHAKE-256", true},
    };
    return list;
}

}  // namespace hwaccel::test
