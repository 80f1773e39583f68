#include "failing_allocator.hpp"

#include <openssl/crypto.h>

#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string.h>  // memmem

namespace hwaccel::test {

namespace {

// Every block carries a header: its size (for realloc) and whether it counts
// as live (error-queue buffers do not: libcrypto keeps them across
// ERR_clear_error for reuse, so they are not leaks of the code under test).
// Live blocks are linked, so that a leak can be reported by its allocation
// site.
struct alignas(16) Header {
    Header* prev;
    Header* next;
    const char* file;
    int line;
    bool counted;
    long serial;
    size_t size;
};

struct State {
    AllocationPlan plan;
    bool armed = false;
    long attempts = 0;
    bool refused = false;
    long step_count = 0;  // refusals since take_refusals()
    char step_site[256] = "";
    bool step_in_provider = false;
    const char* provider_prefix = nullptr;
    std::vector<Watched> watched;  // byte strings looked for in every freed block
    std::string watched_found_at;  // what was found, and the "file:line" of the freed block
    long live = 0;
    long serial = 0;
    Header list{&list, &list, nullptr, 0, false, 0, 0};  // sentinel of the live blocks
};
State state;

void link(Header* h) {
    h->prev = state.list.prev;
    h->next = &state.list;
    state.list.prev->next = h;
    state.list.prev = h;
}
void unlink(Header* h) {
    h->prev->next = h->next;
    h->next->prev = h->prev;
}

bool is_error_queue(const char* file) { return file != nullptr && std::strstr(file, "crypto/err/") != nullptr; }

// Decides whether this allocation attempt fails; records where it came from.
bool refuse(const char* file, int line) {
    if (!state.armed) return false;
    ++state.attempts;
    bool fail = state.plan.fail_at > 0 &&
                (state.attempts == state.plan.fail_at ||
                 (state.plan.and_after && state.attempts > state.plan.fail_at));
    if (fail) {
        state.refused = true;
        if (state.step_count++ == 0)
            std::snprintf(state.step_site, sizeof state.step_site, "%s:%d", file ? file : "?", line);
        const char* prefix = state.provider_prefix;
        if (prefix && file && std::strncmp(file, prefix, std::strlen(prefix)) == 0) state.step_in_provider = true;
    }
    return fail;
}

void* block_of(Header* h) { return h + 1; }
Header* header_of(void* p) { return static_cast<Header*>(p) - 1; }

// "NAME in file:line" if the block holds one of the patterns, else "".
std::string block_holding(Header* h, const std::vector<Watched>& patterns) {
    for (const Watched& w : patterns) {
        if (w.bytes.empty() || memmem(block_of(h), h->size, w.bytes.data(), w.bytes.size()) == nullptr) continue;
        const std::string site = std::string(h->file ? h->file : "?") + ":" + std::to_string(h->line);
        return w.name.empty() ? site : w.name + " in " + site;
    }
    return "";
}

void* failing_malloc(size_t n, const char* file, int line) {
    if (refuse(file, line)) return nullptr;
    auto* h = static_cast<Header*>(std::malloc(sizeof(Header) + n));
    if (h == nullptr) return nullptr;
    h->file = file;
    h->line = line;
    h->serial = ++state.serial;
    h->size = n;
    h->counted = !is_error_queue(file);
    if (h->counted) ++state.live;
    link(h);
    return block_of(h);
}

void failing_free(void* p, const char*, int) {
    if (p == nullptr) return;
    Header* h = header_of(p);
    if (h->counted) --state.live;
    if (!state.watched.empty() && state.watched_found_at.empty())
        state.watched_found_at = block_holding(h, state.watched);
    unlink(h);
    std::free(h);
}

void* failing_realloc(void* p, size_t n, const char* file, int line) {
    if (p == nullptr) return failing_malloc(n, file, line);
    if (n == 0) {
        failing_free(p, file, line);
        return nullptr;
    }
    if (refuse(file, line)) return nullptr;  // the old block stays valid
    Header* old = header_of(p);
    unlink(old);
    auto* h = static_cast<Header*>(std::realloc(old, sizeof(Header) + n));
    if (h == nullptr) {
        link(old);
        return nullptr;
    }
    h->size = n;
    link(h);
    return block_of(h);
}

}  // namespace

bool install_failing_allocator() {
    return CRYPTO_set_mem_functions(failing_malloc, failing_realloc, failing_free) == 1;
}

void arm(const AllocationPlan& plan) {
    state.plan = plan;
    state.attempts = 0;
    state.refused = false;
    take_refusals();
    state.armed = true;
}

void disarm() { state.armed = false; }

long allocations_since_arm() { return state.attempts; }
bool refused_since_arm() { return state.refused; }

void set_provider_source(const char* provider_prefix) { state.provider_prefix = provider_prefix; }

Refusals take_refusals() {
    Refusals r;
    r.count = state.step_count;
    r.first_site = state.step_site;
    r.in_provider = state.step_in_provider;
    state.step_count = 0;
    state.step_site[0] = '\0';
    state.step_in_provider = false;
    return r;
}

void watch_freed_blocks_for(const std::string& bytes) {
    watch_freed_blocks_for(bytes.empty() ? std::vector<Watched>{} : std::vector<Watched>{{"", bytes}});
}
void watch_freed_blocks_for(const std::vector<Watched>& patterns) {
    state.watched = patterns;
    state.watched_found_at.clear();
}

std::string live_block_holding(long serial, const std::vector<Watched>& patterns) {
    for (Header* h = state.list.next; h != &state.list; h = h->next) {
        if (!h->counted || h->serial <= serial) continue;
        const std::string found = block_holding(h, patterns);
        if (!found.empty()) return found;
    }
    return "";
}
std::string freed_block_holding_watched() { return state.watched_found_at; }

long live_blocks() { return state.live; }

long allocation_serial() { return state.serial; }

std::string live_sites_after(long serial, size_t max) {
    std::string out;
    size_t n = 0;
    for (Header* h = state.list.next; h != &state.list && n < max; h = h->next) {
        if (!h->counted || h->serial <= serial) continue;
        out += std::string(n++ ? ", " : "") + (h->file ? h->file : "?") + ":" + std::to_string(h->line);
    }
    return out;
}

}  // namespace hwaccel::test
