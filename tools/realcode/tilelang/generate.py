#!/usr/bin/env python3
"""Writes the PTX of the corpus's TileLang kernels (tools/realcode/generated.txt, `tilelang` lines).

Each entry names a kernel factory of kernels.py, its sizes and a GPU target. TileLang lowers the
kernel to CUDA source (`tilelang.lower`, no GPU needed), which goes to `<out>/<name>.cu`; nvcc
compiles it to `<out>/<name>.ptx` the way TileLang's own JIT does (`-O3 -lineinfo -std=c++20`,
TileLang's template and CUTLASS include folders), only with `-ptx`. Beside it: `<name>.line`
(what it was built from) and `<name>.times` (seconds to lower and compile, seconds of ptxas),
as build.sh writes for the nvcc corpus. ptxas is the toolkit's (the one nvcc uses).

    generate.py --out DIR [name...]        (run with the Python that has tilelang installed)
"""
import argparse
import os
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
CUDA_BIN = pathlib.Path(os.environ.get("CUDA_BIN", "/usr/local/cuda/bin"))

# name: (factory of kernels.py, its arguments, target)
ENTRIES = {
    "tl_gemm_sm90": ("gemm", dict(M=4096, N=4096, K=4096, block_m=128, block_n=128, block_k=64,
                                  stages=3), "sm_90a"),
    "tl_flash_attention_fwd_sm90": ("flash_attention_fwd",
                                    dict(batch=8, heads=16, seq_len=4096, dim=128, block_m=128,
                                         block_n=128, stages=2, causal=True), "sm_90a"),
    "tl_gemm_cp_async_sm90": ("gemm_cp_async", dict(M=4096, N=4096, K=4096, block_m=128,
                                                    block_n=128, block_k=64, stages=3), "sm_90a"),
    "tl_gemm_sm100": ("gemm", dict(M=4096, N=4096, K=4096, block_m=128, block_n=256, block_k=64,
                                   stages=3), "sm_100a"),
    "tl_flash_decoding_sm90": ("flash_decoding",
                               dict(batch=8, heads=32, kv_heads=8, seq_len=8192, dim=128,
                                    block_n=128, block_h=64, num_split=8, stages=2), "sm_90a"),
    "tl_flash_attention_bwd_sm90": ("flash_attention_bwd",
                                    dict(batch=8, heads=16, seq_len=4096, dim=64, block_m=64,
                                         block_n=64, stages=2, causal=True), "sm_90a"),
}


def lower_entry(name):
    """CUDA source of one entry."""
    import kernels
    import tilelang
    from tilelang import tvm
    factory, sizes, arch = ENTRIES[name]
    target = {"kind": "cuda", "arch": arch}
    with tvm.target.Target(target):
        return tilelang.lower(getattr(kernels, factory)(**sizes), target=target).kernel_source


def nvcc_ptx(source, ptx, arch):
    import tilelang
    root = pathlib.Path(tilelang.__file__).parent
    cmd = [str(CUDA_BIN / "nvcc"), "-ptx", "-O3", "-lineinfo", "-std=c++20",
           f"-gencode=arch=compute_{arch[3:]},code={arch}", "--expt-relaxed-constexpr", "-w",
           f"-I{root / 'src'}", f"-I{root / '3rdparty' / 'cutlass' / 'include'}",
           "-o", str(ptx), str(source)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"generate.py: nvcc failed on {source}:\n{done.stderr[-3000:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    unknown = [n for n in args.names if n not in ENTRIES]
    if unknown:
        sys.exit(f"generate.py: no TileLang entry named {', '.join(unknown)}")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import tilelang
    for name in args.names or ENTRIES:
        factory, sizes, arch = ENTRIES[name]
        start = time.perf_counter()
        (out / f"{name}.cu").write_text(lower_entry(name))
        nvcc_ptx(out / f"{name}.cu", out / f"{name}.ptx", arch)
        generated = time.perf_counter() - start
        (out / f"{name}.line").write_text(
            f"{name} tilelang {tilelang.__version__} {factory} {sizes} {arch}\n")
        start = time.perf_counter()
        done = subprocess.run([str(CUDA_BIN / "ptxas"), f"-arch={arch}", "-o", "/dev/null",
                               str(out / f"{name}.ptx")], capture_output=True, text=True)
        assembled = time.perf_counter() - start
        if done.returncode != 0:
            print(f"generate.py: {name}: ptxas failed: {done.stderr.strip()[:500]}", file=sys.stderr)
        (out / f"{name}.times").write_text(f"{generated:.3f} {assembled:.3f}\n")
        print(f"generate.py: {name}: generated in {generated:.1f} s, ptxas {assembled:.2f} s",
              file=sys.stderr)


if __name__ == "__main__":
    main()
