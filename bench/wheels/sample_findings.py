#!/usr/bin/env python3
"""A fixed-seed random sample of the wheels benchmark's default-tier findings, for triage
(issue 34; docs/real-code.md, "The wheels sample").

    bench/wheels/sample_findings.py REPORTS_DIR... [--seed 34] [--per-library 6]

REPORTS_DIR holds run.py --keep-reports's JSON reports (one per library file). For every
library, PER_LIBRARY of its default-tier findings (sorted by image, line and check first) are
drawn with random.Random(f"{SEED}:{library}"), so a library's draw does not depend on the
others. Prints one block per finding: library, check, function, location, evidence links.
"""
import argparse
import json
import os
import random


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--seed", default="34")
    parser.add_argument("--per-library", type=int, default=6)
    args = parser.parse_args()
    libraries = {}
    for folder in args.reports:
        for name in sorted(os.listdir(folder)):
            if name.endswith(".json"):
                data = json.load(open(os.path.join(folder, name)))
                libraries[name[:-5]] = [d for d in data.get("diagnostics", []) if d.get("tier", "default") == "default"]
    total = sum(len(f) for f in libraries.values())
    picked = []
    for library in sorted(libraries):
        own = sorted(libraries[library], key=lambda d: (d["location"]["file"], d["location"]["line"], d["check"]))
        rng = random.Random(f"{args.seed}:{library}")
        picked += [(library, own[i]) for i in sorted(rng.sample(range(len(own)), min(args.per_library, len(own))))]
    print(f"# {total} default-tier findings in {len(libraries)} library files; seed {args.seed}; {len(picked)} drawn")
    for k, (library, d) in enumerate(picked, 1):
        loc = d["location"]
        print(f"\n[{k}] {library} {d['check']} {loc['file'].split(':')[-1]}:{loc['line']}")
        print(f"    {d['function'][:160]}")
        for e in d.get("evidence", []):
            line = e.get("location", {}).get("line", "")
            print(f"    {e['kind']}: {e['how']}{' (undecided)' if not e['decided'] else ''} @{line} {e.get('detail', '')[-120:]}")


if __name__ == "__main__":
    main()
