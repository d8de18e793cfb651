"""TileLang kernels of the real-code corpus (lowered to CUDA by generate.py, never run here).

Written for the corpus the way TileLang's own examples write them: a tiled GEMM whose K loop is
`T.Pipelined` (on Hopper TileLang lowers it to TMA loads into a ring of shared stages, mbarrier
full/empty hand-offs and, by default, a producer warp group specialized from the consumers), and
a flash-attention forward with an online softmax over pipelined K/V blocks (Q copied once into
shared memory and read by every K/V step).
"""
import tilelang.language as T


def gemm(M, N, K, block_m, block_n, block_k, stages, threads=128, dtype="float16", accum="float"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_n), T.ceildiv(M, block_m), threads=threads) as (bx, by):
            a_shared = T.alloc_shared((block_m, block_k), dtype)
            b_shared = T.alloc_shared((block_k, block_n), dtype)
            c_local = T.alloc_fragment((block_m, block_n), accum)
            T.clear(c_local)
            for k in T.Pipelined(T.ceildiv(K, block_k), num_stages=stages):
                T.copy(A[by * block_m, k * block_k], a_shared)
                T.copy(B[k * block_k, bx * block_n], b_shared)
                T.gemm(a_shared, b_shared, c_local)
            T.copy(c_local, C[by * block_m, bx * block_n])

    return main


def gemm_cp_async(M, N, K, block_m, block_n, block_k, stages, threads=128, dtype="float16",
                  accum="float"):
    """The tiled GEMM with TMA turned off per copy (`disable_tma`, TileLang's documented hint):
    on Hopper the pipelined K loop fills the shared stages with cp.async (generic proxy) while
    `T.gemm` still runs wgmma, which reads them through the async proxy."""
    no_tma = {"disable_tma": True}

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_n), T.ceildiv(M, block_m), threads=threads) as (bx, by):
            a_shared = T.alloc_shared((block_m, block_k), dtype)
            b_shared = T.alloc_shared((block_k, block_n), dtype)
            c_local = T.alloc_fragment((block_m, block_n), accum)
            T.clear(c_local)
            for k in T.Pipelined(T.ceildiv(K, block_k), num_stages=stages):
                T.copy(A[by * block_m, k * block_k], a_shared, annotations=no_tma)
                T.copy(B[k * block_k, bx * block_n], b_shared, annotations=no_tma)
                T.gemm(a_shared, b_shared, c_local)
            T.copy(c_local, C[by * block_m, bx * block_n])

    return main


def flash_attention_fwd(batch, heads, seq_len, dim, block_m, block_n, stages, threads=128,
                        causal=True):
    shape = (batch, seq_len, heads, dim)
    dtype, accum = "float16", "float"
    scale = (1.0 / dim) ** 0.5 * 1.44269504  # log2(e): exp2 below

    @T.prim_func
    def main(Q: T.Tensor(shape, dtype), K: T.Tensor(shape, dtype), V: T.Tensor(shape, dtype),
             Output: T.Tensor(shape, dtype)):
        with T.Kernel(T.ceildiv(seq_len, block_m), heads, batch, threads=threads) as (bx, by, bz):
            q_shared = T.alloc_shared((block_m, dim), dtype)
            k_shared = T.alloc_shared((block_n, dim), dtype)
            v_shared = T.alloc_shared((block_n, dim), dtype)
            o_shared = T.alloc_shared((block_m, dim), dtype)
            acc_s = T.alloc_fragment((block_m, block_n), accum)
            acc_s_cast = T.alloc_fragment((block_m, block_n), dtype)
            acc_o = T.alloc_fragment((block_m, dim), accum)
            scores_max = T.alloc_fragment((block_m,), accum)
            scores_max_prev = T.alloc_fragment((block_m,), accum)
            scores_scale = T.alloc_fragment((block_m,), accum)
            scores_sum = T.alloc_fragment((block_m,), accum)
            logsum = T.alloc_fragment((block_m,), accum)

            T.copy(Q[bz, bx * block_m:(bx + 1) * block_m, by, :], q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum))
            loop_range = (T.min(T.ceildiv(seq_len, block_n), T.ceildiv((bx + 1) * block_m, block_n))
                          if causal else T.ceildiv(seq_len, block_n))
            for k in T.Pipelined(loop_range, num_stages=stages):
                T.copy(K[bz, k * block_n:(k + 1) * block_n, by, :], k_shared)
                if causal:
                    for i, j in T.Parallel(block_m, block_n):
                        acc_s[i, j] = T.if_then_else(bx * block_m + i >= k * block_n + j, 0,
                                                     -T.infinity(accum))
                else:
                    T.clear(acc_s)
                T.gemm(q_shared, k_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(scores_max, scores_max_prev)
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_m):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                for i, j in T.Parallel(block_m, dim):
                    acc_o[i, j] *= scores_scale[i]
                for i, j in T.Parallel(block_m, block_n):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                T.copy(acc_s, acc_s_cast)
                T.copy(V[bz, k * block_n:(k + 1) * block_n, by, :], v_shared)
                T.gemm(acc_s_cast, v_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                for i in T.Parallel(block_m):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
            for i, j in T.Parallel(block_m, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, o_shared)
            T.copy(o_shared, Output[bz, bx * block_m:(bx + 1) * block_m, by, :])

    return main


def flash_decoding(batch, heads, kv_heads, seq_len, dim, block_n, block_h, num_split, stages,
                   threads=128):
    """GQA flash decoding as TileLang's decode examples write it (example_gqa_decode.py):
    one query token per sequence, the KV sequence cut into `num_split` splits; the split kernel
    writes each split's partial output and log-sum-exp to global memory, and a second kernel of
    the same module (launched after it on the stream) combines the splits."""
    dtype, accum = "float16", "float"
    scale = (1.0 / dim) ** 0.5 * 1.44269504
    groups = heads // kv_heads
    valid_h = min(block_h, groups)
    part = seq_len // num_split

    @T.macro
    def split(Q: T.Tensor((batch, heads, dim), dtype),
              K: T.Tensor((batch, seq_len, kv_heads, dim), dtype),
              V: T.Tensor((batch, seq_len, kv_heads, dim), dtype),
              glse: T.Tensor((batch, heads, num_split), accum),
              out_partial: T.Tensor((batch, heads, num_split, dim), accum)):
        with T.Kernel(batch, heads // valid_h, num_split, threads=threads) as (bx, by, bz):
            q_shared = T.alloc_shared((block_h, dim), dtype)
            k_shared = T.alloc_shared((block_n, dim), dtype)
            v_shared = T.alloc_shared((block_n, dim), dtype)
            o_shared = T.alloc_shared((valid_h, dim), accum)
            acc_s = T.alloc_fragment((block_h, block_n), accum)
            acc_s_cast = T.alloc_fragment((block_h, block_n), dtype)
            acc_o = T.alloc_fragment((block_h, dim), accum)
            scores_max = T.alloc_fragment((block_h,), accum)
            scores_max_prev = T.alloc_fragment((block_h,), accum)
            scores_scale = T.alloc_fragment((block_h,), accum)
            scores_sum = T.alloc_fragment((block_h,), accum)
            logsum = T.alloc_fragment((block_h,), accum)
            hid = by
            cur_kv_head = hid // (groups // valid_h)
            sid = bz
            T.copy(Q[bx, hid * valid_h:hid * valid_h + block_h, :], q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum))
            for k in T.Pipelined(T.ceildiv(part, block_n), num_stages=stages):
                start = part * sid + k * block_n
                T.copy(K[bx, start:start + block_n, cur_kv_head, :], k_shared)
                T.clear(acc_s)
                T.gemm(q_shared, k_shared, acc_s, transpose_B=True,
                       policy=T.GemmWarpPolicy.FullRow)
                T.copy(scores_max, scores_max_prev)
                T.fill(scores_max, -T.infinity(accum))
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_h):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                for i, j in T.Parallel(block_h, block_n):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                for i in T.Parallel(block_h):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                T.copy(acc_s, acc_s_cast)
                for i, j in T.Parallel(block_h, dim):
                    acc_o[i, j] *= scores_scale[i]
                T.copy(V[bx, start:start + block_n, cur_kv_head, :], v_shared)
                T.gemm(acc_s_cast, v_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(block_h, dim):
                acc_o[i, j] /= logsum[i]
            for i in T.Parallel(block_h):
                logsum[i] = T.log2(logsum[i]) + scores_max[i] * scale
            for i in T.Parallel(block_h):
                if i < valid_h:
                    glse[bx, hid * valid_h + i, sid] = logsum[i]
            T.copy(acc_o[:valid_h, :], o_shared)
            T.copy(o_shared, out_partial[bx, hid * valid_h:(hid + 1) * valid_h, sid, :])

    @T.macro
    def combine(glse: T.Tensor((batch, heads, num_split), accum),
                out_partial: T.Tensor((batch, heads, num_split, dim), accum),
                Output: T.Tensor((batch, heads, dim), dtype)):
        with T.Kernel(heads, batch, threads=128) as (by, bz):
            po_local = T.alloc_fragment([dim], accum)
            o_accum_local = T.alloc_fragment([dim], accum)
            lse_local_split = T.alloc_local([1], accum)
            lse_logsum_local = T.alloc_local([1], accum)
            lse_max_local = T.alloc_local([1], accum)
            scale_local = T.alloc_local([1], accum)
            T.clear(lse_logsum_local)
            T.clear(o_accum_local)
            lse_max_local[0] = -T.infinity(accum)
            for k in T.serial(num_split):
                lse_max_local[0] = T.max(lse_max_local[0], glse[bz, by, k])
            for k in T.Pipelined(num_split, num_stages=1):
                lse_local_split[0] = glse[bz, by, k]
                lse_logsum_local[0] += T.exp2(lse_local_split[0] - lse_max_local[0])
            lse_logsum_local[0] = T.log2(lse_logsum_local[0]) + lse_max_local[0]
            for k in T.serial(num_split):
                for i in T.Parallel(dim):
                    po_local[i] = out_partial[bz, by, k, i]
                lse_local_split[0] = glse[bz, by, k]
                scale_local[0] = T.exp2(lse_local_split[0] - lse_logsum_local[0])
                for i in T.Parallel(dim):
                    o_accum_local[i] += po_local[i] * scale_local[0]
            for i in T.Parallel(dim):
                Output[bz, by, i] = o_accum_local[i]

    @T.prim_func
    def main(Q: T.Tensor((batch, heads, dim), dtype),
             K: T.Tensor((batch, seq_len, kv_heads, dim), dtype),
             V: T.Tensor((batch, seq_len, kv_heads, dim), dtype),
             glse: T.Tensor((batch, heads, num_split), accum),
             out_partial: T.Tensor((batch, heads, num_split, dim), accum),
             Output: T.Tensor((batch, heads, dim), dtype)):
        split(Q, K, V, glse, out_partial)
        combine(glse, out_partial, Output)

    return main


def flash_attention_bwd(batch, heads, seq_len, dim, block_m, block_n, stages, threads=128,
                        causal=True):
    """Flash-attention backward as TileLang's example_mha_bwd.py writes its main kernel: one
    program per K/V block (K and V copied once into shared memory), the query blocks pipelined
    (`T.Pipelined`: Q, dO, lse and Delta stages), five gemms per step (two of them on a
    transposed shared operand, one on dS written back to shared memory by the threads), dK and
    dV accumulated in registers, and dQ accumulated across programs with float `T.atomic_add`
    into global memory (the example's postprocess kernel converts it afterwards)."""
    shape = (batch, seq_len, heads, dim)
    dtype, accum = "float16", "float"
    sm_scale = (1.0 / dim) ** 0.5
    scale = sm_scale * 1.44269504  # log2(e): exp2 below

    @T.prim_func
    def main(Q: T.Tensor(shape, dtype), K: T.Tensor(shape, dtype), V: T.Tensor(shape, dtype),
             dO: T.Tensor(shape, dtype), lse: T.Tensor((batch, heads, seq_len), accum),
             Delta: T.Tensor((batch, heads, seq_len), accum), dQ: T.Tensor(shape, accum),
             dK: T.Tensor(shape, dtype), dV: T.Tensor(shape, dtype)):
        with T.Kernel(heads, T.ceildiv(seq_len, block_m), batch, threads=threads) as (bx, by, bz):
            k_shared = T.alloc_shared((block_m, dim), dtype)
            v_shared = T.alloc_shared((block_m, dim), dtype)
            q_shared = T.alloc_shared((block_n, dim), dtype)
            do_shared = T.alloc_shared((block_n, dim), dtype)
            ds_shared = T.alloc_shared((block_m, block_n), dtype)
            lse_shared = T.alloc_shared((block_n,), accum)
            delta_shared = T.alloc_shared((block_n,), accum)
            dv_shared = T.alloc_shared((block_m, dim), dtype)
            dk_shared = T.alloc_shared((block_m, dim), dtype)
            qk = T.alloc_fragment((block_m, block_n), accum)
            qk_cast = T.alloc_fragment((block_m, block_n), dtype)
            ds = T.alloc_fragment((block_m, block_n), accum)
            ds_cast = T.alloc_fragment((block_m, block_n), dtype)
            dv = T.alloc_fragment((block_m, dim), accum)
            dk = T.alloc_fragment((block_m, dim), accum)
            dq = T.alloc_fragment((block_n, dim), accum)

            T.copy(K[bz, by * block_m:(by + 1) * block_m, bx, :], k_shared)
            T.copy(V[bz, by * block_m:(by + 1) * block_m, bx, :], v_shared)
            T.clear(dv)
            T.clear(dk)
            loop_st = T.floordiv(by * block_m, block_n) if causal else 0
            loop_ed = T.ceildiv(seq_len, block_n)
            for k in T.Pipelined(loop_st, loop_ed, num_stages=stages):
                T.copy(Q[bz, k * block_n:(k + 1) * block_n, bx, :], q_shared)
                T.clear(qk)
                T.gemm(k_shared, q_shared, qk, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(lse[bz, bx, k * block_n:(k + 1) * block_n], lse_shared)
                for i, j in T.Parallel(block_m, block_n):
                    qk[i, j] = T.exp2(qk[i, j] * scale - lse_shared[j])
                if causal:
                    for i, j in T.Parallel(block_m, block_n):
                        qk[i, j] = T.if_then_else(by * block_m + i <= k * block_n + j, qk[i, j], 0)
                T.copy(dO[bz, k * block_n:(k + 1) * block_n, bx, :], do_shared)
                T.clear(ds)
                T.gemm(v_shared, do_shared, ds, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(qk, qk_cast)
                T.gemm(qk_cast, do_shared, dv, policy=T.GemmWarpPolicy.FullRow)
                T.copy(Delta[bz, bx, k * block_n:(k + 1) * block_n], delta_shared)
                for i, j in T.Parallel(block_m, block_n):
                    ds_cast[i, j] = qk[i, j] * (ds[i, j] - delta_shared[j]) * sm_scale
                T.gemm(ds_cast, q_shared, dk, policy=T.GemmWarpPolicy.FullRow)
                T.copy(ds_cast, ds_shared)
                T.clear(dq)
                T.gemm(ds_shared, k_shared, dq, transpose_A=True)
                for i, j in T.Parallel(block_n, dim):
                    T.atomic_add(dQ[bz, k * block_n + i, bx, j], dq[i, j])
            T.copy(dv, dv_shared)
            T.copy(dk, dk_shared)
            T.copy(dv_shared, dV[bz, by * block_m:(by + 1) * block_m, bx, :])
            T.copy(dk_shared, dK[bz, by * block_m:(by + 1) * block_m, bx, :])

    return main
