#include "support/guarded_buffer.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace hwaccel::test {

size_t GuardedBuffer::page_size() {
    static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    return size;
}

GuardedBuffer::GuardedBuffer(size_t capacity) {
    const size_t page = page_size();
    size_ = (capacity + page - 1) / page * page;
    if (size_ == 0) size_ = page;
    map_size_ = size_ + 2 * page;
    void* p = mmap(nullptr, map_size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mmap");
    map_ = static_cast<uint8_t*>(p);
    begin_ = map_ + page;
    if (mprotect(map_, page, PROT_NONE) != 0 || mprotect(begin_ + size_, page, PROT_NONE) != 0) {
        int err = errno;
        release();
        throw std::system_error(err, std::generic_category(), "mprotect");
    }
}

GuardedBuffer::~GuardedBuffer() { release(); }

GuardedBuffer::GuardedBuffer(GuardedBuffer&& other) noexcept
    : map_(std::exchange(other.map_, nullptr)),
      map_size_(std::exchange(other.map_size_, 0)),
      begin_(std::exchange(other.begin_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

GuardedBuffer& GuardedBuffer::operator=(GuardedBuffer&& other) noexcept {
    if (this != &other) {
        release();
        map_ = std::exchange(other.map_, nullptr);
        map_size_ = std::exchange(other.map_size_, 0);
        begin_ = std::exchange(other.begin_, nullptr);
        size_ = std::exchange(other.size_, 0);
    }
    return *this;
}

void GuardedBuffer::release() noexcept {
    if (map_ != nullptr) munmap(map_, map_size_);
    map_ = nullptr;
    begin_ = nullptr;
}

uint8_t* GuardedBuffer::tail(size_t len, size_t gap) const {
    if (len > size_ || gap > size_ - len) throw std::length_error("GuardedBuffer::tail: too long");
    return end() - gap - len;
}

uint8_t* GuardedBuffer::tail_misaligned(size_t len, size_t misalign, size_t alignment) const {
    if (alignment == 0 || page_size() % alignment != 0 || misalign >= alignment)
        throw std::invalid_argument("GuardedBuffer::tail_misaligned: bad alignment");
    // end() is page aligned, so the start's residue depends only on len + gap.
    size_t residue = (alignment - len % alignment) % alignment;  // of end() - len
    size_t gap = (residue + alignment - misalign) % alignment;
    return tail(len, gap);
}

uint8_t* GuardedBuffer::place(const uint8_t* src, size_t len, size_t gap) const {
    uint8_t* dst = tail(len, gap);
    if (len != 0) std::memcpy(dst, src, len);
    return dst;
}

uint8_t* GuardedBuffer::place_misaligned(const uint8_t* src, size_t len, size_t misalign,
                                         size_t alignment) const {
    uint8_t* dst = tail_misaligned(len, misalign, alignment);
    if (len != 0) std::memcpy(dst, src, len);
    return dst;
}

}  // namespace hwaccel::test
