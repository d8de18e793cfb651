#!/usr/bin/env python3
"""Checks that fenceline's time grows about linearly with an input's size.

Usage: scaling.py FENCELINE SHAPE SMALL LARGE [MAX_RATIO]
Generates make_ptx.py SHAPE SMALL and SHAPE LARGE, runs `FENCELINE check` on
each (best of two runs, user+system CPU time, which a loaded machine disturbs
less than wall-clock time) and prints "scaling: ok" when
time(LARGE) / time(SMALL) <= MAX_RATIO (default: twice the size ratio, so
4x the size may cost 8x: a quadratic stage would cost 16x). Each run is
killed after 120 s. Prints the times either way.
"""
import os
import resource
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_seconds(command):
    best = None
    for _ in range(2):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            status = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120).returncode
        except subprocess.TimeoutExpired:
            return float("inf"), "timeout"
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = used if best is None else min(best, used)
    return best, status


def main():
    fenceline, shape, small, large = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    max_ratio = float(sys.argv[5]) if len(sys.argv) > 5 else 2.0 * large / small
    times = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in (small, large):
            path = os.path.join(tmp, f"{shape}-{size}.ptx")
            with open(path, "w") as f:
                subprocess.run([sys.executable, os.path.join(HERE, "make_ptx.py"), shape, str(size)], stdout=f, check=True)
            times[size], status = cpu_seconds([fenceline, "check", path])
            print(f"{shape} {size}: {os.path.getsize(path)} bytes, {times[size]:.3f} s cpu, exit status {status}")
    ratio = times[large] / max(times[small], 0.01)
    verdict = "ok" if ratio <= max_ratio else "too slow"
    print(f"scaling: {verdict} ({ratio:.1f}x the time for {large / small:g}x the size; at most {max_ratio:g}x)")


if __name__ == "__main__":
    main()
