#!/usr/bin/env bash
# IBM Z (s390x, big-endian) cross build and emulated run; part of README's
# test command (scripts/test.sh).
#
#   1. Installs, from Debian's packages, what is missing: g++-s390x-linux-gnu,
#      qemu-user-static (qemu-s390x-static), cmake, make, pkg-config, catch2.
#   2. Configures BUILD_DIR (default build-s390x/) with
#      cmake/s390x-toolchain.cmake and HWACCEL_BUILD_PROVIDER=OFF (no OpenSSL
#      for s390x is needed) and builds s390x_tests: the portable and CPACF
#      engines (hwaccel_backends_testing), the backend suites of
#      test/backends, the CPACF instruction model and the s390x tests.
#   3. Runs it under qemu-s390x-static:
#      a. "~[s390x]" as is: qemu reports no CPACF SHA codes, so the backend
#         suites (what backend_tests runs) see only the portable engines
#         (SHA-1, SHA-256, Keccak, SM4), each with its full suite: the
#         big-endian proof.
#      b. HWACCEL_TEST_CPU claiming every CPACF feature: the CPACF engines run
#         the whole digest suite and the GHASH suite (KIMD-GHASH) under the
#         KIMD/KLMD instruction model
#         (test/s390x), which completes only part of the work on every 5th
#         trap (cc 3), next to the model's own tests and the s390x engine and
#         detection tests. Skipped here because run a covers them: [sm4] (no
#         CPACF SM4 engine) and the full NIST Monte Carlo case [monte], which for
#         the CPACF engines is replaced by its first 10 of 100 checkpoints
#         ([monte-reduced]).
#      c. "[s390x],[differential]" claiming only cpacf-sha3: the choice per
#         function code (SHAKE128's rate stays in software).
#      d. With OpenSSL for s390x (default; --no-evp skips it): Debian's s390x
#         libssl3 and libssl-dev, fetched with apt-get download through a
#         private apt state under BUILD_DIR (the host's dpkg architectures
#         and package lists stay untouched) and unpacked with dpkg -x into
#         the staging tree; then hwaccel.so is built for s390x and the EVP
#         suites (test/provider) run over the test-only module with every
#         CPACF feature claimed and the model installed (s390x_evp_tests):
#         the digests over the CPACF engines, SM4-GCM over ghash=cpacf.
#      e. s390x_tests built again with -march=z13 (BUILD_DIR/z13-residue),
#         the vector facility in the target as in Ubuntu's (z13) and RHEL
#         9's (z14) packages: GCC then copies keys and states through vector
#         registers. Only the vector register residue test ([wipe]) runs
#         there, for the portable engines and, claiming every CPACF feature,
#         the CPACF ones; in the z196 build of runs a and b it checks the
#         floating-point registers GCC spills to. --no-z13 skips this step.
#   Prints a pass/fail summary; exits non-zero if anything failed.
#
#   --z13: everything above built with -march=z13 instead (BUILD_DIR default
#   build-s390x-z13; step e is then the same build): every suite on the
#   vectorised code. Not part of the test command: a second full build
#   (docs/s390x.md has its cost).
#
# usage: scripts/cross-s390x.sh [--no-evp] [--no-z13 | --z13] [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
evp=1
march=
z13_residue=1
while [ $# -gt 0 ]; do
    case $1 in
        --no-evp) evp=0; shift ;;
        --z13) march=z13; z13_residue=0; shift ;;
        --no-z13) z13_residue=0; shift ;;
        *) break ;;
    esac
done
dir=${1:-$top/build-s390x${march:+-$march}}
start=$(date +%s)

. "$top/scripts/cross-common.sh"
if [ -n "$march" ]; then
    cross_cmake_args=(-DCMAKE_CXX_FLAGS=-march=$march)
fi

# ---- 1.-2. tools, staging tree, configure and build
cross_build "s390x${march:+ ($march)}" s390x-linux-gnu s390x s390x-toolchain.cmake HWACCEL_S390X_SYSROOT \
    hwaccel_s390x_tests hwaccel_s390x_evp_tests
qemu=(qemu-s390x-static -L /usr/s390x-linux-gnu)

# ---- 2e. the -march=z13 build of s390x_tests for the residue test
if [ "$z13_residue" -eq 1 ]; then
    echo "== s390x -march=z13 build of s390x_tests ($dir/z13-residue)"
    z13_start=$(date +%s)
    cmake -S "$top" -B "$dir/z13-residue" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_TOOLCHAIN_FILE="$top/cmake/s390x-toolchain.cmake" \
        -DHWACCEL_S390X_SYSROOT="$sysroot" -DHWACCEL_BUILD_PROVIDER=OFF \
        -DCMAKE_CXX_FLAGS=-march=z13 >/dev/null
    cmake --build "$dir/z13-residue" -j"$(nproc)" --target hwaccel_s390x_tests
    z13_build_time=$(( $(date +%s) - z13_start ))
    echo "== z13 build: $z13_build_time s"
    build_time=$(( build_time + z13_build_time ))
fi

# ---- 3. emulated runs

all_cpacf=+cpacf-sha1,+cpacf-sha256,+cpacf-sha3,+cpacf-shake,+cpacf-ghash
cross_start_run "portable engines, full backend suites (big-endian)" \
    env -u HWACCEL_TEST_CPU "${qemu[@]}" test/s390x/s390x_tests "~[s390x]"
cross_start_run "CPACF engines under the instruction model (digest and GHASH suites, model, engine tests)" \
    env HWACCEL_TEST_CPU=$all_cpacf HWACCEL_MODEL_PARTIAL=5 \
    "${qemu[@]}" test/s390x/s390x_tests "~[sm4]" "~[monte]"
cross_start_run "CPACF SHA-3 codes without SHAKE codes (choice per function code)" \
    env HWACCEL_TEST_CPU=+cpacf-sha3 HWACCEL_MODEL_PARTIAL=3 \
    "${qemu[@]}" test/s390x/s390x_tests "[s390x],[differential]"
if [ "$z13_residue" -eq 1 ]; then
    cross_start_run "z13 build: vector register residue, portable engines" \
        env -u HWACCEL_TEST_CPU "${qemu[@]}" z13-residue/test/s390x/s390x_tests "[wipe]"
    cross_start_run "z13 build: vector register residue, CPACF engines under the model" \
        env HWACCEL_TEST_CPU=$all_cpacf HWACCEL_MODEL_PARTIAL=5 \
        "${qemu[@]}" z13-residue/test/s390x/s390x_tests "[wipe]"
fi
if [ "$evp" -eq 1 ]; then
    cross_start_run "EVP suites: hwaccel.so for s390x over the CPACF engines under the model" \
        env LD_LIBRARY_PATH="$sysroot/usr/lib/s390x-linux-gnu" HWACCEL_TEST_CPU=$all_cpacf \
        HWACCEL_MODEL_PARTIAL=5 "${qemu[@]}" test/s390x/s390x_evp_tests
fi
cross_finish "s390x${march:+ ($march)}" qemu-s390x-static "$build_time" "$start"
