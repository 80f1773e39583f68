// Catch2's implementation, compiled once per build and variant and linked
// into every test binary (it is about 15 s of compile time each time, and
// there were five copies). Two libraries are built from this file (see
// test/CMakeLists.txt): hwaccel_catch_session, and
// hwaccel_catch_session_no_signals with CATCH_CONFIG_NO_POSIX_SIGNALS for
// the binaries whose instruction models take SIGILL (test/zhaoxin/phe_main.cpp
// says why). Compiled at -O0: no test spends its time here.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "catch_session.hpp"

int hwaccel::test::run_catch_session(int argc, char** argv) {
    return Catch::Session().run(argc, argv);
}
