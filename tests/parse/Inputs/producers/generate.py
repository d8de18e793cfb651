#!/usr/bin/env python3
"""Regenerates the producer fixtures of the parse corpus, with no GPU.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install triton nvidia-cutlass-dsl tilelang
    /tmp/venv/bin/python tests/parse/Inputs/producers/generate.py [triton] [cutedsl] [tilelang]

Triton:   triton.compile(ASTSource(...), target=GPUTarget("cuda", 90, 32)) with
          TRITON_CACHE_DIR pointing at a fresh folder; the PTX goes to
          tests/parse/Inputs/triton/, and the cache folders of the two wait_*
          kernels (PTX plus the metadata fields fenceline reads) to
          tests/inputs/Inputs/triton-cache/.
CuTe DSL: cute.compile with CUTE_DSL_KEEP=ptx, CUTE_DSL_DUMP_DIR (which must
          exist: the DSL does not create it), CUTE_DSL_ARCH=sm_90a and
          CUTE_DSL_LINEINFO=1; fake tensors stand in for device memory.
TileLang: tilelang.lower() gives the CUDA source; our nvcc compiles it with
          TileLang's include folders (-ptx -lineinfo -arch=sm_90a).
Source paths in .file directives are made relative to the repository root,
and those of Python packages start /venv/lib/python3/site-packages/, so the
fixtures do not name the machine they were made on; nothing else is changed.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
PARSE_INPUTS = os.path.join(ROOT, "tests", "parse", "Inputs")
CACHE_FIXTURE = os.path.join(ROOT, "tests", "inputs", "Inputs", "triton-cache")
sys.path.insert(0, HERE)


def relative_sources(ptx):
    """`.file 1 "/abs/repo/tests/x.py"` -> `.file 1 "tests/x.py"`; Python
    packages (Triton's own tl.* helpers) -> `/venv/lib/python3/site-packages/...`."""
    ptx = ptx.replace('"' + ROOT + "/", '"')
    return re.sub(r'"[^"\n]*/site-packages/', '"/venv/lib/python3/site-packages/', ptx)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as out:
        out.write(text)
    print("wrote", os.path.relpath(path, ROOT))


def triton_fixtures():
    cache = tempfile.mkdtemp(prefix="fenceline-triton-")
    os.environ["TRITON_CACHE_DIR"] = cache
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    import triton_kernels as k

    target = GPUTarget("cuda", 90, 32)
    publish = {"data": "*i32", "flag": "*i32", "n": "i32"}
    mm = {"a": "*fp16", "b": "*fp16", "c": "*fp32", "M": "i32", "N": "i32", "K": "i32"}
    tma = dict(mm, c="*fp16")
    handoff = {"data": "*i32", "flag": "*i32", "out": "*i32"}
    jobs = [
        (k.publish_relaxed, publish, {"BLOCK": 128}),
        (k.publish_release, publish, {"BLOCK": 128}),
        (k.matmul, mm, {"BM": 64, "BN": 64, "BK": 32}),
        (k.tma_matmul, tma, {"BM": 128, "BN": 128, "BK": 64}),
        (k.row_sum, {"x": "*fp32", "out": "*fp32", "n": "i32"}, {"BLOCK": 256}),
        (k.wait_volatile, handoff, {"BLOCK": 128}),
        (k.wait_acquire, handoff, {"BLOCK": 128}),
        (k.handoff_relaxed, handoff, {"BLOCK": 128}),
        (k.handoff_release, handoff, {"BLOCK": 128}),
    ]
    triton.set_allocator(lambda size, align, stream: None)
    for fn, signature, constexprs in jobs:
        compiled = triton.compile(ASTSource(fn=fn, signature=signature, constexprs=constexprs), target=target)
        write(os.path.join(PARSE_INPUTS, "triton", fn.__name__ + ".ptx"), relative_sources(compiled.asm["ptx"]))
    # The cache layout: <hash>/<name>.ptx next to <name>.json.
    shutil.rmtree(CACHE_FIXTURE, ignore_errors=True)
    for folder in sorted(os.listdir(cache)):
        for name in ("wait_volatile", "wait_acquire"):
            ptx = os.path.join(cache, folder, name + ".ptx")
            if not os.path.exists(ptx):
                continue
            with open(os.path.join(cache, folder, name + ".json")) as f:
                meta = json.load(f)
            keep = {key: meta[key] for key in ("hash", "target", "num_warps", "triton_version", "name")}
            with open(ptx) as f:
                write(os.path.join(CACHE_FIXTURE, folder, name + ".ptx"), relative_sources(f.read()))
            write(os.path.join(CACHE_FIXTURE, folder, name + ".json"), json.dumps(keep, indent=1) + "\n")
    shutil.rmtree(cache, ignore_errors=True)


def cutedsl_fixtures():
    dump = tempfile.mkdtemp(prefix="fenceline-cute-")
    os.environ.update(CUTE_DSL_KEEP="ptx", CUTE_DSL_DUMP_DIR=dump, CUTE_DSL_ARCH="sm_90a", CUTE_DSL_LINEINFO="1")
    import cutedsl_kernels

    # The DSL names each PTX after the @cute.jit function and its argument
    # types, so the two TmaPipelineCopy objects write the same file name: each
    # compile's PTX is taken out of the dump folder before the next one.
    pipelines = iter(("tma_pipeline_unfenced", "tma_pipeline_fenced"))
    for compile_one in cutedsl_kernels.COMPILES:
        compile_one()
        for name in sorted(os.listdir(dump)):
            path = os.path.join(dump, name)
            if name.endswith(".ptx"):
                short = next(pipelines) if "TmaPipelineCopy" in name else name.split("_Fake")[0].replace("cutlass_", "")
                with open(path) as f:
                    write(os.path.join(PARSE_INPUTS, "cutedsl", short + ".ptx"), relative_sources(f.read()))
            os.remove(path)
    shutil.rmtree(dump, ignore_errors=True)


def tilelang_fixtures():
    import tilelang
    import tilelang_kernels

    include = os.path.join(os.path.dirname(tilelang.__file__), "src")  # tl_templates/
    cutlass = os.path.join(os.path.dirname(tilelang.__file__), "3rdparty", "cutlass", "include")
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    for name, source in tilelang_kernels.lower_all():
        cu = os.path.join(HERE, "tilelang_" + name + ".cu")
        write(cu, source)
        ptx = os.path.join(PARSE_INPUTS, "tilelang", name + ".ptx")
        os.makedirs(os.path.dirname(ptx), exist_ok=True)
        subprocess.run([nvcc, "-ptx", "-lineinfo", "-arch=sm_90a", "-std=c++17", "-isystem", include,
                        "-isystem", cutlass, cu, "-o", ptx], check=True)
        with open(ptx) as f:
            text = relative_sources(f.read())
        write(ptx, text)


if __name__ == "__main__":
    which = sys.argv[1:] or ["triton", "cutedsl", "tilelang"]
    for producer in which:
        {"triton": triton_fixtures, "cutedsl": cutedsl_fixtures, "tilelang": tilelang_fixtures}[producer]()
