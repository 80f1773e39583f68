// OpenSSL's integer parameter rules without libcrypto (param_integers.hpp).
// Every integer goes through one wide value: a parameter of any size is read
// exactly or refused, then range-checked for the requested type.
#include "param_integers.hpp"

#include <openssl/params.h>

#include <cstdint>
#include <cstring>
#include <limits>

namespace hwaccel::params {
namespace {

using Wide = __int128;  // holds every int, unsigned and size_t exactly
using UWide = unsigned __int128;

constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

// Byte i of an n-byte integer, counted from its least significant end.
size_t position(size_t n, size_t i) { return kLittleEndian ? i : n - 1 - i; }

// Reads an n-byte native-endian integer. Only its low 15 bytes can carry
// value here; the rest must be sign fill, or the value is beyond every type
// we serve (false).
bool read_integer(const void* data, size_t n, bool is_signed, Wide& out) {
    // The sizes callers use (size_t, int) as one native load: the byte loop
    // below was 120 instructions, 2% of a 16-byte SHAKE128 (EVP_DigestFinalXOF
    // sets xoflen on every call).
    if (n == sizeof(uint64_t)) {
        uint64_t u;
        std::memcpy(&u, data, sizeof u);
        out = is_signed ? Wide{static_cast<int64_t>(u)} : Wide{u};
        return true;
    }
    if (n == sizeof(uint32_t)) {
        uint32_t u;
        std::memcpy(&u, data, sizeof u);
        out = is_signed ? Wide{static_cast<int32_t>(u)} : Wide{u};
        return true;
    }
    const auto* bytes = static_cast<const unsigned char*>(data);
    const bool negative = is_signed && n > 0 && (bytes[position(n, n - 1)] & 0x80) != 0;
    const unsigned char fill = negative ? 0xff : 0x00;
    for (size_t i = 15; i < n; ++i)
        if (bytes[position(n, i)] != fill) return false;
    UWide bits = negative ? ~UWide{0} : 0;
    for (size_t i = n < 15 ? n : 15; i-- > 0;) bits = (bits << 8) | bytes[position(n, i)];
    out = static_cast<Wide>(bits);
    return true;
}

// Whether v fits an n-byte integer of that signedness (16 bytes and more
// hold any value we write).
bool fits(Wide v, size_t n, bool is_signed) {
    if (!is_signed && v < 0) return false;
    if (n >= 16) return true;
    if (n == 0) return v == 0;
    const Wide span = Wide{1} << (8 * n - (is_signed ? 1 : 0));
    return is_signed ? (v >= -span && v < span) : v < span;
}

void write_integer(void* data, size_t n, Wide v) {
    auto* bytes = static_cast<unsigned char*>(data);
    const unsigned char fill = v < 0 ? 0xff : 0x00;
    for (size_t i = 0; i < n; ++i)
        bytes[position(n, i)] = i < 16 ? static_cast<unsigned char>(static_cast<UWide>(v) >> (8 * i)) : fill;
}

bool get_integer(const OSSL_PARAM* p, Wide lo, Wide hi, Wide& out) {
    if (p == nullptr || p->data == nullptr) return false;
    Wide v;
    switch (p->data_type) {
    case OSSL_PARAM_INTEGER:
    case OSSL_PARAM_UNSIGNED_INTEGER:
        if (!read_integer(p->data, p->data_size, p->data_type == OSSL_PARAM_INTEGER, v)) return false;
        break;
    case OSSL_PARAM_REAL: {
        // Only a double holding an integer in range, exactly.
        if (p->data_size != sizeof(double)) return false;
        double d;
        std::memcpy(&d, p->data, sizeof d);
        if (!(d >= static_cast<double>(lo) && d < static_cast<double>(hi + 1))) return false;
        v = lo < 0 ? Wide{static_cast<int64_t>(d)} : Wide{static_cast<uint64_t>(d)};
        if (static_cast<double>(v) != d) return false;
        break;
    }
    default:
        return false;
    }
    if (v < lo || v > hi) return false;
    out = v;
    return true;
}

// How a setter reports sizes, OpenSSL's way: `size` is the setter's own type's;
// its 32-bit setters note that size in return_size before checking the value
// (so a refusal still reports it), and set_int32 does the same with a
// double's size for a REAL.
struct Setter {
    size_t size;
    bool presets_size;
    bool presets_real_size;
};

bool set_integer(OSSL_PARAM* p, Wide v, Setter s) {
    if (p == nullptr) return false;
    p->return_size = 0;
    const bool is_signed = p->data_type == OSSL_PARAM_INTEGER;
    if (is_signed || (p->data_type == OSSL_PARAM_UNSIGNED_INTEGER && v >= 0)) {
        if (s.presets_size) p->return_size = s.size;
        if (p->data == nullptr) {
            p->return_size = s.size;  // the size to offer
            return true;
        }
        const bool ok = fits(v, p->data_size, is_signed);
        if (ok) write_integer(p->data, p->data_size, v);
        if (ok || (p->data_size != 4 && p->data_size != 8))  // OpenSSL's general path
            p->return_size = ok ? p->data_size : s.size;
        return ok;
    }
    if (p->data_type == OSSL_PARAM_REAL) {
        if (s.presets_real_size) p->return_size = sizeof(double);
        if (p->data == nullptr) {
            p->return_size = sizeof(double);
            return true;
        }
        const Wide magnitude = v < 0 ? -v : v;
        if (p->data_size != sizeof(double) || (magnitude >> 53) != 0) return false;  // inexact
        const double d = static_cast<double>(v);
        std::memcpy(p->data, &d, sizeof d);
        p->return_size = sizeof(double);
        return true;
    }
    return false;  // another type, or a negative value into an unsigned one
}

constexpr Setter kIntSetter{sizeof(int), true, true};
constexpr Setter kUintSetter{sizeof(unsigned), true, false};
constexpr Setter kSizeSetter{sizeof(size_t), sizeof(size_t) == 4, false};

template <class T>
bool get_as(const OSSL_PARAM* p, T* value) {
    Wide v;
    if (value == nullptr || !get_integer(p, Wide{std::numeric_limits<T>::min()},
                                         Wide{std::numeric_limits<T>::max()}, v))
        return false;
    *value = static_cast<T>(v);
    return true;
}

}  // namespace

bool get_int(const OSSL_PARAM* p, int* value) { return get_as(p, value); }
bool get_uint(const OSSL_PARAM* p, unsigned* value) { return get_as(p, value); }
bool get_size_t(const OSSL_PARAM* p, size_t* value) {
    // What EVP passes (SHAKE's xoflen on every EVP_DigestFinalXOF) without
    // the wide conversion: any value of a size_t-sized size_t fits.
    if (p != nullptr && value != nullptr && p->data != nullptr &&
        p->data_type == OSSL_PARAM_UNSIGNED_INTEGER && p->data_size == sizeof(size_t)) {
        std::memcpy(value, p->data, sizeof(size_t));
        return true;
    }
    return get_as(p, value);
}

bool set_int(OSSL_PARAM* p, int value) { return set_integer(p, value, kIntSetter); }
bool set_uint(OSSL_PARAM* p, unsigned value) { return set_integer(p, value, kUintSetter); }
bool set_size_t(OSSL_PARAM* p, size_t value) { return set_integer(p, value, kSizeSetter); }

}  // namespace hwaccel::params
