"""A Triton kernel of the real-code corpus that synchronizes programs through global flags.

A single-pass prefix sum with decoupled look-back, the way Triton users write it (the
chained-scan pattern of CUB's DeviceScan, in Triton's atomics): each program sums its block,
publishes the block's aggregate, raises its flag with a release atomic, then walks back over
its predecessors' flags with acquire atomics, reads their aggregates and prefixes, and publishes
its inclusive prefix under a second flag value. Programs of one launch hand data to each other
in global memory; no barrier between them.
"""
import triton
import triton.language as tl

AGGREGATE_READY = 1
PREFIX_READY = 2


@triton.jit
def chained_scan(x_ptr, y_ptr, aggregate_ptr, prefix_ptr, flag_ptr, n, BLOCK: tl.constexpr):
    """y = inclusive prefix sum of x, one block of BLOCK elements per program."""
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    local = tl.cumsum(x, axis=0)
    block_sum = tl.sum(x, axis=0)
    # Publish the block's own sum, then look back over the predecessors.
    tl.store(aggregate_ptr + pid, block_sum)
    tl.atomic_xchg(flag_ptr + pid, 1, sem="release")
    exclusive = 0.0
    prev = pid - 1
    while prev >= 0:
        state = tl.atomic_add(flag_ptr + prev, 0, sem="acquire")
        if state == 2:
            exclusive += tl.load(prefix_ptr + prev)
            prev = -1
        elif state == 1:
            exclusive += tl.load(aggregate_ptr + prev)
            prev -= 1
    tl.store(prefix_ptr + pid, exclusive + block_sum)
    tl.atomic_xchg(flag_ptr + pid, 2, sem="release")
    tl.store(y_ptr + offs, local + exclusive, mask=offs < n)
