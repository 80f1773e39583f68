// Runs Catch2's session: the test mains call this instead of compiling
// Catch's implementation themselves (catch_session.cpp, once per variant).
#pragma once

namespace hwaccel::test {

int run_catch_session(int argc, char** argv);

}  // namespace hwaccel::test
