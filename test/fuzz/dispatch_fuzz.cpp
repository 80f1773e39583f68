// Fuzz target: hwaccel.so's dispatch tables driven directly through a fake
// core, so that calls EVP never makes reach the provider: lengths no buffer
// can have (huge, negative ints turned size_t, ranges that wrap), NULL
// buffers with lengths, output buffers one byte short, `num` out of range,
// parameters of the wrong type, and squeeze (not in OpenSSL 3.0's EVP).
//
// Three contexts per input: A takes every call, hostile ones included; B
// only the valid ones; D is OpenSSL's default provider through EVP, given
// the same valid operations. Every hostile call on A must return 0, raise an
// error and write nothing; every output of A must equal B's and D's, so a
// refused call that changed A's state shows up in a later output.
#include <fuzzer/FuzzedDataProvider.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

#include "digest/newer_dispatch_ids.hpp"  // squeeze and copyctx ids on 3.0 headers
#include "fuzz_fake_core.hpp"
#include "fuzz_support.hpp"

namespace hwaccel::fuzz {
namespace {

const FakeCoreModule& module() {
    static const FakeCoreModule m(module_dir().c_str());
    return m;
}

constexpr uint8_t kCanary = 0xa5;

// A buffer whose bytes must survive a refused call.
struct Canary {
    uint8_t bytes[64];
    Canary() { std::memset(bytes, kCanary, sizeof bytes); }
    void check_untouched(const char* what) const {
        for (uint8_t b : bytes) check(b == kCanary, what);
    }
};

// Refused: returned 0 and raised at least one error.
void check_refused(int rc, size_t errors_before, const char* what) {
    check(rc == 0, what);
    check(FakeCoreModule::errors() > errors_before, what);
}

// Lengths no buffer can have, given a real pointer `p`; with `from_int`
// also those EVP cannot have passed on from an int (cipher update).
size_t impossible_length(FuzzedDataProvider& in, const void* p, bool from_int) {
    switch (in.ConsumeIntegralInRange<int>(0, from_int ? 4 : 3)) {
        case 0: return SIZE_MAX - in.ConsumeIntegralInRange<size_t>(0, 64);  // -1 .. -65 as size_t
        case 1: return size_t{1} << 63;
        case 2: return static_cast<size_t>(PTRDIFF_MAX) + 1 + in.ConsumeIntegralInRange<size_t>(0, 4096);
        case 3: return 0 - reinterpret_cast<uintptr_t>(p) + in.ConsumeIntegralInRange<size_t>(0, 64);  // wraps
        default: return static_cast<size_t>(INT_MAX) + 1 + in.ConsumeIntegralInRange<size_t>(0, UINT_MAX);
    }
}

// ------------------------------------------------------------------ digests

struct DigestFns {
    OSSL_FUNC_digest_newctx_fn* newctx;
    OSSL_FUNC_digest_freectx_fn* freectx;
    OSSL_FUNC_digest_dupctx_fn* dupctx;
    OSSL_FUNC_digest_copyctx_fn* copyctx;
    OSSL_FUNC_digest_init_fn* init;
    OSSL_FUNC_digest_update_fn* update;
    OSSL_FUNC_digest_final_fn* final;
    OSSL_FUNC_digest_squeeze_fn* squeeze;  // XOFs only
    explicit DigestFns(const OSSL_DISPATCH* t)
        : newctx(find_function<OSSL_FUNC_digest_newctx_fn>(t, OSSL_FUNC_DIGEST_NEWCTX)),
          freectx(find_function<OSSL_FUNC_digest_freectx_fn>(t, OSSL_FUNC_DIGEST_FREECTX)),
          dupctx(find_function<OSSL_FUNC_digest_dupctx_fn>(t, OSSL_FUNC_DIGEST_DUPCTX)),
          copyctx(find_function<OSSL_FUNC_digest_copyctx_fn>(t, OSSL_FUNC_DIGEST_COPYCTX)),
          init(find_function<OSSL_FUNC_digest_init_fn>(t, OSSL_FUNC_DIGEST_INIT)),
          update(find_function<OSSL_FUNC_digest_update_fn>(t, OSSL_FUNC_DIGEST_UPDATE)),
          final(find_function<OSSL_FUNC_digest_final_fn>(t, OSSL_FUNC_DIGEST_FINAL)),
          squeeze(find_function<OSSL_FUNC_digest_squeeze_fn>(t, OSSL_FUNC_DIGEST_SQUEEZE)) {}
};

struct DigestAlg {
    const char* name;
    size_t size;  // 0: XOF
};
const DigestAlg kDigests[] = {{"SHA1", 20},     {"SHA2-224", 28}, {"SHA2-256", 32},
                              {"SHA3-224", 28}, {"SHA3-256", 32}, {"SHA3-384", 48},
                              {"SHA3-512", 64}, {"SHAKE-128", 0}, {"SHAKE-256", 0}};

enum class DigestOp : uint8_t {
    kUpdate, kFinal, kSqueeze, kDup, kCopyctx, kReinit,
    kHugeUpdate, kNullUpdate, kShortFinal, kNullFinal, kBadSqueeze, kBadXoflen, kMax = kBadXoflen
};

constexpr size_t kSqueezeCap = 3000;  // total squeezed per message

void fuzz_digest(FuzzedDataProvider& in) {
    const DigestAlg& alg = kDigests[in.ConsumeIntegralInRange<size_t>(0, std::size(kDigests) - 1)];
    static EVP_MD* theirs_md[std::size(kDigests)];
    EVP_MD*& md = theirs_md[&alg - kDigests];
    if (md == nullptr) md = fetch_md(alg.name, false);
    const DigestFns f(module().digest(alg.name));
    const bool xof = alg.size == 0;
    HWACCEL_FUZZ_TRACE("%s\n", alg.name);
    check(!xof || f.squeeze != nullptr, "an XOF without squeeze");

    size_t xoflen = 0;
    void* a = f.newctx(module().provctx());
    void* b = f.newctx(module().provctx());
    EVP_MD_CTX* d = EVP_MD_CTX_new();
    check(a && b && d, "newctx");
    bool squeezing = false;
    std::vector<uint8_t> stream;  // default's output for the squeezes of this message
    size_t squeezed = 0;

    auto init_all = [&] {
        xoflen = in.ConsumeIntegralInRange<size_t>(0, 600);
        OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &xoflen), OSSL_PARAM_END};
        check(f.init(a, xof ? p : nullptr) == 1 && f.init(b, xof ? p : nullptr) == 1, "digest init");
        check(EVP_DigestInit_ex2(d, md, nullptr) == 1, "default init");
        squeezing = false;
        squeezed = 0;
    };
    auto need = [&] { return xof ? xoflen : alg.size; };
    init_all();

    std::vector<uint8_t> buf;
    while (in.remaining_bytes() != 0) {
        const size_t errors_before = FakeCoreModule::errors();
        Canary canary;
        size_t outl = 777;
        const auto op = static_cast<DigestOp>(in.ConsumeIntegralInRange<uint8_t>(0, static_cast<uint8_t>(DigestOp::kMax)));
        HWACCEL_FUZZ_TRACE("digest op %d\n", static_cast<int>(op));
        switch (op) {
            case DigestOp::kUpdate:
                if (squeezing) break;
                buf = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 400));
                check(f.update(a, buf.data(), buf.size()) == 1 && f.update(b, buf.data(), buf.size()) == 1,
                      "digest update");
                check(EVP_DigestUpdate(d, buf.data(), buf.size()) == 1, "default update");
                break;
            case DigestOp::kFinal: {
                if (squeezing) break;
                std::vector<uint8_t> ra(need() + 1), rb(need() + 1), rd(need() + 1);
                size_t la = 0, lb = 0;
                check(f.final(a, ra.data(), &la, need()) == 1 && f.final(b, rb.data(), &lb, need()) == 1,
                      "digest final");
                check(la == need() && lb == need(), "digest final: length");
                check((xof ? EVP_DigestFinalXOF(d, rd.data(), need()) : EVP_DigestFinal_ex(d, rd.data(), nullptr)) == 1,
                      "default final");
                check_same(ra.data(), rd.data(), need(), "digest final: A differs from default");
                check_same(rb.data(), rd.data(), need(), "digest final: B differs from default");
                init_all();
                break;
            }
            case DigestOp::kSqueeze: {
                if (!xof) break;
                if (!squeezing) {
                    // Squeezes in any pieces equal one long FinalXOF (default's).
                    EVP_MD_CTX* copy = EVP_MD_CTX_new();
                    stream.assign(kSqueezeCap, 0);
                    check(copy && EVP_MD_CTX_copy_ex(copy, d) == 1 &&
                              EVP_DigestFinalXOF(copy, stream.data(), stream.size()) == 1,
                          "default reference stream");
                    EVP_MD_CTX_free(copy);
                    squeezing = true;
                }
                const size_t piece = std::min(in.ConsumeIntegralInRange<size_t>(0, 400), kSqueezeCap - squeezed);
                std::vector<uint8_t> ra(piece + 1), rb(piece + 1);
                size_t la = 0, lb = 0;
                check(f.squeeze(a, ra.data(), &la, piece) == 1 && f.squeeze(b, rb.data(), &lb, piece) == 1,
                      "squeeze");
                check(la == piece && lb == piece, "squeeze: length");
                check_same(ra.data(), stream.data() + squeezed, piece, "squeeze: A differs from default's FinalXOF");
                check_same(rb.data(), stream.data() + squeezed, piece, "squeeze: B differs from default's FinalXOF");
                squeezed += piece;
                break;
            }
            case DigestOp::kDup: {
                void* a2 = f.dupctx(a);
                void* b2 = f.dupctx(b);
                EVP_MD_CTX* d2 = EVP_MD_CTX_new();
                check(a2 && b2 && d2 && EVP_MD_CTX_copy_ex(d2, d) == 1, "dupctx");
                f.freectx(a), f.freectx(b), EVP_MD_CTX_free(d);
                a = a2, b = b2, d = d2;
                break;
            }
            case DigestOp::kCopyctx: {
                void* a2 = f.newctx(module().provctx());
                check(a2 != nullptr, "newctx");
                f.copyctx(a2, a);
                f.freectx(a);
                a = a2;
                break;
            }
            case DigestOp::kReinit:
                init_all();
                break;
            // Hostile calls, on A only.
            case DigestOp::kHugeUpdate: {
                const size_t len = impossible_length(in, canary.bytes, false);
                check_refused(f.update(a, canary.bytes, len), errors_before, "update with an impossible length accepted");
                break;
            }
            case DigestOp::kNullUpdate:
                check_refused(f.update(a, nullptr, in.ConsumeIntegralInRange<size_t>(1, 1 << 20)),
                              errors_before, "update from NULL accepted");
                break;
            case DigestOp::kShortFinal: {
                if (need() == 0) break;
                const size_t size = need() - 1 - in.ConsumeIntegralInRange<size_t>(0, need() - 1);
                // Before OpenSSL 3.4 EVP_DigestFinal_ex passes SHAKE's default size
                // (16 or 32) whatever xoflen is, and an xoflen up to 64 is then
                // written as asked (README, "Where hwaccel is stricter"): not a
                // short buffer there.
                if (xof && (size == 16 || size == 32) && need() <= 64 && OpenSSL_version_num() < 0x30400000L) break;
                check_refused(f.final(a, canary.bytes, &outl, size), errors_before, "final into a short buffer accepted");
                break;
            }
            case DigestOp::kNullFinal:
                if (need() == 0) break;
                check_refused(f.final(a, nullptr, &outl, SIZE_MAX - in.ConsumeIntegralInRange<size_t>(0, 64)),
                              errors_before, "final into NULL accepted");
                break;
            case DigestOp::kBadSqueeze:
                if (!xof) break;
                if (in.ConsumeBool())
                    check_refused(f.squeeze(a, nullptr, &outl, in.ConsumeIntegralInRange<size_t>(1, 1 << 20)),
                                  errors_before, "squeeze into NULL accepted");
                else
                    check_refused(f.squeeze(a, canary.bytes, &outl, impossible_length(in, canary.bytes, false)),
                                  errors_before, "squeeze with an impossible length accepted");
                break;
            case DigestOp::kBadXoflen: {
                if (!xof) break;
                auto* set = find_function<OSSL_FUNC_digest_set_ctx_params_fn>(module().digest(alg.name),
                                                                             OSSL_FUNC_DIGEST_SET_CTX_PARAMS);
                char text[] = "32";
                int negative = -in.ConsumeIntegralInRange<int>(1, INT_MAX);
                OSSL_PARAM as_text[] = {OSSL_PARAM_utf8_string(OSSL_DIGEST_PARAM_XOFLEN, text, 2), OSSL_PARAM_END};
                OSSL_PARAM as_negative[] = {OSSL_PARAM_int(OSSL_DIGEST_PARAM_XOFLEN, &negative), OSSL_PARAM_END};
                check_refused(set(a, in.ConsumeBool() ? as_text : as_negative), errors_before,
                              "xoflen of the wrong type accepted");
                break;
            }
        }
        canary.check_untouched("a refused digest call wrote to its buffer");
        check(outl == 777, "a digest call reported output it should not have");
    }
    f.freectx(a);
    f.freectx(b);
    EVP_MD_CTX_free(d);
}

// ------------------------------------------------------------------ ciphers

struct CipherFns {
    OSSL_FUNC_cipher_newctx_fn* newctx;
    OSSL_FUNC_cipher_freectx_fn* freectx;
    OSSL_FUNC_cipher_dupctx_fn* dupctx;
    OSSL_FUNC_cipher_encrypt_init_fn* einit;
    OSSL_FUNC_cipher_decrypt_init_fn* dinit;
    OSSL_FUNC_cipher_update_fn* update;
    OSSL_FUNC_cipher_final_fn* final;
    OSSL_FUNC_cipher_cipher_fn* cipher;
    OSSL_FUNC_cipher_get_ctx_params_fn* get;
    OSSL_FUNC_cipher_set_ctx_params_fn* set;
    explicit CipherFns(const OSSL_DISPATCH* t)
        : newctx(find_function<OSSL_FUNC_cipher_newctx_fn>(t, OSSL_FUNC_CIPHER_NEWCTX)),
          freectx(find_function<OSSL_FUNC_cipher_freectx_fn>(t, OSSL_FUNC_CIPHER_FREECTX)),
          dupctx(find_function<OSSL_FUNC_cipher_dupctx_fn>(t, OSSL_FUNC_CIPHER_DUPCTX)),
          einit(find_function<OSSL_FUNC_cipher_encrypt_init_fn>(t, OSSL_FUNC_CIPHER_ENCRYPT_INIT)),
          dinit(find_function<OSSL_FUNC_cipher_decrypt_init_fn>(t, OSSL_FUNC_CIPHER_DECRYPT_INIT)),
          update(find_function<OSSL_FUNC_cipher_update_fn>(t, OSSL_FUNC_CIPHER_UPDATE)),
          final(find_function<OSSL_FUNC_cipher_final_fn>(t, OSSL_FUNC_CIPHER_FINAL)),
          cipher(find_function<OSSL_FUNC_cipher_cipher_fn>(t, OSSL_FUNC_CIPHER_CIPHER)),
          get(find_function<OSSL_FUNC_cipher_get_ctx_params_fn>(t, OSSL_FUNC_CIPHER_GET_CTX_PARAMS)),
          set(find_function<OSSL_FUNC_cipher_set_ctx_params_fn>(t, OSSL_FUNC_CIPHER_SET_CTX_PARAMS)) {}
};

const char* const kCiphers[] = {"SM4-ECB", "SM4-CBC", "SM4-CFB", "SM4-OFB", "SM4-CTR"};

enum class CipherOp : uint8_t {
    kUpdate, kUpdateInPlace, kCipher, kFinal, kSetNum, kDup,
    kHugeUpdate, kNullInput, kShortOutput, kNullOutput, kHugeCipher, kBadNum, kBadPadding,
    kShortFinal, kMax = kShortFinal
};

constexpr size_t kBlock = 16;

// Updated IV and num of one provider context.
struct Registers {
    uint8_t iv[kBlock] = {0};
    unsigned num = 0;
};
Registers registers(const CipherFns& f, void* ctx) {
    Registers r;
    OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, r.iv, sizeof r.iv),
                      OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &r.num), OSSL_PARAM_END};
    check(f.get(ctx, p) == 1, "get_ctx_params");
    return r;
}

void fuzz_cipher(FuzzedDataProvider& in) {
    const size_t which = in.ConsumeIntegralInRange<size_t>(0, std::size(kCiphers) - 1);
    const char* name = kCiphers[which];
    static EVP_CIPHER* theirs_cipher[std::size(kCiphers)];
    if (theirs_cipher[which] == nullptr) theirs_cipher[which] = fetch_cipher(name, false);
    const CipherFns f(module().cipher(name));
    const bool block = which < 2;
    const size_t ivlen = which == 0 ? 0 : kBlock;

    const int enc = in.ConsumeBool();
    unsigned padding = in.ConsumeBool();
    HWACCEL_FUZZ_TRACE("%s enc=%d padding=%u\n", name, enc, padding);
    uint8_t key[kBlock], iv[kBlock];
    in.ConsumeData(key, sizeof key);
    in.ConsumeData(iv, sizeof iv);
    void* a = f.newctx(module().provctx());
    void* b = f.newctx(module().provctx());
    EVP_CIPHER_CTX* d = EVP_CIPHER_CTX_new();
    check(a && b && d, "cipher newctx");
    OSSL_PARAM pad[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &padding), OSSL_PARAM_END};
    auto init_all = [&](const uint8_t* k, const uint8_t* v) {
        auto* init = enc ? f.einit : f.dinit;
        check(init(a, k, k ? kBlock : 0, v, v ? ivlen : 0, pad) == 1 &&
                  init(b, k, k ? kBlock : 0, v, v ? ivlen : 0, pad) == 1,
              "cipher init");
        // The cipher only the first time: passing it again makes EVP start
        // from a fresh provider context, without the key.
        const bool first = EVP_CIPHER_CTX_get0_cipher(d) == nullptr;
        check(EVP_CipherInit_ex2(d, first ? theirs_cipher[which] : nullptr, k, v, enc, nullptr) == 1 &&
                  EVP_CIPHER_CTX_set_padding(d, static_cast<int>(padding)) == 1,
              "default cipher init");
    };
    init_all(key, ivlen ? iv : nullptr);

    // A valid update on A (maybe in place, maybe after a hostile try), B and D.
    auto update_all = [&](const std::vector<uint8_t>& data, bool in_place, int hostile, size_t errors_before) {
        std::vector<uint8_t> oa(data.size() + kBlock), ob(data.size() + kBlock), od(data.size() + kBlock);
        size_t lb = 0;
        check(f.update(b, ob.data(), &lb, ob.size(), data.data(), data.size()) == 1, "update B");
        if (hostile != 0 && lb != 0) {
            Canary canary;
            size_t outl = 777;
            if (hostile == 1)  // one byte or more short
                check_refused(f.update(a, canary.bytes, &outl, lb - 1 - in.ConsumeIntegralInRange<size_t>(0, lb - 1),
                                       data.data(), data.size()),
                              errors_before, "update into a short buffer accepted");
            else
                check_refused(f.update(a, nullptr, &outl, oa.size(), data.data(), data.size()), errors_before,
                              "update into NULL accepted");
            canary.check_untouched("a refused update wrote to its buffer");
            check(outl == 777, "a refused update reported output");
        }
        size_t la = 0;
        if (in_place) std::copy(data.begin(), data.end(), oa.begin());
        check(f.update(a, oa.data(), &la, oa.size(), in_place ? oa.data() : data.data(), data.size()) == 1, "update A");
        int ld = 0;
        check(EVP_CipherUpdate(d, od.data(), &ld, data.data(), static_cast<int>(data.size())) == 1, "default update");
        check(la == lb && lb == static_cast<size_t>(ld), "update: output lengths differ");
        check_same(oa.data(), od.data(), la, "update: A differs from default");
        check_same(ob.data(), od.data(), lb, "update: B differs from default");
    };

    std::vector<uint8_t> buf;
    while (in.remaining_bytes() != 0) {
        const size_t errors_before = FakeCoreModule::errors();
        Canary canary;
        size_t outl = 777;
        const auto op = static_cast<CipherOp>(in.ConsumeIntegralInRange<uint8_t>(0, static_cast<uint8_t>(CipherOp::kMax)));
        HWACCEL_FUZZ_TRACE("cipher op %d\n", static_cast<int>(op));
        switch (op) {
            case CipherOp::kUpdate:
            case CipherOp::kUpdateInPlace:
            case CipherOp::kShortOutput:
            case CipherOp::kNullOutput: {
                const uint8_t kind = in.ConsumeIntegralInRange<uint8_t>(0, 3);
                buf = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 600));
                update_all(buf, kind == 1, kind >= 2 ? kind - 1 : 0, errors_before);
                break;
            }
            case CipherOp::kCipher: {
                size_t len = in.ConsumeIntegralInRange<size_t>(0, 1000);
                if (block) len -= len % kBlock;
                buf.resize(len);
                fill_pattern(buf.data(), len, in.ConsumeIntegral<uint8_t>());
                std::vector<uint8_t> oa(len + 1), ob(len + 1), od(len + kBlock);
                size_t la = 0, lb = 0;
                check(f.cipher(a, oa.data(), &la, len, buf.data(), len) == 1 &&
                          f.cipher(b, ob.data(), &lb, len, buf.data(), len) == 1,
                      "cipher");
                check(EVP_Cipher(d, od.data(), buf.data(), static_cast<unsigned>(len)) == static_cast<int>(len),
                      "default EVP_Cipher");
                check(la == len && lb == len, "cipher: length");
                check_same(oa.data(), od.data(), len, "cipher: A differs from default");
                check_same(ob.data(), od.data(), len, "cipher: B differs from default");
                break;
            }
            case CipherOp::kFinal:
            case CipherOp::kShortFinal: {
                uint8_t oa[kBlock], ob[kBlock], od[kBlock];
                size_t la = 0, lb = 0;
                int ld = 0;
                const int rb = f.final(b, ob, &lb, sizeof ob);
                if (rb == 1 && lb != 0 && in.ConsumeBool()) {
                    check_refused(f.final(a, canary.bytes, &outl, lb - 1), errors_before,
                                  "final into a short buffer accepted");
                }
                const int ra = f.final(a, oa, &la, sizeof oa);
                const int rd = EVP_CipherFinal_ex(d, od, &ld);
                check(ra == rb && rb == rd, "final: return codes differ");
                if (ra == 1) {
                    check(la == lb && lb == static_cast<size_t>(ld), "final: lengths differ");
                    check_same(oa, od, la, "final: A differs from default");
                    check_same(ob, od, lb, "final: B differs from default");
                }
                init_all(nullptr, nullptr);
                break;
            }
            case CipherOp::kSetNum: {
                // CTR: only while a keystream block is live (see sm4_fuzz.cpp).
                if (which == 4 && EVP_CIPHER_CTX_get_num(d) == 0) break;
                unsigned num = in.ConsumeIntegralInRange<unsigned>(0, kBlock - 1);
                OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &num), OSSL_PARAM_END};
                check(f.set(a, p) == 1 && f.set(b, p) == 1 && EVP_CIPHER_CTX_set_params(d, p) == 1, "set num");
                break;
            }
            case CipherOp::kDup: {
                void* a2 = f.dupctx(a);
                void* b2 = f.dupctx(b);
                EVP_CIPHER_CTX* d2 = EVP_CIPHER_CTX_new();
                check(a2 && b2 && d2 && EVP_CIPHER_CTX_copy(d2, d) == 1, "cipher dupctx");
                f.freectx(a), f.freectx(b), EVP_CIPHER_CTX_free(d);
                a = a2, b = b2, d = d2;
                break;
            }
            // Hostile calls, on A only.
            case CipherOp::kHugeUpdate: {
                const size_t len = impossible_length(in, canary.bytes, true);
                const size_t outsize = in.ConsumeBool() ? len : sizeof canary.bytes;
                check_refused(f.update(a, canary.bytes, &outl, outsize, canary.bytes, len), errors_before,
                              "update with an impossible length accepted");
                break;
            }
            case CipherOp::kNullInput:
                check_refused(f.update(a, canary.bytes, &outl, sizeof canary.bytes, nullptr,
                                       in.ConsumeIntegralInRange<size_t>(1, 1 << 20)),
                              errors_before, "update from NULL accepted");
                break;
            case CipherOp::kHugeCipher: {
                // EVP_Cipher passes an unsigned int; only what no buffer can be must be refused.
                const size_t len = static_cast<size_t>(PTRDIFF_MAX) + 1 + in.ConsumeIntegralInRange<size_t>(0, 4096);
                check_refused(f.cipher(a, canary.bytes, &outl, len, canary.bytes, len), errors_before,
                              "cipher with an impossible length accepted");
                break;
            }
            case CipherOp::kBadNum: {
                unsigned num = in.ConsumeIntegralInRange<unsigned>(kBlock, UINT_MAX);
                OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &num), OSSL_PARAM_END};
                check_refused(f.set(a, p), errors_before, "num out of range accepted");
                break;
            }
            case CipherOp::kBadPadding: {
                char text[] = "1";
                OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_PADDING, text, 1), OSSL_PARAM_END};
                check_refused(f.set(a, p), errors_before, "padding of the wrong type accepted");
                break;
            }
        }
        canary.check_untouched("a refused cipher call wrote to its buffer");
        check(outl == 777, "a refused cipher call reported output");
        // The registers after every step.
        const Registers ra = registers(f, a), rb = registers(f, b);
        uint8_t div[kBlock] = {0};
        check(EVP_CIPHER_CTX_get_updated_iv(d, div, sizeof div) == 1, "default updated IV");
        check_same(ra.iv, div, ivlen, "updated IV: A differs from default");
        check_same(rb.iv, div, ivlen, "updated IV: B differs from default");
        check(ra.num == rb.num && rb.num == static_cast<unsigned>(EVP_CIPHER_CTX_get_num(d)), "num differs");
    }
    f.freectx(a);
    f.freectx(b);
    EVP_CIPHER_CTX_free(d);
}

}  // namespace
}  // namespace hwaccel::fuzz

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    hwaccel::fuzz::providers();  // default's library context, and the engine check
    hwaccel::fuzz::module();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider in(data, size);
    if (in.ConsumeBool())
        hwaccel::fuzz::fuzz_digest(in);
    else
        hwaccel::fuzz::fuzz_cipher(in);
    return 0;
}
