// Loading hwaccel.so from the build tree into a fresh library context, next
// to OpenSSL's default provider, with a chosen engine selection.
#pragma once

#include <openssl/evp.h>
#include <openssl/provider.h>

#include <memory>
#include <string>
#include <vector>

namespace hwaccel::test {

struct MdDeleter {
    void operator()(EVP_MD* md) const { EVP_MD_free(md); }
};
struct MdCtxDeleter {
    void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct CipherDeleter {
    void operator()(EVP_CIPHER* c) const { EVP_CIPHER_free(c); }
};
struct CipherCtxDeleter {
    void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
using MdPtr = std::unique_ptr<EVP_MD, MdDeleter>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxDeleter>;
using CipherPtr = std::unique_ptr<EVP_CIPHER, CipherDeleter>;
using CipherCtxPtr = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxDeleter>;

class LoadedProvider {
public:
    // `engines` is passed to the provider as HWACCEL_ENGINES while it loads
    // (empty: the registry's own choice). Throws if loading fails.
    explicit LoadedProvider(const std::string& engines = "");
    ~LoadedProvider();
    LoadedProvider(const LoadedProvider&) = delete;
    LoadedProvider& operator=(const LoadedProvider&) = delete;

    OSSL_LIB_CTX* libctx() const { return libctx_; }
    OSSL_PROVIDER* hwaccel() const { return hwaccel_; }
    OSSL_PROVIDER* default_provider() const { return default_; }

    // Fetches from hwaccel ("provider=hwaccel") or from default; REQUIREs
    // success and, for ours, that hwaccel really is the provider.
    MdPtr md(const char* name) const;
    MdPtr default_md(const char* name) const;
    CipherPtr cipher(const char* name) const;
    CipherPtr default_cipher(const char* name) const;
    // The default provider's, or null where its release has none (SM4-GCM,
    // CCM and XTS before 3.6); the error queue is left as it was.
    CipherPtr default_cipher_if_any(const char* name) const;

    // The provider's "engines" parameter, e.g. "sha1=generic,...".
    std::string engines() const;

private:
    OSSL_LIB_CTX* libctx_ = nullptr;
    OSSL_PROVIDER* hwaccel_ = nullptr;
    OSSL_PROVIDER* default_ = nullptr;
};

// Engine selections to run the EVP suites under: the automatic choice, and
// every engine this CPU can run for every family, forced one at a time.
std::vector<std::string> engine_selections();
// The same for the named families only (as "engines" names them: sha1,
// sha256, sha3, sm4, ghash), e.g. {"sm4", "ghash"} for SM4-GCM.
std::vector<std::string> engine_selections(const std::vector<std::string>& families);

// The name of the provider that serves a fetched algorithm.
std::string provider_of(const EVP_MD* md);
std::string provider_of(const EVP_CIPHER* cipher);

// Finishes a digest: n bytes through EVP_DigestFinalXOF for an XOF, otherwise
// EVP_DigestFinal_ex, whose length must be n. REQUIREs success.
void final_digest(EVP_MD_CTX* ctx, unsigned char* out, size_t n, bool xof);

// Empties OpenSSL's error queue into a string (for assertions on messages).
std::string take_errors();

// Empties OpenSSL's error queue: each error's code, oldest first, and all
// the text (take_errors()'s) for messages.
struct ErrorCodes {
    std::vector<unsigned long> codes;
    std::string text;
    unsigned long last() const { return codes.empty() ? 0 : codes.back(); }
};
ErrorCodes take_error_codes();

// Whether an error code is OpenSSL's (lib, reason), e.g. (ERR_LIB_PROV,
// PROV_R_BAD_DECRYPT): what the default provider raises and hwaccel raises
// for the same refusal.
bool is_openssl_error(unsigned long code, int lib, int reason);
// Whether the queue held that code.
bool has_openssl_error(const ErrorCodes& errors, int lib, int reason);

// Whether the queue held hwaccel's own reason (errors.hpp's Reason, one of
// those with no OpenSSL equivalent). Matched by the reason number alone,
// which no OpenSSL library uses: the library number is the one the core
// handed this load of the module, and it wraps into OpenSSL's own after 128
// loads in a process, so neither it nor the reason's string (looked up
// under it) may be relied on.
bool has_hwaccel_error(const ErrorCodes& errors, unsigned int own_reason);

// Whether the running libcrypto gives SHAKE a default output length
// (OpenSSL 3.0-3.3 do; 3.4 and later do not).
bool shake_has_default_length();

// The digests hwaccel serves, by their canonical names.
struct DigestName {
    const char* name;
    bool xof;
};
const std::vector<DigestName>& all_digests();

}  // namespace hwaccel::test
