// Issue 30, shape 4: the data a flag guards is read with a bulk copy or a TMA
// tensor load from global memory, not with ld. The copy is a guarded read all
// the same (the poll needs an acquire before it), and the hand-off crosses
// proxies: the writer's generic stores reach the async proxy only through a
// fence.proxy.async.global (by the writers before their release, or by the
// issuer after its acquire).
// Shapes: a volatile poll then cp.async.bulk (needs both the acquire and the
// proxy fence); an acquire poll then cp.async.bulk (proxy fence only: found
// today); a relaxed cuda::atomic_ref poll then a 2-D TMA tensor load; the
// fixed forms (fence.acq_rel.gpu + fence.proxy.async.global after a relaxed
// poll; the writers' proxy fence before their release).
// An async copy out of global memory is a guarded read (model/Protocol.h,
// isDataRead: its source is the read). A TMA tensor load reads through a
// tensor map whose global address the PTX does not show: its same-bytes link
// is undecided, so proxy-global is strict tier there, and acquire-missing does
// not take it for a guarded read (missed: case 5 has no other global read
// after its poll).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s
#include <cuda.h>
#include <cuda/atomic>

#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void init_full(uint64_t* full) {
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n\tfence.mbarrier_init.release.cluster;" ::"r"(smem(full))
                 : "memory");
  __syncthreads();
}
__device__ __forceinline__ void wait_full(uint64_t* full) {
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n\t@!done bra "
      "WAIT;\n\t}" ::"r"(smem(full))
      : "memory");
}
__device__ __forceinline__ void bulk_load(float* dst, const float* src, uint64_t* full) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" ::"r"(smem(full)) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" ::"r"(smem(dst)), "l"(src), "r"(smem(full)) : "memory");
}
__device__ __forceinline__ void produce(float* buf, unsigned* flag) {
  buf[threadIdx.x] = float(threadIdx.x) + 0.5f;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    *(volatile unsigned*)flag = 1;
  }
}

// 1. Volatile poll, no fence at all: the acquire and the proxy fence are both
// missing; the bulk copy is the guarded read.
// 2. The same with fence.acq_rel.gpu + fence.proxy.async.global after the
// poll: fixed.
template <bool kFences>
__device__ __forceinline__ void volatile_poll(float* buf, unsigned* flag, float* out) {
  __shared__ alignas(128) float tile[256];
  __shared__ alignas(8) uint64_t full;
  init_full(&full);
  if (blockIdx.x == 0) {
    produce(buf, flag);
  } else if (blockIdx.x == 1) {
    if (threadIdx.x == 0) {
      while (*(volatile unsigned*)flag == 0) {  // expect: acquire-missing
      }
      if (kFences) asm volatile("fence.acq_rel.gpu;\n\tfence.proxy.async.global;" ::: "memory");
      bulk_load(tile, buf, &full);  // expect: proxy-global
    }
    wait_full(&full);
    out[threadIdx.x] = tile[threadIdx.x];
  }
}
__global__ void volatile_poll_then_bulk_load(float* buf, unsigned* flag, float* out) { volatile_poll<false>(buf, flag, out); }
__global__ void volatile_poll_fences_then_bulk_load(float* buf, unsigned* flag, float* out) {
  volatile_poll<true>(buf, flag, out);
}

// 3. Acquire poll, then the bulk copy with no proxy fence (found today), and
// 4. the writers fence the global proxy before their release (fixed).
template <bool kWriterProxyFence>
__device__ __forceinline__ void acquire_poll(float* buf, unsigned* flag, float* out) {
  __shared__ alignas(128) float tile[256];
  __shared__ alignas(8) uint64_t full;
  init_full(&full);
  if (blockIdx.x == 0) {
    buf[threadIdx.x] = float(threadIdx.x) * 4.0f;
    if (kWriterProxyFence) asm volatile("fence.proxy.async.global;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*flag).store(1, cuda::memory_order_release);
  } else if (blockIdx.x == 1) {
    if (threadIdx.x == 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
      while (f.load(cuda::memory_order_acquire) == 0) {
      }
      bulk_load(tile, buf, &full);  // expect: proxy-global
    }
    wait_full(&full);
    out[threadIdx.x] = tile[threadIdx.x];
  }
}
__global__ void acquire_poll_then_bulk_load(float* buf, unsigned* flag, float* out) { acquire_poll<false>(buf, flag, out); }
__global__ void writers_proxy_fence_then_release(float* buf, unsigned* flag, float* out) {
  acquire_poll<true>(buf, flag, out);
}

// 5. A relaxed atomic_ref poll, then a 2-D TMA tensor load of the tile the
// other block wrote (through the tensor map), and 6. the fixed form.
template <bool kFences>
__device__ __forceinline__ void tensor_load(const CUtensorMap* map, float* buf, unsigned* flag,
                                            float* out) {
  __shared__ alignas(128) float tile[16 * 16];
  __shared__ alignas(8) uint64_t full;
  init_full(&full);
  if (blockIdx.x == 0) {
    produce(buf, flag);
  } else if (blockIdx.x == 1) {
    if (threadIdx.x == 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(*flag);
      while (f.load(cuda::memory_order_relaxed) == 0) {  // missed: the tensor load is not a decided guarded read
      }
      if (kFences) asm volatile("fence.acq_rel.gpu;\n\tfence.proxy.async.global;" ::: "memory");
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 1024;" ::"r"(smem(&full)) : "memory");
      asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(smem(tile)), "l"(map), "r"(0), "r"(0), "r"(smem(&full)) : "memory");  // expect-strict: proxy-global
    }
    wait_full(&full);
    out[threadIdx.x] = tile[threadIdx.x];
  }
}
__global__ void relaxed_poll_then_tensor_load(const __grid_constant__ CUtensorMap map, float* buf, unsigned* flag,
                                              float* out) {
  tensor_load<false>(&map, buf, flag, out);
}
__global__ void relaxed_poll_fences_then_tensor_load(const __grid_constant__ CUtensorMap map, float* buf,
                                                     unsigned* flag, float* out) {
  tensor_load<true>(&map, buf, flag, out);
}
