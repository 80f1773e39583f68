// hwaccel's own integer OSSL_PARAM functions (provider/param_integers.cpp)
// against libcrypto's, case by case: every parameter type and size a caller
// can pass, values at and across each type's limits, NULL data. Both must
// agree on the result, the value read, the bytes written and return_size.
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "param_integers.hpp"

namespace {

const unsigned kIntegerTypes[] = {OSSL_PARAM_INTEGER, OSSL_PARAM_UNSIGNED_INTEGER};
// Every size OpenSSL handles natively (4, 8) and through its general path.
const size_t kSizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24};

// A value written into `n` bytes, little or big endian as the host, with
// `fill` above the low 8 bytes (so 2^70 and friends can be spelt too).
std::vector<unsigned char> encode(uint64_t low, unsigned char fill, size_t n) {
    std::vector<unsigned char> le(n, fill);
    for (size_t i = 0; i < n && i < 8; ++i) le[i] = static_cast<unsigned char>(low >> (8 * i));
    if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) return {le.rbegin(), le.rend()};
    return le;
}

const uint64_t kLowValues[] = {0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff,
                               0x7fffffff, 0x80000000, 0xffffffff, 0x100000000,
                               0x1fffffffffffff, 0x20000000000000, 0x7fffffffffffffff,
                               0x8000000000000000, 0xffffffffffffffff,
                               static_cast<uint64_t>(-2), static_cast<uint64_t>(INT32_MIN),
                               static_cast<uint64_t>(int64_t{INT32_MIN} - 1), 0x123456789abcdef0};

// Before 3.5 (3.0 at least) a refused set leaves another return_size (the
// expected size, noted before checking), and a get reads through NULL data.
// hwaccel follows 3.5 and later; on an older libcrypto a refusal is compared
// by its result and bytes only.
bool older_rules() { return OpenSSL_version_num() < 0x30500000L; }

OSSL_PARAM make(unsigned type, void* data, size_t size) {
    return {"k", type, data, size, OSSL_PARAM_UNMODIFIED};
}

// Runs one getter both ways on the same bytes; result and value must agree.
template <class T, class Ours, class Theirs>
void compare_get(unsigned type, std::vector<unsigned char> bytes, Ours ours, Theirs theirs) {
    OSSL_PARAM p = make(type, bytes.data(), bytes.size());
    T mine = T(0x5a5a5a5a), openssl = T(0x5a5a5a5a);
    const bool r_mine = ours(&p, &mine);
    const bool r_openssl = theirs(&p, &openssl) == 1;
    ERR_clear_error();
    INFO("type " << type << " size " << bytes.size() << " openssl " << r_openssl << " " << openssl);
    CHECK(r_mine == r_openssl);
    CHECK(mine == openssl);
}

template <class T, class Ours, class Theirs>
void compare_getters(Ours ours, Theirs theirs) {
    for (unsigned type : kIntegerTypes)
        for (size_t n : kSizes)
            for (uint64_t low : kLowValues)
                for (unsigned char fill : {0x00, 0xff, 0x01}) {
                    // Below 8 bytes the fill is the value's own high bytes.
                    if (n <= 8 && fill == 0x01) continue;
                    compare_get<T>(type, encode(low, fill, n), ours, theirs);
                }
    // Doubles: exact integers in and out of range, fractions, NaN, infinities.
    const double reals[] = {0.0, -0.0, 1.0, 1.5, -1.0, 2147483647.0, 2147483648.0, -2147483648.0,
                            -2147483649.0, 4294967295.0, 4294967296.0, 9007199254740992.0,
                            9223372036854775808.0, 18446744073709549568.0, 18446744073709551616.0,
                            1e300, -1e300, NAN, INFINITY, -INFINITY};
    for (double d : reals) {
        std::vector<unsigned char> bytes(sizeof d);
        std::memcpy(bytes.data(), &d, sizeof d);
        compare_get<T>(OSSL_PARAM_REAL, bytes, ours, theirs);
    }
    float f = 1.0f;  // a REAL of another size: refused
    compare_get<T>(OSSL_PARAM_REAL, {reinterpret_cast<unsigned char*>(&f), reinterpret_cast<unsigned char*>(&f) + 4},
                   ours, theirs);
    // Not an integer at all.
    compare_get<T>(OSSL_PARAM_OCTET_STRING, encode(1, 0, 4), ours, theirs);
    compare_get<T>(OSSL_PARAM_UTF8_STRING, encode(1, 0, 8), ours, theirs);
    // NULL data: refused (3.5+ refuses too; 3.0 reads through it, so not compared).
    OSSL_PARAM p = make(OSSL_PARAM_UNSIGNED_INTEGER, nullptr, sizeof(T));
    T v = 7;
    CHECK_FALSE(ours(&p, &v));
    // NULL parameter, NULL value.
    CHECK(ours(nullptr, &v) == (theirs(nullptr, &v) == 1));
    uint64_t data = 1;
    p = make(OSSL_PARAM_UNSIGNED_INTEGER, &data, sizeof data);
    CHECK(ours(&p, nullptr) == (theirs(&p, nullptr) == 1));
    CHECK(v == 7);
    ERR_clear_error();
}

// Runs one setter both ways into identical buffers; the result, return_size
// and every byte of the buffer must agree.
template <class T, class Ours, class Theirs>
void compare_set(unsigned type, size_t n, bool null_data, T value, Ours ours, Theirs theirs) {
    std::vector<unsigned char> mine(n + 1, 0xa5), openssl(n + 1, 0xa5);  // +1: no write past
    OSSL_PARAM p_mine = make(type, null_data ? nullptr : mine.data(), n);
    OSSL_PARAM p_openssl = make(type, null_data ? nullptr : openssl.data(), n);
    const bool r_mine = ours(&p_mine, value);
    const bool r_openssl = theirs(&p_openssl, value) == 1;
    ERR_clear_error();
    INFO("type " << type << " size " << n << (null_data ? " NULL data" : "") << " value " << value);
    CHECK(r_mine == r_openssl);
    if (r_openssl || !older_rules()) CHECK(p_mine.return_size == p_openssl.return_size);
    CHECK(mine == openssl);
}

template <class T, class Ours, class Theirs>
void compare_setters(std::initializer_list<T> values, Ours ours, Theirs theirs, bool real_null_data) {
    for (T value : values) {
        for (unsigned type : kIntegerTypes) {
            // OpenSSL reads before a zero-size signed integer's data: not compared.
            if (type == OSSL_PARAM_UNSIGNED_INTEGER) compare_set(type, 0, false, value, ours, theirs);
            for (size_t n : kSizes) {
                compare_set(type, n, false, value, ours, theirs);
                compare_set(type, n, true, value, ours, theirs);
            }
        }
        for (size_t n : {size_t{4}, size_t{8}}) {
            compare_set(OSSL_PARAM_REAL, n, false, value, ours, theirs);
            // OpenSSL's set_uint64 (size_t) writes through a REAL's NULL data.
            if (real_null_data) compare_set(OSSL_PARAM_REAL, n, true, value, ours, theirs);
        }
        compare_set(OSSL_PARAM_OCTET_STRING, sizeof(T), false, value, ours, theirs);
        compare_set(OSSL_PARAM_UTF8_PTR, sizeof(T), true, value, ours, theirs);
    }
    CHECK(ours(nullptr, T(1)) == (theirs(nullptr, T(1)) == 1));
    ERR_clear_error();
}

}  // namespace

TEST_CASE("params: getting integers as libcrypto does", "[params]") {
    SECTION("int") { compare_getters<int>(hwaccel::params::get_int, OSSL_PARAM_get_int); }
    SECTION("unsigned") { compare_getters<unsigned>(hwaccel::params::get_uint, OSSL_PARAM_get_uint); }
    SECTION("size_t") { compare_getters<size_t>(hwaccel::params::get_size_t, OSSL_PARAM_get_size_t); }
}

TEST_CASE("params: setting integers as libcrypto does", "[params]") {
    SECTION("int") {
        compare_setters<int>({0, 1, -1, 127, 128, -128, -129, 255, 256, 32767, 32768, -32769, 65535,
                              65536, 0x7fffff, -0x800001, INT_MAX, INT_MIN},
                             hwaccel::params::set_int, OSSL_PARAM_set_int, true);
    }
    SECTION("unsigned") {
        compare_setters<unsigned>({0u, 1u, 127u, 128u, 255u, 256u, 65535u, 65536u, 0x7fffffffu,
                                   0x80000000u, UINT_MAX},
                                  hwaccel::params::set_uint, OSSL_PARAM_set_uint, true);
    }
    SECTION("size_t") {
        compare_setters<size_t>({size_t{0}, size_t{1}, size_t{255}, size_t{256}, size_t{0x7fffffff},
                                 size_t{0x80000000}, size_t{0xffffffff}, size_t{0x100000000},
                                 size_t{0x1fffffffffffff}, size_t{0x20000000000000},
                                 size_t{0x7fffffffffffffff}, size_t{0x8000000000000000}, SIZE_MAX},
                                hwaccel::params::set_size_t, OSSL_PARAM_set_size_t, false);
    }
}

TEST_CASE("params: the failures callers meet", "[params]") {
    // Spelt out, so the rules are visible and stay true whatever libcrypto does.
    unsigned u = 0;
    int negative = -1;
    OSSL_PARAM p = make(OSSL_PARAM_INTEGER, &negative, sizeof negative);
    CHECK_FALSE(hwaccel::params::get_uint(&p, &u));  // negative to unsigned
    size_t big = size_t{1} << 32;
    p = make(OSSL_PARAM_UNSIGNED_INTEGER, &big, sizeof big);
    CHECK_FALSE(hwaccel::params::get_uint(&p, &u));  // a size_t beyond a 4-byte uint
    uint32_t small = 0;
    p = make(OSSL_PARAM_UNSIGNED_INTEGER, &small, sizeof small);
    CHECK_FALSE(hwaccel::params::set_size_t(&p, big));  // too small
    p = make(OSSL_PARAM_UNSIGNED_INTEGER, &small, sizeof small);
    CHECK_FALSE(hwaccel::params::set_int(&p, -1));  // negative into unsigned
    CHECK(p.return_size == 0);
    p = make(OSSL_PARAM_UNSIGNED_INTEGER, nullptr, 0);
    CHECK(hwaccel::params::set_size_t(&p, 5));  // NULL data: the size to offer
    CHECK(p.return_size == sizeof(size_t));
    p = make(OSSL_PARAM_UTF8_STRING, &small, sizeof small);
    CHECK_FALSE(hwaccel::params::set_uint(&p, 1));  // wrong type
}
