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
#   Prints a pass/fail summary; exits non-zero if anything failed.
#
# usage: scripts/cross-s390x.sh [--no-evp] [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
evp=1
if [ "${1:-}" = --no-evp ]; then
    evp=0
    shift
fi
dir=${1:-$top/build-s390x}
start=$(date +%s)

. "$top/scripts/cross-common.sh"

# ---- 1.-2. tools, staging tree, configure and build
cross_build s390x s390x-linux-gnu s390x s390x-toolchain.cmake HWACCEL_S390X_SYSROOT \
    hwaccel_s390x_tests hwaccel_s390x_evp_tests
qemu=(qemu-s390x-static -L /usr/s390x-linux-gnu)

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
if [ "$evp" -eq 1 ]; then
    cross_start_run "EVP suites: hwaccel.so for s390x over the CPACF engines under the model" \
        env LD_LIBRARY_PATH="$sysroot/usr/lib/s390x-linux-gnu" HWACCEL_TEST_CPU=$all_cpacf \
        HWACCEL_MODEL_PARTIAL=5 "${qemu[@]}" test/s390x/s390x_evp_tests
fi
cross_finish s390x qemu-s390x-static "$build_time" "$start"
