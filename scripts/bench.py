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
import os
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
    p.add_argument("--markdown", help="also write the tables as Markdown to this file")
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

    print("openssl speed, %d s per size, %d interleaved rounds; MB/s are medians, the ratio "
          "is the median of the per-round ratios (hwaccel / default)." % (args.seconds,
                                                                          args.rounds))
    results = []
    md = []
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

    write_outputs(args, md, results)


def write_outputs(args, md, results):
    """--markdown and --plot, for either measurement."""
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(md) + "\n")
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
    print("hwaccel-evp-bench, %d runs: TSC ticks per call are medians of the runs' medians, the "
          "ratio (default / hwaccel ticks) is the median of the runs' ratios, with their range."
          % args.rounds)
    results, md = [], []
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
    write_outputs(args, md, results)


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
