#!/usr/bin/env bash
# Builds the libFuzzer targets (clang++-14, ASan+UBSan; test/fuzz) and runs
# every target for every engine selection this CPU supports, each for the
# given number of seconds, starting from the seed corpus test/fuzz/corpus/.
#   usage: scripts/fuzz.sh [SECONDS_PER_RUN] [BUILD_DIR]      (default: 10, build-fuzz/)
# Engines this CPU lacks but an in-process model provides are fuzzed under
# the model (Zhaoxin PHE: HWACCEL_TEST_CPU=+phe,-sha_ni, test-only module).
# New corpus entries go to BUILD_DIR/fuzz-corpus/, crashes to
# BUILD_DIR/fuzz-artifacts/; a crash or a mismatch fails the script.
# Environment: FUZZ_TARGETS="sha_fuzz sm4_fuzz" limits the targets;
# FUZZ_NO_BUILD=1 skips the build; FUZZ_LOG=FILE appends each run's final libFuzzer statistics there;
# FUZZ_SANITIZERS=undefined builds without ASan (for long campaigns: several
# times the executions per second; use its own BUILD_DIR); FUZZ_FLAGS="-max_len=512"
# adds libFuzzer flags to every run; FUZZ_ONLY=REGEX keeps the engine selections
# that match it (e.g. "gfni|avx512"; the PHE model runs only without it).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-10}
dir=${2:-$top/build-fuzz}
known_targets="sha_fuzz sha3_fuzz sm4_fuzz aead_fuzz dispatch_fuzz"
targets=${FUZZ_TARGETS:-$known_targets}
# A misspelt target would otherwise run nothing and still report no findings.
for target in $targets; do
    if [[ " $known_targets " != *" $target "* ]]; then
        echo "fuzz.sh: unknown target '$target' (known: $known_targets; FUZZ_TARGETS is space-separated)" >&2
        exit 2
    fi
done

if [ -z "${FUZZ_NO_BUILD:-}" ]; then  # FUZZ_NO_BUILD=1: run what is built
    CXX=clang++-14 cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHWACCEL_FUZZ=ON \
        -DHWACCEL_FUZZ_SANITIZERS="${FUZZ_SANITIZERS:-address,undefined}" >/dev/null
    cmake --build "$dir" --target hwaccel_fuzz_targets hwaccel-engines -j"$(nproc)" >/dev/null
fi

# "family engine" for every engine this CPU can run.
available=$("$dir/tools/hwaccel-engines" | awk '
    /^[a-z0-9]+ +\(/ { family = $1 }
    / available$/    { print family, ($1 == "*" ? $2 : $1) }')

families_of() {
    case $1 in
        sha_fuzz) echo "sha1 sha256" ;;
        sha3_fuzz) echo "sha3" ;;
        sm4_fuzz) echo "sm4" ;;
        aead_fuzz) echo "sm4 ghash" ;;  # GCM runs both; CCM and XTS the SM4 engine
        dispatch_fuzz) echo "sha1 sha256 sha3 sm4" ;;
    esac
}

# One selection per engine name: that engine for every family of the target
# that has it, e.g. "sha1=generic,sha256=generic".
selections_of() {
    local families=" $(families_of "$1") "
    echo "$available" | while read -r family engine; do
        [[ $families == *" $family "* ]] && echo "$engine $family=$engine"
    done | awk '{ sel[$1] = sel[$1] ? sel[$1] "," $2 : $2 } END { for (e in sel) print sel[e] }' | sort
}

mkdir -p "$dir/fuzz-artifacts"
run() {  # target selection [extra environment...]
    local target=$1 selection=$2
    shift 2
    local corpus="$dir/fuzz-corpus/$target" seeds="$top/test/fuzz/corpus/$target"
    mkdir -p "$corpus" "$seeds"
    echo "== $target HWACCEL_ENGINES=$selection $* (${seconds}s)"
    local out
    if ! out=$(env "$@" HWACCEL_ENGINES="$selection" \
            ASAN_OPTIONS="${ASAN_OPTIONS:-malloc_context_size=4:quarantine_size_mb=16}" \
            UBSAN_OPTIONS=print_stacktrace=1 \
            "$dir/test/fuzz/$target" -max_total_time="$seconds" -timeout=60 -print_final_stats=1 ${FUZZ_FLAGS:-} \
            -print_funcs=0 -artifact_prefix="$dir/fuzz-artifacts/$target-" "$corpus" "$seeds" 2>&1); then
        echo "$out" | tail -60
        echo "FAILED: $target with HWACCEL_ENGINES=$selection $*" >&2
        exit 1
    fi
    local stats
    stats=$(echo "$out" | grep -E '^#[0-9]+[[:space:]]+DONE' | tail -1 || true)
    echo "   $stats"
    echo "$out" | grep '^phe model:' | sed 's/^/   /' || true
    if [ -n "${FUZZ_LOG:-}" ]; then
        echo "$(date -u +%FT%TZ) $target HWACCEL_ENGINES=$selection $* | $stats |" \
            "$(echo "$out" | grep -E '^stat::(number_of_executed_units|average_exec_per_sec)' | tr "\n" " " || true)" >>"$FUZZ_LOG"
    fi
}

total_runs=0
for target in $targets; do
    runs=0
    while read -r selection; do
        run "$target" "$selection"
        runs=$((runs + 1))
    done < <(selections_of "$target" | grep -E "${FUZZ_ONLY:-.}" || true)
    # Zhaoxin PHE under its instruction model, where the CPU has no PHE.
    if [ -z "${FUZZ_ONLY:-}" ] && [[ $target == sha_fuzz || $target == dispatch_fuzz ]] && [ "$(uname -m)" = x86_64 ] &&
            ! echo "$available" | grep -q ' phe$'; then
        run "$target" "sha1=phe,sha256=phe" HWACCEL_TEST_CPU=+phe,-sha_ni
        runs=$((runs + 1))
    fi
    # FUZZ_ONLY may leave a target out; with none, every target has an engine.
    if [ "$runs" -eq 0 ] && [ -z "${FUZZ_ONLY:-}" ]; then
        echo "fuzz.sh: no engine selection ran for $target" >&2
        exit 2
    fi
    [ "$runs" -eq 0 ] && echo "== $target: no selection matches FUZZ_ONLY='$FUZZ_ONLY'"
    total_runs=$((total_runs + runs))
done
if [ "$total_runs" -eq 0 ]; then
    echo "fuzz.sh: nothing ran (FUZZ_ONLY='${FUZZ_ONLY:-}' matches no engine selection)" >&2
    exit 2
fi
echo "== fuzzing: no findings"
