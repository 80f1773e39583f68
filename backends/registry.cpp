#include "hwaccel/registry.hpp"

#include <algorithm>
#include <vector>

#include "generic/generic_engines.hpp"
#include "hwaccel/selftest.hpp"
#ifdef HWACCEL_TESTING
#include "testing/testing_engines.hpp"
#endif
#if defined(__x86_64__)
#include "x86/ghash_x86_engines.hpp"
#include "x86/sm4_x86_engines.hpp"
#include "x86/x86_engines.hpp"
#include "zhaoxin/phe_engines.hpp"
#endif
#if defined(__s390x__)
#include "s390x/s390x_engines.hpp"
#endif
#if defined(__aarch64__)
#include "arm64/arm64_engines.hpp"
#endif

namespace hwaccel {
namespace {

// The engines of each family, best first; the portable engine closes every
// list. Adding an engine is one line here.
const Sha1Engine* const kSha1[] = {
#if defined(__x86_64__)
    &x86::sha1_sha_ni,
    &zhaoxin::sha1_phe,  // after SHA-NI: a CPU with both uses SHA-NI, as the kernel does
#endif
#if defined(__s390x__)
    &s390x::sha1_cpacf,
#endif
#if defined(__aarch64__)
    &arm64::sha1_ce,
#endif
    &generic::sha1,
};
const Sha256Engine* const kSha256[] = {
#if defined(__x86_64__)
    &x86::sha256_sha_ni,
    &zhaoxin::sha256_phe,
#endif
#if defined(__s390x__)
    &s390x::sha256_cpacf,
#endif
#if defined(__aarch64__)
    &arm64::sha256_ce,
#endif
    &generic::sha256,
};
const KeccakEngine* const kKeccak[] = {
#if defined(__x86_64__)
    &x86::keccak_x86_avx512,
    &x86::keccak_x86_bmi2,
#endif
#if defined(__s390x__)
    &s390x::keccak_cpacf,
#endif
#if defined(__aarch64__)
    &arm64::keccak_sha3,  // automatic only where fast: see chosen_automatically
#endif
    &generic::keccak,
};
const Sm4Engine* const kSm4[] = {
#if defined(__x86_64__)
    &x86::sm4_gfni_avx512,
    &x86::sm4_gfni_avx2,
    &x86::sm4_vaes_avx2,
    &x86::sm4_aesni_avx2,
#endif
#if defined(__aarch64__)
    &arm64::sm4_ce,
#endif
#ifdef HWACCEL_TESTING
    &testing::sm4_minimal,  // only when forced: see chosen_automatically
#endif
    &generic::sm4,
};
const GhashEngine* const kGhash[] = {
#if defined(__x86_64__)
    &x86::ghash_vpclmul_avx512,
    &x86::ghash_vpclmul_avx2,
    &x86::ghash_pclmul,
#endif
#if defined(__s390x__)
    &s390x::ghash_cpacf,
#endif
#if defined(__aarch64__)
    &arm64::ghash_pmull,
#endif
    &generic::ghash,
};

// Engines served only when a selection names them: test-only engines, and
// engines this CPU runs but not faster than the next in line.
bool chosen_automatically(const void* engine, const CpuFeatures& cpu) {
#ifdef HWACCEL_TESTING
    if (engine == &testing::sm4_minimal) return false;
#endif
#if defined(__x86_64__)
    // One Keccak lane per xmm register beats the scalar code on AMD cores,
    // not on Intel's (cpu.hpp, avx512_keccak_fast).
    if (engine == &x86::keccak_x86_avx512) return cpu.avx512_keccak_fast;
#endif
#if defined(__aarch64__)
    // The SHA-3 instructions beat scalar Keccak on Apple cores only (about 2x
    // slower on Neoverse V1/V2/N2): see detect_arm64.hpp.
    if (engine == &arm64::keccak_sha3) return cpu.arm_sha3_fast;
#endif
    (void)engine;
    (void)cpu;
    return true;
}

template <class Engine, size_t N>
EngineList<Engine> list_of(const Engine* const (&items)[N]) {
    return {items, N};
}

// What the table needs of one family, written once for every engine type:
// Chosen is the family's member of Selection, Engines its list.
template <auto Chosen, auto Engines>
struct Typed {
    static const auto& at(size_t i) { return *Engines().items[i]; }
    static size_t count() { return Engines().count; }
    static const char* engine_name(size_t i) { return at(i).name; }
    static bool available(size_t i, const CpuFeatures& cpu) { return at(i).available(cpu); }
    static bool automatic(size_t i, const CpuFeatures& cpu) { return chosen_automatically(&at(i), cpu); }
    static std::string self_test(size_t i) { return hwaccel::self_test(at(i)); }
    static size_t chosen(const Selection& s) {
        size_t i = 0;
        while (i < count() && &at(i) != s.*Chosen) ++i;
        return i;
    }
    static void choose(Selection& s, size_t i) { s.*Chosen = &at(i); }
};

template <auto Chosen, auto Engines>
constexpr EngineFamily family(const char* name, const char* alias, const char* code_name,
                              const char* algorithms, bool Forced::*forced,
                              std::string SelfTestNotes::*note) {
    using T = Typed<Chosen, Engines>;
    return {name,       alias,       code_name,    algorithms, forced,
            note,       T::count,    T::engine_name, T::available, T::automatic,
            T::self_test, T::chosen, T::choose};
}

// The families, in the order describe() prints them. Adding a family is its
// engine list above, its member in Selection and PerFamily, and one row here.
constexpr EngineFamily kFamilies[] = {
    family<&Selection::sha1, sha1_engines>("sha1", nullptr, "sha1", "SHA-1", &Forced::sha1,
                                           &SelfTestNotes::sha1),
    family<&Selection::sha256, sha256_engines>("sha256", "sha224", "sha256", "SHA-224, SHA-256",
                                               &Forced::sha256, &SelfTestNotes::sha256),
    family<&Selection::keccak, keccak_engines>("sha3", "shake", "keccak",
                                               "SHA3-224/256/384/512, SHAKE128/256",
                                               &Forced::keccak, &SelfTestNotes::keccak),
    family<&Selection::sm4, sm4_engines>("sm4", nullptr, "sm4", "SM4-ECB/CBC/CFB/OFB/CTR/GCM/CCM/XTS",
                                         &Forced::sm4, &SelfTestNotes::sm4),
    family<&Selection::ghash, ghash_engines>("ghash", nullptr, "ghash", "SM4-GCM (GHASH)",
                                             &Forced::ghash, &SelfTestNotes::ghash),
};

bool answers_to(const EngineFamily& f, const std::string& name) {
    return name == f.name || name == f.code_name || (f.alias != nullptr && name == f.alias);
}

// "sha1 sha224 sha256 sha3 shake sm4 all": every listed name, sorted.
std::string known_family_names() {
    std::vector<std::string> names;
    for (const EngineFamily& f : kFamilies) {
        names.emplace_back(f.name);
        if (f.alias != nullptr) names.emplace_back(f.alias);
    }
    std::sort(names.begin(), names.end());
    std::string out;
    for (const std::string& n : names) out += n + " ";
    return out + "all";
}

// Finds the engine called `engine` in family `f` (named `as_named` by the
// user); fills `error` when it is unknown or unavailable.
bool find(const EngineFamily& f, const std::string& as_named, const std::string& engine,
          const CpuFeatures& cpu, size_t& found, std::string& error) {
    for (size_t i = 0; i < f.count(); ++i) {
        if (engine != f.engine_name(i)) continue;
        if (!f.available(i, cpu)) {
            error = "engine '" + engine + "' for " + as_named + " is not supported by this CPU";
            return false;
        }
        found = i;
        return true;
    }
    error = "unknown engine '" + engine + "' for " + as_named + " (known:";
    for (size_t i = 0; i < f.count(); ++i) error += std::string(" ") + f.engine_name(i);
    error += ")";
    return false;
}

std::string trim(const std::string& s) {
    const char* ws = " \t\r\n";
    size_t b = s.find_first_not_of(ws);
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(ws);
    return s.substr(b, e - b + 1);
}

// True if `engine` is one of `f`'s engines, on any CPU.
bool is_known(const EngineFamily& f, const std::string& engine) {
    for (size_t i = 0; i < f.count(); ++i)
        if (engine == f.engine_name(i)) return true;
    return false;
}

// Sets one family (or all of them) and marks it forced. A family in
// `overridden` is left as it is: its engine name must exist (a typo is wrong
// on every machine), but not run on this CPU.
bool set_family(Selection& sel, Forced& forced, const std::string& family,
                const std::string& engine, const CpuFeatures& cpu, const Forced* overridden,
                std::string& error) {
    const bool all = family == "all";
    bool named = false;
    for (const EngineFamily& f : kFamilies) {
        if (!all && !answers_to(f, family)) continue;
        named = true;
        if (overridden != nullptr && overridden->*f.forced && is_known(f, engine)) continue;
        size_t i = 0;
        if (!find(f, all ? f.name : family, engine, cpu, i, error)) return false;
        f.choose(sel, i);
        forced.*f.forced = true;
    }
    if (!named)
        error = "unknown algorithm family '" + family + "' (known: " + known_family_names() + ")";
    return named;
}

// Keeps the chosen engine of `f` if it passes its self-test. Otherwise a
// forced engine is an error, and an automatic one is replaced by the next
// engine of the list that this CPU runs and that passes; `note` says what
// was skipped and why.
bool settle(const EngineFamily& f, Selection& sel, bool forced, const CpuFeatures& cpu,
            std::string& note, std::string& error) {
    const size_t chosen = f.chosen(sel);
    const std::string failure = f.self_test(chosen);
    if (failure.empty()) return true;
    if (forced) {
        error = std::string("engine '") + f.engine_name(chosen) + "' for " + f.name +
                " failed its self-test: " + failure;
        return false;
    }
    std::string why = std::string(f.engine_name(chosen)) + " failed its self-test: " + failure;
    for (size_t i = chosen + 1; i < f.count(); ++i) {
        if (!f.available(i, cpu) || !f.automatic(i, cpu)) continue;
        const std::string next_failure = f.self_test(i);
        if (next_failure.empty()) {
            f.choose(sel, i);
            note = why;
            return true;
        }
        why += std::string("; ") + f.engine_name(i) + " failed its self-test: " + next_failure;
    }
    error = std::string("no ") + f.name + " engine passed its self-test (" + why + ")";
    return false;
}

}  // namespace

EngineList<Sha1Engine> sha1_engines() { return list_of(kSha1); }
EngineList<Sha256Engine> sha256_engines() { return list_of(kSha256); }
EngineList<KeccakEngine> keccak_engines() { return list_of(kKeccak); }
EngineList<Sm4Engine> sm4_engines() { return list_of(kSm4); }
EngineList<GhashEngine> ghash_engines() { return list_of(kGhash); }

EngineFamilyList engine_families() {
    return {kFamilies, sizeof kFamilies / sizeof kFamilies[0]};
}

Selection best_selection(const CpuFeatures& cpu) {
    Selection s;
    for (const EngineFamily& f : kFamilies) {
        // The portable engine closes every list and is always available.
        size_t i = 0;
        while (i + 1 < f.count() && !(f.available(i, cpu) && f.automatic(i, cpu))) ++i;
        f.choose(s, i);
    }
    return s;
}

bool apply_overrides(Selection& selection, const char* spec, const CpuFeatures& cpu,
                     std::string& error, Forced* forced, const Forced* overridden) {
    if (spec == nullptr) return true;
    Selection result = selection;
    Forced result_forced = forced ? *forced : Forced{};
    std::string all(spec);
    size_t pos = 0;
    while (pos <= all.size()) {
        size_t comma = all.find(',', pos);
        if (comma == std::string::npos) comma = all.size();
        std::string item = trim(all.substr(pos, comma - pos));
        pos = comma + 1;
        if (item.empty()) continue;
        size_t eq = item.find('=');
        if (eq == std::string::npos) {
            error = "override '" + item + "' is not of the form family=engine";
            return false;
        }
        std::string family = trim(item.substr(0, eq));
        std::string engine = trim(item.substr(eq + 1));
        if (!set_family(result, result_forced, family, engine, cpu, overridden, error)) return false;
    }
    selection = result;
    if (forced) *forced = result_forced;
    return true;
}

bool apply_self_tests(Selection& selection, const Forced& forced, const CpuFeatures& cpu,
                      SelfTestNotes& notes, std::string& error) {
    Selection result = selection;
    SelfTestNotes result_notes;
    for (const EngineFamily& f : kFamilies)
        if (!settle(f, result, forced.*f.forced, cpu, result_notes.*f.note, error)) return false;
    selection = result;
    notes = result_notes;
    return true;
}

std::string describe(const Selection& s) { return describe(s, SelfTestNotes{}); }

std::string describe(const Selection& s, const SelfTestNotes& notes) {
    std::string out;
    for (const EngineFamily& f : kFamilies) {
        const std::string& note = notes.*f.note;
        if (!out.empty()) out += ",";
        out += std::string(f.name) + "=" + f.engine_name(f.chosen(s)) +
               (note.empty() ? "" : " (" + note + ")");
    }
    return out;
}

}  // namespace hwaccel
