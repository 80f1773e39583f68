#!/usr/bin/env bash
# The openssl command line, Python's hashlib, pyca/cryptography and TLS with
# hwaccel, compared with OpenSSL's default provider.
#
# `openssl dgst` activates the default provider before it reads -provider, so
# a command that merely succeeds proves nothing: every hwaccel command also
# carries -propquery provider=hwaccel, under which a fetch can only succeed if
# hwaccel serves the algorithm (a negative control below shows that).
#
# usage: cli_test.sh BUILD_DIR
set -u
build=$(cd "${1:?usage: cli_test.sh BUILD_DIR}" && pwd)
openssl=${OPENSSL:-openssl}
module_dir=$build/provider
config=$build/openssl.cnf
work=$(mktemp -d)
server_pid=
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
unset OPENSSL_CONF HWACCEL_ENGINES

passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }
# expect_same WHAT A B
expect_same() { if [ "$2" == "$3" ] && [ -n "$2" ]; then ok; else bad "$1: '$2' != '$3'"; fi; }

hw=("$openssl")
hw_opts=(-provider-path "$module_dir" -provider hwaccel -provider default -propquery provider=hwaccel)

: >"$work/empty"
printf 'abc' >"$work/abc"
head -c 1000003 /dev/urandom >"$work/big"

# --- openssl dgst, every digest, every file --------------------------------
for alg in sha1 sha224 sha256 sha3-224 sha3-256 sha3-384 sha3-512 shake128 shake256; do
    extra=()
    case $alg in shake*) extra=(-xoflen 77) ;; esac
    for f in empty abc big; do
        want=$("$openssl" dgst -"$alg" "${extra[@]}" -r "$work/$f" 2>&1)
        got=$("$openssl" dgst "${hw_opts[@]}" -"$alg" "${extra[@]}" -r "$work/$f" 2>&1)
        # The exit status too: a crash in teardown at exit (OpenSSL 4.0 runs
        # its cleanup from a destructor) comes after the digest is printed.
        rc=$?
        expect_same "dgst -$alg $f" "${got%% *}" "${want%% *}"
        expect_same "dgst -$alg $f exit status" "rc=$rc" "rc=0"
    done
done
# SHAKE without -xoflen: the running OpenSSL's default length (16/32 bytes up
# to 3.3; from 3.4 on there is none and both providers must refuse).
for alg in shake128 shake256; do
    want=$("$openssl" dgst -"$alg" -r "$work/abc" 2>/dev/null); want_rc=$?
    got=$("$openssl" dgst "${hw_opts[@]}" -"$alg" -r "$work/abc" 2>/dev/null); got_rc=$?
    if [ $want_rc -ne 0 ]; then
        expect_same "dgst -$alg without -xoflen refused as default refuses" "rc=$got_rc" "rc=$want_rc"
    else
        expect_same "dgst -$alg default length" "${got%% *}" "${want%% *}"
    fi
done

# Negative control: the same property query without hwaccel loaded must fail.
if "$openssl" dgst -propquery provider=hwaccel -sha256 "$work/abc" >/dev/null 2>&1; then
    bad "negative control: -propquery provider=hwaccel succeeded without hwaccel"
else ok; fi

if "$openssl" enc -propquery provider=hwaccel -sm4-ctr -K 0123456789abcdeffedcba9876543210 \
    -iv 00112233445566778899aabbccddeeff -in "$work/abc" >/dev/null 2>&1; then
    bad "negative control: enc -propquery provider=hwaccel succeeded without hwaccel"
else ok; fi

# Loaded by its path (no -provider-path), hwaccel still answers to
# provider=hwaccel (its property once carried the path, which OpenSSL cannot
# parse, and hwaccel served nothing).
want=$("$openssl" enc -sm4-ctr -K 0123456789abcdeffedcba9876543210 \
    -iv 00112233445566778899aabbccddeeff -in "$work/big" | sha256sum)
got=$("$openssl" enc -provider "$module_dir/hwaccel.so" -provider default -propquery provider=hwaccel \
    -sm4-ctr -K 0123456789abcdeffedcba9876543210 -iv 00112233445566778899aabbccddeeff \
    -in "$work/big" | sha256sum)
expect_same "enc -sm4-ctr with -provider PATH/hwaccel.so" "$got" "$want"

# Forcing an engine that does not exist is reported, and the load fails.
if out=$(HWACCEL_ENGINES=sha256=nonesuch "$openssl" dgst "${hw_opts[@]}" -sha256 "$work/abc" 2>&1); then
    bad "unknown engine accepted"
elif grep -q "unknown engine 'nonesuch'" <<<"$out"; then ok; else bad "unknown engine message: $out"; fi

# --- openssl enc, every SM4 mode: same bytes as default, and back -----------
key=0123456789abcdeffedcba9876543210
iv=00112233445566778899aabbccddeeff
for mode in ecb cbc cfb ofb ctr; do
    ivopt=(-iv "$iv")
    [ "$mode" = ecb ] && ivopt=()
    for f in empty abc big; do
        want=$("$openssl" enc -sm4-$mode -K $key "${ivopt[@]}" -in "$work/$f" | sha256sum)
        "$openssl" enc "${hw_opts[@]}" -sm4-$mode -K $key "${ivopt[@]}" -in "$work/$f" -out "$work/enc.$mode"
        expect_same "enc -sm4-$mode $f exit status" "rc=$?" "rc=0"
        got=$(sha256sum <"$work/enc.$mode")
        expect_same "enc -sm4-$mode $f" "$got" "$want"
        "$openssl" enc "${hw_opts[@]}" -d -sm4-$mode -K $key "${ivopt[@]}" -in "$work/enc.$mode" -out "$work/dec.$mode"
        if cmp -s "$work/dec.$mode" "$work/$f"; then ok; else bad "enc -d -sm4-$mode $f does not round-trip"; fi
    done
done
# Opaque keys (OpenSSL 3.5+): hwaccel's key management SM4-SECRET keys its
# ciphers through -skeymgmt/-skeyopt.
if "$openssl" enc -help 2>&1 | grep -q -- '-skeyopt'; then
    for mode in cbc ctr; do
        want=$("$openssl" enc -sm4-$mode -K $key -iv $iv -in "$work/big" | sha256sum)
        got=$("$openssl" enc "${hw_opts[@]}" -sm4-$mode -skeymgmt SM4-SECRET -skeyopt hexraw-bytes:$key \
            -iv $iv -in "$work/big" | sha256sum)
        expect_same "enc -sm4-$mode -skeymgmt SM4-SECRET (an EVP_SKEY of hwaccel's)" "$got" "$want"
    done
fi
# Generated opaque keys (skeyutl -genkey, OpenSSL 3.5+): SM4-SECRET makes
# 16-byte keys, 32-byte ones with key-length:32, and refuses other lengths.
# Without hwaccel nothing generates it (the default's key managements have
# no generation).
if "$openssl" skeyutl -help >/dev/null 2>&1; then
    for opt in "" "-skeyopt key-length:16" "-skeyopt key-length:32"; do
        # shellcheck disable=SC2086  # $opt: none or one option and its value
        out=$("$openssl" skeyutl "${hw_opts[@]}" -genkey -skeymgmt SM4-SECRET $opt 2>&1)
        if [ $? -eq 0 ] && grep -q "^Provider: hwaccel" <<<"$out" && grep -q "^Key management: SM4-SECRET" <<<"$out"
        then ok; else bad "skeyutl -genkey -skeymgmt SM4-SECRET $opt: $out"; fi
    done
    if out=$("$openssl" skeyutl "${hw_opts[@]}" -genkey -skeymgmt SM4-SECRET -skeyopt key-length:24 2>&1); then
        bad "skeyutl -genkey -skeymgmt SM4-SECRET key-length:24 accepted: $out"
    elif grep -q "invalid key length" <<<"$out"; then ok; else bad "skeyutl key-length:24 message: $out"; fi
    if out=$("$openssl" skeyutl -genkey -skeymgmt SM4-SECRET 2>&1); then
        bad "negative control: skeyutl -genkey -skeymgmt SM4-SECRET without hwaccel: $out"
    else ok; fi
fi
out=$("$openssl" speed "${hw_opts[@]}" -seconds 1 -bytes 1024 -evp sm4-ctr 2>&1)
if [ $? -eq 0 ] && grep -Eiq '^sm4-ctr +[0-9.]+k' <<<"$out"; then ok; else bad "speed -evp sm4-ctr table: $out"; fi

# --- config file activation -------------------------------------------------
providers=$(OPENSSL_CONF=$config "$openssl" list -providers 2>&1)
if grep -A3 "^  hwaccel" <<<"$providers" | grep -q "status: active"; then ok; else
    bad "openssl list -providers with the example config: $providers"; fi
want=$("$openssl" dgst -sha256 -r "$work/big")
got=$(OPENSSL_CONF=$config "$openssl" dgst -sha256 -r "$work/big")
expect_same "config: dgst -sha256" "${got%% *}" "${want%% *}"
got=$(OPENSSL_CONF=$config "$openssl" dgst -propquery provider=hwaccel -sha256 -r "$work/big")
expect_same "config: dgst -propquery provider=hwaccel -sha256" "${got%% *}" "${want%% *}"
verbose=$(OPENSSL_CONF=$config "$openssl" list -providers -verbose 2>&1)
if grep -q "engines: sha1=" <<<"$verbose"; then ok; else bad "buildinfo lacks engines: $verbose"; fi

# --- openssl speed with the documented option order prints a table ---------
out=$("$openssl" speed "${hw_opts[@]}" -seconds 1 -bytes 64 -evp sha256 2>&1)
if [ $? -eq 0 ] && grep -Eq '^sha256 +[0-9.]+k' <<<"$out"; then ok; else bad "speed table: $out"; fi

# --- Python's hashlib --------------------------------------------------------
# With a strict config (default_properties = provider=hwaccel) hashlib gets an
# OpenSSL object only if hwaccel serves the digest; otherwise it silently
# falls back to its built-in code (shown by the broken-module control).
sed 's/^default_properties = ?provider=hwaccel/default_properties = provider=hwaccel/' \
    "$config" >"$work/strict.cnf"
sed 's#^module = .*#module = /nonexistent/hwaccel.so#' "$work/strict.cnf" >"$work/broken.cnf"
if command -v python3 >/dev/null; then
    py='import hashlib
for n in ("sha1", "sha224", "sha256", "sha3_256", "sha3_512", "shake_128"):
    h = hashlib.new(n, b"abc")
    d = h.hexdigest(20) if n.startswith("shake") else h.hexdigest()
    print(n, type(h).__module__ + "." + type(h).__name__, d)'
    want=$(python3 -c "$py" 2>&1)
    got=$(OPENSSL_CONF=$work/strict.cnf python3 -c "$py" 2>&1)
    if [ "$(grep -c '_hashlib.HASH' <<<"$got")" -eq 6 ]; then ok; else bad "hashlib via hwaccel: $got"; fi
    expect_same "hashlib digests" "$(awk '{print $1, $3}' <<<"$got")" "$(awk '{print $1, $3}' <<<"$want")"
    control=$(OPENSSL_CONF=$work/broken.cnf python3 -c 'import hashlib; print(type(hashlib.sha256()).__module__)' 2>&1)
    if [ "$control" != "_hashlib" ]; then ok; else bad "hashlib control used OpenSSL without hwaccel"; fi
else
    echo "note: python3 not found; hashlib check not run"
fi

# --- pyca/cryptography (Debian's python3-cryptography) -----------------------
# Debian's package lives in /usr/bin/python3's dist-packages; the python3 on
# PATH may be another interpreter (pyenv). It links the system libcrypto, so
# it applies only when that is the OpenSSL this run tests (not under
# scripts/test-against.sh with another release).
pyca_python=${PYCA_PYTHON:-/usr/bin/python3}
pyca_check=$(dirname "$0")/pyca_check.py
library_of() { sed -n 's/.*(Library: \(.*\))$/\1/p; t; p' <<<"$1"; }
if ! pyca_lib=$(OPENSSL_CONF=/dev/null "$pyca_python" -c 'import cryptography
from cryptography.hazmat.backends.openssl.backend import backend
print(backend.openssl_version_text())' 2>/dev/null); then
    echo "note: $pyca_python cannot import cryptography (apt-get install python3-cryptography); check not run"
elif [ "$pyca_lib" != "$(library_of "$("$openssl" version)")" ]; then
    echo "note: cryptography uses $pyca_lib, this run tests $("$openssl" version); pyca/cryptography check not run"
else
    # Without hwaccel (no config: default only), then with hwaccel preferred
    # by the build's config; each run also checks that the provider it
    # expects served every context (exit status), so they cannot both have
    # used the same one.
    want=$(OPENSSL_CONF=/dev/null "$pyca_python" "$pyca_check" default 2>"$work/pyca.err")
    if [ $? -eq 0 ]; then ok; else bad "pyca_check.py without hwaccel: $(cat "$work/pyca.err")"; fi
    got=$(OPENSSL_CONF=$config "$pyca_python" "$pyca_check" hwaccel 2>"$work/pyca.err")
    if [ $? -eq 0 ]; then ok; else bad "pyca_check.py with hwaccel: $(cat "$work/pyca.err")"; fi
    grep '^note:' "$work/pyca.err"
    if [ -n "$got" ] && [ "$got" == "$want" ]; then ok; else
        bad "pyca/cryptography with hwaccel differs from default: $(diff <(echo "$want") <(echo "$got") | head -20)"
    fi
    # The strict config: cryptography's own hash contexts get hwaccel's
    # digests and are refused the ones it lacks; the broken module refuses all.
    got=$(OPENSSL_CONF=$work/strict.cnf "$pyca_python" "$pyca_check" --probe 2>&1)
    want=$(OPENSSL_CONF=/dev/null "$pyca_python" "$pyca_check" --probe 2>&1)
    want=$(sed -E 's/^(sha384|sha512) .*/\1 refused: InternalError/' <<<"$want")
    expect_same "pyca/cryptography strict config probe" "$got" "$want"
    got=$(OPENSSL_CONF=$work/broken.cnf "$pyca_python" "$pyca_check" --probe 2>&1)
    if [ "$(grep -c 'refused: InternalError$' <<<"$got")" -eq 5 ]; then ok; else
        bad "pyca/cryptography probe with the broken config: $got"; fi
fi

# --- TLS: s_server and s_client with the example config ---------------------
# A config of its own: an OpenSSL installed with install_sw has no openssl.cnf.
printf '[req]\ndistinguished_name = dn\n[dn]\n' >"$work/req.cnf"
"$openssl" req -config "$work/req.cnf" -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
    -nodes -days 1 -subj /CN=localhost -keyout "$work/key.pem" -out "$work/cert.pem" 2>"$work/req.err" ||
    bad "making a test certificate: $(cat "$work/req.err")"
port=$((20000 + RANDOM % 20000))
OPENSSL_CONF=$config "$openssl" s_server -accept "127.0.0.1:$port" -cert "$work/cert.pem" \
    -key "$work/key.pem" -naccept 1 >"$work/server.out" 2>&1 < <(sleep 60) &
server_pid=$!
# s_server quits at end of its stdin, hence the sleep; it prints ACCEPT once it
# listens (a probe connection would use up -naccept).
for _ in $(seq 100); do
    grep -q ACCEPT "$work/server.out" 2>/dev/null && break
    sleep 0.1
done
client=$(echo "hello over tls" | OPENSSL_CONF=$config timeout 20 "$openssl" s_client \
    -connect "127.0.0.1:$port" -CAfile "$work/cert.pem" -verify_return_error -brief 2>&1)
wait "$server_pid" 2>/dev/null
server_pid=
if grep -q "Verification: OK" <<<"$client" && grep -q "hello over tls" "$work/server.out"; then ok
else bad "TLS handshake with hwaccel active: $client"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
