#!/usr/bin/env -S python3 -S
"""nvcc with a content-addressed cache of `-ptx` compiles, for the lit tests.

lit (tests/lit.cfg.py) puts a folder holding this script as `nvcc` first on PATH, so
that `fenceline check x.cu` (which runs nvcc from PATH) reuses the PTX of an earlier
identical compile: the second RUN line of a test (--strict after the default tier), and
every .cu of the sanitizer build's lit run (scripts/run-tests points build-asan/ at
build/'s cache). About 700 of the nvcc runs of a CI run are such repeats.

A compile is cached only in the form fenceline runs it: `-ptx`, one .cu input, `-o FILE`,
no dependency flags. The key is everything the output depends on: the real nvcc (path,
size, mtime), the working folder, the arguments (the output path left out), the
NVCC_PREPEND_FLAGS / NVCC_APPEND_FLAGS environment and the source's content; an entry
also records the size and modification time of every file the compile read (nvcc's own
-MD list: the headers), and is used only while they are unchanged. Anything else, and every failing compile, runs
the real nvcc unchanged.

Environment: FENCELINE_NVCC_CACHE_REAL (the real nvcc), FENCELINE_NVCC_CACHE_DIR.
"""
import hashlib
import json
import os
import sys


def file_digest(path):
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def file_stamp(path):
    """A file's size and modification time: what an entry records of each file the compile read."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


def parse_depfile(text):
    """The prerequisites of a make-style dependency file (nvcc -MD)."""
    text = text.replace("\\\n", " ")
    _, _, prerequisites = text.partition(": ")
    paths, current = [], ""
    for token in prerequisites.split(" "):
        if token.endswith("\\"):  # an escaped space inside a path
            current += token[:-1] + " "
            continue
        current += token
        if current.strip():
            paths.append(current.strip())
        current = ""
    return paths


def relative_paths(arguments, out_index):
    """Whether a path in the arguments may be relative to the working folder."""
    for index, argument in enumerate(arguments):
        if index == out_index:
            continue
        if argument.startswith("-"):
            for prefix in ("-I", "-isystem", "--include-path=", "-include", "--pre-include=", "-ccbin",
                           "--compiler-bindir="):
                value = argument[len(prefix):]
                if argument.startswith(prefix) and value and not value.startswith("/"):
                    return True
        elif not argument.startswith("/"):
            return True
    return False


def run_real(real, arguments):
    os.execv(real, [real] + arguments)


def main():
    real = os.environ.get("FENCELINE_NVCC_CACHE_REAL")
    cache = os.environ.get("FENCELINE_NVCC_CACHE_DIR")
    arguments = sys.argv[1:]
    if not real:
        sys.exit("nvcc-cache: FENCELINE_NVCC_CACHE_REAL is not set")
    if not cache:
        run_real(real, arguments)

    # Only `nvcc -ptx ... -o OUT SOURCE.cu` with no dependency options is cached.
    if "-ptx" not in arguments or arguments.count("-o") != 1 or any(a.startswith("-M") for a in arguments):
        run_real(real, arguments)
    out_index = arguments.index("-o") + 1
    if out_index >= len(arguments):
        run_real(real, arguments)
    output = arguments[out_index]
    sources = [a for a in arguments if a.endswith(".cu") and not a.startswith("-")]
    if len(sources) != 1 or not os.path.isfile(sources[0]):
        run_real(real, arguments)
    source = sources[0]

    stat = os.stat(real)
    key_parts = {
        "nvcc": [os.path.realpath(real), stat.st_size, stat.st_mtime_ns],
        # The working folder, unless every path in the arguments is absolute (lit's sources are:
        # then build/ and build-asan/, which run each test in a folder of their own, share entries).
        "cwd": os.getcwd() if relative_paths(arguments, out_index) else None,
        "arguments": arguments[:out_index] + ["<output>"] + arguments[out_index + 1:],
        "environment": [os.environ.get("NVCC_PREPEND_FLAGS"), os.environ.get("NVCC_APPEND_FLAGS")],
        "source": file_digest(source),
    }
    key = hashlib.sha256(json.dumps(key_parts, sort_keys=True).encode()).hexdigest()
    folder = os.path.join(cache, key[:2], key)

    # A hit: an entry whose recorded inputs all still have the recorded content.
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".json"):
                continue
            try:
                with open(os.path.join(folder, name)) as f:
                    entry = json.load(f)
                if all(file_stamp(path) == stamp for path, stamp in entry["inputs"].items()):
                    with open(os.path.join(folder, entry["ptx"]), "rb") as f:
                        ptx = f.read()
                    with open(output, "wb") as f:
                        f.write(ptx)
                    sys.stdout.write(entry["stdout"])
                    sys.stderr.write(entry["stderr"])
                    return 0
            except (OSError, ValueError, KeyError):
                continue

    # A miss: compile, with nvcc's own list of what it read.
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory(prefix="fenceline-nvcc-cache-") as scratch:
        depfile = os.path.join(scratch, "deps.d")
        proc = subprocess.run([real] + arguments + ["-MD", "-MF", depfile], capture_output=True)
        sys.stdout.buffer.write(proc.stdout)
        sys.stderr.buffer.write(proc.stderr)
        if proc.returncode != 0 or not os.path.isfile(output) or not os.path.isfile(depfile):
            return proc.returncode
        try:
            stdout, stderr = proc.stdout.decode(), proc.stderr.decode()
        except UnicodeDecodeError:
            return 0
        with open(depfile) as f:
            inputs = {path: file_stamp(path) for path in parse_depfile(f.read())}
        if any(stamp is None for stamp in inputs.values()):
            return 0
        os.makedirs(folder, exist_ok=True)
        with open(output, "rb") as f:
            ptx = f.read()
        name = hashlib.sha256(json.dumps(sorted(inputs.items())).encode()).hexdigest()[:16]
        # Written under temporary names and renamed: concurrent compiles of one key are safe.
        for suffix, data in ((".ptx", ptx),
                             (".json", json.dumps({"inputs": inputs, "ptx": name + ".ptx", "stdout": stdout,
                                                   "stderr": stderr}).encode())):
            handle, temporary = tempfile.mkstemp(dir=folder)
            with os.fdopen(handle, "wb") as f:
                f.write(data)
            os.replace(temporary, os.path.join(folder, name + suffix))
    return 0


if __name__ == "__main__":
    sys.exit(main())
