// The rules every dispatch entry point keeps under bad input, as a table.
//
// Each row: the entry point, the situation the context is in, the bad input,
// and the expected outcome. The harness runs every row on every algorithm it
// applies to, through the fake core (so lengths EVP would never pass reach
// the provider), and checks:
//  - the return value;
//  - refusals: exactly one error on the queue, with the row's reason (calls
//    without a context cannot reach the core and must raise nothing);
//  - no byte written (the output is a sentinel-filled buffer) and outl left
//    as it was;
//  - the context is still usable exactly as before: after the call it is
//    driven on (parameters read back, more data, final, re-init, ...) next to
//    a reference context that never saw the call, and both must produce the
//    same transcript of results, outputs and error reasons. A refused init on
//    a new context therefore leaves no key behind (update: "no key set").
// Where hwaccel deliberately differs from OpenSSL 3.0's default provider, the
// row says how (`differs_from_default`; checked by driving the default
// provider's own dispatch table the same way). README lists these.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <catch2/catch.hpp>
#include <climits>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "errors.hpp"
#include "fake_core.hpp"
#include "support/vectors.hpp"

using namespace hwaccel::test;
using namespace hwaccel;

namespace {

// Which algorithms a row applies to.
enum Applies : unsigned {
    kFixedDigest = 1,  // SHA-1, SHA-2, SHA-3
    kXof = 2,          // SHAKE
    kSerializable = 32,  // the digests with OpenSSL 4.0's serialize/deserialize (not SHA-1)
    kEcb = 4,
    kCbc = 8,
    kStreamMode = 16,  // CFB, OFB, CTR
    kAnyDigest = kFixedDigest | kXof,
    kBlockMode = kEcb | kCbc,
    kIvMode = kCbc | kStreamMode,
    kAnyCipher = kBlockMode | kStreamMode,
};

enum class Outcome {
    kRefused,          // 0, one error with the row's reason, nothing changed
    kRefusedSilently,  // 0 and no error: no context, so no core to report to
    kNoOp,             // 1, nothing written (outl 0 if given), nothing changed
    kAccepted,         // 1, same effect as the row's well-formed equivalent
};

const char* outcome_name(Outcome o) {
    switch (o) {
        case Outcome::kRefused: return "refused with an error";
        case Outcome::kRefusedSilently: return "refused (no context: no error possible)";
        case Outcome::kNoOp: return "accepted, changes nothing";
        case Outcome::kAccepted: return "accepted, as its well-formed equivalent";
    }
    return "?";
}

constexpr unsigned char kSentinel = 0xa5;
constexpr size_t kOutlSentinel = 0x5a5a5a5a;

// Where a call may write: output bytes (or a parameter's data) and outl.
// Sentinel-filled; an in-place call first loads its input, which becomes
// what "untouched" means.
struct Sink {
    unsigned char buf[96];
    unsigned char baseline[96];
    size_t outl = kOutlSentinel;
    Sink() {
        std::memset(buf, kSentinel, sizeof buf);
        std::memset(baseline, kSentinel, sizeof baseline);
    }
    unsigned char* load(const unsigned char* p, size_t n) {
        std::memcpy(buf, p, n);
        std::memcpy(baseline, p, n);
        return buf;
    }
    bool untouched() const { return std::memcmp(buf, baseline, sizeof buf) == 0; }
};

const unsigned char kKey[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10};
const unsigned char kKey2[16] = {0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6,
                                 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf, 0x4f, 0x3c};
const unsigned char kIv[17] = {0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
                               0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff, 0x00};
// Bytes that differ from each other and from the sentinel's pattern, so a
// transcript shows which bytes went where.
struct Message {
    unsigned char bytes[64];
    Message() {
        for (size_t i = 0; i < sizeof bytes; ++i) bytes[i] = static_cast<unsigned char>(i * 73 + 41);
    }
};
const Message kMsg;
const unsigned char* msg(size_t offset = 0) { return kMsg.bytes + offset; }

// A pointer whose [p, p + 16) wraps the address space; never dereferenced.
const unsigned char* wrapping_pointer() {
    return reinterpret_cast<const unsigned char*>(UINTPTR_MAX - 7);
}

// Appends one step to a transcript: result, output, and every error reason
// raised since the last step.
void note(std::string& t, const char* step, int result, const unsigned char* out = nullptr,
          size_t n = 0) {
    t += step;
    t += '=' + std::to_string(result);
    if (out != nullptr) t += " out=" + to_hex(out, n);
    t += " errors:";
    for (int r : g_core.reasons) t += ' ' + std::to_string(r);
    t += '\n';
    g_core.clear_errors();
}

template <class Env>
struct Row {
    const char* entry;
    const char* situation;  // readable; the harness prepares it from `sit`
    int sit;
    const char* bad_input;
    Outcome outcome;
    int reason;                        // kRefused only
    const char* differs_from_default;  // nullptr: as the default provider
    unsigned applies;
    std::function<int(Env&)> call;
    std::function<int(Env&)> equivalent = nullptr;  // kAccepted: the well-formed call
    std::function<void(Env&)> prepare = nullptr;    // done to both contexts first
};

// Runs one row on one algorithm with `Harness` providing make/transcript/free.
template <class Harness, class Env>
void run_row(Harness& h, const Row<Env>& row) {
    INFO("row: " << row.entry << " | " << row.situation << " | " << row.bad_input << " | expect "
                 << outcome_name(row.outcome) << " | on " << h.name);
    void* ctx = h.make(row.sit);
    void* ref = h.make(row.sit);
    REQUIRE(ctx != nullptr);
    REQUIRE(ref != nullptr);
    Sink sink, ref_sink;
    Env env = h.env(ctx, sink);
    Env ref_env = h.env(ref, ref_sink);
    if (row.prepare) {
        row.prepare(env);
        row.prepare(ref_env);
    }
    g_core.clear_errors();
    const int result = row.call(env);
    const std::vector<int> reasons = g_core.reasons;
    g_core.clear_errors();
    switch (row.outcome) {
        case Outcome::kRefused:
            CHECK(result == 0);
            CHECK(reasons.size() == 1);
            if (!reasons.empty()) CHECK(reasons[0] == row.reason);
            CHECK(sink.untouched());
            CHECK(sink.outl == kOutlSentinel);
            break;
        case Outcome::kRefusedSilently:
            CHECK(result == 0);
            CHECK(reasons.empty());
            CHECK(sink.untouched());
            CHECK(sink.outl == kOutlSentinel);
            break;
        case Outcome::kNoOp:
            CHECK(result == 1);
            CHECK(reasons.empty());
            CHECK(sink.untouched());
            CHECK((sink.outl == kOutlSentinel || sink.outl == 0));
            break;
        case Outcome::kAccepted: {
            CHECK(result == 1);
            CHECK(reasons.empty());
            REQUIRE(row.equivalent);
            CHECK(row.equivalent(ref_env) == 1);
            CHECK(g_core.reasons.empty());
            g_core.clear_errors();
            CHECK(to_hex(sink.buf, sizeof sink.buf) == to_hex(ref_sink.buf, sizeof ref_sink.buf));
            // The equivalent may pass outl where the row passed NULL.
            if (sink.outl != kOutlSentinel) CHECK(sink.outl == ref_sink.outl);
            break;
        }
    }
    // Still usable exactly as before (or as after the equivalent call).
    CHECK(h.transcript(ctx, row.sit) == h.transcript(ref, row.sit));
    h.free(ctx);
    h.free(ref);
}

// ---------------------------------------------------------------- digests

enum DigestSit { kDNew, kDInitialised, kDMid, kDFinalised, kDSqueezing };

struct DigestAlg {
    const char* name;
    unsigned kind;  // kFixedDigest or kXof, and kSerializable
    size_t size;    // output length (XOFs: the length the situations set)
};
constexpr unsigned kFixedS = kFixedDigest | kSerializable;
const DigestAlg kDigests[] = {
    {"SHA1", kFixedDigest, 20},  {"SHA2-224", kFixedS, 28}, {"SHA2-256", kFixedS, 32},
    {"SHA3-224", kFixedS, 28},   {"SHA3-256", kFixedS, 32}, {"SHA3-384", kFixedS, 48},
    {"SHA3-512", kFixedS, 64},   {"SHAKE-128", kXof | kSerializable, 24},
    {"SHAKE-256", kXof | kSerializable, 24},
};

struct DigestEnv {
    const DigestFns& f;
    const DigestAlg& alg;
    void* ctx;
    Sink& sink;
    std::function<void*(int)> make;
    std::function<std::string(void*, int)> transcript;
    std::function<void(void*)> free;
    unsigned char* out() { return sink.buf; }
};

struct DigestHarness {
    const DigestFns& f;
    const DigestAlg& alg;
    void* provctx;
    std::string name;

    bool xof() const { return (alg.kind & kXof) != 0; }

    int init(void* c) const {
        size_t len = alg.size;
        OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &len), OSSL_PARAM_END};
        return f.init(c, xof() ? p : nullptr);
    }

    void* make(int sit) const {
        void* c = f.newctx(provctx);
        if (c == nullptr) return nullptr;
        unsigned char out[64];
        size_t outl = 0;
        bool ok = true;
        if (sit != kDNew) ok = ok && init(c) == 1;
        if (sit >= kDMid) ok = ok && f.update(c, msg(), 5) == 1;
        if (sit == kDFinalised) ok = ok && f.final(c, out, &outl, sizeof out) == 1;
        if (sit == kDSqueezing) ok = ok && f.squeeze(c, out, &outl, 5) == 1;
        REQUIRE(ok);
        return c;
    }

    std::string transcript(void* c, int) const {
        std::string t;
        unsigned char out[64];
        size_t outl = 0;
        g_core.clear_errors();
        if (xof()) {
            size_t len = 0;
            OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &len), OSSL_PARAM_END};
            note(t, "get xoflen", f.get_ctx_params(c, p));
            t += "xoflen " + std::to_string(len) + '\n';
        }
        note(t, "update 27", f.update(c, msg(5), 27));
        int r = f.final(c, out, &outl, sizeof out);
        note(t, "final", r, out, r ? outl : 0);
        note(t, "init", init(c));
        note(t, "update 32", f.update(c, msg(), 32));
        if (xof()) {
            r = f.squeeze(c, out, &outl, 10);
            note(t, "squeeze 10", r, out, r ? 10 : 0);
            r = f.squeeze(c, out, &outl, 7);
            note(t, "squeeze 7", r, out, r ? 7 : 0);
        }
        r = f.final(c, out, &outl, sizeof out);
        note(t, "final", r, out, r ? outl : 0);
        return t;
    }

    void free(void* c) const { f.freectx(c); }

    DigestEnv env(void* c, Sink& s) {
        return DigestEnv{f, alg, c, s, [this](int sit) { return make(sit); },
                         [this](void* x, int sit) { return transcript(x, sit); },
                         [this](void* x) { free(x); }};
    }
};

// The context's own serialized state (OpenSSL 4.0's format; 424 bytes at most).
std::vector<unsigned char> saved_state(DigestEnv& e) {
    std::vector<unsigned char> state(512);
    size_t n = state.size();
    REQUIRE(e.f.serialize(e.ctx, state.data(), &n) == 1);
    state.resize(n);
    return state;
}

int set_xoflen_size_t(DigestEnv& e, size_t len) {
    OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &len), OSSL_PARAM_END};
    return e.f.set_ctx_params(e.ctx, p);
}

using DRow = Row<DigestEnv>;
// clang-format off
const std::vector<DRow>& digest_rows() {
    static const std::vector<DRow> rows = {
    // newctx, freectx, dupctx, copyctx
    {"newctx", "-", kDNew, "provctx NULL", Outcome::kRefusedSilently, 0,
     "default returns a context (it reads nothing from provctx); hwaccel's engines live there", kAnyDigest,
     [](DigestEnv& e) { void* c = e.f.newctx(nullptr); if (c) e.f.freectx(c); return c ? 1 : 0; }},
    {"freectx", "-", kDMid, "ctx NULL", Outcome::kNoOp, 0, nullptr, kAnyDigest,
     [](DigestEnv& e) { e.f.freectx(nullptr); return 1; }},
    {"dupctx", "-", kDMid, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kAnyDigest,
     [](DigestEnv& e) { return e.f.dupctx(nullptr) ? 1 : 0; }},
    {"dupctx", "never initialised", kDNew, "copy it (then: the copy must be initialised too)",
     Outcome::kAccepted, 0, nullptr, kAnyDigest,
     [](DigestEnv& e) {
         void* d = e.f.dupctx(e.ctx);
         void* fresh = e.make(kDNew);
         const bool same = d && e.transcript(d, kDNew) == e.transcript(fresh, kDNew);
         e.free(d); e.free(fresh);
         return same ? 1 : 0; },
     [](DigestEnv&) { return 1; }},
    {"dupctx", "mid-message", kDMid, "copy it (the copy goes on as the original)",
     Outcome::kAccepted, 0, nullptr, kAnyDigest,
     [](DigestEnv& e) {
         void* d = e.f.dupctx(e.ctx);
         void* twin = e.make(kDMid);
         const bool same = d && e.transcript(d, kDMid) == e.transcript(twin, kDMid);
         e.free(d); e.free(twin);
         return same ? 1 : 0; },
     [](DigestEnv&) { return 1; }},
    {"copyctx", "mid-message", kDMid, "destination NULL", Outcome::kNoOp, 0, nullptr, kAnyDigest,
     [](DigestEnv& e) { e.f.copyctx(nullptr, e.ctx); return 1; }},
    {"copyctx", "mid-message", kDMid, "source NULL", Outcome::kNoOp, 0, nullptr, kAnyDigest,
     [](DigestEnv& e) { e.f.copyctx(e.ctx, nullptr); return 1; }},
    {"copyctx", "mid-message", kDMid, "source and destination the same", Outcome::kNoOp, 0, nullptr, kAnyDigest,
     [](DigestEnv& e) { e.f.copyctx(e.ctx, e.ctx); return 1; }},
    {"copyctx", "never initialised", kDNew, "copied over a mid-message context (which becomes uninitialised)",
     Outcome::kAccepted, 0, nullptr, kAnyDigest,
     [](DigestEnv& e) {
         void* dst = e.make(kDMid);
         e.f.copyctx(dst, e.ctx);
         void* fresh = e.make(kDNew);
         const bool same = e.transcript(dst, kDNew) == e.transcript(fresh, kDNew);
         e.free(dst); e.free(fresh);
         return same ? 1 : 0; },
     [](DigestEnv&) { return 1; }},

    // init
    {"init", "mid-message", kDMid, "xoflen as an octet string", Outcome::kRefused, kErrFailedToGetParameter,
     "default discards the message before it refuses the parameter", kXof,
     [](DigestEnv& e) { size_t v = 40; OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_DIGEST_PARAM_XOFLEN, &v, sizeof v), OSSL_PARAM_END};
                        return e.f.init(e.ctx, p); }},
    {"init", "mid-message", kDMid, "xoflen as int -1", Outcome::kRefused, kErrFailedToGetParameter,
     "default discards the message before it refuses the parameter", kXof,
     [](DigestEnv& e) { int v = -1; OSSL_PARAM p[] = {OSSL_PARAM_int(OSSL_DIGEST_PARAM_XOFLEN, &v), OSSL_PARAM_END};
                        return e.f.init(e.ctx, p); }},
    {"init", "mid-message", kDMid, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kAnyDigest,
     [](DigestEnv& e) { return e.f.init(nullptr, nullptr); }},

    // update
    {"update", "never initialised", kDNew, "5 bytes before init", Outcome::kRefused, kErrNotInitialised,
     "default absorbs into a state nobody initialised", kAnyDigest,
     [](DigestEnv& e) { return e.f.update(e.ctx, msg(), 5); }},
    {"update", "mid-message", kDMid, "in NULL, inl 5", Outcome::kRefused, kErrInvalidLength,
     "default reads through NULL (crash)", kAnyDigest,
     [](DigestEnv& e) { return e.f.update(e.ctx, nullptr, 5); }},
    {"update", "mid-message", kDMid, "in NULL, inl 0", Outcome::kNoOp, 0, nullptr, kAnyDigest,
     [](DigestEnv& e) { return e.f.update(e.ctx, nullptr, 0); }},
    {"update", "mid-message", kDMid, "inl SIZE_MAX (wraps)", Outcome::kRefused, kErrInvalidLength, nullptr, kAnyDigest,
     [](DigestEnv& e) { return e.f.update(e.ctx, msg(), SIZE_MAX); }},
    {"update", "mid-message", kDMid, "inl 2^63 (no object is that large)", Outcome::kRefused, kErrInvalidLength, nullptr, kAnyDigest,
     [](DigestEnv& e) { return e.f.update(e.ctx, msg(), size_t{1} << 63); }},
    {"update", "mid-message", kDMid, "in + inl wraps the address space", Outcome::kRefused, kErrInvalidLength, nullptr, kAnyDigest,
     [](DigestEnv& e) { return e.f.update(e.ctx, wrapping_pointer(), 16); }},
    {"update", "finalised", kDFinalised, "1 byte after final", Outcome::kRefused, kErrUpdateAfterFinal,
     "default absorbs into the finished state and returns 1", kAnyDigest,
     [](DigestEnv& e) { return e.f.update(e.ctx, msg(), 1); }},
    {"update", "squeezing", kDSqueezing, "1 byte after a squeeze", Outcome::kRefused, kErrUpdateAfterFinal, nullptr, kXof,
     [](DigestEnv& e) { return e.f.update(e.ctx, msg(), 1); }},
    {"update", "mid-message", kDMid, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kAnyDigest,
     [](DigestEnv& e) { return e.f.update(nullptr, msg(), 5); }},

    // final
    {"final", "never initialised", kDNew, "final before init", Outcome::kRefused, kErrNotInitialised,
     "default returns 1 with no digest of any message", kAnyDigest,
     [](DigestEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, 64); }},
    {"final", "mid-message", kDMid, "outsz one byte short", Outcome::kRefused, kErrOutputBufferTooSmall,
     "default SHA-1/SHA-2 refuse without an error; default SHA-3 writes the whole digest anyway and returns 1", kFixedDigest,
     [](DigestEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, e.alg.size - 1); }},
    {"final", "mid-message", kDMid, "outsz one byte short of xoflen", Outcome::kRefused, kErrOutputBufferTooSmall,
     "default writes all xoflen bytes whatever outsz says", kXof,
     [](DigestEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, e.alg.size - 1); }},
    {"final", "mid-message", kDMid, "out NULL, outsz 64", Outcome::kRefused, kErrInvalidLength,
     "default writes through NULL (crash)", kAnyDigest,
     [](DigestEnv& e) { return e.f.final(e.ctx, nullptr, &e.sink.outl, 64); }},
    {"final", "mid-message", kDMid, "outl NULL", Outcome::kAccepted, 0,
     "default writes through NULL (crash)", kAnyDigest,
     [](DigestEnv& e) { return e.f.final(e.ctx, e.out(), nullptr, 64); },
     [](DigestEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, 64); }},
    {"final", "finalised", kDFinalised, "final again", Outcome::kRefused, kErrFinalCalledTwice,
     "default returns 1 again", kAnyDigest,
     [](DigestEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, 64); }},
    {"final", "squeezing", kDSqueezing, "final after a squeeze", Outcome::kRefused, kErrFinalCalledTwice, nullptr, kXof,
     [](DigestEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, 64); }},
    {"final", "mid-message, xoflen 0", kDMid, "out NULL, outsz 0", Outcome::kAccepted, 0, nullptr, kXof,
     [](DigestEnv& e) { return e.f.final(e.ctx, nullptr, &e.sink.outl, 0); },
     [](DigestEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, 0); },
     [](DigestEnv& e) { REQUIRE(set_xoflen_size_t(e, 0) == 1); }},
    {"final", "mid-message, xoflen SIZE_MAX", kDMid, "outsz 16", Outcome::kRefused, kErrInvalidDigestLength,
     "default 3.0 writes SIZE_MAX bytes (crash); 3.4+ refuses as hwaccel", kXof,
     [](DigestEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, 16); }, nullptr,
     [](DigestEnv& e) { REQUIRE(set_xoflen_size_t(e, SIZE_MAX) == 1); }},
    {"final", "mid-message", kDMid, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kAnyDigest,
     [](DigestEnv& e) { return e.f.final(nullptr, e.out(), &e.sink.outl, 64); }},

    // squeeze (OpenSSL 3.3+; 3.0 has none, so no comparison)
    {"squeeze", "never initialised", kDNew, "squeeze before init", Outcome::kRefused, kErrNotInitialised, nullptr, kXof,
     [](DigestEnv& e) { return e.f.squeeze(e.ctx, e.out(), &e.sink.outl, 5); }},
    {"squeeze", "finalised", kDFinalised, "squeeze after final", Outcome::kRefused, kErrFinalCalledTwice, nullptr, kXof,
     [](DigestEnv& e) { return e.f.squeeze(e.ctx, e.out(), &e.sink.outl, 5); }},
    {"squeeze", "mid-message", kDMid, "out NULL, outsz 5", Outcome::kRefused, kErrInvalidLength, nullptr, kXof,
     [](DigestEnv& e) { return e.f.squeeze(e.ctx, nullptr, &e.sink.outl, 5); }},
    {"squeeze", "mid-message", kDMid, "outsz SIZE_MAX", Outcome::kRefused, kErrInvalidLength, nullptr, kXof,
     [](DigestEnv& e) { return e.f.squeeze(e.ctx, e.out(), &e.sink.outl, SIZE_MAX); }},
    {"squeeze", "mid-message", kDMid, "out NULL, outsz 0 (absorbing may go on)", Outcome::kNoOp, 0, nullptr, kXof,
     [](DigestEnv& e) { return e.f.squeeze(e.ctx, nullptr, &e.sink.outl, 0); }},
    {"squeeze", "mid-message", kDMid, "outl NULL", Outcome::kAccepted, 0, nullptr, kXof,
     [](DigestEnv& e) { return e.f.squeeze(e.ctx, e.out(), nullptr, 9); },
     [](DigestEnv& e) { return e.f.squeeze(e.ctx, e.out(), &e.sink.outl, 9); }},
    {"squeeze", "mid-message", kDMid, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kXof,
     [](DigestEnv& e) { return e.f.squeeze(nullptr, e.out(), &e.sink.outl, 5); }},

    // serialize, deserialize (OpenSSL 4.0; offered whatever the running release)
    {"serialize", "mid-message", kDMid, "outl NULL", Outcome::kRefused, kErrInvalidParameter,
     "default writes the state without a length to check the room against", kSerializable,
     [](DigestEnv& e) { unsigned char buf[512]; return e.f.serialize(e.ctx, buf, nullptr); }},
    {"serialize", "mid-message", kDMid, "room one byte short", Outcome::kRefused, kErrOutputBufferTooSmall,
     "default refuses without an error", kSerializable,
     [](DigestEnv& e) { unsigned char buf[512]; size_t n = 0;
                        REQUIRE(e.f.serialize(e.ctx, nullptr, &n) == 1);
                        n -= 1; return e.f.serialize(e.ctx, buf, &n); }},
    {"serialize", "never initialised", kDNew, "state asked before init", Outcome::kRefused, kErrNotInitialised,
     "default saves whatever its new context holds", kSerializable,
     [](DigestEnv& e) { unsigned char buf[512]; size_t n = sizeof buf; return e.f.serialize(e.ctx, buf, &n); }},
    {"serialize", "finalised", kDFinalised, "state asked after final", Outcome::kRefused, kErrFinalCalledTwice,
     "default saves the finished state (4.0's EVP refuses first)", kSerializable,
     [](DigestEnv& e) { unsigned char buf[512]; size_t n = sizeof buf; return e.f.serialize(e.ctx, buf, &n); }},
    {"serialize", "squeezing", kDSqueezing, "state asked after a squeeze", Outcome::kRefused, kErrFinalCalledTwice,
     "default saves its engine's squeezing layout", kXof,
     [](DigestEnv& e) { unsigned char buf[512]; size_t n = sizeof buf; return e.f.serialize(e.ctx, buf, &n); }},
    {"serialize", "mid-message", kDMid, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kSerializable,
     [](DigestEnv& e) { unsigned char buf[512]; size_t n = sizeof buf; return e.f.serialize(nullptr, buf, &n); }},
    {"deserialize", "mid-message", kDMid, "its own state (changes nothing)", Outcome::kAccepted, 0, nullptr, kSerializable,
     [](DigestEnv& e) { const auto st = saved_state(e); return e.f.deserialize(e.ctx, st.data(), st.size()); },
     [](DigestEnv&) { return 1; }},
    {"deserialize", "mid-message", kDMid, "in NULL, inl 120", Outcome::kRefused, kErrInvalidLength,
     "default refuses without an error", kSerializable,
     [](DigestEnv& e) { return e.f.deserialize(e.ctx, nullptr, 120); }},
    {"deserialize", "mid-message", kDMid, "inl SIZE_MAX", Outcome::kRefused, kErrInvalidLength,
     "default refuses without an error", kSerializable,
     [](DigestEnv& e) { return e.f.deserialize(e.ctx, msg(), SIZE_MAX); }},
    {"deserialize", "mid-message", kDMid, "a state one byte short", Outcome::kRefused, kErrInvalidParameter,
     "default refuses without an error", kSerializable,
     [](DigestEnv& e) { const auto st = saved_state(e); return e.f.deserialize(e.ctx, st.data(), st.size() - 1); }},
    {"deserialize", "mid-message", kDMid, "a state with its magic changed", Outcome::kRefused, kErrInvalidParameter,
     "default refuses without an error", kSerializable,
     [](DigestEnv& e) { auto st = saved_state(e); st[0] ^= 1; return e.f.deserialize(e.ctx, st.data(), st.size()); }},
    {"deserialize", "mid-message", kDMid, "a state of another output length", Outcome::kRefused, kErrInvalidParameter,
     "default refuses without an error", kSerializable,
     [](DigestEnv& e) { auto st = saved_state(e); st[8 + (st.size() == 120 ? 0 : 8)] ^= 4;
                        return e.f.deserialize(e.ctx, st.data(), st.size()); }},
    // A SHA-2 state counts bits, hwaccel whole bytes; a SHA-3 state marked
    // finished (xof_state 2) cannot be continued (scripts/mutation-sweep.py
    // found both checks untested).
    {"deserialize", "mid-message", kDMid, "a SHA-2 bit count that is not whole bytes, a SHA-3 state after final",
     Outcome::kRefused, kErrInvalidParameter, "default loads the SHA-2 one", kSerializable,
     [](DigestEnv& e) { auto st = saved_state(e);
                        if (st.size() == 120) st[48] ^= 1;  // the bit count's low byte (little-endian)
                        else st[48] = 2;                    // xof_state: FINAL
                        return e.f.deserialize(e.ctx, st.data(), st.size()); }},
    {"deserialize", "initialised", kDInitialised, "the state of an empty message", Outcome::kAccepted, 0, nullptr,
     kSerializable,
     [](DigestEnv& e) { const auto st = saved_state(e); return e.f.deserialize(e.ctx, st.data(), st.size()); },
     [](DigestEnv& e) { (void)e; return 1; }},
    {"deserialize", "never initialised", kDNew, "a mid-message state before init", Outcome::kRefused, kErrNotInitialised,
     "default loads it", kSerializable,
     [](DigestEnv& e) { void* src = e.make(kDMid);
                        std::vector<unsigned char> st(512); size_t n = st.size();
                        REQUIRE(e.f.serialize(src, st.data(), &n) == 1); e.free(src);
                        return e.f.deserialize(e.ctx, st.data(), n); }},
    {"deserialize", "mid-message", kDMid, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kSerializable,
     [](DigestEnv& e) { const auto st = saved_state(e); return e.f.deserialize(nullptr, st.data(), st.size()); }},

    // set_ctx_params, get_ctx_params, get_params
    {"set_ctx_params", "mid-message", kDMid, "xoflen as int 40 (converted, as default)", Outcome::kAccepted, 0, nullptr, kXof,
     [](DigestEnv& e) { int v = 40; OSSL_PARAM p[] = {OSSL_PARAM_int(OSSL_DIGEST_PARAM_XOFLEN, &v), OSSL_PARAM_END};
                        return e.f.set_ctx_params(e.ctx, p); },
     [](DigestEnv& e) { return set_xoflen_size_t(e, 40); }},
    {"set_ctx_params", "mid-message", kDMid, "xoflen as int -1", Outcome::kRefused, kErrFailedToGetParameter, nullptr, kXof,
     [](DigestEnv& e) { int v = -1; OSSL_PARAM p[] = {OSSL_PARAM_int(OSSL_DIGEST_PARAM_XOFLEN, &v), OSSL_PARAM_END};
                        return e.f.set_ctx_params(e.ctx, p); }},
    {"set_ctx_params", "mid-message", kDMid, "xoflen as an octet string", Outcome::kRefused, kErrFailedToGetParameter, nullptr, kXof,
     [](DigestEnv& e) { size_t v = 40; OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_DIGEST_PARAM_XOFLEN, &v, sizeof v), OSSL_PARAM_END};
                        return e.f.set_ctx_params(e.ctx, p); }},
    {"set_ctx_params", "mid-message", kDMid, "xoflen as a UTF-8 string \"40\"", Outcome::kRefused, kErrFailedToGetParameter, nullptr, kXof,
     [](DigestEnv& e) { char v[] = "40"; OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_DIGEST_PARAM_XOFLEN, v, 2), OSSL_PARAM_END};
                        return e.f.set_ctx_params(e.ctx, p); }},
    {"set_ctx_params", "mid-message", kDMid, "size (xoflen's alias) as an octet string", Outcome::kRefused, kErrFailedToGetParameter, nullptr, kXof,
     [](DigestEnv& e) { size_t v = 40; OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_DIGEST_PARAM_SIZE, &v, sizeof v), OSSL_PARAM_END};
                        return e.f.set_ctx_params(e.ctx, p); }},
    {"set_ctx_params", "mid-message", kDMid, "xoflen SIZE_MAX (as default; final then refuses)", Outcome::kAccepted, 0, nullptr, kXof,
     [](DigestEnv& e) { return set_xoflen_size_t(e, SIZE_MAX); },
     [](DigestEnv& e) { return set_xoflen_size_t(e, SIZE_MAX); }},
    {"set_ctx_params", "mid-message", kDMid, "params NULL", Outcome::kNoOp, 0, nullptr, kXof,
     [](DigestEnv& e) { return e.f.set_ctx_params(e.ctx, nullptr); }},
    {"set_ctx_params", "mid-message", kDMid, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kXof,
     [](DigestEnv& e) { size_t v = 40; OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, &v), OSSL_PARAM_END};
                        return e.f.set_ctx_params(nullptr, p); }},
    {"get_ctx_params", "mid-message", kDMid, "xoflen into a UTF-8 string", Outcome::kRefused, kErrFailedToGetParameter, nullptr, kXof,
     [](DigestEnv& e) { OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_DIGEST_PARAM_XOFLEN, e.out(), 16), OSSL_PARAM_END};
                        return e.f.get_ctx_params(e.ctx, p); }},
    {"get_ctx_params", "mid-message", kDMid, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kXof,
     [](DigestEnv& e) { OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_XOFLEN, reinterpret_cast<size_t*>(e.out())), OSSL_PARAM_END};
                        return e.f.get_ctx_params(nullptr, p); }},
    {"get_params", "-", kDMid, "block size into a UTF-8 string", Outcome::kRefusedSilently, 0,
     "default, inside libcrypto, raises an error; a provider's get_params has no core handle to raise one", kAnyDigest,
     [](DigestEnv& e) { OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_DIGEST_PARAM_BLOCK_SIZE, e.out(), 16), OSSL_PARAM_END};
                        return e.f.get_params(p); }},
    };
    return rows;
}
// clang-format on

}  // namespace

TEST_CASE("entry-point rules: digests", "[dispatch][rules][digest]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    for (const DigestAlg& alg : kDigests) {
        DigestFns f(m.digest(alg.name));
        DigestHarness h{f, alg, m.provctx, alg.name};
        for (const DRow& row : digest_rows())
            if (row.applies & alg.kind) run_row(h, row);
    }
}

namespace {

// ---------------------------------------------------------------- ciphers

enum CipherSit {
    kCNew,          // newctx only
    kCKeyed,        // encrypt_init with key and IV
    kCMid,          // ... and 5 bytes through update
    kCFinalised,    // ... and final
    kCDecrypting,   // decrypt_init, the whole ciphertext of 5 bytes through update
    kCNoPadding,    // encrypt_init with padding 0, 5 bytes through update
    kCBadPadding,   // decrypt_init, one block whose padding is wrong through update
};

struct CipherAlg {
    const char* name;
    unsigned kind;  // kEcb, kCbc or kStreamMode
};
const CipherAlg kCiphers[] = {
    {"SM4-ECB", kEcb}, {"SM4-CBC", kCbc}, {"SM4-CFB", kStreamMode},
    {"SM4-OFB", kStreamMode}, {"SM4-CTR", kStreamMode},
};

struct CipherEnv {
    const CipherFns& f;
    const CipherAlg& alg;
    void* ctx;
    Sink& sink;
    std::function<void*(int)> make;
    std::function<std::string(void*, int)> transcript;
    std::function<void(void*)> free;
    unsigned char* out() { return sink.buf; }
};

struct CipherHarness {
    const CipherFns& f;
    const CipherAlg& alg;
    void* provctx;
    std::string name;
    unsigned char ciphertext[16];  // of msg(0..5), padded in block modes
    size_t ciphertext_len = 0;
    unsigned char bad_padding[16];  // decrypts to a block ending in 0x00

    CipherHarness(const CipherFns& fns, const CipherAlg& a, void* prov)
        : f(fns), alg(a), provctx(prov), name(a.name) {
        void* c = f.newctx(provctx);
        size_t n = 0;
        REQUIRE(f.einit(c, kKey, 16, kIv, 16, nullptr) == 1);
        REQUIRE(f.update(c, ciphertext, &n, sizeof ciphertext, msg(), 5) == 1);
        ciphertext_len = n;
        REQUIRE(f.final(c, ciphertext + n, &n, sizeof ciphertext - n) == 1);
        ciphertext_len += n;
        unsigned char block[16];
        std::memset(block, kSentinel, sizeof block);
        block[15] = 0;
        unsigned padding = 0;
        OSSL_PARAM no_pad[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &padding), OSSL_PARAM_END};
        REQUIRE(f.einit(c, kKey, 16, kIv, 16, no_pad) == 1);
        REQUIRE(f.update(c, bad_padding, &n, sizeof bad_padding, block, 16) == 1);
        f.freectx(c);
    }

    void* make(int sit) const {
        void* c = f.newctx(provctx);
        if (c == nullptr) return nullptr;
        unsigned char out[64];
        size_t outl = 0;
        unsigned padding = 0;
        OSSL_PARAM no_pad[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &padding), OSSL_PARAM_END};
        bool ok = true;
        switch (sit) {
            case kCNew: break;
            case kCKeyed: case kCMid: case kCFinalised:
                ok = f.einit(c, kKey, 16, kIv, 16, nullptr) == 1;
                if (sit != kCKeyed) ok = ok && f.update(c, out, &outl, sizeof out, msg(), 5) == 1;
                if (sit == kCFinalised) ok = ok && f.final(c, out, &outl, sizeof out) == 1;
                break;
            case kCDecrypting:
                ok = f.dinit(c, kKey, 16, kIv, 16, nullptr) == 1 &&
                     f.update(c, out, &outl, sizeof out, ciphertext, ciphertext_len) == 1;
                break;
            case kCNoPadding:
                ok = f.einit(c, kKey, 16, kIv, 16, no_pad) == 1 &&
                     f.update(c, out, &outl, sizeof out, msg(), 5) == 1;
                break;
            case kCBadPadding:
                ok = f.dinit(c, kKey, 16, kIv, 16, nullptr) == 1 &&
                     f.update(c, out, &outl, sizeof out, bad_padding, 16) == 1;
                break;
        }
        REQUIRE(ok);
        return c;
    }

    std::string transcript(void* c, int sit) const {
        std::string t;
        unsigned char out[64];
        size_t outl = 0;
        g_core.clear_errors();
        unsigned num = 99, padding = 99;
        unsigned char iv[16] = {0};
        OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &num),
                          OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &padding),
                          OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, iv, sizeof iv),
                          OSSL_PARAM_END};
        note(t, "get num, padding, updated IV", f.get_ctx_params(c, p), iv, sizeof iv);
        t += "num " + std::to_string(num) + " padding " + std::to_string(padding) + '\n';
        int r;
        if (sit != kCDecrypting && sit != kCBadPadding) {
            r = f.update(c, out, &outl, sizeof out, msg(5), 11);
            note(t, "update 11", r, out, r ? outl : 0);
        }
        r = f.final(c, out, &outl, sizeof out);
        note(t, "final", r, out, r ? outl : 0);
        note(t, "encrypt_init", f.einit(c, kKey, 16, kIv, 16, nullptr));
        r = f.update(c, out, &outl, sizeof out, msg(), 32);
        note(t, "update 32", r, out, r ? outl : 0);
        r = f.final(c, out, &outl, sizeof out);
        note(t, "final", r, out, r ? outl : 0);
        return t;
    }

    void free(void* c) const { f.freectx(c); }

    CipherEnv env(void* c, Sink& s) {
        return CipherEnv{f, alg, c, s, [this](int sit) { return make(sit); },
                         [this](void* x, int sit) { return transcript(x, sit); },
                         [this](void* x) { free(x); }};
    }
};

int set_params(CipherEnv& e, void* ctx, const OSSL_PARAM* p) { return e.f.set_ctx_params(ctx, p); }

const char* const kAfterFinalDiffers =
    "default goes on after final (CBC chains from the last block, CTR continues its keystream)";
const char* const kInitResetDiffers =
    "default drops the buffered input and num before it refuses";

using CRow = Row<CipherEnv>;
// clang-format off
const std::vector<CRow>& cipher_rows() {
    static const std::vector<CRow> rows = {
    // newctx, freectx, dupctx
    {"newctx", "-", kCNew, "provctx NULL", Outcome::kRefusedSilently, 0,
     "default returns a context (it reads nothing from provctx); hwaccel's engines live there", kAnyCipher,
     [](CipherEnv& e) { void* c = e.f.newctx(nullptr); if (c) e.f.freectx(c); return c ? 1 : 0; }},
    {"freectx", "-", kCMid, "ctx NULL", Outcome::kNoOp, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) { e.f.freectx(nullptr); return 1; }},
    {"dupctx", "-", kCMid, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.dupctx(nullptr) ? 1 : 0; }},
    {"dupctx", "never initialised", kCNew, "copy it (the copy has no key either)", Outcome::kAccepted, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) {
         void* d = e.f.dupctx(e.ctx);
         void* fresh = e.make(kCNew);
         const bool same = d && e.transcript(d, kCNew) == e.transcript(fresh, kCNew);
         e.free(d); e.free(fresh);
         return same ? 1 : 0; },
     [](CipherEnv&) { return 1; }},
    {"dupctx", "mid-message", kCMid, "copy it (the copy goes on as the original)", Outcome::kAccepted, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) {
         void* d = e.f.dupctx(e.ctx);
         void* twin = e.make(kCMid);
         const bool same = d && e.transcript(d, kCMid) == e.transcript(twin, kCMid);
         e.free(d); e.free(twin);
         return same ? 1 : 0; },
     [](CipherEnv&) { return 1; }},

    // encrypt_init, decrypt_init: checked whole before anything changes
    {"encrypt_init", "new", kCNew, "key of 15 bytes", Outcome::kRefused, kErrInvalidKeyLength, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.einit(e.ctx, kKey, 15, kIv, 16, nullptr); }},
    {"encrypt_init", "new", kCNew, "key of 32 bytes", Outcome::kRefused, kErrInvalidKeyLength, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.einit(e.ctx, kKey, 32, kIv, 16, nullptr); }},
    {"decrypt_init", "new", kCNew, "a key with keylen 0", Outcome::kRefused, kErrInvalidKeyLength, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.dinit(e.ctx, kKey, 0, kIv, 16, nullptr); }},
    {"encrypt_init", "mid-message", kCMid, "new key of 15 bytes", Outcome::kRefused, kErrInvalidKeyLength,
     kInitResetDiffers, kAnyCipher,
     [](CipherEnv& e) { return e.f.einit(e.ctx, kKey2, 15, kIv, 16, nullptr); }},
    {"encrypt_init", "new", kCNew, "IV of 8 bytes", Outcome::kRefused, kErrInvalidIvLength, nullptr, kIvMode,
     [](CipherEnv& e) { return e.f.einit(e.ctx, kKey, 16, kIv, 8, nullptr); }},
    {"decrypt_init", "mid-message", kCMid, "IV of 17 bytes", Outcome::kRefused, kErrInvalidIvLength,
     kInitResetDiffers, kIvMode,
     [](CipherEnv& e) { return e.f.dinit(e.ctx, kKey, 16, kIv, 17, nullptr); }},
    {"encrypt_init", "keyed", kCKeyed, "ECB given an IV of 8 bytes (ignored, as default)", Outcome::kAccepted, 0, nullptr, kEcb,
     [](CipherEnv& e) { return e.f.einit(e.ctx, kKey, 16, kIv, 8, nullptr); },
     [](CipherEnv& e) { return e.f.einit(e.ctx, kKey, 16, nullptr, 0, nullptr); }},
    {"encrypt_init", "new", kCNew, "good key, params num = 99", Outcome::kRefused, kErrFailedToGetParameter,
     "default installs the key, then refuses: update works after the failed init", kAnyCipher,
     [](CipherEnv& e) { unsigned v = 99; OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &v), OSSL_PARAM_END};
                        return e.f.einit(e.ctx, kKey, 16, kIv, 16, p); }},
    {"encrypt_init", "mid-message", kCMid, "new key, params padding as a UTF-8 string", Outcome::kRefused, kErrFailedToGetParameter,
     "default drops the message and installs the new key before it refuses", kAnyCipher,
     [](CipherEnv& e) { char v[] = "0"; OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_PADDING, v, 1), OSSL_PARAM_END};
                        return e.f.einit(e.ctx, kKey2, 16, kIv, 16, p); }},
    {"encrypt_init", "keyed", kCKeyed, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.einit(nullptr, kKey, 16, kIv, 16, nullptr); }},

    // update
    {"update", "new", kCNew, "16 bytes, no key", Outcome::kRefused, kErrNoKeySet, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.update(e.ctx, e.out(), &e.sink.outl, 64, msg(), 16); }},
    {"update", "keyed", kCKeyed, "in NULL, inl 16", Outcome::kRefused, kErrInvalidLength,
     "default reads through NULL (crash)", kAnyCipher,
     [](CipherEnv& e) { return e.f.update(e.ctx, e.out(), &e.sink.outl, 64, nullptr, 16); }},
    {"update", "mid-message", kCMid, "in NULL, inl 0", Outcome::kNoOp, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.update(e.ctx, e.out(), &e.sink.outl, 64, nullptr, 0); }},
    {"update", "keyed", kCKeyed, "out NULL for 16 bytes of output", Outcome::kRefused, kErrInvalidLength, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.update(e.ctx, nullptr, &e.sink.outl, 64, msg(), 16); }},
    {"update", "mid-message", kCMid, "out NULL, outsize 0, 5 more bytes (no block completes)", Outcome::kAccepted, 0, nullptr, kBlockMode,
     [](CipherEnv& e) { return e.f.update(e.ctx, nullptr, &e.sink.outl, 0, msg(5), 5); },
     [](CipherEnv& e) { return e.f.update(e.ctx, e.out(), &e.sink.outl, 64, msg(5), 5); }},
    {"update", "mid-message", kCMid, "inl SIZE_MAX (EVP_EncryptUpdate with -1), outsize SIZE_MAX", Outcome::kRefused, kErrInvalidLength,
     "default copies about 2^64 bytes into its block buffer or runs off both buffers in stream modes (crash); "
     "through EVP, block modes survive only because EVP's outsize wraps too", kAnyCipher,
     [](CipherEnv& e) { return e.f.update(e.ctx, e.out(), &e.sink.outl, SIZE_MAX, msg(5), SIZE_MAX); }},
    {"update", "mid-message", kCMid, "inl INT_MIN turned size_t", Outcome::kRefused, kErrInvalidLength, nullptr, kAnyCipher,
     [](CipherEnv& e) { const size_t n = static_cast<size_t>(static_cast<ptrdiff_t>(INT_MIN));
                        return e.f.update(e.ctx, e.out(), &e.sink.outl, n, msg(5), n); }},
    {"update", "mid-message", kCMid, "inl INT_MAX + 1 (more than EVP's int carries)", Outcome::kRefused, kErrInvalidLength, nullptr, kAnyCipher,
     [](CipherEnv& e) { const size_t n = size_t{INT_MAX} + 1;
                        return e.f.update(e.ctx, e.out(), &e.sink.outl, n + 16, msg(5), n); }},
    {"update", "mid-message", kCMid, "in + inl wraps the address space", Outcome::kRefused, kErrInvalidLength, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.update(e.ctx, e.out(), &e.sink.outl, 64, wrapping_pointer(), 16); }},
    {"update", "keyed", kCKeyed, "outsize 15 for 16 bytes", Outcome::kRefused, kErrOutputBufferTooSmall, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.update(e.ctx, e.out(), &e.sink.outl, 15, msg(), 16); }},
    {"update", "mid-message", kCMid, "in place, outsize = inl = 27 (32 bytes come out)", Outcome::kRefused, kErrOutputBufferTooSmall, nullptr, kBlockMode,
     [](CipherEnv& e) { unsigned char* io = e.sink.load(msg(5), 27);
                        return e.f.update(e.ctx, io, &e.sink.outl, 27, io, 27); }},
    {"update", "keyed", kCKeyed, "outl NULL", Outcome::kRefused, kErrInvalidParameter,
     "default writes through NULL (crash)", kAnyCipher,
     [](CipherEnv& e) { return e.f.update(e.ctx, e.out(), nullptr, 64, msg(), 16); }},
    {"update", "finalised", kCFinalised, "16 bytes after final", Outcome::kRefused, kErrUpdateAfterFinal,
     kAfterFinalDiffers, kAnyCipher,
     [](CipherEnv& e) { return e.f.update(e.ctx, e.out(), &e.sink.outl, 64, msg(), 16); }},
    {"update", "keyed", kCKeyed, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.update(nullptr, e.out(), &e.sink.outl, 64, msg(), 16); }},

    // final
    {"final", "new", kCNew, "no key", Outcome::kRefused, kErrNoKeySet, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, 64); }},
    {"final", "mid-message", kCMid, "outsize 15 for the padding block", Outcome::kRefused, kErrOutputBufferTooSmall, nullptr, kBlockMode,
     [](CipherEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, 15); }},
    {"final", "mid-message", kCMid, "out NULL, outsize 16", Outcome::kRefused, kErrInvalidLength, nullptr, kBlockMode,
     [](CipherEnv& e) { return e.f.final(e.ctx, nullptr, &e.sink.outl, 16); }},
    {"final", "decrypting, last block held back", kCDecrypting, "outsize 4 for 5 unpadded bytes", Outcome::kRefused, kErrOutputBufferTooSmall, nullptr, kBlockMode,
     [](CipherEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, 4); }},
    {"final", "padding off, 5 bytes left over", kCNoPadding, "final", Outcome::kRefused, kErrWrongFinalBlockLength, nullptr, kBlockMode,
     [](CipherEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, 64); }},
    {"final", "decrypting, last block padded wrongly", kCBadPadding, "final", Outcome::kRefused, kErrBadDecrypt, nullptr, kBlockMode,
     [](CipherEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, 64); }},
    {"final", "mid-message", kCMid, "outl NULL", Outcome::kRefused, kErrInvalidParameter, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.final(e.ctx, e.out(), nullptr, 64); }},
    {"final", "finalised", kCFinalised, "final again", Outcome::kRefused, kErrFinalCalledTwice,
     "default pads again in CBC/ECB (a second padding block) and returns 1 in stream modes", kAnyCipher,
     [](CipherEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, 64); }},
    {"final", "mid-message", kCMid, "out NULL, outsize 0 (a stream mode's final writes nothing)", Outcome::kAccepted, 0, nullptr, kStreamMode,
     [](CipherEnv& e) { return e.f.final(e.ctx, nullptr, &e.sink.outl, 0); },
     [](CipherEnv& e) { return e.f.final(e.ctx, e.out(), &e.sink.outl, 64); }},
    {"final", "mid-message", kCMid, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.final(nullptr, e.out(), &e.sink.outl, 64); }},

    // cipher (EVP_Cipher)
    {"cipher", "new", kCNew, "no key", Outcome::kRefused, kErrNoKeySet, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.cipher(e.ctx, e.out(), &e.sink.outl, 64, msg(), 16); }},
    {"cipher", "keyed", kCKeyed, "outsize 15 for 16 bytes", Outcome::kRefused, kErrOutputBufferTooSmall, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.cipher(e.ctx, e.out(), &e.sink.outl, 15, msg(), 16); }},
    {"cipher", "keyed", kCKeyed, "5 bytes (not whole blocks)", Outcome::kRefused, kErrWrongFinalBlockLength,
     "default answers inl: ECB leaves the partial block unwritten, CBC encrypts it zero-padded, writing a whole block", kBlockMode,
     [](CipherEnv& e) { return e.f.cipher(e.ctx, e.out(), &e.sink.outl, 64, msg(), 5); }},
    {"cipher", "keyed", kCKeyed, "in NULL, inl 16", Outcome::kRefused, kErrInvalidLength, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.cipher(e.ctx, e.out(), &e.sink.outl, 64, nullptr, 16); }},
    {"cipher", "keyed", kCKeyed, "inl SIZE_MAX, outsize SIZE_MAX", Outcome::kRefused, kErrInvalidLength, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.cipher(e.ctx, e.out(), &e.sink.outl, SIZE_MAX, msg(), SIZE_MAX); }},
    {"cipher", "keyed", kCKeyed, "in NULL, inl 0", Outcome::kNoOp, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.cipher(e.ctx, e.out(), &e.sink.outl, 64, nullptr, 0); }},
    {"cipher", "keyed", kCKeyed, "outl NULL (the output length is inl)", Outcome::kAccepted, 0,
     "default writes through NULL (crash)", kAnyCipher,
     [](CipherEnv& e) { return e.f.cipher(e.ctx, e.out(), nullptr, 64, msg(), 32); },
     [](CipherEnv& e) { return e.f.cipher(e.ctx, e.out(), &e.sink.outl, 64, msg(), 32); }},
    {"cipher", "finalised", kCFinalised, "16 bytes after final", Outcome::kRefused, kErrUpdateAfterFinal,
     kAfterFinalDiffers, kAnyCipher,
     [](CipherEnv& e) { return e.f.cipher(e.ctx, e.out(), &e.sink.outl, 64, msg(), 16); }},
    {"cipher", "keyed", kCKeyed, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) { return e.f.cipher(nullptr, e.out(), &e.sink.outl, 64, msg(), 16); }},

    // set_ctx_params: all parameters are read before any is applied
    {"set_ctx_params", "mid-message", kCMid, "num = 16", Outcome::kRefused, kErrFailedToGetParameter,
     "default accepts any num; CTR then reads keystream[num] past its block", kAnyCipher,
     [](CipherEnv& e) { unsigned v = 16; OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &v), OSSL_PARAM_END};
                        return set_params(e, e.ctx, p); }},
    {"set_ctx_params", "mid-message", kCMid, "num = UINT_MAX", Outcome::kRefused, kErrFailedToGetParameter,
     "default accepts any num; CTR then reads keystream[num] past its block", kAnyCipher,
     [](CipherEnv& e) { unsigned v = UINT_MAX; OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &v), OSSL_PARAM_END};
                        return set_params(e, e.ctx, p); }},
    {"set_ctx_params", "mid-message", kCMid, "num as a size_t 2^32 + 1 (no unsigned int holds it)", Outcome::kRefused, kErrFailedToGetParameter, nullptr, kAnyCipher,
     [](CipherEnv& e) { size_t v = (size_t{1} << 32) + 1; OSSL_PARAM p[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_NUM, &v), OSSL_PARAM_END};
                        return set_params(e, e.ctx, p); }},
    {"set_ctx_params", "mid-message", kCMid, "num as int -1", Outcome::kRefused, kErrFailedToGetParameter, nullptr, kAnyCipher,
     [](CipherEnv& e) { int v = -1; OSSL_PARAM p[] = {OSSL_PARAM_int(OSSL_CIPHER_PARAM_NUM, &v), OSSL_PARAM_END};
                        return set_params(e, e.ctx, p); }},
    {"set_ctx_params", "mid-message", kCMid, "num as an octet string", Outcome::kRefused, kErrFailedToGetParameter, nullptr, kAnyCipher,
     [](CipherEnv& e) { unsigned v = 3; OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_NUM, &v, sizeof v), OSSL_PARAM_END};
                        return set_params(e, e.ctx, p); }},
    {"set_ctx_params", "mid-message", kCMid, "padding as a UTF-8 string \"0\"", Outcome::kRefused, kErrFailedToGetParameter, nullptr, kAnyCipher,
     [](CipherEnv& e) { char v[] = "0"; OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_PADDING, v, 1), OSSL_PARAM_END};
                        return set_params(e, e.ctx, p); }},
    {"set_ctx_params", "mid-message", kCMid, "padding as an octet string", Outcome::kRefused, kErrFailedToGetParameter, nullptr, kAnyCipher,
     [](CipherEnv& e) { unsigned v = 0; OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_PADDING, &v, sizeof v), OSSL_PARAM_END};
                        return set_params(e, e.ctx, p); }},
    {"set_ctx_params", "mid-message", kCMid, "padding 0 (good) with num as a UTF-8 string", Outcome::kRefused, kErrFailedToGetParameter,
     "default applies padding 0 before it refuses num", kAnyCipher,
     [](CipherEnv& e) { unsigned z = 0; char v[] = "1";
                        OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &z), OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_NUM, v, 1), OSSL_PARAM_END};
                        return set_params(e, e.ctx, p); }},
    {"set_ctx_params", "mid-message", kCMid, "use-bits as a UTF-8 string (as default)", Outcome::kRefused, kErrFailedToGetParameter, nullptr, kAnyCipher,
     [](CipherEnv& e) { char v[] = "1"; OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_USE_BITS, v, 1), OSSL_PARAM_END};
                        return set_params(e, e.ctx, p); }},
    {"set_ctx_params", "mid-message", kCMid, "tls-mac-size as a UTF-8 string (as default)", Outcome::kRefused, kErrFailedToGetParameter, nullptr, kAnyCipher,
     [](CipherEnv& e) { char v[] = "20"; OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, v, 2), OSSL_PARAM_END};
                        return set_params(e, e.ctx, p); }},
    {"set_ctx_params", "mid-message", kCMid, "padding 0 with tls-version TLS 1.2", Outcome::kRefused, kErrInvalidParameter,
     "default switches to TLS record mode (each update one record, padded or unpadded in place)", kAnyCipher,
     [](CipherEnv& e) { unsigned z = 0, v = 0x0303;
                        OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &z), OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &v), OSSL_PARAM_END};
                        return set_params(e, e.ctx, p); }},
    {"set_ctx_params", "mid-message", kCMid, "tls-version 0 and use-bits 0 (no TLS, whole bytes: as default)", Outcome::kNoOp, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) { unsigned z = 0, b = 0;
                        OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &z), OSSL_PARAM_uint(OSSL_CIPHER_PARAM_USE_BITS, &b), OSSL_PARAM_END};
                        return set_params(e, e.ctx, p); }},
    {"set_ctx_params", "mid-message", kCMid, "params NULL", Outcome::kNoOp, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) { return set_params(e, e.ctx, nullptr); }},
    {"set_ctx_params", "mid-message", kCMid, "only a key nobody knows (ignored, as default)", Outcome::kNoOp, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) { unsigned v = 1; OSSL_PARAM p[] = {OSSL_PARAM_uint("no-such-parameter", &v), OSSL_PARAM_END};
                        return set_params(e, e.ctx, p); }},
    {"set_ctx_params", "mid-message", kCMid, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) { unsigned v = 0; OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &v), OSSL_PARAM_END};
                        return set_params(e, nullptr, p); }},

    // get_ctx_params, get_params
    {"get_ctx_params", "mid-message", kCMid, "num into an octet string", Outcome::kRefused, kErrFailedToSetParameter, nullptr, kAnyCipher,
     [](CipherEnv& e) { OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_NUM, e.out(), 4), OSSL_PARAM_END};
                        return e.f.get_ctx_params(e.ctx, p); }},
    {"get_ctx_params", "mid-message", kCMid, "updated IV into 8 bytes", Outcome::kRefused, kErrFailedToSetParameter, nullptr, kIvMode,
     [](CipherEnv& e) { OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, e.out(), 8), OSSL_PARAM_END};
                        return e.f.get_ctx_params(e.ctx, p); }},
    {"get_ctx_params", "mid-message", kCMid, "keylen into a UTF-8 string", Outcome::kRefused, kErrFailedToSetParameter, nullptr, kAnyCipher,
     [](CipherEnv& e) { OSSL_PARAM p[] = {OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_KEYLEN, e.out(), 16), OSSL_PARAM_END};
                        return e.f.get_ctx_params(e.ctx, p); }},
    {"get_ctx_params", "mid-message", kCMid, "ctx NULL", Outcome::kRefusedSilently, 0, nullptr, kAnyCipher,
     [](CipherEnv& e) { OSSL_PARAM p[] = {OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, reinterpret_cast<unsigned*>(e.out())), OSSL_PARAM_END};
                        return e.f.get_ctx_params(nullptr, p); }},
    {"get_params", "-", kCMid, "mode into an octet string", Outcome::kRefusedSilently, 0,
     "default, inside libcrypto, raises an error; a provider's get_params has no core handle to raise one", kAnyCipher,
     [](CipherEnv& e) { OSSL_PARAM p[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_MODE, e.out(), 4), OSSL_PARAM_END};
                        return e.f.get_params(p); }},
    };
    return rows;
}
// clang-format on

}  // namespace

TEST_CASE("entry-point rules: ciphers", "[dispatch][rules][cipher]") {
    g_core = FakeCore{};
    Module m;
    REQUIRE(m.init_result == 1);
    for (const CipherAlg& alg : kCiphers) {
        CipherFns f(m.cipher(alg.name));
        CipherHarness h(f, alg, m.provctx);
        for (const CRow& row : cipher_rows()) {
            if (!(row.applies & alg.kind)) continue;
            run_row(h, row);
            // A refused call on a new context leaves no key behind (a
            // refused init not the key it was given): update says so.
            if (row.sit == kCNew && row.outcome == Outcome::kRefused) {
                void* c = h.make(kCNew);
                Sink sink;
                CipherEnv env = h.env(c, sink);
                g_core.clear_errors();
                CHECK(row.call(env) == 0);
                g_core.clear_errors();
                unsigned char out[64];
                size_t outl = 0;
                CHECK(f.update(c, out, &outl, sizeof out, msg(), 16) == 0);
                CHECK(g_core.reasons == std::vector<int>{kErrNoKeySet});
                h.free(c);
            }
        }
    }
}

// The spec's size, and where it differs from the default provider.
TEST_CASE("entry-point rules: the table", "[dispatch][rules]") {
    size_t runs = 0, differs = 0;
    for (const DRow& row : digest_rows()) {
        for (const DigestAlg& alg : kDigests) runs += (row.applies & alg.kind) != 0;
        differs += row.differs_from_default != nullptr;
    }
    for (const CRow& row : cipher_rows()) {
        for (const CipherAlg& alg : kCiphers) runs += (row.applies & alg.kind) != 0;
        differs += row.differs_from_default != nullptr;
    }
    const size_t rows = digest_rows().size() + cipher_rows().size();
    WARN("entry-point rules: " << rows << " rows (" << digest_rows().size() << " digest, "
         << cipher_rows().size() << " cipher), " << runs << " row x algorithm runs, "
         << differs << " rows name a difference from the default provider");
    // Every row has its text; refusals have a reason.
    for (const DRow& row : digest_rows())
        CHECK((row.outcome != Outcome::kRefused || row.reason != 0));
    for (const CRow& row : cipher_rows())
        CHECK((row.outcome != Outcome::kRefused || row.reason != 0));
}
