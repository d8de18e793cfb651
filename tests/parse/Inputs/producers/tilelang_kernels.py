# TileLang kernels whose CUDA source (tests/parse/Inputs/producers/tilelang_*.cu) and
# PTX (tests/parse/Inputs/tilelang, by our nvcc) join the parse corpus.
# Written for fenceline; lowered with no GPU by generate.py.
import tilelang
import tilelang.language as T


def gemm(M, N, K, block_M, block_N, block_K, stages, dtype="float16", accum_dtype="float"):
    # A pipelined GEMM: on sm_90 TileLang copies tiles with TMA and mbarriers.
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def gemm_tma_store(M, N, K, block_M, block_N, block_K, stages, dtype="float16", accum_dtype="float"):
    # The epilogue goes through shared memory: TileLang stores the tile with
    # TMA (cp.async.bulk.tensor ... bulk_group, cp.async.bulk.commit_group).
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_shared = T.alloc_shared((block_M, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return main


def lower_all():
    # No GPU to ask: the target names the architecture (TVM's JSON form).
    target = tilelang.tvm.target.Target({"kind": "cuda", "arch": "sm_90a"})
    kernels = [("gemm", gemm(512, 512, 512, 128, 128, 32, 3)),
               ("gemm_tma_store", gemm_tma_store(512, 512, 512, 128, 128, 32, 3))]
    for name, func in kernels:
        with target:
            artifact = tilelang.lower(func, target=target)
        yield name, artifact.kernel_source
