#!/usr/bin/env bash
# README's test command: installs what is missing, builds, and runs every test.
#   1. Release build: backend suites for every engine this CPU runs, the EVP
#      and dispatch suites, the openssl CLI / hashlib / TLS checks, and the
#      backend, mode and EVP suites again under qemu-x86_64 as other x86-64
#      CPUs (test/cpu_sets: Zen 3's vector set, AES-NI/AVX2, AVX/AES-NI,
#      plain x86-64)
#      (CTest).
#      Then the residue suites (secrets left in registers or on the stack)
#      again in builds with Debian's package flags and with clang-14
#      (scripts/flags-matrix.sh).
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build: the backend and
#      EVP suites again. Then a ThreadSanitizer build (scripts/tsan.sh) of
#      hwaccel.so and the threaded suites only (thread_race_tests,
#      load_tests): any data race it sees fails it; step 3 runs them again
#      in OpenSSL 3.5's and 3.6's libcrypto.
#   3. OpenSSL 3.5, 3.6 and 4.0, each built once from the Debian source
#      package of the suite that carries it (trixie, sid, experimental) into a
#      cache (scripts/openssl-release.sh): hwaccel built against each runs the
#      EVP and CLI suites, and the 3.0-built module runs the CLI suite in each
#      release's openssl (scripts/test-against.sh); OpenSSL 3.5's own evp_test
#      runs its SHA/SHA-3/SHAKE/SM4 recipes with only hwaccel loaded, both
#      modules (scripts/openssl-evp-test.sh).
#   4. IBM Z (s390x) cross build run under qemu-s390x-static
#      (scripts/cross-s390x.sh): the portable engines' backend suites on a
#      big-endian machine, and the CPACF engines' backend and EVP suites under
#      the KIMD/KLMD instruction model; the vector register residue test
#      also on a -march=z13 build. Skipped on an s390x host, whose
#      native build (step 1) already runs the CPACF engines and test/s390x.
#      Then the arm64 cross build under qemu-aarch64-static
#      (scripts/cross-aarch64.sh): every engine's backend suites (the arm64
#      Crypto Extension engines and the portable ones) and the EVP suites over
#      an arm64 hwaccel.so under -cpu max, and the registry's fallback under
#      -cpu cortex-a72 (no SHA-3, no SM4). Skipped on an arm64 host, whose
#      native build (step 1) runs the arm64 engines and test/arm64.
#   5. Differential fuzzing, briefly (scripts/fuzz.sh): clang-14 build with
#      libFuzzer, ASan and UBSan; every fuzz target for every engine this CPU
#      runs (PHE under its model), 2 seconds each from the seed corpus.
#   6. The Debian packages (scripts/package.sh, CPack): hwaccel installed
#      with apt-get, used by name without -provider-path; hwaccel-dev's
#      libhwaccel.a linked into a C program through pkg-config; both
#      removed, nothing left (test/package/package_test.sh).
#   7. The engine manifest: the suites of steps 1-4 append the engines they
#      ran, and how (natively, under an instruction model), to one file;
#      scripts/engine-manifest.py prints it against the registry's list
#      (hwaccel-engines) and fails if an engine this CPU runs missed a suite.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
start=$(date +%s)
export HWACCEL_ENGINE_MANIFEST="$top/build/engine-manifest.txt"
mkdir -p "$top/build"
rm -f "$HWACCEL_ENGINE_MANIFEST"

# Each step's time, printed at the end: what to trim when the command nears
# its budget (README).
step_times=()
step_name=""
step_start=$start
step() {
    local now
    now=$(date +%s)
    [ -z "$step_name" ] || step_times+=("$(printf '%6d s  %s' $((now - step_start)) "$step_name")")
    step_name=$1
    step_start=$now
    [ -z "$step_name" ] || echo "== $step_name"
}

step "Dependencies (scripts/install-deps.sh)"
scripts/install-deps.sh

step "Release build and tests"
scripts/build.sh "$top/build"
(cd build && ctest --output-on-failure -j2)

step "Debian's package flags and clang-14: the wipe checks (scripts/flags-matrix.sh)"
# The stack and register wipes are sized by what the compiler spills; a
# packager's flags (dpkg-buildflags: -O2, stack protector) and another
# compiler (clang-14 -O2: it spilled H's powers where GCC does not) build
# other frames than Release's. The residue suites in such builds; the other
# flag sets (Ubuntu, Fedora with LTO, -Os, -O1, -march=native) are a long run.
scripts/flags-matrix.sh -s residue debian clang14

step "ASan + UBSan build and tests"
scripts/build.sh "$top/build-asan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHWACCEL_SANITIZE=ON
# The CLI checks run the system's openssl binary, which is not sanitized.
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j2 -E cli_tests)

step "ThreadSanitizer build and threaded tests (scripts/tsan.sh)"
scripts/tsan.sh "$top/build-tsan"

for line in 3.5 3.6 4.0; do
    step "OpenSSL $line"
    prefix=$(scripts/openssl-release.sh "$line")
    scripts/test-against.sh "$prefix" "$top/build"
    # The TSan suites in this libcrypto (one soname with 3.0's: 3.x only).
    case $line in 3.*) scripts/tsan.sh "$top/build-tsan" "$prefix" ;; esac
done
step "OpenSSL 3.5's evp_test"
prefix=$(scripts/openssl-release.sh 3.5)
# OpenSSL's own test/evp_test (built once from the same source, cached) over
# its SHA/SHA-3/SHAKE and SM4 recipe files, hwaccel the only provider: the
# module built against 3.5 (by test-against.sh) and the 3.0-built one.
version35=$(LD_LIBRARY_PATH=$prefix/lib "$prefix/bin/openssl" version -v | awk '{print $2}')
scripts/openssl-evp-test.sh "$top/build-openssl-$version35" "$top/build"

if [ "$(uname -m)" != s390x ]; then
    step "s390x cross build under qemu"
    HWACCEL_ENGINE_MANIFEST_HOW="s390x under qemu-s390x-static" \
    HWACCEL_ENGINE_MANIFEST_MODELS="cpacf=KIMD/KLMD instruction model under qemu" \
        scripts/cross-s390x.sh "$top/build-s390x"
fi
if [ "$(uname -m)" != aarch64 ]; then
    step "arm64 cross build under qemu"
    HWACCEL_ENGINE_MANIFEST_HOW="arm64 under qemu-aarch64-static" \
        scripts/cross-aarch64.sh "$top/build-aarch64"
fi

step "Fuzzing (2 s per target and engine)"
scripts/fuzz.sh 2 "$top/build-fuzz"

step "Debian package: install, use, remove"
debs=$(scripts/package.sh "$top/build")  # hwaccel, hwaccel-dev
mapfile -t debs <<<"$debs"
bash test/package/package_test.sh "${debs[@]}"

step "Engine manifest"
python3 scripts/engine-manifest.py "$top/build/tools/hwaccel-engines" "$HWACCEL_ENGINE_MANIFEST"

step ""
printf '%s\n' "${step_times[@]}"
echo "== all tests passed in $(( $(date +%s) - start )) s"
