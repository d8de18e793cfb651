#!/usr/bin/env python3
"""What the compile-time hooks of python/fenceline add to a kernel's compile time.

Compiles the real-code corpus's generated kernels (tools/realcode/<language>/generate.py,
ENTRIES: Triton, CuTe DSL, TileLang) with no GPU, each once with the hook off and once with
it on (``fenceline.<language>.enable()``), alternating, ``--repeat`` times, every compile a
cold one (a fresh Triton cache folder, TileLang's cache off, fresh fenceline cache so that no
check result is reused), and prints the median wall time of the compile call both ways: with
the hook on it includes the check and the report (warnings recorded, not printed). "checker"
is the checker's own wall time (for TileLang it runs nvcc -ptx, on a worker thread while
TileLang compiles: the compile grows by less than it when a core is free).

    bench/python_hooks.py [--language triton|cute|tilelang ...] [--repeat 3] [--json FILE]
                          [--cute-no-line-info] [name...]

Run with the Python that has the compilers (the corpus venv of tools/realcode/fetch.sh, or
build/venv-compilers), FENCELINE_BIN naming the checker (or the pip package installed).
Each language (and each CuTe DSL target) runs in a process of its own.
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[1]
HOOK_OPTIONS = {}  # --cute-no-line-info: fenceline.cute.enable(line_info=False)
REALCODE = ROOT / "tools" / "realcode"
sys.path.insert(0, str(ROOT / "python"))


def fresh_dir(prefix):
    return tempfile.mkdtemp(prefix=prefix)


def timed(compile_one, hook, on):
    """Wall time of one compile call, the hook on or off."""
    from fenceline import jit
    os.environ["FENCELINE_CACHE_DIR"] = fresh_dir("fenceline-bench-cache-")
    jit.forget()
    if on:
        hook.enable(**HOOK_OPTIONS)
    else:
        hook.disable()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        start = time.perf_counter()
        compile_one()
        seconds = time.perf_counter() - start
    findings = sum(len(r.findings) for r in jit.reports()) if on else None
    errors = [r.error for r in jit.reports() if r.error] if on else []
    checker = sum(r.seconds for r in jit.reports()) if on else 0.0
    hook.disable()
    return seconds, findings, errors, checker


def triton_compiles(names):
    sys.path.insert(0, str(REALCODE / "triton"))
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    import generate
    import fenceline.triton

    def compile_one(name):
        def run():
            os.environ["TRITON_CACHE_DIR"] = fresh_dir("fenceline-bench-triton-")
            generate.compile_entry(name)
        return run
    return fenceline.triton, [(n, compile_one(n)) for n in (names or generate.ENTRIES)]


def cute_compiles(names):
    sys.path.insert(0, str(REALCODE / "cutedsl"))
    import generate
    import fenceline.cute
    import cutlass.cute as cute

    def compile_one(name):
        builder, options, _ = generate.ENTRIES[name]

        def run():
            kernel, args = builder(**options)
            cute.compile(kernel, *args)
        return run
    return fenceline.cute, [(n, compile_one(n)) for n in names]


def tilelang_compiles(names):
    sys.path.insert(0, str(REALCODE / "tilelang"))
    import generate
    import kernels
    import tilelang
    import fenceline.tilelang
    tilelang.disable_cache()

    def compile_one(name):
        factory, sizes, arch = generate.ENTRIES[name]

        def run():
            tilelang.compile(getattr(kernels, factory)(**sizes), target={"kind": "cuda", "arch": arch})
        return run
    return fenceline.tilelang, [(n, compile_one(n)) for n in (names or generate.ENTRIES)]


def measure(language, names, repeat):
    hook, compiles = {"triton": triton_compiles, "cute": cute_compiles, "tilelang": tilelang_compiles}[language](names)
    rows = []
    for name, compile_one in compiles:
        compile_one()  # warm-up: imports, the compiler's own first-use costs
        off, on, checks, findings, errors = [], [], [], None, []
        for _ in range(repeat):
            off.append(timed(compile_one, hook, False)[0])
            seconds, findings, errors, checker = timed(compile_one, hook, True)
            on.append(seconds)
            checks.append(checker)
        row = {"language": language, "name": name, "off": statistics.median(off), "on": statistics.median(on),
               "check": statistics.median(checks), "findings": findings, "errors": errors}
        rows.append(row)
        print(f"{language:8s} {name:36s} off {row['off']:7.2f} s  on {row['on']:7.2f} s  "
              f"added {row['on'] - row['off']:+6.2f} s ({100 * (row['on'] - row['off']) / row['off']:+5.1f}%)  "
              f"checker {row['check']:6.2f} s  "
              f"findings {findings}{'  ERRORS ' + str(errors) if errors else ''}", flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--language", action="append", choices=["triton", "cute", "tilelang"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--cute-no-line-info", action="store_true",
                    help="enable the CuTe DSL hook with line_info=False (what the DSL's line info costs)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    if args.cute_no_line_info:
        HOOK_OPTIONS["line_info"] = False
    if args.child:  # one language (one CuTe DSL target) in this process
        rows = measure(args.language[0], args.names, args.repeat)
        print("ROWS " + json.dumps(rows))
        return
    rows = []
    for language in args.language or ["triton", "cute", "tilelang"]:
        groups = [args.names]
        env = dict(os.environ)
        if language == "cute":  # the DSL's target is set before it is imported: one process per target
            sys.path.insert(0, str(REALCODE / "cutedsl"))
            import generate as cute_generate
            wanted = args.names or list(cute_generate.ENTRIES)
            arches = sorted({cute_generate.ENTRIES[n][2] for n in wanted})
            groups = [(arch, [n for n in wanted if cute_generate.ENTRIES[n][2] == arch]) for arch in arches]
        for group in groups:
            if language == "cute":
                env["CUTE_DSL_ARCH"], names = group
            else:
                names = group
            done = subprocess.run([sys.executable, __file__, "--child", "--language", language,
                                   "--repeat", str(args.repeat), *names]
                                  + (["--cute-no-line-info"] if args.cute_no_line_info else []), env=env, stdout=subprocess.PIPE, text=True)
            for line in done.stdout.splitlines():
                if line.startswith("ROWS "):
                    rows += json.loads(line[5:])
                else:
                    print(line, flush=True)
            if done.returncode != 0:
                sys.exit(f"python_hooks.py: the {language} run failed (exit {done.returncode})")
    for language in sorted({r["language"] for r in rows}):
        mine = [r for r in rows if r["language"] == language]
        off, on = sum(r["off"] for r in mine), sum(r["on"] for r in mine)
        ratios = sorted((r["on"] - r["off"]) / r["off"] for r in mine)
        print(f"{language}: {len(mine)} kernels, compile {off:.1f} s off, {on:.1f} s on: "
              f"{100 * (on - off) / off:+.1f}% in total; per kernel median {100 * statistics.median(ratios):+.1f}%, "
              f"max {100 * ratios[-1]:+.1f}%")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
