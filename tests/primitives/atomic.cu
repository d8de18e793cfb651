// RUN: %fenceline check --verify --arch sm_90a %s
// The typed atomics and fences in message-passing shapes at each scope: a release store or
// a release fence before a relaxed flag, an acquire load or a relaxed poll followed by an
// acquire fence, a fetch_add arrival counter with acq_rel. fenceline check must find
// nothing (no expectations).
#include "../../include/fenceline/atomic.cuh"

using namespace fenceline;

__global__ void message_gpu(int* payload, unsigned* flag, int* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    payload[0] = 42;
    atomic_store<Sem::release, Scope::gpu>(flag, 1u);
  } else if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (atomic_load<Sem::acquire, Scope::gpu>(flag) == 0) {
    }
    out[0] = payload[0];
  }
}

__global__ void message_sys_fences(long long* payload, unsigned long long* flag, long long* out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    payload[0] = -7;
    fence<Sem::release, Scope::sys>();
    atomic_store<Sem::relaxed, Scope::sys>(flag, 1ull);
  } else if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (atomic_load<Sem::relaxed, Scope::sys>(flag) == 0) {
    }
    fence<Sem::acquire, Scope::sys>();
    out[0] = payload[0];
  }
}

// The last of `expected` arrivals reads everybody's contribution.
__global__ void last_block_reduces(int* partial, unsigned* arrived, int* total, unsigned expected) {
  __shared__ bool last;
  if (threadIdx.x == 0) partial[blockIdx.x] = static_cast<int>(blockIdx.x) * 2;
  __syncthreads();
  if (threadIdx.x == 0) last = atomic_fetch_add<Sem::acq_rel, Scope::gpu>(arrived, 1u) == expected - 1;
  __syncthreads();
  if (last && threadIdx.x == 0) {
    int sum = 0;
    for (unsigned b = 0; b < expected; ++b) sum += partial[b];
    *total = sum;
  }
}

__global__ void signed_counters(int* counter, int* out) {
  out[threadIdx.x] = atomic_fetch_add<Sem::relaxed, Scope::cta>(counter, -1);
  fence<Sem::sc, Scope::gpu>();
  atomic_add<Sem::relaxed, Scope::cluster>(reinterpret_cast<unsigned*>(counter) + 1, 1u);
}
