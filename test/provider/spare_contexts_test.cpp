// The instance's spare digest contexts (provider/spare_contexts.hpp): one
// per algorithm and CPU, taken at most once, never handed to two threads.
#include <sched.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "memory.hpp"
#include "spare_contexts.hpp"

namespace {

using hwaccel::SpareContexts;
namespace mem = hwaccel::mem;

// Keeps the calling thread on one CPU while it lives, then restores its set.
class OnCpu {
public:
    explicit OnCpu(int cpu) {
        ok_ = sched_getaffinity(0, sizeof saved_, &saved_) == 0;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        ok_ = ok_ && sched_setaffinity(0, sizeof one, &one) == 0 && sched_getcpu() == cpu;
    }
    ~OnCpu() { sched_setaffinity(0, sizeof saved_, &saved_); }
    bool ok() const { return ok_; }

private:
    cpu_set_t saved_{};
    bool ok_ = false;
};

// The CPUs this thread may run on.
std::vector<int> allowed_cpus() {
    cpu_set_t set;
    std::vector<int> cpus;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus.push_back(c);
    return cpus;
}

}  // namespace

TEST_CASE("spare contexts: one per algorithm on a CPU, taken once", "[spare]") {
    const std::vector<int> cpus = allowed_cpus();
    REQUIRE(!cpus.empty());
    OnCpu pinned(cpus[0]);
    REQUIRE(pinned.ok());
    SpareContexts spares;
    void* p = mem::malloc(64);
    void* q = mem::malloc(64);
    REQUIRE((p != nullptr && q != nullptr));
    CHECK(spares.take(0) == nullptr);
    REQUIRE(spares.give(0, p));
    CHECK_FALSE(spares.give(0, q));  // full: the caller frees its context
    REQUIRE(spares.give(1, q));      // another algorithm's slot
    CHECK(spares.take(0) == p);
    CHECK(spares.take(0) == nullptr);
    CHECK(spares.take(1) == q);
    // Out of range: nothing kept, nothing handed out.
    CHECK_FALSE(spares.give(SpareContexts::kSlots, p));
    CHECK(spares.take(SpareContexts::kSlots) == nullptr);
    // What is still parked at teardown the destructor frees (ASan/valgrind
    // runs would report it otherwise).
    REQUIRE(spares.give(2, p));
    mem::free(q);
}

TEST_CASE("spare contexts: a CPU does not take another CPU's spare", "[spare]") {
    const std::vector<int> cpus = allowed_cpus();
    // Two CPUs that map to different buckets.
    int a = -1, b = -1;
    for (int c : cpus) {
        if (a < 0) a = c;
        else if (SpareContexts::bucket_of(c) != SpareContexts::bucket_of(a)) {
            b = c;
            break;
        }
    }
    if (b < 0) {
        WARN("one CPU (or one bucket) here: the per-CPU separation is not checked");
        return;
    }
    SpareContexts spares;
    void* p = mem::malloc(64);
    void* q = mem::malloc(64);
    REQUIRE((p != nullptr && q != nullptr));
    {
        OnCpu on(a);
        REQUIRE(on.ok());
        REQUIRE(spares.give(0, p));
    }
    {
        OnCpu on(b);
        REQUIRE(on.ok());
        CHECK(spares.take(0) == nullptr);  // p is CPU a's
        REQUIRE(spares.give(0, q));        // b's own slot was empty
    }
    {
        OnCpu on(a);
        REQUIRE(on.ok());
        CHECK(spares.take(0) == p);
    }
    {
        OnCpu on(b);
        REQUIRE(on.ok());
        CHECK(spares.take(0) == q);
    }
    mem::free(p);
    mem::free(q);
}

TEST_CASE("spare contexts: CPU numbers to buckets", "[spare]") {
    CHECK(SpareContexts::bucket_of(-1) == 0);  // sched_getcpu failed
    CHECK(SpareContexts::bucket_of(0) == 0);
    CHECK(SpareContexts::bucket_of(1) == 1);
    CHECK(SpareContexts::bucket_of(int(SpareContexts::kBuckets) - 1) == SpareContexts::kBuckets - 1);
    CHECK(SpareContexts::bucket_of(int(SpareContexts::kBuckets)) == 0);
    CHECK(SpareContexts::bucket_of(int(SpareContexts::kBuckets) + 3) == 3);
}

// Threads moving between CPUs as the scheduler likes, each taking a spare
// or making a context, owning it for a moment, and giving it back: no
// context may be owned by two threads at once, and none may be lost.
TEST_CASE("spare contexts: threads never share a context", "[spare][threads]") {
    struct Block {
        std::atomic<int> owners{0};
    };
    SpareContexts spares;
    std::atomic<long> made{0}, freed{0}, doubled{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 20000; ++i) {
                const size_t slot = size_t(i + t) % 3;
                void* mem_block = spares.take(slot);
                if (mem_block == nullptr) {
                    mem_block = mem::malloc(sizeof(Block));
                    if (mem_block == nullptr) continue;
                    new (mem_block) Block;
                    ++made;
                }
                auto* b = static_cast<Block*>(mem_block);
                if (b->owners.fetch_add(1) != 0) ++doubled;
                if (i % 97 == 0) std::this_thread::yield();
                b->owners.fetch_sub(1);
                if (!spares.give(slot, b)) {
                    mem::free(b);
                    ++freed;
                }
            }
        });
    for (auto& th : threads) th.join();
    CHECK(doubled.load() == 0);
    // The rest are parked: at most one per slot used and bucket.
    long parked = 0;
    bool every_cpu = true;
    for (int c : allowed_cpus()) {
        OnCpu on(c);
        if (!on.ok()) {
            every_cpu = false;
            continue;
        }
        for (size_t slot = 0; slot < 3; ++slot)
            if (void* p = spares.take(slot)) {
                ++parked;
                mem::free(p);
            }
    }
    CHECK(parked <= long(3 * SpareContexts::kBuckets));
    if (every_cpu) CHECK(made.load() - freed.load() == parked);
}
