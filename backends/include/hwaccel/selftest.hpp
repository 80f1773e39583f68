// Known-answer self-tests, run on an engine before the provider serves it, as
// the Linux kernel's crypto manager tests each implementation before it
// registers it. Each family's test covers one block and many blocks in one
// call (the engine's bulk path), and every optional member the engine has.
// No OpenSSL here: the expected values are third-party vectors or digests of
// fixed inputs computed once with the openssl CLI (see selftest_*.cpp).
#pragma once

#include <string>

#include "hwaccel/engines.hpp"

namespace hwaccel {

// Empty when the engine computes every known answer, else the first check it
// got wrong, e.g. "ctr on 77 blocks". Each engine runs its tests once per
// process (thread-safe); later calls return the stored result, so loading
// the provider into many library contexts does not repeat them.
std::string self_test(const Sha1Engine& engine);
std::string self_test(const Sha256Engine& engine);
std::string self_test(const KeccakEngine& engine);
std::string self_test(const Sm4Engine& engine);
std::string self_test(const GhashEngine& engine);

// The same tests, run now and not stored (for tests of the tests, which
// build deliberately broken engines).
std::string known_answers(const Sha1Engine& engine);
std::string known_answers(const Sha256Engine& engine);
std::string known_answers(const KeccakEngine& engine);
std::string known_answers(const Sm4Engine& engine);
std::string known_answers(const GhashEngine& engine);

}  // namespace hwaccel
