// Integer parameters with OpenSSL's conversion rules (crypto/params.c), so
// the module needs no libcrypto: a value is accepted from an OSSL_PARAM
// INTEGER or UNSIGNED_INTEGER of any size, or a REAL of double's size, when it
// is exactly representable in the requested type; setting writes into any of
// them when the value fits, and reports the size through return_size as
// OpenSSL does (the parameter's size on success, the expected size when data
// is NULL). test/provider/param_integers_test.cpp compares every case with
// libcrypto's OSSL_PARAM_get_*/set_*.
#pragma once

#include <openssl/core.h>

#include <cstddef>

namespace hwaccel::params {

// false (nothing written) for a NULL parameter, value or data, another type,
// or a value out of the type's range.
bool get_int(const OSSL_PARAM* p, int* value);
bool get_uint(const OSSL_PARAM* p, unsigned* value);
bool get_size_t(const OSSL_PARAM* p, size_t* value);

// false for a NULL parameter, another type (a negative value into an
// UNSIGNED_INTEGER included) or a value that does not fit.
bool set_int(OSSL_PARAM* p, int value);
bool set_uint(OSSL_PARAM* p, unsigned value);
bool set_size_t(OSSL_PARAM* p, size_t value);

}  // namespace hwaccel::params
