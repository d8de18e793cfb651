#!/usr/bin/env python3
"""Counts for the held-out first look of session 27 (bench/wheels/held27.sh; docs/real-code.md).

    bench/wheels/held27_count.py [--table] OUT

OUT holds held27.sh's reports (NAME.json, NAME.sample.json, with .time and .rc beside them).
--table: one row per report (exit status, functions, instructions, completeness, notifications,
default and strict findings, wall/CPU, peak). Always: default-tier findings by library and check,
strict-tier by check and undecided link, and the unique default findings of the whole look: a
finding is (check, function, PTX line, message), so the same image shipped in several files (or a
library checked whole and on a sample) counts once.
"""
import argparse
import collections
import json
import os


def load(out):
    reports = {}
    for name in sorted(os.listdir(out)):
        if not name.endswith(".json"):
            continue
        base = name[:-5]
        try:
            data = json.load(open(os.path.join(out, name)))
        except (ValueError, OSError) as e:
            data = {"error": str(e)}
        extra = {}
        for suffix in ("time", "rc"):
            path = os.path.join(out, f"{base}.{suffix}")
            lines = open(path).read().strip().splitlines() if os.path.exists(path) else []
            extra[suffix] = lines[-1] if lines else "?"
        reports[base] = (data, extra)
    return reports


def key(d):
    return (d["check"], d.get("function", ""), d.get("ptx", {}).get("line", d["location"]["line"]), d.get("message", ""))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--table", action="store_true")
    args = parser.parse_args()
    reports = load(args.out)
    if args.table:
        print("| report | rc | functions | instructions | complete | notifications | default | strict | time | ")
        print("|---|---|---:|---:|---|---|---:|---:|---|")
        for base, (data, extra) in reports.items():
            if "error" in data:
                print(f"| {base} | {extra['rc']} | | | no JSON: {data['error'][:60]} | | | | {extra['time']} |")
                continue
            st = data.get("stats", {})
            diags = data.get("diagnostics", [])
            notes = collections.Counter(f"{n.get('level')}:{n.get('kind')}" for n in data.get("notifications", []))
            nd = sum(1 for d in diags if d.get("tier", "default") == "default")
            print(f"| {base} | {extra['rc']} | {st.get('functions')} | {st.get('instructions')} | {st.get('complete')} | "
                  f"{', '.join(f'{k} {v}' for k, v in sorted(notes.items())) or '-'} | {nd} | {len(diags) - nd} | {extra['time']} |")
        print()
    seen = set()
    print("default tier (by check; unique: not counted in an earlier report)")
    for base, (data, _) in reports.items():
        diags = [d for d in data.get("diagnostics", []) if d.get("tier", "default") == "default"]
        if not diags:
            continue
        by = collections.Counter(d["check"] for d in diags)
        keys = {key(d) for d in diags}
        new = keys - seen
        seen |= keys
        print(f"  {base}: {len(diags)} ({', '.join(f'{c} {n}' for c, n in by.most_common())}); unique {len(keys)}, new {len(new)}")
    print(f"unique default findings: {len(seen)}")
    by_check = collections.Counter(k[0] for k in seen)
    print("  by check: " + ", ".join(f"{c} {n}" for c, n in by_check.most_common()))
    print("strict tier only (by check; undecided links)")
    sseen = set()
    for base, (data, _) in reports.items():
        diags = [d for d in data.get("diagnostics", []) if d.get("tier", "default") == "strict"]
        if not diags:
            continue
        by = collections.Counter()
        for d in diags:
            links = "+".join(sorted({e.get("how", "?") for e in d.get("evidence", []) if not e.get("decided", True)})) or "-"
            if d.get("disputed"):
                links += "+disputed"
            by[(d["check"], links)] += 1
        keys = {key(d) for d in diags}
        sseen |= keys
        print(f"  {base}: {len(diags)}: " + "; ".join(f"{c} {l} {n}" for (c, l), n in by.most_common()))
    print(f"unique strict findings: {len(sseen)}")


if __name__ == "__main__":
    main()
