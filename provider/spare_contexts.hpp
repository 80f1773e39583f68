// Spare digest contexts, kept by the provider instance per algorithm and
// per CPU. OpenSSL 3.0's EVP_DigestInit_ex2 frees the provider context and
// asks for a new one for every message (later releases reuse it), so
// freectx keeps a finished context for the next newctx instead of a free
// and a malloc: measured on Zen 4 (2026-12-07, EVP on 3.0.19,
// single-threaded), SHA-1 and SHA-256 22% fewer ticks at 16 bytes and 7% at
// 256, SHA3-256 and SHAKE128 5% at 16-64 bytes and 2% at 256
// (docs/DESIGN.md). Only contexts that hold nothing of a message are kept
// (final wiped them, or none was begun); one abandoned mid-message is wiped
// and freed as before.
//
// Per CPU, because one spare per algorithm for the whole instance was one
// cache line that every thread hashing short messages wrote twice a
// message: two threads sharing an instance made SHA-256 at 64 bytes 0.71-0.79x
// the default provider (Intel Emerald Rapids, 2026-12-07; 1.0x single-
// threaded), the line moving between the cores on every take and give.
// Each CPU's spares are on lines of their own (kBuckets CPUs; beyond that
// CPUs share a bucket, as they did a slot before). The CPU number comes
// from glibc's sched_getcpu (its rseq cache since 2.35: about 6 TSC ticks);
// a thread that moves to another CPU between take and give only parks its
// context in another bucket: correctness never depends on the number.
//
// Lock-free: a slot is one atomic pointer, taken by exchange and filled by
// compare-exchange, each tried only when a relaxed load says it can
// succeed. The instance frees what is left at teardown through hwaccel::mem,
// the allocator that made the contexts (fixed for the process by the first
// core that offers one, memory.hpp).
#pragma once

#include <atomic>
#include <cstddef>

#if defined(__linux__)
#include <sched.h>
#endif

#include "memory.hpp"

namespace hwaccel {

class SpareContexts {
public:
    static constexpr size_t kSlots = 16;    // digest algorithms: 9 today
    static constexpr size_t kBuckets = 16;  // CPUs with spares of their own

    SpareContexts() = default;
    SpareContexts(const SpareContexts&) = delete;
    SpareContexts& operator=(const SpareContexts&) = delete;
    ~SpareContexts() {
        for (Bucket& b : buckets_)
            for (std::atomic<void*>& s : b.slots) mem::free(s.exchange(nullptr));
    }

    // The slot's context on this CPU, or null (none kept, or slot out of range).
    void* take(size_t slot) noexcept {
        if (slot >= kSlots) return nullptr;
        std::atomic<void*>& s = this_cpu().slots[slot];
        if (s.load(std::memory_order_relaxed) == nullptr) return nullptr;
        return s.exchange(nullptr, std::memory_order_acquire);
    }
    // Keeps p if this CPU's slot is empty; false: the caller frees it.
    bool give(size_t slot, void* p) noexcept {
        if (slot >= kSlots) return false;
        std::atomic<void*>& s = this_cpu().slots[slot];
        if (s.load(std::memory_order_relaxed) != nullptr) return false;
        void* empty = nullptr;
        return s.compare_exchange_strong(empty, p, std::memory_order_release, std::memory_order_relaxed);
    }

    // A slot number for each caller that asks (a digest algorithm, once).
    static size_t next_slot() noexcept {
        static std::atomic<size_t> next{0};
        return next.fetch_add(1, std::memory_order_relaxed);
    }

    // The bucket a CPU number maps to (public for the tests).
    static size_t bucket_of(int cpu) noexcept {
        return cpu < 0 ? 0 : static_cast<size_t>(cpu) % kBuckets;
    }

private:
    // One CPU's spares: two cache lines that no other CPU in kBuckets writes.
    struct alignas(64) Bucket {
        std::atomic<void*> slots[kSlots]{};
    };
    Bucket& this_cpu() noexcept {
#if defined(__linux__)
        return buckets_[bucket_of(sched_getcpu())];
#else
        return buckets_[0];
#endif
    }
    Bucket buckets_[kBuckets];
};

}  // namespace hwaccel
