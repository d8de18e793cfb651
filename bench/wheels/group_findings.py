#!/usr/bin/env python3
"""Group fenceline JSON findings by shape, for triage (issue 34; docs/real-code.md).

    bench/wheels/group_findings.py REPORT.json... [--tier default|strict|all] [--check ID] [--show N]

A group is (check, tier, kernel family, the flagged instruction, and for every evidence link its
kind, how, decided and instruction). Instructions are read from the PTX files the reports name
(paths as written in the report, relative to the working directory), with registers and labels
erased, so that one shape compiled into many kernels is one group. Prints the groups, largest
first, with N examples each.
"""
import argparse
import collections
import json
import re


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--tier", default="default")
    parser.add_argument("--check")
    parser.add_argument("--show", type=int, default=2)
    args = parser.parse_args()
    files = {}

    def text(location):
        name = location["file"]
        if name not in files:
            try:
                files[name] = open(name, encoding="utf-8", errors="replace").read().split("\n")
            except OSError:
                files[name] = []
        lines = files[name]
        line = location["line"]
        t = lines[line - 1].strip() if 0 < line <= len(lines) else "?"
        t = re.sub(r"%[a-z]+[0-9]+", "%r", t)
        return re.sub(r"\$L__BB[0-9_]+", "L", t)

    def family(function):
        m = re.match(r"(?:[\w:<>, ]+? )?([A-Za-z_][\w:]*?)(<|\()", function)
        return m.group(1) if m else function[:60]

    groups = collections.defaultdict(list)
    for report in args.reports:
        for d in json.load(open(report))["diagnostics"]:
            tier = d.get("tier", "default")
            if args.tier != "all" and tier != args.tier:
                continue
            if args.check and d["check"] != args.check:
                continue
            links = tuple((e["kind"], e["how"], e["decided"], text(e["location"]) if "location" in e else "")
                          for e in d.get("evidence", []))
            groups[(d["check"], tier, family(d["function"]), text(d["location"]), links)].append(d)
    print(f"{sum(len(g) for g in groups.values())} findings in {len(groups)} groups")
    for (check, tier, fam, instruction, links), found in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"\n{len(found)}  {check} [{tier}] {fam}  at: {instruction}")
        for kind, how, decided, t in links:
            print(f"     {kind}: {how}{'' if decided else ' (undecided)'}  | {t}")
        for d in found[: args.show]:
            print(f"     e.g. {d['location']['file']}:{d['location']['line']}  {d['function'][:110]}")


if __name__ == "__main__":
    main()
