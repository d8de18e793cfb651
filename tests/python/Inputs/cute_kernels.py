# CuTe DSL kernels for the compile-time hook tests (python/fenceline/cute.py).
# Written for fenceline; compiled with no GPU (fake tensors, CUTE_DSL_ARCH=sm_90a).
import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import make_fake_compact_tensor


@cute.kernel
def poll_relaxed_kernel(data: cute.Tensor, flag: cute.Tensor, out: cute.Tensor):
    # Block 0 fills the data and raises the flag with release; the other blocks
    # wait for it with relaxed loads and then read the data it guards: nothing
    # orders the data read after the flag (acquire-missing).
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    if bidx == 0:
        data[tidx] = tidx + 1
        cute.arch.sync_threads()
        if tidx == 0:
            cute.arch.store(flag.iterator, cutlass.Int32(1), sem="release", scope="gpu")
    else:
        seen = cute.arch.load(flag.iterator, cutlass.Int32, sem="relaxed", scope="gpu")
        while seen == 0:  # reported here: acquire-missing
            seen = cute.arch.load(flag.iterator, cutlass.Int32, sem="relaxed", scope="gpu")
        out[tidx] = data[tidx]


@cute.jit
def poll_relaxed(data: cute.Tensor, flag: cute.Tensor, out: cute.Tensor):
    poll_relaxed_kernel(data, flag, out).launch(grid=(2, 1, 1), block=(128, 1, 1))


@cute.kernel
def poll_acquire_kernel(data: cute.Tensor, flag: cute.Tensor, out: cute.Tensor):
    # The fixed consumer: the flag is read with acquire semantics.
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    if bidx == 0:
        data[tidx] = tidx + 1
        cute.arch.sync_threads()
        if tidx == 0:
            cute.arch.store(flag.iterator, cutlass.Int32(1), sem="release", scope="gpu")
    else:
        seen = cute.arch.load(flag.iterator, cutlass.Int32, sem="acquire", scope="gpu")
        while seen == 0:
            seen = cute.arch.load(flag.iterator, cutlass.Int32, sem="acquire", scope="gpu")
        out[tidx] = data[tidx]


@cute.jit
def poll_acquire(data: cute.Tensor, flag: cute.Tensor, out: cute.Tensor):
    poll_acquire_kernel(data, flag, out).launch(grid=(2, 1, 1), block=(128, 1, 1))


def compile(function, n=128):
    """cute.compile on fake tensors: no GPU needed."""
    fake = lambda size: make_fake_compact_tensor(cutlass.Int32, (size,))  # noqa: E731
    return cute.compile(function, fake(n), fake(1), fake(n))
