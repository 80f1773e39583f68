// Spare digest contexts, kept by the provider instance per algorithm and
// per thread. OpenSSL 3.0's EVP_DigestInit_ex2 frees the provider context
// and asks for a new one for every message (later releases reuse it), so
// freectx keeps a finished context for the next newctx instead of a free
// and a malloc: measured on Zen 4 (2026-12-07, EVP on 3.0.19,
// single-threaded), SHA-1 and SHA-256 22% fewer ticks at 16 bytes and 7% at
// 256, SHA3-256 and SHAKE128 5% at 16-64 bytes and 2% at 256
// (docs/DESIGN.md). Only contexts that hold nothing of a message are kept
// (final wiped them, or none was begun); one abandoned mid-message is wiped
// and freed as before.
//
// Per thread, because one spare per algorithm for the whole instance was a
// cache line that every thread hashing short messages wrote twice a
// message: two threads sharing an instance made SHA-256 at 16-64 bytes
// 0.63-0.77x the default provider (Intel Emerald Rapids, 2026-12-07). Each
// thread takes a bucket of slots of its own, handed out in turn on its
// first use (kBuckets of them; later threads share, as all did before),
// and buckets never share a cache line or its prefetch pair, whatever the
// instance's alignment. The bucket number is a thread_local integer: no
// system call anywhere (sched_getcpu is one on aarch64 without rseq), and
// nothing to free when a thread ends. Correctness never depends on it.
//
// Lock-free: a slot is one atomic pointer, taken by exchange and filled by
// compare-exchange, each tried only when a relaxed load says it can
// succeed. The instance frees what is left at teardown through hwaccel::mem,
// the allocator that made the contexts (fixed for the process by the first
// core that offers one, memory.hpp).
#pragma once

#include <atomic>
#include <cstddef>

#include "memory.hpp"

namespace hwaccel {

class SpareContexts {
public:
    static constexpr size_t kSlots = 16;    // digest algorithms: 9 today
    static constexpr size_t kBuckets = 16;  // threads with spares of their own

    SpareContexts() = default;
    SpareContexts(const SpareContexts&) = delete;
    SpareContexts& operator=(const SpareContexts&) = delete;
    ~SpareContexts() { free_all(); }

    // The slot's context in this thread's bucket, or null (none kept, or
    // slot out of range).
    void* take(size_t slot) noexcept {
        if (slot >= kSlots) return nullptr;
        std::atomic<void*>& s = buckets_[this_thread_bucket()].slots[slot];
        if (s.load(std::memory_order_relaxed) == nullptr) return nullptr;
        return s.exchange(nullptr, std::memory_order_acquire);
    }
    // Keeps p if this thread's slot is empty; false: the caller frees it.
    bool give(size_t slot, void* p) noexcept {
        if (slot >= kSlots) return false;
        std::atomic<void*>& s = buckets_[this_thread_bucket()].slots[slot];
        if (s.load(std::memory_order_relaxed) != nullptr) return false;
        void* empty = nullptr;
        return s.compare_exchange_strong(empty, p, std::memory_order_release, std::memory_order_relaxed);
    }

    // Frees every kept context (teardown; the tests count them): how many.
    size_t free_all() noexcept {
        size_t n = 0;
        for (Bucket& b : buckets_)
            for (std::atomic<void*>& s : b.slots)
                if (void* p = s.exchange(nullptr, std::memory_order_acquire)) {
                    mem::free(p);
                    ++n;
                }
        return n;
    }

    // A slot number for each caller that asks (a digest algorithm, once).
    static size_t next_slot() noexcept {
        static std::atomic<size_t> next{0};
        return next.fetch_add(1, std::memory_order_relaxed);
    }

    // The calling thread's bucket: the next in turn on its first call, then
    // always that one. One numbering for the process (every instance).
    static size_t this_thread_bucket() noexcept {
        static std::atomic<size_t> next{0};
        static thread_local size_t mine = 0;  // bucket + 1; 0: none yet
        if (mine == 0) mine = next.fetch_add(1, std::memory_order_relaxed) % kBuckets + 1;
        return mine - 1;
    }

private:
    // One thread's slots (two cache lines), then two lines of padding: the
    // next bucket's slots start 128 bytes after this one's end, so no line,
    // nor the 128-byte pair an adjacent-line prefetcher fetches, holds two
    // buckets' slots, at any alignment of the instance (no over-aligned
    // type: the instance comes from plain operator new).
    struct Bucket {
        std::atomic<void*> slots[kSlots]{};
        unsigned char padding[128];
    };
    Bucket buckets_[kBuckets];
};

}  // namespace hwaccel
