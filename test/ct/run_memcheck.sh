#!/usr/bin/env bash
# Runs a constant-time check under valgrind's memcheck, with valgrind found
# on PATH now, when the test runs.
#   run_memcheck.sh [valgrind options...] BINARY
#   run_memcheck.sh --missing REASON      (the check could not be built)
# Without valgrind the check FAILS (exit 1), unless HWACCEL_ALLOW_CT_SKIP=1
# says skipping is acceptable: then it exits 77 (CTest's SKIP_RETURN_CODE).
# Nothing but bash builtins runs before valgrind is found, so a PATH without
# valgrind (or without anything) reaches the rule below.
unavailable() {
    if [ "${HWACCEL_ALLOW_CT_SKIP:-}" = 1 ]; then
        echo "SKIPPED (HWACCEL_ALLOW_CT_SKIP=1): $1"
        exit 77
    fi
    echo "FAIL: $1, so the constant-time memcheck check cannot run;"
    echo "install valgrind (apt-get install valgrind) or set HWACCEL_ALLOW_CT_SKIP=1 to accept skipping it"
    exit 1
}

if [ "${1:-}" = --missing ]; then
    unavailable "$2"
fi
valgrind=$(command -v valgrind) || unavailable "valgrind is not on PATH"
exec "$valgrind" "$@"
