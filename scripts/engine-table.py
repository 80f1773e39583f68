#!/usr/bin/env python3
"""README's engine table: every x86 engine of SM4 and SHA-3 side by side with
OpenSSL's default provider and libgcrypt, MB/s and ratios, from the bench
script (bench.py --evp, one run per forced engine, each interleaving
default, hwaccel and libgcrypt call by call).

usage: scripts/engine-table.py [--gcrypt PREFIX] [--rounds N] [--out FILE]

Engines this CPU lacks are left out, with a line saying so. Prints Markdown.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROWS = [("sm4-ctr", "sm4"), ("sm4-ecb", "sm4"), ("sm4-cbc-dec", "sm4"), ("sm4-cfb-dec", "sm4"),
        ("sm4-cbc", "sm4"), ("sha3-256", "sha3"), ("shake128", "sha3")]
ENGINES = {"sm4": ["gfni-avx512", "gfni-avx2", "vaes-avx2"], "sha3": ["x86-avx512", "x86-bmi2"]}
SIZES = [64, 256, 1024, 16384]


def available_engines(build):
    out = subprocess.run([os.path.join(build, "tools", "hwaccel-engines")], capture_output=True,
                         text=True, check=True).stdout
    have, family = set(), None
    for line in out.splitlines():
        m = re.match(r"^([a-z0-9]+) +\(", line)
        if m:
            family = m.group(1)
        elif line.rstrip().endswith(" available") and family:
            have.add((family, line.replace("*", " ").split()[0]))
    return have


def tables(md):
    """{alg: {size: (default, hwaccel, libgcrypt)}} from a bench.py --markdown file."""
    out, alg = {}, None
    for line in open(md):
        m = re.match(r"^\*\*([a-z0-9-]+) \(hwaccel engine", line)
        if m:
            alg = m.group(1)
            out[alg] = {}
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if alg and len(cells) > 4 and cells[0].isdigit():
            out[alg][int(cells[0])] = tuple(float(c) for c in cells[1:4])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gcrypt", default=None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--build", default=os.path.join(TOP, "build"))
    ap.add_argument("--out", default=None, help="also write the table to this file")
    a = ap.parse_args()
    have = available_engines(a.build)
    results, missing = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        for family, engines in ENGINES.items():
            algs = ",".join(alg for alg, f in ROWS if f == family)
            for engine in engines:
                if (family, engine) not in have:
                    missing.append(engine)
                    continue
                md = os.path.join(tmp, engine + ".md")
                cmd = [sys.executable, os.path.join(TOP, "scripts", "bench.py"), "--evp", "--rounds",
                       str(a.rounds), "--multi", "0", "--build", a.build, "--alg", algs,
                       "--engine", "%s=%s" % (family, engine), "--markdown", md]
                cmd += ["--gcrypt", a.gcrypt] if a.gcrypt else []
                print("running:", " ".join(cmd), file=sys.stderr)
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
                results[engine] = tables(md)
    lines = []
    cols = [e for f in ENGINES for e in ENGINES[f] if e in results]
    lines.append("| algorithm | length | default MB/s | libgcrypt MB/s | " +
                 " | ".join("`%s` MB/s (x default, x libgcrypt)" % e for e in cols) + " |")
    lines.append("|---|---:|---:|---:|" + "---:|" * len(cols))
    for alg, family in ROWS:
        for size in SIZES:
            cells, dflt, gcry = [], [], []
            for e in cols:
                if e not in ENGINES[family]:
                    cells.append("")
                    continue
                d, h, g = results[e].get(alg, {}).get(size, (0, 0, 0))
                dflt.append(d)
                gcry.append(g)
                cells.append("%s (%.2fx, %.2fx)" % (format(round(h), ","), h / d if d else 0, h / g if g else 0))
            med = lambda v: sorted(v)[len(v) // 2] if v else 0
            lines.append("| %s | %s | %s | %s | %s |" % (alg, size if size < 1024 else "%d KiB" % (size // 1024),
                         format(round(med(dflt)), ","), format(round(med(gcry)), ","), " | ".join(cells)))
    if missing:
        lines.append("")
        lines.append("Not on this CPU (not measured): " + ", ".join("`%s`" % e for e in missing) + ".")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        open(a.out, "w").write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
