#!/usr/bin/env bash
# hwaccel vendored into an application's build: cmake_consumer/ (a C-only
# project) configured with -DHWACCEL_SOURCE_DIR, so that it includes
# hwaccel's source tree with add_subdirectory and links hwaccel::hwaccel as
# it does from the installed package. Its link interface must be the
# installed package's (compared with `cmake --install --component dev` of
# BUILD_DIR into a temporary prefix); the archive, compiled in the
# consumer's own tree, must be what the program links, and the program must
# run and pass. It compiles the provider and engines once (no ccache).
#
# usage: cmake_subdirectory_test.sh BUILD_DIR SOURCE_DIR CC CXX static_link_test.c [OPENSSL_ROOT_DIR]
set -euo pipefail
build=${1:?usage: cmake_subdirectory_test.sh BUILD_DIR SOURCE_DIR CC CXX SOURCE [OPENSSL_ROOT_DIR]}
source_dir=$(cd "${2:?}" && pwd)
cc=${3:?}
cxx=${4:?}
source=${5:?}
openssl_root=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s)
if ! cmake -S "$here/cmake_consumer" -B "$tmp/app" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
        ${openssl_root:+-DOPENSSL_ROOT_DIR="$openssl_root"} \
        -DHWACCEL_SOURCE_DIR="$source_dir" -DHWACCEL_TEST_SOURCE="$source" >"$tmp/configure.log" 2>&1; then
    cat "$tmp/configure.log"; echo "FAIL: the consumer project does not configure"; exit 1
fi

# The same link interface as the installed hwaccel::hwaccel.
cmake --install "$build" --component dev --prefix "$tmp/prefix" >"$tmp/install.log"
targets=$(find "$tmp/prefix" -path '*/cmake/hwaccel/hwaccelTargets.cmake')
installed=$(sed -n 's/^ *INTERFACE_LINK_LIBRARIES "\(.*\)"$/\1/p' "$targets")
in_tree=$(cat "$tmp/app/hwaccel-link-interface.txt")
echo "hwaccel::hwaccel links, installed: $installed; in the tree: $in_tree"
[ -n "$installed" ] && [ "$installed" = "$in_tree" ] ||
    { echo "FAIL: add_subdirectory's hwaccel::hwaccel links other things than the installed one"; exit 1; }

# One job: under the test command's `ctest -j2` it shares the machine with
# the other tests (sm4_constant_time_trace takes one core for ~2 minutes).
if ! cmake --build "$tmp/app" -j1 -v >"$tmp/build.log" 2>&1; then
    cat "$tmp/build.log"; echo "FAIL: the consumer project does not build"; exit 1
fi
echo "configured and built in $(( $(date +%s) - start )) s"
link=$(cat "$tmp/app/CMakeFiles/static_link_test.dir/link.txt")
echo "link: $link"
[[ $link == *" hwaccel/provider/libhwaccel.a "* ]] ||
    { echo "FAIL: the link names no libhwaccel.a of the consumer's own build"; exit 1; }
grep -q -- "-I$source_dir/include\( \|$\)" "$tmp/app/CMakeFiles/static_link_test.dir/flags.make" ||
    { echo "FAIL: the program is not compiled with $source_dir/include"; exit 1; }
"$tmp/app/static_link_test"
