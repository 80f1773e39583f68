#!/usr/bin/env bash
# hwaccel vendored into an application's build: cmake_consumer/ (a C-only
# project) configured with -DHWACCEL_SOURCE_DIR, so that it includes
# hwaccel's source tree with add_subdirectory and links hwaccel::hwaccel as
# it does from the installed package. Its link interface must be the
# installed package's (compared with `cmake --install --component dev` of
# BUILD_DIR into a temporary prefix); the archive, compiled in the
# consumer's own tree, must be what the program links, and the program must
# run and pass. It compiles the provider and engines once (no ccache).
# Included so, hwaccel builds none of its tests (HWACCEL_BUILD_TESTS off,
# though the consumer's BUILD_TESTING is on) and the consumer's `cmake
# --install` holds the consumer's program alone (HWACCEL_INSTALL off); with
# -DHWACCEL_INSTALL=ON it also holds hwaccel's files, those of the dev
# component the same as BUILD_DIR's, and the installed module loads. Last,
# with -DHWACCEL_BUILD_TESTS=ON hwaccel's tests must configure beside the
# consumer's own targets named as hwaccel's tests once were (backend_tests,
# provider_tests, load_tests, gcm_mode_tests, static_link_test: target names
# are global to a build, hwaccel's are hwaccel_*), and hwaccel's
# static_link_test must build (hwaccel_static_link_test, file name
# unchanged) and pass under its ctest name.
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

# BUILD_DIR's install directories, so that the consumer installs hwaccel's
# files where BUILD_DIR does.
dirs=()
for v in CMAKE_INSTALL_PREFIX CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR; do
    value=$(sed -n "s/^$v:PATH=//p" "$build/CMakeCache.txt")
    [ -z "$value" ] || dirs+=("-D$v=$value")
done

start=$(date +%s)
if ! cmake -S "$here/cmake_consumer" -B "$tmp/app" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" "${dirs[@]}" \
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
[ ! -e "$tmp/app/hwaccel/test" ] ||
    { echo "FAIL: hwaccel's tests are configured in the consumer's build (BUILD_TESTING on there)"; exit 1; }
if ! cmake --build "$tmp/app" -j1 -v --target static_link_test >"$tmp/build.log" 2>&1; then
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

# The consumer's install, into DESTDIR: the module's destination is
# OpenSSL's modules directory, an absolute path. By default nothing of
# hwaccel's, for any component.
# (With hwaccel's rules on, the install fails here: hwaccel.so is not built.)
for component in "" dev runtime; do
    if ! DESTDIR=$tmp/off cmake --install "$tmp/app" ${component:+--component $component} \
            >"$tmp/install-off.log" 2>&1; then
        cat "$tmp/install-off.log"
        echo "FAIL: the consumer's install${component:+ --component $component} fails"; exit 1
    fi
done
prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$tmp/app/CMakeCache.txt")
files=$(cd "$tmp/off" && find . ! -type d | sort)
echo "installed by the consumer: $files"
[ "$files" = ".$prefix/bin/static_link_test" ] ||
    { echo "FAIL: the consumer's install holds other files than its program"; exit 1; }

# -DHWACCEL_INSTALL=ON: the module, hwaccel-engines and its man pages (built now), and the
# dev component as BUILD_DIR installs it (in $tmp/prefix above).
start=$(date +%s)
if ! { cmake "$tmp/app" -DHWACCEL_INSTALL=ON &&
       cmake --build "$tmp/app" -j1 --target hwaccel hwaccel-engines hwaccel_man; } >"$tmp/build-on.log" 2>&1; then
    cat "$tmp/build-on.log"; echo "FAIL: the consumer does not configure or build with HWACCEL_INSTALL=ON"; exit 1
fi
DESTDIR=$tmp/on cmake --install "$tmp/app" >"$tmp/install-on.log"
modulesdir=$(sed -n 's/^HWACCEL_MODULESDIR:PATH=//p' "$tmp/app/CMakeCache.txt")
# BUILD_DIR's export file per configuration is named after its build type
# (hwaccelTargets-none.cmake in a packager's CMAKE_BUILD_TYPE=None build); the
# consumer builds Release.
dev=$(cd "$tmp/prefix" && find . ! -type d | sed 's|^\./||' |
      sed 's|/hwaccelTargets-[^/]*\.cmake$|/hwaccelTargets-release.cmake|')
expected=$( { printf '%s\n' ".$prefix/bin/static_link_test" ".$prefix/bin/hwaccel-engines" \
                  ".$modulesdir/hwaccel.so" ".$prefix/share/man/man1/hwaccel-engines.1.gz" \
                  ".$prefix/share/man/man7/hwaccel.7.gz"; printf ".$prefix/%s\n" $dev; } | sort)
files=$(cd "$tmp/on" && find . ! -type d | sort)
if [ "$files" != "$expected" ]; then
    diff <(echo "$expected") <(echo "$files") || true
    echo "FAIL: with HWACCEL_INSTALL=ON the consumer installs other files than hwaccel's and its own"; exit 1
fi
for f in $dev; do
    [[ $f == *.a ]] || [ ! -e "$tmp/prefix/$f" ] || cmp -s "$tmp/prefix/$f" "$tmp/on$prefix/$f" ||
        { echo "FAIL: $f differs from BUILD_DIR's"; exit 1; }
done
"$tmp/on$prefix/bin/hwaccel-engines" >/dev/null
loaded="openssl not found, module not loaded"
if command -v openssl >/dev/null; then
    env -u OPENSSL_CONF -u OPENSSL_MODULES -u HWACCEL_ENGINES \
        openssl list -providers -provider-path "$tmp/on$modulesdir" -provider hwaccel >"$tmp/providers.txt"
    grep -q 'status: active' "$tmp/providers.txt" ||
        { cat "$tmp/providers.txt"; echo "FAIL: the installed hwaccel.so does not load"; exit 1; }
    loaded="the module loads"
fi
echo "with HWACCEL_INSTALL=ON: $(echo "$files" | wc -l) files installed, $loaded," \
     "in $(( $(date +%s) - start )) s"

# hwaccel's tests on, beside the consumer's own backend_tests and the rest:
# a name clash stops the configure. About 3 s: the archive is built already.
start=$(date +%s)
if ! { cmake "$tmp/app" -DHWACCEL_BUILD_TESTS=ON &&
       cmake --build "$tmp/app" -j1 --target hwaccel_static_link_test backend_tests; } \
        >"$tmp/tests-on.log" 2>&1; then
    cat "$tmp/tests-on.log"
    echo "FAIL: with HWACCEL_BUILD_TESTS=ON the consumer does not configure or build beside its own" \
         "targets named backend_tests, provider_tests, load_tests, gcm_mode_tests, static_link_test"
    exit 1
fi
grep -q "hwaccel_consumer own backend_tests" "$tmp/tests-on.log" ||
    { cat "$tmp/tests-on.log"; echo "FAIL: backend_tests is not the consumer's own target"; exit 1; }
[ -x "$tmp/app/hwaccel/test/static/static_link_test" ] ||
    { echo "FAIL: hwaccel's static_link_test is not at hwaccel/test/static/static_link_test"; exit 1; }
(cd "$tmp/app/hwaccel" && ctest --output-on-failure -R '^static_link_test$') >"$tmp/ctest.log" 2>&1 &&
    grep -q 'tests failed out of 1$' "$tmp/ctest.log" ||
    { cat "$tmp/ctest.log"; echo "FAIL: hwaccel's static_link_test does not pass under ctest"; exit 1; }
n=$(cd "$tmp/app/hwaccel" && ctest -N | sed -n 's/^Total Tests: //p')
echo "with HWACCEL_BUILD_TESTS=ON: $n hwaccel tests configured beside the consumer's own targets, static_link_test passed," \
     "in $(( $(date +%s) - start )) s"
