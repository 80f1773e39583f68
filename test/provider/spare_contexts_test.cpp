// The instance's spare digest contexts (provider/spare_contexts.hpp): one
// per algorithm and thread, taken at most once, never handed to two
// threads, all freed at teardown.
#include <atomic>
#include <catch2/catch.hpp>
#include <set>
#include <thread>
#include <vector>

#include "memory.hpp"
#include "spare_contexts.hpp"

namespace {

using hwaccel::SpareContexts;
namespace mem = hwaccel::mem;

// Runs f on a new thread and waits for it.
template <class F>
void on_new_thread(F&& f) {
    std::thread t(std::forward<F>(f));
    t.join();
}

}  // namespace

TEST_CASE("spare contexts: one per algorithm in a thread, taken once", "[spare]") {
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
    // What is still kept the instance frees (teardown does the same).
    REQUIRE(spares.give(2, p));
    REQUIRE(spares.give(3, q));
    CHECK(spares.free_all() == 2);
    CHECK(spares.take(2) == nullptr);
    CHECK(spares.free_all() == 0);
}

TEST_CASE("spare contexts: a thread keeps its bucket; new threads take them in turn", "[spare]") {
    const size_t mine = SpareContexts::this_thread_bucket();
    CHECK(mine < SpareContexts::kBuckets);
    CHECK(SpareContexts::this_thread_bucket() == mine);
    // kBuckets threads made one after another (nothing else takes a bucket
    // meanwhile) get every bucket once.
    std::set<size_t> seen;
    for (size_t i = 0; i < SpareContexts::kBuckets; ++i) {
        size_t b = 0, again = 1;
        on_new_thread([&] {
            b = SpareContexts::this_thread_bucket();
            again = SpareContexts::this_thread_bucket();
        });
        CHECK(b == again);
        CHECK(seen.insert(b).second);
    }
}

TEST_CASE("spare contexts: a thread does not take another thread's spare", "[spare]") {
    SpareContexts spares;
    void* p = mem::malloc(64);
    void* q = mem::malloc(64);
    REQUIRE((p != nullptr && q != nullptr));
    REQUIRE(spares.give(0, p));
    void* other_took = &spares;  // anything but null or p
    bool other_gave = false, ran = false;
    // Buckets go in turn: of two threads made one after the other, one has
    // another bucket than this thread's.
    const size_t mine = SpareContexts::this_thread_bucket();
    for (int attempt = 0; attempt < 2 && !ran; ++attempt)
        on_new_thread([&] {
            if (SpareContexts::this_thread_bucket() == mine) return;
            ran = true;
            other_took = spares.take(0);     // its bucket is empty: p is this thread's
            other_gave = spares.give(0, q);  // and its own slot was free
        });
    REQUIRE(ran);
    CHECK(other_took == nullptr);
    CHECK(other_gave);
    CHECK(spares.take(0) == p);
    CHECK(spares.take(0) == nullptr);
    CHECK(spares.free_all() == 1);  // q, in the other thread's bucket
    mem::free(p);
}

// Threads each taking a spare or making a context, holding it for a moment
// and giving it back: no context may be held by two threads at once, and
// every one made is either freed or still kept at the end.
TEST_CASE("spare contexts: threads never share a context", "[spare][threads]") {
    struct Block {
        std::atomic<int> holders{0};
    };
    SpareContexts spares;
    std::atomic<long> made{0}, freed{0}, shared{0};
    std::vector<std::thread> threads;
    // More threads than buckets, so that some share one.
    const int n = int(SpareContexts::kBuckets) + 4;
    for (int t = 0; t < n; ++t)
        threads.emplace_back([&, t] {
            for (int i = 0; i < 5000; ++i) {
                const size_t slot = size_t(i + t) % 3;
                void* m = spares.take(slot);
                if (m == nullptr) {
                    m = mem::malloc(sizeof(Block));
                    if (m == nullptr) continue;
                    new (m) Block;
                    ++made;
                }
                auto* b = static_cast<Block*>(m);
                if (b->holders.fetch_add(1) != 0) ++shared;
                if (i % 16 == 0) std::this_thread::yield();
                if (b->holders.fetch_sub(1) != 1) ++shared;
                if (!spares.give(slot, b)) {
                    mem::free(b);
                    ++freed;
                }
            }
        });
    for (auto& th : threads) th.join();
    CHECK(shared.load() == 0);
    CHECK(long(spares.free_all()) == made.load() - freed.load());
}
