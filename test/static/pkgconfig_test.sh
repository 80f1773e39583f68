#!/usr/bin/env bash
# The "dev" component as installed: `cmake --install --component dev` into a
# temporary prefix must give libhwaccel.a, hwaccel/hwaccel_provider.h,
# hwaccel.pc and the CMake package's four files (cmake/cmake_package.cmake;
# cmake_package_test.sh uses them), nothing else, and static_link_test.c
# compiled and linked with the C compiler and what `pkg-config --cflags
# --libs hwaccel` says there must run and pass.
#
# usage: pkgconfig_test.sh BUILD_DIR CC static_link_test.c
set -euo pipefail
build=${1:?usage: pkgconfig_test.sh BUILD_DIR CC SOURCE}
cc=${2:?}
source=${3:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --component dev --prefix "$tmp/prefix" >"$tmp/install.log"
(cd "$tmp/prefix" && find . -type f | sed 's|^\./||' | sort) >"$tmp/files"
echo "installed:"; sed 's/^/  /' "$tmp/files"
fail=0
for pattern in '^include/hwaccel/hwaccel_provider\.h$' '^lib/(.*/)?libhwaccel\.a$' \
               '^lib/(.*/)?pkgconfig/hwaccel\.pc$' '^lib/(.*/)?cmake/hwaccel/hwaccelConfig\.cmake$' \
               '^lib/(.*/)?cmake/hwaccel/hwaccelConfigVersion\.cmake$' \
               '^lib/(.*/)?cmake/hwaccel/hwaccelTargets\.cmake$' \
               '^lib/(.*/)?cmake/hwaccel/hwaccelTargets-[a-z]+\.cmake$'; do
    grep -Eq "$pattern" "$tmp/files" || { echo "FAIL: nothing installed matches $pattern"; fail=1; }
done
[ "$(wc -l <"$tmp/files")" = 7 ] || { echo "FAIL: the dev component installs more than its 7 files"; fail=1; }
[ $fail = 0 ] || exit 1

pc=$(dirname "$(find "$tmp/prefix" -name hwaccel.pc)")
# libcrypto's .pc is found where it was before (the system's, or PKG_CONFIG_PATH's).
export PKG_CONFIG_PATH=$pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
flags=$(pkg-config --cflags --libs hwaccel)
echo "pkg-config --cflags --libs hwaccel: $flags"
grep -q -- "-I$tmp/prefix/include" <<<"$flags" || { echo "FAIL: Cflags do not name the prefix's include"; exit 1; }
# shellcheck disable=SC2086  # the flags are words
"$cc" -std=c99 -Wall -Wextra -o "$tmp/static_link_test" "$source" $flags
# The program must not need a libcrypto other than the one it was built for.
libdir=$(pkg-config --variable=libdir libcrypto)
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$tmp/static_link_test"
