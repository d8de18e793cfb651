# CuTe DSL kernels whose PTX joins the parse corpus (tests/parse/Inputs/cutedsl).
# Written for fenceline; compiled with no GPU by generate.py: fake tensors
# stand in for device memory, CUTE_DSL_KEEP=ptx keeps the PTX.
import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import make_fake_compact_tensor


@cute.kernel
def publish_kernel(data: cute.Tensor, flag: cute.Tensor):
    # Each block writes its slice, then thread 0 raises the block's flag with
    # a plain store: no release (a consumer may see the flag before the data).
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    data[bidx * 128 + tidx] = cutlass.Int32(1)
    cute.arch.sync_threads()
    if tidx == 0:
        flag[bidx] = cutlass.Int32(1)


@cute.jit
def publish(data: cute.Tensor, flag: cute.Tensor):
    publish_kernel(data, flag).launch(grid=(4, 1, 1), block=(128, 1, 1))


@cute.kernel
def scale_kernel(src: cute.Tensor, dst: cute.Tensor):
    # A tiled copy through registers: partitioned loads and stores.
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    tile = cute.local_tile(src, (128,), (bidx,))
    out = cute.local_tile(dst, (128,), (bidx,))
    out[tidx] = tile[tidx] * cutlass.Float32(2.0)


@cute.jit
def scale(src: cute.Tensor, dst: cute.Tensor):
    scale_kernel(src, dst).launch(grid=(4, 1, 1), block=(128, 1, 1))


def compile_all():
    cute.compile(publish, make_fake_compact_tensor(cutlass.Int32, (512,)), make_fake_compact_tensor(cutlass.Int32, (4,)))
    cute.compile(scale, make_fake_compact_tensor(cutlass.Float32, (512,)), make_fake_compact_tensor(cutlass.Float32, (512,)))
