// OpenSSL's allocator replaced (CRYPTO_set_mem_functions) by one that can fail
// the Nth allocation, or every allocation from the Nth on, and counts the
// blocks still live. Install it first thing in main(): libcrypto refuses a
// new allocator once it has allocated anything.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hwaccel::test {

// Returns false if libcrypto had already allocated (too late to replace).
bool install_failing_allocator();

struct AllocationPlan {
    long fail_at = 0;         // 1-based index of the allocation to fail; 0: none
    bool and_after = false;   // also fail every allocation after fail_at
};

// Starts counting allocations from zero under `plan`.
void arm(const AllocationPlan& plan);
// Stops failing (counting continues to be readable).
void disarm();

// Allocations (malloc, and realloc to a non-zero size) attempted since arm().
long allocations_since_arm();
// Whether any allocation was refused since arm().
bool refused_since_arm();

// The allocations refused since the last take_refusals() (or arm()): how
// many, where the first came from ("file:line" as libcrypto or the provider
// passed it), and whether any came from a file under `provider_prefix`.
struct Refusals {
    long count = 0;
    std::string first_site;
    bool in_provider = false;
};
void set_provider_source(const char* provider_prefix);
Refusals take_refusals();

// Every block freed from now on is searched for `bytes` (empty: none);
// the allocation site ("file:line") of the first freed block that held
// them, or "" if none did since the last watch_freed_blocks_for.
void watch_freed_blocks_for(const std::string& bytes);
std::string freed_block_holding_watched();

// Several byte strings, each with a name for the report: every block freed
// from now on is searched for each; freed_block_holding_watched() then says
// "NAME in file:line" of the first found.
struct Watched {
    std::string name;
    std::string bytes;
};
void watch_freed_blocks_for(const std::vector<Watched>& patterns);

// The counted blocks still live that were allocated after `serial`
// (allocation_serial()), searched for each pattern: "NAME in file:line" of
// the first found, or "".
std::string live_block_holding(long serial, const std::vector<Watched>& patterns);

// Blocks currently allocated through OpenSSL's allocator, except those of
// the error queue's own buffers (libcrypto keeps them for reuse).
long live_blocks();

// A number that grows with every allocation, and the sites ("file:line") of
// counted blocks allocated after `serial` that are still live (at most `max`).
long allocation_serial();
std::string live_sites_after(long serial, size_t max = 8);

}  // namespace hwaccel::test
