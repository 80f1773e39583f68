// OpenSSL's octet and UTF-8 parameter rules without libcrypto (param_strings.hpp).
#include "param_strings.hpp"

#include <openssl/params.h>

#include <cstring>

namespace hwaccel::params {
namespace {

bool set_string(OSSL_PARAM* p, const void* value, size_t len, unsigned type) {
    if (p == nullptr || value == nullptr) return false;
    p->return_size = 0;
    if (p->data_type != type) return false;
    p->return_size = len;
    if (p->data == nullptr) return true;
    if (p->data_size < len) return false;
    std::memcpy(p->data, value, len);
    if (type == OSSL_PARAM_UTF8_STRING && p->data_size > len) static_cast<char*>(p->data)[len] = '\0';
    return true;
}

bool set_pointer(OSSL_PARAM* p, const void* value, size_t len, unsigned type) {
    if (p == nullptr) return false;
    p->return_size = 0;
    if (p->data_type != type) return false;
    p->return_size = len;
    if (p->data != nullptr) *static_cast<const void**>(p->data) = value;
    return true;
}

}  // namespace

bool set_octet_string(OSSL_PARAM* p, const void* value, size_t len) {
    return set_string(p, value, len, OSSL_PARAM_OCTET_STRING);
}
bool set_octet_ptr(OSSL_PARAM* p, const void* value, size_t len) {
    return set_pointer(p, value, len, OSSL_PARAM_OCTET_PTR);
}
bool set_utf8_string(OSSL_PARAM* p, const char* value) {
    return set_string(p, value, value ? std::strlen(value) : 0, OSSL_PARAM_UTF8_STRING);
}
bool set_utf8_ptr(OSSL_PARAM* p, const char* value) {
    return set_pointer(p, value, value ? std::strlen(value) : 0, OSSL_PARAM_UTF8_PTR);
}

}  // namespace hwaccel::params
