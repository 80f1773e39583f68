#include "openssl_version.hpp"

#include <atomic>
#include <cstdio>

namespace hwaccel {

std::atomic<int> g_running_openssl_version{300};

void set_running_openssl_version(const char* version) {
    int major = 0, minor = 0;
    if (version != nullptr && std::sscanf(version, "%d.%d", &major, &minor) == 2)
        g_running_openssl_version.store(major * 100 + minor);
}

}  // namespace hwaccel
