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


class TmaPipelineCopy:
    # A TMA load pipeline built the way CUTLASS's Hopper examples build theirs
    # (cutlass.pipeline.PipelineTmaAsync over mbarriers in shared memory): warp 0
    # loads tiles with cp.async.bulk.tensor, every thread reads a stage with
    # generic loads and releases it. Without a fence.proxy.async before the
    # release, the next TMA write may overtake those reads (proxy-war); with
    # fence=True every reader fences first.
    def __init__(self, fence, stages=2, tile=(64, 64)):
        self.fence = fence
        self.stages = stages
        self.tile = tile

    @cute.jit
    def __call__(self, src: cute.Tensor, dst: cute.Tensor):
        smem_layout = cute.make_layout((*self.tile, self.stages))
        tma_atom, tma_tensor = cute.nvgpu.cpasync.make_tiled_tma_atom(
            cute.nvgpu.cpasync.CopyBulkTensorTileG2SOp(), src, cute.slice_(smem_layout, (None, None, 0)), self.tile)

        @cute.struct
        class SharedStorage:
            barriers: cute.struct.MemRange[cutlass.Int64, self.stages * 2]
            tiles: cute.struct.Align[cute.struct.MemRange[cutlass.Float32, cute.cosize(smem_layout)], 128]

        self.shared_storage = SharedStorage
        self.kernel(tma_atom, tma_tensor, dst, smem_layout).launch(grid=(1, 1, 1), block=(128, 1, 1))

    @cute.kernel
    def kernel(self, tma_atom: cute.CopyAtom, mSrc: cute.Tensor, mDst: cute.Tensor, smem_layout: cute.Layout):
        import cutlass.pipeline as pipeline
        tidx, _, _ = cute.arch.thread_idx()
        warp_idx = cute.arch.make_warp_uniform(cute.arch.warp_idx())
        smem = cutlass.utils.SmemAllocator()
        storage = smem.allocate(self.shared_storage)
        sTiles = storage.tiles.get_tensor(smem_layout)
        tx_bytes = cute.size_in_bytes(cutlass.Float32, cute.slice_(smem_layout, (None, None, 0)))
        ring = pipeline.PipelineTmaAsync.create(
            barrier_storage=storage.barriers.data_ptr(),
            num_stages=self.stages,
            producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
            consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, 4),
            tx_count=tx_bytes,
            cta_layout_vmnk=cute.make_layout((1, 1, 1, 1)),
        )
        cute.arch.sync_threads()
        gSrc = cute.local_tile(mSrc, self.tile, (0, None))
        tAsA, tAgA = cute.nvgpu.cpasync.tma_partition(
            tma_atom, 0, cute.make_layout(1), cute.group_modes(sTiles, 0, 2), cute.group_modes(gSrc, 0, 2))
        producer = pipeline.make_pipeline_state(pipeline.PipelineUserType.Producer, self.stages)
        consumer = pipeline.make_pipeline_state(pipeline.PipelineUserType.Consumer, self.stages)
        k_tiles = cute.size(gSrc, mode=[2])
        for k in cutlass.range(k_tiles, unroll=1):
            if warp_idx == 0:
                ring.producer_acquire(producer)
                cute.copy(tma_atom, tAgA[(None, producer.count)], tAsA[(None, producer.index)],
                          tma_bar_ptr=ring.producer_get_barrier(producer))
                ring.producer_commit(producer)
                producer.advance()
            ring.consumer_wait(consumer)
            value = sTiles[(tidx % self.tile[0], tidx // self.tile[0], consumer.index)]
            mDst[tidx + 128 * k] = value
            if cutlass.const_expr(self.fence):
                cute.arch.fence_proxy("async.shared", space="cta")
            cute.arch.sync_warp()
            ring.consumer_release(consumer)
            consumer.advance()





# One compile per PTX file, in order (generate.py names the files after them).
COMPILES = [
    lambda: cute.compile(publish, make_fake_compact_tensor(cutlass.Int32, (512,)),
                         make_fake_compact_tensor(cutlass.Int32, (4,))),
    lambda: cute.compile(scale, make_fake_compact_tensor(cutlass.Float32, (512,)),
                         make_fake_compact_tensor(cutlass.Float32, (512,))),
    lambda: cute.compile(TmaPipelineCopy(fence=False), make_fake_compact_tensor(cutlass.Float32, (64, 256)),
                         make_fake_compact_tensor(cutlass.Float32, (512,))),
    lambda: cute.compile(TmaPipelineCopy(fence=True), make_fake_compact_tensor(cutlass.Float32, (64, 256)),
                         make_fake_compact_tensor(cutlass.Float32, (512,))),
]
