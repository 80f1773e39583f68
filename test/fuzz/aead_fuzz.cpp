// Differential fuzz target: SM4-GCM, SM4-CCM and SM4-XTS (hwaccel vs
// libgcrypt: OpenSSL 3.0's default provider has none of the three; see
// gcrypt_reference.hpp). The fuzzer's bytes pick the mode, key, IV/nonce,
// tag length, AAD and message (short ones from the input, long ones up to
// 5000 bytes from a pattern), the pieces they go through EVP in, in place
// or not, and where the context is copied (the copy goes on, the original
// gets more data and is freed: the copy must not share its state).
// Encryption must equal libgcrypt's; decryption must give the message back,
// and fail on a changed tag, ciphertext or AAD byte (CCM: writing nothing).
#include <fuzzer/FuzzedDataProvider.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include <cstring>
#include <memory>
#include <vector>

#include "fuzz_support.hpp"
#include "gcrypt_reference.hpp"

namespace hwaccel::fuzz {
namespace {

enum class Mode : uint8_t { kGcm, kCcm, kXts, kMax = kXts };

struct CtxFree {
    void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, CtxFree>;

// Never a null pointer, even when empty: EVP treats a NULL input specially.
struct Buf {
    Bytes b;
    explicit Buf(Bytes bytes) : b(std::move(bytes)) { b.reserve(b.size() + 1); }
    uint8_t* at(size_t i) { return b.data() + i; }
    size_t size() const { return b.size(); }
};

const EVP_CIPHER* ours(Mode m) {
    static EVP_CIPHER* c[3] = {fetch_cipher("SM4-GCM", true), fetch_cipher("SM4-CCM", true),
                               fetch_cipher("SM4-XTS", true)};
    return c[static_cast<int>(m)];
}

// Short data from the input, or long data from a pattern (5000: the bulk
// paths many times, fused and not).
Bytes take_data(FuzzedDataProvider& in) {
    if (in.ConsumeBool()) return in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 300));
    Bytes d(in.ConsumeIntegralInRange<size_t>(0, 5000));
    fill_pattern(d.data(), d.size(), in.ConsumeIntegral<uint8_t>());
    return d;
}

// Update pieces summing to `total`: empty ones, odd ones, whole blocks.
std::vector<size_t> take_pieces(FuzzedDataProvider& in, size_t total) {
    std::vector<size_t> pieces;
    while (total != 0) {
        size_t p = total;
        if (pieces.size() < 24 && in.remaining_bytes() != 0) {
            switch (in.ConsumeIntegralInRange<int>(0, 3)) {
            case 0: p = 0; break;
            case 1: p = in.ConsumeIntegralInRange<size_t>(1, 17); break;
            case 2: p = 16 * in.ConsumeIntegralInRange<size_t>(1, 80); break;
            default: p = in.ConsumeIntegralInRange<size_t>(0, total); break;
            }
        }
        p = std::min(p, total);
        pieces.push_back(p);
        total -= p;
    }
    return pieces;
}

// Goes on with a copy of the context; the original takes one more update
// (whatever it makes of it) before it is freed.
void continue_on_copy(CtxPtr& ctx) {
    CtxPtr copy(EVP_CIPHER_CTX_new());
    check(copy && EVP_CIPHER_CTX_copy(copy.get(), ctx.get()) == 1, "EVP_CIPHER_CTX_copy");
    uint8_t junk[64] = {0x5a}, out[80];
    int outl = 0;
    (void)EVP_CipherUpdate(ctx.get(), out, &outl, junk, sizeof junk);
    ERR_clear_error();
    ctx = std::move(copy);
}

struct Tamper {
    int what = -1;  // -1 none, 0 tag, 1 text, 2 AAD
    size_t at = 0;
    uint8_t bit = 1;
};

Tamper take_tamper(FuzzedDataProvider& in, size_t tag_len, size_t text_len, size_t aad_len) {
    Tamper t;
    t.what = in.ConsumeIntegralInRange<int>(0, 2);
    const size_t len = t.what == 0 ? tag_len : t.what == 1 ? text_len : aad_len;
    if (len == 0) t.what = 0;
    t.at = in.ConsumeIntegralInRange<size_t>(0, (t.what == 0 ? tag_len : len) - 1);
    t.bit = static_cast<uint8_t>(1u << in.ConsumeIntegralInRange<int>(0, 7));
    return t;
}

void apply(const Tamper& t, Bytes& tag, Bytes& text, Bytes& aad) {
    if (t.what < 0) return;
    Bytes& b = t.what == 0 ? tag : t.what == 1 ? text : aad;
    b[t.at] ^= t.bit;
}

// ---------------------------------------------------------------- GCM

struct GcmRun {
    bool ok = false;
    Bytes text, tag;
};

// enc: tag empty, the 16-byte tag returned; dec: checked against `tag`.
GcmRun gcm(FuzzedDataProvider& in, bool enc, const Bytes& key, const Bytes& iv, const Bytes& aad,
           const Bytes& input, const Bytes& tag) {
    const std::vector<size_t> aad_pieces = take_pieces(in, aad.size());
    const std::vector<size_t> text_pieces = take_pieces(in, input.size());
    const bool in_place = in.ConsumeBool();
    const size_t copy_at = in.ConsumeIntegralInRange<size_t>(0, aad_pieces.size() + text_pieces.size() + 1);
    HWACCEL_FUZZ_TRACE("gcm enc=%d iv %zu aad %zu/%zu text %zu/%zu in_place %d copy %zu tag %zu\n", enc,
                       iv.size(), aad.size(), aad_pieces.size(), input.size(), text_pieces.size(), in_place,
                       copy_at, tag.size());
    GcmRun r;
    CtxPtr ctx(EVP_CIPHER_CTX_new());
    size_t ivlen = iv.size();
    OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen), OSSL_PARAM_END};
    check(EVP_CipherInit_ex2(ctx.get(), ours(Mode::kGcm), nullptr, nullptr, enc, p) == 1, "GCM: ivlen");
    check(EVP_CipherInit_ex2(ctx.get(), nullptr, key.data(), iv.data(), enc, nullptr) == 1, "GCM: init");
    if (!enc) {
        Bytes t = tag;
        OSSL_PARAM q[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, t.data(), t.size()),
                          OSSL_PARAM_END};
        check(EVP_CIPHER_CTX_set_params(ctx.get(), q) == 1, "GCM: set tag");
    }
    size_t step = 0, pos = 0;
    Buf a(aad);
    for (size_t piece : aad_pieces) {
        int outl = -1;
        check(EVP_CipherUpdate(ctx.get(), nullptr, &outl, a.at(pos), static_cast<int>(piece)) == 1, "GCM: AAD");
        check(outl == static_cast<int>(piece), "GCM: AAD outl");
        pos += piece;
        if (++step == copy_at) continue_on_copy(ctx);
    }
    Buf src(input), dst(Bytes(input.size()));
    Buf& out = in_place ? src : dst;
    pos = 0;
    for (size_t piece : text_pieces) {
        int outl = -1;
        check(EVP_CipherUpdate(ctx.get(), out.at(pos), &outl, src.at(pos), static_cast<int>(piece)) == 1,
              "GCM: update");
        check(outl == static_cast<int>(piece), "GCM: update outl");
        pos += piece;
        if (++step == copy_at) continue_on_copy(ctx);
    }
    int outl = -1;
    r.ok = EVP_CipherFinal_ex(ctx.get(), out.at(pos), &outl) == 1;
    ERR_clear_error();
    r.text = out.b;
    if (r.ok && enc) {
        check(outl == 0, "GCM: final wrote");
        r.tag.resize(16);
        OSSL_PARAM q[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, r.tag.data(), 16),
                          OSSL_PARAM_END};
        check(EVP_CIPHER_CTX_get_params(ctx.get(), q) == 1, "GCM: get tag");
    }
    return r;
}

void fuzz_gcm(FuzzedDataProvider& in) {
    Bytes key(16), iv;
    in.ConsumeData(key.data(), key.size());
    iv = in.ConsumeBool() ? in.ConsumeBytes<uint8_t>(12) : in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(1, 128));
    iv.resize(std::max<size_t>(iv.size(), 1));  // the input ran out: 1..128 bytes still
    Bytes aad = take_data(in), msg = take_data(in);
    const Sealed want = gcrypt_gcm_seal(key, iv, aad, msg);
    const GcmRun got = gcm(in, true, key, iv, aad, msg, {});
    check(got.ok, "GCM: encryption failed");
    check(got.text.size() == want.text.size(), "GCM: ciphertext length");
    check_same(got.text.data(), want.text.data(), want.text.size(), "GCM: ciphertext differs from libgcrypt's");
    check_same(got.tag.data(), want.tag.data(), 16, "GCM: tag differs from libgcrypt's");
    Bytes tag(want.tag.begin(), want.tag.begin() + in.ConsumeIntegralInRange<size_t>(4, 16));
    const GcmRun plain = gcm(in, false, key, iv, aad, want.text, tag);
    check(plain.ok, "GCM: the right tag was refused");
    check_same(plain.text.data(), msg.data(), msg.size(), "GCM: decryption is not the message");
    Bytes text = want.text;
    apply(take_tamper(in, tag.size(), text.size(), aad.size()), tag, text, aad);
    check(!gcm(in, false, key, iv, aad, text, tag).ok, "GCM: a changed tag, ciphertext or AAD was accepted");
}

// ---------------------------------------------------------------- CCM

struct CcmRun {
    bool ok = false;
    Bytes out;  // the whole output buffer (0xee where nothing was written)
    Bytes tag;
};

CcmRun ccm(FuzzedDataProvider& in, bool enc, const Bytes& key, const Bytes& nonce, size_t tag_len,
           const Bytes& aad, const Bytes& input, const Bytes& tag) {
    const bool in_place = in.ConsumeBool();
    const int copy_at = in.ConsumeIntegralInRange<int>(0, 4);  // after init, length, AAD, payload; 4: none
    HWACCEL_FUZZ_TRACE("ccm enc=%d nonce %zu tag %zu aad %zu text %zu in_place %d copy %d\n", enc, nonce.size(),
                       tag_len, aad.size(), input.size(), in_place, copy_at);
    CcmRun r;
    CtxPtr ctx(EVP_CIPHER_CTX_new());
    size_t ivlen = nonce.size();
    Bytes t = tag;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                      OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, enc ? nullptr : t.data(), tag_len),
                      OSSL_PARAM_END};
    check(EVP_CipherInit_ex2(ctx.get(), ours(Mode::kCcm), nullptr, nullptr, enc, p) == 1, "CCM: params");
    check(EVP_CipherInit_ex2(ctx.get(), nullptr, key.data(), nonce.data(), enc, nullptr) == 1, "CCM: init");
    Buf src(input), dst(Bytes(input.size() + 16, 0xee)), a(aad);
    Buf& out = in_place ? src : dst;
    auto result = [&](bool ok) {
        ERR_clear_error();
        r.ok = ok;
        r.out = out.b;
        return r;
    };
    if (copy_at == 0) continue_on_copy(ctx);
    int n = -1;
    if (EVP_CipherUpdate(ctx.get(), nullptr, &n, nullptr, static_cast<int>(input.size())) != 1) return result(false);
    if (copy_at == 1) continue_on_copy(ctx);
    if (!aad.empty() && EVP_CipherUpdate(ctx.get(), nullptr, &n, a.at(0), static_cast<int>(aad.size())) != 1)
        return result(false);
    if (copy_at == 2) continue_on_copy(ctx);
    // An empty payload may be left to final, which runs it (an AAD-only
    // message, as in OpenSSL 4.0's default provider).
    const bool payload_by_final = input.empty() && in.ConsumeBool();
    if (!payload_by_final) {
        if (EVP_CipherUpdate(ctx.get(), out.at(0), &n, src.at(0), static_cast<int>(input.size())) != 1)
            return result(false);
        check(n == static_cast<int>(input.size()), "CCM: update outl");
    }
    if (copy_at == 3) continue_on_copy(ctx);
    int fin = -1;
    if (EVP_CipherFinal_ex(ctx.get(), out.at(input.size()), &fin) != 1) return result(false);
    check(fin == 0, "CCM: final wrote");
    if (enc) {
        r.tag.resize(tag_len);
        check(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(tag_len), r.tag.data()) == 1,
              "CCM: get tag");
    }
    return result(true);
}

void fuzz_ccm(FuzzedDataProvider& in) {
    Bytes key(16);
    in.ConsumeData(key.data(), key.size());
    Bytes nonce(in.ConsumeIntegralInRange<size_t>(7, 13));
    in.ConsumeData(nonce.data(), nonce.size());
    const size_t tag_len = 2 * in.ConsumeIntegralInRange<size_t>(2, 8);
    Bytes aad = take_data(in), msg = take_data(in);
    const Sealed want = gcrypt_ccm_seal(key, nonce, aad, msg, tag_len);
    const CcmRun got = ccm(in, true, key, nonce, tag_len, aad, msg, {});
    check(got.ok, "CCM: encryption failed");
    check_same(got.out.data(), want.text.data(), want.text.size(), "CCM: ciphertext differs from libgcrypt's");
    check_same(got.tag.data(), want.tag.data(), tag_len, "CCM: tag differs from libgcrypt's");
    Bytes tag = want.tag, text = want.text;
    const CcmRun plain = ccm(in, false, key, nonce, tag_len, aad, text, tag);
    check(plain.ok, "CCM: the right tag was refused");
    check_same(plain.out.data(), msg.data(), msg.size(), "CCM: decryption is not the message");
    apply(take_tamper(in, tag_len, text.size(), aad.size()), tag, text, aad);
    const CcmRun bad = ccm(in, false, key, nonce, tag_len, aad, text, tag);
    check(!bad.ok, "CCM: a changed tag, ciphertext or AAD was accepted");
    // No plaintext released: the output (or, in place, the input) is as it was.
    const bool untouched = bad.out == text || bad.out == Bytes(text.size() + 16, 0xee);
    check(untouched, "CCM: a refused message wrote output");
}

// ---------------------------------------------------------------- XTS

void fuzz_xts(FuzzedDataProvider& in) {
    Bytes key(32);
    in.ConsumeData(key.data(), key.size());
    if (in.ConsumeIntegral<uint8_t>() == 0) std::memcpy(key.data() + 16, key.data(), 16);
    uint8_t iv[16] = {0};
    in.ConsumeData(iv, sizeof iv);
    const bool enc = in.ConsumeBool(), ieee = in.ConsumeBool();
    const bool halves_equal = std::memcmp(key.data(), key.data() + 16, 16) == 0;
    HWACCEL_FUZZ_TRACE("xts enc=%d ieee=%d halves_equal=%d\n", enc, ieee, halves_equal);
    CtxPtr ctx(EVP_CIPHER_CTX_new());
    char standard[5];
    std::strcpy(standard, ieee ? "IEEE" : "GB");
    OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_string("xts_standard", standard, 0), OSSL_PARAM_END};
    const int init = EVP_CipherInit_ex2(ctx.get(), ours(Mode::kXts), key.data(), iv, enc, p);
    ERR_clear_error();
    if (enc && halves_equal) {  // refused, as the default provider's AES-XTS does
        check(init != 1, "XTS: equal key halves accepted for encryption");
        return;
    }
    check(init == 1, "XTS: init");
    // Data units through repeated updates, each under the same tweak.
    for (int unit = 0; unit < 4 && in.remaining_bytes() != 0; ++unit) {
        Bytes data = take_data(in);
        const bool in_place = in.ConsumeBool();
        HWACCEL_FUZZ_TRACE("  unit %zu in_place %d\n", data.size(), in_place);
        Buf src(data), dst(Bytes(data.size() + 16, 0xee));
        Buf& out = in_place ? src : dst;
        int outl = -1;
        const int ok = EVP_CipherUpdate(ctx.get(), out.at(0), &outl, src.at(0), static_cast<int>(data.size()));
        ERR_clear_error();
        if (data.size() < 16) {  // shorter than a block: refused, nothing written
            check(ok != 1, "XTS: a unit under 16 bytes accepted");
            check(in_place ? src.b == data : dst.b == Bytes(data.size() + 16, 0xee), "XTS: a refusal wrote");
            continue;
        }
        check(ok == 1 && outl == static_cast<int>(data.size()), "XTS: update");
        const Bytes want = gcrypt_xts(enc, ieee, key, iv, data);
        check_same(out.at(0), want.data(), want.size(), "XTS: output differs from the reference");
        if (in.ConsumeBool()) continue_on_copy(ctx);
    }
    int fin = -1;
    uint8_t last[16];
    check(EVP_CipherFinal_ex(ctx.get(), last, &fin) == 1 && fin == 0, "XTS: final");
}

void run(const uint8_t* data, size_t size) {
    FuzzedDataProvider in(data, size);
    switch (static_cast<Mode>(in.ConsumeIntegralInRange<uint8_t>(0, static_cast<uint8_t>(Mode::kMax)))) {
    case Mode::kGcm: fuzz_gcm(in); break;
    case Mode::kCcm: fuzz_ccm(in); break;
    case Mode::kXts: fuzz_xts(in); break;
    }
}

}  // namespace
}  // namespace hwaccel::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    hwaccel::fuzz::providers();
    hwaccel::fuzz::gcrypt_init();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    hwaccel::fuzz::run(data, size);
    return 0;
}
