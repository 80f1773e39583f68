#!/usr/bin/env python3
"""The engine manifest: which engines the test command ran, and how.

usage: scripts/engine-manifest.py HWACCEL_ENGINES MANIFEST
       scripts/engine-manifest.py --engines-output FILE MANIFEST
       scripts/engine-manifest.py --self-test

HWACCEL_ENGINES is the hwaccel-engines tool of the build under test: its
output is the registry's list, per family, of every engine compiled in and
whether this CPU runs it. MANIFEST is the file the suites appended to while
the test command ran (HWACCEL_ENGINE_MANIFEST; test/support/engine_manifest.hpp):
    family <TAB> engine <TAB> suite <TAB> how <TAB> program

Prints, per engine: the suites that ran it natively, those that ran it under
a model (PHE's and GFNI's SIGILL models, CPACF's KIMD/KLMD model under qemu, ...), or that
this CPU cannot run it and nothing did. Exits 1 if an engine this CPU runs
missed one of its family's required suites natively (REQUIRED below), if the
manifest is missing or empty, or if hwaccel-engines cannot be read; so a
suite that silently stops covering an engine, or stops running, fails the
test command. Nothing here names an engine: new engines in the registry are
required automatically.
"""
import os
import platform
import subprocess
import sys
import tempfile

# Suites each engine the CPU runs must have run natively, per family
# ("*": every family). ct-trace exists on x86-64 Linux only (ptrace
# single-stepping of x86 instructions).
REQUIRED = {"*": ["backend", "evp"]}
if platform.machine() in ("x86_64", "AMD64", "amd64") and sys.platform.startswith("linux"):
    REQUIRED["sm4"] = ["backend", "evp", "ct-trace"]
# GHASH engines reach EVP only through SM4-GCM: its EVP suite runs every
# GHASH engine (test/provider's engine_selections({"sm4", "ghash"})) and the
# fixture records the GHASH engine of each SM4-GCM fetch.
REQUIRED["ghash"] = ["backend", "evp"] + (["ct-trace"] if "sm4" in REQUIRED else [])
# Suites of which at least one engine of the family must show up: valgrind's
# virtual CPU lacks some instructions (VAES), so memcheck cannot run every
# engine, but it must have run.
REQUIRED_ANY = {"sm4": ["ct-memcheck"], "ghash": ["ct-memcheck"]}


def parse_engines(text):
    """hwaccel-engines output -> [(family, engine, available)] in registry order."""
    out, family = [], None
    for line in text.splitlines():
        if not line.strip() or line.startswith(("cpu features:", "selection:", "HWACCEL_ENGINES=")):
            continue
        if not line.startswith(" "):
            family = line.split()[0]
            continue
        fields = line.replace("*", " ").split(None, 1)
        if family is None or len(fields) != 2:
            raise ValueError("unexpected hwaccel-engines line: " + line)
        status = fields[1].strip()
        if status not in ("available", "not supported by this CPU"):
            raise ValueError("unexpected engine status: " + line)
        out.append((family, fields[0], status == "available"))
    if not out:
        raise ValueError("hwaccel-engines listed no engines")
    return out


def parse_manifest(text):
    """manifest lines -> {(family, engine): {how: set(suites)}}"""
    runs = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) < 4:
            raise ValueError("manifest line %d malformed: %r" % (n, line))
        family, engine, suite, how = fields[:4]
        runs.setdefault((family, engine), {}).setdefault(how, set()).add(suite)
    return runs


def check(engines, runs, out):
    """Prints the report; returns the list of problems (empty: pass)."""
    problems = []
    listed = set()
    out.write("%-7s %-12s %-16s %s\n" % ("family", "engine", "this CPU", "ran"))
    for family, engine, available in engines:
        listed.add((family, engine))
        hows = runs.get((family, engine), {})
        native = hows.get("native", set())
        ran = "; ".join("%s: %s" % (how, " ".join(sorted(s))) for how, s in sorted(hows.items()))
        cpu = "runs it" if available else "cannot run it"
        if not ran:
            ran = "NOT RUN" if available else "not run (no model)"
        out.write("%-7s %-12s %-16s %s\n" % (family, engine, cpu, ran))
        if available:
            missing = [s for s in REQUIRED.get(family, REQUIRED["*"]) if s not in native]
            if missing:
                problems.append("%s engine %s: this CPU runs it, but it did not run natively in: %s"
                                % (family, engine, ", ".join(missing)))
    for (family, engine), hows in sorted(runs.items()):
        if (family, engine) in listed:
            continue
        ran = "; ".join("%s: %s" % (how, " ".join(sorted(s))) for how, s in sorted(hows.items()))
        out.write("%-7s %-12s %-16s %s\n" % (family, engine, "not in its list", ran))
    for family, suites in REQUIRED_ANY.items():
        if not any(f == family for f, _, _ in engines):
            continue
        for suite in suites:
            if not any(f == family and suite in s for (f, _), h in runs.items() for s in h.values()):
                problems.append("%s: no engine ran in %s" % (family, suite))
    return problems


def run(engines_text, manifest_path, out=sys.stdout):
    engines = parse_engines(engines_text)
    if not os.path.exists(manifest_path) or os.path.getsize(manifest_path) == 0:
        out.write("engine manifest %s is missing or empty: no suite recorded anything\n" % manifest_path)
        return 1
    with open(manifest_path) as f:
        runs = parse_manifest(f.read())
    problems = check(engines, runs, out)
    for p in problems:
        out.write("FAIL: " + p + "\n")
    if not problems:
        out.write("engine manifest: every engine this CPU runs ran its suites\n")
    return 1 if problems else 0


def self_test():
    """The check must pass on a complete manifest and fail on each gap."""
    engines = ("cpu features: sha_ni\n"
               "sha1    (SHA-1)\n  * sha-ni         available\n    phe            not supported by this CPU\n"
               "    generic        available\n"
               "sm4     (SM4)\n  * fast           available\n    generic        available\n"
               "ghash   (GHASH)\n  * pclmul         available\n"
               "selection: sha1=sha-ni,sm4=fast,ghash=pclmul\n")
    sm4 = REQUIRED.get("sm4", REQUIRED["*"])
    complete = ["sha1\tsha-ni\tbackend\tnative\tt", "sha1\tsha-ni\tevp\tnative\tt",
                "sha1\tgeneric\tbackend\tnative\tt", "sha1\tgeneric\tevp\tnative\tt",
                "sha1\tphe\tbackend\tmodel: PHE\tt",
                "sm4\tgeneric\tct-memcheck\tnative\tt",
                "sha1\tcpacf\tbackend\tmodel: CPACF under qemu\tt"]
    complete += ["sm4\t%s\t%s\tnative\tt" % (e, s) for e in ("fast", "generic") for s in sm4]
    complete += ["ghash\tpclmul\t%s\tnative\tt" % s for s in REQUIRED["ghash"]]
    complete += ["ghash\tpclmul\tct-memcheck\tnative\tt"]
    cases = [("complete", complete, 0)]
    for i, line in enumerate(complete):
        family, engine, suite, how, _ = line.split("\t")
        required = how == "native" and suite in REQUIRED.get(family, REQUIRED["*"])
        if required or suite == "ct-memcheck":
            cases.append(("without " + line.replace("\t", " "), complete[:i] + complete[i + 1:], 1))
    # A run under a model does not stand in for a native one.
    cases.append(("sha-ni evp under a model only",
                  [l.replace("sha1\tsha-ni\tevp\tnative", "sha1\tsha-ni\tevp\tmodel: x") for l in complete], 1))
    cases.append(("empty manifest", [], 1))
    failed = 0
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "manifest")
        for name, lines, want in cases:
            with open(path, "w") as f:
                f.write("".join(l + "\n" for l in lines))
            log = open(os.devnull, "w")
            got = run(engines, path, log)
            ok = got == want
            failed += not ok
            print("%s: %s (exit %d, expected %d)" % ("ok" if ok else "FAILED", name, got, want))
    return 1 if failed else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) == 4 and argv[1] == "--engines-output":
        with open(argv[2]) as f:
            text = f.read()
        return run(text, argv[3])
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    try:
        text = subprocess.run([argv[1]], check=True, stdout=subprocess.PIPE, universal_newlines=True,
                              env={k: v for k, v in os.environ.items() if k != "HWACCEL_ENGINES"}).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        print("engine manifest: cannot run %s: %s" % (argv[1], e))
        return 1
    print("== engine manifest (%s against %s)" % (argv[2], argv[1]))
    return run(text, argv[2])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
