#!/usr/bin/env python3
"""Writes the PTX of third-party Triton kernels (tools/realcode/generated.txt, `triton3p` lines;
session 10's fresh set).

Unlike triton/generate.py (kernels of our own), every kernel here is a project's own `@triton.jit`
function, imported from its installed package or unpacked sdist (FENCELINE_REALCODE_DIR/
pkgs-fresh and src/, pinned in fetch.sh) and lowered with `triton.compile(..., target=
GPUTarget("cuda", cc, 32))`, no GPU needed. An `@triton.autotune` / `@triton.heuristics` wrapper
is unwrapped; the entry supplies what they would: one of the project's own autotune configs
(block sizes, num_warps, num_stages) and the heuristic constants. The argument types are the
ones the project's Python wrapper passes (pointer element types from its tensors; every integer
argument i32, as Triton specializes them for sizes below 2^31). A package whose __init__ pulls
in a compiled extension or a model zoo is imported as a bare namespace (`bare_package`): only
the kernel module and what it imports are loaded.

Issue 29's last look (set=lastlook) adds sageattention (wheel, pkgs-lastlook) and gemlite (unpacked
sdist, src/). A kernel module that asks the device at import time (gemlite's utils: torch's device
capability and SM count, Triton's active driver) is imported inside `no_gpu(cc)`, which answers
those queries for one device of the entry's capability and restores them afterwards; they feed
only host-side constants (autotune tables), the kernel is lowered from the entry's constants.

Outputs as triton/generate.py: <name>.ptx, .ptxas (Triton's own ptxas for this PTX), .line,
.times.

    generate.py --out DIR [name...]     (the corpus venv's Python)
"""
import argparse
import contextlib
import importlib
import os
import pathlib
import subprocess
import sys
import time
import types

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent.parent
SCRATCH = pathlib.Path(os.environ.get("FENCELINE_REALCODE_DIR", ROOT / ".scratch" / "realcode"))
MAMBA_SRC = SCRATCH / "src" / "mamba-ssm-2.3.2.post1"
GEMLITE_SRC = SCRATCH / "src" / "gemlite-0.6.0.post2"
LASTLOOK = SCRATCH / "pkgs-lastlook"
# Projects whose kernels come from an unpacked sdist (no installed distribution to ask the
# version of): the folder's name says it.
SDIST_SOURCES = {"mamba-ssm": MAMBA_SRC, "gemlite": GEMLITE_SRC}
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")


def bare_package(name, folder):
    """Registers `name` (and its parents) as namespace packages rooted at `folder`, without
    running their __init__.py."""
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        pkg = ".".join(parts[:i])
        if pkg not in sys.modules:
            module = types.ModuleType(pkg)
            module.__path__ = [str(folder.joinpath(*parts[1:i]))]
            sys.modules[pkg] = module


def kernel(module, attr):
    import triton
    fn = getattr(importlib.import_module(module), attr)
    while not isinstance(fn, triton.runtime.jit.JITFunction):
        fn = fn.fn  # Autotuner, Heuristics
    return fn


def signature(fn, types_, constexprs):
    """Every parameter: constexpr if given a constant, else its type from `types_`, else i32."""
    sig = {}
    for name in fn.arg_names:
        if name in constexprs:
            sig[name] = "constexpr"
        else:
            sig[name] = types_.get(name, "i32")
    missing = [p.name for p in fn.params if p.is_constexpr and p.name not in constexprs]
    if missing:
        sys.exit(f"generate.py: {fn.__name__}: no value for constexpr {missing}")
    return sig


def mamba(module):
    bare_package("mamba_ssm.ops.triton", MAMBA_SRC / "mamba_ssm")
    return f"mamba_ssm.ops.triton.{module}"


def fla(module):
    bare_package("fla", SCRATCH / "pkgs-fresh" / "fla")
    from importlib.metadata import version
    sys.modules["fla"].__version__ = version("fla-core")  # what fla/__init__ would set
    return f"fla.{module}"


@contextlib.contextmanager
def no_gpu(capability, sm_count=132, max_shared_mem=232448):
    """Answers the device queries a module makes at import time (torch.cuda's capability and
    properties, Triton's active driver and its device properties) for one device of
    `capability` (default: an H100/H200's 132 SMs and 227 KiB of shared memory), then restores
    them."""
    import torch
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.runtime import driver

    class Utils:
        def get_device_properties(self, device):
            return {"max_shared_mem": max_shared_mem, "multiprocessor_count": sm_count,
                    "max_num_regs": 65536, "warpSize": 32}

    class Driver:
        utils = Utils()

        def get_current_target(self):
            return GPUTarget("cuda", capability, 32)

        def get_current_device(self):
            return 0

    props = types.SimpleNamespace(major=capability // 10, minor=capability % 10,
                                  multi_processor_count=sm_count, name=f"sm_{capability} (no GPU)",
                                  shared_memory_per_block_optin=max_shared_mem)
    saved = (torch.cuda.get_device_capability, torch.cuda.get_device_properties, driver._active)
    torch.cuda.get_device_capability = lambda *a, **k: (props.major, props.minor)
    torch.cuda.get_device_properties = lambda *a, **k: props
    driver.set_active(Driver())
    try:
        yield
    finally:
        # Triton's own reset_active() would create the real driver, which needs a GPU: the
        # previous state (usually none yet) is put back instead.
        torch.cuda.get_device_capability, torch.cuda.get_device_properties, driver._active = saved


def sage(module):
    bare_package("sageattention", LASTLOOK / "sageattention")
    return f"sageattention.{module}"


def gemlite(module):
    bare_package("gemlite.triton_kernels", GEMLITE_SRC / "gemlite")
    with no_gpu(90):
        importlib.import_module(f"gemlite.{module}")
    return f"gemlite.{module}"


def liger(module):
    bare_package("liger_kernel.ops", SCRATCH / "pkgs-fresh" / "liger_kernel")
    return f"liger_kernel.ops.{module}"


# name: (project, module resolver, kernel, cc, pointer/float types, constexprs, options)
ENTRIES = {
    # Mamba-2's SSD chunk scan (the output of each chunk from the chunk's states and the
    # intra-chunk C*B product), as mamba_chunk_scan_combined calls it: bf16 x/z/C, fp32 CB,
    # dt, dA_cumsum and states, D per head, causal; the autotune config (64, 64, 32) x 4 stages.
    "mamba_ssd_chunk_scan_sm90": (
        "mamba-ssm", lambda: mamba("ssd_chunk_scan"), "_chunk_scan_fwd_kernel", 90,
        {"cb_ptr": "*fp32", "x_ptr": "*bf16", "z_ptr": "*bf16", "out_ptr": "*bf16",
         "out_x_ptr": "*bf16", "dt_ptr": "*fp32", "dA_cumsum_ptr": "*fp32", "seq_idx_ptr": "*i32",
         "C_ptr": "*bf16", "prev_states_ptr": "*fp32", "D_ptr": "*fp32"},
        {"IS_CAUSAL": True, "HAS_D": True, "D_HAS_HDIM": False, "HAS_Z": True,
         "HAS_SEQ_IDX": False, "BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32,
         "BLOCK_SIZE_DSTATE": 128, "IS_TRITON_22": True}, {"num_warps": 4, "num_stages": 4}),
    # Mamba-2's state passing: the sequential recurrence over chunks (each program carries one
    # slice of the state through every chunk), with initial states.
    "mamba_ssd_state_passing_sm90": (
        "mamba-ssm", lambda: mamba("ssd_state_passing"), "_state_passing_fwd_kernel", 90,
        {"states_ptr": "*fp32", "out_ptr": "*fp32", "final_states_ptr": "*fp32",
         "dA_cs_ptr": "*fp32", "initstates_ptr": "*fp32", "seq_idx_ptr": "*i32"},
        {"HAS_INITSTATES": True, "HAS_SEQ_IDX": False, "BLOCK_SIZE": 64},
        {"num_warps": 4, "num_stages": 4}),
    # Liger's fused MoE: gather of routed tokens + grouped up-projection GEMM + SwiGLU, one
    # expert tile per program (tile metadata from its router kernels), bf16, H 4096, I 1536.
    "liger_moe_up_proj_sm90": (
        "liger-kernel", lambda: liger("fused_moe_kernels"), "_fused_up_proj_swiglu_kernel", 90,
        {"x_ptr": "*bf16", "gate_up_proj_ptr": "*bf16", "x_gather_idx_ptr": "*i32",
         "expert_start_ptr": "*i32", "tile_row_start_ptr": "*i32", "tile_expert_ptr": "*i32",
         "pre_act_ptr": "*bf16", "post_act_ptr": "*bf16"},
        {"H_dim": 4096, "I_dim": 1536, "stride_x_H": 1, "stride_w_K": 1, "stride_pre_N": 1,
         "stride_post_N": 1, "BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64},
        {"num_warps": 8, "num_stages": 2}),
    # flash-linear-attention's PaTH attention backward, intra-chunk part: dq/dk/dv and the
    # Householder-weight gradients accumulated across programs with float atomics
    # (sem='relaxed' on dg_cumsum), bf16 inputs, fp32 gradients, 16 heads, d 128, gated.
    "fla_path_attn_bwd_intra_sm90": (
        "fla-core", lambda: fla("ops.path_attn.parallel_path_bwd_intra"),
        "parallel_path_bwd_intra_chunk_kernel", 90,
        {"q": "*bf16", "k": "*bf16", "v": "*bf16", "g_cumsum": "*fp32", "w1": "*bf16",
         "w2": "*bf16", "L": "*fp32", "D": "*fp32", "dq": "*fp32", "dq_new": "*bf16",
         "dk": "*fp32", "dv": "*fp32", "dw1": "*fp32", "dw2": "*fp32", "do": "*bf16",
         "dg_cumsum": "*fp32", "offsets": "*i32", "indices": "*i32", "scale": "fp32"},
        {"G": 1, "HQ": 16, "H": 16, "K": 128, "V": 128, "BK": 128, "BV": 128, "BT": 64, "S": 64,
         "IS_VARLEN": False, "USE_GATE": True}, {"num_warps": 4, "num_stages": 2}),
    # torchao's blockwise-FP8 training GEMM (1x128 activation scales, 128x128 weight scales),
    # e4m3 operands, bf16 out, N = K = 4096, the autotune config 128x128, 8 warps, 2 stages.
    "torchao_fp8_blockwise_gemm_sm90": (
        "torchao", lambda: "torchao.prototype.blockwise_fp8_training.kernels",
        "triton_fp8_gemm_1x128_128x128_kernel", 90,
        {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "c_ptr": "*bf16", "a_s_ptr": "*fp32",
         "b_s_ptr": "*fp32"},
        {"N": 4096, "K": 4096, "out_dtype": None, "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128,
         "BLOCK_SIZE_K": 128}, {"num_warps": 8, "num_stages": 2}),
    # Issue 29's last look (set=lastlook). SageAttention's INT8 attention forward, causal
    # (attn_qk_int8_per_block_causal.py), as its `forward` launches it: int8 Q and K with fp32
    # per-block scales, fp16 V and output, head dim 128, BLOCK_M 128, BLOCK_N 64, STAGE 3 (the
    # off-diagonal blocks, then the diagonal one), 8 warps, 4 stages; 32 heads, no GQA.
    "sage_attn_int8_causal_sm90": (
        "sageattention", lambda: sage("attn_qk_int8_per_block_causal"), "_attn_fwd", 90,
        {"Q": "*i8", "K": "*i8", "V": "*fp16", "Q_scale": "*fp32", "K_scale": "*fp32",
         "Out": "*fp16"},
        {"H": 32, "num_kv_groups": 1, "HEAD_DIM": 128, "BLOCK_M": 128, "BLOCK_N": 64, "STAGE": 3},
        {"num_warps": 8, "num_stages": 4}),
    # GemLite's split-K GEMM, the INT path (gemm_splitK_INT_kernel): fp16 activations times
    # 4-bit weights packed 8 per int32, group size 128, asymmetric ((Wq - zeros) * scales:
    # W_group_mode 3), fp32 accumulation; M 16, N = K = 4096 (so EVEN_M/N/K); the second of
    # its default NVIDIA configs (16x256x128, SPLIT_K 2, A_load_order 2, 4 warps, 2 stages),
    # whose partial tiles meet in the output through tl.atomic_add(sem=atomic_mode), the
    # default 'relaxed'. No activation scales (scales_x None), no meta scale.
    "gemlite_splitk_int4_sm90": (
        "gemlite", lambda: gemlite("triton_kernels.gemm_splitK_kernels"),
        "gemm_splitK_INT_kernel", 90,
        {"a_ptr": "*fp16", "b_ptr": "*i32", "c_ptr": "*fp16", "scales_ptr": "*fp16",
         "zeros_ptr": "*fp16", "load_scales_as_block": "i1"},
        {"scales_a_ptr": None, "stride_meta_a_m": None, "stride_meta_a_g": None,
         "meta_scale_norm_ptr": None, "N": 4096, "K": 4096, "W_nbits": 4, "group_size": 128,
         "unpack_mask": 15, "elements_per_sample": 8, "type_id": 0, "a_sizeof": 2, "b_sizeof": 4,
         "input_dtype": "tl.float16", "output_dtype": "tl.float16", "acc_dtype": "tl.float32",
         "meta_dtype": "tl.float16",
         "channel_scale_mode": 0, "W_group_mode": 3, "zero_is_scalar": False,
         "BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 8,
         "SPLIT_K": 2, "NUM_STAGES": 2, "A_load_order": 2, "data_contiguous": True,
         "EVEN_M": True, "EVEN_K": True, "EVEN_N": True, "use_tma": False,
         "use_5d_scales": False, "warp_specialize": False},
        {"num_warps": 4, "num_stages": 2}),
}


def compile_entry(name):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import get_ptxas
    from triton.compiler import ASTSource
    _, resolve, attr, capability, types_, constexprs, options = ENTRIES[name]
    fn = kernel(resolve(), attr)
    # "tl.<type>" names a Triton dtype passed as a constexpr (a kernel's `acc_dtype`); a
    # constexpr the entry leaves out takes the kernel's own default, as a launch that omits it.
    constexprs = {k: getattr(triton.language, v[3:]) if isinstance(v, str) and v.startswith("tl.") else v
                  for k, v in constexprs.items()}
    constexprs.update({p.name: p.default for p in fn.params
                       if p.is_constexpr and p.has_default and p.name not in constexprs})
    compiled = triton.compile(ASTSource(fn, signature(fn, types_, constexprs), constexprs),
                              target=GPUTarget("cuda", capability, 32), options=options)
    return compiled.asm["ptx"], get_ptxas(capability).path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    unknown = [n for n in args.names if n not in ENTRIES]
    if unknown:
        sys.exit(f"generate.py: no third-party Triton entry named {', '.join(unknown)}")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(SCRATCH / "pkgs-fresh"))
    sys.path.insert(0, str(LASTLOOK))  # sageattention's distribution (its version for .line)
    import triton
    from importlib.metadata import version
    for name in args.names or ENTRIES:
        start = time.perf_counter()
        ptx, ptxas = compile_entry(name)
        generated = time.perf_counter() - start
        (out / f"{name}.ptx").write_text(ptx)
        (out / f"{name}.ptxas").write_text(ptxas + "\n")
        project, _, attr, capability, _, constexprs, options = ENTRIES[name]
        where = SDIST_SOURCES[project].name if project in SDIST_SOURCES else f"{project} {version(project)}"
        (out / f"{name}.line").write_text(
            f"{name} triton3p {where} triton {triton.__version__} {attr} {constexprs} {options} cc{capability}\n")
        start = time.perf_counter()
        done = subprocess.run([ptxas, f"-arch=sm_{capability}a", "-o", "/dev/null", str(out / f"{name}.ptx")],
                              capture_output=True, text=True)
        assembled = time.perf_counter() - start
        if done.returncode != 0:
            print(f"generate.py: {name}: ptxas failed: {done.stderr.strip()[:500]}", file=sys.stderr)
        (out / f"{name}.times").write_text(f"{generated:.3f} {assembled:.3f}\n")
        print(f"generate.py: {name}: generated in {generated:.1f} s, ptxas {assembled:.2f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
