#!/usr/bin/env bash
# Line and branch coverage of provider/ and backends/ by the native test
# suites (ctest of one build against the system's OpenSSL 3.0), as a summary
# and an HTML report: where the tests do not reach.
#
# usage: scripts/coverage.sh [BUILD_DIR]   (default /tmp/hwaccel-coverage)
#
# The build is -O0 with gcov instrumentation (Debug: engines and tests
# alike, so every suite sees an unoptimised build and treats its frames as
# instrumented, as under the sanitizers). Left out of the run: the checks
# that must fail on Release's code generation (phe_rdi_input_only_*), the
# static-library consumers, which link without gcov, and the constant-time
# trace, whose step budget is sized for optimised code. Not counted here, so
# lower than the whole test command reaches: the suites of OpenSSL 3.5/3.6/
# 4.0 (release-specific branches such as repeated-parameter refusals), the
# s390x and arm64 cross suites (CPACF, the Keccak one-shot sponge) and the
# fuzz targets. About 15 minutes on 2 idle cores (28 under load).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-/tmp/hwaccel-coverage}

if ! command -v gcovr >/dev/null; then
    apt-get install -y gcovr >/dev/null
fi

flags="-O0 -g --coverage -fprofile-update=atomic"
cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage \
    -DCMAKE_MODULE_LINKER_FLAGS=--coverage >/dev/null
cmake --build "$dir" -j"$(nproc)" >/dev/null
find "$dir" -name '*.gcda' -delete

status=0
(cd "$dir" && ctest -j"$(nproc)" --timeout 1800 -E '^static_|^phe_rdi_input_only_|^sm4_constant_time_trace$' >"$dir/ctest.log" 2>&1) ||
    { status=1; tail -n 20 "$dir/ctest.log"; echo "coverage.sh: some suites failed (log: $dir/ctest.log)"; }

# Both reports from one pass over the counters. Throw branches (C++
# exception edges) and those the compiler proved dead are not branches a
# test could take.
mkdir -p "$dir/coverage"
common=(-r "$top" --object-directory "$dir" -f "$top/provider/" -f "$top/backends/"
        --exclude-throw-branches --exclude-unreachable-branches --gcov-ignore-parse-errors -j"$(nproc)")
gcovr "${common[@]}" --sort-percentage --txt "$dir/coverage/lines.txt" \
    --html-details "$dir/coverage/index.html" --print-summary 2>/dev/null | tail -n 3
gcovr "${common[@]}" --sort-percentage --branches --txt "$dir/coverage/branches.txt" 2>/dev/null
echo "per file: $dir/coverage/lines.txt, $dir/coverage/branches.txt; HTML: $dir/coverage/index.html"
exit $status
