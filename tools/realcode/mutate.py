#!/usr/bin/env python3
"""Mutation recall on the real-code corpus (issue 29): break one ordering in the PTX of a real
unit, and the checker must report a new default-tier finding at the broken hand-off.

A mutation deletes a fence or weakens a release or an acquire, at one PTX line:
  proxy-fence     delete a `fence.proxy.async...` (expect proxy-war, proxy-raw or proxy-global)
  release         `st/atom/red.release` -> `.relaxed`     (expect release-missing)
  acquire         `ld/atom.acquire`     -> `.relaxed`     (expect acquire-missing)
  fence           delete a `fence.sc/acq_rel/release/acquire` or `membar` (expect acquire-missing
                  or release-missing)
  init-fence      delete a `fence.mbarrier_init` (expect mbarrier-init-fence)

    tools/realcode/mutate.py --fenceline BIN --list        every candidate site of every unit
    tools/realcode/mutate.py --fenceline BIN --check       the mutants of mutants.txt: each must draw a
                                                           new default-tier finding of its expected
                                                           check, located in the mutated function
mutants.txt: `unit  kind  n  expected-check[,check...]  # why`, n = the n-th candidate site of that
kind in the unit's PTX (0-based, in file order). The mutated PTX lives in a temporary folder only.
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCRATCH = pathlib.Path(os.environ.get("FENCELINE_REALCODE_DIR", ROOT / ".scratch" / "realcode"))
PTX_DIR = SCRATCH / "ptx"
sys.path.insert(0, str(HERE))
from run import held_back_units  # noqa: E402  (the lists' held-back sets)

# kind -> (pattern of a candidate line, rewrite of that line)
MUTATIONS = {
    "proxy-fence": (re.compile(r"^\s*fence\.proxy\.async(\.|;|::)"), lambda line: "// mutated: " + line.strip()),
    "release": (re.compile(r"^\s*(@%?\w+\s+)?(st|atom|red)\.(\w+\.)*release\."),
                lambda line: line.replace(".release.", ".relaxed.", 1)),
    "acquire": (re.compile(r"^\s*(@%?\w+\s+)?(ld|atom)\.(\w+\.)*acquire\."),
                lambda line: line.replace(".acquire.", ".relaxed.", 1)),
    "fence": (re.compile(r"^\s*(fence\.(sc|acq_rel|release|acquire)\.(cta|cluster|gpu|sys)\s*;|membar\.(gl|sys)\s*;)"),
              lambda line: "// mutated: " + line.strip()),
    "init-fence": (re.compile(r"^\s*fence\.mbarrier_init"), lambda line: "// mutated: " + line.strip()),
}


def candidates(text, kind):
    pattern = MUTATIONS[kind][0]
    return [i for i, line in enumerate(text.split("\n")) if pattern.search(line)]


def function_span(lines, index):
    """[first, last) PTX lines (1-based) of the .entry/.func whose body holds line `index` (0-based)."""
    header = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)?\.(?:entry|func)\b")
    first = next((i for i in range(index, -1, -1) if header.match(lines[i])), 0)
    last = next((i for i in range(index + 1, len(lines)) if header.match(lines[i])), len(lines))
    return first + 1, last + 1


def findings(fenceline, ptx):
    r = subprocess.run([fenceline, "check", "--format", "json", "-j", "1", str(ptx)], capture_output=True, text=True)
    try:
        return json.loads(r.stdout)["diagnostics"]
    except (json.JSONDecodeError, KeyError):
        sys.exit(f"mutate.py: fenceline failed on {ptx}: {r.stderr[:400]}")


def key(d):
    """A finding's site: check, kernel, the user's line and its inline chain, the PTX line."""
    loc = d.get("ptx") or {}
    chain = tuple((f["file"], f["line"]) for f in d.get("inlined_at", []))
    return (d["check"], d["function"], d["location"]["file"], d["location"]["line"], chain, loc.get("line"))


def run_mutant(fenceline, unit, kind, n, work):
    text = (PTX_DIR / f"{unit}.ptx").read_text(errors="replace")
    sites = candidates(text, kind)
    if n >= len(sites):
        return None, f"only {len(sites)} {kind} sites"
    lines = text.split("\n")
    at = sites[n]
    lines[at] = MUTATIONS[kind][1](lines[at])
    mutant = work / f"{unit}.{kind}.{n}.ptx"
    mutant.write_text("\n".join(lines))
    before = {key(d) for d in findings(fenceline, PTX_DIR / f"{unit}.ptx") if d.get("tier", "default") == "default"}
    after = [d for d in findings(fenceline, mutant) if d.get("tier", "default") == "default"]
    new = [d for d in after if key(d) not in before]
    return (at + 1, function_span(lines, at), new), ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fenceline", default=str(ROOT / "build" / "fenceline"))
    ap.add_argument("--list", action="store_true", help="print every candidate site of every corpus unit")
    ap.add_argument("--check", action="store_true", help="check the mutants of mutants.txt")
    ap.add_argument("--sweep", type=int, default=0, metavar="N",
                    help="try the first N sites of every kind in every unit and print what each draws")
    ap.add_argument("--mutants", default=str(HERE / "mutants.txt"))
    args = ap.parse_args()
    held_back = held_back_units()  # issue 29's last look: checked only by run.py --set lastlook
    if args.list:
        for ptx in sorted(PTX_DIR.glob("*.ptx")):
            if ptx.stem in held_back:
                continue
            text = ptx.read_text(errors="replace")
            counts = {kind: len(candidates(text, kind)) for kind in MUTATIONS}
            if any(counts.values()):
                print(ptx.stem, " ".join(f"{k}={v}" for k, v in counts.items() if v))
        return 0
    if args.sweep:
        with tempfile.TemporaryDirectory() as tmp:
            for ptx in sorted(PTX_DIR.glob("*.ptx")):
                if ptx.stem in held_back:
                    continue
                text = ptx.read_text(errors="replace")
                for kind in MUTATIONS:
                    for n in range(min(args.sweep, len(candidates(text, kind)))):
                        result, _ = run_mutant(args.fenceline, ptx.stem, kind, n, pathlib.Path(tmp))
                        ptx_line, _, new = result
                        print(f"{ptx.stem:34} {kind:12} #{n:<3} ptx:{ptx_line:<7} " +
                              (", ".join(sorted({d['check'] for d in new})) or "-"), flush=True)
        return 0
    failures = 0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for line in pathlib.Path(args.mutants).read_text().splitlines():
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            unit, kind, n, expected = words[0], words[1], int(words[2]), words[3].split(",")
            result, why = run_mutant(args.fenceline, unit, kind, n, pathlib.Path(tmp))
            if result is None:
                rows.append((unit, kind, n, "-", "ERROR " + why))
                failures += 1
                continue
            ptx_line, (first, last), new = result
            # At the broken hand-off: a finding of the expected check in the mutated function.
            hits = [d for d in new if d["check"] in expected and first <= (d.get("ptx") or {}).get("line", 0) < last]
            ok = bool(hits)
            failures += not ok
            where = ", ".join(f'{d["check"]} {pathlib.Path(d["location"]["file"]).name}:{d["location"]["line"]}'
                              for d in hits[:2])
            rows.append((unit, kind, n, ptx_line, ("found: " + where) if ok else
                         "MISSED (new: " + ", ".join(d["check"] for d in new) + ")"))
    for unit, kind, n, ptx_line, verdict in rows:
        print(f"{unit:34} {kind:12} #{n:<3} ptx:{ptx_line!s:<7} {verdict}")
    print(f"mutate.py: {len(rows) - failures} of {len(rows)} mutants drew a new finding of the expected check")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
