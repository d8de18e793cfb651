"""Triton kernels of the real-code corpus whose tensor descriptors are made on the device.

Written the way Triton's grouped-GEMM tutorial (08-grouped-gemm) writes its TMA variant: each
program reads a group's pointers and sizes from global tables and calls
`tl.make_tensor_descriptor` in the kernel, so Triton builds the TMA descriptors itself (in a
global scratch buffer that the launcher allocates with `triton.set_allocator`) and must publish
them to the tensor-map proxy before its TMA loads use them. Persistent over the tiles of all
groups; the K loop multi-stage pipelined.
"""
import triton
import triton.language as tl


@triton.jit
def grouped_matmul_device_desc(group_a_ptrs, group_b_ptrs, group_c_ptrs, group_gemm_sizes,
                               g_lds, group_size, NUM_SMS: tl.constexpr, BM: tl.constexpr,
                               BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr):
    """C_g = A_g @ B_g^T for every group g, tiles of all groups shared out over NUM_SMS programs."""
    tile_idx = tl.program_id(0)
    last_problem_end = 0
    for g in range(group_size):
        gm = tl.load(group_gemm_sizes + g * 3)
        gn = tl.load(group_gemm_sizes + g * 3 + 1)
        gk = tl.load(group_gemm_sizes + g * 3 + 2)
        num_m_tiles = tl.cdiv(gm, BM)
        num_n_tiles = tl.cdiv(gn, BN)
        num_tiles = num_m_tiles * num_n_tiles
        if tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles:
            lda = tl.load(g_lds + g * 3)
            ldb = tl.load(g_lds + g * 3 + 1)
            ldc = tl.load(g_lds + g * 3 + 2)
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
            a_desc = tl.make_tensor_descriptor(a_ptr, shape=[gm, gk], strides=[lda, 1],
                                               block_shape=[BM, BK])
            b_desc = tl.make_tensor_descriptor(b_ptr, shape=[gn, gk], strides=[ldb, 1],
                                               block_shape=[BN, BK])
            c_desc = tl.make_tensor_descriptor(c_ptr, shape=[gm, gn], strides=[ldc, 1],
                                               block_shape=[BM, BN])
            while tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles:
                tile = tile_idx - last_problem_end
                om = (tile // num_n_tiles) * BM
                on = (tile % num_n_tiles) * BN
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for kk in tl.range(tl.cdiv(gk, BK), num_stages=STAGES):
                    a = a_desc.load([om, kk * BK])
                    b = b_desc.load([on, kk * BK])
                    acc = tl.dot(a, b.T, acc)
                c_desc.store([om, on], acc.to(tl.float16))
                tile_idx += NUM_SMS
        last_problem_end = last_problem_end + num_tiles
