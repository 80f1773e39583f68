// Memory bounded by PROT_NONE guard pages, so that reading or writing even one
// byte past either end faults at once (the user-space version of the kernel
// hash test template's guard page; see HARDWARE.md section 6). This catches
// over-reads in code that ASan cannot see into, such as inline asm or
// instructions executed by the CPU on our behalf.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwaccel::test {

class GuardedBuffer {
public:
    // At least `capacity` usable bytes (rounded up to whole pages), with an
    // inaccessible page directly before and directly after them. The usable
    // bytes start zeroed. Throws std::system_error if mmap/mprotect fail.
    explicit GuardedBuffer(size_t capacity);
    ~GuardedBuffer();
    GuardedBuffer(GuardedBuffer&& other) noexcept;
    GuardedBuffer& operator=(GuardedBuffer&& other) noexcept;
    GuardedBuffer(const GuardedBuffer&) = delete;
    GuardedBuffer& operator=(const GuardedBuffer&) = delete;

    // Usable size (a whole number of pages).
    size_t size() const { return size_; }
    // First usable byte: the byte before it is in the leading guard page.
    uint8_t* begin() const { return begin_; }
    // First byte of the trailing guard page (one past the last usable byte).
    uint8_t* end() const { return begin_ + size_; }

    // `len` bytes ending `gap` bytes before the trailing guard page; with
    // gap = 0 the byte after them is unmapped. Throws if they do not fit.
    uint8_t* tail(size_t len, size_t gap = 0) const;

    // `len` bytes starting at an address that is `misalign` (0..alignment-1)
    // bytes past a multiple of `alignment`, placed as near the trailing guard
    // page as that allows (fewer than `alignment` bytes before it).
    uint8_t* tail_misaligned(size_t len, size_t misalign, size_t alignment = 64) const;

    // Copies src to tail(len, gap) and returns where it went.
    uint8_t* place(const uint8_t* src, size_t len, size_t gap = 0) const;
    // Copies src to tail_misaligned(len, misalign, alignment).
    uint8_t* place_misaligned(const uint8_t* src, size_t len, size_t misalign,
                              size_t alignment = 64) const;

    static size_t page_size();

private:
    void release() noexcept;

    uint8_t* map_ = nullptr;  // whole mapping, guards included
    size_t map_size_ = 0;
    uint8_t* begin_ = nullptr;
    size_t size_ = 0;
};

}  // namespace hwaccel::test
