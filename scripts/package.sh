#!/usr/bin/env bash
# Builds the Debian package (CPack, cmake/packaging.cmake) from a Release
# build against the system's OpenSSL, and prints the .deb's path.
#
#   deb=$(scripts/package.sh [BUILD_DIR])    # default: build/
#   sudo apt-get install ./hwaccel_*.deb     # what a user then runs
#
# Only hwaccel.so and hwaccel-engines are (re)built: in a build tree the test
# command already built, that is nothing, and the package takes seconds.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$dir" -j"$(nproc)" --target hwaccel hwaccel-engines >&2
rm -rf "$dir/package"
(cd "$dir" && cpack -G DEB -B "$dir/package" >&2)
rm -rf "$dir/package/_CPack_Packages"
deb=$(ls "$dir"/package/hwaccel_*.deb)
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Architecture\|Depends\):/package: \1:/p' >&2
echo "$deb"
