// The config key `engines` and HWACCEL_ENGINES together, as hwaccel(7)
// says: the key's family settings apply first and the variable's after
// them, so the variable wins for a family both name; a bad value in either
// stops the load, except that the key may name, for a family the variable
// names, an engine this CPU cannot run (a file shared by several machines).
#include <openssl/core_dispatch.h>
#include <openssl/params.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "fake_core.hpp"
#include "hwaccel/registry.hpp"

using namespace hwaccel::test;

namespace {

// HWACCEL_ENGINES for the lifetime of the object.
struct EnvEngines {
    explicit EnvEngines(const char* value) {
        if (const char* old = std::getenv("HWACCEL_ENGINES")) saved = old, had = true;
        setenv("HWACCEL_ENGINES", value, 1);
    }
    ~EnvEngines() {
        if (had) setenv("HWACCEL_ENGINES", saved.c_str(), 1);
        else unsetenv("HWACCEL_ENGINES");
    }
    std::string saved;
    bool had = false;
};

std::string engines_of(Module& m) {
    char* engines = nullptr;
    OSSL_PARAM req[] = {OSSL_PARAM_utf8_ptr("engines", &engines, 0), OSSL_PARAM_END};
    auto* gp = find_fn<OSSL_FUNC_provider_get_params_fn>(m.out, OSSL_FUNC_PROVIDER_GET_PARAMS);
    REQUIRE(gp(m.provctx, req) == 1);
    return engines;
}

// What the registry selects on this CPU after the specs, in order.
std::string expected(const char* first, const char* second) {
    const auto& cpu = hwaccel::cpu_features();
    hwaccel::Selection sel = hwaccel::best_selection(cpu);
    std::string error;
    REQUIRE(hwaccel::apply_overrides(sel, first, cpu, error));
    REQUIRE(hwaccel::apply_overrides(sel, second, cpu, error));
    return hwaccel::describe(sel);
}

// The best engine of a family on this CPU, by its name in the family list.
std::string best_engine(const char* family) {
    const auto& cpu = hwaccel::cpu_features();
    const hwaccel::Selection sel = hwaccel::best_selection(cpu);
    for (const hwaccel::EngineFamily& f : hwaccel::engine_families())
        if (std::string(f.name) == family) return f.engine_name(f.chosen(sel));
    FAIL("no family " << family);
    return "";
}

// A family and one of its engines this CPU cannot run, if there is one.
bool unavailable_engine(std::string& family, std::string& engine) {
    const auto& cpu = hwaccel::cpu_features();
    for (const hwaccel::EngineFamily& f : hwaccel::engine_families())
        for (size_t i = 0; i < f.count(); ++i)
            if (!f.available(i, cpu)) {
                family = f.name;
                engine = f.engine_name(i);
                return true;
            }
    return false;
}

}  // namespace

TEST_CASE("engines: the environment wins over the config key, family by family", "[dispatch][engines]") {
    g_core = FakeCore{};
    g_core.engines = "sha256=generic,sm4=generic";
    const std::string env = "sha256=" + best_engine("sha256") + ",sha3=generic";
    EnvEngines set(env.c_str());
    Module m;
    REQUIRE(m.init_result == 1);
    const std::string got = engines_of(m);
    CHECK(got == expected(g_core.engines.c_str(), env.c_str()));
    CHECK_THAT(got, Catch::Contains("sm4=generic"));  // the key's, untouched
    CHECK_THAT(got, Catch::Contains("sha3=generic"));
    CHECK_THAT(got, Catch::Contains("sha256=" + best_engine("sha256")));
}

TEST_CASE("engines: a bad value in either stops the load, whatever the other says", "[dispatch][engines]") {
    g_core = FakeCore{};
    {
        g_core.engines = "sha256=warp-drive";
        EnvEngines set("sha256=generic");
        Module m;
        CHECK(m.init_result == 0);
        REQUIRE(g_core.errors.size() == 1);
        CHECK_THAT(g_core.errors[0], Catch::Contains("config key engines"));
        CHECK_THAT(g_core.errors[0], Catch::Contains("unknown engine 'warp-drive' for sha256"));
    }
    g_core.clear_errors();
    {
        g_core.engines = "all=generic";
        EnvEngines set("sm4=warp-drive");
        Module m;
        CHECK(m.init_result == 0);
        REQUIRE(g_core.errors.size() == 1);
        CHECK_THAT(g_core.errors[0], Catch::Contains("HWACCEL_ENGINES"));
        CHECK_THAT(g_core.errors[0], Catch::Contains("unknown engine 'warp-drive' for sm4"));
    }
}

TEST_CASE("engines: the environment rescues a key naming an engine this CPU lacks", "[dispatch][engines]") {
    std::string family, engine;
    if (!unavailable_engine(family, engine)) {
        WARN("every engine of this build runs on this CPU; nothing to test");
        return;
    }
    g_core = FakeCore{};
    g_core.engines = family + "=" + engine + ",sm4=generic";
    {
        // Alone, the key stops the load.
        Module m;
        CHECK(m.init_result == 0);
        REQUIRE(g_core.errors.size() == 1);
        CHECK_THAT(g_core.errors[0], Catch::Contains("is not supported by this CPU"));
    }
    g_core.clear_errors();
    {
        // The variable takes that family over: the load goes on, with the
        // variable's engine there and the key's everywhere else.
        const std::string env = family + "=generic";
        EnvEngines set(env.c_str());
        Module m;
        REQUIRE(m.init_result == 1);
        CHECK(g_core.errors.empty());
        const std::string got = engines_of(m);
        CHECK_THAT(got, Catch::Contains(family + "=generic"));
        CHECK_THAT(got, Catch::Contains("sm4=generic"));
        CHECK(got == expected("sm4=generic", env.c_str()));
    }
    g_core.clear_errors();
    {
        // A variable naming other families does not.
        EnvEngines set(family == "sha1" ? "sha256=generic" : "sha1=generic");
        Module m;
        CHECK(m.init_result == 0);
        REQUIRE(g_core.errors.size() == 1);
        CHECK_THAT(g_core.errors[0], Catch::Contains("config key engines"));
    }
    g_core.clear_errors();
    {
        // Nor does it cover a typo: a name no build knows is wrong everywhere.
        g_core.engines = family + "=warp-drive";
        const std::string env = family + "=generic";
        EnvEngines set(env.c_str());
        Module m;
        CHECK(m.init_result == 0);
        REQUIRE(g_core.errors.size() == 1);
        CHECK_THAT(g_core.errors[0], Catch::Contains("unknown engine 'warp-drive'"));
    }
}
