#!/usr/bin/env python3
"""Seed corpus and token dictionary for fenceline_fuzz.

Usage: make_seeds.py REPO_ROOT OUT_DIR [NVCC]
Writes OUT_DIR/corpus/*.ptx: every .ptx under tests/, and (with NVCC) the
nvcc output (-ptx -lineinfo -arch=sm_90a) of every .cu under tests/ that
compiles, cached by content hash so reruns cost nothing; and OUT_DIR/ptx.dict,
the libFuzzer dictionary: every directive, opcode (with and without its
modifiers), special register and punctuation token those files use.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PUNCTUATION = [";", ",", "{", "}", "[", "]", "(", ")", "<", ">", "@", "@!", "|", "+", "-", ":", "=", "_"]


def tests_files(root, suffix):
    return sorted(p for p in (root / "tests").rglob("*" + suffix) if "lit-out" not in p.parts)


def compile_cu(nvcc, cu, out_dir, include):
    digest = hashlib.sha256(cu.read_bytes()).hexdigest()[:16]
    target = out_dir / f"{cu.stem}-{digest}.ptx"
    if target.exists():
        return target
    result = subprocess.run([nvcc, "-ptx", "-lineinfo", "-arch=sm_90a", f"-I{include}", "-o", str(target), str(cu)],
                            capture_output=True)
    return target if result.returncode == 0 and target.exists() else None


def tokens(text):
    found = set(PUNCTUATION)
    for match in re.finditer(r"\.[A-Za-z_][\w:]*", text):  # directives and modifiers
        found.add(match.group(0))
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"(@!?%\w+\s+)?([a-z][\w.:]*)\s", line)
        if m and not line.startswith("."):
            opcode = m.group(2)
            found.add(opcode)
            found.add(opcode.split(".")[0])
    for match in re.finditer(r"%[a-z_]+(\.[xyz])?", text):  # special registers, register prefixes
        found.add(match.group(0))
    return found


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, out = Path(sys.argv[1]), Path(sys.argv[2])
    nvcc = sys.argv[3] if len(sys.argv) > 3 else shutil.which("nvcc")
    corpus, cache = out / "corpus", out / "nvcc-cache"
    corpus.mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    seeds = list(tests_files(root, ".ptx"))
    if nvcc:
        # One nvcc per core (each is a single-threaded process); the seeds stay in file order.
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            compiled = pool.map(lambda cu: compile_cu(nvcc, cu, cache, root / "include"), tests_files(root, ".cu"))
            seeds += [ptx for ptx in compiled if ptx]
    vocabulary = set()
    for seed in seeds:
        data = seed.read_bytes()
        (corpus / (hashlib.sha256(data).hexdigest()[:16] + ".ptx")).write_bytes(data)
        vocabulary |= tokens(data.decode("utf-8", "replace"))
    with open(out / "ptx.dict", "w") as dictionary:
        for token in sorted(vocabulary):
            escaped = token.replace("\\", "\\\\").replace('"', '\\"')
            dictionary.write(f'"{escaped}"\n')
    print(f"make_seeds: {len(seeds)} seeds, {len(vocabulary)} dictionary tokens in {out}")


if __name__ == "__main__":
    main()
