#!/usr/bin/env bash
# malloc failing inside the module's C++ runtime (operator new, std::string,
# the exception pool), where OpenSSL's allocator hooks (alloc_failure_tests)
# do not reach: for every such allocation of a load and first use, one run
# in which just that one fails. Each run must either work with the right
# answers or refuse with an OpenSSL error; no crash, no std::terminate (an
# exception out of the module), no wrong output. Also with HWACCEL_ENGINES
# set, whose parsing allocates.
#
# usage: cxx_allocation_failure_test.sh DRIVER SHIM MODULE_DIR
set -euo pipefail
driver=${1:?usage: cxx_allocation_failure_test.sh DRIVER SHIM MODULE_DIR}
shim=${2:?}
module_dir=${3:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

for engines in "" "sm4=generic,sha256=generic"; do
    label=${engines:-automatic engines}
    # The run without a failure: the answers, and how many calls to fail.
    baseline=$(HWACCEL_ENGINES=$engines HWACCEL_FAIL_MALLOC_COUNT=$tmp/count LD_PRELOAD=$shim "$driver" "$module_dir")
    calls=$(cat "$tmp/count")
    case $baseline in
        ok\ *) ;;
        *) echo "FAIL ($label): the run without failures printed: $baseline"; exit 1 ;;
    esac
    # Fewer than a few dozen would mean the shim saw nothing of the module.
    if [ "$calls" -lt 20 ]; then
        echo "FAIL ($label): only $calls allocations seen in hwaccel or libstdc++"
        exit 1
    fi
    refusals=0
    for ((n = 1; n <= calls; n++)); do
        set +e
        out=$(HWACCEL_ENGINES=$engines HWACCEL_FAIL_MALLOC_AT=$n LD_PRELOAD=$shim "$driver" "$module_dir" 2>&1)
        rc=$?
        set -e
        if [ $rc -ne 0 ]; then
            echo "FAIL ($label): allocation $n of $calls failing: exit $rc: $out"
            fail=1
        elif [ "$out" != "$baseline" ]; then
            case $out in
                refused*) refusals=$((refusals + 1)) ;;
                *) echo "FAIL ($label): allocation $n failing: '$out', without failures '$baseline'"; fail=1 ;;
            esac
        fi
    done
    # Failed allocations at load must stop the load: some runs refused.
    if [ $refusals -eq 0 ]; then
        echo "FAIL ($label): none of $calls failed allocations was refused"
        fail=1
    fi
    echo "$label: $calls allocations, each failed once: $refusals refused cleanly, the rest gave the right answers"
done
exit $fail
