"""pyca/cryptography over EVP: hashes, SM4 and the errors it maps by code.

usage: python3 pyca_check.py PROVIDER | --probe

cli_test.sh runs this twice, with hwaccel preferred (PROVIDER=hwaccel) and
without hwaccel loaded (PROVIDER=default), and compares the two outputs line
by line. Each run also checks that PROVIDER served cryptography's cipher
contexts and the digests it fetches (stderr, exit status 1 if not), so the
two runs cannot both have used the same provider. --probe: see below.

Written against Debian 12's python3-cryptography 38, whose ciphers are Python
over cffi: the EVP_CIPHER_CTX pointer is a private attribute (c._ctx._ctx).
If a version hides it, the provider check fails instead of passing without
looking.
"""
import ctypes
import sys
import zlib

import cryptography
from cryptography.hazmat.backends.openssl.backend import backend
from cryptography.hazmat.bindings.openssl.binding import Binding
from cryptography.hazmat.primitives import hashes, hmac, cmac
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

want_provider = sys.argv[1]
ffi, lib = Binding.ffi, Binding.lib

if want_provider == "--probe":
    # For cli_test.sh's strict config (default_properties = provider=hwaccel):
    # cryptography's Hash gets hwaccel's digests and no others.
    for alg in (hashes.SHA256(), hashes.SHA3_256(), hashes.SHAKE128(16), hashes.SHA384(),
                hashes.SHA512()):
        try:
            h = hashes.Hash(alg)
            h.update(b"abc")
            print(alg.name, h.finalize().hex())
        except Exception as e:  # noqa: BLE001 - the refusal is the result
            print(alg.name, "refused:", type(e).__name__)
    sys.exit(0)


def libcrypto_in_use():
    # The copy of libcrypto cryptography's _openssl module is linked to:
    # dlopen of the same path returns the already loaded library.
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "/libcrypto.so" in path:
                return ctypes.CDLL(path)
    raise SystemExit("FAIL: no libcrypto mapped into the process")


crypto = libcrypto_in_use()
for name in ("EVP_CIPHER_CTX_get0_cipher", "EVP_CIPHER_get0_provider", "EVP_MD_get0_provider"):
    getattr(crypto, name).restype = ctypes.c_void_p
    getattr(crypto, name).argtypes = [ctypes.c_void_p]
crypto.EVP_MD_fetch.restype = ctypes.c_void_p
crypto.EVP_MD_fetch.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p]
crypto.EVP_MD_free.argtypes = [ctypes.c_void_p]
crypto.OSSL_PROVIDER_get0_name.restype = ctypes.c_char_p
crypto.OSSL_PROVIDER_get0_name.argtypes = [ctypes.c_void_p]

provider_checks = 0
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def provider_name(prov):
    return crypto.OSSL_PROVIDER_get0_name(prov).decode() if prov else "(no provider)"


def expect_provider(what, got):
    global provider_checks
    provider_checks += 1
    if got != want_provider:
        fail(f"{what}: served by {got}, expected {want_provider}")


def check_cipher(what, c):
    """The provider of the cipher in cryptography's own EVP_CIPHER_CTX."""
    try:
        addr = int(ffi.cast("uintptr_t", c._ctx._ctx))
    except (AttributeError, TypeError) as e:
        fail(f"{what}: cannot reach the EVP_CIPHER_CTX of cryptography "
             f"{cryptography.__version__}: {e}")
        return
    cipher = crypto.EVP_CIPHER_CTX_get0_cipher(addr)
    expect_provider(what, provider_name(cipher and crypto.EVP_CIPHER_get0_provider(cipher)))


def check_md(alg):
    """The provider EVP_DigestInit_ex's implicit fetch gets for alg.

    cryptography 38 hands EVP_DigestInit_ex the legacy EVP_MD of
    EVP_get_digestbyname, and OpenSSL fetches the implementation by name
    with the default properties; EVP_MD_CTX_get0_md returns the legacy one,
    so the fetch is repeated here in the same process and library context.
    cli_test.sh's strict-config probe shows cryptography's own contexts
    obeying those properties.
    """
    md = crypto.EVP_MD_fetch(None, alg.name.encode(), None)
    expect_provider(f"{alg.name} fetch", provider_name(md and crypto.EVP_MD_get0_provider(md)))
    crypto.EVP_MD_free(md)


def short(data):
    # A digest of the output that involves no OpenSSL (CRC + length): a wrong
    # SHA-256 in the provider under test must not judge its own output.
    return f"{len(data)}:{zlib.crc32(data):08x}"


def out(case, result):
    # An error left on OpenSSL's queue would be blamed on cryptography's
    # next call: record whether each case leaves it empty.
    queue = "clean" if lib.ERR_peek_error() == 0 else "ERRORS LEFT"
    backend._consume_errors()
    print(f"{case}: {result} [{queue}]")


def outcome(fn):
    """fn()'s result, or the exception it raises as type: message."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the exception is the result
        return f"{type(e).__name__}: {e}"


data = bytes((i * 131 + 7) & 0xFF for i in range(100003))

# --- hashes ------------------------------------------------------------------
hash_algs = [hashes.SHA1(), hashes.SHA224(), hashes.SHA256(), hashes.SHA3_224(),
             hashes.SHA3_256(), hashes.SHA3_384(), hashes.SHA3_512(),
             hashes.SHAKE128(16), hashes.SHAKE128(300), hashes.SHAKE256(32),
             hashes.SHAKE256(333)]
for alg in hash_algs:
    check_md(alg)
    name = f"{alg.name}/{alg.digest_size}"
    for n in (0, 1, 55, 56, 64, 1000, 100000):
        h = hashes.Hash(alg)
        h.update(data[:n])
        out(f"{name} len {n}", h.finalize().hex())
    # Incremental updates of odd sizes, with copies taken part way: the copy
    # must carry the state, and the original go on unchanged.
    h = hashes.Hash(alg)
    copies = []
    pos = 0
    for step in (1, 2, 3, 63, 64, 65, 135, 137, 1000, 7, 4096):
        h.update(data[pos:pos + step])
        pos += step
        copies.append(h.copy())
    out(f"{name} incremental", h.finalize().hex())
    for i, c in enumerate(copies[::3]):
        c.update(b"tail")
        out(f"{name} copy {i}", c.finalize().hex())
    out(f"{name} finalize twice", outcome(lambda: h.finalize()))

# Built on the digests: HMAC, HKDF, PBKDF2 (the default provider's KDFs fetch
# the digest under the same default properties).
for alg in (hashes.SHA1(), hashes.SHA256(), hashes.SHA3_256()):
    m = hmac.HMAC(b"k" * 70, alg)
    m.update(data[:1000])
    out(f"hmac {alg.name}", m.finalize().hex())
    out(f"hkdf {alg.name}", HKDF(alg, 50, b"salt", b"info").derive(b"secret").hex())
    out(f"pbkdf2 {alg.name}", PBKDF2HMAC(alg, 40, b"salt", 100).derive(b"pw").hex())

# --- SM4 -----------------------------------------------------------------------
key = bytes.fromhex("0123456789abcdeffedcba9876543210")
iv = bytes.fromhex("00112233445566778899aabbccddeeff")
sm4_modes = {"ECB": lambda: modes.ECB(), "CBC": lambda: modes.CBC(iv),
             "CFB": lambda: modes.CFB(iv), "OFB": lambda: modes.OFB(iv),
             "CTR": lambda: modes.CTR(iv), "GCM": lambda: modes.GCM(iv),
             "XTS": lambda: modes.XTS(iv)}
tested = []
for mode_name, make_mode in sm4_modes.items():
    if not backend.cipher_supported(algorithms.SM4(key), make_mode()):
        print(f"note: SM4-{mode_name} not offered by cryptography {cryptography.__version__};"
              " not checked", file=sys.stderr)
        continue
    if mode_name in ("GCM", "XTS"):
        # Newer cryptography offers these; this check does not cover them yet.
        print(f"note: SM4-{mode_name} offered by cryptography {cryptography.__version__}"
              " but not covered by this check", file=sys.stderr)
        continue
    tested.append(mode_name)
    block_mode = mode_name in ("ECB", "CBC")
    for n in (0, 1, 15, 16, 17, 64, 1000, 100000):
        if block_mode and n % 16:
            continue
        cipher = Cipher(algorithms.SM4(key), make_mode())
        enc = cipher.encryptor()
        check_cipher(f"sm4-{mode_name} encrypt", enc)
        ct = enc.update(data[:n]) + enc.finalize()
        out(f"sm4-{mode_name} encrypt len {n}", short(ct))
        dec = cipher.decryptor()
        check_cipher(f"sm4-{mode_name} decrypt", dec)
        pt = dec.update(ct) + dec.finalize()
        out(f"sm4-{mode_name} decrypt len {n}", "round trip" if pt == data[:n] else short(pt))
    # Streaming: updates of odd sizes, output collected through update_into
    # into one buffer (cryptography's in-place-like path), and update().
    steps = (1, 15, 2, 16, 17, 31, 33, 255, 4097, 5, 1000, 3)
    total = sum(steps)
    if block_mode:
        total -= total % 16
    cipher = Cipher(algorithms.SM4(key), make_mode())
    enc = cipher.encryptor()
    buf = bytearray(total + 15)
    got = bytearray()
    pos = 0
    for step in steps:
        chunk = data[pos:min(pos + step, total)]
        pos += len(chunk)
        n = enc.update_into(chunk, buf)
        got += buf[:n]
    got += enc.finalize()
    out(f"sm4-{mode_name} streamed encrypt {total}", short(bytes(got)))
    dec = cipher.decryptor()
    pt = b"".join(dec.update(bytes(got[i:i + s])) for i, s in
                  zip([sum(steps[:k]) for k in range(len(steps))], steps)) + dec.finalize()
    out(f"sm4-{mode_name} streamed decrypt {total}",
        "round trip" if pt == data[:total] else short(pt))
    # In place, through memoryviews of one buffer: a block mode's output
    # trails its input by the bytes it holds back, so they overlap.
    for direction, source, want in (("encryptor", data[:total], bytes(got)),
                                    ("decryptor", bytes(got), data[:total])):
        ctx = getattr(cipher, direction)()
        buf = bytearray(source + bytes(16))
        view = memoryview(buf)
        pos = outpos = 0
        for step in steps:
            step = min(step, total - pos)
            outpos += ctx.update_into(view[pos:pos + step], view[outpos:])
            pos += step
        view.release()
        res = bytes(buf[:outpos]) + ctx.finalize()
        out(f"sm4-{mode_name} in-place {direction} {total}",
            "same as separate buffers" if res == want else short(res))

# CMAC over SM4 (cryptography runs it on the SM4-CBC it fetches).
for n in (0, 16, 1000):
    c = cmac.CMAC(algorithms.SM4(key))
    c.update(data[:n])
    out(f"cmac sm4 len {n}", c.finalize().hex())

# --- errors cryptography raises for these algorithms --------------------------
# CBC/ECB without padding, input not a whole number of blocks: cryptography
# turns PROV_R_WRONG_FINAL_BLOCK_LENGTH into ValueError, and any other code
# into InternalError.
for mode_name in ("ECB", "CBC"):
    if mode_name not in tested:
        continue
    for n in (1, 17, 33):
        for direction in ("encryptor", "decryptor"):
            def run(n=n, direction=direction, mode_name=mode_name):
                ctx = getattr(Cipher(algorithms.SM4(key), sm4_modes[mode_name]()), direction)()
                produced = ctx.update(data[:n])
                return f"{len(produced)} bytes, then " + outcome(ctx.finalize)
            out(f"sm4-{mode_name} {direction} {n} bytes", outcome(run))
out("sm4 key of 15 bytes", outcome(lambda: algorithms.SM4(key[:15])))
out("sm4 key of 32 bytes", outcome(lambda: algorithms.SM4(key + key)))
for mode_name in tested:
    if mode_name == "ECB":
        continue
    out(f"sm4-{mode_name} iv of 8 bytes", outcome(lambda: Cipher(
        algorithms.SM4(key), getattr(modes, mode_name)(iv[:8])).encryptor()))


def update_after_finalize():
    ctx = Cipher(algorithms.SM4(key), modes.CTR(iv)).encryptor()
    ctx.finalize()
    return ctx.update(b"x")


out("sm4-CTR update after finalize", outcome(update_after_finalize))
out("sm4 update_into small buffer", outcome(lambda: Cipher(
    algorithms.SM4(key), modes.CBC(iv)).encryptor().update_into(b"x" * 32, bytearray(32))))

print(f"provider checks: {provider_checks}")
if failures:
    sys.exit(1)
