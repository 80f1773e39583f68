#!/usr/bin/env bash
# ThreadSanitizer job: builds hwaccel.so and the threaded suites with
# -fsanitize=thread (HWACCEL_SANITIZE=thread) and runs them; a data race
# TSan sees in hwaccel.so or in the tests fails it (exit code 66), as does
# a failed check. Only what it runs is built (about a minute on 2 cores).
#   usage: scripts/tsan.sh [BUILD_DIR]      (default: build-tsan/)
# The suites: thread_race_tests (8 threads' first calls collide; loads and
# unloads racing with use; test/robustness/thread_race_test.cpp) and
# load_tests (32 threads under every engine selection, fork, reloads).
# libcrypto is Debian's, not instrumented: TSan sees its pthread locks
# (intercepted) but not its atomics; see docs/testing.md.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build-tsan}

cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHWACCEL_SANITIZE=thread >/dev/null
cmake --build "$dir" -j"$(nproc)" --target hwaccel thread_race_tests load_tests >/dev/null

# Every report, not just the first; exit code 66 if there was any.
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS }exitcode=66 second_deadlock_stack=1"
# GCC 12's TSan cannot map its shadow under more than 28 bits of mmap
# randomisation (newer kernels' default is 32): run without ASLR there.
run=()
if [ "$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo 28)" -gt 28 ]; then
    run=(setarch "$(uname -m)" -R)
fi
cd "$dir"
"${run[@]}" ctest --output-on-failure -R '^(thread_race_first_use|thread_race_tests|load_tests)$'
# Each run of [first-use] is a fresh process's first calls, interleaved
# differently: a few more (a third of a second each).
"${run[@]}" ctest --output-on-failure -R '^thread_race_first_use$' --repeat until-fail:10
