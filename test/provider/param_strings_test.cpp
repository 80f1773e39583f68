// hwaccel's own octet/UTF-8 OSSL_PARAM setters and locate
// (provider/param_strings.cpp, param_locate.hpp) against libcrypto's: the
// result, return_size and the caller's buffer must agree in every case.
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include <catch2/catch.hpp>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "param_locate.hpp"
#include "param_strings.hpp"

namespace {

const unsigned kTypes[] = {OSSL_PARAM_OCTET_STRING, OSSL_PARAM_UTF8_STRING, OSSL_PARAM_OCTET_PTR,
                           OSSL_PARAM_UTF8_PTR, OSSL_PARAM_UNSIGNED_INTEGER};

// Before 3.5 (3.0 at least) a string setter accepted any type when data was
// NULL, and a refusal left another return_size. hwaccel follows 3.5 and
// later; on an older libcrypto those cases are not compared.
bool older_rules() { return OpenSSL_version_num() < 0x30500000L; }

// Calls `set` on two identical parameters, one through ours and one through
// libcrypto's, for every type, buffer size around `len` and NULL data.
template <class Ours, class Theirs>
void compare(size_t len, unsigned own_type, Ours ours, Theirs theirs) {
    for (unsigned type : kTypes) {
        for (size_t n : {size_t{0}, len ? len - 1 : 0, len, len + 1, len + 8}) {
            for (bool null_data : {false, true}) {
                // A pointer type's data is where the pointer goes, whatever
                // data_size says (that is the size of what it points to).
                const size_t room = std::max(n + 1, sizeof(void*));
                std::vector<unsigned char> mine(room, 0xa5), openssl(room, 0xa5);
                OSSL_PARAM pm{"k", type, null_data ? nullptr : mine.data(), n, OSSL_PARAM_UNMODIFIED};
                OSSL_PARAM po{"k", type, null_data ? nullptr : openssl.data(), n, OSSL_PARAM_UNMODIFIED};
                const bool r_mine = ours(&pm);
                const bool r_openssl = theirs(&po) == 1;
                ERR_clear_error();
                INFO("type " << type << " size " << n << (null_data ? " NULL data" : "") << " len " << len);
                if (older_rules() && null_data && type != own_type) continue;
                CHECK(r_mine == r_openssl);
                if (r_openssl || !older_rules()) CHECK(pm.return_size == po.return_size);
                CHECK(mine == openssl);
            }
        }
    }
    CHECK(ours(nullptr) == (theirs(nullptr) == 1));
    ERR_clear_error();
}

}  // namespace

TEST_CASE("params: strings and pointers as libcrypto sets them", "[params]") {
    const unsigned char octets[] = {1, 2, 0, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    for (size_t len : {size_t{0}, size_t{1}, size_t{16}}) {
        compare(len, OSSL_PARAM_OCTET_STRING, [&](OSSL_PARAM* p) { return hwaccel::params::set_octet_string(p, octets, len); },
                [&](OSSL_PARAM* p) { return OSSL_PARAM_set_octet_string(p, octets, len); });
        compare(len, OSSL_PARAM_OCTET_PTR, [&](OSSL_PARAM* p) { return hwaccel::params::set_octet_ptr(p, octets, len); },
                [&](OSSL_PARAM* p) { return OSSL_PARAM_set_octet_ptr(p, const_cast<unsigned char*>(octets), len); });
        // A NULL value: refused as a string, stored as a pointer.
        compare(len, OSSL_PARAM_OCTET_STRING, [&](OSSL_PARAM* p) { return hwaccel::params::set_octet_string(p, nullptr, len); },
                [&](OSSL_PARAM* p) { return OSSL_PARAM_set_octet_string(p, nullptr, len); });
        compare(len, OSSL_PARAM_OCTET_PTR, [&](OSSL_PARAM* p) { return hwaccel::params::set_octet_ptr(p, nullptr, len); },
                [&](OSSL_PARAM* p) { return OSSL_PARAM_set_octet_ptr(p, nullptr, len); });
    }
    for (const char* text : {"", "x", "hwaccel: SM4", static_cast<const char*>(nullptr)}) {
        const size_t len = text ? std::strlen(text) : 0;
        compare(len, OSSL_PARAM_UTF8_STRING, [&](OSSL_PARAM* p) { return hwaccel::params::set_utf8_string(p, text); },
                [&](OSSL_PARAM* p) { return OSSL_PARAM_set_utf8_string(p, text); });
        compare(len, OSSL_PARAM_UTF8_PTR, [&](OSSL_PARAM* p) { return hwaccel::params::set_utf8_ptr(p, text); },
                [&](OSSL_PARAM* p) { return OSSL_PARAM_set_utf8_ptr(p, text); });
    }
}

TEST_CASE("params: locate finds what libcrypto finds", "[params]") {
    int a = 0, b = 0, c = 0;
    OSSL_PARAM params[] = {OSSL_PARAM_int("iv", &a), OSSL_PARAM_int("keylen", &b),
                           OSSL_PARAM_int("iv", &c), OSSL_PARAM_END};
    for (const char* key : {"iv", "keylen", "ivlen", "", "i", static_cast<const char*>(nullptr)}) {
        INFO((key ? key : "(null)"));
        CHECK(hwaccel::params::locate(params, key) == OSSL_PARAM_locate(params, key));
        const OSSL_PARAM* cp = params;
        CHECK(hwaccel::params::locate(cp, key) == OSSL_PARAM_locate_const(cp, key));
        CHECK(hwaccel::params::locate(static_cast<OSSL_PARAM*>(nullptr), key) ==
              OSSL_PARAM_locate(nullptr, key));
    }
}
