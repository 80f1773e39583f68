// The main of the test binaries that need nothing before their tests run.
#include "catch_session.hpp"

int main(int argc, char** argv) { return hwaccel::test::run_catch_session(argc, argv); }
