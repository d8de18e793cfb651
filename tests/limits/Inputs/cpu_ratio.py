#!/usr/bin/env python3
"""Compares fenceline's CPU time on two inputs of one shape at two sizes.

Usage: cpu_ratio.py FENCELINE SMALL.ptx LARGE.ptx MAX_RATIO
Runs `FENCELINE check -j 1` on each (best of three runs, user+system CPU
time, which a loaded machine disturbs less than wall-clock time; the small
time is floored at 0.01 s so that timer noise cannot inflate the ratio) and
prints "ratio: ok" when time(LARGE) / time(SMALL) <= MAX_RATIO, "ratio: too
slow" otherwise, with the times either way. Exit statuses other than 0 and 1
(findings) are printed as well, so that a crash fails the FileCheck.
"""
import resource
import subprocess
import sys


def cpu_seconds(fenceline, ptx):
    best, status = None, None
    for _ in range(3):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        status = subprocess.run([fenceline, "check", "-j", "1", ptx], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, timeout=300).returncode
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = used if best is None else min(best, used)
    return best, status


def main():
    fenceline, small, large, max_ratio = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    small_time, small_status = cpu_seconds(fenceline, small)
    large_time, large_status = cpu_seconds(fenceline, large)
    print(f"small: {small_time:.3f} s cpu, exit status {small_status}")
    print(f"large: {large_time:.3f} s cpu, exit status {large_status}")
    ratio = large_time / max(small_time, 0.01)
    verdict = "ok" if ratio <= max_ratio and small_status in (0, 1) and large_status in (0, 1) else "too slow"
    print(f"ratio: {verdict} ({ratio:.1f}x the time; at most {max_ratio:g}x)")


if __name__ == "__main__":
    main()
