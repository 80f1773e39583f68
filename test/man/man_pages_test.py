#!/usr/bin/env python3
"""The manual pages (man/): they render without a single groff or man warning,
and they name everything a user can type or meet that the build knows of, so
they cannot go stale without this test failing:

  hwaccel-engines(1)  every engine and family name hwaccel-engines lists
                      (its output, and the family list of its error message);
  hwaccel(7)          the same, every config key the provider asks the core
                      for (provider/*.cpp: the request array passed to
                      core.get_params, less the core's own parameters), every
                      algorithm name and OID (provider/names.hpp) and every
                      error reason string of hwaccel's own (provider/errors.cpp).

Names are looked for in the rendered text (groff -Tascii, one line per
paragraph), as whole words. Then, for every name, the test deletes it from a
copy of the page and checks that the lookup reports it missing: a check that
could not fail would pass forever.

usage: man_pages_test.py --engines-tool PATH --source-dir DIR PAGE...
       (PAGE: the configured hwaccel-engines.1 and/or hwaccel.7 in <build>/man)
"""
import argparse
import os
import re
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def lint(page):
    """groff's and man-db's warnings (man-db: as lintian runs it); any is a failure."""
    problems = []
    r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", page],
                       capture_output=True, text=True)
    if r.returncode != 0 or r.stderr.strip():
        problems.append("groff -man -Tutf8 -ww -z %s (exit %d):\n%s" % (page, r.returncode, r.stderr))
    if shutil.which("man"):
        env = dict(os.environ, LC_ALL="C.UTF-8", MANROFFSEQ="", MANWIDTH="80")
        r = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", page],
                           capture_output=True, text=True, env=env)
        if r.returncode != 0 or r.stderr.strip():
            problems.append("man --warnings -l %s (exit %d):\n%s" % (page, r.returncode, r.stderr))
    return problems


def render(source):
    """The page as text, each paragraph on one line (a line length no
    paragraph reaches: no breaks, no hyphenation), split into its sections
    (NAME, ..., SEE ALSO): per section the plain text, and the bold text
    alone (other characters turned into line breaks), blanks collapsed."""
    r = subprocess.run(["groff", "-man", "-Tascii", "-P-cu", "-rLL=20000n"],
                       input=source, capture_output=True, text=True)
    if r.returncode != 0:
        fail("groff could not render a page:\n" + r.stderr)
    sections = {}
    current = None
    for line in r.stdout.splitlines():
        plain, bold = [], []
        i = 0
        while i < len(line):  # grotty's overstrikes: "c\bc" is a bold c
            j, is_bold = i, False
            while j + 2 < len(line) and line[j + 1] == "\b":
                is_bold = is_bold or line[j] == line[j + 2]
                j += 2
            plain.append(line[j])
            bold.append(is_bold)
            i = j + 1
        text = "".join(plain)
        if re.match(r"^[A-Z]", text):  # a heading: sections start at column 0
            current = re.sub(r"\s+", " ", text.strip())
            sections[current] = ["", ""]
            continue
        if current is None:
            continue
        # Bold characters, and the blanks between two of them ("final called twice").
        keep = [b or (c == " " and 0 < k < len(text) - 1 and bold[k - 1] and bold[k + 1])
                for k, (c, b) in enumerate(zip(text, bold))]
        sections[current][0] += re.sub(r"[ \t]+", " ", text) + "\n"
        sections[current][1] += re.sub(r"[ \t]+", " ", "".join(
            c if k else "\n" for c, k in zip(text, keep))) + "\n"
    return sections


def found(sections, where, name, bold):
    """The name as a whole word (not inside a longer name: sha1 in sha1x, SM4
    in SM4-CBC, the OID ...2.1 in ...2.10; a full stop may follow) in one of
    the sections `where`, in bold type if `bold`."""
    word = re.escape(re.sub(r"\s+", " ", name))
    pattern = r"(?<![A-Za-z0-9_-])(?<![A-Za-z0-9]\.)" + word + r"(?![A-Za-z0-9_-])(?!\.[A-Za-z0-9])"
    return any(re.search(pattern, sections[s][1 if bold else 0]) for s in where if s in sections)


def without(source, name):
    """The page source with every occurrence of the name deleted, as written
    plainly or with roff's \\- for its hyphens."""
    return source.replace(name.replace("-", "\\-"), "").replace(name, "")


# --- What the build knows -------------------------------------------------

def tool_names(tool):
    env = {k: v for k, v in os.environ.items() if k != "HWACCEL_ENGINES"}
    r = subprocess.run([tool], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        fail("%s exited %d:\n%s%s" % (tool, r.returncode, r.stdout, r.stderr))
    families, engines = [], []
    for line in r.stdout.splitlines():
        m = re.match(r"^(\S+)\s+\(", line)  # "sha256  (SHA-224, SHA-256)"
        if m:
            families.append(m.group(1))
        m = re.match(r"^  [* ] (\S+)\s", line)  # "  * sha-ni         available"
        if m:
            engines.append(m.group(1))
    # The names a selection accepts, aliases and "all" included, as the
    # tool's complaint about an unknown family lists them.
    r = subprocess.run([tool], capture_output=True, text=True,
                       env=dict(env, HWACCEL_ENGINES="no-such-family=generic"))
    m = re.search(r"\(known: ([^)]*)\)", r.stderr)
    if r.returncode != 2 or not m:
        fail("%s with an unknown family: exit %d, no '(known: ...)' list:\n%s" % (tool, r.returncode, r.stderr))
    families += m.group(1).split()
    if not engines or not families:
        fail("no engines or families parsed from %s's output:\n%s" % (tool, r.stdout))
    return sorted(set(engines)), sorted(set(families))


def provider_sources(src):
    out = {}
    for root, _, files in os.walk(os.path.join(src, "provider")):
        for f in files:
            if f.endswith((".cpp", ".hpp", ".h")):
                with open(os.path.join(root, f)) as fh:
                    out[os.path.join(root, f)] = fh.read()
    return out


def string_constants(sources):
    consts = {}
    for text in sources.values():
        for m in re.finditer(r'constexpr\s+const\s+char\s+(\w+)\[\]\s*=\s*"([^"]*)"', text):
            consts[m.group(1)] = m.group(2)
        for m in re.finditer(r'#define\s+(\w+)\s+"([^"]*)"', text):
            consts[m.group(1)] = m.group(2)
    return consts


def config_keys(src):
    """Keys of the provider's config section: OpenSSL hands a provider its
    section through the core's get_params, so every key the provider reads
    is a parameter of a request it passes to core.get_params. The core's own
    parameters (OSSL_PROV_PARAM_CORE_*: provider name, version, module file)
    are not config keys."""
    sources = provider_sources(src)
    consts = string_constants(sources)
    keys, calls = set(), 0
    for path, text in sources.items():
        for call in re.finditer(r"core\.get_params\(\s*\w+\s*,\s*(\w+)\s*\)", text):
            calls += 1
            array = call.group(1)
            m = re.search(r"OSSL_PARAM\s+" + re.escape(array) + r"\[\]\s*=\s*\{(.*?)\};", text, re.S)
            if not m:
                fail("%s: cannot find the array %s passed to core.get_params" % (path, array))
            entries = re.findall(r"OSSL_PARAM_\w+\(\s*(\w+|\"[^\"]*\")", m.group(1))
            if not entries:
                fail("%s: no parameters parsed from the request %s" % (path, array))
            for e in entries:
                if e.startswith('"'):
                    keys.add(e.strip('"'))
                elif e.startswith("OSSL_PROV_PARAM_CORE_"):
                    continue
                elif e in consts:
                    keys.add(consts[e])
                else:
                    fail("%s: cannot resolve the config key %s of request %s" % (path, e, array))
    if calls == 0 or not keys:
        fail("no core.get_params request with a config key found under provider/")
    return sorted(keys)


def algorithm_names(src):
    with open(os.path.join(src, "provider", "names.hpp")) as fh:
        text = fh.read()
    names = []
    for m in re.finditer(r'constexpr\s+const\s+char\s+k\w+\[\]\s*=\s*"([^"]+)"', text):
        names += m.group(1).split(":")
    if not names:
        fail("no algorithm names parsed from provider/names.hpp")
    return names


def reason_strings(src):
    with open(os.path.join(src, "provider", "errors.cpp")) as fh:
        text = fh.read()
    reasons = re.findall(r'\{\s*kErr\w+\s*,\s*const_cast<char\s*\*>\(\s*"([^"]+)"\s*\)\s*\}', text)
    if not reasons:
        fail("no reason strings parsed from provider/errors.cpp")
    return reasons


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engines-tool", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("pages", nargs="+")
    args = ap.parse_args()
    if not shutil.which("groff"):
        fail("groff is not installed (Debian: groff-base, scripts/install-deps.sh)")

    engines, families = tool_names(args.engines_tool)
    algorithms = algorithm_names(args.source_dir)
    oids = [a for a in algorithms if re.match(r"^[0-9.]+$", a)]
    # Per page: (what, names, the sections that must name each, in bold?).
    # Everything a user types is set in bold; an OID is not.
    required = {
        "hwaccel-engines.1": [
            ("engine", engines, ["FAMILIES AND ENGINES"], True),
            ("family", families, ["FAMILIES AND ENGINES", "ENVIRONMENT"], True)],
        "hwaccel.7": [
            ("engine", engines, ["ENGINES"], True),
            ("family", families, ["ENGINES", "ENVIRONMENT"], True),
            ("config key", config_keys(args.source_dir), ["CONFIGURATION"], True),
            ("algorithm name", [a for a in algorithms if a not in oids], ["ALGORITHMS"], True),
            ("OID", oids, ["ALGORITHMS"], False),
            ("error reason", reason_strings(args.source_dir), ["ERRORS"], True)],
    }
    failures = []
    mutations = 0
    for page in args.pages:
        base = os.path.basename(page)
        if base not in required:
            fail("unknown page %s (expected one of %s)" % (page, ", ".join(required)))
        failures += lint(page)
        with open(page) as fh:
            source = fh.read()
        sections = render(source)
        for kind, names, where, bold in required[base]:
            for name in names:
                if not found(sections, where, name, bold):
                    failures.append("%s does not name the %s %r%s in %s" % (
                        base, kind, name, " in bold" if bold else "", " or ".join(where)))
                    continue
                # The same lookup on the page with the name deleted must miss it.
                mutations += 1
                if found(render(without(source, name)), where, name, bold):
                    failures.append("%s: deleting the %s %r from the page does not make this check fail"
                                    % (base, kind, name))
        print("%s: no warnings; %s" % (base, "; ".join(
            "%d %s names" % (len(n), k) for k, n, _, _ in required[base])))
    print("engines: %s" % " ".join(engines))
    print("families: %s" % " ".join(families))
    if "hwaccel.7" in [os.path.basename(p) for p in args.pages]:
        print("config keys: %s" % " ".join(config_keys(args.source_dir)))
    if failures:
        for f in failures:
            print("FAIL: " + f, file=sys.stderr)
        sys.exit(1)
    print("man pages: passed (%d names found, each missed once deleted from its page)" % mutations)


if __name__ == "__main__":
    main()
