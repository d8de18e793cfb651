#!/usr/bin/env python3
"""Writes a PTX kernel whose body is DEPTH nested spin loops (issue 18, item 5).

Loop i polls word i of its parameter buffer with ld.volatile and exits when it
reads non-zero: each level is a spin loop nested in the one before, the shape
that made spin-loop discovery cubic in the nesting depth. The PTX is the form
nvcc emits for `while (*(volatile unsigned*)&p[i] == 0) { <inner loops> }`,
and ptxas accepts it.

    gen_nested_loops.py DEPTH OUT.ptx
"""
import sys


def kernel(depth):
    lines = [
        ".version 8.0",
        ".target sm_90a",
        ".address_size 64",
        "",
        ".visible .entry nested_spins(",
        "\t.param .u64 nested_spins_param_0",
        ")",
        "{",
        f"\t.reg .pred \t%p<{depth + 1}>;",
        f"\t.reg .b32 \t%r<{depth + 1}>;",
        "\t.reg .b64 \t%rd<3>;",
        "",
        "\tld.param.u64 \t%rd1, [nested_spins_param_0];",
        "\tcvta.to.global.u64 \t%rd2, %rd1;",
    ]
    for i in range(depth):
        lines.append(f"$L__BB0_{i}:")
        lines.append(f"\tld.volatile.global.u32 \t%r{i}, [%rd2+{4 * i}];")
    for i in reversed(range(depth)):
        lines.append(f"\tsetp.eq.s32 \t%p{i}, %r{i}, 0;")
        lines.append(f"\t@%p{i} bra \t$L__BB0_{i};")
    lines += ["\tret;", "", "}", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    depth = int(sys.argv[1])
    with open(sys.argv[2], "w") as out:
        out.write(kernel(depth))
