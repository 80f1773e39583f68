#include "gcrypt_reference.hpp"

#include <gcrypt.h>

#include <cstring>

#include "fuzz_support.hpp"

namespace hwaccel::fuzz {

namespace {

struct Handle {
    gcry_cipher_hd_t h = nullptr;
    Handle(int mode, const uint8_t* key, size_t key_len) {
        check(gcry_cipher_open(&h, GCRY_CIPHER_SM4, mode, 0) == 0, "libgcrypt: SM4 mode missing");
        check(gcry_cipher_setkey(h, key, key_len) == 0, "libgcrypt: setkey");
    }
    ~Handle() { gcry_cipher_close(h); }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
};

void ok(gcry_error_t e, const char* what) {
    if (e != 0) fail(what);
}

// Multiplication by alpha: IEEE 1619 little-endian, GB/T 17964 bit-reflected (as GCM's).
void times_alpha(bool ieee, uint8_t t[16]) {
    uint8_t carry = 0;
    if (ieee) {
        for (int i = 0; i < 16; ++i) {
            const uint8_t next = t[i] >> 7;
            t[i] = static_cast<uint8_t>(t[i] << 1 | carry);
            carry = next;
        }
        if (carry) t[0] ^= 0x87;
    } else {
        for (int i = 0; i < 16; ++i) {
            const uint8_t next = t[i] & 1;
            t[i] = static_cast<uint8_t>(t[i] >> 1 | carry << 7);
            carry = next;
        }
        if (carry) t[0] ^= 0xe1;
    }
}

// XTS with ciphertext stealing, block by block over libgcrypt's SM4-ECB.
Bytes xts_over_ecb(bool encrypt, bool ieee, const Bytes& key, const uint8_t iv[16], const Bytes& in) {
    Handle k1(GCRY_CIPHER_MODE_ECB, key.data(), 16), k2(GCRY_CIPHER_MODE_ECB, key.data() + 16, 16);
    uint8_t t[16];
    ok(gcry_cipher_encrypt(k2.h, t, 16, iv, 16), "libgcrypt: ECB");
    auto one = [&](uint8_t* out, const uint8_t* from, const uint8_t tw[16]) {
        uint8_t x[16];
        for (int i = 0; i < 16; ++i) x[i] = from[i] ^ tw[i];
        ok(encrypt ? gcry_cipher_encrypt(k1.h, x, 16, nullptr, 0) : gcry_cipher_decrypt(k1.h, x, 16, nullptr, 0),
           "libgcrypt: ECB");
        for (int i = 0; i < 16; ++i) out[i] = x[i] ^ tw[i];
    };
    Bytes out(in.size());
    const size_t m = in.size() / 16, tail = in.size() % 16;
    const size_t whole = tail ? m - 1 : m;
    for (size_t j = 0; j < whole; ++j) {
        one(&out[16 * j], &in[16 * j], t);
        times_alpha(ieee, t);
    }
    if (tail) {  // stealing: decryption takes the two tweaks in the other order
        uint8_t t_next[16], mid[16], last[16];
        std::memcpy(t_next, t, 16);
        times_alpha(ieee, t_next);
        const size_t at = 16 * (m - 1);
        one(mid, &in[at], encrypt ? t : t_next);
        std::memcpy(last, &in[at + 16], tail);
        std::memcpy(last + tail, mid + tail, 16 - tail);
        std::memcpy(&out[at + 16], mid, tail);
        one(&out[at], last, encrypt ? t_next : t);
    }
    return out;
}

}  // namespace

void gcrypt_init() {
    check(gcry_check_version(GCRYPT_VERSION) != nullptr, "libgcrypt: version");
    gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    for (int mode : {GCRY_CIPHER_MODE_ECB, GCRY_CIPHER_MODE_GCM, GCRY_CIPHER_MODE_CCM, GCRY_CIPHER_MODE_XTS}) {
        gcry_cipher_hd_t h;
        check(gcry_cipher_open(&h, GCRY_CIPHER_SM4, mode, 0) == 0, "libgcrypt lacks an SM4 mode (1.10+ needed)");
        gcry_cipher_close(h);
    }
}

Sealed gcrypt_gcm_seal(const Bytes& key, const Bytes& iv, const Bytes& aad, const Bytes& msg) {
    Handle g(GCRY_CIPHER_MODE_GCM, key.data(), key.size());
    Sealed s{Bytes(msg.size()), Bytes(16)};
    ok(gcry_cipher_setiv(g.h, iv.data(), iv.size()), "libgcrypt: GCM IV");
    ok(gcry_cipher_authenticate(g.h, aad.data(), aad.size()), "libgcrypt: GCM AAD");
    ok(gcry_cipher_final(g.h), "libgcrypt: GCM final");
    ok(gcry_cipher_encrypt(g.h, s.text.data(), s.text.size(), msg.data(), msg.size()), "libgcrypt: GCM");
    ok(gcry_cipher_gettag(g.h, s.tag.data(), s.tag.size()), "libgcrypt: GCM tag");
    return s;
}

Sealed gcrypt_ccm_seal(const Bytes& key, const Bytes& nonce, const Bytes& aad, const Bytes& msg,
                       size_t tag_len) {
    Handle c(GCRY_CIPHER_MODE_CCM, key.data(), key.size());
    Sealed s{Bytes(msg.size()), Bytes(tag_len)};
    ok(gcry_cipher_setiv(c.h, nonce.data(), nonce.size()), "libgcrypt: CCM nonce");
    uint64_t lengths[3] = {msg.size(), aad.size(), tag_len};
    ok(gcry_cipher_ctl(c.h, GCRYCTL_SET_CCM_LENGTHS, lengths, sizeof lengths), "libgcrypt: CCM lengths");
    ok(gcry_cipher_authenticate(c.h, aad.data(), aad.size()), "libgcrypt: CCM AAD");
    ok(gcry_cipher_encrypt(c.h, s.text.data(), s.text.size(), msg.data(), msg.size()), "libgcrypt: CCM");
    ok(gcry_cipher_gettag(c.h, s.tag.data(), s.tag.size()), "libgcrypt: CCM tag");
    return s;
}

Bytes gcrypt_xts(bool encrypt, bool ieee, const Bytes& key, const uint8_t iv[16], const Bytes& in) {
    const Bytes built = xts_over_ecb(encrypt, ieee, key, iv, in);
    if (!ieee) return built;
    Handle x(GCRY_CIPHER_MODE_XTS, key.data(), key.size());
    Bytes out(in.size());
    ok(gcry_cipher_setiv(x.h, iv, 16), "libgcrypt: XTS tweak");
    ok(encrypt ? gcry_cipher_encrypt(x.h, out.data(), out.size(), in.data(), in.size())
               : gcry_cipher_decrypt(x.h, out.data(), out.size(), in.data(), in.size()),
       "libgcrypt: XTS");
    check_same(built.data(), out.data(), out.size(), "the XTS built over ECB differs from libgcrypt's");
    return out;
}

}  // namespace hwaccel::fuzz
