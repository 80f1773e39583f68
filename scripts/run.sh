#!/usr/bin/env bash
# README's main job: installs what is missing, builds hwaccel.so, shows which
# engines serve each algorithm, and runs openssl speed side by side, OpenSSL's
# default provider against hwaccel (scripts/bench.py; arguments are passed on,
# e.g. --alg sha256 --rounds 5 --plot speed.png).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh
scripts/build.sh "$top/build"
build/tools/hwaccel-engines
echo
exec python3 scripts/bench.py --build "$top/build" "$@"
