#!/usr/bin/env python3
"""A long fuzzing campaign: every fuzz target, every engine this CPU runs,
until each family has had GOAL executions or the time is up.

usage: scripts/fuzz-campaign.py [--goal N] [--hours H] [--slice SECONDS]
                                [--build DIR] [--sanitizers S] [--flags F] LOG

Runs scripts/fuzz.sh one target at a time (each run covers all of that
target's engine selections for SLICE seconds each), round after round, and
skips a target once its family reached the goal. Every run's final libFuzzer
statistics go to LOG (FUZZ_LOG), from which the totals are counted, so a
campaign can be stopped and continued with the same LOG. Ends with a
markdown table per run and the totals (docs/fuzzing.md, "Campaign").
Default build: BUILD_DIR build-fuzz-fast with UBSan only (no ASan: several
times the rate); a mismatch with the default provider or a sanitizer report
stops the campaign with fuzz.sh's message and the crashing input in
BUILD_DIR/fuzz-artifacts/.
"""
import argparse
import os
import re
import subprocess
import sys
import time

FAMILY = {"sha_fuzz": "SHA-1/224/256", "sha3_fuzz": "SHA-3/SHAKE", "sm4_fuzz": "SM4",
          "aead_fuzz": "SM4-GCM/CCM/XTS",
          "dispatch_fuzz": "dispatch (all families)"}
LINE = re.compile(r"^(\S+) (\S+) (HWACCEL_ENGINES=.*?) \| (.*?) \| stat::number_of_executed_units:\s+(\d+)"
                  r"\s+stat::average_exec_per_sec:\s+(\d+)")
COV = re.compile(r"cov: (\d+) ft: (\d+) corp: (\d+)")


def runs(log):
    out = []
    if os.path.exists(log):
        for line in open(log):
            m = LINE.match(line.strip())
            if m:
                cov = COV.search(m.group(4))
                out.append({"when": m.group(1), "target": m.group(2), "selection": m.group(3)[16:].strip(),
                            "execs": int(m.group(5)), "rate": int(m.group(6)),
                            "cov": cov.group(1) if cov else "", "ft": cov.group(2) if cov else "",
                            "corpus": cov.group(3) if cov else ""})
    return out


def totals(log):
    t = {target: 0 for target in FAMILY}
    for r in runs(log):
        t[r["target"]] = t.get(r["target"], 0) + r["execs"]
    return t


def report(log, goal):
    print("| target (family) | engine selection | executions | exec/s | cov | ft | corpus | ended (UTC) |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for r in runs(log):
        print("| `%s` (%s) | `%s` | %s | %s | %s | %s | %s | %s |" % (
            r["target"], FAMILY.get(r["target"], "?"), r["selection"], format(r["execs"], ","),
            r["rate"], r["cov"], r["ft"], r["corpus"], r["when"][11:16]))
    print()
    for target, n in totals(log).items():
        print("- `%s` (%s): %s executions%s" % (target, FAMILY[target], format(n, ","),
                                                "" if n >= goal else " (below the goal of %s)" % format(goal, ",")))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log")
    ap.add_argument("--goal", type=int, default=10_000_000, help="executions per family")
    ap.add_argument("--hours", type=float, default=8.0, help="stop starting new runs after this")
    ap.add_argument("--slice", type=int, default=300, help="seconds per engine selection per run")
    ap.add_argument("--build", default=None, help="fuzz build dir (default build-fuzz-fast)")
    ap.add_argument("--sanitizers", default="undefined", help="FUZZ_SANITIZERS of the build")
    ap.add_argument("--flags", default="", help="FUZZ_FLAGS, e.g. -max_len=512")
    ap.add_argument("--targets", default=" ".join(FAMILY), help="targets, in order")
    ap.add_argument("--only", default="", help="FUZZ_ONLY: engine selections matching this regex")
    ap.add_argument("--no-build", action="store_true", help="use the build as it is")
    ap.add_argument("--report", action="store_true", help="only print the table of LOG")
    a = ap.parse_args()
    if a.report:
        report(a.log, a.goal)
        return 0
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = a.build or os.path.join(top, "build-fuzz-fast")
    env = dict(os.environ, FUZZ_LOG=os.path.abspath(a.log), FUZZ_SANITIZERS=a.sanitizers, FUZZ_FLAGS=a.flags,
               FUZZ_ONLY=a.only)
    end = time.time() + a.hours * 3600
    built = a.no_build
    while time.time() < end:
        todo = [t for t in a.targets.split() if totals(a.log).get(t, 0) < a.goal]
        if not todo:
            break
        for target in todo:
            if time.time() >= end:
                break
            run_env = dict(env, FUZZ_TARGETS=target)
            if built:
                run_env["FUZZ_NO_BUILD"] = "1"
            rc = subprocess.call([os.path.join(top, "scripts", "fuzz.sh"), str(a.slice), build], env=run_env)
            built = True
            if rc != 0:
                print("campaign stopped: a finding (see above)", file=sys.stderr)
                report(a.log, a.goal)
                return 1
    report(a.log, a.goal)
    return 0


if __name__ == "__main__":
    sys.exit(main())
