"""A warp-specialized Hopper GEMM in the CuTe DSL, written for the real-code corpus.

C = A * B^T with A (M, K), B (N, K) and C (M, N), K-major fp16 operands, fp32 accumulators.
The shape is the one CuTe DSL users write for sm_90a (CUTLASS's `KernelTmaWarpSpecialized
Cooperative` in Python): warp group 0 is the producer (it gives registers back with
`setmaxnreg` and one warp issues the TMA loads of A and B, multicast across the cluster),
warp groups 1 and 2 are consumers that wait on the stage's full barrier, run `wgmma` on the
stage and release it through `cutlass.pipeline.PipelineTmaAsync` (an mbarrier ring of full and
empty barriers, empty arrives sent to every CTA that multicast into the stage). The epilogue
writes the accumulators to a shared tile with `stmatrix`, fences the async proxy, syncs the
consumers on a named barrier and stores the tile with TMA, as the DSL's Hopper examples do.
"""
import math

import cutlass
import cutlass.cute as cute
import cutlass.pipeline as pipeline
import cutlass.utils as utils
import cutlass.utils.hopper_helpers as sm90_utils
from cutlass.pipeline import pipeline_init_arrive, pipeline_init_wait


class HopperWarpSpecializedGemm:
    def __init__(self, tile_mn=(128, 128), cluster_mn=(1, 1), stages=4):
        self.tile_mn = tile_mn
        self.cluster_mn = cluster_mn
        self.stages = stages
        self.acc_dtype = cutlass.Float32
        self.consumer_groups = 2          # two consumer warp groups, 64 rows of the tile each
        self.threads = 128 * (1 + self.consumer_groups)
        self.epi_barrier_id = 1           # named barrier of the consumer warp groups

    def _setup(self, a, b, c):
        self.a_dtype, self.b_dtype, self.c_dtype = a.element_type, b.element_type, c.element_type
        self.a_layout = utils.LayoutEnum.from_tensor(a)
        self.b_layout = utils.LayoutEnum.from_tensor(b)
        self.c_layout = utils.LayoutEnum.from_tensor(c)
        self.tiled_mma = sm90_utils.make_trivial_tiled_mma(
            self.a_dtype, self.b_dtype, self.a_layout.sm90_mma_major_mode(),
            self.b_layout.sm90_mma_major_mode(), self.acc_dtype, (self.consumer_groups, 1, 1),
            tiler_mn=(64, self.tile_mn[1]))
        k = cute.size(self.tiled_mma.shape_mnk, mode=[2]) * 4
        self.tile_mnk = (*self.tile_mn, k)
        self.epi_tile = sm90_utils.compute_tile_shape_or_override(self.tile_mnk, self.c_dtype,
                                                                  is_cooperative=True)
        self.a_smem = sm90_utils.make_smem_layout_a(self.a_layout, self.tile_mnk, self.a_dtype, self.stages)
        self.b_smem = sm90_utils.make_smem_layout_b(self.b_layout, self.tile_mnk, self.b_dtype, self.stages)
        self.epi_smem = sm90_utils.make_smem_layout_epi(self.c_dtype, self.c_layout, self.epi_tile, 2)
        self.cta_layout_mnk = cute.make_layout((*self.cluster_mn, 1))

    @cute.jit
    def __call__(self, a: cute.Tensor, b: cute.Tensor, c: cute.Tensor):
        self._setup(a, b, c)
        load_op_a = (cute.nvgpu.cpasync.CopyBulkTensorTileG2SMulticastOp() if self.cluster_mn[1] > 1
                     else cute.nvgpu.cpasync.CopyBulkTensorTileG2SOp())
        load_op_b = (cute.nvgpu.cpasync.CopyBulkTensorTileG2SMulticastOp() if self.cluster_mn[0] > 1
                     else cute.nvgpu.cpasync.CopyBulkTensorTileG2SOp())
        tma_a, tma_tensor_a = cute.nvgpu.cpasync.make_tiled_tma_atom(
            load_op_a, a, cute.slice_(self.a_smem, (None, None, 0)), (self.tile_mnk[0], self.tile_mnk[2]),
            num_multicast=self.cluster_mn[1])
        tma_b, tma_tensor_b = cute.nvgpu.cpasync.make_tiled_tma_atom(
            load_op_b, b, cute.slice_(self.b_smem, (None, None, 0)), (self.tile_mnk[1], self.tile_mnk[2]),
            num_multicast=self.cluster_mn[0])
        tma_c, tma_tensor_c = cute.nvgpu.cpasync.make_tiled_tma_atom(
            cute.nvgpu.cpasync.CopyBulkTensorTileS2GOp(), c, cute.slice_(self.epi_smem, (None, None, 0)),
            self.epi_tile)

        @cute.struct
        class SharedStorage:
            ring: cute.struct.MemRange[cutlass.Int64, self.stages * 2]
            sA: cute.struct.Align[cute.struct.MemRange[self.a_dtype, cute.cosize(self.a_smem)], 1024]
            sB: cute.struct.Align[cute.struct.MemRange[self.b_dtype, cute.cosize(self.b_smem)], 1024]
            sC: cute.struct.Align[cute.struct.MemRange[self.c_dtype, cute.cosize(self.epi_smem)], 1024]

        self.shared_storage = SharedStorage
        tiles = cute.ceil_div(cute.get(cute.zipped_divide(c, self.tile_mn).layout, mode=[1]).shape,
                              (*self.cluster_mn, 1))
        grid = tuple(t * s for t, s in zip(tiles, (*self.cluster_mn, 1)))
        self.kernel(tma_a, tma_tensor_a, tma_b, tma_tensor_b, tma_c, tma_tensor_c, self.tiled_mma,
                    self.cta_layout_mnk, self.a_smem, self.b_smem, self.epi_smem).launch(
            grid=grid, block=[self.threads, 1, 1], cluster=(*self.cluster_mn, 1))

    @cute.kernel
    def kernel(self, tma_a: cute.CopyAtom, mA: cute.Tensor, tma_b: cute.CopyAtom, mB: cute.Tensor,
               tma_c: cute.CopyAtom, mC: cute.Tensor, tiled_mma: cute.TiledMma,
               cta_layout_mnk: cute.Layout, a_smem: cute.ComposedLayout, b_smem: cute.ComposedLayout,
               epi_smem: cute.ComposedLayout):
        tidx, _, _ = cute.arch.thread_idx()
        bidx, bidy, bidz = cute.arch.block_idx()
        warp_idx = cute.arch.make_warp_uniform(cute.arch.warp_idx())
        warp_group = cute.arch.make_warp_uniform(tidx // 128)
        if warp_idx == 0:
            cute.nvgpu.cpasync.prefetch_descriptor(tma_a)
            cute.nvgpu.cpasync.prefetch_descriptor(tma_b)

        cta_rank = cute.arch.make_warp_uniform(cute.arch.block_idx_in_cluster())
        cluster_coord = cta_layout_mnk.get_flat_coord(cta_rank)
        a_mcast_mask = cute.make_layout_image_mask(cta_layout_mnk, cluster_coord, mode=1)
        b_mcast_mask = cute.make_layout_image_mask(cta_layout_mnk, cluster_coord, mode=0)
        a_mcast_mask = a_mcast_mask if self.cluster_mn[1] > 1 else 0
        b_mcast_mask = b_mcast_mask if self.cluster_mn[0] > 1 else 0
        tx_bytes = (cute.size_in_bytes(self.a_dtype, cute.slice_(a_smem, (None, None, 0)))
                    + cute.size_in_bytes(self.b_dtype, cute.slice_(b_smem, (None, None, 0))))

        storage = cutlass.utils.SmemAllocator().allocate(self.shared_storage)
        ring = pipeline.PipelineTmaAsync.create(
            barrier_storage=storage.ring.data_ptr(), num_stages=self.stages,
            producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
            consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, 128 * self.consumer_groups),
            tx_count=tx_bytes, cta_layout_vmnk=cute.make_layout((1, *cta_layout_mnk.shape)),
            tidx=tidx % 128, enable_multicast_signaling=True, defer_sync=True)
        pipeline_init_arrive(cluster_shape_mn=self.cluster_mn, is_relaxed=True)

        sA = storage.sA.get_tensor(a_smem.outer, swizzle=a_smem.inner)
        sB = storage.sB.get_tensor(b_smem.outer, swizzle=b_smem.inner)
        sC = storage.sC.get_tensor(epi_smem.outer, swizzle=epi_smem.inner)
        tile_coord = (bidx, bidy, None, bidz)
        gA = cute.local_tile(mA, self.tile_mnk, tile_coord, proj=(1, None, 1))
        gB = cute.local_tile(mB, self.tile_mnk, tile_coord, proj=(None, 1, 1))
        gC = cute.local_tile(mC, self.tile_mnk, tile_coord, proj=(1, 1, None))
        k_tiles = cute.size(gA, mode=[2])
        pipeline_init_wait(cluster_shape_mn=self.cluster_mn)

        if warp_group == 0:
            # Producer warp group: one warp loads A and B stage by stage.
            cute.arch.setmaxregister_decrease(40)
            if warp_idx == 0:
                tAsA, tAgA = cute.nvgpu.cpasync.tma_partition(
                    tma_a, cluster_coord[1], cute.make_layout(cute.slice_(cta_layout_mnk, (0, None, 0)).shape),
                    cute.group_modes(sA, 0, 2), cute.group_modes(gA, 0, 2))
                tBsB, tBgB = cute.nvgpu.cpasync.tma_partition(
                    tma_b, cluster_coord[0], cute.make_layout(cute.slice_(cta_layout_mnk, (None, 0, 0)).shape),
                    cute.group_modes(sB, 0, 2), cute.group_modes(gB, 0, 2))
                state = pipeline.make_pipeline_state(pipeline.PipelineUserType.Producer, self.stages)
                for k in cutlass.range(k_tiles, unroll=1):
                    ring.producer_acquire(state)
                    cute.copy(tma_a, tAgA[(None, state.count)], tAsA[(None, state.index)],
                              tma_bar_ptr=ring.producer_get_barrier(state), mcast_mask=a_mcast_mask)
                    cute.copy(tma_b, tBgB[(None, state.count)], tBsB[(None, state.index)],
                              tma_bar_ptr=ring.producer_get_barrier(state), mcast_mask=b_mcast_mask)
                    ring.producer_commit(state)
                    state.advance()
                ring.producer_tail(state)
        else:
            # Consumer warp groups: wgmma on each stage, then give the stage back.
            cute.arch.setmaxregister_increase(232)
            consumer_tidx = tidx - 128
            thr_mma = tiled_mma.get_slice(consumer_tidx)
            tCsA = thr_mma.partition_A(sA)
            tCsB = thr_mma.partition_B(sB)
            tCrA = tiled_mma.make_fragment_A(tCsA)
            tCrB = tiled_mma.make_fragment_B(tCsB)
            acc = cute.make_rmem_tensor(thr_mma.partition_C(gC).shape, self.acc_dtype)
            read = pipeline.make_pipeline_state(pipeline.PipelineUserType.Consumer, self.stages)
            release = pipeline.make_pipeline_state(pipeline.PipelineUserType.Consumer, self.stages)
            tiled_mma.set(cute.nvgpu.warpgroup.Field.ACCUMULATE, False)
            k_blocks = cute.size(tCrA, mode=[2])
            for k in cutlass.range(k_tiles, unroll=1):
                ring.consumer_wait(read)
                cute.nvgpu.warpgroup.fence()
                for kb in cutlass.range(k_blocks, unroll_full=True):
                    coord = (None, None, kb, read.index)
                    cute.gemm(tiled_mma, acc, tCrA[coord], tCrB[coord], acc)
                    tiled_mma.set(cute.nvgpu.warpgroup.Field.ACCUMULATE, True)
                cute.nvgpu.warpgroup.commit_group()
                cute.nvgpu.warpgroup.wait_group(1)
                if k > 0:
                    ring.consumer_release(release)
                    release.advance()
                read.advance()
            cute.nvgpu.warpgroup.wait_group(0)
            if k_tiles > 0:
                ring.consumer_release(release)

            # Epilogue: registers -> shared (stmatrix) -> global (TMA store).
            copy_r2s = cute.make_tiled_copy_S(
                sm90_utils.sm90_get_smem_store_op(self.c_layout, elem_ty_d=self.c_dtype,
                                                  elem_ty_acc=self.acc_dtype),
                cute.make_tiled_copy_C_atom(cute.make_copy_atom(
                    cute.nvgpu.warp.StMatrix8x8x16bOp(self.c_layout.is_m_major_c(), 4), self.c_dtype),
                    tiled_mma))
            thr_r2s = copy_r2s.get_slice(consumer_tidx)
            tRS_sC = thr_r2s.partition_D(sC)
            tRS_acc = copy_r2s.retile(acc)
            rC_layout = cute.make_layout(cute.shape(thr_r2s.partition_S(sC))[:3])
            rC = cute.make_rmem_tensor_like(rC_layout, self.acc_dtype)
            gC_epi = cute.zipped_divide(gC, self.epi_tile)
            sC_tma, gC_tma = cute.nvgpu.cpasync.tma_partition(
                tma_c, 0, cute.make_layout(1), cute.group_modes(sC, 0, 2), gC_epi)
            epi_tiles = cute.size(gC_epi, mode=[1])
            epi_layout = cute.make_layout(gC_epi.shape[1], stride=(gC_epi.shape[1][1], 1))
            store_ring = pipeline.PipelineTmaStore.create(
                num_stages=2, producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread,
                                                                       128 * self.consumer_groups))
            for e in cutlass.range_constexpr(epi_tiles):
                for v in cutlass.range_constexpr(cute.size(rC)):
                    rC[v] = tRS_acc[e * cute.size(rC) + v]
                out = cute.make_rmem_tensor_like(rC_layout, self.c_dtype)
                out.store(rC.load().to(self.c_dtype))
                buffer = e % 2
                cute.copy(copy_r2s, out, tRS_sC[(None, None, None, buffer)])
                cute.arch.fence_proxy("async.shared", space="cta")
                cute.arch.barrier(barrier_id=self.epi_barrier_id, number_of_threads=128 * self.consumer_groups)
                if warp_idx == 4:
                    cute.copy(tma_c, sC_tma[(None, buffer)], gC_tma[(None, epi_layout.get_hier_coord(e))])
                    store_ring.producer_commit()
                    store_ring.producer_acquire()
                cute.arch.barrier(barrier_id=self.epi_barrier_id, number_of_threads=128 * self.consumer_groups)
            if warp_idx == 4:
                store_ring.producer_tail()
