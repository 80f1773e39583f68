#include "openssl_version.hpp"

#include <atomic>
#include <cstdio>

namespace hwaccel {
namespace {

// major * 100 + minor; 3.0 until told otherwise. One libcrypto per process,
// so a process-wide value is right; the atomic keeps concurrent loads tidy.
std::atomic<int> g_version{300};

}  // namespace

void set_running_openssl_version(const char* version) {
    int major = 0, minor = 0;
    if (version != nullptr && std::sscanf(version, "%d.%d", &major, &minor) == 2)
        g_version.store(major * 100 + minor);
}

bool shake_has_default_length() { return g_version.load() < 304; }

bool refuses_repeated_params() { return g_version.load() >= 306; }

bool has_encrypt_then_mac_param() { return g_version.load() >= 306; }

bool lists_tls_mac_as_octet_string() { return g_version.load() >= 306; }

}  // namespace hwaccel
