#!/usr/bin/env python3
"""Memory regression check: peak resident memory of `fenceline check` on two
sizes of one large valid module, compared in one run.

    memory.py FENCELINE SMALL_MB LARGE_MB MAX_BYTES_PER_BYTE WORKDIR PTX...

Writes two modules of SMALL_MB and LARGE_MB megabytes with
bench/large/make_large_ptx.py (copies of the functions of the given nvcc
output, every symbol renamed), checks each with `fenceline check -j 1` and
reads each run's own peak RSS (wait4). The growth of the peak per byte of
input, (rss_large - rss_small) / (bytes_large - bytes_small), must stay below
MAX_BYTES_PER_BYTE: the PTX text is held once (1 byte per byte) plus the
module level (headers, debug names); a syntax tree of the whole file costs
about 9. A difference of two runs on one machine does not depend on its
load, and the fixed costs (the binary, the largest function) cancel out.
Both runs must exit 0 or 1.
"""
import os
import subprocess
import sys


def peak_rss(fenceline, ptx):
    process = subprocess.Popen([fenceline, "check", "-j", "1", "--format", "json", "-o", os.devnull, ptx],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = process.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(process.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    process.returncode = code
    if code not in (0, 1):
        sys.exit(f"memory: fenceline exited {code} on {ptx}: {stderr.strip()}")
    return usage.ru_maxrss * 1024  # KiB on Linux


def main():
    fenceline, small_mb, large_mb, bound, workdir = sys.argv[1:6]
    inputs = sys.argv[6:]
    os.makedirs(workdir, exist_ok=True)
    generator = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "large", "make_large_ptx.py")
    sizes, peaks = {}, {}
    for mb in (small_mb, large_mb):
        ptx = os.path.join(workdir, f"memory-{mb}mb.ptx")
        subprocess.run([sys.executable, generator, ptx, mb] + inputs, check=True, stdout=subprocess.DEVNULL)
        sizes[mb] = os.path.getsize(ptx)
        peaks[mb] = peak_rss(fenceline, ptx)
    growth = (peaks[large_mb] - peaks[small_mb]) / (sizes[large_mb] - sizes[small_mb])
    print(f"memory: {sizes[small_mb] / 1e6:.1f} MB: peak {peaks[small_mb] / 1e6:.0f} MB, "
          f"{sizes[large_mb] / 1e6:.1f} MB: peak {peaks[large_mb] / 1e6:.0f} MB, "
          f"{growth:.2f} bytes of peak per byte of input (bound {bound})")
    if growth > float(bound):
        sys.exit(f"memory: peak memory grows too fast: {growth:.2f} bytes per byte > {bound}")
    print("memory: ok")


if __name__ == "__main__":
    main()
