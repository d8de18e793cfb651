#!/usr/bin/env python3
"""Writes the PTX of the corpus's Triton kernels (tools/realcode/generated.txt, `triton` lines).

Each entry below names one kernel of matmul.py, attention.py, layernorm.py, device_desc.py,
scan.py, streamk.py, block_scaled.py or attention_bwd.py, its argument
types, its compile-time constants and the Triton options; `triton.compile` lowers it for the
entry's GPU target (no GPU needed) and the PTX goes to `<out>/<name>.ptx`, with
`<name>.ptxas` (the ptxas Triton itself assembles this PTX with: its PTX version is newer than
the CUDA toolkit's), `<name>.line` (what it was built from) and `<name>.times` (seconds to
generate, seconds of that ptxas), the files build.sh writes for the nvcc corpus.

    generate.py --out DIR [name...]        (run with the Python that has triton installed)
"""
import argparse
import importlib
import os
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")  # Triton 3.9's default, stated (no warning)


def desc(dtype, block):
    """Signature type of a host-side tensor descriptor (a TMA descriptor passed by value)."""
    return f"tensordesc<{dtype}[{', '.join(map(str, block))}]>"


def matmul_signature(a_type, c_type, bm, bn, bk, extra=()):
    sig = {"a_desc": desc(a_type, (bm, bk)), "b_desc": desc(a_type, (bn, bk)),
           "c_desc": desc(c_type, (bm, bn)), "M": "i32", "N": "i32", "K": "i32",
           "BM": "constexpr", "BN": "constexpr", "BK": "constexpr", "STAGES": "constexpr"}
    sig.update({name: "constexpr" for name in extra})
    return sig


def attention_signature(bm, bn, head_dim):
    return {"q_desc": desc("fp16", (bm, head_dim)), "k_desc": desc("fp16", (bn, head_dim)),
            "v_desc": desc("fp16", (bn, head_dim)), "o_desc": desc("fp16", (bm, head_dim)),
            "sm_scale": "fp32", "seq_len": "i32", "HEAD_DIM": "constexpr", "BM": "constexpr",
            "BN": "constexpr", "STAGES": "constexpr", "WS": "constexpr", "CAUSAL": "constexpr"}


LAYERNORM_SIGNATURE = {
    "dx_ptr": "*fp16", "dy_ptr": "*fp16", "dw_ptr": "*fp16", "x_ptr": "*fp16", "w_ptr": "*fp16",
    "mean_ptr": "*fp32", "rstd_ptr": "*fp32", "lock_ptr": "*i32", "stride": "i32", "N": "i32",
    "GROUP": "constexpr", "BLOCK": "constexpr"}

POINTER_MATMUL_SIGNATURE = {
    "a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
    "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32",
    "BM": "constexpr", "BN": "constexpr", "BK": "constexpr", "STAGES": "constexpr"}

GROUPED_MATMUL_SIGNATURE = {
    "group_a_ptrs": "*u64", "group_b_ptrs": "*u64", "group_c_ptrs": "*u64",
    "group_gemm_sizes": "*i32", "g_lds": "*i32", "group_size": "i32",
    "NUM_SMS": "constexpr", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr",
    "STAGES": "constexpr"}

SCAN_SIGNATURE = {
    "x_ptr": "*fp32", "y_ptr": "*fp32", "aggregate_ptr": "*fp32", "prefix_ptr": "*fp32",
    "flag_ptr": "*i32", "n": "i32", "BLOCK": "constexpr"}

STREAMK_SIGNATURE = {
    "a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
    "locks": "*i32", "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32",
    "stride_bn": "constexpr", "stride_cm": "i32", "stride_cn": "constexpr",
    "total_full_tiles_streamk": "i32", "total_partial_tiles_streamk": "i32",
    "iters_per_tile": "i32", "total_tiles_streamk": "i32",
    "BM": "constexpr", "BN": "constexpr", "BK": "constexpr", "GROUP_M": "constexpr"}

SPLITK_SIGNATURE = {
    "a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
    "stride_am": "i32", "stride_ak": "constexpr", "stride_bk": "i32", "stride_bn": "constexpr",
    "stride_cm": "i32", "stride_cn": "constexpr", "BM": "constexpr", "BN": "constexpr",
    "BK": "constexpr", "SPLIT_K": "constexpr", "GROUP_M": "constexpr"}

# MXFP8 (e4m3 data, e8m0 scales per 32 K elements); the scale descriptors' 5-D blocks are the
# tutorial's [1, rep, rep_k, 2, 256] of uint8 (128x4 pre-swizzled layout).
BLOCK_SCALED_SIGNATURE = {
    "a_desc": desc("fp8e4nv", (128, 128)), "a_scale_desc": desc("u8", (1, 1, 1, 2, 256)),
    "b_desc": desc("fp8e4nv", (256, 128)), "b_scale_desc": desc("u8", (1, 2, 1, 2, 256)),
    "c_desc": desc("fp16", (128, 256)), "M": "i32", "N": "i32", "K": "i32",
    "VEC_SIZE": "constexpr", "BM": "constexpr", "BN": "constexpr", "BK": "constexpr",
    "NUM_STAGES": "constexpr"}


def attention_bwd_signature(bm, bn, head_dim):
    return {"q_desc": desc("fp16", (bm, head_dim)), "k_desc": desc("fp16", (bn, head_dim)),
            "v_desc": desc("fp16", (bn, head_dim)), "do_desc": desc("fp16", (bm, head_dim)),
            "dk_desc": desc("fp16", (bn, head_dim)), "dv_desc": desc("fp16", (bn, head_dim)),
            "dq_ptr": "*fp32", "m_ptr": "*fp32", "d_ptr": "*fp32", "sm_scale": "fp32",
            "seq_len": "i32", "HEAD_DIM": "constexpr", "BM": "constexpr", "BN": "constexpr",
            "STAGES": "constexpr"}


# name: (module.kernel, compute capability, signature, constexprs, options)
# Hopper's automatic warp specialization (one producer warp group, setmaxnreg) takes the K loop
# with BM=64 and 4 warps; Blackwell's takes the flattened persistent tile loop.
ENTRIES = {
    "tt_matmul_ws_sm90": (
        "matmul.tma_matmul_ws", 90, matmul_signature("fp16", "fp16", 64, 128, 64),
        {"BM": 64, "BN": 128, "BK": 64, "STAGES": 4}, {"num_warps": 4}),
    "tt_persistent_matmul_ws_sm90": (
        "matmul.persistent_tma_matmul_inner_ws", 90,
        matmul_signature("fp16", "fp16", 64, 128, 64, ["NUM_SMS"]),
        {"BM": 64, "BN": 128, "BK": 64, "STAGES": 4, "NUM_SMS": 132}, {"num_warps": 4}),
    "tt_fp8_persistent_matmul_ws_sm90": (
        "matmul.persistent_tma_matmul_inner_ws", 90,
        matmul_signature("fp8e4nv", "fp16", 64, 128, 128, ["NUM_SMS"]),
        {"BM": 64, "BN": 128, "BK": 128, "STAGES": 4, "NUM_SMS": 132}, {"num_warps": 4}),
    "tt_pointer_matmul_sm90": (
        "matmul.pointer_matmul", 90, POINTER_MATMUL_SIGNATURE,
        {"BM": 128, "BN": 128, "BK": 64, "STAGES": 3}, {"num_warps": 4}),
    "tt_attention_fwd_ws_sm90": (
        "attention.attention_fwd", 90, attention_signature(64, 128, 128),
        {"HEAD_DIM": 128, "BM": 64, "BN": 128, "STAGES": 2, "WS": True, "CAUSAL": True},
        {"num_warps": 4}),
    "tt_attention_fwd_sm90": (
        "attention.attention_fwd", 90, attention_signature(128, 64, 128),
        {"HEAD_DIM": 128, "BM": 128, "BN": 64, "STAGES": 3, "WS": False, "CAUSAL": False},
        {"num_warps": 8}),
    "tt_layernorm_bwd_sm90": (
        "layernorm.layer_norm_bwd_dx_fused", 90, LAYERNORM_SIGNATURE,
        {"GROUP": 64, "BLOCK": 1024}, {"num_warps": 8}),
    "tt_matmul_ws_sm100": (
        "matmul.tma_matmul_ws", 100, matmul_signature("fp16", "fp16", 128, 128, 64),
        {"BM": 128, "BN": 128, "BK": 64, "STAGES": 4}, {"num_warps": 4}),
    "tt_persistent_matmul_ws_sm100": (
        "matmul.persistent_tma_matmul", 100,
        matmul_signature("fp16", "fp16", 128, 128, 64, ["NUM_SMS"]),
        {"BM": 128, "BN": 128, "BK": 64, "STAGES": 4, "NUM_SMS": 148}, {"num_warps": 4}),
    "tt_fp8_persistent_matmul_ws_sm100": (
        "matmul.persistent_tma_matmul", 100,
        matmul_signature("fp8e4nv", "fp16", 128, 128, 128, ["NUM_SMS"]),
        {"BM": 128, "BN": 128, "BK": 128, "STAGES": 4, "NUM_SMS": 148}, {"num_warps": 4}),
    "tt_attention_fwd_ws_sm100": (
        "attention.attention_fwd", 100, attention_signature(128, 128, 128),
        {"HEAD_DIM": 128, "BM": 128, "BN": 128, "STAGES": 2, "WS": True, "CAUSAL": True},
        {"num_warps": 4}),
    "tt_grouped_matmul_device_desc_sm90": (
        "device_desc.grouped_matmul_device_desc", 90, GROUPED_MATMUL_SIGNATURE,
        {"NUM_SMS": 132, "BM": 128, "BN": 128, "BK": 64, "STAGES": 3}, {"num_warps": 8}),
    "tt_chained_scan_sm90": (
        "scan.chained_scan", 90, SCAN_SIGNATURE, {"BLOCK": 1024}, {"num_warps": 4}),
    "tt_streamk_matmul_sm90": (
        "streamk.streamk_matmul", 90, STREAMK_SIGNATURE,
        {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BM": 128, "BN": 128, "BK": 64,
         "GROUP_M": 8}, {"num_warps": 8, "num_stages": 3}),
    "tt_splitk_matmul_sm90": (
        "streamk.splitk_matmul", 90, SPLITK_SIGNATURE,
        {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BM": 128, "BN": 128, "BK": 64,
         "SPLIT_K": 4, "GROUP_M": 8}, {"num_warps": 8, "num_stages": 3}),
    "tt_block_scaled_matmul_sm100": (
        "block_scaled.block_scaled_matmul", 100, BLOCK_SCALED_SIGNATURE,
        {"VEC_SIZE": 32, "BM": 128, "BN": 256, "BK": 128, "NUM_STAGES": 4}, {"num_warps": 4}),
    "tt_attention_bwd_sm90": (
        "attention_bwd.attention_bwd", 90, attention_bwd_signature(64, 64, 64),
        {"HEAD_DIM": 64, "BM": 64, "BN": 64, "STAGES": 2}, {"num_warps": 4}),
    # The same backward for Blackwell: tcgen05.mma with transposed (MN-major) operands.
    "tt_attention_bwd_sm100": (
        "attention_bwd.attention_bwd", 100, attention_bwd_signature(128, 64, 64),
        {"HEAD_DIM": 64, "BM": 128, "BN": 64, "STAGES": 2}, {"num_warps": 4}),
}


def compile_entry(name):
    """PTX text of one entry, and the ptxas that Triton uses for its target."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import get_ptxas
    from triton.compiler import ASTSource
    where, capability, signature, constexprs, options = ENTRIES[name]
    module, kernel = where.split(".")
    fn = getattr(importlib.import_module(module), kernel)
    compiled = triton.compile(ASTSource(fn, signature, constexprs),
                              target=GPUTarget("cuda", capability, 32), options=options)
    return compiled.asm["ptx"], get_ptxas(capability).path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--list", action="store_true", help="print the entry names and exit")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    if args.list:
        print("\n".join(ENTRIES))
        return
    unknown = [n for n in args.names if n not in ENTRIES]
    if unknown:
        sys.exit(f"generate.py: no Triton entry named {', '.join(unknown)}")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import triton
    for name in args.names or ENTRIES:
        start = time.perf_counter()
        ptx, ptxas = compile_entry(name)
        generated = time.perf_counter() - start
        (out / f"{name}.ptx").write_text(ptx)
        (out / f"{name}.ptxas").write_text(ptxas + "\n")
        where, capability, _, constexprs, options = ENTRIES[name]
        (out / f"{name}.line").write_text(
            f"{name} triton {triton.__version__} {where} sm_{capability}a {constexprs} {options}\n")
        start = time.perf_counter()
        arch = f"sm_{capability}a"
        done = subprocess.run([ptxas, f"-arch={arch}", "-o", "/dev/null", str(out / f"{name}.ptx")],
                              capture_output=True, text=True)
        assembled = time.perf_counter() - start
        if done.returncode != 0:
            print(f"generate.py: {name}: ptxas failed: {done.stderr.strip()[:500]}", file=sys.stderr)
        (out / f"{name}.times").write_text(f"{generated:.3f} {assembled:.3f}\n")
        print(f"generate.py: {name}: {len(ptx)} bytes, generated in {generated:.1f} s, "
              f"ptxas {assembled:.2f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
