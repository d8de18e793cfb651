#!/usr/bin/env python3
"""Writes the PTX of the corpus's CuTe DSL kernels (tools/realcode/generated.txt, `cutedsl` lines).

Each entry names a kernel class of this folder, its constructor arguments, the operand shapes
and a GPU target. `cute.compile` lowers it with no GPU: fake tensors (`make_fake_compact_tensor`)
stand in for device memory, and the DSL's environment keeps the PTX (CUTE_DSL_KEEP=ptx into
CUTE_DSL_DUMP_DIR, which must exist; CUTE_DSL_ARCH picks the target; CUTE_DSL_LINEINFO=1 gives
`.loc` lines that point at the Python source). The PTX goes to `<out>/<name>.ptx`, with
`<name>.line` (what it was built from) and `<name>.times` (seconds to generate, seconds of
ptxas), as build.sh writes for the nvcc corpus. The DSL assembles its PTX with its own bundled
compiler; the toolkit's ptxas is the peer run.py times (it accepts the DSL's PTX ISA version).

    generate.py --out DIR [name...]        (run with the Python that has nvidia-cutlass-dsl)
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
CUDA_BIN = pathlib.Path(os.environ.get("CUDA_BIN", "/usr/local/cuda/bin"))

def gemm_operands(m, n, k, c_dtype="Float16"):
    """Fake K-major fp16 A (M, K, 1), B (N, K, 1) and N-major C (M, N, 1)."""
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor
    row_major = (1, 0, 2)  # the second mode is contiguous, then the first, then the batch
    return (make_fake_compact_tensor(cutlass.Float16, (m, k, 1), stride_order=row_major, assumed_align=16),
            make_fake_compact_tensor(cutlass.Float16, (n, k, 1), stride_order=row_major, assumed_align=16),
            make_fake_compact_tensor(getattr(cutlass, c_dtype), (m, n, 1), stride_order=row_major,
                                     assumed_align=16))


def hopper_ws_gemm(**options):
    """Our warp-specialized Hopper GEMM (hopper_ws_gemm.py), 4096^3 fp16."""
    from hopper_ws_gemm import HopperWarpSpecializedGemm
    return HopperWarpSpecializedGemm(**options), gemm_operands(4096, 4096, 4096)


def torch_grouped_gemm(groups=4, sms=132, **options):
    """PyTorch's vendored copy of CUTLASS's Blackwell grouped GEMM (the CuTe DSL kernel
    TorchInductor uses for grouped matmuls: torch/_inductor/kernel/vendored_templates/cutedsl/
    kernels/cutedsl_grouped_gemm.py), compiled as shipped; its arguments made the way the
    file's own `run` makes them, with fake tensors: fp16 operands of the minimal 16-byte
    shape as the initial TMA tensors, the per-group shapes, strides and addresses as device
    tensors, and one tensor-map buffer per SM (max_active_clusters of a 132-SM B200 for 1x1)."""
    import cutlass
    from cutlass.cute.runtime import make_fake_compact_tensor, make_fake_stream
    from torch._inductor.kernel.vendored_templates.cutedsl.kernels.cutedsl_grouped_gemm import GroupedGemmKernel
    kernel = GroupedGemmKernel(cutlass.Float32, **options)
    a, b, c = gemm_operands(8, 8, 8)
    ints = lambda dtype, shape: make_fake_compact_tensor(dtype, shape, assumed_align=16)
    args = (a, b, c, groups, ints(cutlass.Int32, (groups, 4)), ints(cutlass.Int32, (groups, 3, 2)),
            ints(cutlass.Int64, (groups, 3)), sms,
            ints(cutlass.Int64, (sms, GroupedGemmKernel.num_tensormaps, GroupedGemmKernel.bytes_per_tensormap // 8)),
            sms, make_fake_stream())
    return kernel, args


# name: (builder above, its options, target)
ENTRIES = {
    "cute_ws_gemm_sm90": (hopper_ws_gemm, dict(tile_mn=(128, 128), cluster_mn=(1, 1), stages=4), "sm_90a"),
    "cute_ws_gemm_cluster_sm90": (hopper_ws_gemm, dict(tile_mn=(128, 128), cluster_mn=(2, 1), stages=4),
                                  "sm_90a"),
    "cute_torch_grouped_gemm_sm100": (torch_grouped_gemm,
                                      dict(use_2cta_instrs=False, mma_tiler_mn=(128, 128), cluster_shape_mn=(1, 1)),
                                      "sm_100a"),
}


def compile_entry(name, dump):
    """Compiles one entry; returns the PTX text the DSL kept in `dump`."""
    import cutlass.cute as cute
    builder, options, _ = ENTRIES[name]
    kernel, args = builder(**options)
    for old in dump.glob("*.ptx"):
        old.unlink()
    cute.compile(kernel, *args)
    kept = sorted(dump.glob("*.ptx"))
    if len(kept) != 1:
        sys.exit(f"generate.py: {name}: expected one PTX in {dump}, found {[p.name for p in kept]}")
    return kept[0].read_text()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    unknown = [n for n in args.names if n not in ENTRIES]
    if unknown:
        sys.exit(f"generate.py: no CuTe DSL entry named {', '.join(unknown)}")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    dump = pathlib.Path(tempfile.mkdtemp(prefix="fenceline-cutedsl-"))
    names = args.names or list(ENTRIES)
    # One target per process: the environment is set before the DSL is imported.
    arches = {ENTRIES[n][2] for n in names}
    if len(arches) > 1:
        for arch in sorted(arches):
            subset = [n for n in names if ENTRIES[n][2] == arch]
            subprocess.run([sys.executable, __file__, "--out", str(out), *subset], check=True)
        return
    os.environ.update(CUTE_DSL_KEEP="ptx", CUTE_DSL_DUMP_DIR=str(dump), CUTE_DSL_ARCH=arches.pop(),
                      CUTE_DSL_LINEINFO="1")
    import cutlass
    for name in names:
        builder, options, arch = ENTRIES[name]
        start = time.perf_counter()
        (out / f"{name}.ptx").write_text(compile_entry(name, dump))
        generated = time.perf_counter() - start
        (out / f"{name}.line").write_text(f"{name} cutedsl {cutlass.__version__} {builder.__name__} {options} {arch}\n")
        start = time.perf_counter()
        done = subprocess.run([str(CUDA_BIN / "ptxas"), f"-arch={arch}", "-o", "/dev/null",
                               str(out / f"{name}.ptx")], capture_output=True, text=True)
        assembled = time.perf_counter() - start
        if done.returncode != 0:
            print(f"generate.py: {name}: ptxas failed: {done.stderr.strip()[:500]}", file=sys.stderr)
        (out / f"{name}.times").write_text(f"{generated:.3f} {assembled:.3f}\n")
        print(f"generate.py: {name}: generated in {generated:.1f} s, ptxas {assembled:.2f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
