#!/usr/bin/env python3
"""Writes the large or hostile PTX the limits tests read (valid PTX: ptxas
accepts every shape; `ptxas -arch=sm_90a FILE -o /dev/null` to confirm).

Usage: make_ptx.py SHAPE N [M] > FILE.ptx
  registers K N    K kernels, each declaring %r<N> and using two of them
  calltree D F [K [R]]  .func levels 0..D, each calling the next F times
                   (F**D inlined bodies), each declaring %r<R> (100000);
                   K kernels (1) call level 0
  backedges N      one loop whose header has N back edges (N latches)
  brx N            N brx.idx blocks, each with a two-label .branchtargets list
  functions N      N .func and N kernels, kernel i calling function i
"""
import sys

HEADER = ".version 8.0\n.target sm_90a\n.address_size 64\n\n"


def registers(kernels, count):
    out = [HEADER]
    for k in range(kernels):
        out.append(f".visible .entry regs_{k}(.param .u64 out)\n{{\n"
                   f"\t.reg .b32 %r<{count}>;\n\t.reg .b64 %rd<2>;\n"
                   f"\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, {k};\n"
                   f"\tst.global.u32 [%rd1], %r1;\n\tret;\n}}\n")
    return "".join(out)


def calltree(depth, fanout, kernels=1, registers=100000):
    out = [HEADER]
    for level in range(depth, -1, -1):  # callees first
        out.append(f".func level_{level}(.param .b64 p)\n{{\n\t.reg .b32 %r<{registers}>;\n\t.reg .b64 %rd<2>;\n"
                   f"\tld.param.b64 %rd1, [p];\n\tld.global.u32 %r1, [%rd1];\n"
                   f"\tadd.s32 %r2, %r1, {level};\n\tst.global.u32 [%rd1], %r2;\n")
        if level < depth:
            for _ in range(fanout):
                out.append(f"\t{{\n\t.param .b64 a;\n\tst.param.b64 [a], %rd1;\n"
                           f"\tcall.uni level_{level + 1}, (a);\n\t}}\n")
        out.append("\tret;\n}\n")
    for k in range(kernels):
        name = "calltree" if kernels == 1 else f"calltree_{k}"
        out.append(f".visible .entry {name}(.param .u64 out)\n{{\n\t.reg .b64 %rd<2>;\n"
                   "\tld.param.u64 %rd1, [out];\n\t{\n\t.param .b64 a;\n\tst.param.b64 [a], %rd1;\n"
                   "\tcall.uni level_0, (a);\n\t}\n\tret;\n}\n")
    return "".join(out)


def kernel(name, body, regs="\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n"):
    return (f"{HEADER}.visible .entry {name}(.param .u64 out)\n{{\n{regs}"
            f"\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n{body}"
            f"\tst.global.u32 [%rd1], %r1;\n\tret;\n}}\n")


def backedges(n):
    # No register is defined inside the loop: the cost is the CFG's alone.
    body = ["\tsetp.eq.s32 %p1, %r1, 0;\n$L_head:\n"] + ["\t@%p1 bra $L_head;\n"] * n
    return kernel("backedges", "".join(body))


def brx(n):
    body = ["\tand.b32 %r2, %r1, 1;\n"]
    for i in range(n):
        body.append(f"$L_b{i}:\n\tts{i}: .branchtargets $L_b{i + 1}, $L_b{i + 2};\n\tbrx.idx %r2, ts{i};\n")
    body.append(f"$L_b{n}:\n\tadd.s32 %r1, %r1, 2;\n$L_b{n + 1}:\n")
    return kernel("indirect", "".join(body))


def function_name(i):
    # Equal lengths and a long common prefix, like mangled C++ names: what
    # makes a linear lookup by name slow.
    return f"_ZN9fenceline6limits22function_with_a_prefix{i:07d}Ev"


def functions(n):
    out = [HEADER]
    for i in range(n):
        out.append(f".func {function_name(i)}(.param .b64 p)\n{{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n"
                   f"\tld.param.b64 %rd1, [p];\n\tmov.u32 %r1, {i};\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}}\n")
    for i in range(n):
        out.append(f".visible .entry k{i}(.param .u64 out)\n{{\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [out];\n"
                   f"\t{{\n\t.param .b64 a;\n\tst.param.b64 [a], %rd1;\n\tcall.uni {function_name(i)}, (a);\n\t}}\n\tret;\n}}\n")
    return "".join(out)


SHAPES = {"registers": registers, "calltree": calltree, "backedges": backedges,
          "brx": brx, "functions": functions}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in SHAPES:
        sys.exit(__doc__)
    sys.stdout.write(SHAPES[sys.argv[1]](*[int(a) for a in sys.argv[2:]]))
