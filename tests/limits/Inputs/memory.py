#!/usr/bin/env python3
"""Memory regression check: peak resident memory of `fenceline check` on two
sizes of one large valid module, compared in one run.

    memory.py [--cuobjdump CUOBJDUMP] FENCELINE SMALL_MB LARGE_MB MAX_BYTES_PER_BYTE WORKDIR PTX...

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

With --cuobjdump, each module is wrapped into a fatbin (fatbinary, next to
nvcc on PATH; PTX only, no SASS) and the fatbin is checked, so that the
image goes the way of a library's (cuobjdump -xptx, mapped, given back).
The peak is then fenceline's own VmHWM, polled every 2 ms (wait4's would
be cuobjdump's when that is larger).
"""
import os
import subprocess
import sys
import time


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


def own_peak(fenceline, cuobjdump, binary):
    """fenceline's VmHWM (bytes), polled until it exits."""
    process = subprocess.Popen([fenceline, "check", "-j", "1", "--format", "json", "-o", os.devnull, "--cuobjdump",
                                cuobjdump, binary], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while process.poll() is None:
        try:
            with open(f"/proc/{process.pid}/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]) * 1024)
        except OSError:
            pass
        time.sleep(0.002)
    stderr = process.stderr.read().decode(errors="replace")
    if process.returncode not in (0, 1):
        sys.exit(f"memory: fenceline exited {process.returncode} on {binary}: {stderr.strip()}")
    return peak


def main():
    args = sys.argv[1:]
    cuobjdump = ""
    if args[0] == "--cuobjdump":
        cuobjdump, args = args[1], args[2:]
    fenceline, small_mb, large_mb, bound, workdir = args[:5]
    inputs = args[5:]
    os.makedirs(workdir, exist_ok=True)
    generator = os.path.join(os.path.dirname(__file__), "..", "..", "..", "bench", "large", "make_large_ptx.py")
    sizes, peaks = {}, {}
    for mb in (small_mb, large_mb):
        ptx = os.path.join(workdir, f"memory-{mb}mb.ptx")
        subprocess.run([sys.executable, generator, ptx, mb] + inputs, check=True, stdout=subprocess.DEVNULL)
        sizes[mb] = os.path.getsize(ptx)
        if cuobjdump:
            binary = os.path.join(workdir, f"memory-{mb}mb.fatbin")
            subprocess.run(["fatbinary", "--create=" + binary, f"--image3=kind=ptx,sm=90a,file={ptx}"], check=True)
            peaks[mb] = own_peak(fenceline, cuobjdump, binary)
        else:
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
