// LD_PRELOAD library for cxx_allocation_failure_test.sh: malloc that fails
// once, at the n-th call made straight from hwaccel.so or libstdc++ (the C++
// runtime's operator new, std::string, the exception pool), which OpenSSL's
// allocator hooks (alloc_failure_tests) never see.
//   HWACCEL_FAIL_MALLOC_AT=n      the call that gets NULL (0: none)
//   HWACCEL_FAIL_MALLOC_COUNT=f   at exit, the number of such calls into f
// A call counts when its return address lies in an object named hwaccel.so
// or libstdc++.so.* (dladdr): the module's own copy of the
// C++ runtime (HWACCEL_STATIC_CXX_RUNTIME) or the shared one.
#include <dlfcn.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

using MallocFn = void* (*)(size_t);

MallocFn real_malloc() {
    static MallocFn fn = reinterpret_cast<MallocFn>(dlsym(RTLD_NEXT, "malloc"));
    return fn;
}

long env_long(const char* name) {
    const char* v = std::getenv(name);
    return v != nullptr ? std::atol(v) : 0;
}

std::atomic<long> g_counted{0};
thread_local bool t_inside = false;  // dladdr's own work is not counted

// By file name, not by path: a libcrypto from ~/.cache/hwaccel/openssl-*
// (scripts/test-against.sh's builds) or a checkout in a directory named
// hwaccel must not count, or the runs fail OpenSSL's own allocations.
bool from_watched_object(void* return_address) {
    Dl_info info;
    if (dladdr(return_address, &info) == 0 || info.dli_fname == nullptr) return false;
    const char* slash = std::strrchr(info.dli_fname, '/');
    const char* name = slash != nullptr ? slash + 1 : info.dli_fname;
    return std::strcmp(name, "hwaccel.so") == 0 || std::strncmp(name, "libstdc++.so", 12) == 0;
}

struct CountAtExit {
    ~CountAtExit() {
        const char* path = std::getenv("HWACCEL_FAIL_MALLOC_COUNT");
        if (path == nullptr) return;
        if (FILE* f = std::fopen(path, "w")) {
            std::fprintf(f, "%ld\n", g_counted.load());
            std::fclose(f);
        }
    }
} g_count_at_exit;

}  // namespace

extern "C" void* malloc(size_t size) noexcept {
    MallocFn real = real_malloc();
    if (real == nullptr) return nullptr;
    if (t_inside) return real(size);
    t_inside = true;
    const bool watched = from_watched_object(__builtin_return_address(0));
    t_inside = false;
    if (watched) {
        static const long fail_at = env_long("HWACCEL_FAIL_MALLOC_AT");
        if (++g_counted == fail_at) {
            errno = ENOMEM;
            return nullptr;
        }
    }
    return real(size);
}
