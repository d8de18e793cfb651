"""Triton flash-attention backward of the real-code corpus (compiled by generate.py, never run).

Written for the corpus as the Triton community writes the FlashAttention-2 backward (the
structure of the fused-attention tutorial's dK/dV pass, with dQ accumulated across programs
by atomics instead of a second pass): one program per K/V block keeps K and V in registers and
shared memory, the query blocks are pipelined in `STAGES` stages (Q and dO through tensor
descriptors, TMA; the softmax statistics M and the row sums D through pointers), five dots per
step, dK and dV stored through descriptors at the end, and dQ added to an fp32 buffer with
`tl.atomic_add` (relaxed float atomics: a reduction, not a signal).
"""
import triton
import triton.language as tl


@triton.jit
def attention_bwd(q_desc, k_desc, v_desc, do_desc, dk_desc, dv_desc, dq_ptr, m_ptr, d_ptr,
                  sm_scale, seq_len, HEAD_DIM: tl.constexpr, BM: tl.constexpr,
                  BN: tl.constexpr, STAGES: tl.constexpr):
    start_n = tl.program_id(0) * BN
    row0 = tl.program_id(1) * seq_len  # one (batch, head) per program row, rows stacked
    k = k_desc.load([row0 + start_n, 0])
    v = v_desc.load([row0 + start_n, 0])
    dk = tl.zeros([BN, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BN, HEAD_DIM], dtype=tl.float32)
    offs_d = tl.arange(0, HEAD_DIM)
    qk_scale = sm_scale * 1.44269504
    for start_m in tl.range(0, seq_len, BM, num_stages=STAGES):
        offs_m = start_m + tl.arange(0, BM)
        q = q_desc.load([row0 + start_m, 0])
        do = do_desc.load([row0 + start_m, 0])
        m = tl.load(m_ptr + row0 + offs_m)
        d = tl.load(d_ptr + row0 + offs_m)
        qk_t = tl.dot(k, tl.trans(q)) * qk_scale
        p_t = tl.math.exp2(qk_t - m[None, :])
        dv = tl.dot(p_t.to(do.dtype), do, dv)
        dp_t = tl.dot(v, tl.trans(do))
        ds_t = (p_t * (dp_t - d[None, :])).to(q.dtype)
        dk = tl.dot(ds_t, q, dk)
        dq = tl.dot(tl.trans(ds_t), k) * sm_scale
        dq_ptrs = dq_ptr + (row0 + offs_m)[:, None] * HEAD_DIM + offs_d[None, :]
        tl.atomic_add(dq_ptrs, dq, sem="relaxed")
    dk_desc.store([row0 + start_n, 0], (dk * sm_scale).to(dk_desc.dtype))
    dv_desc.store([row0 + start_n, 0], dv.to(dv_desc.dtype))
