#!/usr/bin/env python3
"""The wheels benchmark (issues 34 and 35): fenceline on the PTX that public
wheels ship. Downloads the pinned wheels of wheels.txt (pip download
--no-deps) into a scratch folder, unpacks them, and runs
`fenceline check --format json -j J --cuobjdump CUOBJDUMP LIB` on each
library: wall and CPU time, fenceline's own peak resident memory (VmHWM of
its process, polled; cuobjdump's memory is not fenceline's), functions and
instructions checked, findings per check and notifications per kind (limit
errors). With --ptx-stats, also the library's PTX (cuobjdump -xptx all):
images, MB, the images fenceline checks (the newest target of each kernel),
the largest function's PTX bytes and the same with its calls inlined. Writes a summary of numbers only.

    bench/wheels/run.py --fenceline build/fenceline --cuobjdump PATH \
        [--scratch /work/scratch/wheels] [-j 2] [--ptx-stats] [--only NAME] -o summary.json

With --merge SUMMARY, the rows measured now replace the rows of SUMMARY for the same library file
(wheel and library) and the other rows are kept; each row records the fenceline commit it was
measured with (fenceline_commit, from --commit or `git rev-parse` of this checkout) and when
(measured_utc), and the summary's "runs" lists every run's command, date and libraries.

Third-party files stay in the scratch folder; only the summary is committed.
"""
import argparse
import collections
import glob
import json
import os
import platform
import random
import shutil
import statistics
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


# Linux x86_64 wheels for CPython 3.11 (pip download for another machine).
PLATFORMS = ["manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64", "manylinux_2_17_x86_64",
             "manylinux2014_x86_64", "manylinux1_x86_64"]


def fetch(requirement, scratch):
    name, version = requirement.split("==")
    stem = name.replace("-", "_") + "-" + version
    found = glob.glob(os.path.join(scratch, stem + "-*.whl"))
    if not found:
        platforms = [arg for tag in PLATFORMS for arg in ("--platform", tag)]
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", *platforms,
                        "--python-version", "3.11", "-d", scratch, requirement], check=True, stdout=subprocess.DEVNULL)
        found = glob.glob(os.path.join(scratch, stem + "-*.whl"))
    wheel = found[0]
    folder = os.path.join(scratch, "x-" + stem)
    if not os.path.isdir(folder):
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(folder)
            # zipfile drops the mode bits: give executables (cuobjdump, ptxas) theirs back.
            for info in archive.infolist():
                mode = info.external_attr >> 16
                if mode & 0o111 and not info.is_dir():
                    os.chmod(os.path.join(folder, info.filename), mode & 0o777)
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


def check(fenceline, cuobjdump, library, jobs, keep=""):
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
        if keep:
            shutil.copyfile(report.name, keep)
    return {
        "exit_status": child.returncode,
        "wall_s": round(wall, 2),
        # fenceline's and cuobjdump's together (children of this script)
        "cpu_s": round((after.children_user - before.children_user) + (after.children_system - before.children_system), 2),
        "fenceline_peak_rss_mb": round(peak, 1),
        "functions": data["stats"].get("functions", 0),
        "instructions": data["stats"].get("instructions", 0),
        "complete": data["stats"].get("complete"),
        "findings": dict(collections.Counter(d["check"] for d in data["diagnostics"] if d.get("tier", "default") == "default")),
        "notifications": dict(collections.Counter(f'{n["level"]}:{n["kind"]}' for n in data.get("notifications", []))),
        "sass_only_line": next((l for l in stderr.splitlines() if "only SASS" in l), ""),
    }


def extract(cuobjdump, library, folder):
    """cuobjdump -xptx all LIBRARY into FOLDER: every embedded PTX image, one file each."""
    os.makedirs(folder, exist_ok=True)
    subprocess.run([cuobjdump, "-xptx", "all", os.path.abspath(library)], cwd=folder,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return sorted(os.listdir(folder))


CALL = re.compile(r"\bcall(?:\.uni)?\s+(?:\([^)]*\)\s*,\s*)?([A-Za-z_$%][A-Za-z0-9_$%]*)")


def inlined_size(function, sizes, calls, memo=None, open_=None):
    """A function's PTX bytes with every call to a function of its image counted as the callee's
    own inlined bytes: what fenceline models after inlining (a recursive call counts once)."""
    memo = {} if memo is None else memo
    open_ = set() if open_ is None else open_
    if function in memo:
        return memo[function]
    open_.add(function)
    size = sizes[function]
    for callee in calls.get(function, []):
        if callee in sizes and callee not in open_:
            size += inlined_size(callee, sizes, calls, memo, open_)
    open_.discard(function)
    memo[function] = size
    return size


def read_images(folder, names):
    """Images, MB, the largest function's PTX bytes, and the images fenceline checks: those holding
    the newest PTX target of some kernel (name -> target)."""
    images, total, largest, largest_inlined, newest, targets = 0, 0, 0, 0, {}, {}
    for name in names:
        sizes, calls = {}, {}
        text = open(os.path.join(folder, name), errors="replace").read()
        images += 1
        total += len(text)
        target = re.search(r"\.target\s+(sm_(\d+)([a-z]*))", text)
        key = (int(target.group(2)), target.group(3)) if target else (0, "")
        targets[name] = target.group(1) if target else ""
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
            sizes[match.group(2)] = at - match.start()
            calls[match.group(2)] = CALL.findall(text, body, at)
            if match.group(2) not in newest or key > newest[match.group(2)][0]:
                newest[match.group(2)] = (key, name)
        memo = {}
        largest_inlined = max([largest_inlined] + [inlined_size(f, sizes, calls, memo) for f in sizes])
    checked = sorted({image for _, image in newest.values()})
    stats = {"ptx_images": images, "ptx_mb": round(total / 1e6, 1), "images_checked": len(checked),
             "functions_defined": len(newest), "largest_function_kb": round(largest / 1e3, 1),
             "largest_inlined_function_kb": round(largest_inlined / 1e3, 1)}
    return stats, {name: targets[name] for name in checked}


def timed(command):
    """Wall and CPU seconds (user + system) of one child process, and its exit status."""
    start = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    return time.monotonic() - start, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def ratio_sample(fenceline, ptxas, folder, checked, count, seed, library, rounds):
    """fenceline / ptxas on COUNT images of CHECKED drawn with a fixed seed: ROUNDS rounds, each
    running fenceline (-j 1) then ptxas -arch=<the image's target> (with -c for an image that has
    no kernel: relocatable device code) on the same file; the median of
    each per file; the ratio of the sums for the library."""
    names = sorted(checked)
    picked = sorted(random.Random(f"{seed}:{library}").sample(names, min(count, len(names))))
    files = []
    for name in picked:
        path = os.path.join(folder, name)
        # An image with no kernel (a device library: NVSHMEM's archive) is relocatable code: without
        # -c, ptxas drops every function no kernel calls and compiles nothing; nvcc -rdc uses -c.
        relocatable = not re.search(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s", open(path, errors="replace").read(), re.M)
        runs = {"fenceline": [], "ptxas": []}
        statuses = {"fenceline": set(), "ptxas": set()}
        for _ in range(rounds):
            for tool, command in (("fenceline", [fenceline, "check", "-j", "1", "--format", "json", "-o", os.devnull, path]),
                                  ("ptxas", [ptxas, f"-arch={checked[name]}", *(["-c"] if relocatable else []), path,
                                             "-o", os.devnull])):
                wall, cpu, status = timed(command)
                runs[tool].append((wall, cpu))
                statuses[tool].add(status)
        entry = {"image_kb": round(os.path.getsize(path) / 1e3, 1), "target": checked[name]}
        if relocatable:
            entry["ptxas_relocatable"] = True
        for tool in runs:
            entry[f"{tool}_wall_s"] = round(statistics.median(w for w, _ in runs[tool]), 3)
            entry[f"{tool}_cpu_s"] = round(statistics.median(c for _, c in runs[tool]), 3)
            entry[f"{tool}_exit"] = sorted(statuses[tool])
        entry["ratio_cpu"] = round(entry["fenceline_cpu_s"] / max(entry["ptxas_cpu_s"], 1e-3), 4)
        files.append(entry)
    total = {tool: sum(f[f"{tool}_cpu_s"] for f in files) for tool in ("fenceline", "ptxas")}
    return {"sample_seed": seed, "sample_rounds": rounds, "sample_files": files,
            "sample_ratio_cpu": round(total["fenceline"] / max(total["ptxas"], 1e-3), 4) if files else None,
            "sample_max_file_ratio_cpu": max((f["ratio_cpu"] for f in files), default=None)}


def merge(old, new, args, commit):
    """OLD's rows with NEW's rows in place of those for the same (wheel, library), in wheels.txt's
    order; OLD's top-level fields kept, NEW's run appended to "runs"."""
    rows = {(row["wheel"], row["library"]): row for row in old["libraries"]}
    order = [row_key for row_key in rows]
    for row in new["libraries"]:
        key = (row["wheel"], row["library"])
        if key not in rows:
            order.append(key)
        rows[key] = row
    position = {requirement: at for at, (requirement, _) in enumerate(read_list(args.list))}
    order.sort(key=lambda key: position.get(key[0], len(position)))
    merged = {key: value for key, value in old.items() if key != "libraries"}
    merged.setdefault("runs", [])
    run = {"command": new["command"], "date": new["date"], "fenceline": new["fenceline"], "fenceline_commit": commit,
           "ptxas": new["ptxas"], "machine": new["machine"], "jobs": new["jobs"],
           "libraries": [row["library"] for row in new["libraries"]]}
    if args.note:
        run["note"] = args.note
    merged["runs"].append(run)
    merged["libraries"] = [rows[key] for key in order]
    return merged


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fenceline", default="build/fenceline")
    parser.add_argument("--cuobjdump", required=True)
    parser.add_argument("--scratch", default="/work/scratch/wheels")
    parser.add_argument("--list", default=os.path.join(os.path.dirname(__file__), "wheels.txt"))
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--ptx-stats", action="store_true")
    parser.add_argument("--only", default="")
    parser.add_argument("--ptxas", default="", help="ptxas for the ratio sample (needs --ptx-stats)")
    parser.add_argument("--sample", type=int, default=3, help="images per library in the ratio sample")
    parser.add_argument("--seed", default="34")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--keep-ptx", action="store_true", help="keep the extracted PTX (SCRATCH/ptx/LIBRARY)")
    parser.add_argument("--keep-reports", default="", help="folder for each library's JSON report (for triage)")
    parser.add_argument("--merge", default="", help="existing summary whose other rows are kept (see above)")
    parser.add_argument("--commit", default="", help="fenceline commit recorded per row (default: this checkout's HEAD)")
    parser.add_argument("--note", default="", help="free text recorded with this run in the summary's runs list")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    commit = args.commit or subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "rev-parse",
                                            "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    summary = {"fenceline": subprocess.run([args.fenceline, "--version"], capture_output=True, text=True).stdout.strip(),
               "ptxas": subprocess.run([args.ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
               if args.ptxas else "",
               "command": " ".join(sys.argv), "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.node()}",
               "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "jobs": args.jobs, "libraries": []}
    for requirement, patterns in read_list(args.list):
        if args.only and args.only not in requirement:
            continue
        folder = fetch(requirement, args.scratch)
        for pattern in patterns:
            for library in sorted(glob.glob(os.path.join(folder, pattern))):
                entry = {"wheel": requirement, "library": os.path.basename(library),
                         "library_mb": round(os.path.getsize(library) / 1e6, 1), "fenceline_commit": commit,
                         "measured_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}
                keep = ""
                if args.keep_reports:
                    os.makedirs(args.keep_reports, exist_ok=True)
                    keep = os.path.join(args.keep_reports, os.path.basename(library) + ".json")
                entry.update(check(args.fenceline, args.cuobjdump, library, args.jobs, keep))
                if args.ptx_stats:
                    images = os.path.join(args.scratch, "ptx", os.path.basename(library))
                    stats, checked = read_images(images, extract(args.cuobjdump, library, images))
                    entry.update(stats)
                    if args.ptxas and args.sample > 0:
                        entry.update(ratio_sample(args.fenceline, args.ptxas, images, checked, args.sample, args.seed,
                                                  os.path.basename(library), args.rounds))
                    if not args.keep_ptx:
                        shutil.rmtree(images)
                print(json.dumps(entry), flush=True)
                summary["libraries"].append(entry)
    if args.merge:
        summary = merge(json.load(open(args.merge)), summary, args, commit)
    with open(args.output, "w") as out:
        json.dump(summary, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
