#!/usr/bin/env bash
# What libhwaccel.a defines for the program that links it: its entry point
# hwaccel_provider_init and no OSSL_provider_init (so it links beside other
# static providers); every other global definition in namespace hwaccel, a
# C name with the hwaccel_ prefix, or a weak template instance (std::
# containers over hwaccel's types or plain ones, which the linker merges
# with the program's own copies). Anything else could clash with a
# program's symbol and is reported.
#
# usage: archive_symbols_test.sh libhwaccel.a
set -euo pipefail
export LC_ALL=C
archive=${1:?usage: archive_symbols_test.sh ARCHIVE}
fail=0
# "name type" for each global definition (T, D, B, R, W, V, u, ...).
syms=$(nm -g --defined-only "$archive" | awk 'NF == 3 {print $3, $2}' | sort -u)
grep -q '^hwaccel_provider_init T$' <<<"$syms" || { echo "FAIL: no hwaccel_provider_init (T)"; fail=1; }
if grep -q '^OSSL_provider_init ' <<<"$syms"; then
    echo "FAIL: the archive defines OSSL_provider_init"; fail=1
fi
strong_other=$(while read -r name type; do
    case $type in W|V|u) continue ;; esac  # weak or unique: merged, never a clash
    case $name in
        hwaccel_*) continue ;;
        _ZN7hwaccel*|_ZNK7hwaccel*|_ZZN7hwaccel*|_ZTVN7hwaccel*|_ZTIN7hwaccel*|_ZTSN7hwaccel*) continue ;;
    esac
    echo "$name $type"
done <<<"$syms")
if [ -n "$strong_other" ]; then
    echo "FAIL: global definitions outside namespace hwaccel:"
    c++filt <<<"$strong_other" | sed 's/^/  /'
    fail=1
fi
weak=$(awk '$2 ~ /^[WVu]$/' <<<"$syms" | wc -l)
[ $fail = 0 ] && echo "ok: $(wc -l <<<"$syms") global definitions, $weak of them weak template" \
    "instances; the strong ones all hwaccel:: or hwaccel_*; hwaccel_provider_init, no OSSL_provider_init"
exit $fail
