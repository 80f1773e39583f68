// params::repeated (provider/params.hpp), the check behind OpenSSL 3.6+'s
// "param ... is repeated": a key named twice in any of the groups it is
// given, however many (SM4-GCM's get_ctx_params gives nine; the check once
// looked at the first eight only), and aliases in one group as one key.
#include <openssl/params.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "params.hpp"

namespace {

const char* repeated_in(std::initializer_list<const char*> keys, hwaccel::params::KeyGroups groups) {
    static unsigned v;
    OSSL_PARAM params[8];
    size_t n = 0;
    for (const char* k : keys) params[n++] = OSSL_PARAM_construct_uint(k, &v);
    params[n] = OSSL_PARAM_construct_end();
    return hwaccel::params::repeated(params, groups);
}

}  // namespace

TEST_CASE("params::repeated finds a key named twice in any group, aliases as one", "[params]") {
    const hwaccel::params::KeyGroups nine = {{"a"}, {"b"}, {"c"}, {"d"}, {"e"},
                                             {"f"}, {"g"}, {"h"}, {"i", "j"}};
    for (const char* k : {"a", "e", "h", "i"}) {
        INFO(k << " twice");
        const char* got = repeated_in({"x", k, "b", k}, nine);
        REQUIRE(got != nullptr);
        CHECK(std::strcmp(got, k) == 0);
    }
    // The ninth group's aliases are one parameter.
    const char* alias = repeated_in({"i", "a", "j"}, nine);
    REQUIRE(alias != nullptr);
    CHECK(std::strcmp(alias, "j") == 0);
    // Keys outside the groups, and single ones, repeat nothing.
    CHECK(repeated_in({"x", "x", "a", "i"}, nine) == nullptr);
    CHECK(repeated_in({"i"}, nine) == nullptr);
    CHECK(repeated_in({}, nine) == nullptr);
    CHECK(hwaccel::params::repeated(nullptr, nine) == nullptr);
}
