# Triton kernels whose PTX joins the parse corpus (tests/parse/Inputs/triton)
# and the Triton cache fixture (tests/inputs/Inputs/triton-cache). Written for
# fenceline; compiled with no GPU by generate.py (triton.compile on an
# ASTSource for sm_90).
import triton
import triton.language as tl


@triton.jit
def publish_relaxed(data, flag, n, BLOCK: tl.constexpr):
    # Writes a block, then raises its flag with a relaxed atomic: a consumer
    # that sees the flag may still read stale data (release-missing).
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(data + offs, offs, mask=offs < n)
    tl.atomic_xchg(flag + pid, 1, sem="relaxed")


@triton.jit
def publish_release(data, flag, n, BLOCK: tl.constexpr):
    # The fixed producer: the flag is raised with release semantics.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(data + offs, offs, mask=offs < n)
    tl.atomic_xchg(flag + pid, 1, sem="release")


@triton.jit
def matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # A pipelined tl.dot: wgmma, cp.async and mbarriers on sm_90.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * N + rn[None, :], acc)


@triton.jit
def tma_matmul(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # Tensor descriptors: cp.async.bulk.tensor loads through TMA.
    a_desc = tl.make_tensor_descriptor(a, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(b, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(c, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, K, BK, num_stages=3):
        x = a_desc.load([pid_m * BM, k])
        y = b_desc.load([k, pid_n * BN])
        acc = tl.dot(x, y, acc)
    c_desc.store([pid_m * BM, pid_n * BN], acc.to(tl.float16))


@triton.jit
def row_sum(x, out, n, BLOCK: tl.constexpr):
    # A reduction finished with atomic adds.
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x + offs, mask=offs < n, other=0.0)
    tl.atomic_add(out, tl.sum(v, axis=0))


@triton.jit
def wait_volatile(data, flag, out, BLOCK: tl.constexpr):
    # Spins on the flag with volatile loads and reads the data with no
    # acquire in between (acquire-missing).
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    while tl.load(flag, volatile=True) == 0:
        pass
    tl.store(out + pid * BLOCK + offs, tl.load(data + offs))


@triton.jit
def wait_acquire(data, flag, out, BLOCK: tl.constexpr):
    # The fixed consumer: the spin's load is an acquire.
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    while tl.atomic_add(flag, 0, sem="acquire") == 0:
        pass
    tl.store(out + pid * BLOCK + offs, tl.load(data + offs))


@triton.jit
def handoff_relaxed(data, flag, out, BLOCK: tl.constexpr):
    # Program 0 writes a block and raises the flag with a relaxed atomic
    # (release-missing); the others wait for it with an acquire and read.
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    if pid == 0:
        tl.store(data + offs, offs)
        tl.debug_barrier()
        tl.atomic_xchg(flag, 1, sem="relaxed")
    else:
        while tl.atomic_add(flag, 0, sem="acquire") == 0:
            pass
        tl.store(out + pid * BLOCK + offs, tl.load(data + offs))


@triton.jit
def handoff_release(data, flag, out, BLOCK: tl.constexpr):
    # The fixed hand-off: the flag is raised with release semantics.
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    if pid == 0:
        tl.store(data + offs, offs)
        tl.debug_barrier()
        tl.atomic_xchg(flag, 1, sem="release")
    else:
        while tl.atomic_add(flag, 0, sem="acquire") == 0:
            pass
        tl.store(out + pid * BLOCK + offs, tl.load(data + offs))
