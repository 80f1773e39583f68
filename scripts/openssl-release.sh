#!/usr/bin/env bash
# Builds one OpenSSL release line from the Debian source package of the suite
# that carries it, into a cache directory, without touching the system's
# OpenSSL or apt state, and prints the install prefix. A prefix already built
# is reused (OpenSSL bakes its install paths into libcrypto, so the prefix
# never moves).
#
#   prefix=$(scripts/openssl-release.sh 3.6)          # ~2 minutes the first time, instant after
#   prefix=$(scripts/openssl-release.sh 4.0 --pin 4.0.2-1)
#
# LINE   suite carrying it     cache directory
# 3.5    trixie (+ security)   ~/.cache/hwaccel/openssl-3.5
# 3.6    sid                   ~/.cache/hwaccel/openssl-3.6
# 4.0    experimental          ~/.cache/hwaccel/openssl-4.0
#
# Without --pin the newest version of that line the archive actually serves is
# built (an index can list a version whose files are already gone from the
# pool: the next older one is taken), and a cached build of any version of the
# line is reused. --pin VERSION takes that Debian version (3.6.3-1) or the
# newest Debian revision of that upstream version (3.6.3), and rebuilds when
# the cache holds another one.
#
# Only the upstream tarball is used (no Debian patches): this is OpenSSL as
# its upstream releases it. HWACCEL_CACHE overrides the cache root (default
# ~/.cache/hwaccel).
set -euo pipefail
usage() { echo "usage: $0 3.5|3.6|4.0 [--pin VERSION] | --configure-options" >&2; exit 2; }

# The build recipe: what the suites need (libcrypto.so, libssl.so, apps/openssl,
# headers, pkg-config files) and nothing more. Its version is part of the
# cache key: a prefix built by another recipe is rebuilt, not trusted.
recipe=2
# Only what SHA/SHA-3/SHAKE/SM4, TLS (EC certificates, TLS 1.3) and the test
# suites need: the CLI suite (dgst, enc, speed, req, s_server/s_client, list),
# the EVP suite, openssl-evp-test.sh's recipes. Every algorithm left out
# (ciphers, digests, protocols) is one none of them touches. no-engine is
# accepted (and ignored) by 4.0, which has no ENGINE API left.
configure_options=(shared no-tests no-docs no-legacy no-engine no-quic no-dtls no-cms no-ts
    no-ct no-ocsp no-cmp no-idea no-seed no-rc2 no-rc4 no-rc5 no-md4 no-mdc2 no-rmd160
    no-whirlpool no-bf no-cast no-camellia no-aria no-siphash no-blake2 no-sm2 no-srp
    no-ec2m no-gost no-ocb no-siv no-srtp no-nextprotoneg no-rfc3779)
# The line whose own test/evp_test the test command runs
# (scripts/openssl-evp-test.sh): built with its tests configured, and evp_test
# made in the same tree, which then stays in the cache as that script's tree
# (openssl-X.Y.Z-evp_test beside the prefix), so a fresh machine compiles
# libcrypto once for both, not twice (about 3 minutes on 2 cores). Only
# apps/openssl and evp_test are built, not the other test programs.
evp_test_line=3.5
if [ "${1:-}" = --configure-options ]; then
    echo "${configure_options[*]}"
    exit 0
fi
line=${1:-}
shift || usage
pin=
while [ $# -gt 0 ]; do
    case $1 in
        --pin) pin=${2:?--pin needs a version}; shift 2 ;;
        *) usage ;;
    esac
done
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
case $line in
    3.5) sources="deb-src [signed-by=$keyring] http://deb.debian.org/debian trixie main
deb-src [signed-by=$keyring] http://deb.debian.org/debian-security trixie-security main"
         suite="trixie" ;;
    3.6) sources="deb-src [signed-by=$keyring] http://deb.debian.org/debian sid main"
         suite="sid" ;;
    4.0) sources="deb-src [signed-by=$keyring] http://deb.debian.org/debian experimental main"
         suite="experimental" ;;
    *) usage ;;
esac
log() { echo "openssl-release $line: $*" >&2; }

cache=${HWACCEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hwaccel}
prefix=$cache/openssl-$line
cached_matches_pin() {  # the cached Debian version satisfies --pin
    local have
    have=$(cat "$prefix/.complete")
    [ -z "$pin" ] || [ "$have" = "$pin" ] || [ "${have%%-*}" = "$pin" ]
}
cached() {
    [ -x "$prefix/bin/openssl" ] && [ -f "$prefix/.complete" ] &&
        [ "$(cat "$prefix/.recipe" 2>/dev/null)" = "$recipe" ] && cached_matches_pin
}
if cached; then
    echo "$prefix"
    exit 0
fi
# One build per line at a time: a second caller waits, then finds it cached.
mkdir -p "$cache"
exec 9>"$cache/openssl-$line.lock"
flock 9
if cached; then
    echo "$prefix"
    exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A private apt configuration that knows only that suite's source index; the
# system's lists and caches are not touched. Bookworm's debian-archive-keyring
# signs trixie, sid and experimental alike.
mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/apt/parts"
echo "$sources" >"$work/apt/sources.list"
apt_opts=(-o "Dir::Etc::sourcelist=$work/apt/sources.list" -o "Dir::Etc::sourceparts=$work/apt/parts"
          -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
          -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")
log "fetching $suite's source index"
apt-get "${apt_opts[@]}" -qq update >&2
# Newest first; sid's index also lists older lines (3.5 migrates through it).
line_re="^${line//./\\.}\\."
versions=$(apt-cache "${apt_opts[@]}" showsrc openssl 2>/dev/null \
    | awk -v re="$line_re" '/^Version: / && $2 ~ re {print $2}' | sort -rV | uniq)
if [ -n "$pin" ]; then
    versions=$(echo "$versions" | awk -v p="$pin" '$0 == p || index($0, p "-") == 1')
fi
[ -n "$versions" ] || { log "no OpenSSL $line source${pin:+ matching $pin} in $suite's index"; exit 1; }
cd "$work"
got=
tarball=
for v in $versions; do
    log "downloading openssl $v"
    # apt-get fails when any file of the source package is gone from the pool;
    # only the upstream tarball matters.
    rm -f openssl_*
    apt-get "${apt_opts[@]}" -qq source --download-only "openssl=$v" >&2 2>/dev/null || true
    for t in openssl_"${v%%-*}".orig.tar.gz openssl_"${v%%-*}".orig.tar.xz; do
        [ -f "$t" ] && { got=$v; tarball=$t; break 2; }
    done
    log "openssl $v is listed but not served"
done
[ -n "$got" ] || { log "none of: $(echo $versions) could be downloaded"; exit 1; }
tree=$work/src
options=("${configure_options[@]}")
if [ "$line" = "$evp_test_line" ]; then
    tree=$cache/openssl-${got%%-*}-evp_test
    options=()
    for o in "${configure_options[@]}"; do [ "$o" = no-tests ] || options+=("$o"); done
fi
rm -rf "$tree"
mkdir -p "$tree" && tar -xf "$tarball" -C "$tree" --strip-components=1

log "building $got into $prefix (recipe $recipe; about 2 minutes on 2 cores)"
rm -rf "$prefix"
mkdir -p "$prefix"
cd "$tree"
start=$SECONDS
./Configure --prefix="$prefix" --libdir=lib "${options[@]}" \
    >"$work/configure.log" 2>&1 || { tail -20 "$work/configure.log" >&2; exit 1; }
# Shared libraries only: OpenSSL compiles every libcrypto/libssl source a
# second time for libcrypto.a and libssl.a, which nothing here links. LIBS
# names those static libraries (and the internal ones the shared libraries
# and apps/openssl depend on anyway, so they are still built); emptying it
# and INSTALL_LIBS skips the static pair in the build and the install.
# PROGRAMS=apps/openssl: with tests configured (evp_test_line), the programs
# would include every test and fuzz program.
make -j"$(nproc)" LIBS= PROGRAMS=apps/openssl build_sw >"$work/make.log" 2>&1 || { tail -40 "$work/make.log" >&2; exit 1; }
make LIBS= INSTALL_LIBS= PROGRAMS=apps/openssl install_sw >"$work/install.log" 2>&1 || { tail -20 "$work/install.log" >&2; exit 1; }
if [ "$line" = "$evp_test_line" ]; then
    log "building test/evp_test in $tree (for scripts/openssl-evp-test.sh)"
    make -j"$(nproc)" test/evp_test >"$work/evp_test.log" 2>&1 || { tail -40 "$work/evp_test.log" >&2; exit 1; }
    echo "$got" >"$tree/.complete"
    echo "$recipe" >"$tree/.recipe"
fi
echo "$got" >"$prefix/.complete"
echo "$recipe" >"$prefix/.recipe"
log "done in $((SECONDS - start)) s: $(LD_LIBRARY_PATH=$prefix/lib "$prefix/bin/openssl" version 2>/dev/null || true)"
echo "$prefix"
