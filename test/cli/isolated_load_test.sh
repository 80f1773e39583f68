#!/usr/bin/env bash
# The module built against 3.0 loads into an OpenSSL whose libcrypto is not
# libcrypto.so.3 (4.0's is libcrypto.so.4) on a system WITHOUT libcrypto.so.3:
# in a private mount namespace an empty file is bound over every
# libcrypto.so.3 the loader could find, the system's 3.0 `openssl` is shown
# to fail, then that release's `openssl` loads hwaccel and digests and
# encrypts through it, matching its default provider.
#
# usage: isolated_load_test.sh PREFIX MODULE_DIR
#   PREFIX: the release's install prefix; MODULE_DIR: holds the 3.0-built hwaccel.so
# Needs root (unshare -m); otherwise it says so and skips.
set -euo pipefail
prefix=$(cd "${1:?usage: isolated_load_test.sh PREFIX MODULE_DIR}" && pwd)
moddir=$(cd "${2:?usage: isolated_load_test.sh PREFIX MODULE_DIR}" && pwd)
libdir=$prefix/lib
[ -d "$prefix/lib64" ] && libdir=$prefix/lib64
if [ -e "$libdir/libcrypto.so.3" ]; then
    echo "isolated load: $prefix has libcrypto.so.3 itself: nothing to isolate; skipped"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "isolated load: SKIPPED (needs root for unshare -m; run as root to check that the module loads without libcrypto.so.3)"
    exit 0
fi
if [ "${HWACCEL_ISOLATED:-}" != 1 ]; then
    exec env HWACCEL_ISOLATED=1 unshare -m --propagation private bash "$0" "$@"
fi
# Inside the namespace: hide every libcrypto.so.3 (real paths, so merged-/usr
# aliases are covered too).
hidden=0
for f in $(ldconfig -p | awk '/libcrypto\.so\.3 /{print $NF}') /usr/lib/*/libcrypto.so.3 /lib/*/libcrypto.so.3; do
    [ -e "$f" ] || continue
    real=$(readlink -f "$f")
    mountpoint -q "$real" 2>/dev/null && continue
    mount --bind /dev/null "$real"
    hidden=$((hidden + 1))
done
echo "isolated load: $hidden libcrypto.so.3 file(s) hidden"
if /usr/bin/openssl version >/dev/null 2>&1; then
    echo "FAIL: the system's openssl still starts: libcrypto.so.3 is reachable"
    exit 1
fi
ossl() { LD_LIBRARY_PATH=$libdir "$prefix/bin/openssl" "$@"; }
echo "isolated load: $(ossl version) with $moddir/hwaccel.so"
ossl list -providers -provider-path "$moddir" -provider hwaccel | grep -q "hwaccel" \
    || { echo "FAIL: hwaccel did not load"; exit 1; }
msg=$(mktemp)
trap 'rm -f "$msg" "$msg".*' EXIT
head -c 100000 /dev/urandom >"$msg"
for md in sha256 sha3-256; do
    ours=$(ossl dgst -"$md" -provider-path "$moddir" -provider hwaccel -r "$msg" | cut -d' ' -f1)
    theirs=$(ossl dgst -"$md" -provider default -r "$msg" | cut -d' ' -f1)
    [ -n "$ours" ] && [ "$ours" = "$theirs" ] || { echo "FAIL: $md differs: $ours vs $theirs"; exit 1; }
done
key=000102030405060708090a0b0c0d0e0f
iv=0f0e0d0c0b0a09080706050403020100
ossl enc -sm4-ctr -K $key -iv $iv -in "$msg" -out "$msg.ours" -provider-path "$moddir" -provider hwaccel
ossl enc -sm4-ctr -K $key -iv $iv -in "$msg" -out "$msg.theirs" -provider default
cmp -s "$msg.ours" "$msg.theirs" || { echo "FAIL: SM4-CTR differs"; exit 1; }
echo "isolated load: ok (list, SHA-256, SHA3-256, SM4-CTR through the 3.0-built module without libcrypto.so.3)"
