// Driver of cxx_allocation_failure_test.sh: loads hwaccel from the directory
// in argv[1] and uses it (SHA-256, SM4-GCM) while malloc_failure_shim fails
// one allocation of the module or its C++ runtime. Prints what happened:
//   ok TAG       everything worked: SHA-256 gave the known answer, and TAG
//                is SM4-GCM's (the script compares it with a run without
//                failures)
//   refused      the load or an operation failed, with an OpenSSL error queued
// and exits 1 on a wrong answer or a failure without an error; a crash or
// std::terminate (an exception out of the module) ends it by a signal.
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdio>
#include <cstring>

namespace {

int refused(const char* what) {
    if (ERR_peek_error() == 0) {
        std::printf("FAIL: %s failed without an OpenSSL error\n", what);
        return 1;
    }
    std::printf("refused (%s)\n", what);
    return 0;
}

bool same(const unsigned char* got, const char* want_hex, size_t n) {
    char hex[2 * 64 + 1];
    for (size_t i = 0; i < n; ++i) std::snprintf(hex + 2 * i, 3, "%02x", got[i]);
    return std::strcmp(hex, want_hex) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    if (OSSL_PROVIDER_set_default_search_path(nullptr, argv[1]) != 1) return 2;
    OSSL_PROVIDER* prov = OSSL_PROVIDER_load(nullptr, "hwaccel");
    if (prov == nullptr) return refused("load");

    EVP_MD* sha256 = EVP_MD_fetch(nullptr, "SHA256", "provider=hwaccel");
    if (sha256 == nullptr) return refused("fetch SHA256");
    unsigned char md[32];
    unsigned int md_len = 0;
    if (EVP_Digest("abc", 3, md, &md_len, sha256, nullptr) != 1) return refused("SHA-256");
    // FIPS 180-2, appendix B.1.
    if (md_len != 32 || !same(md, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", 32)) {
        std::printf("FAIL: SHA-256(\"abc\") wrong\n");
        return 1;
    }
    EVP_MD_free(sha256);

    // SM4-GCM: a 64-byte text under a zero key and IV; its tag is printed.
    EVP_CIPHER* gcm = EVP_CIPHER_fetch(nullptr, "SM4-GCM", "provider=hwaccel");
    if (gcm == nullptr) return refused("fetch SM4-GCM");
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    if (ctx == nullptr) return refused("EVP_CIPHER_CTX_new");
    const unsigned char key[16] = {0}, iv[12] = {0};
    unsigned char text[64] = {0}, out[64], tag[16];
    int n = 0, m = 0;
    if (EVP_EncryptInit_ex(ctx, gcm, nullptr, key, iv) != 1) return refused("SM4-GCM init");
    if (EVP_EncryptUpdate(ctx, out, &n, text, sizeof text) != 1) return refused("SM4-GCM update");
    if (EVP_EncryptFinal_ex(ctx, out + n, &m) != 1) return refused("SM4-GCM final");
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1) return refused("SM4-GCM tag");
    if (n + m != 64) {
        std::printf("FAIL: SM4-GCM wrote %d bytes\n", n + m);
        return 1;
    }
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(gcm);
    OSSL_PROVIDER_unload(prov);
    std::printf("ok ");
    for (unsigned char b : tag) std::printf("%02x", b);
    for (int i = 0; i < 64; i += 16) std::printf(" %02x", out[i]);
    std::printf("\n");
    return 0;
}
