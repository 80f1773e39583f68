#!/usr/bin/env bash
# The Debian package as a user meets it: `apt-get install ./hwaccel_*.deb`,
# the provider found by name alone (no -provider-path: the module is in the
# directory `openssl version -m` names), a digest served by it, then
# `apt-get remove` and nothing of it left on the system.
#
# usage: test/package/package_test.sh DEB      (as root, or with sudo)
#
# It changes the system's package state while it runs (install, then
# remove); it refuses to start if an hwaccel.so that no package owns is in
# the modules directory (installed by hand: `cmake --install`), since
# installing and removing the package would delete it.
set -u
deb=$(cd "$(dirname "${1:?usage: package_test.sh DEB}")" && pwd)/$(basename "$1")
sudo=
[ "$(id -u)" -ne 0 ] && sudo=sudo
apt=($sudo env DEBIAN_FRONTEND=noninteractive apt-get -y -q -o DPkg::Lock::Timeout=300)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset OPENSSL_CONF OPENSSL_MODULES HWACCEL_ENGINES

failed=0
bad() { failed=1; echo "FAIL: $*" >&2; }
modules=$(openssl version -m | sed -n 's/^MODULESDIR: "\(.*\)"$/\1/p')
[ -n "$modules" ] || { echo "FAIL: openssl version -m names no modules directory" >&2; exit 1; }
if [ -e "$modules/hwaccel.so" ] && ! dpkg -S "$modules/hwaccel.so" 2>/dev/null | grep -q '^hwaccel:'; then
    echo "FAIL: $modules/hwaccel.so is there and no package owns it (cmake --install?);" \
         "remove it first: this test would replace and then delete it" >&2
    exit 1
fi

echo "== package: $deb"
dpkg-deb --field "$deb" Package Version Architecture Depends
# Any OpenSSL from 3.0 to 4.0 can load the module (it links no libcrypto).
dpkg-deb --field "$deb" Depends | grep -Eq '(^|, )libssl3 \(>= 3\.0\.0\) \| libssl3t64 \(>= 3\.0\.0\) \| libssl4(,|$)' \
    || bad "Depends does not offer libssl3 | libssl3t64 | libssl4"
dpkg-deb --contents "$deb" | awk '{print $NF}' | grep -v '/$' | sed 's|^\./|/|' >"$work/files"
for f in "$modules/hwaccel.so" /usr/bin/hwaccel-engines /usr/share/doc/hwaccel/openssl.cnf.example \
         /usr/share/doc/hwaccel/README.md /usr/share/doc/hwaccel/docs/DESIGN.md; do
    grep -qx "$f" "$work/files" || bad "the package lacks $f"
done

echo "== apt-get install $deb"
"${apt[@]}" install "$deb" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; bad "apt-get install"; exit 1; }
tail -3 "$work/install.log"

echo "== openssl list -providers -provider hwaccel"
out=$(openssl list -providers -provider hwaccel 2>&1)
echo "$out"
grep -q '^  hwaccel$' <<<"$out" && grep -q 'status: active' <<<"$out" || bad "hwaccel not listed as active"

echo "== a digest through it, without -provider-path"
printf 'abc' >"$work/abc"
got=$(openssl dgst -provider hwaccel -provider default -propquery provider=hwaccel -sha256 -r "$work/abc" 2>&1)
want=$(openssl dgst -sha256 -r "$work/abc" 2>&1)
echo "hwaccel: $got"
[ -n "$got" ] && [ "${got%% *}" = "${want%% *}" ] || bad "sha256 through the installed hwaccel: '$got' != '$want'"
hwaccel-engines >/dev/null 2>&1 || bad "hwaccel-engines does not run"

echo "== apt-get remove hwaccel"
"${apt[@]}" remove hwaccel >"$work/remove.log" 2>&1 || { cat "$work/remove.log" >&2; bad "apt-get remove"; }
grep -v "Reading database" "$work/remove.log" | tail -2
status=$(dpkg-query -W -f='${db:Status-Status}' hwaccel 2>/dev/null || echo not-installed)
[ "$status" = not-installed ] || bad "after remove, dpkg says hwaccel is $status"
left=0
while read -r f; do
    if [ -e "$f" ]; then bad "left behind: $f"; left=1; fi
done <"$work/files"
[ -e /usr/share/doc/hwaccel ] && { bad "left behind: /usr/share/doc/hwaccel/"; left=1; }
[ "$left" = 0 ] && echo "nothing left: none of the package's $(wc -l <"$work/files") files, no /usr/share/doc/hwaccel"
if openssl list -providers -provider hwaccel >/dev/null 2>&1; then
    bad "openssl still loads a provider named hwaccel after remove"
fi

[ "$failed" = 0 ] && echo "package test: passed"
exit "$failed"
