// Octet and UTF-8 parameters, strings (copied into the caller's buffer) and
// pointers (to our storage), with OpenSSL's rules (crypto/params.c) and
// without libcrypto: the type must match exactly; return_size carries the
// length, also when data is NULL (the caller asks how much room to offer) and
// when the buffer is too small; a UTF-8 string gets a NUL after it when there
// is room. Compared with libcrypto in test/provider/param_strings_test.cpp.
#pragma once

#include <openssl/core.h>

#include <cstddef>

namespace hwaccel::params {

bool set_octet_string(OSSL_PARAM* p, const void* value, size_t len);
bool set_octet_ptr(OSSL_PARAM* p, const void* value, size_t len);
bool set_utf8_string(OSSL_PARAM* p, const char* value);
bool set_utf8_ptr(OSSL_PARAM* p, const char* value);

}  // namespace hwaccel::params
