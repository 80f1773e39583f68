// Named 4-byte words of key material, looked up in a register dump
// (vector_register_dump.hpp) at every byte offset: what the residue tests
// check an engine or the provider leaves in the vector registers.
#pragma once

#if defined(__x86_64__) || defined(__aarch64__) || defined(__s390x__)

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>

#include "support/vector_register_dump.hpp"

namespace hwaccel::test {

class SecretWords {
public:
    // The word as stored (native order) and byte-reversed; zero is no secret.
    void add(uint32_t w, const std::string& name) {
        if (w == 0) return;
        words_.emplace(w, name);
        words_.emplace(__builtin_bswap32(w), name + " (byte-reversed)");
    }
    void add_bytes(const uint8_t* p, size_t n, const std::string& name) {
        for (size_t i = 0; i + 4 <= n; i += 4) add(load(p + i), name + "[" + std::to_string(i / 4) + "]");
    }
    // Words of a that differ from b's at the same offset: what the key decides.
    void add_differing(const uint8_t* a, const uint8_t* b, size_t n, const std::string& name) {
        for (size_t i = 0; i + 4 <= n; i += 4)
            if (load(a + i) != load(b + i)) add(load(a + i), name + " word " + std::to_string(i / 4));
    }
    void add_all(const SecretWords& other) { words_.insert(other.words_.begin(), other.words_.end()); }

    // Words the caller is given anyway (a digest's output): no secret.
    void forget_bytes(const uint8_t* p, size_t n) {
        for (size_t i = 0; i + 4 <= n; i += 4) {
            words_.erase(load(p + i));
            words_.erase(__builtin_bswap32(load(p + i)));
        }
    }

    // "" if no word appears in the dump at any offset within one register
    // (or anywhere in a stack dump), else where each found one was (the
    // first few).
    std::string find_in(const VectorRegisterDump& d) const {
        std::string found;
        int hits = 0;
        for (size_t off = 0; off + 4 <= d.bytes.size(); ++off) {
            if (off % d.width + 4 > d.width) continue;  // across two registers
            const auto it = words_.find(load(d.bytes.data() + off));
            if (it == words_.end()) continue;
            if (++hits > 4) continue;
            found += it->second + " in ";
            if (d.stack)
                found += d.prefix + std::to_string(d.bytes.size() - off);
            else
                found += (d.names != nullptr ? std::string(d.names[off / d.width])
                                             : d.prefix + std::to_string(off / d.width)) +
                         " byte " + std::to_string(off % d.width);
            found += "; ";
        }
        if (hits > 4) found += std::to_string(hits) + " hits in all; ";
        return found;
    }

private:
    static uint32_t load(const uint8_t* p) {
        uint32_t w;
        std::memcpy(&w, p, 4);
        return w;
    }
    std::unordered_multimap<uint32_t, std::string> words_;
};

}  // namespace hwaccel::test

#endif
