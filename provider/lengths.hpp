// Lengths that cannot describe a real buffer are refused at every entry
// point before anything is read or written.
//
// OpenSSL 3.0's EVP_EncryptUpdate/EVP_DecryptUpdate take an `int` length and
// pass it on as `size_t`, so a negative length arrives as a number near
// 2^64; the default provider then wraps `buffered + inl` (block modes) or
// runs off the end of both buffers (stream modes).
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

namespace hwaccel {

// The largest length EVP's cipher update can pass on honestly (it took an int).
constexpr size_t kMaxCipherUpdateLength = INT_MAX;

// True when [p, p + len) can be a real object: no object is larger than
// PTRDIFF_MAX, none wraps the address space, and only an empty one may be NULL.
inline bool is_real_buffer(const void* p, size_t len) {
    if (len == 0) return true;
    if (p == nullptr || len > static_cast<size_t>(PTRDIFF_MAX)) return false;
    const uintptr_t start = reinterpret_cast<uintptr_t>(p);
    return start + (len - 1) >= start;
}

}  // namespace hwaccel
