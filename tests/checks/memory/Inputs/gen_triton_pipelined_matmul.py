"""Generate tests/checks/memory/Inputs/triton_{pipelined,tma,ws}_matmul_sm90.ptx.

A plain Triton matmul whose K loop is software-pipelined with
`tl.range(..., num_stages=3)`, compiled for GPUTarget("cuda", 90, 32) with
`triton.compile` (no GPU needed). Triton carves its pipeline buffers out of
one dynamic shared buffer (`global_smem`) and indexes the stages with a
bounded counter in `selp`/`setp` form: issue 11 shape 1 in compiler output.

Run from the repository root with a Python that has triton (the version is
written into the PTX header comment by Triton itself):
    python tests/checks/memory/Inputs/gen_triton_pipelined_matmul.py
"""
import os

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=3):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(tl.float16)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def tma_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr):
    # Device-side tensor descriptors: the loads become TMA copies into stages
    # of the dynamic shared buffer, completing on mbarriers in the same buffer.
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=3):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


@triton.jit
def ws_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr):
    # The same with `warp_specialize=True`: a producer warp group issues the
    # TMA loads, two consumer warp groups run wgmma and the epilogue.
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=3, warp_specialize=True):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([k * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


def write(name, text):
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    with open(out, "w") as f:
        f.write(text)
    print(out, len(text), "bytes")


def compile_tma(fn, name, num_warps):
    signature = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                 "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
    constexprs = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}
    aligned = [["tt.divisibility", 16]]
    attrs = {(i,): aligned for i in range(6)}
    src = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps, "num_stages": 3})
    write(name, compiled.asm["ptx"])


def main():
    signature = {
        "a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
        "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32", "stride_cm": "i32",
        "stride_cn": "i32", "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr",
    }
    constexprs = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}
    # 16-byte aligned pointers and strides (what the launcher's specialization
    # finds for contiguous fp16 matrices), unit inner strides: the loads become
    # vectorized async copies that the pipeliner can put into shared stages.
    aligned = [["tt.divisibility", 16]]
    attrs = {(i,): aligned for i in (0, 1, 2, 3, 4, 5, 6, 8, 10)}
    signature.update({"stride_ak": "constexpr", "stride_bn": "constexpr", "stride_cn": "constexpr"})
    constexprs.update({"stride_ak": 1, "stride_bn": 1, "stride_cn": 1})
    src = triton.compiler.ASTSource(fn=matmul_kernel, signature=signature, constexprs=constexprs, attrs=attrs)
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 8, "num_stages": 3})
    write("triton_pipelined_matmul_sm90.ptx", compiled.asm["ptx"])
    compile_tma(tma_matmul_kernel, "triton_tma_matmul_sm90.ptx", 8)
    compile_tma(ws_matmul_kernel, "triton_ws_matmul_sm90.ptx", 4)


if __name__ == "__main__":
    main()
