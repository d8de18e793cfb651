#!/usr/bin/env python3
"""Writes the PTX of third-party CuTe DSL kernels (tools/realcode/generated.txt, `cutedsl3p`
lines; session 10's fresh set).

Unlike cutedsl/generate.py (kernels of our own), every kernel here is a project's own, imported
from its installed package (FENCELINE_REALCODE_DIR/pkgs-fresh, pinned in fetch.sh) and compiled
through that project's own entry point, the way its users get it, with no GPU:
  flash-attn-4 (FlashAttention 4, `flash_attn.cute`): `flash_attn_func` on fake tensors
    (torch's FakeTensorMode), with the variables the project documents for CPU-only compiles
    (FLASH_ATTENTION_ARCH, CUTE_DSL_ARCH, FLASH_ATTENTION_NUM_SMS); a backward entry runs
    forward and backward and keeps the main backward kernel.
  quack-kernels (QuACK): its RMSNorm compile helper, and its GEMM with all-gather arguments
    (quack/distributed: the load warp polls a per-shard arrival flag before a tile's first
    TMA), QUACK_ARCH naming the target. The persistent GEMM asks the driver how many clusters
    fit; with no GPU we answer as the target would (132 SMs on H100/H200, 148 on B200).
Each compile may emit several kernels (a forward before its backward); the DSL keeps every PTX
(CUTE_DSL_KEEP=ptx into CUTE_DSL_DUMP_DIR) and the entry's `pick` substring selects the one the
unit is. The projects' on-disk kernel caches are turned off (a cached kernel is not recompiled,
so no PTX would be kept). Running a compiled kernel fails without a GPU after the PTX is written: that error is
expected and ignored once the PTX is there. Outputs as cutedsl/generate.py: <name>.ptx, .line,
.times (the toolkit's ptxas is the peer).

    generate.py --out DIR [name...]     (the corpus venv's Python; pkgs-fresh goes on sys.path)
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent.parent
SCRATCH = pathlib.Path(os.environ.get("FENCELINE_REALCODE_DIR", ROOT / ".scratch" / "realcode"))
CUDA_BIN = pathlib.Path(os.environ.get("CUDA_BIN", "/usr/local/cuda/bin"))
SMS = {"sm_90a": 132, "sm_100a": 148}


def fa4_attention(arch, backward=False, causal=True, head_dim=128):
    """flash-attn-4's flash_attn_func (or the backward its autograd function calls), bf16, batch 2,
    16 heads, 2048 tokens, on fake tensors."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    from flash_attn.cute import interface
    with FakeTensorMode():
        q, k, v, out, dout = (torch.empty(2, 2048, 16, head_dim, dtype=torch.bfloat16, device="cuda")
                              for _ in range(5))
        if backward:  # what FlashAttnFunc.backward calls (autograd itself wants a device)
            lse = torch.empty(2, 16, 2048, dtype=torch.float32, device="cuda")
            interface._flash_attn_bwd(q, k, v, out, dout, lse, None, causal)
        else:
            interface.flash_attn_func(q, k, v, causal=causal)


def quack_rmsnorm(arch, n=65536):
    """QuACK's RMSNorm forward as its rmsnorm_fwd compiles it: bf16 x and residual, fp32
    weight, rstd kept; N = 64k makes its config split each row over a 2-CTA cluster (partial
    sums exchanged through distributed shared memory and an mbarrier)."""
    import importlib
    import cutlass
    rmsnorm = importlib.import_module("quack.rmsnorm")
    rmsnorm._compile_rmsnorm_fwd(cutlass.BFloat16, cutlass.BFloat16, cutlass.BFloat16, cutlass.Float32,
                                 None, cutlass.BFloat16, n, True, False, False, False)


def quack_ag_gemm(arch, world=8):
    """QuACK's persistent GEMM with AllGatherArguments (quack.gemm.gemm(..., ag_args=...), as
    quack/distributed/all_gather_gemm.py's AllGatherRunner.gather passes them): A is the
    gathered (world x shard) operand, one arrival flag per shard, the epoch word; bf16,
    8192x4096x4096, 128x256 tiles (2x1 cluster on sm_100a)."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    import quack.cute_dsl_utils as utils
    import quack.gemm as qgemm
    clusters = lambda cluster_size, device_capacity=None, **_: SMS[arch] // cluster_size
    utils.get_max_active_clusters = clusters
    qgemm.get_max_active_clusters = clusters
    with FakeTensorMode():
        m, n, k = 8192, 4096, 4096
        a = torch.empty(m, k, dtype=torch.bfloat16, device="cuda")
        b = torch.empty(n, k, dtype=torch.bfloat16, device="cuda")
        d = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
        flags = torch.empty(world, dtype=torch.int32, device="cuda")
        epoch = torch.empty(1, dtype=torch.int32, device="cuda")
        args = qgemm.AllGatherArguments(flags, epoch, world, 0, 1)
        qgemm.gemm(a, b, d, None, None, 128, 256, 1 if arch == "sm_90a" else 2, 1, ag_args=args)


# name: (builder, options, target, substring of the kept PTX's name that is the unit)
ENTRIES = {
    "fa4_fwd_sm90": (fa4_attention, {}, "sm_90a", "FlashAttentionForwardSm90"),
    "fa4_bwd_sm90": (fa4_attention, {"backward": True}, "sm_90a", "FlashAttentionBackwardSm90"),
    "fa4_fwd_sm100": (fa4_attention, {}, "sm_100a", "FlashAttentionForwardSm100"),
    "fa4_bwd_sm100": (fa4_attention, {"backward": True}, "sm_100a", "FlashAttentionBackwardSm100"),
    "quack_rmsnorm_cluster_sm90": (quack_rmsnorm, {}, "sm_90a", "RMSNorm"),
    "quack_ag_gemm_sm90": (quack_ag_gemm, {}, "sm_90a", "GemmDefaultSm90"),
    "quack_ag_gemm_sm100": (quack_ag_gemm, {}, "sm_100a", "GemmDefaultSm100"),
}


def compile_entry(name, dump):
    builder, options, arch, pick = ENTRIES[name]
    for old in dump.glob("*.ptx"):
        old.unlink()
    try:
        builder(arch, **options)
    except Exception as error:  # launching needs a GPU; the PTX was kept before that
        note = f"{type(error).__name__}: {str(error)[:200]}"
    else:
        note = ""
    kept = sorted(p for p in dump.glob("*.ptx") if pick in p.name)
    if len(kept) != 1:
        sys.exit(f"generate.py: {name}: expected one PTX matching {pick!r} in {dump}, found "
                 f"{[p.name[:80] for p in dump.glob('*.ptx')]} ({note or 'no error'})")
    return kept[0].read_text()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    unknown = [n for n in args.names if n not in ENTRIES]
    if unknown:
        sys.exit(f"generate.py: no third-party CuTe DSL entry named {', '.join(unknown)}")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    names = args.names or list(ENTRIES)
    arches = {ENTRIES[n][2] for n in names}
    if len(arches) > 1:  # one target per process: the environment is read at import
        for arch in sorted(arches):
            subprocess.run([sys.executable, __file__, "--out", str(out),
                            *[n for n in names if ENTRIES[n][2] == arch]], check=True)
        return
    arch = arches.pop()
    dump = pathlib.Path(tempfile.mkdtemp(prefix="fenceline-cutedsl3p-"))
    os.environ.update(CUTE_DSL_KEEP="ptx", CUTE_DSL_DUMP_DIR=str(dump), CUTE_DSL_ARCH=arch,
                      CUTE_DSL_LINEINFO="1", FLASH_ATTENTION_ARCH=arch.rstrip("a"),
                      FLASH_ATTENTION_NUM_SMS=str(SMS[arch]), QUACK_ARCH=arch[3:-1],
                      QUACK_CACHE_ENABLED="0", FLASH_ATTENTION_CUTE_DSL_CACHE_ENABLED="0")
    sys.path.insert(0, str(SCRATCH / "pkgs-fresh"))
    import cutlass
    from importlib.metadata import version
    for name in names:
        builder, options, _, _ = ENTRIES[name]
        start = time.perf_counter()
        (out / f"{name}.ptx").write_text(compile_entry(name, dump))
        generated = time.perf_counter() - start
        project = "flash-attn-4" if name.startswith("fa4") else "quack-kernels"
        (out / f"{name}.line").write_text(
            f"{name} cutedsl3p {project} {version(project)} cutlass-dsl {cutlass.__version__} "
            f"{builder.__name__} {options} {arch}\n")
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
