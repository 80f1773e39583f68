#!/usr/bin/env bash
# The constant-time checks' missing-tool rule: a check whose tool is missing
# fails, unless HWACCEL_ALLOW_CT_SKIP=1 (exactly "1") allows it to skip.
#   missing_tools_test.sh RUN_MEMCHECK SM4_CT_CHECK|none SM4_CT_TRACE|none WITHOUT_PTRACE|none
# valgrind is taken away with a PATH of an empty directory, ptrace with a
# seccomp filter (without_ptrace). Controls: with valgrind on PATH the runner
# does run it, and the wrapper alone runs a command normally.
set -u
run_memcheck=$1 check=$2 trace=$3 without_ptrace=$4
bash=$(command -v bash)
empty=$(mktemp -d)
trap 'rmdir "$empty"' EXIT
failed=0

# expect EXIT_CODE REGEX DESCRIPTION COMMAND...
expect() {
    local want=$1 pattern=$2 what=$3
    shift 3
    local out rc
    out=$("$@" 2>&1)
    rc=$?
    if [ "$rc" -eq "$want" ] && grep -Eq "$pattern" <<<"$out"; then
        echo "ok: $what (exit $rc)"
    else
        echo "FAILED: $what: exit $rc, expected $want and /$pattern/; output:"
        sed 's/^/    /' <<<"$out" | head -20
        failed=1
    fi
}

target=${check/#none/\/nonexistent-sm4-ct-check}
expect 1 "^FAIL: valgrind is not on PATH" "memcheck check without valgrind fails" \
    env -u HWACCEL_ALLOW_CT_SKIP PATH="$empty" "$bash" "$run_memcheck" --error-exitcode=1 "$target"
expect 77 "^SKIPPED \(HWACCEL_ALLOW_CT_SKIP=1\): valgrind is not on PATH" \
    "memcheck check without valgrind skips with HWACCEL_ALLOW_CT_SKIP=1" \
    env HWACCEL_ALLOW_CT_SKIP=1 PATH="$empty" "$bash" "$run_memcheck" --error-exitcode=1 "$target"
expect 1 "^FAIL: valgrind is not on PATH" "HWACCEL_ALLOW_CT_SKIP=0 is no opt-out" \
    env HWACCEL_ALLOW_CT_SKIP=0 PATH="$empty" "$bash" "$run_memcheck" --error-exitcode=1 "$target"
expect 1 "^FAIL: valgrind/memcheck.h" "memcheck check that could not be built fails" \
    env -u HWACCEL_ALLOW_CT_SKIP "$bash" "$run_memcheck" --missing "valgrind/memcheck.h was not found"
expect 77 "^SKIPPED" "memcheck check that could not be built skips with HWACCEL_ALLOW_CT_SKIP=1" \
    env HWACCEL_ALLOW_CT_SKIP=1 "$bash" "$run_memcheck" --missing "valgrind/memcheck.h was not found"
if command -v valgrind >/dev/null; then
    expect 0 "^valgrind-" "control: with valgrind on PATH the runner runs it" \
        env -u HWACCEL_ALLOW_CT_SKIP "$bash" "$run_memcheck" --version
else
    echo "note: valgrind is not installed here, so its control is not run"
fi

if [ "$trace" != none ]; then
    expect 0 "" "control: the seccomp wrapper runs a command" "$without_ptrace" true
    expect 1 "^FAIL: ptrace is not permitted here" "trace check without ptrace fails" \
        env -u HWACCEL_ALLOW_CT_SKIP "$without_ptrace" "$trace" generic
    expect 77 "^SKIPPED \(HWACCEL_ALLOW_CT_SKIP=1\): ptrace is not permitted here" \
        "trace check without ptrace skips with HWACCEL_ALLOW_CT_SKIP=1" \
        env HWACCEL_ALLOW_CT_SKIP=1 "$without_ptrace" "$trace" generic
fi
exit $failed
