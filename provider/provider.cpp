// The provider entry point: hwaccel_provider_init (hwaccel.so's
// OSSL_provider_init calls it, module_entry.cpp; an application that links
// libhwaccel.a registers it with OSSL_PROVIDER_add_builtin), its parameters,
// the query for algorithm tables, and teardown.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>

#include "algorithms.hpp"
#include "hwaccel/hwaccel_provider.h"
#include "errors.hpp"
#include "memory.hpp"
#include "openssl_version.hpp"
#include "params.hpp"
#include "prov_ctx.hpp"
#include "property_name.hpp"
#include "skeymgmt/skeymgmt.hpp"

#ifndef HWACCEL_VERSION
#error "HWACCEL_VERSION must be defined by the build"
#endif

namespace hwaccel {
namespace {

// The provider config key and environment variable that force engines; the
// same syntax as registry.hpp describes. The environment wins, so a user can
// override a config file for one command.
constexpr const char kEnginesConfigKey[] = "engines";
constexpr const char kEnginesEnvVar[] = "HWACCEL_ENGINES";

struct Instance : ProvCtx {
    std::string buildinfo;
    std::string engines_text;
    std::string cpu_text;
};

void read_upcalls(const OSSL_DISPATCH* in, CoreUpcalls& core) {
    for (; in != nullptr && in->function_id != 0; ++in) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_GET_PARAMS:
            core.get_params = OSSL_FUNC_core_get_params(in);
            break;
        case OSSL_FUNC_CORE_NEW_ERROR:
            core.new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            core.set_error_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            core.vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        default:
            break;
        }
    }
}

// Applies one source of overrides; on error it is raised and, because
// OpenSSL 3.0 silently skips providers that fail to load from a config file,
// also printed once to stderr.
bool apply_engine_spec(Instance& inst, const char* spec, const char* source, Forced& forced,
                       const Forced* overridden = nullptr) {
    std::string error;
    if (apply_overrides(inst.engines, spec, cpu_features(), error, &forced, overridden)) return true;
    // The reason table is not registered yet while init runs, so the detail
    // text carries the whole message.
    raise_error(&inst, kErrBadEngineSpec, "invalid engine selection: %s \"%s\": %s", source,
                spec, error.c_str());
    std::fprintf(stderr, "hwaccel: %s \"%s\": %s; provider not loaded\n", source, spec,
                 error.c_str());
    return false;
}

// Each chosen engine computes its known answers before anything is offered
// (once per process; later instances reuse the results). An engine the
// registry chose that fails is replaced by the next one that passes, and the
// reason goes on the error queue, to stderr and into "engines". A forced
// engine that fails stops the load, like any other bad selection: the user
// asked for that engine, and serving another would hide the fault.
bool apply_self_tests(Instance& inst, const Forced& forced, SelfTestNotes& notes) {
    std::string error;
    if (!apply_self_tests(inst.engines, forced, cpu_features(), notes, error)) {
        raise_error(&inst, kErrSelfTestFailed, "%s", error.c_str());
        std::fprintf(stderr, "hwaccel: %s; provider not loaded\n", error.c_str());
        return false;
    }
    for (const EngineFamily& f : engine_families()) {
        const std::string& note = notes.*f.note;
        if (note.empty()) continue;
        const char* engine = f.engine_name(f.chosen(inst.engines));
        raise_error(&inst, kErrSelfTestFailed, "%s: %s; using %s instead", f.name, note.c_str(),
                    engine);
        std::fprintf(stderr, "hwaccel: %s: %s; using %s instead\n", f.name, note.c_str(), engine);
    }
    return true;
}

void teardown(void* provctx) noexcept { delete static_cast<Instance*>(provctx); }

const OSSL_PARAM* gettable_params(void*) noexcept {
    static const OSSL_PARAM table[] = {
        OSSL_PARAM_DEFN(OSSL_PROV_PARAM_NAME, OSSL_PARAM_UTF8_PTR, nullptr, 0),
        OSSL_PARAM_DEFN(OSSL_PROV_PARAM_VERSION, OSSL_PARAM_UTF8_PTR, nullptr, 0),
        OSSL_PARAM_DEFN(OSSL_PROV_PARAM_BUILDINFO, OSSL_PARAM_UTF8_PTR, nullptr, 0),
        OSSL_PARAM_DEFN(OSSL_PROV_PARAM_STATUS, OSSL_PARAM_INTEGER, nullptr, 0),
        OSSL_PARAM_DEFN("engines", OSSL_PARAM_UTF8_PTR, nullptr, 0),
        OSSL_PARAM_DEFN("cpu-features", OSSL_PARAM_UTF8_PTR, nullptr, 0),
        OSSL_PARAM_END,
    };
    return table;
}

// A parameter whose type cannot hold the answer gets 0 and an error, as
// from the default provider of 3.5+ (its libcrypto raises one): unlike an
// algorithm's get_params, this one has the core handle to raise it through.
int get_params(void* provctx, OSSL_PARAM params[]) noexcept {
    auto* inst = static_cast<Instance*>(provctx);
    const struct {
        const char* key;
        const char* text;
    } texts[] = {
        {OSSL_PROV_PARAM_NAME, "hwaccel: hardware-accelerated SHA-1, SHA-2, SHA-3, SHAKE and SM4"},
        {OSSL_PROV_PARAM_VERSION, HWACCEL_VERSION},
        {OSSL_PROV_PARAM_BUILDINFO, inst->buildinfo.c_str()},
        {"engines", inst->engines_text.c_str()},
        {"cpu-features", inst->cpu_text.c_str()},
    };
    for (const auto& t : texts) {
        if (params::set_utf8(params, t.key, t.text)) continue;
        raise_error(inst, kErrFailedToSetParameter, "cannot return %s", t.key);
        return 0;
    }
    if (!params::set_int(params, OSSL_PROV_PARAM_STATUS, 1)) {
        raise_error(inst, kErrFailedToSetParameter, "cannot return %s", OSSL_PROV_PARAM_STATUS);
        return 0;
    }
    return 1;
}

const OSSL_ALGORITHM* query(void* provctx, int operation_id, int* no_cache) noexcept {
    auto* inst = static_cast<Instance*>(provctx);
    *no_cache = 0;
    switch (operation_id) {
    case OSSL_OP_DIGEST:
        return inst->digests.data();
    case OSSL_OP_CIPHER:
        return inst->ciphers.data();
    case OSSL_OP_SKEYMGMT:
        return inst->skeymgmt.data();
    default:
        return nullptr;
    }
}

const OSSL_ITEM* get_reason_strings(void*) noexcept { return reason_strings(); }

constexpr OSSL_FUNC_provider_teardown_fn* kTeardown = teardown;
constexpr OSSL_FUNC_provider_gettable_params_fn* kGettableParams = gettable_params;
constexpr OSSL_FUNC_provider_get_params_fn* kGetParams = get_params;
constexpr OSSL_FUNC_provider_query_operation_fn* kQuery = query;
constexpr OSSL_FUNC_provider_get_reason_strings_fn* kReasonStrings = get_reason_strings;

const OSSL_DISPATCH kProviderFunctions[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, reinterpret_cast<void (*)(void)>(kTeardown)},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, reinterpret_cast<void (*)(void)>(kGettableParams)},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, reinterpret_cast<void (*)(void)>(kGetParams)},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, reinterpret_cast<void (*)(void)>(kQuery)},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, reinterpret_cast<void (*)(void)>(kReasonStrings)},
    {0, nullptr},
};

int init(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in, const OSSL_DISPATCH** out,
         void** provctx) {
    auto inst = std::make_unique<Instance>();
    inst->handle = handle;
    read_upcalls(in, inst->core);
    mem::use_core(in);

    // What the core knows: our instance name and the keys of our config section.
    const char* name = nullptr;
    const char* config_spec = nullptr;
    const char* openssl_version = nullptr;
    if (inst->core.get_params != nullptr) {
        OSSL_PARAM request[] = {
            OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_CORE_PROV_NAME, const_cast<char**>(&name), 0),
            OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_CORE_VERSION, const_cast<char**>(&openssl_version), 0),
            OSSL_PARAM_utf8_ptr(kEnginesConfigKey, const_cast<char**>(&config_spec), 0),
            OSSL_PARAM_END,
        };
        if (!inst->core.get_params(handle, request))
            name = nullptr, config_spec = nullptr, openssl_version = nullptr;
    }
    // The running library's version, not the headers': SHAKE defaults differ.
    set_running_openssl_version(openssl_version);
    inst->instance_name = name ? name : "hwaccel";
    // The property follows the instance name, so `identity = x` in a config
    // file still matches `-propquery provider=x` (property_name.hpp).
    inst->property = provider_property(inst->instance_name);

    // secure_getenv: a set-user-ID program must not let its caller pick engines.
    const char* env_spec = secure_getenv(kEnginesEnvVar);
    // The families the environment names, so the config key leaves them to
    // it: an engine the key names there need not run on this CPU (a file
    // shared by machines, rescued for one command). The environment's own
    // errors are reported below, where it is applied.
    Forced env_families;
    {
        Selection scratch = best_selection(cpu_features());
        std::string ignored;
        apply_overrides(scratch, env_spec, cpu_features(), ignored, &env_families);
    }
    inst->engines = best_selection(cpu_features());
    Forced forced;
    if (!apply_engine_spec(*inst, config_spec, "config key engines =", forced, &env_families))
        return 0;
    if (!apply_engine_spec(*inst, env_spec, kEnginesEnvVar, forced)) return 0;
    SelfTestNotes notes;
    if (!apply_self_tests(*inst, forced, notes)) return 0;

    inst->engines_text = describe(inst->engines, notes);
    inst->cpu_text = describe(cpu_features());
    inst->buildinfo = std::string("hwaccel ") + HWACCEL_VERSION + ", engines: " +
                      inst->engines_text + "; cpu: " + inst->cpu_text;
    build_algorithm_tables(*inst);

    *out = kProviderFunctions;
    *provctx = inst.release();
    return 1;
}

}  // namespace
}  // namespace hwaccel

// Hidden like everything else here: a static link resolves it all the same,
// and two shared objects that each link libhwaccel.a keep their own copies.
extern "C" int hwaccel_provider_init(
    const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in, const OSSL_DISPATCH** out,
    void** provctx) {  // no noexcept: core.h's typedef has none (clang insists); the catch-all stands in
    try {
        return hwaccel::init(handle, in, out, provctx);
    } catch (...) {
        // Nothing to report through: the upcalls may be what failed.
        return 0;
    }
}
