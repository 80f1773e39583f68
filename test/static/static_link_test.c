/* libhwaccel.a linked into a C program, as an application links it: the
 * provider registered with OSSL_PROVIDER_add_builtin in a fresh library
 * context (no hwaccel.so, no module path), its algorithms fetched by
 * property and checked against the default provider's. Compiled as C, so
 * it also checks that hwaccel/hwaccel_provider.h is C. */
#include <hwaccel/hwaccel_provider.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                     \
    do {                                                                \
        if (!(cond)) {                                                  \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            ERR_print_errors_fp(stderr);                                \
            failures++;                                                 \
        }                                                               \
    } while (0)

static const size_t kLengths[] = {0, 3, 64, 1000, 70001};
static unsigned char input[70001];

static int digest(EVP_MD *md, int xof, const unsigned char *in, size_t len,
                  unsigned char *out, unsigned int *out_len) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int ok = ctx != NULL && EVP_DigestInit_ex2(ctx, md, NULL) &&
             EVP_DigestUpdate(ctx, in, len / 2) &&
             EVP_DigestUpdate(ctx, in + len / 2, len - len / 2);
    if (ok && xof) {
        *out_len = 100; /* longer than the 16 or 32 bytes a default length gives */
        ok = EVP_DigestFinalXOF(ctx, out, *out_len);
    } else if (ok) {
        ok = EVP_DigestFinal_ex(ctx, out, out_len);
    }
    EVP_MD_CTX_free(ctx);
    return ok;
}

static void check_digest(OSSL_LIB_CTX *libctx, const char *name, int xof) {
    EVP_MD *hw = EVP_MD_fetch(libctx, name, "provider=hwaccel");
    EVP_MD *ref = EVP_MD_fetch(libctx, name, "provider=default");
    size_t i;
    CHECK(hw != NULL && ref != NULL);
    if (hw == NULL || ref == NULL) goto done;
    CHECK(strcmp(OSSL_PROVIDER_get0_name(EVP_MD_get0_provider(hw)), "hwaccel") == 0);
    for (i = 0; i < sizeof kLengths / sizeof kLengths[0]; i++) {
        unsigned char a[EVP_MAX_MD_SIZE + 100], b[EVP_MAX_MD_SIZE + 100];
        unsigned int alen = 0, blen = 0;
        CHECK(digest(hw, xof, input, kLengths[i], a, &alen));
        CHECK(digest(ref, xof, input, kLengths[i], b, &blen));
        if (alen != blen || memcmp(a, b, alen) != 0) {
            fprintf(stderr, "FAIL: %s of %zu bytes differs from the default provider's\n", name,
                    kLengths[i]);
            failures++;
        }
    }
done:
    EVP_MD_free(hw);
    EVP_MD_free(ref);
}

static int sm4_ctr(EVP_CIPHER *c, const unsigned char *iv, const unsigned char *in, size_t len,
                   unsigned char *out) {
    static const unsigned char key[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int n1 = 0, n2 = 0;
    /* Two updates split at an odd place: the keystream carries across. */
    int ok = ctx != NULL && EVP_EncryptInit_ex2(ctx, c, key, iv, NULL) &&
             EVP_EncryptUpdate(ctx, out, &n1, in, (int)(len / 3)) &&
             EVP_EncryptUpdate(ctx, out + n1, &n2, in + len / 3, (int)(len - len / 3)) &&
             (size_t)(n1 + n2) == len;
    EVP_CIPHER_CTX_free(ctx);
    return ok;
}

static void check_sm4_ctr(OSSL_LIB_CTX *libctx) {
    static unsigned char a[70001], b[70001];
    unsigned char ivs[2][16];
    EVP_CIPHER *hw = EVP_CIPHER_fetch(libctx, "SM4-CTR", "provider=hwaccel");
    EVP_CIPHER *ref = EVP_CIPHER_fetch(libctx, "SM4-CTR", "provider=default");
    size_t i, k;
    memset(ivs[0], 0x5a, 16);
    memset(ivs[1], 0xff, 16); /* the 128-bit counter wraps after one block */
    CHECK(hw != NULL && ref != NULL);
    if (hw == NULL || ref == NULL) goto done;
    CHECK(strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(hw)), "hwaccel") == 0);
    for (k = 0; k < 2; k++) {
        for (i = 0; i < sizeof kLengths / sizeof kLengths[0]; i++) {
            CHECK(sm4_ctr(hw, ivs[k], input, kLengths[i], a));
            CHECK(sm4_ctr(ref, ivs[k], input, kLengths[i], b));
            if (memcmp(a, b, kLengths[i]) != 0) {
                fprintf(stderr, "FAIL: SM4-CTR of %zu bytes (iv %zu) differs from default's\n",
                        kLengths[i], k);
                failures++;
            }
        }
    }
done:
    EVP_CIPHER_free(hw);
    EVP_CIPHER_free(ref);
}

/* A config file's provider section reaches the builtin as it reaches the
 * module: the name registered with add_builtin is the section's name, and
 * its "engines" key forces engines (read back through the provider's
 * "engines" parameter). The file is the test's argument. */
static void check_config_section(const char *config_path) {
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *hw = NULL;
    const char *engines = NULL;
    OSSL_PARAM params[2];
    if (getenv("HWACCEL_ENGINES") != NULL) { /* the environment would win over the file */
        printf("config section check skipped: HWACCEL_ENGINES is set\n");
        OSSL_LIB_CTX_free(libctx);
        return;
    }
    CHECK(libctx != NULL);
    CHECK(OSSL_PROVIDER_add_builtin(libctx, "hwaccel", hwaccel_provider_init) == 1);
    CHECK(OSSL_LIB_CTX_load_config(libctx, config_path) == 1);
    CHECK(OSSL_PROVIDER_available(libctx, "hwaccel") == 1); /* activated by the file */
    hw = OSSL_PROVIDER_load(libctx, "hwaccel");              /* a reference to it */
    CHECK(hw != NULL);
    if (hw != NULL) {
        params[0] = OSSL_PARAM_construct_utf8_ptr("engines", (char **)&engines, 0);
        params[1] = OSSL_PARAM_construct_end();
        CHECK(OSSL_PROVIDER_get_params(hw, params) == 1);
        CHECK(engines != NULL && strstr(engines, "sm4=generic") != NULL);
        if (engines != NULL && strstr(engines, "sm4=generic") == NULL)
            fprintf(stderr, "engines: %s\n", engines);
        check_sm4_ctr(libctx); /* on the forced engine, against default */
        CHECK(OSSL_PROVIDER_unload(hw) == 1);
    }
    OSSL_LIB_CTX_free(libctx);
}

int main(int argc, char **argv) {
    OSSL_LIB_CTX *libctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER *hw = NULL, *def = NULL;
    EVP_MD *outside = NULL;
    size_t i;
    for (i = 0; i < sizeof input; i++) input[i] = (unsigned char)(i * 131 + (i >> 8));

    CHECK(libctx != NULL);
    CHECK(OSSL_PROVIDER_add_builtin(libctx, "hwaccel", hwaccel_provider_init) == 1);
    hw = OSSL_PROVIDER_load(libctx, "hwaccel");
    def = OSSL_PROVIDER_load(libctx, "default");
    CHECK(hw != NULL && def != NULL);
    if (hw == NULL || def == NULL) return 1;
    CHECK(strcmp(OSSL_PROVIDER_get0_name(hw), "hwaccel") == 0);

    check_digest(libctx, "SHA2-256", 0);
    check_digest(libctx, "SHA3-256", 0);
    check_digest(libctx, "SHAKE128", 1);
    check_sm4_ctr(libctx);

    /* Registered in libctx only: the default context knows no hwaccel. */
    outside = EVP_MD_fetch(NULL, "SHA2-256", "provider=hwaccel");
    CHECK(outside == NULL);
    EVP_MD_free(outside);
    ERR_clear_error();

    CHECK(OSSL_PROVIDER_unload(hw) == 1);
    CHECK(OSSL_PROVIDER_unload(def) == 1);
    OSSL_LIB_CTX_free(libctx);
    if (argc > 1) check_config_section(argv[1]);
    CHECK(ERR_peek_error() == 0);
    if (failures == 0) printf("static link test: passed\n");
    return failures != 0;
}
