# Runs python/fenceline/triton_check.py's check_kernel on the two handoff_* kernels
# of the parse corpus (compiled for sm_90 with no GPU) and prints the findings.
import os
import sys

root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "python"))
sys.path.insert(0, os.path.join(root, "tests", "parse", "Inputs", "producers"))
from fenceline.triton_check import check_kernel  # noqa: E402
import triton_kernels as k  # noqa: E402

signature = {"data": "*i32", "flag": "*i32", "out": "*i32"}
for kernel in (k.handoff_relaxed, k.handoff_release):
    findings = check_kernel(kernel, signature, {"BLOCK": 128})
    print("{}: {} finding(s)".format(kernel.__name__, len(findings)))
    for finding in findings:
        print("  {} in {}".format(finding["check"], finding["input"].split(" (")[0]))
