// is_mapped_address and mask_mapped_addresses (mapped_addresses.hpp).
#include "support/mapped_addresses.hpp"

#if defined(__x86_64__) || defined(__aarch64__) || defined(__s390x__)

#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

namespace hwaccel::test {
namespace {

using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;

// The process's mappings when first asked: the dumps' return addresses and
// pointers are into the executable, its libraries, the heap and the stack,
// all mapped by then.
const Ranges& mappings() {
    static const Ranges ranges = [] {
        Ranges r;
        if (FILE* f = std::fopen("/proc/self/maps", "r")) {
            unsigned long long lo = 0, hi = 0;
            char line[512];
            while (std::fgets(line, sizeof line, f) != nullptr)
                if (std::sscanf(line, "%llx-%llx", &lo, &hi) == 2) r.emplace_back(lo, hi);
            std::fclose(f);
        }
        return r;
    }();
    return ranges;
}

}  // namespace

bool is_mapped_address(uint64_t v) {
    for (const auto& [lo, hi] : mappings())
        if (v >= lo && v < hi) return true;
    return false;
}

void mask_mapped_addresses(VectorRegisterDump& d) {
    const size_t n = d.bytes.size();
    if (!d.stack && d.width != 8) return;  // vector registers hold no addresses worth it
    for (size_t end = n; end >= 8; end -= 8) {
        uint8_t* slot = d.bytes.data() + end - 8;
        uint64_t v;
        std::memcpy(&v, slot, 8);
        if (v != 0 && is_mapped_address(v)) std::memset(slot, 0, 8);
    }
}

}  // namespace hwaccel::test

#endif
