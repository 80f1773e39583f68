#!/usr/bin/env bash
# Huge inputs through hwaccel, compared with OpenSSL's default provider
# (test/robustness/huge_inputs_test.cpp): every digest over more than 4 GiB
# streamed and in one update, SM4-CTR over 3 GiB across a 2^32-block counter
# wrap. Not part of scripts/test.sh: it takes minutes (see README).
#
#   scripts/huge-inputs.sh [BUILD_DIR] [Catch2 test filter]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build}
shift || true
[ -f "$dir/CMakeCache.txt" ] || cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$dir" --target hwaccel_huge_inputs_tests -j"$(nproc)"
start=$(date +%s)
"$dir/test/robustness/huge_inputs_tests" --durations yes "$@"
echo "huge inputs: passed in $(( $(date +%s) - start )) s"
