// Addresses in a register or stack dump. A call leaves return addresses and
// pushed pointers below the stack pointer; their randomised bytes can spell a
// secret word by chance (clang's vaes-avx2 CFB decryption: a return address
// into the test's thunk, bytes f1 00 cb, beside a pointer's zero top byte,
// matched a round-key word in about one run in 4,096). An 8-byte slot whose
// value points into memory this process maps is an address, not a secret:
// masked to zero before the search. A spilled secret lands in a mapping with
// a chance of about 2^-34.
#pragma once

#if defined(__x86_64__) || defined(__aarch64__) || defined(__s390x__)

#include <cstddef>
#include <cstdint>

#include "support/vector_register_dump.hpp"

namespace hwaccel::test {

// True if v lies in a mapping of /proc/self/maps (read once).
bool is_mapped_address(uint64_t v);

// Zeroes the 8-byte slots of d that hold mapped addresses: GPRs one by one, a
// stack dump in slots aligned to its end (the stack pointer at the call).
void mask_mapped_addresses(VectorRegisterDump& d);

}  // namespace hwaccel::test

#endif
