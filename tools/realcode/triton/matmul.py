"""Triton matmul kernels of the real-code corpus (compiled by generate.py, never launched here).

Written for the corpus the way the Triton tutorials write them, so that the PTX is what Triton's
users get: a persistent matmul whose operands come through host-side tensor descriptors (TMA)
with an automatically warp-specialized, multi-stage pipeline (one producer warp filling a
shared-memory ring, consumer warps running wgmma / tcgen05.mma); the same with FP8 operands; a
non-persistent warp-specialized variant; and a classic pointer-based matmul whose K loop Triton
pipelines with cp.async (no warp specialization).
"""
import triton
import triton.language as tl


@triton.jit
def tile_origin(tile, tiles_n, BM: tl.constexpr, BN: tl.constexpr):
    return (tile // tiles_n) * BM, (tile % tiles_n) * BN


@triton.jit
def persistent_tma_matmul(a_desc, b_desc, c_desc, M, N, K,
                          BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                          STAGES: tl.constexpr, NUM_SMS: tl.constexpr):
    """C = A @ B^T, one tile after another per program; the tile loop is warp-specialized."""
    tiles_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * tiles_n
    k_tiles = tl.cdiv(K, BK)
    for tile in tl.range(tl.program_id(0), tiles, NUM_SMS, flatten=True, warp_specialize=True):
        om, on = tile_origin(tile, tiles_n, BM, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in tl.range(k_tiles, num_stages=STAGES):
            a = a_desc.load([om, kk * BK])
            b = b_desc.load([on, kk * BK])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([om, on], acc.to(c_desc.dtype))


@triton.jit
def persistent_tma_matmul_inner_ws(a_desc, b_desc, c_desc, M, N, K,
                                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                                   STAGES: tl.constexpr, NUM_SMS: tl.constexpr):
    """Persistent, with the warp specialization on the K loop (the form Hopper's pass takes)."""
    tiles_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * tiles_n
    for tile in range(tl.program_id(0), tiles, NUM_SMS):
        om, on = tile_origin(tile, tiles_n, BM, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in tl.range(tl.cdiv(K, BK), num_stages=STAGES, warp_specialize=True):
            a = a_desc.load([om, kk * BK])
            b = b_desc.load([on, kk * BK])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([om, on], acc.to(c_desc.dtype))


@triton.jit
def tma_matmul_ws(a_desc, b_desc, c_desc, M, N, K,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr):
    """One output tile per program; the K loop is warp-specialized (producer + consumers)."""
    om, on = tile_origin(tl.program_id(0), tl.cdiv(N, BN), BM, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in tl.range(tl.cdiv(K, BK), num_stages=STAGES, warp_specialize=True):
        a = a_desc.load([om, kk * BK])
        b = b_desc.load([on, kk * BK])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([om, on], acc.to(c_desc.dtype))


@triton.jit
def pointer_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr):
    """The tutorial matmul: pointer loads with masks, K loop software-pipelined with cp.async."""
    om, on = tile_origin(tl.program_id(0), tl.cdiv(N, BN), BM, BN)
    rm = om + tl.arange(0, BM)
    rn = on + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES):
        left = K - kk * BK
        a = tl.load(a_ptrs, mask=rk[None, :] < left, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < left, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))
