"""Triton matmuls of the real-code corpus that combine partial tiles across programs.

Written the way Triton users write stream-K and split-K (the stream-K kernel of the Triton
community examples and PyTorch's blog on it, the split-K of Triton's matmul tutorials): the
K iterations of all output tiles are cut evenly over the programs, so one tile can be
computed in pieces by several programs. The program that owns a tile's first K iteration
stores its partial sum to C and raises the tile's lock (`atomic_xchg`, Triton's default
acq_rel at gpu scope); every other piece spins on the lock with `atomic_cas(lock, 1, 1)` and
then adds its partial sum into C with float atomics. The split-K kernel has no lock: each
K slice adds into C (pre-zeroed) with `atomic_add`.
"""
import triton
import triton.language as tl


@triton.jit
def swizzle_tile(tile_id, M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP_M: tl.constexpr):
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    width = GROUP_M * grid_n
    group_id = tile_id // width
    group_size = tl.minimum(grid_m - group_id * GROUP_M, GROUP_M)
    pid_m = group_id * GROUP_M + (tile_id % group_size)
    pid_n = (tile_id % width) // group_size
    return pid_m, pid_n


@triton.jit
def mac_loop(a_ptr, b_ptr, c_ptr, M, N, K, locks, stride_am, stride_ak, stride_bk, stride_bn,
             stride_cm, stride_cn, iters_per_tile, start_iter, end_iter,
             BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    """Runs K iterations [start_iter, end_iter) of one tile and combines the partial sum."""
    tile_id = start_iter // iters_per_tile
    remain = start_iter % iters_per_tile
    pid_m, pid_n = swizzle_tile(tile_id, M, N, BM, BN, GROUP_M)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak + BK * stride_ak * remain
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn + BK * stride_bk * remain
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(start_iter, end_iter):
        a = tl.load(a_tile)
        b = tl.load(b_tile)
        acc += tl.dot(a, b)
        a_tile += BK * stride_ak
        b_tile += BK * stride_bk
    c_tile = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    if remain == 0:
        # The tile's first piece: the other pieces wait for this store.
        tl.store(c_tile, acc, mask=mask)
        if end_iter % iters_per_tile != 0:
            tl.atomic_xchg(locks + tile_id, 1)
    else:
        while tl.atomic_cas(locks + tile_id, 1, 1) != 1:
            pass
        tl.atomic_add(c_tile, acc, mask=mask)


@triton.jit
def streamk_matmul(a_ptr, b_ptr, c_ptr, M, N, K, locks, stride_am, stride_ak, stride_bk,
                   stride_bn, stride_cm, stride_cn, total_full_tiles_streamk,
                   total_partial_tiles_streamk, iters_per_tile, total_tiles_streamk,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr):
    """The stream-K part: every program runs an even share of the K iterations of all tiles."""
    pid = tl.program_id(0)
    start_iter = pid * total_full_tiles_streamk + tl.minimum(pid, total_partial_tiles_streamk)
    last_iter = (pid + 1) * total_full_tiles_streamk + tl.minimum(pid + 1,
                                                                  total_partial_tiles_streamk)
    while start_iter < last_iter:
        end_iter = tl.minimum(start_iter + (iters_per_tile - start_iter % iters_per_tile),
                              last_iter)
        mac_loop(a_ptr, b_ptr, c_ptr, M, N, K, locks, stride_am, stride_ak, stride_bk,
                 stride_bn, stride_cm, stride_cn, iters_per_tile, start_iter, end_iter,
                 BM, BN, BK, GROUP_M)
        start_iter = end_iter


@triton.jit
def splitk_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                  SPLIT_K: tl.constexpr, GROUP_M: tl.constexpr):
    """Split-K: program (tile, z) sums K slices z, z + SPLIT_K, ... and adds them into C."""
    pid_m, pid_n = swizzle_tile(tl.program_id(0), M, N, BM, BN, GROUP_M)
    pid_z = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = pid_z * BK + tl.arange(0, BK)
    a_tile = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_tile = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK * SPLIT_K)):
        k_left = K - k * BK * SPLIT_K
        a = tl.load(a_tile, mask=rk[None, :] < k_left, other=0.0)
        b = tl.load(b_tile, mask=rk[:, None] < k_left, other=0.0)
        acc += tl.dot(a, b)
        a_tile += BK * SPLIT_K * stride_ak
        b_tile += BK * SPLIT_K * stride_bk
    c_tile = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    mask = (rm < M)[:, None] & (rn < N)[None, :]
    tl.atomic_add(c_tile, acc, mask=mask)
