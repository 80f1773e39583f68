#!/usr/bin/env bash
# Builds the Debian packages (CPack, cmake/packaging.cmake) from a Release
# build against the system's OpenSSL, and prints their paths, one a line:
# hwaccel (the module, hwaccel-engines, its man pages, docs), then hwaccel-dev (libhwaccel.a,
# its header, hwaccel.pc, the CMake package).
#
#   scripts/package.sh [BUILD_DIR]           # default: build/
#   sudo apt-get install ./hwaccel_*.deb     # what a user then runs
#
# Only hwaccel.so, libhwaccel.a, hwaccel-engines and the compressed man
# pages are (re)built: in a build
# tree the test command already built, that is nothing, and the packages take
# seconds.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
# Prefix /usr, as the package installs (CPack's /usr): libhwaccel.a,
# hwaccel.pc and cmake/hwaccel/ then go to the multiarch libdir
# (GNUInstallDirs), as in Debian's own -dev packages, and hwaccel.pc says
# prefix=/usr, not its relocatable prefix (provider/CMakeLists.txt).
# The build tree's own prefix is put back afterwards, so a later `cmake
# --install` of it goes where it went before (not into the package's paths).
old_prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$dir/CMakeCache.txt" 2>/dev/null || true)
cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
cmake --build "$dir" -j"$(nproc)" --target hwaccel hwaccel_static hwaccel-engines hwaccel_man >&2
rm -rf "$dir/package"
(cd "$dir" && cpack -G DEB -B "$dir/package" >&2)
cmake -S "$top" -B "$dir" -DCMAKE_INSTALL_PREFIX="${old_prefix:-/usr/local}" >/dev/null
rm -rf "$dir/package/_CPack_Packages"
deb=$(ls "$dir"/package/hwaccel_*.deb)
dev=$(ls "$dir"/package/hwaccel-dev_*.deb)
for d in "$deb" "$dev"; do
    dpkg-deb --info "$d" | sed -n 's/^ \(Package\|Version\|Architecture\|Depends\):/package: \1:/p' >&2
done
echo "$deb"
echo "$dev"
