#!/usr/bin/env python3
"""The wheels benchmark (issues 34 and 35): fenceline on the PTX that public
wheels ship. Downloads the pinned wheels of wheels.txt (pip download
--no-deps) into a scratch folder, unpacks them, and runs
`fenceline check --format json -j J --cuobjdump CUOBJDUMP LIB` on each
library: wall and CPU time, fenceline's own peak resident memory (VmHWM of
its process, polled; cuobjdump's memory is not fenceline's), functions and
instructions checked, findings per check and notifications per kind (limit
errors). With --ptx-stats, also the library's PTX (cuobjdump -xptx all):
images, MB, the images fenceline checks (the newest target of each kernel)
and the largest function's PTX bytes. Writes a summary of numbers only.

    bench/wheels/run.py --fenceline build/fenceline --cuobjdump PATH \
        [--scratch /work/scratch/wheels] [-j 2] [--ptx-stats] [--only NAME] -o summary.json

Third-party files stay in the scratch folder; only the summary is committed.
"""
import argparse
import collections
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile


def read_list(path):
    wheels = []
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if line:
            wheels.append((line[0], line[1:]))
    return wheels


def fetch(requirement, scratch):
    name, version = requirement.split("==")
    stem = name.replace("-", "_") + "-" + version
    found = glob.glob(os.path.join(scratch, stem + "-*.whl"))
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-d", scratch, requirement],
                       check=True, stdout=subprocess.DEVNULL)
        found = glob.glob(os.path.join(scratch, stem + "-*.whl"))
    wheel = found[0]
    folder = os.path.join(scratch, "x-" + stem)
    if not os.path.isdir(folder):
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(folder)
    return folder


def peak_of(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def check(fenceline, cuobjdump, library, jobs):
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        start = time.monotonic()
        before = os.times()
        child = subprocess.Popen([fenceline, "check", "-j", str(jobs), "--format", "json", "-o", report.name,
                                  "--cuobjdump", cuobjdump, library], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
        peak = 0.0
        while child.poll() is None:
            peak = max(peak, peak_of(child.pid) or 0.0)
            time.sleep(0.02)
        stderr = child.stderr.read()
        after = os.times()
        wall = time.monotonic() - start
        try:
            data = json.load(open(report.name))
        except ValueError:
            data = {"diagnostics": [], "stats": {}, "notifications": []}
    return {
        "exit_status": child.returncode,
        "wall_s": round(wall, 2),
        # fenceline's and cuobjdump's together (children of this script)
        "cpu_s": round((after.children_user - before.children_user) + (after.children_system - before.children_system), 2),
        "fenceline_peak_rss_mb": round(peak, 1),
        "functions": data["stats"].get("functions", 0),
        "instructions": data["stats"].get("instructions", 0),
        "complete": data["stats"].get("complete"),
        "findings": dict(collections.Counter(d["check"] for d in data["diagnostics"])),
        "notifications": dict(collections.Counter(f'{n["level"]}:{n["kind"]}' for n in data.get("notifications", []))),
        "sass_only_line": next((l for l in stderr.splitlines() if "only SASS" in l), ""),
    }


def ptx_stats(cuobjdump, library):
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([cuobjdump, "-xptx", "all", os.path.abspath(library)], cwd=folder,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        images, total, largest, newest = 0, 0, 0, {}
        for name in os.listdir(folder):
            text = open(os.path.join(folder, name), errors="replace").read()
            images += 1
            total += len(text)
            target = re.search(r"\.target\s+sm_(\d+)([a-z]*)", text)
            key = (int(target.group(1)), target.group(2)) if target else (0, "")
            for match in re.finditer(r"\.(entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z0-9_$%]+)", text):
                body = text.find("{", match.end())
                semi = text.find(";", match.end())
                if body < 0 or (0 <= semi < body and text[match.end():semi].count("(") == text[match.end():semi].count(")")):
                    continue
                depth, at = 0, body
                while at < len(text):
                    if text[at] == "{":
                        depth += 1
                    elif text[at] == "}":
                        depth -= 1
                        if depth == 0:
                            break
                    at += 1
                largest = max(largest, at - match.start())
                if match.group(2) not in newest or key > newest[match.group(2)][0]:
                    newest[match.group(2)] = (key, name)
        checked = len({image for _, image in newest.values()})
    return {"ptx_images": images, "ptx_mb": round(total / 1e6, 1), "images_checked": checked,
            "functions_defined": len(newest), "largest_function_kb": round(largest / 1e3, 1)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fenceline", default="build/fenceline")
    parser.add_argument("--cuobjdump", required=True)
    parser.add_argument("--scratch", default="/work/scratch/wheels")
    parser.add_argument("--list", default=os.path.join(os.path.dirname(__file__), "wheels.txt"))
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--ptx-stats", action="store_true")
    parser.add_argument("--only", default="")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    summary = {"fenceline": subprocess.run([args.fenceline, "--version"], capture_output=True, text=True).stdout.strip(),
               "jobs": args.jobs, "libraries": []}
    for requirement, patterns in read_list(args.list):
        if args.only and args.only not in requirement:
            continue
        folder = fetch(requirement, args.scratch)
        for pattern in patterns:
            for library in sorted(glob.glob(os.path.join(folder, pattern))):
                entry = {"wheel": requirement, "library": os.path.basename(library),
                         "library_mb": round(os.path.getsize(library) / 1e6, 1)}
                if args.ptx_stats:
                    entry.update(ptx_stats(args.cuobjdump, library))
                entry.update(check(args.fenceline, args.cuobjdump, library, args.jobs))
                print(json.dumps(entry), flush=True)
                summary["libraries"].append(entry)
    with open(args.output, "w") as out:
        json.dump(summary, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
