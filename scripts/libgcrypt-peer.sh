#!/bin/bash
# Builds the strongest SM4/SHA-3 peer we know of for x86 — libgcrypt 1.11 or newer (GFNI/AVX-512
# SM4, AVX-512 Keccak) with the libgpg-error it needs — from Debian's trixie/sid source packages
# into a private prefix, without touching the system. About 5 minutes on 2 cores the first time.
#
#   libgcrypt-peer.sh [PREFIX]        (default: ~/.cache/hwaccel/libgcrypt-peer)
#
# Prints PREFIX on the last line. Link a benchmark against it with
#   -I$PREFIX/include -L$PREFIX/lib -Wl,-rpath,$PREFIX/lib -lgcrypt -lgpg-error
# and check with gcry_get_config(0, "hwflist") that intel-gfni / intel-avx512 are detected.
# For comparisons on your own machine (a peer column in a benchmark); not for CI.
# Copied from ../shared/tools/libgcrypt-peer.sh (the team's helper scripts, outside this
# repository) so that the project does not depend on them; scripts/bench.py's
# --gcrypt takes the prefix it prints:
#   python3 scripts/bench.py --gcrypt "$(scripts/libgcrypt-peer.sh)"
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
P=${1:-$HOME/.cache/hwaccel/libgcrypt-peer}
if [ -x "$P/bin/libgcrypt-config" ] || [ -f "$P/lib/libgcrypt.so" ]; then echo "$P"; exit 0; fi
W=$(mktemp -d)
mkdir -p "$P"
E=$(SRCPKG=libgpg-error UPNAME=libgpg-error GCRYPT_MIN=1.56 GCRYPT_SUITES="sid" "$HERE/fetch-libgcrypt.sh" "$W/e" | tail -1)
(cd "$E" && ./configure --prefix="$P" --disable-doc --disable-tests --disable-nls --disable-languages >/dev/null && make -j2 >/dev/null && make install >/dev/null)
G=$("$HERE/fetch-libgcrypt.sh" "$W/g" | tail -1)
(cd "$G" && ./configure --prefix="$P" --disable-doc --with-libgpg-error-prefix="$P" >/dev/null && make -j2 >/dev/null && make install >/dev/null)
rm -rf "$W"
echo "$P"
