// hwaccel-aead-differential: hwaccel's SM4-GCM, SM4-CCM and SM4-XTS against
// the default provider's (OpenSSL 3.6+), driven through the same random
// sequence of EVP steps (init in every form, set/get params incl. the TLS
// ones, update, final, EVP_Cipher, copy) on two contexts, and compared after
// each step: return values, outputs, and the state a caller can read.
//
// The differences README lists ("Where hwaccel is stricter than the default
// provider") are labelled [doc:...] when their preconditions are in play; any
// other difference is new, and fails the run. Inputs that crash the default
// provider are given to hwaccel alone, which must refuse them.
//
// usage: hwaccel-aead-differential gcm|ccm|xts SEED STEPS [TRACES_PER_CLASS]
//   exit 0: no unlabelled difference; 1: one at least (its trace printed);
//   2: usage or setup error. HWACCEL_AEAD_DIFF_VERBOSE=1 prints every step
//   to stderr (what scripts/aead-differential.sh shows after a crash).
// In traces and details H is hwaccel's answer, D the default provider's.
// OPENSSL_MODULES must name the directory holding hwaccel.so.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

// ------------------------------------------------------------ the sequence's randomness

// SplitMix64: the whole run follows from the seed, so a seed reproduces it.
static uint64_t rng_state;
static uint64_t next_random() {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static size_t random_below(size_t n) { return n ? next_random() % n : 0; }
static bool percent_chance(int pct) { return (int)random_below(100) < pct; }

// ------------------------------------------------------------ the two contexts and what the sequence did

enum Mode { GCM, CCM, XTS };
static Mode mode;

struct Side {
    EVP_CIPHER_CTX* ctx = nullptr;
    EVP_CIPHER* cipher = nullptr;
};
static Side hw, dflt;  // hwaccel's, the default provider's

static std::vector<std::string> step_trace;  // the steps since the last reset
static std::map<std::string, long> difference_counts;  // per class
static long traces_per_class = 3;

// The label of a documented difference whose precondition is in play: it
// prefixes the class of any difference the step shows. Sticky labels stay
// until the next reset (the precondition changed the state for good).
static std::string known_label;
static bool label_sticky = false;
static void label(const char* text, bool stays) {
    if (!label_sticky) {
        known_label = text;
        label_sticky = stays;
    }
}

// What the steps since the reset did, as far as a label depends on it.
static size_t ccm_ivlen_at_key = 0, ccm_taglen_at_key = 0;  // default fixes L and M with the key
static bool ccm_payload_done = false;      // the nonce is spent
static bool ccm_payload_attempted = false;  // a payload or final was tried (default may keep its declaration)
static bool ccm_has_nonce = false;
static bool ccm_tls_mode = false;
static bool ccm_declared = false;
static bool ccm_aad_done = false;         // the AAD went into the CBC-MAC after the length
static size_t ccm_declared_length = 0;
static bool gcm_tls_record_pending = false;
static bool gcm_empty_text_seen = false;
static bool expected_tag_set = false;
static bool tag_set_since_init = false;    // GCM: hwaccel's init forgets the expected tag
static bool gcm_encrypted_final = false;
static bool gcm_message_active = false;    // AAD, text or a TLS IV went into the message
static bool random_iv_drawn = false;       // GCM: either side drew a random IV: bytes can differ
static bool tlsaad_seen = false;
static bool xts_key_set = false;
static int xts_key_direction = -1;
static bool xts_equal_halves = false;
static long step_index = 0, resync_count = 0;

// Fixed per run: keys (XTS's last with equal halves), IVs, tags, payload.
static uint8_t key_pool[4][32];
static uint8_t iv_pool[3][128];
static uint8_t tag_pool[2][32];
static uint8_t payload[4096];

static std::string hex(const uint8_t* p, size_t n) {
    std::string s;
    char b[3];
    for (size_t i = 0; i < n && i < 40; ++i) {
        snprintf(b, sizeof b, "%02x", p[i]);
        s += b;
    }
    if (n > 40) s += "..";
    return s;
}

static bool verbose = getenv("HWACCEL_AEAD_DIFF_VERBOSE") != nullptr;

// The labels follow 4.0's default; where 3.6's behaves otherwise (README
// names the release) the label applies only when the tool runs against 3.6,
// so a 4.0 run stays as strict.
static bool default_is_36 = false;

// Fresh contexts on both sides and nothing remembered: after a difference
// (the two states have parted) and now and then, so short sequences are many.
static void reset_contexts() {
    EVP_CIPHER_CTX_free(hw.ctx);
    EVP_CIPHER_CTX_free(dflt.ctx);
    hw.ctx = EVP_CIPHER_CTX_new();
    dflt.ctx = EVP_CIPHER_CTX_new();
    step_trace.clear();
    known_label.clear();
    label_sticky = false;
    ccm_ivlen_at_key = ccm_taglen_at_key = 0;
    ccm_payload_done = ccm_payload_attempted = ccm_has_nonce = ccm_tls_mode = ccm_declared = false;
    ccm_aad_done = false;
    gcm_tls_record_pending = gcm_empty_text_seen = gcm_encrypted_final = gcm_message_active = false;
    expected_tag_set = tag_set_since_init = random_iv_drawn = tlsaad_seen = false;
    xts_key_set = xts_equal_halves = false;
    xts_key_direction = -1;
    if (verbose) fprintf(stderr, "--- reset\n");
}

// [doc:...]: README lists it. [todo:...]: understood, hwaccel the stricter or
// the more exact, not yet in README: reported in the summary, not a failure.
static bool is_documented(const std::string& difference_class) {
    return difference_class.rfind("[doc:", 0) == 0 || difference_class.rfind("[todo:", 0) == 0;
}

// A difference, counted by class; the first of an undocumented class always
// shows its trace (the steps since the reset), else the first few of each.
static void report_difference(const std::string& what, const std::string& detail) {
    std::string difference_class = known_label + what;
    long& count = difference_counts[difference_class];
    ++count;
    if (count <= traces_per_class || (count == 1 && !is_documented(difference_class))) {
        printf("=== DIFF [%s] at step %ld: %s\n", difference_class.c_str(), step_index, detail.c_str());
        for (auto& line : step_trace) printf("   | %s\n", line.c_str());
        fflush(stdout);
    }
}

// ------------------------------------------------------------ parameters

struct ParamSet {  // a parameter array with its storage
    OSSL_PARAM p[8];
    int n = 0;
    size_t sz[8];
    uint8_t buf[8][160];
    std::string desc;
    void end() { p[n] = OSSL_PARAM_construct_end(); }
};

static void add_size(ParamSet& b, const char* k, size_t v) {
    b.sz[b.n] = v;
    b.p[b.n] = OSSL_PARAM_construct_size_t(k, &b.sz[b.n]);
    ++b.n;
    b.desc += std::string(k) + "=" + std::to_string(v) + " ";
}
static void add_oct(ParamSet& b, const char* k, const void* d, size_t len, bool null_data = false) {
    if (!null_data) std::memcpy(b.buf[b.n], d, len > 160 ? 160 : len);
    b.p[b.n] = OSSL_PARAM_construct_octet_string(k, null_data ? nullptr : b.buf[b.n], len);
    ++b.n;
    b.desc += std::string(k) + "[" + (null_data ? "NULL," : "") + std::to_string(len) + "] ";
}

// The provider's ivlen (EVP_CIPHER_CTX_get_iv_length may answer a cached one).
static size_t provider_ivlen(Side& s) {
    if (!s.ctx || !EVP_CIPHER_CTX_get0_cipher(s.ctx)) return 0;
    size_t v = 0;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &v), OSSL_PARAM_construct_end()};
    if (EVP_CIPHER_CTX_get_params(s.ctx, p) <= 0) v = 0;
    ERR_clear_error();
    return v;
}

// README: CCM's expected tag set after a tlsaad leaves the header alone
// (default keeps both in one buffer: its next record takes the tag's bytes).
static void label_ccm_tag_after_tlsaad(const ParamSet& b) {
    bool has_tag = b.desc.find("tag[") != std::string::npos;
    bool has_tlsaad = b.desc.find("tlsaad") != std::string::npos;
    if (mode == CCM && has_tag && (tlsaad_seen || has_tlsaad)) label("[doc:ccm-tag-after-tlsaad] ", true);
}

// One to three random settable parameters of the mode, sizes and values both
// valid and not.
static void gen_set_params(ParamSet& b) {
    int count = 1 + (int)random_below(3);
    std::vector<int> used;
    for (int i = 0; i < count; ++i) {
        int kind = (int)random_below(mode == XTS ? 1 : 5);
        bool dup = false;
        for (int u : used) dup |= u == kind;
        if (dup) continue;
        used.push_back(kind);
        if (mode == XTS) {
            static const char* vals[] = {"GB", "IEEE", "gb", "ieee", "GBX", "", "IEE"};
            const char* v = vals[random_below(7)];
            size_t len = strlen(v);
            std::memcpy(b.buf[b.n], v, len + 1);
            size_t ds = len;
            if (percent_chance(10)) ds = len + 1;
            if (percent_chance(5) && len) ds = len - 1;
            b.p[b.n] = OSSL_PARAM_construct_utf8_string("xts_standard", (char*)b.buf[b.n], ds);
            ++b.n;
            b.desc += std::string("xts_standard=\"") + v + "\"/" + std::to_string(ds) + " ";
            if (ds < len) known_label = "[doc:xts_standard-size] ";
            continue;
        }
        switch (kind) {
        case 0: {  // ivlen
            size_t v;
            if (mode == GCM) {
                static const size_t c[] = {12, 12, 8, 16, 1, 7, 13, 20, 0, 128, 129, 9};
                v = c[random_below(12)];
            } else {
                v = 7 + random_below(7);
                if (percent_chance(5)) v = percent_chance(50) ? 6 : 14;
            }
            add_size(b, OSSL_CIPHER_PARAM_AEAD_IVLEN, v);
            break;
        }
        case 1: {  // tag
            size_t len;
            if (mode == GCM) len = percent_chance(80) ? 16 : random_below(18);
            else len = percent_chance(85) ? 4 + 2 * random_below(7) : random_below(18);
            bool nul = mode == CCM ? percent_chance(50) : percent_chance(5);
            add_oct(b, OSSL_CIPHER_PARAM_AEAD_TAG, tag_pool[random_below(2)], len, nul);
            break;
        }
        case 2: {  // tlsaad
            uint8_t a[16];
            for (auto& x : a) x = (uint8_t)next_random();
            size_t len = 20 + random_below(60);
            if (percent_chance(10)) len = random_below(40);
            a[11] = (uint8_t)(len >> 8);
            a[12] = (uint8_t)len;
            add_oct(b, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, a, percent_chance(95) ? 13 : 12 + random_below(3));
            break;
        }
        case 3: {  // tlsivfixed
            size_t len;
            if (mode == GCM) len = percent_chance(10) ? SIZE_MAX : (percent_chance(70) ? 4 : random_below(14));
            else len = percent_chance(90) ? 4 : random_below(8);
            if (len == SIZE_MAX) {
                std::memcpy(b.buf[b.n], iv_pool[random_below(3)], 128);
                b.p[b.n] = OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, b.buf[b.n], SIZE_MAX);
                ++b.n;
                b.desc += "tlsivfixed[-1] ";
            } else {
                add_oct(b, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, iv_pool[random_below(3)], len);
            }
            break;
        }
        case 4: {  // tlsivinv (GCM only)
            if (mode != GCM) break;
            size_t len = percent_chance(70) ? 8 : 1 + random_below(12);
            add_oct(b, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, iv_pool[random_below(3)] + 40, len);
            break;
        }
        }
    }
    b.end();
}

// Would this set call drive default into documented memory-unsafe behaviour?
// (tlsivinv longer than the IV, or empty). Then only hwaccel runs, which must refuse.
static bool unsafe_for_default(const ParamSet& b, size_t ivlen_after) {
    for (int i = 0; i < b.n; ++i) {
        if (strcmp(b.p[i].key, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV) == 0 &&
            (b.p[i].data_size == 0 || b.p[i].data_size > ivlen_after))
            return true;
        if (strcmp(b.p[i].key, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED) == 0 && b.p[i].data_size == SIZE_MAX &&
            ivlen_after > 128)
            return true;
        // default: ivlen - (int)len wraps, so it takes a fixed part longer
        // than the IV (encrypting: RAND_bytes of ~2^64 bytes, a crash)
        if (strcmp(b.p[i].key, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED) == 0 && b.p[i].data_size != SIZE_MAX &&
            b.p[i].data_size > ivlen_after)
            return true;
    }
    return false;
}

static size_t ivlen_after_params(const ParamSet& b, size_t cur) {
    for (int i = 0; i < b.n; ++i)
        if (strcmp(b.p[i].key, OSSL_CIPHER_PARAM_AEAD_IVLEN) == 0) return b.sz[i];
    return cur;
}

// GCM: did either side draw a random IV? Then bytes may differ.
static void note_random_iv() {
    if (mode != GCM || !EVP_CIPHER_CTX_get0_cipher(dflt.ctx)) return;
    unsigned a = 0, b = 0;
    OSSL_PARAM pa[2] = {OSSL_PARAM_construct_uint("iv-generated", &a), OSSL_PARAM_construct_end()};
    OSSL_PARAM pb[2] = {OSSL_PARAM_construct_uint("iv-generated", &b), OSSL_PARAM_construct_end()};
    EVP_CIPHER_CTX_get_params(hw.ctx, pa);
    EVP_CIPHER_CTX_get_params(dflt.ctx, pb);
    ERR_clear_error();
    if (a || b) random_iv_drawn = true;
}

static bool hwaccel_drew_iv() {
    unsigned a = 0;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_uint("iv-generated", &a), OSSL_PARAM_construct_end()};
    EVP_CIPHER_CTX_get_params(hw.ctx, p);
    ERR_clear_error();
    return a != 0;
}

static size_t default_size_param(const char* k) {
    size_t v = 0;
    OSSL_PARAM p[2] = {OSSL_PARAM_construct_size_t(k, &v), OSSL_PARAM_construct_end()};
    if (!dflt.ctx || !EVP_CIPHER_CTX_get0_cipher(dflt.ctx) || EVP_CIPHER_CTX_get_params(dflt.ctx, p) <= 0) v = 0;
    ERR_clear_error();
    return v;
}

// ------------------------------------------------------------ steps

static void record_step(const std::string& s) {
    if (verbose) fprintf(stderr, "%ld %s\n", step_index, s.c_str());
    step_trace.push_back(s);
    if (step_trace.size() > 200) step_trace.erase(step_trace.begin());
}

static std::string returns_text(int h, int d) { return "H=" + std::to_string(h) + " D=" + std::to_string(d); }

static bool both_refused = false;
static bool parted_as_documented = false;  // both answered alike, their states differ as README says
static bool returns_agree(const std::string& cls, int rh, int rd, const std::string& desc) {
    record_step("  => " + returns_text(rh, rd));
    if (rh <= 0 && rd <= 0 && (cls.rfind("init", 0) == 0 || cls.rfind("set", 0) == 0)) both_refused = true;
    if ((rh > 0) != (rd > 0)) {
        report_difference(cls + (rh > 0 ? " H-ok/D-fail" : " H-fail/D-ok"), desc + " " + returns_text(rh, rd));
        return false;
    }
    return true;
}

static bool has_cipher(Side& s) { return EVP_CIPHER_CTX_get0_cipher(s.ctx) != nullptr; }

static bool step_init() {
    bool fresh = !has_cipher(dflt);
    bool give_cipher = fresh ? percent_chance(97) : percent_chance(10);
    int enc = (int)random_below(3) - 1;
    bool key = percent_chance(fresh ? 80 : 40);
    bool iv = percent_chance(60);
    bool params = percent_chance(35);
    int ki = (int)random_below(mode == XTS ? 4 : 2);
    if (mode == XTS && ki == 3 && percent_chance(80)) ki = 0;  // equal halves rarely
    int ii = (int)random_below(3);
    ParamSet b;
    if (params) gen_set_params(b);
    if (mode == XTS && key && ki == 3) known_label = "[doc:xts-equal-halves] ";
    std::string desc = std::string("init cipher=") + (give_cipher ? "Y" : "N") + " enc=" + std::to_string(enc) +
                       " key=" + (key ? std::to_string(ki) : "N") + " iv=" + (iv ? std::to_string(ii) : "N") +
                       (params ? " params: " + b.desc : "");
    size_t ivl_d = give_cipher ? (size_t)EVP_CIPHER_get_iv_length(dflt.cipher) : provider_ivlen(dflt);
    if (give_cipher && has_cipher(dflt)) ivl_d = (size_t)EVP_CIPHER_get_iv_length(dflt.cipher);
    size_t ivl_after = ivlen_after_params(b, iv ? ivl_d : ivl_d);
    record_step(desc);
    if (params && mode == GCM && unsafe_for_default(b, ivl_after)) {
        int rh = EVP_CipherInit_ex2(hw.ctx, give_cipher ? hw.cipher : nullptr, key ? key_pool[ki] : nullptr, iv ? iv_pool[ii] : nullptr, enc, b.p);
        ERR_clear_error();
        if (rh > 0) report_difference("init unsafe-for-default accepted by H", desc);
        return false;  // EVP may have set ivlen on H before the init: start over
    }
    int rh = EVP_CipherInit_ex2(hw.ctx, give_cipher ? hw.cipher : nullptr, key ? key_pool[ki] : nullptr, iv ? iv_pool[ii] : nullptr, enc, params ? b.p : nullptr);
    ERR_clear_error();
    int rd = EVP_CipherInit_ex2(dflt.ctx, give_cipher ? dflt.cipher : nullptr, key ? key_pool[ki] : nullptr, iv ? iv_pool[ii] : nullptr, enc, params ? b.p : nullptr);
    ERR_clear_error();
    if (params) label_ccm_tag_after_tlsaad(b);
    if (params && b.desc.find("tlsaad") != std::string::npos) tlsaad_seen = true;
    if (rh > 0 && rd > 0 && params && b.desc.find("tlsaad") != std::string::npos) gcm_tls_record_pending = true;
    if (rh > 0 && rd > 0 && params && b.desc.find("tag[") != std::string::npos) expected_tag_set = true;
    if (rh > 0 && rd > 0) tag_set_since_init = params && b.desc.find("tag[") != std::string::npos;
    if (give_cipher) xts_key_set = false;
    if (key && rd > 0) xts_key_set = true;
    if (mode == CCM && rh > 0 && rd > 0) {
        if (ccm_payload_attempted) label("[doc:ccm-init-keeps-declaration] ", true);
        ccm_payload_attempted = ccm_declared = false;
        if (iv) ccm_payload_done = false, ccm_has_nonce = true;
        if (key) ccm_ivlen_at_key = default_size_param(OSSL_CIPHER_PARAM_IVLEN), ccm_taglen_at_key = default_size_param(OSSL_CIPHER_PARAM_AEAD_TAGLEN);
        if (params && b.desc.find("ivlen") != std::string::npos && !iv) ccm_has_nonce = false;
        if (give_cipher) ccm_tls_mode = false, ccm_aad_done = false;  // EVP makes a new provider context
        if (give_cipher && !iv) ccm_has_nonce = false;
        if (iv) ccm_aad_done = false;
        if (params && b.desc.find("tlsaad") != std::string::npos) ccm_tls_mode = true;
        // README: default fixes L and M when the key is set, and its init
        // sets the key before it applies the parameters
        if (key && params && (b.desc.find("ivlen") != std::string::npos || b.desc.find("tag[") != std::string::npos))
            label("[doc:ccm-lm-after-key] ", true);
    }
    if (mode == GCM && rd > 0) {
        // README: a new key mid-message restarts it (default goes on from a cleared state)
        if (key && gcm_message_active) label("[doc:gcm-key-midmsg] ", true);
        if (iv) gcm_message_active = false;
        // a TLS IV set in the init starts the message as it does through set
        if (rh > 0 && params && (b.desc.find("tlsivinv") != std::string::npos || b.desc.find("tlsivfixed") != std::string::npos))
            gcm_message_active = true;
    }
    if (mode == XTS) {
        if (key && rd > 0) {
            xts_key_direction = EVP_CIPHER_CTX_is_encrypting(dflt.ctx);
            xts_equal_halves = ki == 3;
        }
        // README: default keeps the first direction's key schedule
        if (rd > 0 && xts_key_set && xts_key_direction >= 0 && EVP_CIPHER_CTX_is_encrypting(dflt.ctx) != xts_key_direction)
            label("[doc:xts-dir-switch] ", true);
    }
    note_random_iv();
    std::string cls = std::string("init") + (key ? " key" : "") + (iv ? " iv" : "") + (params ? " params" : "");
    if (params) {
        for (int i = 0; i < b.n; ++i) cls += std::string(" ") + b.p[i].key;
    }
    return returns_agree(cls, rh, rd, desc);
}

static bool step_set() {
    if (!has_cipher(dflt)) return true;
    ParamSet b;
    gen_set_params(b);
    std::string desc = "set " + b.desc;
    if (mode == CCM && ccm_declared && b.desc.find("tag[") != std::string::npos) label("[doc:ccm-taglen-midmsg] ", false);
    record_step(desc);
    size_t ivl_after = ivlen_after_params(b, provider_ivlen(dflt));
    if (mode == GCM && unsafe_for_default(b, ivl_after)) {
        int rh = EVP_CIPHER_CTX_set_params(hw.ctx, b.p);
        ERR_clear_error();
        if (rh > 0) report_difference("set unsafe-for-default accepted by H", desc);
        return false;
    }
    int rh = EVP_CIPHER_CTX_set_params(hw.ctx, b.p);
    ERR_clear_error();
    int rd = EVP_CIPHER_CTX_set_params(dflt.ctx, b.p);
    ERR_clear_error();
    label_ccm_tag_after_tlsaad(b);
    if (b.desc.find("tlsaad") != std::string::npos) tlsaad_seen = true;
    if (rh > 0 && rd > 0 && b.desc.find("tlsaad") != std::string::npos) gcm_tls_record_pending = true, ccm_tls_mode = true;
    if (mode == CCM && rh > 0 && rd > 0 && b.desc.find("ivlen") != std::string::npos) ccm_has_nonce = false;
    if (rh > 0 && rd > 0 && (b.desc.find("tlsivinv") != std::string::npos || b.desc.find("tlsivfixed") != std::string::npos)) gcm_message_active = true;
    if (rh > 0 && rd > 0 && b.desc.find("tag[") != std::string::npos) expected_tag_set = tag_set_since_init = true;
    note_random_iv();
    std::string cls = "set";
    for (int i = 0; i < b.n; ++i) cls += std::string(" ") + b.p[i].key;
    return returns_agree(cls, rh, rd, desc);
}

// One get parameter on both.
static bool step_get() {
    if (!has_cipher(dflt)) return true;
    const char* key;
    size_t size = 0;
    bool nul = percent_chance(5);
    int type = 0;  // 0 octet, 1 size_t, 2 uint
    size_t ivl = provider_ivlen(dflt);
    int k = (int)random_below(mode == GCM ? 10 : mode == CCM ? 7 : 6);
    switch (k) {
    case 0: key = OSSL_CIPHER_PARAM_AEAD_TAG; size = mode == GCM ? (percent_chance(70) ? 16 : random_below(18)) : (percent_chance(70) ? 4 + 2 * random_below(7) : random_below(18)); if (mode == XTS) { key = OSSL_CIPHER_PARAM_PADDING; type = 2; } break;
    case 1: key = OSSL_CIPHER_PARAM_IV; size = percent_chance(70) ? ivl : random_below(mode == GCM ? 24 : 17); break;
    case 2: key = OSSL_CIPHER_PARAM_UPDATED_IV; size = percent_chance(70) ? ivl : random_below(mode == GCM ? 24 : 17); break;
    case 3: key = OSSL_CIPHER_PARAM_IVLEN; type = 1; break;
    case 4: key = mode == XTS ? OSSL_CIPHER_PARAM_NUM : OSSL_CIPHER_PARAM_AEAD_TAGLEN; type = mode == XTS ? 2 : 1; break;
    case 5: key = OSSL_CIPHER_PARAM_KEYLEN; type = 1; break;
    case 6: key = OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD; type = 1; break;
    case 7:
    case 8: key = OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN; size = percent_chance(70) ? 8 : random_below(17); nul = false; break;
    default: key = "iv-generated"; type = 2; break;
    }
    if (mode == GCM && strcmp(key, OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN) == 0 && ivl < 8) {
        // default increments in front of its IV buffer (README): hwaccel must refuse
        uint8_t buf[160];
        OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(key, buf, size), OSSL_PARAM_construct_end()};
        record_step("get tlsivgen (short iv, H only)");
        int rh = EVP_CIPHER_CTX_get_params(hw.ctx, p);
        ERR_clear_error();
        if (rh > 0) report_difference("tlsivgen short iv accepted by H", "");
        return rh <= 0;
    }
    if (type != 0) nul = false;
    if (mode == CCM && nul && strcmp(key, OSSL_CIPHER_PARAM_AEAD_TAG) == 0) {
        // default's CCM copies the tag through the NULL pointer (a crash): hwaccel must refuse
        OSSL_PARAM p[2] = {OSSL_PARAM_construct_octet_string(key, nullptr, size), OSSL_PARAM_construct_end()};
        record_step("get tag NULL (H only)");
        int rh = EVP_CIPHER_CTX_get_params(hw.ctx, p);
        ERR_clear_error();
        if (rh > 0) report_difference("ccm tag NULL accepted by H", "");
        return true;
    }
    uint8_t bh[160], bd[160];
    std::memset(bh, 0xa5, sizeof bh);
    std::memset(bd, 0xa5, sizeof bd);
    size_t sh = 0, sd = 0;
    unsigned uh = 77, ud = 77;
    OSSL_PARAM ph[2], pd[2];
    if (type == 0) {
        ph[0] = OSSL_PARAM_construct_octet_string(key, nul ? nullptr : bh, size);
        pd[0] = OSSL_PARAM_construct_octet_string(key, nul ? nullptr : bd, size);
    } else if (type == 1) {
        ph[0] = OSSL_PARAM_construct_size_t(key, &sh);
        pd[0] = OSSL_PARAM_construct_size_t(key, &sd);
    } else {
        ph[0] = OSSL_PARAM_construct_uint(key, &uh);
        pd[0] = OSSL_PARAM_construct_uint(key, &ud);
    }
    ph[1] = pd[1] = OSSL_PARAM_construct_end();
    if (mode == GCM && strcmp(key, OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN) == 0 && size == 0) label("[doc:gcm-tlsivgen-empty] ", false);
    // README: a NULL tag request is a size query: 0 bytes answers 16, over 16 is refused
    if (mode == GCM && strcmp(key, OSSL_CIPHER_PARAM_AEAD_TAG) == 0 && nul && (size > 16 || size == 0))
        label("[doc:gcm-tag-size-query] ", false);
    // README: CCM's tag gives nothing after a decryption began (default's
    // buffer holds the expected tag the caller set)
    if (mode == CCM && strcmp(key, OSSL_CIPHER_PARAM_AEAD_TAG) == 0 && expected_tag_set) label("[doc:ccm-expected-tag-readback] ", false);
    // a TLS record carries its tag: hwaccel has none to give after one (default answers)
    if (mode == CCM && strcmp(key, OSSL_CIPHER_PARAM_AEAD_TAG) == 0 && tlsaad_seen) label("[doc:ccm-tag-after-tls-record] ", false);
    if (mode == GCM && strcmp(key, OSSL_CIPHER_PARAM_AEAD_TAG) == 0 && expected_tag_set) label("[doc:gcm-expected-tag-readback] ", false);
    if (mode == GCM && strcmp(key, OSSL_CIPHER_PARAM_AEAD_TAG) == 0 && tlsaad_seen) label("[doc:gcm-tag-buffer-tlsaad] ", false);
    std::string desc = std::string("get ") + key + (type == 0 ? "[" + std::string(nul ? "NULL," : "") + std::to_string(size) + "]" : "");
    record_step(desc);
    int rh = EVP_CIPHER_CTX_get_params(hw.ctx, ph);
    ERR_clear_error();
    int rd = EVP_CIPHER_CTX_get_params(dflt.ctx, pd);
    ERR_clear_error();
    // README: an encryption's IV read before it has an IV draws one, as
    // 4.0's default does (3.6's refuses the read); hwaccel drew it here,
    // since a drawn IV resets the sequence
    if (mode == GCM && default_is_36 && rh > 0 && rd <= 0 &&
        (strcmp(key, OSSL_CIPHER_PARAM_IV) == 0 || strcmp(key, OSSL_CIPHER_PARAM_UPDATED_IV) == 0) &&
        hwaccel_drew_iv())
        label("[doc:gcm-iv-read-draws-36] ", false);
    note_random_iv();
    std::string cls = std::string("get ") + key;
    // tlsivgen puts the IV into default's message: a key now is mid-message
    if (mode == GCM && strcmp(key, OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN) == 0 && rh > 0 && rd > 0) gcm_message_active = true;
    if (!returns_agree(cls, rh, rd, desc)) return false;
    if (rh <= 0) return true;
    if (type == 0) {
        if (ph[0].return_size != pd[0].return_size) {
            // default's CCM writes the tag and leaves return_size as it was
            if (mode == CCM && strcmp(key, OSSL_CIPHER_PARAM_AEAD_TAG) == 0 && pd[0].return_size == OSSL_PARAM_UNMODIFIED)
                label("[doc:ccm-tag-return-size-unset] ", false);
            report_difference(cls + " return_size", desc + " H=" + std::to_string(ph[0].return_size) + " D=" + std::to_string(pd[0].return_size));
            return false;
        }
        if (!nul && !random_iv_drawn && std::memcmp(bh, bd, sizeof bh) != 0) {
            report_difference(cls + " bytes", desc + " H=" + hex(bh, size + 4) + " D=" + hex(bd, size + 4));
            return false;
        }
        record_step("  -> " + hex(bh, ph[0].return_size));
    } else if (type == 1) {
        if (sh != sd) {
            report_difference(cls + " value", desc + " H=" + std::to_string(sh) + " D=" + std::to_string(sd));
            return false;
        }
        record_step("  -> " + std::to_string(sh));
    } else {
        if (uh != ud && !(strcmp(key, "iv-generated") == 0 && random_iv_drawn && false)) {
            report_difference(cls + " value", desc + " H=" + std::to_string(uh) + " D=" + std::to_string(ud));
            return false;
        }
        record_step("  -> " + std::to_string(uh));
    }
    return true;
}

// update: AAD, payload, CCM declaration, NULL-in-with-length, in place, TLS record.
static bool step_update(bool use_cipher) {
    if (!has_cipher(dflt)) return true;
    int kind = (int)random_below(10);
    size_t len;
    if (mode == XTS) len = percent_chance(80) ? 16 + random_below(100) : random_below(20);
    else len = percent_chance(15) ? 0 : (percent_chance(50) ? 1 + random_below(40) : random_below(300));
    bool aad = false, decl = false, nullin = false, inplace = false, tls = false;
    if (mode == XTS) {
        inplace = percent_chance(30);
        nullin = percent_chance(2);
    } else if (kind <= 2) aad = true;
    else if (kind == 3 && mode == CCM) decl = true;
    else if (kind == 3 && mode == GCM) nullin = percent_chance(30), aad = !nullin;
    else if (kind == 4) inplace = true;
    else if (kind == 5) {
        tls = true;
        inplace = true;
        len = 8 + 16 + random_below(40);
        if (percent_chance(10)) len = random_below(30);
    }
    if (nullin && mode == XTS) len = 0;  // NULL input with a length is refused by both or UB
    uint8_t bh[4200], bd[4200], src[4200];
    std::memcpy(src, payload + random_below(64), 4096 - 64 > len ? len : 0);
    if (len > 4000) len = 4000;
    std::memset(bh, 0x5a, sizeof bh);
    std::memset(bd, 0x5a, sizeof bd);
    if (inplace) {
        std::memcpy(bh, src, len);
        std::memcpy(bd, src, len);
    }
    // GCM TLS record with an IV shorter than 8: default writes in front (README): skip it
    size_t ivl = provider_ivlen(dflt);
    std::string desc = std::string(use_cipher ? "EVP_Cipher " : "update ") + (aad ? "AAD " : "") + (decl ? "declare " : "") +
                       (nullin ? "NULL-in " : "") + (inplace ? "inplace " : "") + (tls ? "tls " : "") + "len=" + std::to_string(len);
    record_step(desc);
    int oh = -1, od = -1;
    int rh, rd;
    auto run = [&](Side& s, uint8_t* out, int* ol) {
        const uint8_t* in = nullin || decl ? nullptr : (inplace ? out : src);
        uint8_t* o = aad || decl ? nullptr : out;
        if (use_cipher) return EVP_Cipher(s.ctx, o, in, (unsigned)len);
        return EVP_CipherUpdate(s.ctx, o, ol, in, (int)len);
    };
    bool d_unsafe = mode == GCM && ivl < 8 && tlsaad_seen;  // a TLS record with a pending tlsaad
    if (d_unsafe) {
        // only if a tlsaad may be pending; we cannot see it: skip updates entirely then
        return true;
    }
    if (mode == GCM && nullin && len > 0) label("[doc:gcm-nullin] ", true);
    // EVP_Cipher with NULL input is final: as step_final's, README's tag a
    // decryption checks is one the caller set (default checks against an
    // earlier encryption's)
    if (mode == GCM && use_cipher && nullin && !tag_set_since_init && gcm_encrypted_final)
        label("[doc:gcm-tag-not-set] ", true);
    if (mode == CCM && ccm_payload_done && !ccm_tls_mode) label("[doc:ccm-after-payload] ", false);
    if (mode == CCM && !aad) ccm_payload_attempted = true;
    if (mode == CCM && decl) ccm_declared = true, ccm_declared_length = len;
    // hwaccel refuses a second length once AAD went in with the first (default takes it)
    if (mode == CCM && decl && ccm_aad_done) label("[doc:ccm-declare-after-aad] ", false);
    // README: one AAD update per message (default silently drops the first)
    if (mode == CCM && aad && ccm_aad_done) label("[doc:ccm-second-aad] ", false);
    // README: EVP_Cipher with NULL input declares the length as update does
    // (4.0's default takes it for final; 3.6's declares too, so there the
    // labels of a declaration say why the two differ)
    if (mode == CCM && use_cipher && (decl || nullin) && !default_is_36) label("[doc:ccm-evp-cipher-null-in] ", false);
    if (mode == GCM && aad && gcm_empty_text_seen) label("[doc:gcm-aad-after-empty-text] ", true);
    if (mode == GCM && use_cipher && !aad && !nullin && len == 0) gcm_empty_text_seen = true;
    if (mode == GCM && len > 0 && gcm_tls_record_pending) label("[doc:gcm-tls-record-taglen] ", true);
    if (mode == GCM && len > 0) gcm_tls_record_pending = false;
    if (mode == GCM) gcm_message_active = true;  // default starts the message on the call, whatever it answers
    rh = run(hw, bh, &oh);
    ERR_clear_error();
    rd = run(dflt, bd, &od);
    ERR_clear_error();
    // README: a refused update or final declares nothing (4.0.2's default
    // keeps the length a refused payload declared)
    if (mode == CCM && !aad && rh <= 0 && rd <= 0) label("[doc:ccm-refused-payload-declares] ", true);
    // GCM's EVP_Cipher with NULL input is final: README, a failed tag check ends the message
    if (mode == GCM && use_cipher && nullin && rh < 0 && rd < 0 && !EVP_CIPHER_CTX_is_encrypting(dflt.ctx))
        label("[doc:gcm-failed-tag] ", true);
    if (mode == GCM && use_cipher && nullin && rh >= 0 && rd >= 0 && EVP_CIPHER_CTX_is_encrypting(dflt.ctx))
        gcm_encrypted_final = true;  // an encryption's final: its tag is what default checks next
    note_random_iv();
    std::string cls = std::string(use_cipher ? "cipher" : "update") + (aad ? " aad" : "") + (decl ? " decl" : "") +
                      (nullin ? " nullin" : "") + (inplace ? " inplace" : "") + (tls ? " tlslen" : "") + (len == 0 ? " len0" : "");
    if (use_cipher) {
        record_step("  => " + returns_text(rh, rd));
        // EVP_Cipher on provider ciphers returns the length or -1/0
        if ((rh > 0) != (rd > 0) || (rh == 0) != (rd == 0)) {
            if ((rh >= 0 && rd >= 0 && (rh > 0) == (rd > 0))) {
            } else {
                report_difference(cls + " ret", desc + " " + returns_text(rh, rd));
                return false;
            }
        }
        if (rh > 0 && rh != rd) {
            report_difference(cls + " retlen", desc + " " + returns_text(rh, rd));
            return false;
        }
        if (rh <= 0 && rd <= 0) return true;
        oh = od = (int)len;
    } else {
        if (!returns_agree(cls, rh, rd, desc)) return false;
        if (rh <= 0) return true;
        if (oh != od) {
            report_difference(cls + " outl", desc + " outl H=" + std::to_string(oh) + " D=" + std::to_string(od));
            return false;
        }
    }
    if (!random_iv_drawn && !aad && !decl && std::memcmp(bh, bd, len + 32) != 0) {
        size_t i = 0;
        while (bh[i] == bd[i]) ++i;
        report_difference(cls + " bytes", desc + " first diff at " + std::to_string(i) + " H=" + hex(bh + i, 16) + " D=" + hex(bd + i, 16));
        return false;
    }
    if (len > 0) gcm_message_active = true;
    if (mode == CCM && !aad && !decl) ccm_payload_done = true;
    if (mode == CCM && aad) ccm_aad_done = true;
    record_step("  -> ok outl=" + std::to_string(oh));
    return true;
}

static bool step_final() {
    if (!has_cipher(dflt)) return true;
    uint8_t bh[64], bd[64];
    std::memset(bh, 0x5a, sizeof bh);
    std::memset(bd, 0x5a, sizeof bd);
    int oh = -1, od = -1;
    record_step("final");
    if (mode == GCM && provider_ivlen(dflt) < 8 && tlsaad_seen) return true;
    if (mode == CCM && !ccm_has_nonce) label("[doc:ccm-final-no-nonce] ", false);
    if (mode == CCM && ccm_tls_mode) label("[doc:ccm-final-tls] ", false);
    if (mode == CCM && ccm_payload_done) label("[doc:ccm-after-payload] ", false);
    // README: final with no payload runs the empty one; a declared length other than 0 is refused
    if (mode == CCM && ccm_declared && ccm_declared_length != 0 && !ccm_payload_done)
        label("[doc:ccm-final-declared-no-payload] ", false);
    if (mode == CCM) ccm_payload_attempted = true;
    if (mode == GCM && !tag_set_since_init && gcm_encrypted_final) label("[doc:gcm-tag-not-set] ", true);  // a pending TLS record could be UB on D
    // README: 3.6's default final outside TLS record mode answers 1 once a
    // key is set and does nothing (no empty payload, no tag, no check, the
    // nonce not spent); hwaccel's runs the empty payload if none went through
    bool ccm_final_36 = mode == CCM && default_is_36 && !ccm_payload_done && !ccm_tls_mode;
    int rh = EVP_CipherFinal_ex(hw.ctx, bh, &oh);
    ERR_clear_error();
    int rd = EVP_CipherFinal_ex(dflt.ctx, bd, &od);
    ERR_clear_error();
    gcm_message_active = false;
    if (ccm_final_36 && rd > 0) label("[doc:ccm-final-36] ", false);  // the label for 3.6's 1 only
    // hwaccel's message is sealed (tag made, nonce spent), 3.6's still open:
    // the states have parted as README says; start over rather than label
    // whatever follows
    if (ccm_final_36 && rh > 0 && rd > 0) parted_as_documented = true;
    // README: a failed tag check ends the message (default leaves it open)
    if (mode == GCM && rh <= 0 && rd <= 0 && !EVP_CIPHER_CTX_is_encrypting(dflt.ctx)) label("[doc:gcm-failed-tag] ", true);
    // hwaccel refuses final with a TLS record pending and keeps it (default consumes it)
    if (mode == GCM && gcm_tls_record_pending) label("[doc:gcm-final-tls-pending] ", true);
    if (mode == GCM && rh > 0 && EVP_CIPHER_CTX_is_encrypting(dflt.ctx)) gcm_encrypted_final = true;
    // README: CCM's final with no payload runs the empty one, which spends the nonce
    if (mode == CCM && rh > 0 && rd > 0) ccm_payload_done = true;
    if (mode == CCM && rh <= 0 && rd <= 0) label("[doc:ccm-refused-payload-declares] ", true);
    if (!returns_agree("final", rh, rd, "final")) return false;
    if (rh > 0 && (oh != od || std::memcmp(bh, bd, sizeof bh) != 0)) {
        report_difference("final out", "outl H=" + std::to_string(oh) + " D=" + std::to_string(od));
        return false;
    }
    return true;
}

static bool step_copy() {
    if (!has_cipher(dflt)) return true;
    // default's SM4-XTS copy of a keyless context gets key pointers and no
    // block functions: its next update calls NULL
    if (mode == XTS && !xts_key_set) return true;
    record_step("copy");
    EVP_CIPHER_CTX* nh = EVP_CIPHER_CTX_new();
    EVP_CIPHER_CTX* nd = EVP_CIPHER_CTX_new();
    int rh = EVP_CIPHER_CTX_copy(nh, hw.ctx);
    int rd = EVP_CIPHER_CTX_copy(nd, dflt.ctx);
    ERR_clear_error();
    if (rh > 0 && rd > 0) {
        // continue on the copies; the originals freed (ASan: no shared buffers)
        EVP_CIPHER_CTX_free(hw.ctx);
        EVP_CIPHER_CTX_free(dflt.ctx);
        hw.ctx = nh;
        dflt.ctx = nd;
        return true;
    }
    EVP_CIPHER_CTX_free(nh);
    EVP_CIPHER_CTX_free(nd);
    return returns_agree("copy", rh, rd, "copy");
}

// State after each step: the pure reads.
static bool compare_state() {
    if (!has_cipher(dflt) || !has_cipher(hw)) return true;
    static const char* keys_sz[] = {OSSL_CIPHER_PARAM_IVLEN, OSSL_CIPHER_PARAM_KEYLEN, OSSL_CIPHER_PARAM_AEAD_TAGLEN};
    int n = mode == XTS ? 2 : 3;
    for (int i = 0; i < n; ++i) {
        size_t a = 0, b = 0;
        OSSL_PARAM pa[2] = {OSSL_PARAM_construct_size_t(keys_sz[i], &a), OSSL_PARAM_construct_end()};
        OSSL_PARAM pb[2] = {OSSL_PARAM_construct_size_t(keys_sz[i], &b), OSSL_PARAM_construct_end()};
        int ra = EVP_CIPHER_CTX_get_params(hw.ctx, pa), rb = EVP_CIPHER_CTX_get_params(dflt.ctx, pb);
        ERR_clear_error();
        if ((ra > 0) != (rb > 0) || a != b) {
            report_difference(std::string("state ") + keys_sz[i], "H=" + std::to_string(a) + "/" + std::to_string(ra) + " D=" + std::to_string(b) + "/" + std::to_string(rb));
            return false;
        }
    }
    note_random_iv();
    if (mode != GCM) {  // pure IV read (GCM's may draw one)
        uint8_t a[16], b[16];
        std::memset(a, 0, 16);
        std::memset(b, 0, 16);
        size_t l = provider_ivlen(dflt);
        if (l > 16) l = 16;
        OSSL_PARAM pa[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_IV, a, l), OSSL_PARAM_construct_end()};
        OSSL_PARAM pb[2] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_IV, b, l), OSSL_PARAM_construct_end()};
        int ra = EVP_CIPHER_CTX_get_params(hw.ctx, pa), rb = EVP_CIPHER_CTX_get_params(dflt.ctx, pb);
        ERR_clear_error();
        if ((ra > 0) != (rb > 0) || (ra > 0 && std::memcmp(a, b, l) != 0)) {
            report_difference("state iv", "H=" + hex(a, l) + " D=" + hex(b, l));
            return false;
        }
    }
    return true;
}

// One step of the sequence, chosen at random; false when the two sides parted.
static bool run_one_step() {
    int choice = (int)random_below(100);
    if (choice < 18) return step_init();
    if (choice < 30) return mode == XTS && percent_chance(70) ? step_get() : step_set();  // XTS has one settable
    if (choice < 48) return step_get();
    if (choice < 78) return step_update(false);
    if (choice < 86) return step_update(true);
    if (choice < 96) return step_final();
    return step_copy();
}

static void fill_pools() {
    for (auto& key : key_pool)
        for (auto& byte : key) byte = (uint8_t)next_random();
    std::memcpy(key_pool[3] + 16, key_pool[3], 16);  // equal halves: XTS refuses such a key
    for (auto& iv : iv_pool)
        for (auto& byte : iv) byte = (uint8_t)next_random();
    for (auto& tag : tag_pool)
        for (auto& byte : tag) byte = (uint8_t)next_random();
    for (auto& byte : payload) byte = (uint8_t)next_random();
}

int main(int argc, char** argv) {
    std::string mode_name = argc >= 4 ? argv[1] : "";
    if (mode_name != "gcm" && mode_name != "ccm" && mode_name != "xts") {
        fprintf(stderr, "usage: %s gcm|ccm|xts SEED STEPS [TRACES_PER_CLASS]\n", argv[0]);
        return 2;
    }
    mode = mode_name == "gcm" ? GCM : mode_name == "ccm" ? CCM : XTS;
    rng_state = strtoull(argv[2], nullptr, 0);
    long steps = strtol(argv[3], nullptr, 0);
    if (argc > 4) traces_per_class = strtol(argv[4], nullptr, 0);
    default_is_36 = OPENSSL_version_major() == 3 && OPENSSL_version_minor() == 6;
    if (!OSSL_PROVIDER_load(nullptr, "hwaccel") || !OSSL_PROVIDER_load(nullptr, "default")) {
        ERR_print_errors_fp(stderr);
        return 2;
    }
    const char* cipher_name = mode == GCM ? "SM4-GCM" : mode == CCM ? "SM4-CCM" : "SM4-XTS";
    hw.cipher = EVP_CIPHER_fetch(nullptr, cipher_name, "provider=hwaccel");
    dflt.cipher = EVP_CIPHER_fetch(nullptr, cipher_name, "provider=default");
    if (!hw.cipher || !dflt.cipher) {
        fprintf(stderr, "%s: %s missing from hwaccel or the default provider\n", argv[0], cipher_name);
        ERR_print_errors_fp(stderr);
        return 2;
    }
    fill_pools();
    reset_contexts();
    for (step_index = 0; step_index < steps; ++step_index) {
        both_refused = parted_as_documented = false;
        if (!label_sticky) known_label.clear();
        if (mode == XTS && xts_equal_halves) known_label = "[doc:xts-equal-halves] ";
        if (mode == CCM && ccm_ivlen_at_key &&
            (default_size_param(OSSL_CIPHER_PARAM_IVLEN) != ccm_ivlen_at_key ||
             default_size_param(OSSL_CIPHER_PARAM_AEAD_TAGLEN) != ccm_taglen_at_key))
            label("[doc:ccm-lm-after-key] ", true);
        bool agreed = run_one_step();
        if (agreed && !both_refused) agreed = compare_state();
        if (!agreed) ++resync_count;
        // After a difference the states have parted; after random IVs bytes
        // no longer compare; after a refused init or set the two may hold
        // different partial states (documented), and after a step that parts
        // them as README says: start over in each case.
        if (!agreed || random_iv_drawn || both_refused || parted_as_documented || percent_chance(1)) reset_contexts();
    }
    long undocumented = 0;
    printf("mode %s seed %s steps %ld resyncs %ld\n", cipher_name, argv[2], steps, resync_count);
    for (auto& entry : difference_counts) {
        bool documented = is_documented(entry.first);
        if (!documented) undocumented += entry.second;
        printf("%8ld  %s%s\n", entry.second, documented ? "" : "UNDOCUMENTED ", entry.first.c_str());
    }
    EVP_CIPHER_CTX_free(hw.ctx);
    EVP_CIPHER_CTX_free(dflt.ctx);
    EVP_CIPHER_free(hw.cipher);
    EVP_CIPHER_free(dflt.cipher);
    if (undocumented) {
        printf("FAIL: %ld undocumented difference(s); reproduce: %s %s %s %s\n", undocumented, argv[0], mode_name.c_str(),
               argv[2], argv[3]);
        return 1;
    }
    return 0;
}
