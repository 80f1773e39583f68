#!/usr/bin/env bash
# The "dev" component as installed: `cmake --install --component dev` into a
# temporary prefix must give libhwaccel.a, hwaccel/hwaccel_provider.h,
# hwaccel.pc and the CMake package's four files (cmake/cmake_package.cmake;
# cmake_package_test.sh uses them), nothing else, and static_link_test.c
# compiled and linked with the C compiler and what `pkg-config --cflags
# --libs hwaccel` says there must run and pass; again with the prefix moved
# and reached through a symbolic link (hwaccel.pc is relocatable).
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

pc=$(find "$tmp/prefix" -name hwaccel.pc)
pcdir=${pc#"$tmp/prefix/"}; pcdir=${pcdir%/hwaccel.pc}  # lib/pkgconfig, lib/<triplet>/pkgconfig
# Relocatable: the prefix is where pkg-config found the file, not a path
# written at install time.
grep '^prefix=' "$pc"
grep -q '^prefix=${pcfiledir}/\.\.' "$pc" || { echo "FAIL: hwaccel.pc's prefix is not \${pcfiledir}-relative"; exit 1; }
# The program must not need a libcrypto other than the one it was built for.
cryptolib=$(pkg-config --variable=libdir libcrypto)

# pkg-config finds hwaccel.pc under PREFIX (as the path is spelt); the -I
# and -L it gives must be PREFIX's include and libdir, and the program
# compiled and linked with them must run.
build_with() {
    local prefix=$1 flags inc lib
    # libcrypto's .pc is found where it was before (the system's, or PKG_CONFIG_PATH's).
    flags=$(PKG_CONFIG_PATH=$prefix/$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} pkg-config --cflags --libs hwaccel)
    echo "pkg-config --cflags --libs hwaccel, the file under $prefix: $flags"
    inc=$(sed -n 's/^-I\([^ ]*\) .*/\1/p' <<<"$flags")  # hwaccel's -I comes first
    lib=$(grep -o -- "-L[^ ]* -lhwaccel" <<<"$flags" | sed 's/^-L\(.*\) -lhwaccel$/\1/')
    [[ $inc == "$prefix/"* ]] && [ -f "$inc/hwaccel/hwaccel_provider.h" ] ||
        { echo "FAIL: the -I ($inc) is not $prefix's include directory"; exit 1; }
    [[ $lib == "$prefix/"* ]] && [ -f "$lib/libhwaccel.a" ] ||
        { echo "FAIL: the -L before -lhwaccel ($lib) is not $prefix's libdir"; exit 1; }
    # shellcheck disable=SC2086  # the flags are words
    "$cc" -std=c99 -Wall -Wextra -o "$tmp/static_link_test" "$source" $flags
    LD_LIBRARY_PATH=$cryptolib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$tmp/static_link_test"
}
build_with "$tmp/prefix"
# The same files moved elsewhere, and reached through a symbolic link.
mv "$tmp/prefix" "$tmp/moved"
ln -s moved "$tmp/link"
build_with "$tmp/link"
