// The registry: every engine compiled into this build, best first, and the
// choice of one engine per family.
//
// Families: "sha1", "sha256" (also serves SHA-224), "sha3" (Keccak: SHA-3 and
// SHAKE), "sm4". Overrides use one syntax everywhere (provider config key
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

// One engine per family.
struct Selection {
    const Sha1Engine* sha1 = nullptr;
    const Sha256Engine* sha256 = nullptr;
    const KeccakEngine* keccak = nullptr;
    const Sm4Engine* sm4 = nullptr;
};

// The best available engine of each family for a CPU with these features.
Selection best_selection(const CpuFeatures& cpu);

// Applies an override string to `selection`. Returns false and describes the
// problem in `error` for an unknown family, an unknown engine, or an engine
// this CPU cannot run; `selection` is then unchanged. An empty or null spec
// changes nothing.
bool apply_overrides(Selection& selection, const char* spec, const CpuFeatures& cpu,
                     std::string& error);

// "sha1=generic,sha256=generic,sha3=generic,sm4=generic"
std::string describe(const Selection& selection);

}  // namespace hwaccel
