#!/usr/bin/env bash
# The module links no libcrypto (docs/DESIGN.md): no NEEDED libcrypto/libssl,
# and every undefined symbol is defined by libc, libstdc++, libgcc or libm
# (or, in a sanitizer build, by its runtime). So one hwaccel.so, built
# against any OpenSSL 3 headers, loads into libcrypto.so.3 and .so.4 alike.
# And it is linked with full RELRO (every symbol bound at load). With
# "static-cxx-runtime" (HWACCEL_STATIC_CXX_RUNTIME, provider/CMakeLists.txt)
# it must need neither libstdc++ nor libgcc_s, and export nothing but
# OSSL_provider_init: its private copy of the C++ runtime stays hidden.
#
# usage: module_linkage_test.sh path/to/hwaccel.so [static-cxx-runtime]
set -euo pipefail
export LC_ALL=C  # sort and join agree on the order
module=${1:?usage: module_linkage_test.sh MODULE [static-cxx-runtime]}
static_runtime=${2:-}
fail=0
allowed_lib() {
    case $1 in
        libc.so.*|libstdc++.so.*|libgcc_s.so.*|libm.so.*|ld-linux*.so.*) return 0 ;;
        libasan.so.*|libubsan.so.*|libtsan.so.*) return 0 ;;  # HWACCEL_SANITIZE with g++
        *) return 1 ;;
    esac
}
needed=$(readelf -d "$module" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
for lib in $needed; do
    allowed_lib "$lib" || { echo "FAIL: $module needs $lib"; fail=1; }
done
if [ "$static_runtime" = static-cxx-runtime ]; then
    for lib in $needed; do
        case $lib in
            libstdc++.so.*|libgcc_s.so.*) echo "FAIL: $module needs $lib (the C++ runtime should be inside)"; fail=1 ;;
        esac
    done
    exported=$(nm -D --defined-only "$module" | awk '{print $NF}' | sort -u | tr '\n' ' ')
    [ "$exported" = "OSSL_provider_init " ] ||
        { echo "FAIL: $module exports more than OSSL_provider_init: $exported"; fail=1; }
fi
# What the allowed libraries define (found where the loader finds them).
defined=$(mktemp)
trap 'rm -f "$defined"' EXIT
ldd "$module" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}
                     $1 ~ /^\// {n = $1; sub(/.*\//, "", n); print n, $1}' | while read -r name path; do
    allowed_lib "$name" && nm -D --defined-only "$path" | awk '{print $NF}' | sed 's/@.*//'
done | sort -u >"$defined"
# Every strong undefined symbol must be among them. clang keeps its sanitizer
# and coverage runtimes in the executable, so a sanitized or fuzzing module
# leaves those names to the program that loads it.
missing=$(nm -D --undefined-only "$module" | awk '$(NF-1) != "w" {print $NF}' |
    grep -Ev '^(__asan_|__ubsan_|__sanitizer_|__lsan_|__sancov_)' |
    while read -r sym; do echo "${sym%%@*} $sym"; done | sort -u | join -v1 - "$defined" || true)
if [ -n "$missing" ]; then
    echo "FAIL: $module calls what no allowed library defines:"
    awk '{print "  " $2}' <<<"$missing"
    fail=1
fi
# Linked -z relro -z now (provider/CMakeLists.txt says why): a GNU_RELRO
# segment, and BIND_NOW or FLAGS_1 NOW in the dynamic section.
readelf -lW "$module" | grep -q GNU_RELRO || { echo "FAIL: $module has no GNU_RELRO segment"; fail=1; }
readelf -dW "$module" | grep -Eq '\(BIND_NOW\)|\(FLAGS(_1)?\).*NOW' ||
    { echo "FAIL: $module is not linked -z now (lazy binding)"; fail=1; }
[ $fail = 0 ] && echo "ok: $module links no libcrypto (NEEDED: $(echo $needed)), full RELRO${static_runtime:+, C++ runtime inside}"
exit $fail
