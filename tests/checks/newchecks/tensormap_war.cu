// tensormap-war: a tensor map in global memory rewritten (tensormap.replace,
// tensormap.cp_fenceproxy) while bulk tensor copies issued through it may
// still read it. A copy reads its map asynchronously; the issuing thread knows
// it is done only after the copy's completion: its mbarrier phase, or its bulk
// group (cp.async.bulk.wait_group.read). Each broken kernel has a fixed twin
// that drains first; the strict-tier kernel rewrites after a wait on another
// barrier only (which may complete the copy through its consumers, or not).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cuda/ptx>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity) {
  while (!cuda::ptx::mbarrier_try_wait_parity(bar, parity)) {
  }
}
__device__ __forceinline__ void replace_address(void* map, uint64_t address) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" ::"l"(map), "l"(address)
               : "memory");
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
}
__device__ __forceinline__ void load_tile(uint32_t dst, const void* map, int x, int y, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      ::"r"(dst), "l"(map), "r"(x), "r"(y), "r"(bar)
      : "memory");
}

struct Ring {
  alignas(128) float stage[2][256];
  alignas(8) uint64_t full[2], empty[2];
};

__device__ __forceinline__ void init_ring(Ring& r) {
  if (threadIdx.x == 0) {
    for (int s = 0; s < 2; ++s) {
      cuda::ptx::mbarrier_init(&r.full[s], 1);
      cuda::ptx::mbarrier_init(&r.empty[s], 1);
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
}

// The consumer warp: waits for each stage, reads it, fences, hands it back.
__device__ __forceinline__ void consume(Ring& r, float* out, int tiles) {
  const int lane = threadIdx.x % 32;
  float acc = 0.f;
  for (int k = 0; k < tiles; ++k) {
    const int s = k & 1;
    wait_parity(&r.full[s], (k >> 1) & 1);
    for (int j = 0; j < 8; ++j) acc += r.stage[s][j * 32 + lane];
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncwarp();
    if (lane == 0) (void)cuda::ptx::mbarrier_arrive(&r.empty[s]);
  }
  out[blockIdx.x * 32 + lane] = acc;
}

// 1. Inline asm: the producer rewrites the map's address when the tile's group
//    changes, at the top of the iteration, with the last two loads in flight.
template <bool kDrain>
__device__ __forceinline__ void grouped_asm(void* map, const uint64_t* bases, const int* group_of, float* out,
                                            int tiles) {
  __shared__ Ring r;
  init_ring(r);
  if (threadIdx.x == 0) {
    for (int k = 0; k < tiles; ++k) {
      const int s = k & 1;
      if (k > 0 && group_of[k] != group_of[k - 1]) {
        if (kDrain)
          for (int j = k - 2 > 0 ? k - 2 : 0; j < k; ++j) wait_parity(&r.full[j & 1], (j >> 1) & 1);
        replace_address(map, bases[group_of[k]]);  // expect: tensormap-war
        asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(map) : "memory");
      }
      if (k >= 2) wait_parity(&r.empty[s], ((k >> 1) - 1) & 1);
      (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                 cuda::ptx::space_shared, &r.full[s], 1024);
      load_tile(smem(r.stage[s]), map, 0, k, smem(&r.full[s]));
    }
  } else if (threadIdx.x >= 32 && threadIdx.x < 64) {
    consume(r, out, tiles);
  }
}
__global__ void grouped_asm_rewrites_in_flight(void* map, const uint64_t* bases, const int* group_of, float* out,
                                               int tiles) {
  grouped_asm<false>(map, bases, group_of, out, tiles);
}
__global__ void grouped_asm_drains_first(void* map, const uint64_t* bases, const int* group_of, float* out,
                                         int tiles) {
  grouped_asm<true>(map, bases, group_of, out, tiles);
}

// 2. libcu++ helpers, CUTLASS's form of the update: the map is edited in a
//    shared-memory copy and published with tensormap.cp_fenceproxy into the
//    global map the loads use. The fixed twin waits on the full barrier of the
//    last stage issued (CUTLASS waits on it with a consumer pipeline state
//    before its descriptor update; the loads of one thread through one map
//    complete their barriers in that order here: the earlier stage's consumer
//    wait came first).
template <bool kDrain>
__device__ __forceinline__ void grouped_cp_fenceproxy(void* map, const uint64_t* bases, const int* group_of,
                                                      float* out, int tiles) {
  __shared__ Ring r;
  __shared__ alignas(128) uint8_t edit[128];
  init_ring(r);
  if (threadIdx.x < 32) {
    for (int k = 0; k < tiles; ++k) {
      const int s = k & 1;
      if (k > 0 && group_of[k] != group_of[k - 1]) {
        if (kDrain) wait_parity(&r.full[(k - 1) & 1], ((k - 1) >> 1) & 1);
        if (threadIdx.x == 0) cuda::ptx::tensormap_replace_global_address(cuda::ptx::space_shared, edit, bases[group_of[k]]);
        __syncwarp();
        const uint32_t from = smem(edit);
        asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;" ::"l"(map), "r"(from) : "memory");  // expect: tensormap-war
      }
      if (threadIdx.x == 0) {
        if (k >= 2) wait_parity(&r.empty[s], ((k >> 1) - 1) & 1);
        (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                   cuda::ptx::space_shared, &r.full[s], 1024);
        const int32_t coords[2] = {0, k};
        cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, r.stage[s], map, coords,
                                        &r.full[s]);
      }
      __syncwarp();
    }
  } else if (threadIdx.x < 64) {
    consume(r, out, tiles);
  }
}
__global__ void cp_fenceproxy_rewrites_in_flight(void* map, const uint64_t* bases, const int* group_of, float* out,
                                                 int tiles) {
  grouped_cp_fenceproxy<false>(map, bases, group_of, out, tiles);
}
__global__ void cp_fenceproxy_after_last_stage(void* map, const uint64_t* bases, const int* group_of, float* out,
                                               int tiles) {
  grouped_cp_fenceproxy<true>(map, bases, group_of, out, tiles);
}

// 3. Tensor stores (bulk groups) through a map that is then pointed at the
//    next output: the stores read the map after issue too. Fixed: wait_group.read 0.
// A loop of rounds that waits (wait_group.read 0) before each retarget: silent.
__global__ void store_rounds_waited(void* map, const uint64_t* outputs, const float* in, int rounds) {
  __shared__ alignas(128) float tile[256];
  for (int round = 0; round < rounds; ++round) {
    for (int j = threadIdx.x; j < 256; j += blockDim.x) tile[j] = in[round * 256 + j];
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();
    if (threadIdx.x == 0) {
      asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];" ::"l"(map), "r"(0),
                   "r"(smem(tile))
                   : "memory");
      cuda::ptx::cp_async_bulk_commit_group();
      cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
      if (round + 1 < rounds) replace_address(map, outputs[round + 1]);
    }
    __syncthreads();
  }
}

template <bool kWait>
__device__ __forceinline__ void store_then_retarget(void* map, const uint64_t* outputs, const float* in) {
  __shared__ alignas(128) float tile[256];
  for (int j = threadIdx.x; j < 256; j += blockDim.x) tile[j] = in[j];
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];" ::"l"(map), "r"(0),
                 "r"(smem(tile))
                 : "memory");
    cuda::ptx::cp_async_bulk_commit_group();
    if (kWait) cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());
    asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" ::"l"(map), "l"(outputs[1]) : "memory");  // expect: tensormap-war
    cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>());  // drained before the CTA exits
  }
}
__global__ void store_retargets_in_flight(void* map, const uint64_t* outputs, const float* in) {
  store_then_retarget<false>(map, outputs, in);
}
__global__ void store_retargets_after_wait_group_read(void* map, const uint64_t* outputs, const float* in) {
  store_then_retarget<true>(map, outputs, in);
}

// 4. A noinline helper does the update (fenceline inlines it).
__device__ __noinline__ void update_map(void* map, uint64_t address) {
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" ::"l"(map), "l"(address) : "memory");
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
}
__device__ __noinline__ void drain_then_update_map(void* map, uint64_t address, uint64_t* bar, uint32_t parity) {
  wait_parity(bar, parity);
  asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;" ::"l"(map), "l"(address)
               : "memory");
  asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
}
__global__ void noinline_update_in_flight(void* map, const uint64_t* bases, float* out, int tiles) {
  __shared__ alignas(128) float stage[256];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&full, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  float acc = 0.f;
  for (int k = 0; k < tiles; ++k) {
    if (threadIdx.x == 0) {
      (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                 cuda::ptx::space_shared, &full, 1024);
      load_tile(smem(stage), map, 0, k, smem(&full));
      update_map(map, bases[k + 1]);  // expect: tensormap-war
    }
    wait_parity(&full, k & 1);
    acc += stage[threadIdx.x % 256];
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
__global__ void noinline_update_drained(void* map, const uint64_t* bases, float* out, int tiles) {
  __shared__ alignas(128) float stage[256];
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) {
    cuda::ptx::mbarrier_init(&full, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  float acc = 0.f;
  for (int k = 0; k < tiles; ++k) {
    if (threadIdx.x == 0) {
      (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                 cuda::ptx::space_shared, &full, 1024);
      load_tile(smem(stage), map, 0, k, smem(&full));
      drain_then_update_map(map, bases[k + 1], &full, k & 1);
    }
    wait_parity(&full, k & 1);
    acc += stage[threadIdx.x % 256];
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// 5. Strict tier: the rewrite comes after the producer's wait on the "empty"
//    barrier of the stage it is about to fill. With two stages that wait
//    covers the load two iterations back, not the previous one: a real hazard,
//    but deciding it needs the ring's depth (copy-completion).
__global__ void rewrite_after_empty_wait(void* map, const uint64_t* bases, const int* group_of, float* out,
                                         int tiles) {
  __shared__ Ring r;
  init_ring(r);
  if (threadIdx.x == 0) {
    for (int k = 0; k < tiles; ++k) {
      const int s = k & 1;
      if (k >= 2) wait_parity(&r.empty[s], ((k >> 1) - 1) & 1);
      if (k > 0 && group_of[k] != group_of[k - 1]) replace_address(map, bases[group_of[k]]);  // expect-strict: tensormap-war
      (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                 cuda::ptx::space_shared, &r.full[s], 1024);
      load_tile(smem(r.stage[s]), map, 0, k, smem(&r.full[s]));
    }
  } else if (threadIdx.x >= 32 && threadIdx.x < 64) {
    consume(r, out, tiles);
  }
}
