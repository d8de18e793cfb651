"""Triton flash-attention forward of the real-code corpus (compiled by generate.py, never run).

The structure of Triton's fused-attention tutorial, written for the corpus: Q, K and V through
tensor descriptors (TMA), an online softmax over K/V blocks, the K/V loop pipelined in
`STAGES` stages and, with WS, warp-specialized (a producer warp loads K/V into a ring of
shared stages while consumer warps run the two matmuls and the softmax). Q is loaded once per
program and stays in shared memory across the whole K/V loop: the "outer stage read inside an
inner pipeline" shape.
"""
import triton
import triton.language as tl


@triton.jit
def attention_fwd(q_desc, k_desc, v_desc, o_desc, sm_scale, seq_len,
                  HEAD_DIM: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                  STAGES: tl.constexpr, WS: tl.constexpr, CAUSAL: tl.constexpr):
    start_m = tl.program_id(0)
    row0 = tl.program_id(1) * seq_len  # one (batch, head) per program row, rows stacked
    q_row = row0 + start_m * BM
    q = q_desc.load([q_row, 0])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0
    acc = tl.zeros([BM, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    hi = (start_m + 1) * BM if CAUSAL else seq_len
    offs_m = start_m * BM + tl.arange(0, BM)
    for start_n in tl.range(0, hi, BN, num_stages=STAGES, warp_specialize=WS):
        k = k_desc.load([row0 + start_n, 0])
        qk = tl.dot(q, k.T) * qk_scale
        if CAUSAL:
            offs_n = start_n + tl.arange(0, BN)
            qk = tl.where(offs_m[:, None] >= offs_n[None, :], qk, -1.0e6)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = v_desc.load([row0 + start_n, 0])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    o_desc.store([q_row, 0], acc.to(o_desc.dtype))
