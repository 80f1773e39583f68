#!/usr/bin/env bash
# Installs, from Debian's packages, whatever the build, tests and benchmark
# need and this machine lacks. Safe to run again: installed packages are skipped.
set -euo pipefail
# clang-14 and libclang-rt-14-dev: the libFuzzer targets (scripts/fuzz.sh).
# libgcrypt20-dev: scripts/bench.py's libgcrypt column, and the SM4-GCM
# differential test's reference on OpenSSL 3.0 (test/provider/sm4_gcm_evp_test.cpp).
# python3-cryptography: pyca/cryptography in the CLI suite (test/cli/pyca_check.py,
# run with /usr/bin/python3 whatever python3 is on PATH).
# groff-base and man-db: the man pages' test (test/man) and the package test's man -w.
packages=(cmake g++ make pkg-config libssl-dev openssl catch2 python3 valgrind gnuplot-nox
          clang-14 libclang-rt-14-dev libgcrypt20-dev python3-cryptography groff-base man-db)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# A python3 outside dpkg (pyenv, say) does as well (only the exact name:
# python3-cryptography is still needed).
if command -v python3 >/dev/null; then
    missing=($(printf '%s\n' "${missing[@]}" | grep -vx 'python3' || true))
fi
missing=($(printf '%s\n' "${missing[@]}" | grep -v '^$' || true))
if [ "${#missing[@]}" -gt 0 ]; then
    echo "installing: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
