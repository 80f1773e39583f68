// libgcrypt as a third column of hwaccel-evp-bench, making the calls an
// application would make for what `openssl speed -evp` times: gcry_md reset +
// write + final + read (extract for SHAKE) on one handle, and for SM4 one
// gcry_cipher_encrypt/decrypt per call on a handle set up once. Compiled in
// only when scripts/bench.py builds the tool against a libgcrypt (--gcrypt).
#pragma once

#include <gcrypt.h>

#include <cstring>
#include <string>

#include "bench_op.hpp"

namespace bench {

// The library's own version (not the header's) and the CPU features it uses.
inline std::string gcrypt_init() {
    const char* version = gcry_check_version(nullptr);
    gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    return version ? version : "unknown";
}

// gcry_get_config(0, "hwflist") is "hwflist:intel-cpu:intel-bmi2:...:\n";
// returned as "intel-cpu,intel-bmi2,...".
inline std::string gcrypt_hwflist() {
#if GCRYPT_VERSION_NUMBER >= 0x010800
    char* config = gcry_get_config(0, "hwflist");
    if (config == nullptr) return "none";
    std::string list = config;
    gcry_free(config);
    if (list.compare(0, 8, "hwflist:") == 0) list.erase(0, 8);
    while (!list.empty() && (list.back() == '\n' || list.back() == ':')) list.pop_back();
    for (char& c : list)
        if (c == ':') c = ',';
    return list.empty() ? "none" : list;
#else
    return "unknown (libgcrypt before 1.8)";
#endif
}

class GcryptOp : public Op {
public:
    explicit GcryptOp(const Alg& a) : alg_(a) {
        if (a.cipher) {
            const int mode = cipher_mode(a.label);
            xts_ = is_xts(a.label);
            ok_ = mode != 0 && open_sm4(mode) &&
                  (xts_ ? gcry_cipher_setkey(cipher_, kXtsKey, 32) : gcry_cipher_setkey(cipher_, kKey, 16)) == 0;
            ccm_ = mode == GCRY_CIPHER_MODE_CCM;
            if (ok_ && (mode == GCRY_CIPHER_MODE_GCM || ccm_)) {
                // IV per call (run)
            } else if (ok_ && mode == GCRY_CIPHER_MODE_CTR) ok_ = gcry_cipher_setctr(cipher_, kIv, 16) == 0;
            else if (ok_ && mode != GCRY_CIPHER_MODE_ECB) ok_ = gcry_cipher_setiv(cipher_, kIv, 16) == 0;
        } else {
            algo_ = md_algo(a.label);
            xof_ = algo_ == GCRY_MD_SHAKE128 || algo_ == GCRY_MD_SHAKE256;
            ok_ = algo_ != 0 && gcry_md_open(&md_, algo_, 0) == 0;
            digest_len_ = ok_ ? (xof_ ? 32 : gcry_md_get_algo_dlen(algo_)) : 0;
        }
    }
    ~GcryptOp() override {
        gcry_cipher_close(cipher_);
        gcry_md_close(md_);
    }
    bool ok() const override { return ok_; }
    void run(const uint8_t* in, size_t len, uint8_t* out) override {
        if (alg_.aead && ccm_) {
            // CCM: the nonce, then the lengths (payload, no AAD, tag) before the text.
            gcry_cipher_setiv(cipher_, kIv, kAeadNonceLen);
            uint64_t lengths[3] = {len, 0, kAeadTagLen};
            gcry_cipher_ctl(cipher_, GCRYCTL_SET_CCM_LENGTHS, lengths, sizeof lengths);
            gcry_cipher_encrypt(cipher_, out, len, in, len);
            gcry_cipher_gettag(cipher_, out + len, kAeadTagLen);
            return;
        }
        if (alg_.aead) {
            gcry_cipher_setiv(cipher_, kAeadIv, sizeof kAeadIv);
            gcry_cipher_final(cipher_);
            gcry_cipher_encrypt(cipher_, out, len, in, len);
            gcry_cipher_gettag(cipher_, out + len, 16);
            return;
        }
        if (alg_.cipher) {
            // libgcrypt's XTS carries the tweak on from call to call; each
            // call here is a data unit of its own, as through EVP.
            if (xts_) gcry_cipher_setiv(cipher_, kIv, 16);
            if (alg_.encrypt) gcry_cipher_encrypt(cipher_, out, len, in, len);
            else gcry_cipher_decrypt(cipher_, out, len, in, len);
            return;
        }
        gcry_md_reset(md_);
        gcry_md_write(md_, in, len);
        if (xof_) {
            gcry_md_extract(md_, algo_, out, 32);
        } else {
            gcry_md_final(md_);
            std::memcpy(out, gcry_md_read(md_, algo_), digest_len_);
        }
    }
    size_t out_len(size_t len) const override {
        return alg_.aead ? len + 16 : alg_.cipher ? len : digest_len_;
    }

private:
    static int md_algo(const char* label) {
        static const struct { const char* label; int algo; } kMds[] = {
            {"sha1", GCRY_MD_SHA1},         {"sha224", GCRY_MD_SHA224},
            {"sha256", GCRY_MD_SHA256},     {"sha3-224", GCRY_MD_SHA3_224},
            {"sha3-256", GCRY_MD_SHA3_256}, {"sha3-384", GCRY_MD_SHA3_384},
            {"sha3-512", GCRY_MD_SHA3_512}, {"shake128", GCRY_MD_SHAKE128},
            {"shake256", GCRY_MD_SHAKE256},
        };
        for (const auto& m : kMds)
            if (std::strcmp(m.label, label) == 0) return m.algo;
        return 0;
    }
    static int cipher_mode(const char* label) {
        // SM4-CFB is CFB with 128-bit feedback, libgcrypt's GCRY_CIPHER_MODE_CFB.
        static const struct { const char* label; int mode; } kModes[] = {
            {"sm4-ecb", GCRY_CIPHER_MODE_ECB}, {"sm4-cbc", GCRY_CIPHER_MODE_CBC},
            {"sm4-cbc-dec", GCRY_CIPHER_MODE_CBC}, {"sm4-cfb", GCRY_CIPHER_MODE_CFB},
            {"sm4-cfb-dec", GCRY_CIPHER_MODE_CFB}, {"sm4-ofb", GCRY_CIPHER_MODE_OFB},
            {"sm4-ctr", GCRY_CIPHER_MODE_CTR}, {"sm4-gcm", GCRY_CIPHER_MODE_GCM}, {"sm4-ccm", GCRY_CIPHER_MODE_CCM},
#if GCRYPT_VERSION_NUMBER >= 0x010900
            {"sm4-xts", GCRY_CIPHER_MODE_XTS}, {"sm4-xts-dec", GCRY_CIPHER_MODE_XTS},
#endif
        };
        for (const auto& m : kModes)
            if (std::strcmp(m.label, label) == 0) return m.mode;
        return 0;
    }
    bool open_sm4(int mode) {
#if GCRYPT_VERSION_NUMBER >= 0x010900  // SM4 arrived in libgcrypt 1.9
        return gcry_cipher_open(&cipher_, GCRY_CIPHER_SM4, mode, 0) == 0;
#else
        (void)mode;
        return false;
#endif
    }

    const Alg& alg_;
    gcry_cipher_hd_t cipher_ = nullptr;
    gcry_md_hd_t md_ = nullptr;
    int algo_ = 0;
    size_t digest_len_ = 0;
    bool ok_ = false, xof_ = false, xts_ = false, ccm_ = false;
};

}  // namespace bench
