#!/usr/bin/env bash
# The Debian packages as a user meets them: `apt-get install ./hwaccel_*.deb`,
# the provider found by name alone (no -provider-path: the module is in the
# directory `openssl version -m` names), a digest served by it, the man pages
# hwaccel-engines(1) and hwaccel(7) found by man -w (gzipped, as Debian
# ships them); with
# hwaccel-dev, test/static/static_link_test.c compiled by the C compiler with
# what `pkg-config --cflags --libs hwaccel` says and run, and built again by
# the C-only CMake project test/static/cmake_consumer (find_package(hwaccel)
# from the system's paths alone) and run; then `apt-get remove` and nothing of
# either left on the system.
#
# usage: test/package/package_test.sh DEB [DEV_DEB]   (as root, or with sudo)
#        (scripts/package.sh prints both paths)
#
# It changes the system's package state while it runs (install, then
# remove); it refuses to start if an hwaccel.so or hwaccel header that no
# package owns is installed (by hand: `cmake --install`), since installing
# and removing the packages would delete it.
set -u
deb=$(cd "$(dirname "${1:?usage: package_test.sh DEB [DEV_DEB]}")" && pwd)/$(basename "$1")
dev=
[ $# -ge 2 ] && dev=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
static_dir=$(cd "$(dirname "$0")/../static" && pwd)
source_c=$static_dir/static_link_test.c
sudo=
[ "$(id -u)" -ne 0 ] && sudo=sudo
apt=($sudo env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o DPkg::Lock::Timeout=300)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset OPENSSL_CONF OPENSSL_MODULES HWACCEL_ENGINES

failed=0
bad() { failed=1; echo "FAIL: $*" >&2; }
modules=$(openssl version -m | sed -n 's/^MODULESDIR: "\(.*\)"$/\1/p')
[ -n "$modules" ] || { echo "FAIL: openssl version -m names no modules directory" >&2; exit 1; }
if [ -e "$modules/hwaccel.so" ] && ! dpkg -S "$modules/hwaccel.so" 2>/dev/null | grep -q '^hwaccel:'; then
    echo "FAIL: $modules/hwaccel.so is there and no package owns it (cmake --install?);" \
         "remove it first: this test would replace and then delete it" >&2
    exit 1
fi
header=/usr/include/hwaccel/hwaccel_provider.h
if [ -n "$dev" ] && [ -e "$header" ] && ! dpkg -S "$header" 2>/dev/null | grep -q '^hwaccel-dev:'; then
    echo "FAIL: $header is there and no package owns it (cmake --install?); remove it first" >&2
    exit 1
fi

echo "== package: $deb"
dpkg-deb --field "$deb" Package Version Architecture Depends
# Any OpenSSL from 3.0 to 4.0 can load the module (it links no libcrypto).
dpkg-deb --field "$deb" Depends | grep -Eq '(^|, )libssl3 \(>= 3\.0\.0\) \| libssl3t64 \(>= 3\.0\.0\) \| libssl4(,|$)' \
    || bad "Depends does not offer libssl3 | libssl3t64 | libssl4"
dpkg-deb --contents "$deb" | awk '{print $NF}' | grep -v '/$' | sed 's|^\./|/|' >"$work/files"
man1=/usr/share/man/man1/hwaccel-engines.1.gz
man7=/usr/share/man/man7/hwaccel.7.gz
for f in "$modules/hwaccel.so" /usr/bin/hwaccel-engines /usr/share/doc/hwaccel/openssl.cnf.example \
         /usr/share/doc/hwaccel/README.md /usr/share/doc/hwaccel/docs/DESIGN.md "$man1" "$man7"; do
    grep -qx "$f" "$work/files" || bad "the package lacks $f"
done
# The static library, its header, hwaccel.pc and the CMake package are
# hwaccel-dev's alone.
grep -E '/libhwaccel\.a$|^/usr/include/|/pkgconfig/|/cmake/' "$work/files" | sed 's/^/  /' | grep . &&
    bad "the hwaccel package holds hwaccel-dev's files (above)"
multiarch=$(dirname "$modules")  # /usr/lib/<triplet>, where libcrypto is
if [ -n "$dev" ]; then
    echo "== package: $dev"
    dpkg-deb --field "$dev" Package Version Architecture Depends
    dpkg-deb --field "$dev" Depends | grep -q 'libssl-dev' || bad "hwaccel-dev does not depend on libssl-dev"
    dpkg-deb --contents "$dev" | awk '{print $NF}' | grep -v '/$' | sed 's|^\./|/|' >"$work/dev-files"
    cmakedir=$multiarch/cmake/hwaccel  # where find_package looks (lib/<arch>/cmake/<name>)
    for f in "$header" "$multiarch/libhwaccel.a" "$multiarch/pkgconfig/hwaccel.pc" \
             "$cmakedir/hwaccelConfig.cmake" "$cmakedir/hwaccelConfigVersion.cmake" \
             "$cmakedir/hwaccelTargets.cmake" "$cmakedir/hwaccelTargets-release.cmake"; do
        grep -qx "$f" "$work/dev-files" || bad "hwaccel-dev lacks $f"
    done
    [ "$(wc -l <"$work/dev-files")" = 7 ] || bad "hwaccel-dev holds more than its 7 files"
    cat "$work/dev-files" >>"$work/files"
fi

echo "== apt-get install $deb $dev"
"${apt[@]}" install "$deb" ${dev:+"$dev"} >"$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; bad "apt-get install"; exit 1; }
tail -3 "$work/install.log"

echo "== openssl list -providers -provider hwaccel"
out=$(openssl list -providers -provider hwaccel 2>&1)
echo "$out"
grep -q '^  hwaccel$' <<<"$out" && grep -q 'status: active' <<<"$out" || bad "hwaccel not listed as active"

echo "== a digest through it, without -provider-path"
printf 'abc' >"$work/abc"
got=$(openssl dgst -provider hwaccel -provider default -propquery provider=hwaccel -sha256 -r "$work/abc" 2>&1)
want=$(openssl dgst -sha256 -r "$work/abc" 2>&1)
echo "hwaccel: $got"
[ -n "$got" ] && [ "${got%% *}" = "${want%% *}" ] || bad "sha256 through the installed hwaccel: '$got' != '$want'"
hwaccel-engines >/dev/null 2>&1 || bad "hwaccel-engines does not run"

echo "== man pages"
for page in "$man1" "$man7"; do
    gzip -t "$page" 2>/dev/null || bad "$page is missing or not gzip"
done
if command -v man >/dev/null; then
    # man-db's own lookup, as a user's `man hwaccel-engines` and `man 7 hwaccel`.
    got1=$(man -w hwaccel-engines 2>&1)
    got7=$(man -w 7 hwaccel 2>&1)
    echo "man -w hwaccel-engines: $got1"
    echo "man -w 7 hwaccel: $got7"
    [ "$got1" = "$man1" ] || bad "man -w hwaccel-engines gives '$got1', not $man1"
    [ "$got7" = "$man7" ] || bad "man -w 7 hwaccel gives '$got7', not $man7"
    # They render without a warning from the installed files.
    for page in "$man1" "$man7"; do
        [ -e "$page" ] || continue
        warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
        [ -z "$warnings" ] || bad "man --warnings -l $page: $warnings"
    done
else
    echo "no man (man-db) here: the pages checked by path only"
fi

if [ -n "$dev" ]; then
    echo "== hwaccel-dev: a C program linked with libhwaccel.a through pkg-config"
    flags=$(pkg-config --cflags --libs hwaccel) || bad "pkg-config knows no hwaccel"
    echo "pkg-config --cflags --libs hwaccel: $flags"
    # /usr/include and /usr/lib/<triplet> are pkg-config's system
    # directories, left out: an -L of the latter, searched first, would
    # override the libcrypto of an OpenSSL that PKG_CONFIG_PATH names.
    grep -Eq -- '(^| )-[IL]' <<<"$flags" && bad "pkg-config gives -I or -L for system directories"
    # shellcheck disable=SC2086  # the flags are words
    if cc -std=c99 -Wall -Wextra -o "$work/static_link_test" "$source_c" $flags; then
        "$work/static_link_test" || bad "the program linked with the installed libhwaccel.a failed"
    else
        bad "a C program does not link with the installed libhwaccel.a"
    fi
    echo "== hwaccel-dev: the same program from a C-only CMake project, find_package(hwaccel)"
    version=$(dpkg-deb --field "$dev" Version)
    if ! command -v cmake >/dev/null; then
        bad "no cmake to build test/static/cmake_consumer with"
    elif cmake -S "$static_dir/cmake_consumer" -B "$work/cmake-app" -DCMAKE_BUILD_TYPE=Release \
            -DHWACCEL_VERSION="${version%%-*}" -DHWACCEL_TEST_SOURCE="$source_c" \
            >"$work/cmake.log" 2>&1 &&
         cmake --build "$work/cmake-app" >>"$work/cmake.log" 2>&1; then
        grep -E 'hwaccel .* from' "$work/cmake.log"
        grep -q "hwaccel .* from $cmakedir\$" "$work/cmake.log" ||
            bad "find_package(hwaccel) did not take $cmakedir"
        "$work/cmake-app/static_link_test" || bad "the program built by CMake failed"
    else
        cat "$work/cmake.log" >&2
        bad "the CMake project does not build against the installed hwaccel-dev"
    fi
fi

packages=(hwaccel)
[ -n "$dev" ] && packages+=(hwaccel-dev)
echo "== apt-get remove ${packages[*]}"
"${apt[@]}" remove "${packages[@]}" >"$work/remove.log" 2>&1 || { cat "$work/remove.log" >&2; bad "apt-get remove"; }
grep -v "Reading database" "$work/remove.log" | tail -2
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || echo not-installed)
    [ "$status" = not-installed ] || bad "after remove, dpkg says $p is $status"
done
left=0
while read -r f; do
    if [ -e "$f" ]; then bad "left behind: $f"; left=1; fi
done <"$work/files"
[ -e /usr/share/doc/hwaccel ] && { bad "left behind: /usr/share/doc/hwaccel/"; left=1; }
[ -e /usr/include/hwaccel ] && { bad "left behind: /usr/include/hwaccel/"; left=1; }
[ -e "$multiarch/cmake/hwaccel" ] && { bad "left behind: $multiarch/cmake/hwaccel/"; left=1; }
[ "$left" = 0 ] && echo "nothing left: none of the packages' $(wc -l <"$work/files") files," \
    "no /usr/share/doc/hwaccel, no /usr/include/hwaccel, no $multiarch/cmake/hwaccel"
if openssl list -providers -provider hwaccel >/dev/null 2>&1; then
    bad "openssl still loads a provider named hwaccel after remove"
fi

[ "$failed" = 0 ] && echo "package test: passed"
exit "$failed"
