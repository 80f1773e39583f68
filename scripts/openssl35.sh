#!/usr/bin/env bash
# Builds OpenSSL 3.5 from Debian 13's source package into a cache directory,
# without touching the system's OpenSSL or apt state, and prints the install
# prefix. A prefix already built is reused (OpenSSL bakes its install paths
# into libcrypto, so the prefix never moves).
#
#   prefix=$(scripts/openssl35.sh)   # ~2 minutes the first time, instant after
#
# HWACCEL_CACHE overrides the cache root (default ~/.cache/hwaccel).
set -euo pipefail
cache=${HWACCEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hwaccel}
prefix=$cache/openssl-3.5
if [ -x "$prefix/bin/openssl" ] && [ -f "$prefix/.complete" ]; then
    echo "$prefix"
    exit 0
fi
log() { echo "openssl35: $*" >&2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A private apt configuration that knows trixie's source index; the system's
# lists and caches are not touched. Bookworm's debian-archive-keyring has the
# trixie keys.
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/apt/parts"
cat >"$work/apt/sources.list" <<SRC
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security trixie-security main
SRC
apt_opts=(-o "Dir::Etc::sourcelist=$work/apt/sources.list" -o "Dir::Etc::sourceparts=$work/apt/parts"
          -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
          -o "Debug::NoLocking=1")
log "fetching the trixie source index"
apt-get "${apt_opts[@]}" -qq update >&2
# The index can list a version the pool no longer serves: newest first.
versions=$(apt-cache "${apt_opts[@]}" showsrc openssl 2>/dev/null | awk '/^Version: 3\.5/ {print $2}' | sort -rV | uniq)
[ -n "$versions" ] || { log "no OpenSSL 3.5 source in trixie's index"; exit 1; }
cd "$work"
got=
for v in $versions; do
    log "downloading openssl $v"
    if apt-get "${apt_opts[@]}" -qq source --download-only "openssl=$v" >&2 2>/dev/null; then got=$v; break; fi
done
[ -n "$got" ] || { log "none of: $versions could be downloaded"; exit 1; }
tarball=$(ls openssl_*.orig.tar.* | head -n 1)
mkdir src && tar -xf "$tarball" -C src --strip-components=1

log "building $got into $prefix (about 2 minutes on 2 cores)"
rm -rf "$prefix"
mkdir -p "$prefix"
cd src
# Only what SHA/SHA-3/SHAKE/SM4, TLS and Python's hashlib need; asm, scrypt,
# comp and deprecated stay (Python's _hashlib/_ssl need their symbols).
./Configure --prefix="$prefix" --libdir=lib shared no-tests no-docs \
    no-legacy no-engine no-quic no-dtls no-cms no-ts no-ct no-ocsp no-cmp \
    >"$work/configure.log" 2>&1 || { tail -20 "$work/configure.log" >&2; exit 1; }
make -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -40 "$work/make.log" >&2; exit 1; }
make install_sw >"$work/install.log" 2>&1 || { tail -20 "$work/install.log" >&2; exit 1; }
echo "$got" >"$prefix/.complete"
log "done: $("$prefix/bin/openssl" version 2>/dev/null || true)"
echo "$prefix"
