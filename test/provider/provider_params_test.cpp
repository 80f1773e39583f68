// The provider's own parameters (OSSL_PROVIDER_get_params): every one its
// gettable list names is answered with the type listed, its text ones also
// into a UTF-8 string; a parameter of a type that cannot hold the answer
// gets 0 and an error on the queue, as from the default provider of 3.5+
// (3.0's raises none).
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/proverr.h>
#include <openssl/provider.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "provider_fixture.hpp"

using namespace hwaccel::test;

TEST_CASE("provider params: each gettable one is answered with its listed type", "[provider][params]") {
    LoadedProvider prov;
    const OSSL_PARAM* gettable = OSSL_PROVIDER_gettable_params(prov.hwaccel());
    REQUIRE(gettable != nullptr);
    int listed = 0;
    for (const OSSL_PARAM* g = gettable; g->key != nullptr; ++g, ++listed) {
        INFO(g->key);
        if (g->data_type == OSSL_PARAM_UTF8_PTR) {
            char* text = nullptr;
            OSSL_PARAM req[] = {OSSL_PARAM_utf8_ptr(g->key, &text, 0), OSSL_PARAM_END};
            REQUIRE(OSSL_PROVIDER_get_params(prov.hwaccel(), req) == 1);
            REQUIRE(text != nullptr);
            CHECK(std::strlen(text) > 0);
            // The same text into a string: a size query, then the copy.
            OSSL_PARAM size[] = {OSSL_PARAM_utf8_string(g->key, nullptr, 0), OSSL_PARAM_END};
            REQUIRE(OSSL_PROVIDER_get_params(prov.hwaccel(), size) == 1);
            CHECK(size[0].return_size == std::strlen(text));
            std::string buf(size[0].return_size + 1, 'x');
            OSSL_PARAM copy[] = {OSSL_PARAM_utf8_string(g->key, &buf[0], buf.size()), OSSL_PARAM_END};
            REQUIRE(OSSL_PROVIDER_get_params(prov.hwaccel(), copy) == 1);
            CHECK(std::string(buf.c_str()) == text);
        } else {
            REQUIRE(g->data_type == OSSL_PARAM_INTEGER);
            int value = -1;
            OSSL_PARAM req[] = {OSSL_PARAM_int(g->key, &value), OSSL_PARAM_END};
            REQUIRE(OSSL_PROVIDER_get_params(prov.hwaccel(), req) == 1);
            CHECK(value == 1);  // status: running
        }
    }
    CHECK(listed == 6);
    CHECK(take_errors().empty());
}

TEST_CASE("provider params: a type that cannot hold the answer is refused with an error", "[provider][params]") {
    LoadedProvider prov;
    take_errors();
    int number = 0;
    char small[4];
    const OSSL_PARAM refused[][2] = {
        {OSSL_PARAM_int(OSSL_PROV_PARAM_NAME, &number), OSSL_PARAM_END},
        {OSSL_PARAM_octet_string(OSSL_PROV_PARAM_VERSION, small, sizeof small), OSSL_PARAM_END},
        {OSSL_PARAM_utf8_string(OSSL_PROV_PARAM_BUILDINFO, small, sizeof small), OSSL_PARAM_END},
        {OSSL_PARAM_utf8_string(OSSL_PROV_PARAM_STATUS, small, sizeof small), OSSL_PARAM_END},
        {OSSL_PARAM_int("engines", &number), OSSL_PARAM_END},
        {OSSL_PARAM_int("cpu-features", &number), OSSL_PARAM_END},
    };
    for (const auto& row : refused) {
        INFO(row[0].key);
        OSSL_PARAM req[2] = {row[0], row[1]};
        CHECK(OSSL_PROVIDER_get_params(prov.hwaccel(), req) == 0);
        const ErrorCodes errors = take_error_codes();
        INFO(errors.text);
        CHECK(has_openssl_error(errors, ERR_LIB_PROV, PROV_R_FAILED_TO_SET_PARAMETER));
        CHECK_THAT(errors.text, Catch::Contains(row[0].key));
    }
}
