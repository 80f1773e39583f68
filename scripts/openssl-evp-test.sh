#!/usr/bin/env bash
# OpenSSL's own test/evp_test over its SHA-1/SHA-2, SHA-3/SHAKE and SM4 recipe
# files (test/recipes/30-test_evp_data/evpmd_sha.txt, evpciph_sm4.txt), with
# hwaccel as the only provider in evp_test's library context.
#
#   scripts/openssl-evp-test.sh BUILD_DIR [BUILD_DIR...]
#
# BUILD_DIR: an hwaccel build (BUILD_DIR/provider/hwaccel.so, and
# BUILD_DIR/tools/hwaccel-engines to list the engines this CPU runs). Both the
# module built against OpenSSL 3.5 and the one built against the system's 3.0
# load into 3.5's evp_test.
#
# evp_test comes from the same Debian 13 source that scripts/openssl-release.sh
# 3.5 builds the library from (same version, same Configure options, tests
# enabled), in its own cache directory next to it: openssl-release.sh makes it
# in the tree it builds 3.5's library in and keeps that tree. A cache whose
# 3.5 prefix was built without it gets it built here (about 3 minutes).
#
# How "only hwaccel" is ensured: `evp_test -provider hwaccel` creates a fresh
# library context and loads just that provider into it (OPENSSL_MODULES points
# at the build), and loads the `null` provider into the default context so
# nothing falls back to it; `-propquery provider=hwaccel` on top. Every stanza
# must then be reported as fetched ("... is fetched"), run and passed: the
# counts are checked, 0 skipped.
#
# Stanzas for algorithms hwaccel does not implement (SHA-384/512, SHA-512/t,
# KECCAK-*, SHA256-192, SM4-CCM/XTS) are filtered out before the run:
# with only hwaccel loaded evp_test would fail them, not skip them (it falls
# back to the legacy EVP_get_digestbyname table, whose implicit fetch then
# fails). The filter keeps a stanza when its Digest/Cipher value names an
# hwaccel algorithm (case-insensitive, aliases included) and prints what it
# kept and dropped per algorithm.
#
# Every file runs once per engine selection: the automatic choice, and each
# engine this CPU can run forced for its family (HWACCEL_ENGINES).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [BUILD_DIR...]" >&2; exit 2; }
log() { echo "openssl-evp-test: $*" >&2; }

prefix=$("$top/scripts/openssl-release.sh" 3.5)
debian_version=$(cat "$prefix/.complete")       # e.g. 3.5.7-1~deb13u2
upstream=${debian_version%%-*}                  # e.g. 3.5.7
cache=$(dirname "$prefix")
tree=$cache/openssl-$upstream-evp_test

build_evp_test() {
    local work
    work=$(mktemp -d)
    trap 'rm -rf "$work"' RETURN
    # The same private apt configuration as openssl-release.sh: trixie's source
    # index, the system's lists and caches untouched.
    mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/apt/parts"
    cat >"$work/apt/sources.list" <<SRC
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian-security trixie-security main
SRC
    local apt_opts=(-o "Dir::Etc::sourcelist=$work/apt/sources.list" -o "Dir::Etc::sourceparts=$work/apt/parts"
                    -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache"
                    -o "Debug::NoLocking=1")
    log "fetching the trixie source index"
    apt-get "${apt_opts[@]}" -qq update >&2
    log "downloading openssl $debian_version's upstream tarball"
    # Only the upstream tarball is used (as in openssl-release.sh); apt-get reports
    # an error when another file of the source package is gone from the pool.
    (cd "$work" && apt-get "${apt_opts[@]}" -qq source --download-only "openssl=$debian_version" >&2 2>/dev/null) || true
    local tarball
    tarball=$(ls "$work"/openssl_"$upstream".orig.tar.gz "$work"/openssl_"$upstream".orig.tar.xz 2>/dev/null | head -n 1 || true)
    [ -n "$tarball" ] || { log "could not download openssl_$upstream.orig.tar.*"; exit 1; }
    rm -rf "$tree"
    mkdir -p "$tree"
    tar -xf "$tarball" -C "$tree" --strip-components=1
    log "building test/evp_test of $upstream in $tree (about 3 minutes on 2 cores)"
    # openssl-release.sh's options without no-tests; the prefix is the library's,
    # so both builds agree on the paths baked into libcrypto.
    local evp_options=() o
    for o in $("$top/scripts/openssl-release.sh" --configure-options); do
        [ "$o" = no-tests ] || evp_options+=("$o")
    done
    (cd "$tree" && ./Configure --prefix="$prefix" --libdir=lib "${evp_options[@]}") \
        >"$work/configure.log" 2>&1 || { tail -20 "$work/configure.log" >&2; exit 1; }
    (cd "$tree" && make -j"$(nproc)" build_generated && make -j"$(nproc)" test/evp_test) \
        >"$work/make.log" 2>&1 || { tail -40 "$work/make.log" >&2; exit 1; }
    echo "$debian_version" >"$tree/.complete"
    cp "$prefix/.recipe" "$tree/.recipe"
}

# Rebuilt when the library's version or recipe (its Configure options) changed.
if [ ! -x "$tree/test/evp_test" ] || [ "$(cat "$tree/.complete" 2>/dev/null)" != "$debian_version" ] ||
   [ "$(cat "$tree/.recipe" 2>/dev/null)" != "$(cat "$prefix/.recipe" 2>/dev/null)" ]; then
    build_evp_test
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
recipes=$tree/test/recipes/30-test_evp_data

# hwaccel's algorithm names and aliases (provider/names.hpp), one per line.
served="$work/served"
sed -n 's/^inline constexpr const char k[A-Za-z0-9_]*\[\] = "\(.*\)";$/\1/p' "$top/provider/names.hpp" \
    | tr ':' '\n' | grep -v '^[0-9.]*$' >"$served"
[ "$(wc -l <"$served")" -ge 14 ] || { log "could not read the algorithm names from provider/names.hpp"; exit 1; }

# Keeps the stanzas whose Digest/Cipher hwaccel serves; prints per algorithm
# what was kept or dropped on stderr and the number kept on stdout.
filter_recipes() {  # in out
    awk -v served="$served" -v report="$work/report" '
        BEGIN { while ((getline n < served) > 0) ok[toupper(n)] = 1 }
        function flush() {
            if (stanza != "") {
                if (alg == "" || (toupper(alg) in ok)) { printf "%s\n", stanza > out; if (alg != "") { kept++; k[alg]++ } }
                else d[alg]++
            }
            stanza = ""; alg = ""
        }
        /^[ \t]*$/ { flush(); next }
        {
            stanza = stanza $0 "\n"
            if ($0 ~ /^(Digest|Cipher)[ \t]*=/) { alg = $0; sub(/^[A-Za-z]+[ \t]*=[ \t]*/, "", alg); sub(/[ \t]+$/, "", alg) }
        }
        END {
            flush()
            for (a in k) printf "  kept    %3d %s\n", k[a], a > "/dev/stderr"
            for (a in d) printf "  dropped %3d %s\n", d[a], a > "/dev/stderr"
            print kept + 0
        }' out="$2" "$1"
}

# Engine selections: "" (automatic) and family=engine for every engine the
# CPU runs, from the build's hwaccel-engines listing.
selections() {  # build
    echo "auto"
    "$1/tools/hwaccel-engines" | awk '
        /^[a-z0-9]+ +\(/ { family = $1; next }
        /available$/ && !/not supported/ { sub(/^ *\*? */, ""); print family "=" $1 }'
}

for file in evpmd_sha.txt evpciph_sm4.txt; do
    log "$file: stanzas hwaccel serves"
    filter_recipes "$recipes/$file" "$work/$file" >"$work/$file.count"
done
total_expected=0
for file in evpmd_sha.txt evpciph_sm4.txt; do
    total_expected=$((total_expected + $(cat "$work/$file.count")))
done

# A recipe with one expected byte changed must fail: evp_test really compares.
awk '!done && /^Output = / { c = substr($3, 1, 1); $3 = (c == "0" ? "1" : "0") substr($3, 2); done = 1 } { print }' \
    "$work/evpmd_sha.txt" >"$work/broken.txt"

run_evp_test() {  # build selection file -> evp_test's output in $work/out
    local engines=$2
    [ "$engines" = auto ] && engines=
    env -u OPENSSL_CONF OPENSSL_CONF=/dev/null OPENSSL_MODULES="$1/provider" \
        HWACCEL_ENGINES="$engines" LD_LIBRARY_PATH="$tree" \
        "$tree/test/evp_test" -provider hwaccel -propquery provider=hwaccel "$3" >"$work/out" 2>&1
}

fail=0
for build in "$@"; do
    build=$(cd "$build" && pwd)
    [ -f "$build/provider/hwaccel.so" ] || { log "$build/provider/hwaccel.so missing"; exit 1; }
    log "module $build/provider/hwaccel.so in OpenSSL $upstream's evp_test"
    if run_evp_test "$build" auto "$work/broken.txt"; then
        log "FAIL: a recipe with a wrong expected digest passed"; fail=1
    fi
    for sel in $(selections "$build"); do
        for file in evpmd_sha.txt evpciph_sm4.txt; do
            expected=$(cat "$work/$file.count")
            status=0
            run_evp_test "$build" "$sel" "$work/$file" || status=$?
            summary=$(grep -o 'Completed [0-9]* tests with [0-9]* errors and [0-9]* skipped' "$work/out" || true)
            fetched=$(grep -c ' is fetched' "$work/out" || true)
            read -r ran errors skipped < <(echo "$summary" | awk '{print $2, $5, $8}')
            line="$sel $file: ${summary:-no summary}, $fetched fetched from hwaccel (expected $expected)"
            if [ "$status" -ne 0 ] || [ "${ran:-}" != "$expected" ] || [ "${errors:-}" != 0 ] \
                || [ "${skipped:-}" != 0 ] || [ "$fetched" != "$expected" ]; then
                log "FAIL $line"
                tail -30 "$work/out" >&2
                fail=1
            else
                echo "  ok $line"
            fi
        done
    done
done
[ "$fail" = 0 ] || exit 1
echo "openssl-evp-test: all $total_expected hwaccel stanzas passed under every engine selection"
