#!/usr/bin/env python3
"""Runs `fenceline check` over the real-code corpus and writes the summary.

For every unit of kernels.txt and generated.txt whose PTX build.sh left in the corpus folder
($FENCELINE_REALCODE_DIR/ptx, default .scratch/realcode/ptx), it
runs `fenceline check --format json -j 1` (single-threaded, like ptxas), measures wall time and
peak memory, and collects the findings. It then writes results/realcode/summary.json (numbers
and findings, no third-party text beyond kernel names and source positions) and prints a
Markdown table for docs/real-code.md and docs/performance.md.

Each finding gets a key `tu:check@file:line<outer:line` (the translation unit, the innermost
source frame, then the outermost frame of its inline chain); tools/realcode/triage.txt maps keys to a verdict (`true-positive`,
`false-positive`, `fixed`), so the summary counts what is still untriaged.

    tools/realcode/run.py [--fenceline PATH] [--repeat N] [--only name,...] [--generator triton,...]
                          [--set fresh10|lastlook|all]

Units tagged `set=NAME` in the lists (session 10's fresh corpus: set=fresh10; issue 29's last
look: set=lastlook) are left out unless --set names them: the untagged corpus is the regression
baseline (--check: no open false positive), a tagged set is measured (first-look precision,
printed per project and per check). `--set all` takes every unit but those of a held-back set
(HELD_BACK: lastlook), which only `--set lastlook` checks.
"""
import argparse
import json
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# FENCELINE_REALCODE_DIR moves the corpus (packages and PTX) to a shared folder.
SCRATCH = pathlib.Path(os.environ.get("FENCELINE_REALCODE_DIR", ROOT / ".scratch" / "realcode"))
PTX_DIR = SCRATCH / "ptx"


# The lists of corpus units: nvcc-built translation units, then generated PTX (Triton, TileLang).
UNIT_LISTS = ("kernels.txt", "generated.txt")


# Sets held back from every listing that does not name them: issue 29's last look
# (tools/realcode/lastlook.txt) is checked once, by `run.py --set lastlook`, after all model
# changes, so helper scripts that walk "the corpus" (corpus_units(), mutate.py --list/--sweep)
# leave its units out. Empty this once that look is reported.
HELD_BACK = ("lastlook",)


def corpus_units(only_list=None, held_back=HELD_BACK):
    """(name, arch) per line of the unit lists (or of one of them); arch from an `arch=` word,
    sm_90a by default. Units of a held-back set are left out unless `held_back` is ()."""
    return [(name, arch) for name, arch, tags in tagged_units(only_list)
            if tags.get("set", "") not in held_back]


def held_back_units():
    """Names of the units of the held-back sets (HELD_BACK)."""
    return {name for name, _, tags in tagged_units() if tags.get("set", "") in HELD_BACK}


def tagged_units(only_list=None):
    """(name, arch, tags) per line of the unit lists: tags are the line's `key=value` words
    other than arch= (set=, project=)."""
    units = []
    for listing in (only_list,) if only_list else UNIT_LISTS:
        path = HERE / listing
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            words = line.split()
            if words and not words[0].startswith("#"):
                arch = next((w[5:] for w in words[2:] if w.startswith("arch=")), "sm_90a")
                tags = dict(w.split("=", 1) for w in words[2:]
                            if w.startswith(("set=", "project=")))
                units.append((words[0], arch, tags))
    return units


def generated_by(generators):
    """Names of the generated.txt units whose generator (second word) is one of `generators`."""
    names = set()
    for line in (HERE / "generated.txt").read_text().splitlines():
        words = line.split()
        if len(words) > 1 and not words[0].startswith("#") and words[1] in generators:
            names.add(words[0])
    return names


def ptxas_for(name):
    """The ptxas to time against: the one a generator recorded in <name>.ptxas (the compiler's
    own, for PTX newer than the toolkit), else the toolkit's."""
    recorded = PTX_DIR / f"{name}.ptxas"
    if recorded.exists():
        return recorded.read_text().strip()
    return str(pathlib.Path(os.environ.get("CUDA_BIN", "/usr/local/cuda/bin")) / "ptxas")


def load_triage():
    """triage.txt: `key  verdict  short reason` per line."""
    verdicts = {}
    path = HERE / "triage.txt"
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                key, verdict, *_ = line.split(None, 2) + [""]
                verdicts[key] = verdict
    return verdicts


def ptx_shape(path):
    """Size, lines, kernel entries and a rough count of instruction lines of one PTX file."""
    text = path.read_text(errors="replace")
    body = text.split(".section", 1)[0]  # drop the .debug_str bytes
    instr = sum(1 for l in body.splitlines()
                if re.match(r"\s*(@!?%\w+\s+)?[a-z][a-z0-9_]*(\.[\w:]+)*(\s|;)", l)
                and not l.lstrip().startswith((".", "//")))
    return {"bytes": path.stat().st_size, "lines": text.count("\n"),
            "entries": len(re.findall(r"^\.(?:visible )?\.?entry\s", text, re.M)),
            "instruction_lines": instr}


def spawn_and_wait(argv, out, err):
    """Starts argv with stdout and stderr on the open files, waits: (exit code, wall seconds,
    rusage). posix_spawn, not subprocess.Popen: Popen's fork from this interpreter costs about
    3 ms of wall time on the corpus machine (more than all of `/bin/true`), which would be charged
    to the small files' checker runs and ptxas runs alike."""
    start = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, os.environ,
                          file_actions=[(os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                                        (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])
    _, status, usage = os.wait4(pid, 0)  # wait4: this child's own peak memory and CPU time
    return os.waitstatus_to_exitcode(status), time.perf_counter() - start, usage


def run_once(fenceline, ptx):
    """One checker run: (parsed JSON or None, exit code, wall seconds, peak RSS MiB, stderr, CPU
    seconds: user + system)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        returncode, wall, usage = spawn_and_wait([fenceline, "check", "--format", "json", "-j", "1", str(ptx)],
                                                 out, err)
        out.seek(0)
        err.seek(0)
        text, errtext = out.read(), err.read()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        doc = None
    return doc, returncode, wall, usage.ru_maxrss / 1024.0, errtext, usage.ru_utime + usage.ru_stime


def time_ptxas(ptx, arch, ptxas):
    """(wall, CPU) seconds of `ptxas -arch=<arch>` on the same PTX (the peer for performance),
    or (None, None) when it fails. A PTX that calls extern functions (a device library's
    entry points, resolved at link time) compiles only as relocatable code: `ptxas -c`, the way
    nvcc -rdc builds it, is then the peer."""
    for extra in ([], ["-c"]):
        with open(os.devnull, "w") as null:
            returncode, wall, usage = spawn_and_wait([ptxas, f"-arch={arch}", *extra, "-o", os.devnull, str(ptx)],
                                                     null, null)
        if returncode == 0:
            return wall, usage.ru_utime + usage.ru_stime
    return None, None


def finding_key(unit, d):
    """unit:check@inner-file:line, plus <outer-file:line when the site was inlined (the outermost
    frame: the kernel's own line), so one library line reached from two kernels keeps two verdicts."""
    def frame(f):
        return f'{pathlib.Path(str(f.get("file", "?"))).name}:{f.get("line", 0)}'
    # The whole inline chain, innermost first: the library frames the finding
    # was expanded from, the primary (user) location, the call sites.
    chain = list(d.get("expanded_from") or []) + [d.get("location") or {}] + list(d.get("inlined_at") or [])
    key = f'{unit}:{d.get("check")}@{frame(chain[0])}'
    return key + (f"<{frame(chain[-1])}" if len(chain) > 1 else "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fenceline", default=None)
    ap.add_argument("--repeat", type=int, default=3, help="runs per TU; the median time is kept")
    ap.add_argument("--only", default="")
    ap.add_argument("--only-list", default="", choices=("",) + UNIT_LISTS,
                    help="only the units of this list (kernels.txt or generated.txt)")
    ap.add_argument("--generator", default="",
                    help="only the generated.txt units of these generators (comma-separated: "
                         "triton, tilelang, cutedsl)")
    ap.add_argument("--set", default="",
                    help="the units tagged set=NAME (e.g. fresh10, session 10's fresh corpus), "
                         "with a precision report; 'all' for every unit. Without it, only the "
                         "untagged units (the corpus whose findings are all triaged and settled)")
    ap.add_argument("--output", default=None,
                    help="summary JSON (default results/realcode/summary.json; with --set, "
                         "results/realcode/summary-<set>.json)")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 on a checker error, an untriaged finding, an open false positive, or a "
                         "finding marked fixed (a regression)")
    ap.add_argument("--no-table", action="store_true")
    ap.add_argument("--no-ptxas", action="store_true",
                    help="reuse build.sh's single ptxas timing instead of timing ptxas again")
    args = ap.parse_args()

    fenceline = args.fenceline
    if not fenceline:
        for cand in ("build-realcode/fenceline", "build/fenceline"):
            if (ROOT / cand).exists():
                fenceline = str(ROOT / cand)
                break
    if not fenceline:
        sys.exit("run.py: no fenceline binary (build one, or pass --fenceline)")
    only = set(filter(None, args.only.split(",")))
    generators = set(filter(None, args.generator.split(",")))
    if generators:
        only = (only & generated_by(generators)) if only else generated_by(generators)
        if not only:
            sys.exit(f"run.py: no generated.txt unit made by {args.generator}")
    triage = load_triage()

    if args.output is None:
        args.output = str(ROOT / "results" / "realcode" /
                          (f"summary-{args.set}.json" if args.set else "summary.json"))
    units = []
    listed = set(corpus_units(args.only_list, held_back=())) if args.only_list else None
    projects = {}
    for name, arch, tags in tagged_units():
        if args.set != "all" and tags.get("set", "") != args.set:
            continue
        if args.set == "all" and tags.get("set", "") in HELD_BACK:
            continue
        projects[name] = tags.get("project", "")
        if only and name not in only:
            continue
        if listed is not None and (name, arch) not in listed:
            continue
        ptx = PTX_DIR / f"{name}.ptx"
        if not ptx.exists():
            print(f"run.py: {name}: no PTX (run build.sh)", file=sys.stderr)
            continue
        times = (PTX_DIR / f"{name}.times").read_text().split() if (PTX_DIR / f"{name}.times").exists() else []
        ptxas_s = float(times[1]) if len(times) > 1 else None
        walls, cpus, ptxas_walls, ptxas_cpus, doc, code, err, rss = [], [], [], [], None, 0, "", 0.0
        for _ in range(max(1, args.repeat)):  # alternate the two tools so both see the same load
            doc, code, wall, rss, err, cpu = run_once(fenceline, ptx)
            walls.append(wall)
            cpus.append(cpu)
            if not args.no_ptxas:
                ptxas_wall, ptxas_cpu = time_ptxas(ptx, arch, ptxas_for(name))
                ptxas_walls.append(ptxas_wall)
                ptxas_cpus.append(ptxas_cpu)
        wall = statistics.median(walls)
        cpu = statistics.median(cpus)
        ptxas_cpu = None
        if ptxas_walls and None not in ptxas_walls:
            ptxas_s = statistics.median(ptxas_walls)
            ptxas_cpu = statistics.median(ptxas_cpus)
        unit = {"name": name, "arch": arch, "ptx": ptx_shape(ptx), "exit_code": code,
                "ptxas": ptxas_for(name),
                "fenceline_s": round(wall, 4), "ptxas_s": round(ptxas_s, 3) if ptxas_s else None,
                "ratio_to_ptxas": round(wall / ptxas_s, 4) if ptxas_s else None,
                "fenceline_cpu_s": round(cpu, 4), "ptxas_cpu_s": round(ptxas_cpu, 3) if ptxas_cpu else None,
                "cpu_ratio_to_ptxas": round(cpu / ptxas_cpu, 4) if ptxas_cpu else None,
                "peak_rss_mib": round(rss, 1)}
        if doc is None or code == 2:  # exit 2: an input the checker could not read (no findings)
            unit["error"] = err.strip()[-2000:]
            print(f"run.py: {name}: fenceline failed (exit {code}): {err.strip()[-300:]}",
                  file=sys.stderr)
        else:
            unit["stats"] = doc.get("stats", {})
            unit["findings"] = [{"key": finding_key(name, d), "check": d.get("check"),
                                 "severity": d.get("severity"), "function": d.get("function"),
                                 "location": d.get("location"), "message": d.get("message"),
                                 "verdict": triage.get(finding_key(name, d), "untriaged")}
                                for d in doc.get("diagnostics", [])]
        units.append(unit)
        print(f"run.py: {name}: {wall:.3f}s, {len(unit.get('findings', []))} findings", file=sys.stderr)

    findings = [f for u in units for f in u.get("findings", [])]
    by_check = {}
    for f in findings:
        by_check[f["check"]] = by_check.get(f["check"], 0) + 1
    summary = {
        "fenceline": fenceline,
        "git_head": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                   capture_output=True, text=True).stdout.strip(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "units": units,
        "totals": {
            "units": len(units),
            "ptx_bytes": sum(u["ptx"]["bytes"] for u in units),
            "fenceline_s": round(sum(u["fenceline_s"] for u in units), 3),
            "ptxas_s": round(sum(u["ptxas_s"] or 0 for u in units), 3),
            "fenceline_cpu_s": round(sum(u["fenceline_cpu_s"] for u in units), 3),
            "ptxas_cpu_s": round(sum(u["ptxas_cpu_s"] or 0 for u in units), 3),
            "findings": len(findings),
            "findings_by_check": by_check,
            "untriaged": sum(1 for f in findings if f["verdict"] == "untriaged"),
            "open_false_positives": sum(1 for f in findings if f["verdict"] == "false-positive"),
            "regressions": sum(1 for f in findings if f["verdict"] == "fixed"),
        },
    }
    out = pathlib.Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=2) + "\n")

    if not args.no_table:
        print_table(units)
    if args.set:
        print_precision(units, projects)
    if args.check:
        bad = [u["name"] for u in units if "error" in u]
        bad += [f'{f["key"]} ({f["verdict"]})' for f in findings
                if f["verdict"] in ("untriaged", "false-positive", "fixed")]  # fixed + reported = regression
        if bad or not units:
            print("run.py: FAIL: " + ("; ".join(bad) or "no PTX checked"), file=sys.stderr)
            sys.exit(1)


def print_precision(units, projects):
    """First-look precision of a set: TP / (TP + FP) over its findings (a finding whose verdict
    is `fixed` counts as the false positive it was), overall, per project and per check."""
    rows = {}
    for u in units:
        for f in u.get("findings", []):
            verdict = {"true-positive": "TP", "false-positive": "FP", "fixed": "FP"}.get(f["verdict"], "untriaged")
            for group in ("all", f"project {projects.get(u['name']) or '-'}", f"check {f['check']}"):
                counts = rows.setdefault(group, {"TP": 0, "FP": 0, "untriaged": 0})
                counts[verdict] += 1
    print("| group | findings | TP | FP | untriaged | precision |")
    print("|---|---:|---:|---:|---:|---:|")
    for group, c in sorted(rows.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        judged = c["TP"] + c["FP"]
        precision = f'{100.0 * c["TP"] / judged:.0f}%' if judged else "-"
        print(f'| {group} | {judged + c["untriaged"]} | {c["TP"]} | {c["FP"]} | {c["untriaged"]} | {precision} |')


def print_table(units):
    def num(value, fmt):
        return "?" if value is None else format(value, fmt)

    print("| TU | PTX | entries | instructions | fenceline | ptxas | ratio | CPU ratio | findings |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for u in units:
        stats = u.get("stats", {})
        found = len(u["findings"]) if "findings" in u else "error"
        print(f'| {u["name"]} | {u["ptx"]["bytes"] / 1e6:.2f} MB | {u["ptx"]["entries"]} | '
              f'{stats.get("instructions", "?")} | {u["fenceline_s"]:.3f} s | '
              f'{num(u["ptxas_s"], ".2f")} s | {num(u["ratio_to_ptxas"], ".3f")} | '
              f'{num(u.get("cpu_ratio_to_ptxas"), ".3f")} | {found} |')


if __name__ == "__main__":
    main()
