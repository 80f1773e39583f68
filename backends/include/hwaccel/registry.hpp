// The registry: every engine compiled into this build, best first, and the
// choice of one engine per family.
//
// Families: "sha1", "sha256" (also serves SHA-224), "sha3" (Keccak: SHA-3 and
// SHAKE), "sm4", "ghash" (GCM's hash, for SM4-GCM). Overrides use one syntax everywhere (provider config key
// "engines", environment variable HWACCEL_ENGINES, the hwaccel-engines tool):
//     sha256=generic,sm4=generic        or        all=generic
#pragma once

#include <cstddef>
#include <string>

#include "hwaccel/cpu.hpp"
#include "hwaccel/engines.hpp"

namespace hwaccel {

// A read-only list of engines of one family, best first; the last entry is the
// portable engine, which is always available.
template <class Engine>
struct EngineList {
    const Engine* const* items;
    size_t count;
    const Engine* const* begin() const { return items; }
    const Engine* const* end() const { return items + count; }
};

EngineList<Sha1Engine> sha1_engines();
EngineList<Sha256Engine> sha256_engines();
EngineList<KeccakEngine> keccak_engines();
EngineList<Sm4Engine> sm4_engines();
EngineList<GhashEngine> ghash_engines();

// One engine per family.
struct Selection {
    const Sha1Engine* sha1 = nullptr;
    const Sha256Engine* sha256 = nullptr;
    const KeccakEngine* keccak = nullptr;
    const Sm4Engine* sm4 = nullptr;
    const GhashEngine* ghash = nullptr;
};

// One value per family, named as in Selection.
template <class T>
struct PerFamily {
    T sha1{};
    T sha256{};
    T keccak{};
    T sm4{};
    T ghash{};
};

// The families an override named. A forced engine that fails its self-test
// is an error, never silently replaced.
using Forced = PerFamily<bool>;

// Per family, why another engine than the registry's choice serves it:
// empty, or e.g. "vaes-avx2 failed its self-test: ctr on 77 blocks".
using SelfTestNotes = PerFamily<std::string>;

// One algorithm family, whatever its engine type. The registry keeps one
// table of them (kFamilies in registry.cpp); overrides, self-tests,
// describe(), the provider's reports and the hwaccel-engines tool walk it.
// Engines are named by their position in the family's list, best first; a
// Selection holds engines of these lists (best_selection, apply_overrides).
struct EngineFamily {
    const char* name;        // "sha256": in overrides, describe() and messages
    const char* alias;       // or null; also accepted in overrides and listed: "sha224"
    const char* code_name;   // also accepted, not listed: "keccak" for "sha3"
    const char* algorithms;  // "SHA-224, SHA-256": what it serves, for people
    bool Forced::*forced;
    std::string SelfTestNotes::*note;
    size_t (*count)();
    const char* (*engine_name)(size_t i);
    bool (*available)(size_t i, const CpuFeatures& cpu);
    // False for engines served only when named: test-only ones, and ones this
    // CPU runs slower than the next in line (arm64-sha3 off Apple cores).
    bool (*automatic)(size_t i, const CpuFeatures& cpu);
    std::string (*self_test)(size_t i);  // selftest.hpp's, stored once per process
    size_t (*chosen)(const Selection& selection);  // position of the engine it holds
    void (*choose)(Selection& selection, size_t i);
};

// Every family, in the order describe() prints them.
struct EngineFamilyList {
    const EngineFamily* items;
    size_t count;
    const EngineFamily* begin() const { return items; }
    const EngineFamily* end() const { return items + count; }
};
EngineFamilyList engine_families();

// The best available engine of each family for a CPU with these features.
// Engines that exist only in test builds are never chosen here.
Selection best_selection(const CpuFeatures& cpu);

// Applies an override string to `selection`. Returns false and describes the
// problem in `error` for an unknown family, an unknown engine, or an engine
// this CPU cannot run; `selection` is then unchanged. An empty or null spec
// changes nothing. `forced`, if given, also gets the families the spec named.
// Families marked in `overridden` (a later spec names them) keep their
// engine, and an engine named for them need not run on this CPU, only exist.
bool apply_overrides(Selection& selection, const char* spec, const CpuFeatures& cpu,
                     std::string& error, Forced* forced = nullptr,
                     const Forced* overridden = nullptr);

// Runs the self-test (selftest.hpp, once per engine per process) of each
// selected engine. One that fails is replaced by the next engine of its list
// that this CPU runs and that passes, and `notes` says why. Returns false
// with `error` if a forced engine fails, or if no engine of a family passes;
// `selection` and `notes` are then unchanged.
bool apply_self_tests(Selection& selection, const Forced& forced, const CpuFeatures& cpu,
                      SelfTestNotes& notes, std::string& error);

// "sha1=generic,sha256=generic,sha3=generic,sm4=generic,ghash=generic"; with notes, each
// replaced family also says why: "sm4=generic (vaes-avx2 failed its
// self-test: ctr on 77 blocks)".
std::string describe(const Selection& selection);
std::string describe(const Selection& selection, const SelfTestNotes& notes);

}  // namespace hwaccel
