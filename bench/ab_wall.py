#!/usr/bin/env python3
"""A/B wall time of two fenceline binaries on the same PTX files: the two are run alternately
(so that both see the same load), each through posix_spawn with output to /dev/null, N times per
file, and the medians of wall and CPU (user + system) time are printed. A benchmark, not a test.

    bench/ab_wall.py [-n 60] [--dir .scratch/realcode/ptx] BINARY_A BINARY_B NAME...

NAME is a PTX file, or the name of one in --dir (without .ptx). Each run is
`BINARY check --format json -j 1 FILE`, as tools/realcode/run.py runs the checker."""
import argparse
import os
import pathlib
import statistics
import time


def run(binary, ptx):
    start = time.perf_counter()
    pid = os.posix_spawnp(binary, [binary, "check", "--format", "json", "-j", "1", str(ptx)], os.environ,
                          file_actions=[(os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
                                        (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)])
    _, _, usage = os.wait4(pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=60, help="runs of each binary per file (default 60)")
    ap.add_argument("--dir", default=".scratch/realcode/ptx", help="where NAME.ptx is looked up")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    for name in args.names:
        ptx = pathlib.Path(name) if name.endswith(".ptx") else pathlib.Path(args.dir) / f"{name}.ptx"
        if not ptx.is_file():
            raise SystemExit(f"ab_wall.py: {ptx}: no such file")
        times = [([], []), ([], [])]  # per binary: walls, CPU times
        for _ in range(args.n):
            for k, binary in enumerate((args.a, args.b)):
                wall, cpu = run(binary, ptx)
                times[k][0].append(wall)
                times[k][1].append(cpu)
        cells = [f"{b}: wall {statistics.median(w) * 1e3:.2f} ms, CPU {statistics.median(c) * 1e3:.2f} ms"
                 for b, (w, c) in zip((args.a, args.b), times)]
        print(f"{ptx.stem}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
