#!/usr/bin/env python3
"""Writes one kernel that calls a small .func N times, each call in its own
`{ .param .b64 a; st.param.b64 [a], ...; call.uni ...; }` scope, the way nvcc
emits calls (it reuses the parameter names of every call). After inlining
the kernel has N copies of the body: N generic global stores and loads, no
atomic. Valid PTX: `ptxas -arch=sm_90a FILE -o /dev/null` accepts it.

Usage: make_calls_ptx.py N > FILE.ptx
"""
import sys

HEADER = ".version 8.0\n.target sm_90a\n.address_size 64\n\n"
LEAF = (".func leaf(.param .b64 p)\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n"
        "\tld.param.b64 %rd1, [p];\n\tld.global.u32 %r1, [%rd1];\n\tadd.s32 %r2, %r1, 1;\n"
        "\tst.global.u32 [%rd1], %r2;\n\tret;\n}\n")
CALL = "\t{\n\t.param .b64 a;\n\tst.param.b64 [a], %rd1;\n\tcall.uni leaf, (a);\n\t}\n"


def calls(n):
    return (HEADER + LEAF + ".visible .entry calls(.param .u64 out)\n{\n\t.reg .b64 %rd<2>;\n"
            "\tld.param.u64 %rd1, [out];\n" + CALL * n + "\tret;\n}\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.stdout.write(calls(int(sys.argv[1])))
