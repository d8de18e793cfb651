// RUN: %fenceline check --verify --arch sm_90a %s
// scope-too-narrow within one GPU: a block-scope release or acquire on a flag
// in global memory that other blocks use, and a remote mbarrier arrive to
// another CTA of the cluster without .release.cluster.
#include <cuda/atomic>

// Broken: __threadfence_block() (fence.acq_rel.cta) before a flag that
// another block polls.
__global__ void cta_fence_toward_other_block(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 1.0f;
    __threadfence_block();  // expect: scope-too-narrow
    if (threadIdx.x == 0) *(volatile unsigned*)flag = 1;  // expect: release-missing
  } else {
    if (threadIdx.x == 0) {
      while (*(volatile unsigned*)flag == 0) {
      }
      __threadfence();
    }
    __syncthreads();
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Broken: a block-scope atomic_ref release store toward other blocks.
__global__ void cta_release_store(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_block> f(*flag);
      f.store(1, cuda::memory_order_release);  // expect: scope-too-narrow
    }
  } else {
    if (threadIdx.x == 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
      while (f.load(cuda::memory_order_acquire) == 0) {
      }
    }
    __syncthreads();
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Broken: the consumer acquires at block scope after a device-scope release.
__global__ void cta_acquire_load(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
      f.store(1, cuda::memory_order_release);
    }
  } else {
    if (threadIdx.x == 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_block> f(*flag);
      while (f.load(cuda::memory_order_acquire) == 0) {  // expect: scope-too-narrow
      }
    }
    __syncthreads();
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Clean: the same hand-off at device scope on both sides.
__global__ void device_scope_handoff(unsigned* flag, float* data, float* out) {
  if (blockIdx.x == 0) {
    data[threadIdx.x] = 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
      f.store(1, cuda::memory_order_release);
    }
  } else {
    if (threadIdx.x == 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
      while (f.load(cuda::memory_order_acquire) == 0) {
      }
    }
    __syncthreads();
    out[threadIdx.x] = data[threadIdx.x];
  }
}

// Remote arrive on an mbarrier of CTA 0 of the cluster, from every other CTA.
__device__ __forceinline__ unsigned map_to_rank0(const void* local) {
  unsigned address = (unsigned)__cvta_generic_to_shared(local), remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(address));
  return remote;
}

// Broken: mbarrier.arrive.shared::cluster with the default (.release.cta) semantics.
__global__ void __cluster_dims__(2, 1, 1) remote_arrive_default_scope(float* out) {
  __shared__ __align__(8) unsigned long long bar;
  __shared__ float tile[128];
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (rank == 0 && threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(&bar)), "r"(1));
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
  if (rank == 1 && threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(map_to_rank0(&bar)) : "memory");  // expect: scope-too-narrow
  }
  if (rank == 0) {
    asm volatile(
        "{\n\t.reg .pred done;\n\tWAIT:\n\t"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], 0;\n\t"
        "@!done bra WAIT;\n\t}" ::"r"((unsigned)__cvta_generic_to_shared(&bar)) : "memory");
    tile[threadIdx.x] = 1.0f;
    out[threadIdx.x] = tile[threadIdx.x];
  }
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

// Clean: mbarrier.arrive.release.cluster.shared::cluster.
__global__ void __cluster_dims__(2, 1, 1) remote_arrive_cluster_scope(float* out) {
  __shared__ __align__(8) unsigned long long bar;
  __shared__ float tile[128];
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (rank == 0 && threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(&bar)), "r"(1));
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
  if (rank == 1 && threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(map_to_rank0(&bar)) : "memory");
  }
  if (rank == 0) {
    asm volatile(
        "{\n\t.reg .pred done;\n\tWAIT:\n\t"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 done, [%0], 0;\n\t"
        "@!done bra WAIT;\n\t}" ::"r"((unsigned)__cvta_generic_to_shared(&bar)) : "memory");
    tile[threadIdx.x] = 1.0f;
    out[threadIdx.x] = tile[threadIdx.x];
  }
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}
