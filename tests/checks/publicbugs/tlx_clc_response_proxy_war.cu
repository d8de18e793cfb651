// Shape 8 (other async units: a cluster launch control response), Meta's
// Triton fork (TLX): https://github.com/facebookexperimental/triton/pull/1723
// (closed; the fork lands changes through its own review). "CLC try_cancel is
// running in async proxy but 'query result' is in fact decoding an object in
// reg loaded from SMEM by ld.shared. If we miss a fence here, try_cancel of
// next loop iteration could overwrite the SMEM buffer before current
// iteration's ld.shared finishes loading the results." The PR follows
// CUTLASS's tile scheduler: one fence.proxy.async.shared::cta right after
// each query. Our kernel (sm_100a): a persistent loop; thread 0 issues
// clusterlaunchcontrol.try_cancel into a 16-byte response completing on an
// mbarrier; every thread waits, loads the response with ld.shared and
// queries it; a __syncthreads() ends the trip; broken without the proxy
// fence, fixed with it (every reader, after its query).
// proxy-war reports at the hand-off (docs/checks/proxy-war.md): the
// __syncthreads() that passes the readers' ld.shared to thread 0's next
// try_cancel, which is an async-proxy write of the response
// (model/MemoryEffect.cpp).
// RUN: %fenceline check --arch sm_100a --verify %s
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }

template <bool kFence>
__device__ __forceinline__ void persistent_tiles(float* out) {
  __shared__ alignas(16) uint4 response;
  __shared__ alignas(8) uint64_t resp_full;
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n\tfence.mbarrier_init.release.cluster;" ::"r"(
                     smem(&resp_full))
                 : "memory");
  __syncthreads();
  uint32_t tile = blockIdx.x;
  for (uint32_t trip = 0;; ++trip) {
    out[tile * blockDim.x + threadIdx.x] = float(tile);
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16;" ::"r"(smem(&resp_full)) : "memory");
      asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];" ::"r"(smem(&response)), "r"(smem(&resp_full)) : "memory");
    }
    asm volatile(
        "{\n\t.reg .pred done;\n\tWAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t@!done bra "
        "WAIT;\n\t}" ::"r"(smem(&resp_full)),
        "r"(trip & 1)
        : "memory");
    uint32_t canceled, next;
    asm volatile(
        "{\n\t.reg .b128 r;\n\t.reg .pred p;\n\tld.shared.b128 r, [%2];\n\t"
        "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, r;\n\tselp.u32 %0, 1, 0, p;\n\t"
        "@p clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %1, r;\n\t}"
        : "=r"(canceled), "=r"(next)
        : "r"(smem(&response))
        : "memory");
    if (kFence) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();  // expect: proxy-war
    if (!canceled) break;
    tile = next;
  }
}

__global__ void clc_query_without_proxy_fence(float* out) { persistent_tiles<false>(out); }
__global__ void clc_query_then_proxy_fence(float* out) { persistent_tiles<true>(out); }
