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
#         the whole digest suite under the KIMD/KLMD instruction model
#         (test/s390x), which completes only part of the work on every 5th
#         trap (cc 3), next to the model's own tests and the s390x engine and
#         detection tests. Skipped here because run a covers them: [sm4] (no
#         CPACF engine) and the full NIST Monte Carlo case [monte], which for
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
#         CPACF feature claimed and the model installed (s390x_evp_tests).
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

# ---- 1. tools
packages=(g++-s390x-linux-gnu qemu-user-static cmake make pkg-config catch2)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
qemu=(qemu-s390x-static -L /usr/s390x-linux-gnu)

# ---- 2. configure and build
# A staging tree for what the cross build takes from the host: Catch2's
# headers (header-only) behind a CMake package of our own, since Debian's
# points at /usr/include (host headers must never reach the cross compiler)
# and lists a prebuilt x86-64 library.
sysroot=$dir/sysroot
mkdir -p "$sysroot/usr/include" "$sysroot/usr/lib/cmake/Catch2"
ln -sfn /usr/include/catch2 "$sysroot/usr/include/catch2"
cat > "$sysroot/usr/lib/cmake/Catch2/Catch2Config.cmake" <<'EOF'
# Header-only Catch2 2 for the s390x cross build (scripts/cross-s390x.sh).
if(NOT TARGET Catch2::Catch2)
  add_library(Catch2::Catch2 INTERFACE IMPORTED)
  set_target_properties(Catch2::Catch2 PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${CMAKE_CURRENT_LIST_DIR}/../../../include")
endif()
EOF
catch_version=$(dpkg-query -W -f='${Version}' catch2 | sed 's/-.*//')
cat > "$sysroot/usr/lib/cmake/Catch2/Catch2ConfigVersion.cmake" <<EOF
set(PACKAGE_VERSION $catch_version)
if(PACKAGE_FIND_VERSION_MAJOR EQUAL 2)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
EOF

provider=OFF
targets=(s390x_tests)
if [ "$evp" -eq 1 ]; then
    if [ ! -e "$sysroot/usr/lib/s390x-linux-gnu/pkgconfig/libcrypto.pc" ]; then
        echo "== OpenSSL for s390x from Debian (private apt state in $dir/apt)"
        apt_dir=$dir/apt
        mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
        : > "$apt_dir/status"
        apt_opts=(-o APT::Architecture=s390x -o APT::Architectures::=s390x
                  -o Dir::State="$apt_dir/state" -o Dir::State::status="$apt_dir/status"
                  -o Dir::Cache="$apt_dir/cache" -o APT::Sandbox::User="$(id -un)")
        apt-get "${apt_opts[@]}" update -qq
        (cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" download libssl3:s390x libssl-dev:s390x)
        for deb in "$apt_dir"/debs/*.deb; do dpkg -x "$deb" "$sysroot"; done
    fi
    provider=ON
    targets+=(hwaccel hwaccel_testing s390x_evp_tests)
fi

echo "== s390x cross build ($dir)"
build_start=$(date +%s)
cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$top/cmake/s390x-toolchain.cmake" \
    -DHWACCEL_S390X_SYSROOT="$sysroot" -DHWACCEL_BUILD_PROVIDER=$provider >/dev/null
cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}"
build_time=$(( $(date +%s) - build_start ))

# ---- 3. emulated runs
# The guard-page tests crash child processes on purpose: no core files.
ulimit -c 0
# The runs are independent: they go side by side (one per core), each into
# its own log, printed in order once all have ended.
names=()
logs=()
pids=()
start_run() {
    local name=$1
    shift
    local log=$dir/run-${#names[@]}.log
    rm -f "$log.status"
    names+=("$name")
    logs+=("$log")
    (
        t0=$(date +%s)
        rc=0
        cd "$dir" && "$@" || rc=$?
        echo "$rc $(( $(date +%s) - t0 ))" > "$log.status"
    ) > "$log" 2>&1 &
    pids+=($!)
}

all_cpacf=+cpacf-sha1,+cpacf-sha256,+cpacf-sha3,+cpacf-shake
start_run "portable engines, full backend suites (big-endian)" \
    env -u HWACCEL_TEST_CPU "${qemu[@]}" test/s390x/s390x_tests "~[s390x]"
start_run "CPACF engines under the instruction model (digest suite, model, engine tests)" \
    env HWACCEL_TEST_CPU=$all_cpacf HWACCEL_MODEL_PARTIAL=5 \
    "${qemu[@]}" test/s390x/s390x_tests "~[sm4]" "~[monte]"
start_run "CPACF SHA-3 codes without SHAKE codes (choice per function code)" \
    env HWACCEL_TEST_CPU=+cpacf-sha3 HWACCEL_MODEL_PARTIAL=3 \
    "${qemu[@]}" test/s390x/s390x_tests "[s390x],[differential]"
if [ "$evp" -eq 1 ]; then
    start_run "EVP suites: hwaccel.so for s390x over the CPACF engines under the model" \
        env LD_LIBRARY_PATH="$sysroot/usr/lib/s390x-linux-gnu" HWACCEL_TEST_CPU=$all_cpacf \
        HWACCEL_MODEL_PARTIAL=5 "${qemu[@]}" test/s390x/s390x_evp_tests
fi
wait "${pids[@]}" || true

failed=0
summary=()
for i in "${!names[@]}"; do
    echo
    echo "== ${names[$i]}"
    cat "${logs[$i]}"
    read -r rc secs < "${logs[$i]}.status" || { rc=1; secs=?; }
    if [ "$rc" -eq 0 ]; then verdict=PASS; else verdict="FAIL"; failed=1; fi
    summary+=("$(printf '  %-6s %s (%s s)' "$verdict" "${names[$i]}" "$secs")")
done

echo
echo "== s390x summary (qemu-s390x-static $(qemu-s390x-static --version | sed -n 's/.*version \([^ ]*\).*/\1/p'))"
printf '  %-6s %s\n' "build" "${build_time} s"
printf '%s\n' "${summary[@]}"
echo "  total $(( $(date +%s) - start )) s"
if [ "$failed" -ne 0 ]; then
    echo "s390x: FAILED"
    exit 1
fi
echo "s390x: all passed"
