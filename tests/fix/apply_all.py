#!/usr/bin/env python3
"""Applies `fenceline check --fix` to copies of every broken kernel under
tests/checks/ and of the lab's experiments, recompiles them (nvcc -ptx, through
the re-check) and checks them again:

  * every finding with an edit is gone at its site (its line moved by the
    lines inserted above it), in its function;
  * nothing new appears: every finding after the fix is one that had no edit;
  * every finding without an edit says why; the list of those (check, file,
    line, function, reason) must equal tests/fix/no-edit.expected, so that a
    finding that loses its fix, or a new reason, fails the test.

Usage: apply_all.py --fenceline BIN --src REPO --work DIR [--update]
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys

ARCH = re.compile(r"--arch[ =](sm_\w+)")


def broken_kernels(root):
    """The .cu files under tests/checks with an `// expect:` line, with their --arch."""
    found = []
    for folder, _, files in os.walk(os.path.join(root, "tests", "checks")):
        for name in sorted(files):
            if not name.endswith(".cu"):
                continue
            path = os.path.join(folder, name)
            text = open(path, encoding="utf-8").read()
            if "// expect:" not in text:
                continue
            arch = ARCH.search(text)
            found.append((os.path.relpath(path, root), arch.group(1) if arch else "sm_90a"))
    for name in sorted(os.listdir(os.path.join(root, "lab", "experiments"))):
        if name.endswith(".cu"):
            found.append((os.path.join("lab", "experiments", name), "sm_90a"))
    return sorted(found)


def run_check(fenceline, work, files, extra):
    """One fenceline run per --arch over `files` (relative to work): the JSON diagnostics."""
    by_arch = collections.defaultdict(list)
    for path, arch in files:
        by_arch[arch].append(path)
    diagnostics = []
    for arch, paths in sorted(by_arch.items()):
        cmd = [fenceline, "check", "--no-config", "--format", "json", "-j", "2", "--arch", arch, *extra, *paths]
        proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            sys.exit(f"FAIL: {' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr}")
        diagnostics += json.loads(proc.stdout)["diagnostics"]
    return diagnostics


INCLUDE = re.compile(r'#include\s+"([^"]+)"')


def includes_edited(path, edited, depth=3):
    """Is the file, or a file it includes with "..." (a few levels deep), one of the edited files?"""
    if os.path.basename(path) in edited:
        return True
    if depth == 0 or not os.path.exists(path):
        return False
    text = open(path, encoding="utf-8").read()
    folder = os.path.dirname(path)
    return any(includes_edited(os.path.join(folder, name), edited, depth - 1) for name in INCLUDE.findall(text))


def input_of(diagnostic, work):
    """The input a finding came from: the file of its outermost frame (the kernel)."""
    frames = diagnostic.get("inlined_at") or []
    file = frames[-1]["file"] if frames else diagnostic["location"]["file"]
    return os.path.normpath(os.path.relpath(file, work))


def site(diagnostic, work):
    location = diagnostic["location"]
    return (diagnostic["check"], diagnostic["function"], os.path.relpath(location["file"], work), location["line"])


def inserted_lines(diagnostics, work):
    """Per file, the (line, count) of every line insertion the fixes made."""
    inserted = collections.defaultdict(set)
    for d in diagnostics:
        for edit in d["fix_edits"]:
            if edit["length"] == 0 and edit["text"].endswith("\n"):
                inserted[os.path.relpath(edit["file"], work)].add((edit["line"], edit["text"].count("\n")))
    return inserted


def moved(site_key, inserted):
    check, function, file, line = site_key
    return (check, function, file, line + sum(n for at, n in inserted.get(file, ()) if at <= line))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fenceline", required=True)
    parser.add_argument("--src", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--update", action="store_true", help="rewrite no-edit.expected")
    args = parser.parse_args()

    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    for folder in ("tests/checks", "lab", "include"):
        shutil.copytree(os.path.join(args.src, folder), os.path.join(work, folder))
    files = broken_kernels(args.src)

    # Check and fix in one run: the report lists every finding with its edits or its reason.
    before = run_check(args.fenceline, work, files, ["--fix"])
    # Re-check what the fixes changed (an edited file, or one that includes one): nvcc compiles the
    # fixed copies again. The others are as they were, with the findings they had.
    edited = {os.path.basename(e["file"]) for d in before for e in d["fix_edits"]}
    changed = [(path, arch) for path, arch in files if includes_edited(os.path.join(work, path), edited)]
    changed_paths = {os.path.normpath(path) for path, _ in changed}
    after = run_check(args.fenceline, work, changed, [])
    after += [d for d in before if not d["fix_edits"] and input_of(d, work) not in changed_paths]

    inserted = inserted_lines(before, work)
    fixed = {moved(site(d, work), inserted) for d in before if d["fix_edits"]}
    unfixed = {moved(site(d, work), inserted) for d in before if not d["fix_edits"]}
    failures = []
    for d in after:
        key = site(d, work)
        if key in fixed:
            failures.append(f"still reported after its fix: {key}")
        elif key not in unfixed:
            failures.append(f"new finding after the fixes: {key}: {d['message']}")

    no_edit = []
    for d in before:
        if d["fix_edits"]:
            continue
        if not d.get("no_edit_reason"):
            failures.append(f"no edit and no reason: {site(d, work)}")
        check, function, file, line = site(d, work)
        no_edit.append(f"{check} {file}:{line} {function}: {d.get('no_edit_reason', '')}")
    no_edit = sorted(set(no_edit))

    expected_path = os.path.join(args.src, "tests", "fix", "no-edit.expected")
    if args.update:
        open(expected_path, "w", encoding="utf-8").write("\n".join(no_edit) + "\n")
    expected = open(expected_path, encoding="utf-8").read().splitlines()
    for line in sorted(set(expected) - set(no_edit)):
        failures.append(f"expected without an edit, but not so now: {line}")
    for line in sorted(set(no_edit) - set(expected)):
        failures.append(f"without an edit, not in no-edit.expected: {line}")

    edited = sum(1 for d in before if d["fix_edits"])
    print(f"files: {len(files)}; findings: {len(before)}; with an edit: {edited}; without: {len(before) - edited}; "
          f"after the fixes: {len(after)}")
    by_check = collections.Counter((d["check"], bool(d["fix_edits"])) for d in before)
    for check in sorted({c for c, _ in by_check}):
        print(f"  {check}: {by_check[(check, True)]} fixed, {by_check[(check, False)]} without an edit")
    for failure in failures:
        print("FAIL:", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
