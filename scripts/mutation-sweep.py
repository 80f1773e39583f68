#!/usr/bin/env python3
"""Mutation testing: does a test fail when the code is wrong?

usage: scripts/mutation-sweep.py [--build DIR]... [--target T]... [--tests REGEX]
                                 [--minutes M] [--max N] [--seed S] [--ops OPS]
                                 [--only REGEX] [--list] LOG FILE...

Makes one small change at a time to the given source files (a comparison
turned around or made strict, && for ||, a return value flipped, + for -, a
call statement deleted, a condition negated), rebuilds every build directory
given, and runs the ctest entries matching REGEX there. A change that some
test notices is "killed"; one that every test passes with "survived": either
a gap in the tests or a change that means nothing (an equivalent mutant), to
be read by a person. Changes that do not compile are counted apart.

The files are changed in place and put back after each mutant (also on
Ctrl-C), so run it in a worktree or clone of its own, never in a checkout you
are editing; it refuses files with uncommitted changes. Each build directory
must be configured from that same tree. Mutants are taken in a random order
(--seed) until --max or --minutes; every result goes to LOG as it is known,
one line each, and a summary with the survivors ends it. A long run, outside
the test command (docs/testing.md, "Mutation sweep").
"""
import argparse
import os
import random
import re
import signal
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_TESTS = ("^(backend_tests|gcm_mode_tests|sm4_ccm_mode_tests|provider_tests|cli_tests|"
                 "load_tests|selftest_evp_tests|alloc_failure_tests|provider_residue_memcpy_tests)$")

# (name, pattern, replacement): applied at each match on a code line.
OPERATORS = [
    ("rel", re.compile(r" < "), " <= "),
    ("rel", re.compile(r" <= "), " < "),
    ("rel", re.compile(r" > "), " >= "),
    ("rel", re.compile(r" >= "), " > "),
    ("eq", re.compile(r" == "), " != "),
    ("eq", re.compile(r" != "), " == "),
    ("logic", re.compile(r" && "), " || "),
    ("logic", re.compile(r" \|\| "), " && "),
    ("arith", re.compile(r" \+ "), " - "),
    ("arith", re.compile(r" - "), " + "),
    ("ret", re.compile(r"\breturn 0;"), "return 1;"),
    ("ret", re.compile(r"\breturn 1;"), "return 0;"),
    ("ret", re.compile(r"\breturn true;"), "return false;"),
    ("ret", re.compile(r"\breturn false;"), "return true;"),
    ("ret", re.compile(r"\breturn nullptr;"), "return {};"),
    ("not", re.compile(r"\bif \((?!!)"), "if (!"),
    ("not", re.compile(r"\bif \(!(?!=)"), "if ("),
]
# A whole statement that is one call: deleted.
CALL_STATEMENT = re.compile(r"^(\s*)(?:[A-Za-z_][\w:]*(?:\.|->))*[A-Za-z_][\w:<>]*\(.*\);\s*$")


def code_part(line):
    """The line up to a // comment, with string and char literals blanked, so
    that operators are only found in code."""
    out, quote, i = [], None, 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                out.append("__")
                i += 2
                continue
            if c == quote:
                quote = None
            out.append("_" if quote else c)
        elif c in "\"'":
            quote = c
            out.append(c)
        elif line.startswith("//", i):
            break
        else:
            out.append(c)
        i += 1
    return "".join(out)


def mutants_of(path):
    lines = open(path, newline="").read().split("\n")
    found = []
    in_block_comment = False
    for n, line in enumerate(lines):
        stripped = line.strip()
        if in_block_comment:
            if "*/" in stripped:
                in_block_comment = False
            continue
        if stripped.startswith("/*"):
            in_block_comment = "*/" not in stripped
            continue
        if (not stripped or stripped.startswith(("//", "#", "*", "static_assert", "__asm__", "\""))
                or "static_assert" in stripped):
            continue
        code = code_part(line)
        for name, pattern, replacement in OPERATORS:
            for m in pattern.finditer(code):
                mutated = line[:m.start()] + replacement + line[m.end():]
                found.append((path, n, name, line, mutated))
        call = CALL_STATEMENT.match(code)
        if call and not stripped.startswith(("return", "case", "else")):
            found.append((path, n, "delete", line, call.group(1) + ";"))
    return found


# The build or test running now: in a session of its own, so that a timeout
# or an interruption stops all of it. A compiler left running after its
# source was restored would write a mutant's object newer than the source,
# which the next build would then keep.
RUNNING = [None]


def stop(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()


def run(cmd, timeout, cwd=None):
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    RUNNING[0] = p
    try:
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop(p)
        return None
    finally:
        RUNNING[0] = None


def build(b, targets):
    cmd = ["cmake", "--build", b, "-j", str(os.cpu_count() or 2)]
    return run(cmd + (["--target"] + targets if targets else []), 900)


def build_and_test(builds, targets, tests, test_timeout):
    """'nobuild', 'killed', 'timeout' or 'survived'."""
    for b in builds:
        if build(b, targets) != 0:
            return "nobuild"
    for b in builds:
        rc = run(["ctest", "--test-dir", b, "-R", tests, "-j", str(os.cpu_count() or 2),
                  "--timeout", str(test_timeout), "--stop-on-failure"], 4 * test_timeout)
        if rc is None:
            return "timeout"
        if rc != 0:
            return "killed"
    return "survived"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--build", action="append", help="build directory (repeatable); default TOP/build")
    ap.add_argument("--tests", default=DEFAULT_TESTS, help="ctest -R regex")
    ap.add_argument("--target", action="append", default=[],
                    help="build only this target (repeatable; default: everything): what the tests run")
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--max", type=int, default=0, help="at most this many mutants (0: no limit)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--test-timeout", type=int, default=300)
    ap.add_argument("--ops", help="only these operators, comma-separated (rel,eq,logic,arith,ret,not,delete)")
    ap.add_argument("--only", help="only mutants of lines matching this regex (e.g. 'wipe|secure_zero')")
    ap.add_argument("--list", action="store_true", help="print the mutants and stop")
    a = ap.parse_args()
    builds = [os.path.abspath(b) for b in (a.build or [os.path.join(TOP, "build")])]
    files = [os.path.relpath(os.path.abspath(f), TOP) for f in a.files]

    mutants = []
    for f in files:
        mutants += mutants_of(os.path.join(TOP, f))
    if a.ops:
        mutants = [m for m in mutants if m[2] in a.ops.split(",")]
    if a.only:
        mutants = [m for m in mutants if re.search(a.only, m[3])]
    random.Random(a.seed).shuffle(mutants)
    if a.list:
        for path, n, name, before, after in mutants:
            print(f"{os.path.relpath(path, TOP)}:{n + 1} {name}: {before.strip()} -> {after.strip()}")
        print(f"{len(mutants)} mutants")
        return 0

    outside = [f for f in files if f.startswith("..") or os.path.isabs(f)]
    if outside:
        sys.exit(f"mutation-sweep: files outside this tree ({TOP}): {' '.join(outside)}")
    status = subprocess.run(["git", "status", "--porcelain", "--"] + files, cwd=TOP,
                            capture_output=True, text=True)
    if status.returncode != 0:
        sys.exit(f"mutation-sweep: git status failed: {status.stderr.strip()}")
    if status.stdout.strip():
        sys.exit(f"mutation-sweep: uncommitted changes in the files to mutate:\n{status.stdout.strip()}")

    original = {}
    current = [None]

    # Whole-file replacement (a temporary file renamed over the source), so
    # an interruption never leaves a half-written or mutant file behind.
    def write_file(path, text):
        tmp = path + ".mutation-sweep.tmp"
        with open(tmp, "w", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)

    def restore(*_):
        if current[0] is not None:
            write_file(current[0], original[current[0]])
            current[0] = None

    def interrupted(*_):
        if RUNNING[0] is not None:
            stop(RUNNING[0])
        restore()
        sys.exit("mutation-sweep: interrupted; the file is restored (rebuild before using the build)")

    signal.signal(signal.SIGINT, interrupted)
    signal.signal(signal.SIGTERM, interrupted)

    # The files as they are now, compiled anew: an object left from an
    # interrupted run may be a mutant's, newer than its restored source.
    for f in files:
        os.utime(os.path.join(TOP, f))
    log = open(a.log, "a")
    start = time.time()
    baseline = build_and_test(builds, a.target, a.tests, a.test_timeout)
    log.write(f"# {time.strftime('%Y-%m-%d %H:%M:%S')} {len(mutants)} mutants of {len(files)} files, "
              f"seed {a.seed}, tests {a.tests}, builds {builds}; unchanged tree: {baseline} "
              f"({time.time() - start:.0f} s)\n")
    log.flush()
    if baseline != "survived":
        sys.exit(f"mutation-sweep: the unchanged tree does not build and pass ({baseline})")

    counts = {}
    survivors = []
    done = 0
    for path, n, name, before, after in mutants:
        if a.max and done >= a.max:
            break
        if time.time() - start > 60 * a.minutes:
            break
        if path not in original:
            original[path] = open(path, newline="").read()
        lines = original[path].split("\n")
        lines[n] = after
        current[0] = path
        write_file(path, "\n".join(lines))
        t0 = time.time()
        try:
            result = build_and_test(builds, a.target, a.tests, a.test_timeout)
        finally:
            restore()
        done += 1
        counts[result] = counts.get(result, 0) + 1
        where = f"{os.path.relpath(path, TOP)}:{n + 1}"
        log.write(f"{result.upper()} {where} {name}: {before.strip()} -> {after.strip()} "
                  f"({time.time() - t0:.0f} s)\n")
        log.flush()
        if result == "survived":
            survivors.append(f"{where} {name}: {before.strip()} -> {after.strip()}")

    # Put the build back in step with the unchanged sources.
    for b in builds:
        build(b, a.target)
    tested = counts.get("killed", 0) + counts.get("survived", 0) + counts.get("timeout", 0)
    score = 100.0 * (tested - counts.get("survived", 0)) / tested if tested else 0.0
    summary = (f"# {done} mutants in {(time.time() - start) / 60:.1f} min: "
               + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
               + f"; killed or timed out {score:.1f}% of those that built\n")
    log.write(summary)
    for s in survivors:
        log.write(f"# survived: {s}\n")
    log.close()
    sys.stdout.write(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
