// The time stamp counter read so that it measures the instructions before
// it: RDTSC does not wait for earlier instructions, so an unfenced closing
// read can run while the timed call's last dependent rounds are still in
// flight, and those cycles land in whatever is timed next. With a fixed
// order of implementations that is a steady bias, not noise (about 100
// ticks a batch on Zen 5: the kernel's SHA-256, timed twice in a row,
// came out at 1.02-1.03x of itself). LFENCE before waits for them; LFENCE
// after keeps the timed work from starting before the read.
#pragma once

#include <x86intrin.h>

#include <cstdint>

inline uint64_t fenced_tsc() {
    _mm_lfence();
    const uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
}
