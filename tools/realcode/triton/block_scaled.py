"""Triton block-scaled matmul of the real-code corpus (sm_100a), compiled by generate.py.

Written as Triton's tutorial 10 (10-block-scaled-matmul.py) writes it for Blackwell: MXFP8
operands (e4m3, one e8m0 scale per 32 elements of K) through host-side tensor descriptors,
the scale factors through 5-D descriptors in the pre-swizzled 128x4 layout that `tcgen05.mma`
block scaling reads from tensor memory, and `tl.dot_scaled` in a K loop pipelined in
NUM_STAGES stages; the epilogue stores C through a descriptor.
"""
import triton
import triton.language as tl


@triton.jit
def block_scaled_matmul(a_desc, a_scale_desc, b_desc, b_scale_desc, c_desc, M, N, K,
                        VEC_SIZE: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr, NUM_STAGES: tl.constexpr):
    """C = (A * scale_a) @ (B * scale_b)^T, one output tile per program."""
    rep_m: tl.constexpr = BM // 128
    rep_n: tl.constexpr = BN // 128
    rep_k: tl.constexpr = BK // VEC_SIZE // 4
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BM)
    pid_m = pid % num_pid_m
    pid_n = pid // num_pid_m
    offs_am = pid_m * BM
    offs_bn = pid_n * BN
    offs_k = 0
    offs_scale_m = pid_m * rep_m
    offs_scale_n = pid_n * rep_n
    offs_scale_k = 0
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in tl.range(0, tl.cdiv(K, BK), num_stages=NUM_STAGES):
        a = a_desc.load([offs_am, offs_k])
        b = b_desc.load([offs_bn, offs_k])
        scale_a = a_scale_desc.load([0, offs_scale_m, offs_scale_k, 0, 0])
        scale_b = b_scale_desc.load([0, offs_scale_n, offs_scale_k, 0, 0])
        scale_a = scale_a.reshape(rep_m, rep_k, 32, 4, 4).trans(0, 3, 2, 1, 4).reshape(
            BM, BK // VEC_SIZE)
        scale_b = scale_b.reshape(rep_n, rep_k, 32, 4, 4).trans(0, 3, 2, 1, 4).reshape(
            BN, BK // VEC_SIZE)
        acc = tl.dot_scaled(a, scale_a, "e4m3", b.T, scale_b, "e4m3", acc)
        offs_k += BK
        offs_scale_k += rep_k
    c_desc.store([offs_am, offs_bn], acc.to(c_desc.dtype))
