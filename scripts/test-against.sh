#!/usr/bin/env bash
# Runs the EVP and CLI suites against another OpenSSL 3 or 4 installation:
#   1. hwaccel built against it (headers and libcrypto from PREFIX);
#   2. the module built against the system's OpenSSL 3.0 (BUILD_30, if
#      given) loaded into that OpenSSL's CLI: one binary for every release;
#      for 4.0 (libcrypto.so.4) also with libcrypto.so.3 made unreachable.
#
# usage: scripts/test-against.sh PREFIX [BUILD_30]
#   PREFIX: an OpenSSL install prefix (bin/openssl, lib/, include/, lib/pkgconfig/)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=$(cd "${1:?usage: test-against.sh PREFIX [BUILD_30]}" && pwd)
build30=${2:-}
version=$("$prefix/bin/openssl" version -v 2>/dev/null | awk '{print $2}' || true)
[ -n "$version" ] || version=$(LD_LIBRARY_PATH=$prefix/lib "$prefix/bin/openssl" version -v | awk '{print $2}')
dir=$top/build-openssl-$version
libdir=$prefix/lib
[ -d "$prefix/lib64" ] && libdir=$prefix/lib64

echo "== hwaccel built against OpenSSL $version ($prefix)"
# Only what the suites below (and openssl-evp-test.sh) use: the module, the
# EVP suite and hwaccel-engines, and on 3.6+ (whose default provider has
# SM4-GCM, CCM and XTS) the AEAD differential's smoke run
# (tools/aead_differential.cpp); the backend suites do not involve OpenSSL.
targets=(hwaccel hwaccel_provider_tests hwaccel-engines)
case $version in 3.[0-5].*) ;; *) targets+=(hwaccel-aead-differential) ;; esac
PKG_CONFIG_PATH=$libdir/pkgconfig cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$dir" -j"$(nproc)" --target "${targets[@]}"
# The test binaries find that libcrypto through their build RPATH. The CLI
# suite gets a wrapper for that openssl binary: exporting LD_LIBRARY_PATH to
# everything would hand the other libcrypto to unrelated programs (ctest
# itself links libcurl, whose libssh2 needs symbols a trimmed build lacks).
mkdir -p "$dir/bin"
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$libdir" "$prefix/bin/openssl" >"$dir/bin/openssl"
chmod +x "$dir/bin/openssl"
export OPENSSL=$dir/bin/openssl
"$OPENSSL" version
# Anchored: phe_provider_tests (the PHE model's EVP suite) is not built here.
(cd "$dir" && ctest --output-on-failure -R '^(provider_tests|cli_tests|aead_differential_smoke_.*)$')

if [ -n "$build30" ]; then
    echo "== the module built against the system OpenSSL, loaded into OpenSSL $version's CLI"
    bash "$top/test/cli/cli_test.sh" "$build30"
    # On a release whose libcrypto is not libcrypto.so.3 (4.0): the same
    # module with libcrypto.so.3 made unreachable (root: unshare -m).
    bash "$top/test/cli/isolated_load_test.sh" "$prefix" "$build30/provider"
fi
