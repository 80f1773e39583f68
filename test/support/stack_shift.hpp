// Runs a function with the stack pointer lowered by 16 * shift bytes more
// than otherwise. Functions that realign their frames (AVX-512 code, `and
// $-64, %rsp`) lay them out relative to the stack pointer's value mod 64,
// so a value one of them leaves below the stack may be overwritten by a
// later frame at one alignment and not at another: the residue tests run
// under every shift 0-3 so that what they find does not depend on where the
// test's own stack happens to start (the binary's path and environment move
// it).
#pragma once

#include <alloca.h>

#include <functional>

namespace hwaccel::test {

[[gnu::noinline]] inline void with_stack_shift(unsigned shift, const std::function<void()>& body) {
    volatile unsigned char* pad = static_cast<volatile unsigned char*>(alloca(16 * shift + 16));
    pad[0] = 0;
    body();
    pad[0] = 1;  // the area stays allocated until body returned
}

// body once under each shift 0-3 (the caller names the shift in its report).
inline void for_each_stack_shift(const std::function<void(unsigned)>& body) {
    for (unsigned shift = 0; shift < 4; ++shift) with_stack_shift(shift, [&] { body(shift); });
}

}  // namespace hwaccel::test
