#!/usr/bin/env bash
# The "dev" component's CMake package as installed: `cmake --install
# --component dev` into a temporary prefix, then cmake_consumer/ (a C-only
# project: find_package(hwaccel), hwaccel::hwaccel) configured against that
# prefix alone, built, and static_link_test.c run.
#
# usage: cmake_package_test.sh BUILD_DIR CC VERSION static_link_test.c [OPENSSL_ROOT_DIR]
set -euo pipefail
build=${1:?usage: cmake_package_test.sh BUILD_DIR CC VERSION SOURCE [OPENSSL_ROOT_DIR]}
cc=${2:?}
version=${3:?}
source=${4:?}
openssl_root=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --component dev --prefix "$tmp/prefix" >"$tmp/install.log"
(cd "$tmp/prefix" && find . -type f -path '*/cmake/hwaccel/*' | sed 's|^\./|  |' | sort)

# Only this prefix: no package registry, no system-wide hwaccel-dev.
# The OpenSSL the build used (find_dependency(OpenSSL 3) in hwaccelConfig.cmake).
if ! cmake -S "$here/cmake_consumer" -B "$tmp/app" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF \
        ${openssl_root:+-DOPENSSL_ROOT_DIR="$openssl_root"} \
        -DHWACCEL_VERSION="$version" -DHWACCEL_TEST_SOURCE="$source" >"$tmp/configure.log" 2>&1; then
    cat "$tmp/configure.log"; echo "FAIL: the consumer project does not configure"; exit 1
fi
grep -E 'hwaccel .* from|Found OpenSSL' "$tmp/configure.log"
grep -q "hwaccel $version from $tmp/prefix/" "$tmp/configure.log" ||
    { echo "FAIL: find_package(hwaccel) did not take the temporary prefix's package"; exit 1; }
if ! cmake --build "$tmp/app" -v >"$tmp/build.log" 2>&1; then
    cat "$tmp/build.log"; echo "FAIL: the consumer project does not build"; exit 1
fi
# Linked by the C compiler's driver (no C++ enabled), the archive by its
# installed path.
link=$(cat "$tmp/app/CMakeFiles/static_link_test.dir/link.txt")
echo "link: $link"
[[ $link == "$cc "* ]] || { echo "FAIL: not linked by $cc"; exit 1; }
[[ $link == *"$tmp/prefix/"*libhwaccel.a* ]] || { echo "FAIL: the link names no installed libhwaccel.a"; exit 1; }
"$tmp/app/static_link_test"
