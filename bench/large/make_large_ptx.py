#!/usr/bin/env python3
"""One large PTX module made of real nvcc output, for the memory benchmark.

Usage: make_large_ptx.py OUT.ptx MEGABYTES PTX...
Copies every function and module-level variable of the given PTX files
(nvcc -ptx -lineinfo output) again and again, each copy's symbols and
.debug_str labels renamed with a _cN suffix, under one .version/.target
header, until OUT.ptx holds MEGABYTES MB. .file tables are merged (indices
renumbered per input file, .loc and inlined_at follow). Files that declare
.extern functions (printf and the like) are left out: renamed copies would
not link. Prints the number of kernels written.
"""
import re
import sys

SYMBOL_DEFINITION = re.compile(
    r"^(?:\.(?:visible|weak|extern)\s+)*(?:\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)"
    r"|\.(?:global|shared|const)\s[^;=\[]*?([\w$]+)\s*(?:\[|;|=))", re.M)
HEADER = re.compile(r"^\s*\.(?:version|target|address_size)\b.*$", re.M)
FILE = re.compile(r"^\s*\.file\s+(\d+)(.*)$", re.M)
LOC = re.compile(r"(\.loc\s+|inlined_at\s+)(\d+)")
INFO = re.compile(r"\$L__info_string(\d+)")


def load(path, file_base):
    text = open(path).read()
    if re.search(r"^\s*\.extern\s+\.func", text, re.M):
        return None
    files = [f".file {int(m.group(1)) + file_base}{m.group(2)}" for m in FILE.finditer(text)]
    body = FILE.sub("", HEADER.sub("", text))
    body = LOC.sub(lambda m: m.group(1) + str(int(m.group(2)) + file_base), body)
    names = {a or b for a, b in SYMBOL_DEFINITION.findall(body)}
    rename = re.compile(r"(?<![\w$])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) +
                        r")(?![\w$])") if names else None
    kernels = len(re.findall(r"\.entry\s", body))
    return body, files, rename, kernels


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out_path, target = sys.argv[1], float(sys.argv[2]) * 1e6
    sources, file_base = [], 0
    for path in sys.argv[3:]:
        loaded = load(path, file_base)
        if loaded:
            sources.append(loaded)
            file_base += 1000
    if not sources:
        sys.exit("make_large_ptx: no usable PTX")
    written, kernels, copy = 0, 0, 0
    with open(out_path, "w") as out:
        out.write(".version 8.8\n.target sm_90a\n.address_size 64\n\n")
        while written < target:
            for body, _, rename, count in sources:
                suffix = f"_c{copy}"
                text = rename.sub(lambda m: m.group(1) + suffix, body) if rename else body
                text = INFO.sub(lambda m: f"$L__info_string{m.group(1)}{suffix}", text)
                out.write(text)
                written += len(text)
                kernels += count
            copy += 1
        for _, files, _, _ in sources:
            out.write("\n".join(files) + "\n")
    print(f"make_large_ptx: {out_path}: {written / 1e6:.1f} MB, {kernels} kernels, {copy} copies of {len(sources)} files")


if __name__ == "__main__":
    main()
