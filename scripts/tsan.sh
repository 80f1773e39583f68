#!/usr/bin/env bash
# ThreadSanitizer job: builds hwaccel.so and the threaded suites with
# -fsanitize=thread (HWACCEL_SANITIZE=thread) and runs them; a data race
# TSan sees in hwaccel.so or in the tests fails it (exit code 66), as does
# a failed check. Only what it runs is built (about a minute on 2 cores).
#   usage: scripts/tsan.sh [BUILD_DIR [OPENSSL_PREFIX]]   (default: build-tsan/)
# With OPENSSL_PREFIX (an OpenSSL 3.x install with lib/libcrypto.so.3, e.g.
# from scripts/openssl-release.sh 3.5) the suites run in that libcrypto
# instead of the system's (hwaccel.so and the tests stay built against the
# system's headers): newer releases take other paths (RCU, hash tables).
# The suites: thread_race_tests (8 threads' first calls collide; loads and
# unloads racing with use; test/robustness/thread_race_test.cpp) and
# load_tests (32 threads under every engine selection, fork, reloads).
# libcrypto is not instrumented: TSan sees its pthread locks
# (intercepted) but not its atomics; see docs/testing.md.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build-tsan}
prefix=${2:-}

cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHWACCEL_SANITIZE=thread >/dev/null
cmake --build "$dir" -j"$(nproc)" --target hwaccel hwaccel_thread_race_tests hwaccel_load_tests >/dev/null
dir=$(cd "$dir" && pwd)

# Every report, not just the first; exit code 66 if there was any. The
# suppressions are libcrypto's false positives only, each with its reason.
export TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS }exitcode=66 second_deadlock_stack=1 suppressions=$top/test/tsan/suppressions.txt"
# The suites run directly, not through ctest: an LD_LIBRARY_PATH for them
# would reach ctest's own libraries (libcurl, libssh2) too.
run=()
if [ -n "$prefix" ]; then
    run=(env "LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
    # The suites must really be running in that libcrypto.
    libs=$("${run[@]}" ldd "$dir/test/robustness/thread_race_tests")
    grep -q "=> $prefix/lib/libcrypto.so.3 " <<<"$libs" || {
        echo "tsan.sh: $prefix/lib/libcrypto.so.3 is not what the tests load" >&2
        exit 1
    }
fi
# GCC 12's TSan cannot map its shadow under more than 28 bits of mmap
# randomisation (newer kernels' default is 32; /proc/sys/vm/mmap_rnd_bits,
# which only root may read): run without ASLR whenever setarch can.
if setarch "$(uname -m)" -R true 2>/dev/null; then
    run+=(setarch "$(uname -m)" -R)
elif [ "$(cat /proc/sys/vm/mmap_rnd_bits 2>/dev/null || echo unknown)" != 28 ]; then
    echo "tsan.sh: cannot turn ASLR off (setarch -R refused); GCC 12's TSan may fail to start" \
         "with more than 28 bits of mmap randomisation" >&2
fi
failed=0
suite() {  # suite NAME EXECUTABLE [CATCH ARGS...]
    local name=$1 exe=$dir/test/robustness/$2 rc=0
    shift 2
    "${run[@]}" "$exe" "$@" >"$dir/tsan-$name.log" 2>&1 || rc=$?
    if [ "$rc" != 0 ]; then
        cat "$dir/tsan-$name.log"
        echo "FAILED: $name (exit $rc${prefix:+, libcrypto from $prefix})"
        failed=1
    fi
}
suite load load_tests
suite reload thread_race_tests "~[first-use]"
# [first-use] alone in its process (its calls must be the process's first
# into hwaccel), and again: other interleavings of the first calls.
for i in $(seq 11); do suite "first-use-$i" thread_race_tests "[first-use]"; done
[ "$failed" = 0 ] && echo "tsan.sh: no races${prefix:+ (libcrypto from $prefix)}"
exit "$failed"
