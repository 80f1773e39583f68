#!/bin/bash
# Fetch libgcrypt >= 1.11 source from Debian's libgcrypt20 source package
# (hash-checked by apt against the signed Sources index) WITHOUT touching the
# system's apt configuration, and unpack the upstream tarball.
#
#
#   fetch-libgcrypt.sh WORKDIR
#
# GCRYPT_SUITES="trixie sid" (default) are the suites listed; GCRYPT_MIN=1.11
# is the lowest upstream line accepted; GCRYPT_DEB_VERSION pins a version.
# SRCPKG=libgpg-error UPNAME=libgpg-error GCRYPT_MIN=1.56 fetches the
# libgpg-error that libgcrypt 1.12 needs instead (default SRCPKG=libgcrypt20,
# UPNAME=libgcrypt).
# DEBIAN_MIRROR overrides the mirror (default: the system's own apt sources).
# Prints the unpacked source directory on the last line.
# Copied from ../shared/tools/fetch-libgcrypt.sh (the team's helper scripts, outside this
# repository), for scripts/libgcrypt-peer.sh.
set -euo pipefail
W=$(mkdir -p "$1" && cd "$1" && pwd)
sys_mirror() {
    { sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null || true
      [ -f /etc/apt/sources.list ] && sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\).*/\2/p' /etc/apt/sources.list
    } | grep -v -- '-security' | sed -n '1s|/debian/\?$||p' || true
}
M=${DEBIAN_MIRROR:-$(sys_mirror)}
[ -n "$M" ] || { echo "no Debian mirror found in the system's apt sources; set DEBIAN_MIRROR" >&2; exit 1; }
KR=/usr/share/keyrings/debian-archive-keyring.gpg
A=$W/apt
mkdir -p "$A/etc/sources.list.d" "$A/etc/preferences.d" "$A/lists/partial" \
         "$A/cache/archives/partial" "$W/dl"
SUITES=${GCRYPT_SUITES:-trixie sid}
MIN=${GCRYPT_MIN:-1.11}
SRCPKG=${SRCPKG:-libgcrypt20}
UPNAME=${UPNAME:-libgcrypt}
: > "$A/etc/sources.list"
for s in $SUITES; do echo "deb-src [signed-by=$KR] $M/debian $s main" >> "$A/etc/sources.list"; done
APTO=(-o "Dir::Etc::sourcelist=$A/etc/sources.list"
      -o "Dir::Etc::sourceparts=$A/etc/sources.list.d"
      -o "Dir::Etc::preferencesparts=$A/etc/preferences.d"
      -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache"
      -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
      -o "APT::Sandbox::User=root")
apt-get "${APTO[@]}" -qq update
if [ -n "${GCRYPT_DEB_VERSION:-}" ]; then
    versions=$GCRYPT_DEB_VERSION
else
    echo "listed $SRCPKG versions:" $(apt-cache "${APTO[@]}" showsrc $SRCPKG | sed -n 's/^Version: //p' | sort -urV) >&2
    versions=$(apt-cache "${APTO[@]}" showsrc $SRCPKG | sed -n 's/^Version: //p' | sort -urV \
               | while read -r v; do up=${v%%-*}; up=${up#*:}
                     if [ "$(printf '%s\n%s\n' "$MIN" "$up" | sort -V | head -1)" = "$MIN" ]; then echo "$v"; fi; done)
fi
got=""
for v in $versions; do
    echo "trying $SRCPKG $v" >&2
    if (cd "$W/dl" && apt-get "${APTO[@]}" -qq source --download-only "$SRCPKG=$v" >&2); then
        got=$v; break
    fi
    # The mirror may serve a version's upstream tarball but not its .dsc /
    # debian.tar.xz.  apt keeps a downloaded file only if its hash matched;
    # re-check that its SHA-256 is listed in the signed Sources index.
    up=${v%%-*}; up=${up#*:}
    for tb in "$W/dl/${SRCPKG}_$up.orig.tar."*; do
        case $tb in *.asc|*'*') continue ;; esac
        h=$(sha256sum "$tb" | cut -d' ' -f1)
        for l in "$A"/lists/*_Sources*; do
            if /usr/lib/apt/apt-helper cat-file "$l" | grep -c " $h " >/dev/null; then
                echo "$SRCPKG $v: only the upstream tarball is served; its SHA-256 is in the signed index ${l##*dists_}" >&2
                got=$v; break 3
            fi
        done
    done
done
[ -n "$got" ] || { echo "no $SRCPKG >= $MIN source package could be downloaded from: $SUITES" >&2; exit 1; }
up=${got%%-*}; up=${up#*:}
echo "Debian source package $SRCPKG $got (upstream $up)" >&2
tb=$(ls "$W/dl/${SRCPKG}_$up.orig.tar."*  | grep -v '\.asc$' | head -1)
sha256sum "$tb" >&2
rm -rf "$W/$UPNAME-$up"
tar -C "$W" -xf "$tb"
echo "$W/$UPNAME-$up"
