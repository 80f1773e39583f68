#!/usr/bin/env python3
"""openssl speed, OpenSSL's default provider against hwaccel (and libgcrypt), side by side.

Both providers are measured in the same run, interleaved (default, hwaccel,
default, hwaccel, ...), so that a busy machine slows both alike; the ratio
reported is the median of the per-round ratios, the MB/s the medians.

Every hwaccel run uses the option order that really measures hwaccel on
OpenSSL 3.0 (see README): -provider-path, -provider hwaccel, -provider default,
-propquery provider=hwaccel, and only then -evp ALG.

Next to MB/s: cycles per byte (TSC ticks, x86-64) and CPU seconds per GB.
With a libgcrypt (the system's, or --gcrypt PREFIX, e.g. the newest one from
scripts/libgcrypt-peer.sh), a libgcrypt column measured in the same rounds,
through hwaccel-evp-bench built against it on demand (x86-64). Then the
scaling from 1 to all cores (openssl speed -multi) of one algorithm per
family, default and hwaccel.
"""
import argparse
import datetime
import hashlib
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile

DIGESTS = ["sha1", "sha224", "sha256", "sha3-224", "sha3-256", "sha3-384", "sha3-512",
           "shake128", "shake256"]
# (label, speed -evp name, decrypt?)
CIPHERS = [("sm4-ecb", "sm4-ecb", False), ("sm4-cbc", "sm4-cbc", False),
           ("sm4-cbc-dec", "sm4-cbc", True), ("sm4-cfb", "sm4-cfb", False),
           ("sm4-cfb-dec", "sm4-cfb", True), ("sm4-ofb", "sm4-ofb", False),
           ("sm4-ctr", "sm4-ctr", False),
           # One whole message per call (openssl speed -evp's AEAD loop: key
           # and IV, AAD, text, final), XTS one data unit per call. OpenSSL 3.0's
           # default provider has none of the three (3.5 has CCM; 3.6 all):
           # its column then reads "n/a", hwaccel's is still measured. CCM
           # decryption is left out: speed's fixed fake tag never verifies,
           # and hwaccel's CCM then skips the second CTR pass.
           ("sm4-gcm", "sm4-gcm", False), ("sm4-gcm-dec", "sm4-gcm", True),
           ("sm4-ccm", "sm4-ccm", False),
           ("sm4-xts", "sm4-xts", False), ("sm4-xts-dec", "sm4-xts", True)]
ALL = [(d, d, False) for d in DIGESTS] + CIPHERS
# Labels only openssl speed measures (hwaccel-evp-bench has no GCM decryption).
SPEED_ONLY = {"sm4-gcm-dec"}
FAMILY = {"sha1": "sha1", "sha224": "sha256", "sha256": "sha256"}
# The order of the columns; "hwaccel / X" ratios are against each other one.
IMPLS = ["default", "hwaccel", "libgcrypt"]
# The length the -multi scaling is measured at.
MULTI_BYTES = 16384
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def family_of(label):
    if label in FAMILY:
        return FAMILY[label]
    return "sm4" if label.startswith("sm4") else "sha3"


# ---- running and parsing openssl speed and hwaccel-evp-bench ----

def parse_speed_mr(text, single_bytes=None):
    """MB/s per length from `openssl speed -mr` output. With -multi the parent
    prints the summed +F line only (its children's lines come as "Got: ..."),
    and no +H line: the length is then the -bytes value."""
    sizes, rates = None, None
    for line in text.splitlines():
        if line.startswith("+H:"):
            sizes = [int(x) for x in line[3:].split(":")]
        elif line.startswith("+F:"):
            rates = [float(x) / 1e6 for x in line.split(":")[3:]]
    if sizes is None and single_bytes is not None:
        sizes = [single_bytes]
    if not sizes or not rates or len(sizes) != len(rates):
        return None
    return dict(zip(sizes, rates))


class NoSuchAlgorithm(RuntimeError):
    """This OpenSSL's provider does not have the algorithm."""


def speed(args, alg, decrypt, provider, env, multi=None):
    cmd = [args.openssl, "speed"]
    if provider == "hwaccel":
        cmd += ["-provider-path", args.module_dir, "-provider", "hwaccel",
                "-provider", "default", "-propquery", "provider=hwaccel"]
    else:
        cmd += ["-provider", "default", "-propquery", "provider=default"]
    cmd += ["-seconds", str(args.seconds), "-mr"]
    if multi:
        # Wall-clock time: the sum over processes is then the throughput the
        # machine delivers, not what each would get with a core to itself.
        cmd += ["-multi", str(multi), "-elapsed", "-bytes", str(MULTI_BYTES)]
    if decrypt:
        cmd += ["-decrypt"]
    cmd += ["-evp", alg]
    run = subprocess.run(cmd, capture_output=True, text=True, env=openssl_env(args, env))
    rates = parse_speed_mr(run.stdout, MULTI_BYTES if multi else None)
    if run.returncode != 0 and ("unknown cipher" in run.stderr or
                                "evp_generic_fetch:unsupported" in run.stderr):
        raise NoSuchAlgorithm("%s: %s has none" % (alg, provider))
    if run.returncode != 0 or not rates:
        raise RuntimeError("%s failed (rc=%d): %s" % (" ".join(cmd), run.returncode,
                                                   run.stderr.strip()[-400:]))
    return rates


def parse_tool_mr(text):
    """hwaccel-evp-bench --mr / --seconds output: facts (+I), ticks per call
    (+T:ALG:LEN:IMPL=TICKS:...) and openssl-speed-style rates (+H, +F:IMPL:ALG:...)."""
    info, ticks, rates, sizes = {}, {}, {}, None
    for line in text.splitlines():
        if line.startswith("+I:"):
            key, _, value = line[3:].partition(":")
            info[key] = value
        elif line.startswith("+T:"):
            f = line[3:].split(":")
            ticks[(f[0], int(f[1]))] = {k: float(v) for k, v in (x.split("=") for x in f[2:])}
        elif line.startswith("+H:"):
            sizes = [int(x) for x in line[3:].split(":")]
        elif line.startswith("+F:"):
            f = line[3:].split(":")
            rates[(f[0], f[1])] = dict(zip(sizes or [], (float(x) / 1e6 for x in f[2:])))
    return info, ticks, rates


def run_tool(cmd, env):
    run = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        raise RuntimeError("%s failed (rc=%d): %s" % (" ".join(cmd), run.returncode,
                                                   run.stderr.strip()[-600:]))
    return parse_tool_mr(run.stdout)


def engines_in_use(args, env):
    tool = os.path.join(args.build, "tools", "hwaccel-engines")
    run = subprocess.run([tool], capture_output=True, text=True, env=env)
    for line in run.stdout.splitlines():
        if line.startswith("selection: "):
            return dict(kv.split("=") for kv in line[len("selection: "):].split(","))
    raise RuntimeError("hwaccel-engines failed: " + run.stderr.strip())


def tsc_mhz(args, env):
    """The TSC's rate, from hwaccel-evp-bench (x86-64 builds); None elsewhere."""
    tool = os.path.join(args.build, "tools", "hwaccel-evp-bench")
    if not os.path.exists(tool):
        return None
    try:
        info, _, _ = run_tool([tool, "--module-dir", args.module_dir, "--providers", "default",
                               "--info"], env)
        return float(info["tsc-mhz"])
    except (RuntimeError, OSError, KeyError, ValueError):
        return None


# ---- libgcrypt: which one, and hwaccel-evp-bench built against it ----

def gcrypt_flags(prefix):
    """Compiler and linker flags for a libgcrypt: "system" or an install prefix.
    None (and why) when its development files are not there."""
    if prefix == "system":
        for cmd in (["pkg-config", "--cflags", "--libs", "libgcrypt"], ["libgcrypt-config", "--cflags", "--libs"]):
            try:
                run = subprocess.run(cmd, capture_output=True, text=True)
            except OSError:
                continue
            if run.returncode == 0:
                return shlex.split(run.stdout), None
        return None, ("no libgcrypt development files (Debian: apt-get install libgcrypt20-dev, "
                      "which scripts/install-deps.sh does; or --gcrypt PREFIX)")
    header = os.path.join(prefix, "include", "gcrypt.h")
    if not os.path.exists(header):
        return None, "no %s" % header
    libdir = next((os.path.join(prefix, d) for d in ("lib", "lib64")
                   if os.path.exists(os.path.join(prefix, d, "libgcrypt.so"))), None)
    if libdir is None:
        return None, "no libgcrypt.so in %s/lib or lib64" % prefix
    return ["-I" + os.path.join(prefix, "include"), "-L" + libdir, "-Wl,-rpath," + libdir,
            "-lgcrypt", "-lgpg-error"], None


def gcrypt_tool(args, prefix):
    """hwaccel-evp-bench with libgcrypt compiled in, built when missing or
    older than its sources; one binary per libgcrypt. None (and why) if not."""
    if platform.machine() not in ("x86_64", "AMD64", "amd64"):
        return None, "hwaccel-evp-bench is x86-64 only (it reads the TSC)"
    flags, why = gcrypt_flags(prefix)
    if flags is None:
        return None, why
    try:
        crypto = shlex.split(subprocess.run(["pkg-config", "--cflags", "--libs", "libcrypto"],
                                            capture_output=True, text=True, check=True).stdout)
    except (OSError, subprocess.CalledProcessError):
        return None, "pkg-config libcrypto failed"
    tag = hashlib.sha1(prefix.encode()).hexdigest()[:10]
    out = os.path.join(args.build, "tools", "hwaccel-evp-bench-gcrypt-" + tag)
    sources = [os.path.join(TOP, "tools", f) for f in ("evp_bench.cpp", "bench_op.hpp", "fenced_tsc.hpp", "gcrypt_op.hpp")]
    if prefix != "system":
        sources.append(os.path.join(prefix, "include", "gcrypt.h"))
    if os.path.exists(out) and all(os.path.getmtime(out) > os.path.getmtime(s) for s in sources):
        return out, None
    cmd = [os.environ.get("CXX", "g++"), "-std=c++17", "-O2", "-DHWACCEL_EVP_BENCH_GCRYPT",
           '-DHWACCEL_MODULE_DIR="%s"' % args.module_dir, sources[0], "-o", out] + crypto + flags
    print("building %s (libgcrypt: %s)" % (os.path.relpath(out), prefix))
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        return None, "%s failed: %s" % (" ".join(cmd), run.stderr.strip()[-800:])
    return out, None


# ---- from per-round MB/s to the figures reported ----

def aggregate(rounds, tsc):
    """rounds: [{impl: {length: MB/s}}, ...], MB/s per CPU second. One row per
    length: medians of MB/s per implementation; "hwaccel / X" ratios as the
    median (and range) of the per-round ratios; cycles per byte (TSC ticks,
    when the TSC rate is known) and CPU seconds per GB (10^9 bytes)."""
    impls = [i for i in IMPLS if all(i in r for r in rounds)]
    rows = []
    if not impls:
        return impls, rows
    for size in sorted(rounds[0][impls[0]]):
        mbps = {i: statistics.median(r[i][size] for r in rounds) for i in impls}
        ratio = {}
        pairs = [("hwaccel", o) for o in impls if o != "hwaccel"] + [("libgcrypt", "default")]
        for a, b in pairs:
            if a in impls and b in impls:
                per = [r[a][size] / r[b][size] for r in rounds]
                ratio[(a, b)] = (statistics.median(per), min(per), max(per))
        rows.append({"size": size, "mbps": mbps, "ratio": ratio,
                     "cpb": {i: tsc / mbps[i] for i in impls} if tsc else {},
                     "sgb": {i: 1e3 / mbps[i] for i in impls}})
    return impls, rows


def sig(x):
    """Three significant figures, no exponent."""
    if x >= 100:
        return "%.0f" % x
    return "%.1f" % x if x >= 10 else "%.2f" % x if x >= 1 else "%.3f" % x


def columns(impls, rows, ranges):
    """(header, cell function) of a per-algorithm table."""
    cols = [("length", lambda r: "%d" % r["size"])]
    cols += [("%s MB/s" % i, lambda r, i=i: "%.1f" % r["mbps"][i]) for i in impls]
    for a, b in [("hwaccel", o) for o in impls if o != "hwaccel"]:
        cols.append(("%s / %s" % (a, b), lambda r, k=(a, b): "%.2fx" % r["ratio"][k][0]))
        if ranges:
            cols.append(("range", lambda r, k=(a, b): "%.2f-%.2f" % r["ratio"][k][1:]))
    if rows and rows[0]["cpb"]:
        cols += [("%s c/B" % i, lambda r, i=i: sig(r["cpb"][i])) for i in impls]
    cols += [("%s CPU s/GB" % i, lambda r, i=i: sig(r["sgb"][i])) for i in impls]
    return cols


def render(title, impls, rows, ranges):
    """The table for one algorithm, for the terminal and as Markdown."""
    cols = columns(impls, rows, ranges)
    cells = [[f(r) for _, f in cols] for r in rows]
    widths = [max([len(h)] + [len(c[k]) for c in cells]) for k, (h, _) in enumerate(cols)]
    text = [title, "  ".join(h.rjust(w) for (h, _), w in zip(cols, widths))]
    text += ["  ".join(c.rjust(w) for c, w in zip(cell, widths)) for cell in cells]
    md = ["", "**%s**" % title, "", "| " + " | ".join(h for h, _ in cols) + " |",
          "|" + "---:|" * len(cols)]
    md += ["| " + " | ".join(cell) + " |" for cell in cells]
    return text, md


def report(label, impls, rows, engines, ranges, results, md):
    title = "%s (hwaccel engine: %s)" % (label, engines.get(family_of(label), "?"))
    text, table = render(title, impls, rows, ranges)
    print("\n" + "\n".join(text))
    md += table
    results.append((label, impls, rows))


# ---- the two ways of measuring ----

def speed_main(args, algs, env, engines, gcrypt, tsc):
    """openssl speed for default and hwaccel, hwaccel-evp-bench --seconds for
    libgcrypt (the same method: calls for --seconds, bytes per user CPU second)."""
    method = ("openssl speed, %d s per size, %d interleaved rounds; MB/s are medians (bytes per "
              "second of user CPU time, as openssl speed counts), the ratio is the median of the "
              "per-round ratios." % (args.seconds, args.rounds))
    if gcrypt:
        method += (" libgcrypt is timed in the same rounds by hwaccel-evp-bench --seconds, built "
                   "against it, the same way (calls for %d s per size, bytes per user CPU second). "
                   "For digests the calls differ: openssl speed calls EVP_Digest, which makes and "
                   "frees a context every call, where libgcrypt's handle is reused, so at short "
                   "lengths the libgcrypt column is flattered; `--evp` makes the same calls for "
                   "all three. Likewise for SM4-GCM and SM4-CCM: openssl speed sets key and IV "
                   "for every message (a key schedule, and for GCM the GHASH key, per call), "
                   "libgcrypt's key is set once and only its IV per message." % args.seconds)
    method += UNITS
    print(method)
    results, md = [], []
    for label, alg, decrypt in algs:
        rounds = []
        try:
            default_missing = None
            for _ in range(args.rounds):
                r = {}
                if default_missing is None:
                    try:
                        r["default"] = speed(args, alg, decrypt, "default", env)
                    except NoSuchAlgorithm as e:
                        # OpenSSL 3.0 has no SM4-GCM/CCM/XTS: hwaccel alone.
                        default_missing = e
                        print("\n%s: the default provider has none here: hwaccel's column only"
                              % label)
                r["hwaccel"] = speed(args, alg, decrypt, "hwaccel", env)
                if gcrypt and label not in gcrypt.setdefault("unknown", set()):
                    try:
                        _, _, rates = run_tool([gcrypt["tool"], "--module-dir", args.module_dir,
                                                "--providers", "libgcrypt", "--seconds",
                                                str(args.seconds), label], env)
                    except RuntimeError as e:
                        # A label only openssl speed has (sm4-gcm-dec): no column.
                        if "unknown algorithm" not in str(e):
                            raise
                        gcrypt["unknown"].add(label)
                        rates = {}
                    if ("libgcrypt", label) in rates:
                        r["libgcrypt"] = rates[("libgcrypt", label)]
                rounds.append(r)
        except RuntimeError as e:
            print("\n%s: skipped: %s" % (label, e))
            continue
        impls, rows = aggregate(rounds, tsc)
        report(label, impls, rows, engines, False, results, md)
    return method, results, md


def evp_main(args, algs, env, engines, gcrypt):
    """--evp: hwaccel-evp-bench --rounds times; medians of its per-run figures."""
    tool = gcrypt["tool"] if gcrypt else os.path.join(args.build, "tools", "hwaccel-evp-bench")
    if not os.path.exists(tool):
        sys.exit("no %s: build first (x86-64 only)" % tool)
    labels = [a[0] for a in algs if a[0] not in SPEED_ONLY]
    for label in sorted({a[0] for a in algs} & SPEED_ONLY):
        print("%s: skipped: openssl speed only (no --evp)" % label)
    providers = "hwaccel,default" + (",libgcrypt" if gcrypt else "")
    runs = []
    for _ in range(args.rounds):
        try:
            info, ticks, _ = run_tool([tool, "--module-dir", args.module_dir, "--providers",
                                       providers, "--mr"] + labels, env)
        except RuntimeError as e:
            sys.exit("bench.py: %s" % e)
        runs.append((float(info["tsc-mhz"]), ticks))
    method = ("hwaccel-evp-bench, %d runs, each making the same EVP calls as `openssl speed -evp` "
              "with %s alternating call by call: MB/s and cycles per byte come from the TSC ticks "
              "per call, medians of the runs' medians; each ratio is the median of the runs' "
              "ratios, with their range." % (args.rounds, "hwaccel, default and libgcrypt"
                                             if gcrypt else "hwaccel and default"))
    if gcrypt:
        method += GCRYPT_CALLS
    method += UNITS
    print(method)
    results, md = [], []
    for label in labels:
        # Per run: MB/s of each implementation at each length, from its ticks per call.
        rounds = []
        for tsc, ticks in runs:
            r = {}
            for (lab, size), per_impl in ticks.items():
                if lab == label:
                    for impl, t in per_impl.items():
                        r.setdefault(impl, {})[size] = size * tsc / t
            rounds.append(r)
        impls, rows = aggregate(rounds, statistics.median(t for t, _ in runs))
        if not rows:  # the tool skipped it: this OpenSSL's default provider has none
            print("\n%s: skipped: no default-provider reference in this OpenSSL" % label)
            continue
        report(label, impls, rows, engines, True, results, md)
    return method, results, md


UNITS = (" c/B: cycles per byte, counted by the TSC (it ticks at a fixed rate, the nominal "
         "clock; a core running faster does more per tick). CPU s/GB: CPU seconds for 10^9 "
         "bytes.")
GCRYPT_CALLS = (" libgcrypt makes the calls an application would: gcry_md_reset, write, final and "
                "read (extract for SHAKE) on one handle, and one gcry_cipher_encrypt or decrypt per "
                "call on a handle set up once; its output is checked against the default "
                "provider's before it is timed.")


def multi_scaling(args, algs, env, engines):
    """openssl speed -multi 1 and -multi N, default and hwaccel, for the first
    selected algorithm of each family; interleaved rounds, medians."""
    picks, seen = [], set()
    for label, alg, decrypt in algs:
        if family_of(label) not in seen:
            seen.add(family_of(label))
            picks.append((label, alg, decrypt))
    n = args.multi
    print("\nScaling from 1 to %d processes (openssl speed -multi, %d bytes, wall-clock time)"
          % (n, MULTI_BYTES))
    table = []
    for label, alg, decrypt in picks:
        per = {(impl, k): [] for impl in ("default", "hwaccel") for k in (1, n)}
        try:
            for _ in range(args.rounds):
                for k in (1, n):
                    for impl in ("default", "hwaccel"):
                        per[(impl, k)].append(speed(args, alg, decrypt, impl, env, multi=k)[MULTI_BYTES])
        except RuntimeError as e:
            print("%s: skipped: %s" % (label, e))
            continue
        row = {"label": label, "engine": engines.get(family_of(label), "?")}
        for impl in ("default", "hwaccel"):
            one, all_ = per[(impl, 1)], per[(impl, n)]
            row[impl] = (statistics.median(one), statistics.median(all_),
                         statistics.median(b / a for a, b in zip(one, all_)))
        table.append(row)
    text, md = scaling_tables(table, n)
    print("\n".join(text))
    return md


def scaling_tables(table, n):
    head = ["algorithm", "engine", "default 1 MB/s", "default %d MB/s" % n, "default scaling",
            "hwaccel 1 MB/s", "hwaccel %d MB/s" % n, "hwaccel scaling"]
    cells = []
    for row in table:
        c = [row["label"], row["engine"]]
        for impl in ("default", "hwaccel"):
            one, all_, scale = row[impl]
            c += ["%.1f" % one, "%.1f" % all_, "%.2fx" % scale]
        cells.append(c)
    widths = [max([len(h)] + [len(c[k]) for c in cells]) for k, h in enumerate(head)]
    text = ["  ".join(h.rjust(w) for h, w in zip(head, widths))]
    text += ["  ".join(c.rjust(w) for c, w in zip(cell, widths)) for cell in cells]
    md = ["", "## Scaling from 1 to %d processes" % n, "",
          "`openssl speed -multi 1` and `-multi %d` at %d bytes, wall-clock time (`-elapsed`), "
          "MB/s summed over the processes; scaling is the median of the per-round ratios. On a "
          "machine shared with other work it shows that work as much as the engines." % (n, MULTI_BYTES),
          "", "| " + " | ".join(head) + " |", "|---|---|" + "---:|" * (len(head) - 2)]
    md += ["| " + " | ".join(c) + " |" for c in cells]
    return text, md


# ---- the Markdown document and the plot ----

# The CPU flags the engines choose by (backends/cpu.cpp), as /proc/cpuinfo spells them.
ENGINE_FLAGS = ["sha_ni", "aes", "vaes", "avx2", "avx512f", "gfni", "bmi2"]


def cpu_description():
    """Model, family/model numbers and engine-relevant flags from /proc/cpuinfo (Linux)."""
    info = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break  # first processor only
                key, _, value = line.partition(":")
                info[key.strip()] = value.strip()
    except OSError:
        return "unknown (no /proc/cpuinfo)", "unknown"
    flags = set(info.get("flags", "").split())
    model = "%s (family %s, model %s, stepping %s)" % (
        info.get("model name", "?"), info.get("cpu family", "?"), info.get("model", "?"),
        info.get("stepping", "?"))
    if "hypervisor" in flags:
        model += ", virtual machine"
    present = " ".join("`%s`" % f for f in ENGINE_FLAGS if f in flags) or "none"
    absent = [f for f in ENGINE_FLAGS if f not in flags]
    if absent:
        present += " (absent: %s)" % " ".join("`%s`" % f for f in absent)
    return model, present


def openssl_env(args, env):
    """The environment for args.openssl: with --openssl PREFIX, that release's
    libraries first (only for openssl itself: the other tools link the system's)."""
    if not args.openssl_libdir:
        return env
    env = dict(env)
    env["LD_LIBRARY_PATH"] = args.openssl_libdir + (":" + env["LD_LIBRARY_PATH"]
                                                    if env.get("LD_LIBRARY_PATH") else "")
    return env


def use_openssl_prefix(args):
    """--openssl PREFIX (a directory): that release's bin/openssl and lib/.
    hwaccel is the module of --build (built against the system's 3.0: it
    links no libcrypto, so it loads into any release)."""
    args.openssl_libdir = None
    if not os.path.isdir(args.openssl):
        return
    prefix = os.path.abspath(args.openssl)
    binary = os.path.join(prefix, "bin", "openssl")
    if not os.access(binary, os.X_OK):
        sys.exit("bench.py: --openssl %s: no bin/openssl there" % prefix)
    args.openssl = binary
    libdir = os.path.join(prefix, "lib64")
    args.openssl_libdir = libdir if os.path.isdir(libdir) else os.path.join(prefix, "lib")


def openssl_version(args):
    try:
        run = subprocess.run([args.openssl, "version"], capture_output=True, text=True,
                             env=openssl_env(args, os.environ))
        return run.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def document_head(args, env, engines, method, gcrypt, tsc):
    """The opening of the --markdown document: what was measured, where, how, when."""
    model, flags = cpu_description()
    cpus = os.cpu_count() or 0
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    shared = ("shared: other work was running (load average %.1f on %d CPUs when the run "
              "started)" % (load, cpus) if load >= 0.5 * cpus else
              "load average %.1f on %d CPUs when the run started" % (load, cpus))
    forced = env.get("HWACCEL_ENGINES")
    lines = [
        "# hwaccel speed against OpenSSL's default provider%s" % (" and libgcrypt" if gcrypt else ""),
        "",
        "Generated by `scripts/bench.py`; refresh with the command below. Ratios above 1.00x "
        "mean hwaccel is faster. `--engine FAMILY=ENGINE` measures an engine other than the "
        "best, e.g. `--engine sm4=generic` (the portable, constant-time SM4 engine). The "
        "libgcrypt column is the system's libgcrypt unless `--gcrypt PREFIX` names another: "
        "`--gcrypt \"$(scripts/libgcrypt-peer.sh)\"` builds the newest one (Debian sid's "
        "source, with its GFNI/AVX-512 SM4 and AVX-512 Keccak; about 5 minutes the first time) "
        "into ~/.cache/hwaccel/libgcrypt-peer and measures it. `--no-gcrypt` leaves the column "
        "out, `--multi 0` the scaling table.",
        "",
        "- command: `python3 %s`" % shlex.join([os.path.relpath(sys.argv[0])] + sys.argv[1:]),
        "- date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "- CPU: %s" % model,
        "- CPU flags the engines use: %s" % flags,
        "- machine: %s" % shared,
        "- OpenSSL: %s" % openssl_version(args),
        "- hwaccel engines: %s%s" % (", ".join("%s=%s" % kv for kv in sorted(engines.items())),
                                     " (HWACCEL_ENGINES=%s)" % forced if forced else ""),
    ]
    if gcrypt:
        lines.append("- libgcrypt: %s (%s); hwflist: %s" % (
            gcrypt["version"], gcrypt["where"],
            " ".join("`%s`" % f for f in gcrypt["hwflist"].split(",")) or "none"))
    if tsc:
        lines.append("- TSC: %.0f MHz" % tsc)
    lines += ["", method]
    return lines


# Why the ratios are what they are, per (family, engine): reasons that hold on any machine,
# written under the tables of the engines a run measured.
SHA_NI_NOTE = ("SHA-1 and SHA-224/256 on `sha-ni`: the default provider runs the same SHA-NI "
               "instructions, so long messages come out at 1.00x; short ones gain because "
               "hwaccel's update and final cost less.")
NOTES = {
    ("sha1", "sha-ni"): SHA_NI_NOTE,
    ("sha256", "sha-ni"): SHA_NI_NOTE,
    ("sha3", "x86-bmi2"): "SHA-3 and SHAKE on `x86-bmi2`: a Keccak round needs about 130 integer "
        "ALU operations at the least, and the engine runs close to the rate the core sustains "
        "them (`backends/x86/keccak_x86_bmi2.cpp` says what was tried); OpenSSL's own Keccak "
        "assembly is not far behind, so long messages gain modestly, short ones a little more "
        "(hwaccel's update and final cost less).",
    ("sha3", "x86-avx512"): "SHA-3 and SHAKE on `x86-avx512`: one Keccak lane per xmm "
        "register, about 100 vector operations a round (vpternlogq for the parities and chi, "
        "vprolq for rho, pi as a register renaming), the state in registers across all blocks "
        "of a call and across SHAKE's output blocks; the gain over the default provider is "
        "largest for long SHAKE output, and short messages are bounded by the EVP call "
        "overhead (`backends/x86/keccak_x86_avx512.cpp` says what was tried).",
    ("sm4", "vaes-avx2"): "SM4 on `vaes-avx2`: the bulk modes (ECB, CTR, CBC and CFB "
        "decryption) run 32 blocks per iteration through the AES S-box (input affine map folded "
        "into state and round keys, SM4's L merged with the output map into nibble tables and "
        "byte shuffles); a round is about 25 vector operations per 8 blocks, and the engine "
        "runs close to that operation mix's throughput limit. The default provider's ECB and CBC "
        "decryption are faster than its CTR, so the same kernel shows a lower ratio there. The "
        "serial modes (CBC and CFB encryption, OFB) and one-block calls use the constant-time "
        "one-block path (AES-NI), which on some CPUs is slower than the default provider's "
        "S-box table lookups (fast, but not constant-time): about 0.9-1.0x on AMD Zen 4 (family "
        "19h, nearly Zen 3's latencies), about 0.7x on AMD family 1Ah, Zen 5 (see the 16-byte rows and the `sm4-cbc`, `sm4-cfb`, "
        "`sm4-ofb` tables). On CPUs with GFNI the GFNI engines replace it (their one-block path "
        "is GFNI's).",
    ("sm4", "gfni-avx512"): "SM4 on `gfni-avx512`: the S-box is two GF(2^8) affine maps around "
        "the AES field inversion, and GFNI's `vgf2p8affineinvqb` does an inversion and a map in "
        "one instruction; the first map is folded into the state and the round keys, and SM4's "
        "L into three more bytewise maps and byte rotations (`vprold`), so a round is about 9.5 "
        "vector operations per 16 blocks in zmm registers, for the bulk modes (ECB, CTR, CBC and "
        "CFB decryption). The serial modes (CBC and CFB encryption, OFB) and one-block calls use a "
        "GFNI one-block round with a short dependency chain, constant-time like the rest, and "
        "faster than the default provider's table lookups (which are not constant-time).",
    ("sm4", "gfni-avx2"): "SM4 on `gfni-avx2` (GFNI without AVX-512, e.g. Intel client and "
        "E-core CPUs): the same folded GFNI round on VEX-encoded ymm registers, 32 blocks per "
        "iteration, about 12.5 vector operations per 8 blocks; the GFNI one-block path for the "
        "serial modes.",
    ("sm4", "aesni-avx2"): "SM4 on `aesni-avx2`: the same kernel as `vaes-avx2` on 128-bit "
        "AES-NI, 8 blocks per iteration; serial modes use the same one-block path.",
    ("sm4", "generic"): "SM4 on `generic` (portable, constant-time): CBC and CFB encryption and "
        "OFB are serial, one block at a time, and a constant-time S-box is a boolean circuit "
        "evaluated for one block, where the default provider looks the S-box up in tables "
        "indexed by secret bytes (fast, not constant-time): expect well below 1.00x there, "
        "and for every mode at 16 bytes (one block cannot fill the bitsliced kernels). ECB, CTR "
        "and CBC/CFB decryption catch up within a few blocks and, from about 8 KiB on, run at a multiple of "
        "the default provider's speed (the 128-block bitsliced kernel).",
}

SUMMARY_SIZES = [16, 1024, 16384]


def summary(results, engines):
    """One row per algorithm: the ratio at 16 B, 1 KiB and 16 KiB."""
    head = "| algorithm | engine | " + " | ".join("%s" % size_name(s) for s in SUMMARY_SIZES) + " |"
    lines = ["", "## Summary (ratio to the default provider)", "", head,
             "|---|---|" + "---:|" * len(SUMMARY_SIZES)]
    for label, _, rows in results:
        by_size = {r["size"]: "%.2fx" % r["ratio"][("hwaccel", "default")][0]
                   if ("hwaccel", "default") in r["ratio"] else NO_DEFAULT for r in rows}
        cells = [by_size.get(s, "-") for s in SUMMARY_SIZES]
        lines.append("| %s | %s | %s |" % (label, engines.get(family_of(label), "?"),
                                          " | ".join(cells)))
    return lines


def gcrypt_summary(results, engines, gcrypt):
    """hwaccel against libgcrypt at the summary's lengths, and the MB/s of all
    three at 16 KiB, for the algorithms libgcrypt was measured on."""
    measured = [(label, rows) for label, impls, rows in results if "libgcrypt" in impls]
    if not measured:
        return []
    big = SUMMARY_SIZES[-1]
    head = ("| algorithm | engine | " + " | ".join(size_name(s) for s in SUMMARY_SIZES) +
            " | MB/s at %s: default / hwaccel / libgcrypt |" % size_name(big))
    lines = ["", "## Summary (hwaccel against libgcrypt %s)" % gcrypt["version"], "",
             "Ratio hwaccel / libgcrypt: above 1.00x hwaccel is faster.", "", head,
             "|---|---|" + "---:|" * (len(SUMMARY_SIZES) + 1)]
    for label, rows in measured:
        by_size = {r["size"]: r for r in rows}
        cells = ["%.2fx" % by_size[s]["ratio"][("hwaccel", "libgcrypt")][0] if s in by_size else "-"
                 for s in SUMMARY_SIZES]
        m = by_size[big]["mbps"] if big in by_size else None
        cells.append(" / ".join("%.0f" % m[i] if i in m else "n/a" for i in IMPLS) if m else "-")
        lines.append("| %s | %s | %s |" % (label, engines.get(family_of(label), "?"), " | ".join(cells)))
    return lines


# A summary cell where the default provider has no such algorithm.
NO_DEFAULT = "n/a"


def size_name(size):
    return "%d KiB" % (size // 1024) if size >= 1024 and size % 1024 == 0 else "%d B" % size


def notes(results, engines):
    seen = []
    for label, _, _ in results:
        key = (family_of(label), engines.get(family_of(label)))
        text = NOTES.get(key)
        if text and text not in seen:
            seen.append(text)
    if not seen:
        return []
    return ["", "## Why", ""] + ["- " + t for t in seen]


# Sections of the --markdown document that other tools measure
# (tools/kernel_bench.cpp): carried over from the old file, at its end.
KEPT_SECTIONS = ("## Against the Linux kernel's code",)


def kept_sections(old_text):
    """The old document's lines from the first kept section's heading to its end."""
    lines = old_text.split("\n")
    for i, line in enumerate(lines):
        if line.strip() in KEPT_SECTIONS:
            return [""] + lines[i:]
    return []


def write_outputs(args, head, tables, results, engines, gcrypt, scaling_md):
    """--markdown and --plot, for either measurement."""
    if args.markdown:
        picture = []
        if args.plot:
            where = os.path.relpath(args.plot, os.path.dirname(os.path.abspath(args.markdown)))
            picture = ["", "![ratio hwaccel/default per length](%s)" % where]
        kept = []
        if os.path.exists(args.markdown):
            with open(args.markdown) as f:
                kept = kept_sections(f.read().rstrip("\n"))
        doc = head + picture + summary(results, engines) + \
            (gcrypt_summary(results, engines, gcrypt) if gcrypt else []) + scaling_md + \
            notes(results, engines) + ["", "## Tables"] + tables + kept
        with open(args.markdown, "w") as f:
            f.write("\n".join(doc) + "\n")
    if args.plot and results:
        plot(results, args.plot)
        print("\nplot written to %s" % args.plot)


def plot(results, path):
    """hwaccel / default per length, one line per algorithm; where libgcrypt
    was measured, libgcrypt / default dashed in the same colour."""
    with tempfile.TemporaryDirectory() as tmp:
        series, gcrypt = [], False
        for n, (label, impls, rows) in enumerate(results, 1):
            if "default" not in impls:
                continue  # nothing to divide by
            data = os.path.join(tmp, label + ".dat")
            with open(data, "w") as f:
                for r in rows:
                    g = r["ratio"].get(("libgcrypt", "default"))
                    f.write("%d %f %s\n" % (r["size"], r["ratio"][("hwaccel", "default")][0],
                                            "%f" % g[0] if g else "NaN"))
            series.append("'%s' using 1:2 with linespoints lc %d dt 1 title '%s'" % (data, n, label))
            if "libgcrypt" in impls:
                gcrypt = True
                series.append("'%s' using 1:3 with lines lc %d dt 2 notitle" % (data, n))
        if gcrypt:
            series.append("NaN with lines lc rgb 'gray40' dt 2 title 'dashed: libgcrypt / default'")
        # pngcairo looks better; plain png (libgd) is there on every build.
        probe = subprocess.run(["gnuplot", "-e", "set terminal pngcairo"], capture_output=True)
        terminal = "pngcairo" if probe.returncode == 0 and not probe.stderr else "png"
        script = "\n".join([
            "set terminal %s size 1100,650" % terminal,
            "set output '%s'" % path,
            "set logscale x 2",
            "set xlabel 'message length (bytes)'",
            "set ylabel 'throughput ratio to the default provider (hwaccel / default)'",
            "set key outside right",
            "set grid",
            "plot 1 with lines lc rgb 'black' dt 2 title 'parity', " + ", ".join(series),
        ])
        subprocess.run(["gnuplot"], input=script, text=True, check=True)


# ---- the command line ----

def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--alg", action="append",
                   help="algorithm label (repeatable, or comma list); default: all. "
                        "Labels: " + " ".join(a[0] for a in ALL))
    p.add_argument("--engine", help="force engines for hwaccel, HWACCEL_ENGINES syntax, "
                                    "e.g. sha256=generic or all=generic")
    p.add_argument("--seconds", type=int, default=1, help="seconds per size per run (default 1)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    p.add_argument("--build", default=os.path.join(TOP, "build"), help="build directory")
    p.add_argument("--openssl", default="openssl",
                   help="openssl binary, or an OpenSSL install PREFIX (e.g. \"$(scripts/"
                        "openssl-release.sh 4.0)\"): hwaccel against that release's default "
                        "provider, both in its openssl speed")
    p.add_argument("--plot", help="write a PNG of the ratios with gnuplot")
    p.add_argument("--markdown", help="also write a Markdown document to this file: the machine "
                                      "(CPU, flags, load), date, command line, OpenSSL version, "
                                      "engines, libgcrypt, then the tables")
    p.add_argument("--evp", action="store_true",
                   help="instead of openssl speed, run build/tools/hwaccel-evp-bench (EVP calls, "
                        "hwaccel and default, and libgcrypt, alternating call by call) --rounds "
                        "times and report the median ratio of the runs with its range: steadier "
                        "on a busy machine")
    p.add_argument("--gcrypt", metavar="PREFIX",
                   help="the libgcrypt for the libgcrypt column: an install prefix, e.g. "
                        "\"$(scripts/libgcrypt-peer.sh)\" (the newest, built from Debian's "
                        "source); default: the system's, left out if it has no development files")
    p.add_argument("--no-gcrypt", action="store_true", help="no libgcrypt column")
    p.add_argument("--multi", type=int, default=os.cpu_count() or 1, metavar="N",
                   help="processes for the scaling table (openssl speed -multi 1 and N, one "
                        "algorithm per family); default: the CPU count (%(default)s); 0: no table")
    p.add_argument("--self-test", action="store_true",
                   help="check the parsing and the tables on canned output, and exit")
    args = p.parse_args()
    if args.self_test:
        sys.exit(self_test())
    use_openssl_prefix(args)
    if args.evp and args.openssl_libdir:
        sys.exit("bench.py: --evp measures through the system's libcrypto; with --openssl PREFIX "
                 "use openssl speed (no --evp)")
    args.module_dir = os.path.join(args.build, "provider")
    if not os.path.exists(os.path.join(args.module_dir, "hwaccel.so")):
        sys.exit("no hwaccel.so in %s: build first (see README)" % args.module_dir)

    wanted = [a for group in (args.alg or []) for a in group.split(",")]
    algs = [a for a in ALL if not wanted or a[0] in wanted]
    unknown = set(wanted) - {a[0] for a in ALL}
    if unknown:
        sys.exit("unknown --alg %s; known: %s" % (" ".join(sorted(unknown)),
                                                   " ".join(a[0] for a in ALL)))

    env = dict(os.environ)
    env.pop("OPENSSL_CONF", None)
    if args.engine:
        env["HWACCEL_ENGINES"] = args.engine
    try:
        engines = engines_in_use(args, env)
    except (RuntimeError, OSError) as e:
        # An unknown engine or one this CPU lacks: say so, no traceback.
        sys.exit("bench.py: %s" % e)

    gcrypt = None if args.no_gcrypt else find_gcrypt(args, env)
    tsc = float(gcrypt["tsc"]) if gcrypt and gcrypt.get("tsc") else tsc_mhz(args, env)
    if args.evp:
        method, results, md = evp_main(args, algs, env, engines, gcrypt)
    else:
        method, results, md = speed_main(args, algs, env, engines, gcrypt, tsc)
    head = document_head(args, env, engines, method, gcrypt, tsc)
    scaling_md = []
    if args.multi >= 2:
        scaling_md = multi_scaling(args, algs, env, engines)
    elif args.multi == 1:
        print("\nno scaling table: one CPU (--multi N to set the processes)")
    write_outputs(args, head, md, results, engines, gcrypt, scaling_md)


def find_gcrypt(args, env):
    """The libgcrypt column's tool and facts, or None (said why) when the
    system has no libgcrypt; a --gcrypt PREFIX that does not work is an error."""
    explicit = args.gcrypt is not None
    prefix = os.path.abspath(args.gcrypt) if explicit else "system"
    tool, why = gcrypt_tool(args, prefix)
    if tool:
        try:
            info, _, _ = run_tool([tool, "--module-dir", args.module_dir, "--providers", "libgcrypt",
                                   "--info"], env)
            gcrypt = {"tool": tool, "where": prefix if explicit else "the system's",
                      "version": info.get("libgcrypt-version", "?"),
                      "hwflist": info.get("libgcrypt-hwflist", ""), "tsc": info.get("tsc-mhz")}
            print("libgcrypt %(version)s (%(where)s), hwflist: %(hwflist)s" % gcrypt)
            return gcrypt
        except (RuntimeError, OSError) as e:
            why = str(e)
    if explicit:
        sys.exit("bench.py: --gcrypt %s: %s" % (args.gcrypt, why))
    print("no libgcrypt column: %s" % why)
    return None


# ---- bench.py --self-test: the parsing and the tables, on canned output ----

SPEED_MR = """+DT:sha256:1:16
+R:100:sha256:1.0
+H:16:64:256:1024:8192:16384
+F:25:sha256:16000000.00:64000000.00:256000000.00:1024000000.00:1638400000.00:1638400000.00
"""
# openssl speed -multi 2 -bytes 16384 -mr: the children's lines come prefixed.
MULTI_MR = """Forked child 0
Got: +H:16384 from 0
Got: +F:25:SM4-CTR:14615825.74 from 0
Forked child 1
Got: +H:16384 from 1
Got: +F:25:SM4-CTR:13600310.68 from 1
+F:25:SM4-CTR:28216136.42
"""
TOOL_MR = """+I:tsc-mhz:2000.0
+I:libgcrypt-version:1.11.2
+I:libgcrypt-hwflist:intel-cpu,intel-avx512,intel-gfni
+T:sm4-ctr:16:hwaccel=100.0:default=200.0:libgcrypt=50.0
+T:sm4-ctr:16384:hwaccel=10000.0:default=80000.0:libgcrypt=20000.0
"""
TOOL_SECONDS = """+I:tsc-mhz:2000.0
+H:16:64:256:1024:8192:16384
+F:libgcrypt:sha3-256:50000000.00:200000000.00:440000000.00:480000000.00:470000000.00:430000000.00
"""


def self_test():
    failures = []

    def check(name, got, want):
        if got != want:
            failures.append("%s: got %r, want %r" % (name, got, want))

    def near(a, b):
        return abs(a - b) <= 1e-9 * max(1.0, abs(b))

    rates = parse_speed_mr(SPEED_MR)
    check("speed sizes", sorted(rates), [16, 64, 256, 1024, 8192, 16384])
    check("speed 16 B MB/s", rates[16], 16.0)
    check("multi", parse_speed_mr(MULTI_MR, 16384), {16384: 28.21613642})
    check("multi without -bytes", parse_speed_mr(MULTI_MR), None)
    check("speed failure", parse_speed_mr("error\n"), None)

    info, ticks, _ = parse_tool_mr(TOOL_MR)
    check("tsc", info["tsc-mhz"], "2000.0")
    check("version", info["libgcrypt-version"], "1.11.2")
    check("hwflist", info["libgcrypt-hwflist"], "intel-cpu,intel-avx512,intel-gfni")
    check("ticks", ticks[("sm4-ctr", 16384)], {"hwaccel": 10000.0, "default": 80000.0, "libgcrypt": 20000.0})
    _, _, srates = parse_tool_mr(TOOL_SECONDS)
    check("seconds mode", srates[("libgcrypt", "sha3-256")][16384], 430.0)

    # Three rounds, MB/s; hwaccel twice default in rounds 1 and 2, four times in round 3.
    rounds = [{"default": {16384: 100.0}, "hwaccel": {16384: 200.0}, "libgcrypt": {16384: 400.0}},
              {"default": {16384: 100.0}, "hwaccel": {16384: 200.0}, "libgcrypt": {16384: 100.0}},
              {"default": {16384: 50.0}, "hwaccel": {16384: 200.0}, "libgcrypt": {16384: 100.0}}]
    impls, rows = aggregate(rounds, 2000.0)
    r = rows[0]
    check("impls", impls, ["default", "hwaccel", "libgcrypt"])
    check("median MB/s", r["mbps"], {"default": 100.0, "hwaccel": 200.0, "libgcrypt": 100.0})
    check("hwaccel/default", r["ratio"][("hwaccel", "default")], (2.0, 2.0, 4.0))
    check("hwaccel/libgcrypt", r["ratio"][("hwaccel", "libgcrypt")], (2.0, 0.5, 2.0))
    check("c/B", near(r["cpb"]["hwaccel"], 10.0), True)       # 2000 MHz / 200 MB/s
    check("CPU s/GB", near(r["sgb"]["default"], 10.0), True)  # 10^9 B at 100 MB/s
    impls2, rows2 = aggregate([{k: v for k, v in x.items() if k != "libgcrypt"} for x in rounds], None)
    check("no libgcrypt, no TSC", (impls2, rows2[0]["cpb"]), (["default", "hwaccel"], {}))

    # ticks per call to MB/s as evp_main converts them: 16384 B in 10000 ticks at 2000 MHz.
    check("ticks to MB/s", near(16384 * 2000.0 / 10000.0, 3276.8), True)

    text, md = render("sm4-ctr (hwaccel engine: x)", impls, rows, True)
    header = md[3]
    for col in ("libgcrypt MB/s", "hwaccel / libgcrypt", "libgcrypt c/B", "libgcrypt CPU s/GB", "range"):
        check("column %s" % col, col in header, True)
    check("md row", md[5], "| 16384 | 100.0 | 200.0 | 100.0 | 2.00x | 2.00-4.00 | 2.00x | 0.50-2.00 | "
                           "20.0 | 10.0 | 20.0 | 10.0 | 5.00 | 10.0 |")
    _, md2 = render("t", impls2, rows2, False)
    check("no libgcrypt column", "libgcrypt" in md2[3], False)
    check("no c/B column", "c/B" in md2[3], False)

    results = [("sm4-ctr", impls, rows), ("sha256", impls2, rows2)]
    gsum = gcrypt_summary(results, {"sm4": "x"}, {"version": "1.11.2"})
    check("libgcrypt summary", gsum[-1], "| sm4-ctr | x | - | - | 2.00x | 100 / 200 / 100 |")
    check("libgcrypt summary rows", len([l for l in gsum if l.startswith("| sm")]), 1)
    check("summary", summary(results, {})[-1], "| sha256 | ? | - | - | 2.00x |")
    # No default provider (SM4-GCM on OpenSSL 3.0): hwaccel's column alone, "n/a".
    alone = [{"hwaccel": x["hwaccel"], "libgcrypt": x["libgcrypt"]} for x in rounds]
    impls3, rows3 = aggregate(alone, None)
    check("no default", impls3, ["hwaccel", "libgcrypt"])
    check("no default summary", summary([("sm4-gcm", impls3, rows3)], {})[-1],
          "| sm4-gcm | ? | - | - | n/a |")
    check("no default libgcrypt summary",
          gcrypt_summary([("sm4-gcm", impls3, rows3)], {}, {"version": "1"})[-1],
          "| sm4-gcm | ? | - | - | 2.00x | n/a / 200 / 100 |")
    _, smd = scaling_tables([{"label": "sm4-ctr", "engine": "x", "default": (100.0, 190.0, 1.9),
                              "hwaccel": (1000.0, 1500.0, 1.5)}], 2)
    check("scaling row", smd[-1], "| sm4-ctr | x | 100.0 | 190.0 | 1.90x | 1000.0 | 1500.0 | 1.50x |")

    check("kept section", kept_sections("# t\n## Tables\nx\n## Against the Linux kernel's code\nk\n"),
          ["", "## Against the Linux kernel's code", "k", ""])
    check("nothing kept", kept_sections("# t\n## Tables\n"), [])

    for f in failures:
        print("FAILED " + f)
    print("bench.py self-test: %s (%d failures)" % ("ok" if not failures else "FAILED", len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    main()
