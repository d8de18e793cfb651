// RUN: %fenceline check --verify --arch sm_90a %s
// The epilogue helpers: every thread writes a staging buffer with ordinary stores, then
// store_publish() (a fence.proxy.async in every writer, then __syncthreads) and one thread
// stores the buffer with a bulk or tensor copy; the buffer is reused after store_reclaim().
// fenceline check must find nothing (no expectations).
#include "../../include/fenceline/tma_store.cuh"

using namespace fenceline;

__global__ void epilogue_bulk(const float* in, float* out, int tiles) {
  __shared__ alignas(128) float staging[1024];
  const bool issuer = threadIdx.x == 0;
  for (int t = 0; t < tiles; ++t) {
    for (int k = threadIdx.x; k < 1024; k += blockDim.x) staging[k] = in[t * 1024 + k] * 2.0f;
    store_publish();
    if (issuer) store_bulk(out + t * 1024, staging, sizeof staging);
    store_reclaim(issuer);
  }
  if (issuer) store_drain();
}

__global__ void epilogue_tensor(const __grid_constant__ CUtensorMap map, const float* in, int tiles) {
  __shared__ alignas(128) float staging[4][256];
  const bool issuer = threadIdx.x == 0;
  for (int t = 0; t < tiles; ++t) {
    for (int k = threadIdx.x; k < 1024; k += blockDim.x) staging[k / 256][k % 256] = in[t * 1024 + k] + 1.0f;
    store_publish();
    if (issuer) store_tensor_2d(&map, 0, t * 4, staging);
    store_reclaim(issuer);
  }
  if (issuer) store_drain();
}
