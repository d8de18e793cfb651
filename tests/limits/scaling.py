#!/usr/bin/env python3
"""Scaling regression check: runs `fenceline check` on a small and a large
input from one generator and fails when the time grows faster than the bound.

    scaling.py FENCELINE GENERATOR SMALL LARGE MAX_RATIO [WORKDIR]

The inputs are GENERATOR SMALL and GENERATOR LARGE (a size argument and an
output path). Each is checked twice and the faster run counts; the ratio
large/small must stay below MAX_RATIO. Both runs must exit 0 or 1 (no crash,
no input error). A floor of 0.05 s on the small time keeps timer noise from
inflating the ratio.
"""
import os
import subprocess
import sys
import time


def timed(fenceline, ptx):
    best = None
    for _ in range(2):
        start = time.monotonic()
        result = subprocess.run([fenceline, "check", "-j", "1", ptx], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        elapsed = time.monotonic() - start
        if result.returncode not in (0, 1):
            sys.exit(f"scaling: fenceline exited {result.returncode} on {ptx}: {result.stderr.strip()}")
        best = elapsed if best is None else min(best, elapsed)
    return best


def main():
    fenceline, generator, small, large, max_ratio = sys.argv[1:6]
    workdir = sys.argv[6] if len(sys.argv) > 6 else "."
    os.makedirs(workdir, exist_ok=True)
    times = {}
    for size in (small, large):
        ptx = os.path.join(workdir, f"scaling-{size}.ptx")
        subprocess.run([sys.executable, generator, size, ptx], check=True)
        times[size] = timed(fenceline, ptx)
    ratio = times[large] / max(times[small], 0.05)
    print(f"scaling: size {small}: {times[small]:.2f} s, size {large}: {times[large]:.2f} s, "
          f"ratio {ratio:.1f} (bound {max_ratio})")
    if ratio > float(max_ratio):
        sys.exit(f"scaling: time grows too fast: ratio {ratio:.1f} > {max_ratio}")


if __name__ == "__main__":
    main()
