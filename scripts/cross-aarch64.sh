#!/usr/bin/env bash
# arm64 (aarch64) cross build and emulated run; part of README's test command
# (scripts/test.sh). The common parts are scripts/cross-common.sh's.
#
#   1. Installs, from Debian's packages, what is missing: g++-aarch64-linux-gnu,
#      qemu-user-static (qemu-aarch64-static), cmake, make, pkg-config, catch2.
#   2. Configures BUILD_DIR (default build-aarch64/) with
#      cmake/aarch64-toolchain.cmake and builds arm64_tests (the backend
#      suites of test/backends and the arm64 tests of test/arm64) and, unless
#      --no-evp, Debian's arm64 libssl3/libssl-dev unpacked into a private
#      staging tree (as for s390x), hwaccel.so for arm64 and arm64_evp_tests.
#   3. Runs them under qemu-aarch64-static, side by side:
#      a. -cpu max (every extension qemu has: SHA-1, SHA-2, SHA-3, SM4, PMULL): the
#         whole backend suites over every engine the registry runs there (the
#         arm64 engines and the portable ones), the arm64 detection and engine
#         tests, and the registry's choice checked against HWACCEL_TEST_EXPECT_ENGINES
#         (Keccak: generic, as qemu's MIDR_EL1 is no Apple core's).
#      b. -cpu cortex-a72 (SHA-1/SHA-2, PMULL, no SHA-3, no SM4): the arm64
#         tests only, asserting the choice falls back to the portable Keccak
#         and SM4, even with arm-sha3-fast claimed, and GHASH takes arm64-pmull.
#      b2. -cpu max with HWACCEL_TEST_CPU masking SHA-1, SHA-256, SM4, PMULL and
#         claiming arm-sha3-fast: the arm64 tests only, asserting those fall
#         back to the portable engines and Keccak takes arm64-sha3.
#      c. -cpu max, with OpenSSL for arm64 (skipped by --no-evp): the EVP
#         suites (test/provider) over the arm64 hwaccel.so (test-only module).
#      d. No emulation: the objects of backends/arm64/ (compiled with their
#         own -march flags) define no weak symbol (DW.ref.* aside: data). An
#         inline or template function instantiated there would be compiled
#         with the extension's instructions, and the linker may keep that
#         copy for every caller, outside any available() check.
#   Prints a pass/fail summary; exits non-zero if anything failed.
#
# usage: scripts/cross-aarch64.sh [--no-evp] [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
evp=1
if [ "${1:-}" = --no-evp ]; then
    evp=0
    shift
fi
dir=${1:-$top/build-aarch64}
start=$(date +%s)

. "$top/scripts/cross-common.sh"

# ---- 1.-2. tools, staging tree, configure and build
cross_build arm64 aarch64-linux-gnu arm64 aarch64-toolchain.cmake HWACCEL_AARCH64_SYSROOT \
    hwaccel_arm64_tests hwaccel_arm64_evp_tests
qemu=(qemu-aarch64-static -L /usr/aarch64-linux-gnu)

# ---- 3. emulated runs

# The engines each -cpu model must get (family=engine, checked by
# test/arm64/detect_test.cpp): the arm64 engine wherever the model has the
# extension, the portable engine otherwise; arm64-sha3 only where it is
# worth using (arm-sha3-fast: Apple cores, which qemu does not model).
expect_max=sha1=arm64-ce,sha256=arm64-ce,sha3=generic,sm4=arm64-sm4e,ghash=arm64-pmull
expect_a72=sha1=arm64-ce,sha256=arm64-ce,sha3=generic,sm4=generic,ghash=arm64-pmull
# With those arm64 features masked, each choice falls back to the portable
# engine; with arm-sha3-fast claimed, Keccak takes arm64-sha3.
expect_masked=sha1=generic,sha256=generic,sha3=arm64-sha3,sm4=generic,ghash=generic
cross_start_run "-cpu max: backend suites over the arm64 and portable engines, arm64 tests" \
    env -u HWACCEL_TEST_CPU HWACCEL_TEST_EXPECT_ENGINES=$expect_max \
    "${qemu[@]}" -cpu max test/arm64/arm64_tests
cross_start_run "-cpu cortex-a72 (PMULL, no SHA-3, no SM4; arm-sha3-fast claimed): detection and the choice's fallback" \
    env HWACCEL_TEST_CPU=+arm-sha3-fast HWACCEL_TEST_EXPECT_ENGINES=$expect_a72 \
    "${qemu[@]}" -cpu cortex-a72 test/arm64/arm64_tests "[arm64]"
cross_start_run "-cpu max, HWACCEL_TEST_CPU masking arm-sha1/sha256/sm4/pmull, claiming arm-sha3-fast: those fall back, Keccak takes arm64-sha3" \
    env HWACCEL_TEST_CPU=-arm-sha1,-arm-sha256,-arm-sm4,-arm-pmull,+arm-sha3-fast HWACCEL_TEST_EXPECT_ENGINES=$expect_masked \
    "${qemu[@]}" -cpu max test/arm64/arm64_tests "[arm64]"
if [ "$evp" -eq 1 ]; then
    cross_start_run "-cpu max: EVP suites over hwaccel.so for arm64" \
        env -u HWACCEL_TEST_CPU LD_LIBRARY_PATH="$sysroot/usr/lib/aarch64-linux-gnu" \
        "${qemu[@]}" -cpu max test/arm64/arm64_evp_tests
fi
cross_start_run "backends/arm64 objects: no weak (shared inline) symbols" \
    bash -c 'objs=$(find backends -path "*/arm64/*.o"); [ -n "$objs" ] || { echo "no arm64 objects"; exit 1; }
             weak=$(aarch64-linux-gnu-nm -C $objs | grep -E "^[0-9a-f]* +[VWu] " | grep -v " DW.ref." || true)
             echo "$(echo $objs | wc -w) objects checked"; [ -z "$weak" ] || { echo "$weak"; exit 1; }'
cross_finish arm64 qemu-aarch64-static "$build_time" "$start"
