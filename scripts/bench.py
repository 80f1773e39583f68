#!/usr/bin/env python3
"""openssl speed, OpenSSL's default provider against hwaccel, side by side.

Both providers are measured in the same run, interleaved (default, hwaccel,
default, hwaccel, ...), so that a busy machine slows both alike; the ratio
reported is the median of the per-round ratios, the MB/s the medians.

Every hwaccel run uses the option order that really measures hwaccel on
OpenSSL 3.0 (see README): -provider-path, -provider hwaccel, -provider default,
-propquery provider=hwaccel, and only then -evp ALG.
"""
import argparse
import datetime
import os
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
           ("sm4-ctr", "sm4-ctr", False)]
ALL = [(d, d, False) for d in DIGESTS] + CIPHERS
FAMILY = {"sha1": "sha1", "sha224": "sha256", "sha256": "sha256"}


def family_of(label):
    if label in FAMILY:
        return FAMILY[label]
    return "sm4" if label.startswith("sm4") else "sha3"


def speed(args, alg, decrypt, provider, env):
    cmd = [args.openssl, "speed"]
    if provider == "hwaccel":
        cmd += ["-provider-path", args.module_dir, "-provider", "hwaccel",
                "-provider", "default", "-propquery", "provider=hwaccel"]
    else:
        cmd += ["-provider", "default", "-propquery", "provider=default"]
    cmd += ["-seconds", str(args.seconds), "-mr"]
    if decrypt:
        cmd += ["-decrypt"]
    cmd += ["-evp", alg]
    run = subprocess.run(cmd, capture_output=True, text=True, env=env)
    sizes, rates = None, None
    for line in run.stdout.splitlines():
        if line.startswith("+H:"):
            sizes = [int(x) for x in line[3:].split(":")]
        elif line.startswith("+F:"):
            rates = [float(x) / 1e6 for x in line.split(":")[3:]]
    if run.returncode != 0 or not sizes or not rates:
        raise RuntimeError("%s failed (rc=%d): %s" % (" ".join(cmd), run.returncode,
                                                   run.stderr.strip()[-400:]))
    return dict(zip(sizes, rates))


def engines_in_use(args, env):
    tool = os.path.join(args.build, "tools", "hwaccel-engines")
    run = subprocess.run([tool], capture_output=True, text=True, env=env)
    for line in run.stdout.splitlines():
        if line.startswith("selection: "):
            return dict(kv.split("=") for kv in line[len("selection: "):].split(","))
    raise RuntimeError("hwaccel-engines failed: " + run.stderr.strip())


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--alg", action="append",
                   help="algorithm label (repeatable, or comma list); default: all. "
                        "Labels: " + " ".join(a[0] for a in ALL))
    p.add_argument("--engine", help="force engines for hwaccel, HWACCEL_ENGINES syntax, "
                                    "e.g. sha256=generic or all=generic")
    p.add_argument("--seconds", type=int, default=1, help="seconds per size per run (default 1)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    p.add_argument("--build", default=os.path.join(top, "build"), help="build directory")
    p.add_argument("--openssl", default="openssl", help="openssl binary")
    p.add_argument("--plot", help="write a PNG of the ratios with gnuplot")
    p.add_argument("--markdown", help="also write a Markdown document to this file: the machine "
                                      "(CPU, flags, load), date, command line, OpenSSL version, "
                                      "engines, then the tables")
    p.add_argument("--evp", action="store_true",
                   help="instead of openssl speed, run build/tools/hwaccel-evp-bench (EVP calls, "
                        "hwaccel and default alternating call by call) --rounds times and report "
                        "the median ratio of the runs with its range: steadier on a busy machine")
    args = p.parse_args()
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

    if args.evp:
        return evp_main(args, algs, env, engines)

    method = ("openssl speed, %d s per size, %d interleaved rounds; MB/s are medians, the ratio "
              "is the median of the per-round ratios (hwaccel / default)." % (args.seconds,
                                                                              args.rounds))
    print(method)
    results = []
    head, md = document_head(args, env, engines, method), []
    for label, alg, decrypt in algs:
        rounds = []
        try:
            for _ in range(args.rounds):
                d = speed(args, alg, decrypt, "default", env)
                h = speed(args, alg, decrypt, "hwaccel", env)
                rounds.append((d, h))
        except RuntimeError as e:
            print("\n%s: skipped: %s" % (label, e))
            continue
        engine = engines.get(family_of(label), "?")
        title = "%s (hwaccel engine: %s)" % (label, engine)
        print("\n" + title)
        print("%8s %14s %14s %8s" % ("length", "default MB/s", "hwaccel MB/s", "ratio"))
        md.append("\n**%s**\n\n| length | default MB/s | hwaccel MB/s | ratio |\n|---:|---:|---:|---:|"
                  % title)
        rows = []
        for size in sorted(rounds[0][0]):
            dm = statistics.median(r[0][size] for r in rounds)
            hm = statistics.median(r[1][size] for r in rounds)
            ratio = statistics.median(r[1][size] / r[0][size] for r in rounds)
            rows.append((size, dm, hm, ratio))
            print("%8d %14.1f %14.1f %7.2fx" % (size, dm, hm, ratio))
            md.append("| %d | %.1f | %.1f | %.2fx |" % (size, dm, hm, ratio))
        results.append((label, rows))

    write_outputs(args, head, md, results, engines)


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


def openssl_version(args):
    try:
        run = subprocess.run([args.openssl, "version"], capture_output=True, text=True)
        return run.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def document_head(args, env, engines, method):
    """The opening of the --markdown document: what was measured, where, how, when."""
    model, flags = cpu_description()
    cpus = os.cpu_count() or 0
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    shared = ("shared: other work was running (load average %.1f on %d CPUs when the run "
              "started)" % (load, cpus) if load >= 0.5 * cpus else
              "load average %.1f on %d CPUs when the run started" % (load, cpus))
    forced = env.get("HWACCEL_ENGINES")
    lines = [
        "# hwaccel speed against OpenSSL's default provider",
        "",
        "Generated by `scripts/bench.py`; refresh with the command below. Ratios above 1.00x "
        "mean hwaccel is faster. `--engine FAMILY=ENGINE` measures an engine other than the "
        "best, e.g. `--engine sm4=generic` (the portable, constant-time SM4 engine).",
        "",
        "- command: `python3 %s`" % shlex.join([os.path.relpath(sys.argv[0])] + sys.argv[1:]),
        "- date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "- CPU: %s" % model,
        "- CPU flags the engines use: %s" % flags,
        "- machine: %s" % shared,
        "- OpenSSL: %s" % openssl_version(args),
        "- hwaccel engines: %s%s" % (", ".join("%s=%s" % kv for kv in sorted(engines.items())),
                                     " (HWACCEL_ENGINES=%s)" % forced if forced else ""),
        "",
        method,
    ]
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
        "S-box table lookups (fast, but not constant-time): about 1.05-1.10x on AMD Zen 3, "
        "about 0.7x on AMD family 1Ah, Zen 5 (see the 16-byte rows and the `sm4-cbc`, `sm4-cfb`, "
        "`sm4-ofb` tables). A one-block path on GFNI, for CPUs that have it, is the planned "
        "remedy.",
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
    for label, rows in results:
        by_size = {r[0]: r[3] for r in rows}
        cells = ["%.2fx" % by_size[s] if s in by_size else "-" for s in SUMMARY_SIZES]
        lines.append("| %s | %s | %s |" % (label, engines.get(family_of(label), "?"),
                                          " | ".join(cells)))
    return lines


def size_name(size):
    return "%d KiB" % (size // 1024) if size >= 1024 and size % 1024 == 0 else "%d B" % size


def notes(results, engines):
    seen = []
    for label, _ in results:
        key = (family_of(label), engines.get(family_of(label)))
        text = NOTES.get(key)
        if text and text not in seen:
            seen.append(text)
    if not seen:
        return []
    return ["", "## Why", ""] + ["- " + t for t in seen]


def write_outputs(args, head, tables, results, engines):
    """--markdown and --plot, for either measurement."""
    if args.markdown:
        picture = []
        if args.plot:
            where = os.path.relpath(args.plot, os.path.dirname(os.path.abspath(args.markdown)))
            picture = ["", "![ratio hwaccel/default per length](%s)" % where]
        doc = head + picture + summary(results, engines) + notes(results, engines) + \
            ["", "## Tables"] + tables
        with open(args.markdown, "w") as f:
            f.write("\n".join(doc) + "\n")
    if args.plot and results:
        plot(results, args.plot)
        print("\nplot written to %s" % args.plot)


def evp_main(args, algs, env, engines):
    """--evp: hwaccel-evp-bench --rounds times; medians of its per-run figures."""
    tool = os.path.join(args.build, "tools", "hwaccel-evp-bench")
    if not os.path.exists(tool):
        sys.exit("no %s: build first (x86-64 only)" % tool)
    labels = [a[0] for a in algs]
    runs = []
    for _ in range(args.rounds):
        run = subprocess.run([tool, "--module-dir", args.module_dir] + labels, capture_output=True,
                             text=True, env=env)
        if run.returncode != 0:
            sys.exit("hwaccel-evp-bench failed: " + run.stderr.strip())
        table, label = {}, None
        for line in run.stdout.splitlines():
            f = line.split()
            if len(f) == 1:
                label = f[0]
            elif len(f) == 4 and f[0].isdigit():
                table[(label, int(f[0]))] = (float(f[1]), float(f[2]), float(f[3].rstrip("x")))
        runs.append(table)
    method = ("hwaccel-evp-bench, %d runs, each making the same EVP calls as `openssl speed -evp` "
              "with hwaccel and default alternating call by call: TSC ticks per call are medians "
              "of the runs' medians, the ratio (default / hwaccel ticks) is the median of the "
              "runs' ratios, with their range." % args.rounds)
    print(method)
    results = []
    head, md = document_head(args, env, engines, method), []
    for label in labels:
        title = "%s (hwaccel engine: %s)" % (label, engines.get(family_of(label), "?"))
        print("\n" + title)
        print("%8s %14s %14s %8s %12s" % ("length", "default ticks", "hwaccel ticks", "ratio", "range"))
        md.append("\n**%s**\n\n| length | default ticks | hwaccel ticks | ratio | range |\n"
                  "|---:|---:|---:|---:|---:|" % title)
        rows = []
        for size in sorted(k[1] for k in runs[0] if k[0] == label):
            vals = [r[(label, size)] for r in runs]
            dm = statistics.median(v[0] for v in vals)
            hm = statistics.median(v[1] for v in vals)
            ratios = [v[2] for v in vals]
            ratio = statistics.median(ratios)
            rows.append((size, dm, hm, ratio))
            rng = "%.2f-%.2f" % (min(ratios), max(ratios))
            print("%8d %14.0f %14.0f %7.2fx %12s" % (size, dm, hm, ratio, rng))
            md.append("| %d | %.0f | %.0f | %.2fx | %s |" % (size, dm, hm, ratio, rng))
        results.append((label, rows))
    write_outputs(args, head, md, results, engines)


def plot(results, path):
    with tempfile.TemporaryDirectory() as tmp:
        series = []
        for label, rows in results:
            data = os.path.join(tmp, label + ".dat")
            with open(data, "w") as f:
                for size, _, _, ratio in rows:
                    f.write("%d %f\n" % (size, ratio))
            series.append("'%s' using 1:2 with linespoints title '%s'" % (data, label))
        # pngcairo looks better; plain png (libgd) is there on every build.
        probe = subprocess.run(["gnuplot", "-e", "set terminal pngcairo"], capture_output=True)
        terminal = "pngcairo" if probe.returncode == 0 and not probe.stderr else "png"
        script = "\n".join([
            "set terminal %s size 1100,650" % terminal,
            "set output '%s'" % path,
            "set logscale x 2",
            "set xlabel 'message length (bytes)'",
            "set ylabel 'throughput ratio hwaccel / default'",
            "set key outside right",
            "set grid",
            "plot 1 with lines lc rgb 'black' dt 2 title 'parity', " + ", ".join(series),
        ])
        subprocess.run(["gnuplot"], input=script, text=True, check=True)


if __name__ == "__main__":
    main()
