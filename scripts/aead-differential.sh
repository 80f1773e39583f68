#!/usr/bin/env bash
# The random-sequence differential of SM4-GCM, SM4-CCM and SM4-XTS against
# the default provider (tools/aead_differential.cpp), a long run per mode.
# Builds hwaccel and the tool against an OpenSSL release (4.0 unless told),
# in the build directory scripts/test-against.sh uses. The tool's labels
# follow 4.0's default provider; where 3.6's differs (README names the
# release) they apply when it runs against 3.6.
#
# usage: scripts/aead-differential.sh [--release 3.6|4.0] [STEPS [SEED]]
#   --release: the line scripts/openssl-release.sh builds (default 4.0);
#   STEPS per mode (default 1000000, about 2 s a mode); SEED (default: a
#   random one, printed). AEAD_DIFF_OPENSSL=PREFIX: another OpenSSL 3.6+
#   (instead of --release).
# Exits 1 on a difference README does not list, or a crash, with the command
# that reproduces it and the steps that led there.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
release=4.0
if [ "${1:-}" = --release ]; then
    release=${2:?--release needs a line: 3.6 or 4.0}
    shift 2
fi
steps=${1:-1000000}
seed=${2:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
prefix=${AEAD_DIFF_OPENSSL:-$("$top/scripts/openssl-release.sh" "$release")}
prefix=$(cd "$prefix" && pwd)
version=$(LD_LIBRARY_PATH=$prefix/lib "$prefix/bin/openssl" version -v | awk '{print $2}')
dir=$top/build-openssl-$version
libdir=$prefix/lib
[ -d "$prefix/lib64" ] && libdir=$prefix/lib64

echo "== hwaccel and hwaccel-aead-differential built against OpenSSL $version ($prefix)"
PKG_CONFIG_PATH=$libdir/pkgconfig cmake -S "$top" -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$dir" -j"$(nproc)" --target hwaccel-aead-differential >/dev/null
tool=$dir/tools/hwaccel-aead-differential
export OPENSSL_MODULES=$dir/provider

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failed=0
for mode in gcm ccm xts; do
    start=$(date +%s.%N)
    status=0
    "$tool" "$mode" "$seed" "$steps" 1 >"$out/$mode.txt" 2>&1 || status=$?
    seconds=$(echo "$(date +%s.%N) - $start" | bc)
    printf '%s: %s steps, seed %s, %.1f s, exit %s\n' "$mode" "$steps" "$seed" "$seconds" "$status"
    case $status in
    0) ;;
    1)  # the tool printed each undocumented class's first trace
        failed=1
        awk '/^=== DIFF \[/ { show = !/^=== DIFF \[(doc|todo):/ } /^===/ && !/^=== DIFF/ { show = 0 }
             show' "$out/$mode.txt"
        grep -E 'UNDOCUMENTED|^FAIL' "$out/$mode.txt"
        echo "reproduce: OPENSSL_MODULES=$OPENSSL_MODULES $tool $mode $seed $steps" ;;
    *)  # a crash (either provider): the same seed again, every step traced
        failed=1
        tail -5 "$out/$mode.txt"
        echo "$mode crashed (exit $status); the last steps:"
        HWACCEL_AEAD_DIFF_VERBOSE=1 "$tool" "$mode" "$seed" "$steps" 1 2>"$out/$mode.trace" >/dev/null || true
        tail -40 "$out/$mode.trace"
        echo "reproduce: HWACCEL_AEAD_DIFF_VERBOSE=1 OPENSSL_MODULES=$OPENSSL_MODULES $tool $mode $seed $steps" ;;
    esac
done
exit $failed
