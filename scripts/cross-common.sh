# Shared by the cross-build scripts (scripts/cross-s390x.sh,
# scripts/cross-aarch64.sh), which source it: installing the tools, the
# staging tree (Catch2, OpenSSL from Debian for the target), and the emulated
# runs side by side with their summary. Sourced, never run; the caller has
# set -euo pipefail.

# cross_install PACKAGE...: installs, from Debian's packages, those missing.
cross_install() {
    local missing=() p sudo=""
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    echo "installing: ${missing[*]}"
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# cross_stage_catch2 SYSROOT: what the cross build takes from the host, in a
# staging tree: Catch2's headers (header-only) behind a CMake package of our
# own, since Debian's points at /usr/include (host headers must never reach
# the cross compiler) and lists a prebuilt x86-64 library.
cross_stage_catch2() {
    local sysroot=$1 catch_version
    mkdir -p "$sysroot/usr/include" "$sysroot/usr/lib/cmake/Catch2"
    ln -sfn /usr/include/catch2 "$sysroot/usr/include/catch2"
    cat > "$sysroot/usr/lib/cmake/Catch2/Catch2Config.cmake" <<'CMAKE'
# Header-only Catch2 2 for the cross builds (scripts/cross-common.sh).
if(NOT TARGET Catch2::Catch2)
  add_library(Catch2::Catch2 INTERFACE IMPORTED)
  set_target_properties(Catch2::Catch2 PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${CMAKE_CURRENT_LIST_DIR}/../../../include")
endif()
CMAKE
    catch_version=$(dpkg-query -W -f='${Version}' catch2 | sed 's/-.*//')
    cat > "$sysroot/usr/lib/cmake/Catch2/Catch2ConfigVersion.cmake" <<CMAKE
set(PACKAGE_VERSION $catch_version)
if(PACKAGE_FIND_VERSION_MAJOR EQUAL 2)
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
endif()
if(PACKAGE_FIND_VERSION VERSION_EQUAL PACKAGE_VERSION)
  set(PACKAGE_VERSION_EXACT TRUE)
endif()
CMAKE
}

# cross_stage_openssl DIR SYSROOT DEBIAN_ARCH MULTIARCH: Debian's libssl3 and
# libssl-dev for DEBIAN_ARCH, fetched with apt-get download through a private
# apt state under DIR (the host's dpkg architectures and package lists stay
# untouched) and unpacked with dpkg -x into SYSROOT. Done once per build dir.
cross_stage_openssl() {
    local dir=$1 sysroot=$2 arch=$3 multiarch=$4
    [ -e "$sysroot/usr/lib/$multiarch/pkgconfig/libcrypto.pc" ] && return 0
    echo "== OpenSSL for $arch from Debian (private apt state in $dir/apt)"
    local apt_dir=$dir/apt deb
    mkdir -p "$apt_dir/state/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/debs"
    : > "$apt_dir/status"
    local apt_opts=(-o APT::Architecture="$arch" -o APT::Architectures::="$arch"
                    -o Dir::State="$apt_dir/state" -o Dir::State::status="$apt_dir/status"
                    -o Dir::Cache="$apt_dir/cache" -o APT::Sandbox::User="$(id -un)")
    apt-get "${apt_opts[@]}" update -qq
    (cd "$apt_dir/debs" && apt-get "${apt_opts[@]}" download "libssl3:$arch" "libssl-dev:$arch")
    for deb in "$apt_dir"/debs/*.deb; do dpkg -x "$deb" "$sysroot"; done
}

# The emulated runs are independent: they go side by side (one per core),
# each into its own log under $cross_dir, printed in order once all have ended.
cross_dir=
cross_cmake_args=()
cross_names=()
cross_logs=()
cross_pids=()

# cross_start_run NAME COMMAND...: starts COMMAND in $cross_dir in the background.
cross_start_run() {
    local name=$1
    shift
    local log=$cross_dir/run-${#cross_names[@]}.log
    rm -f "$log.status"
    cross_names+=("$name")
    cross_logs+=("$log")
    (
        t0=$(date +%s)
        rc=0
        cd "$cross_dir" && "$@" || rc=$?
        echo "$rc $(( $(date +%s) - t0 ))" > "$log.status"
    ) > "$log" 2>&1 &
    cross_pids+=($!)
}

# cross_build LABEL TRIPLET DEBIAN_ARCH TOOLCHAIN SYSROOT_VARIABLE TESTS EVP_TESTS:
# installs the tools, stages Catch2 (and, with evp=1, Debian's OpenSSL for
# DEBIAN_ARCH) under $dir/sysroot, configures $dir with cmake/TOOLCHAIN and
# builds the targets TESTS (plus the module and EVP_TESTS with evp=1). Reads top, dir,
# evp and cross_cmake_args (more cmake arguments, may be empty); sets sysroot,
# build_time and cross_dir; no core files after it (the
# guard-page tests crash child processes on purpose).
cross_build() {
    local label=$1 triplet=$2 debian_arch=$3 toolchain=$4 sysroot_variable=$5 tests=$6 evp_tests=$7
    cross_install "g++-$triplet" qemu-user-static cmake make pkg-config catch2
    sysroot=$dir/sysroot
    cross_stage_catch2 "$sysroot"
    local provider=OFF targets=("$tests") build_start
    if [ "$evp" -eq 1 ]; then
        cross_stage_openssl "$dir" "$sysroot" "$debian_arch" "$triplet"
        provider=ON
        targets+=(hwaccel hwaccel_testing "$evp_tests")
    fi
    echo "== $label cross build ($dir)"
    build_start=$(date +%s)
    cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_TOOLCHAIN_FILE="$top/cmake/$toolchain" \
        -D"$sysroot_variable"="$sysroot" -DHWACCEL_BUILD_PROVIDER=$provider \
        "${cross_cmake_args[@]}" >/dev/null
    cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}"
    build_time=$(( $(date +%s) - build_start ))
    ulimit -c 0
    cross_dir=$dir
}

# cross_finish LABEL QEMU BUILD_SECONDS START: waits for the runs, prints
# their logs and a summary; returns non-zero if any failed.
cross_finish() {
    local label=$1 qemu=$2 build_time=$3 start=$4 i rc secs verdict failed=0 summary=()
    wait "${cross_pids[@]}" || true
    for i in "${!cross_names[@]}"; do
        echo
        echo "== ${cross_names[$i]}"
        cat "${cross_logs[$i]}"
        read -r rc secs < "${cross_logs[$i]}.status" || { rc=1; secs=?; }
        if [ "$rc" -eq 0 ]; then verdict=PASS; else verdict=FAIL; failed=1; fi
        summary+=("$(printf '  %-6s %s (%s s)' "$verdict" "${cross_names[$i]}" "$secs")")
    done
    echo
    echo "== $label summary ($qemu $("$qemu" --version | sed -n 's/.*version \([^ ]*\).*/\1/p'))"
    printf '  %-6s %s\n' "build" "${build_time} s"
    printf '%s\n' "${summary[@]}"
    echo "  total $(( $(date +%s) - start )) s"
    if [ "$failed" -ne 0 ]; then
        echo "$label: FAILED"
        return 1
    fi
    echo "$label: all passed"
}
