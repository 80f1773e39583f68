#include "hwaccel/registry.hpp"

#include <cstring>

#include "generic/generic_engines.hpp"
#include "hwaccel/selftest.hpp"
#ifdef HWACCEL_TESTING
#include "testing/testing_engines.hpp"
#endif
#if defined(__x86_64__)
#include "x86/sm4_x86_engines.hpp"
#include "x86/x86_engines.hpp"
#include "zhaoxin/phe_engines.hpp"
#endif
#if defined(__s390x__)
#include "s390x/s390x_engines.hpp"
#endif

namespace hwaccel {
namespace {

// Best first; the portable engine closes every list.
const Sha1Engine* const kSha1[] = {
#if defined(__x86_64__)
    &x86::sha1_sha_ni,
    &zhaoxin::sha1_phe,  // after SHA-NI: a CPU with both uses SHA-NI, as the kernel does
#endif
#if defined(__s390x__)
    &s390x::sha1_cpacf,
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
    &generic::sha256,
};
const KeccakEngine* const kKeccak[] = {
#if defined(__x86_64__)
    &x86::keccak_x86_bmi2,
#endif
#if defined(__s390x__)
    &s390x::keccak_cpacf,
#endif
    &generic::keccak,
};
const Sm4Engine* const kSm4[] = {
#if defined(__x86_64__)
    &x86::sm4_vaes_avx2,
    &x86::sm4_aesni_avx2,
#endif
#ifdef HWACCEL_TESTING
    &testing::sm4_minimal,  // only when forced: see chosen_automatically
#endif
    &generic::sm4,
};

// Test-only engines are served only when a selection names them.
bool chosen_automatically(const void* engine) {
#ifdef HWACCEL_TESTING
    if (engine == &testing::sm4_minimal) return false;
#endif
    (void)engine;
    return true;
}

template <class Engine, size_t N>
EngineList<Engine> list_of(const Engine* const (&items)[N]) {
    return {items, N};
}

template <class Engine>
const Engine* best(EngineList<Engine> engines, const CpuFeatures& cpu) {
    for (const Engine* e : engines)
        if (e->available(cpu) && chosen_automatically(e)) return e;
    return nullptr;  // unreachable: the portable engine is always available
}

// Finds `name` in `engines`; fills `error` when it is unknown or unavailable.
template <class Engine>
const Engine* find(EngineList<Engine> engines, const std::string& family, const std::string& name,
                   const CpuFeatures& cpu, std::string& error) {
    for (const Engine* e : engines) {
        if (name != e->name) continue;
        if (!e->available(cpu)) {
            error = "engine '" + name + "' for " + family + " is not supported by this CPU";
            return nullptr;
        }
        return e;
    }
    error = "unknown engine '" + name + "' for " + family + " (known:";
    for (const Engine* e : engines) error += std::string(" ") + e->name;
    error += ")";
    return nullptr;
}

std::string trim(const std::string& s) {
    const char* ws = " \t\r\n";
    size_t b = s.find_first_not_of(ws);
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(ws);
    return s.substr(b, e - b + 1);
}

// Sets one family (or all of them) and marks it forced; aliases follow the
// algorithm names users know.
bool set_family(Selection& sel, Forced& forced, const std::string& family,
                const std::string& engine, const CpuFeatures& cpu, std::string& error) {
    if (family == "all") {
        for (const char* f : {"sha1", "sha256", "sha3", "sm4"})
            if (!set_family(sel, forced, f, engine, cpu, error)) return false;
        return true;
    }
    if (family == "sha1") {
        auto e = find(sha1_engines(), family, engine, cpu, error);
        if (!e) return false;
        sel.sha1 = e, forced.sha1 = true;
    } else if (family == "sha256" || family == "sha224") {
        auto e = find(sha256_engines(), family, engine, cpu, error);
        if (!e) return false;
        sel.sha256 = e, forced.sha256 = true;
    } else if (family == "sha3" || family == "shake" || family == "keccak") {
        auto e = find(keccak_engines(), family, engine, cpu, error);
        if (!e) return false;
        sel.keccak = e, forced.keccak = true;
    } else if (family == "sm4") {
        auto e = find(sm4_engines(), family, engine, cpu, error);
        if (!e) return false;
        sel.sm4 = e, forced.sm4 = true;
    } else {
        error = "unknown algorithm family '" + family +
                "' (known: sha1 sha224 sha256 sha3 shake sm4 all)";
        return false;
    }
    return true;
}

// Keeps `chosen` if it passes its self-test. Otherwise a forced engine is an
// error, and an automatic one is replaced by the next engine of the list
// that this CPU runs and that passes; `note` says what was skipped and why.
template <class Engine>
bool settle(const Engine*& chosen, bool forced, EngineList<Engine> engines, const char* family,
            const CpuFeatures& cpu, std::string& note, std::string& error) {
    const std::string failure = self_test(*chosen);
    if (failure.empty()) return true;
    if (forced) {
        error = std::string("engine '") + chosen->name + "' for " + family +
                " failed its self-test: " + failure;
        return false;
    }
    std::string why = std::string(chosen->name) + " failed its self-test: " + failure;
    bool after_chosen = false;
    for (const Engine* e : engines) {
        if (e == chosen) {
            after_chosen = true;
            continue;
        }
        if (!after_chosen || !e->available(cpu) || !chosen_automatically(e)) continue;
        const std::string next_failure = self_test(*e);
        if (next_failure.empty()) {
            chosen = e;
            note = why;
            return true;
        }
        why += std::string("; ") + e->name + " failed its self-test: " + next_failure;
    }
    error = std::string("no ") + family + " engine passed its self-test (" + why + ")";
    return false;
}

}  // namespace

EngineList<Sha1Engine> sha1_engines() { return list_of(kSha1); }
EngineList<Sha256Engine> sha256_engines() { return list_of(kSha256); }
EngineList<KeccakEngine> keccak_engines() { return list_of(kKeccak); }
EngineList<Sm4Engine> sm4_engines() { return list_of(kSm4); }

Selection best_selection(const CpuFeatures& cpu) {
    Selection s;
    s.sha1 = best(sha1_engines(), cpu);
    s.sha256 = best(sha256_engines(), cpu);
    s.keccak = best(keccak_engines(), cpu);
    s.sm4 = best(sm4_engines(), cpu);
    return s;
}

bool apply_overrides(Selection& selection, const char* spec, const CpuFeatures& cpu,
                     std::string& error, Forced* forced) {
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
        if (!set_family(result, result_forced, family, engine, cpu, error)) return false;
    }
    selection = result;
    if (forced) *forced = result_forced;
    return true;
}

bool apply_self_tests(Selection& selection, const Forced& forced, const CpuFeatures& cpu,
                      SelfTestNotes& notes, std::string& error) {
    Selection result = selection;
    SelfTestNotes result_notes;
    if (!settle(result.sha1, forced.sha1, sha1_engines(), "sha1", cpu, result_notes.sha1, error) ||
        !settle(result.sha256, forced.sha256, sha256_engines(), "sha256", cpu, result_notes.sha256,
                error) ||
        !settle(result.keccak, forced.keccak, keccak_engines(), "sha3", cpu, result_notes.keccak,
                error) ||
        !settle(result.sm4, forced.sm4, sm4_engines(), "sm4", cpu, result_notes.sm4, error))
        return false;
    selection = result;
    notes = result_notes;
    return true;
}

std::string describe(const Selection& s) { return describe(s, SelfTestNotes{}); }

std::string describe(const Selection& s, const SelfTestNotes& notes) {
    auto family = [](const char* name, const char* engine, const std::string& note) {
        return std::string(name) + "=" + engine + (note.empty() ? "" : " (" + note + ")");
    };
    return family("sha1", s.sha1->name, notes.sha1) + "," +
           family("sha256", s.sha256->name, notes.sha256) + "," +
           family("sha3", s.keccak->name, notes.keccak) + "," + family("sm4", s.sm4->name, notes.sm4);
}

}  // namespace hwaccel
