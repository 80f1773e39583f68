#!/usr/bin/env bash
# The module links no libcrypto (docs/DESIGN.md): no NEEDED libcrypto/libssl,
# and no undefined symbol outside libc, libstdc++, libgcc and libm (a
# sanitizer build's runtime symbols aside). So one hwaccel.so, built against
# any OpenSSL 3 headers, loads into libcrypto.so.3 and libcrypto.so.4 alike.
#
# usage: module_linkage_test.sh path/to/hwaccel.so
set -euo pipefail
module=${1:?usage: module_linkage_test.sh MODULE}
fail=0
needed=$(readelf -d "$module" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for lib in $needed; do
    case $lib in
        libc.so.*|libstdc++.so.*|libgcc_s.so.*|libm.so.*|ld-linux*.so.*) ;;
        libasan.so.*|libubsan.so.*) ;;  # HWACCEL_SANITIZE with g++
        *) echo "FAIL: $module needs $lib"; fail=1 ;;
    esac
done
# Undefined dynamic symbols with their version: GLIBC_*, GLIBCXX_*, CXXABI_*,
# GCC_* come from the libraries above; anything else (OPENSSL_3.0.0, or an
# unversioned name) is a call the module must not make.
while read -r kind sym; do
    case $sym in
        *@GLIBC_*|*@GLIBCXX_*|*@CXXABI_*|*@GCC_*) ;;
        __asan_*|__ubsan_*|__sanitizer_*|__lsan_*) ;;
        *) [ "$kind" = w ] || { echo "FAIL: $module calls $sym"; fail=1; } ;;
    esac
done < <(nm -D --undefined-only "$module" | awk '{print $(NF-1), $NF}')
[ $fail = 0 ] && echo "ok: $module links no libcrypto (NEEDED: $(echo $needed))"
exit $fail
