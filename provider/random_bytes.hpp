// Random bytes for generated IVs (SM4-GCM without an IV, TLS's tlsivfixed).
// The module calls no libcrypto function (docs/DESIGN.md), so RAND_bytes_ex
// is out of reach; the kernel's CSPRNG through getrandom(2) is what
// OpenSSL's own seed source reads too. Blocks only until the pool is
// initialised at boot; requests here are at most 128 bytes.
#pragma once

#include <sys/random.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

namespace hwaccel {

inline bool random_bytes(void* buf, size_t len) {
    auto* p = static_cast<uint8_t*>(buf);
    while (len > 0) {
        const ssize_t n = getrandom(p, len, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

}  // namespace hwaccel
