// Driver (our own): NVSHMEM's device-side communication API from the pip wheel
// nvidia-nvshmem-cu13 (include/nvshmem.h, nvshmemx.h): put-with-signal, signal
// wait_until, wait_until on an int flag, p + fence + p (a flag after data),
// quiet, and the device barriers (barrier_all, sync_all, block-scoped
// variants). Each kernel is the smallest use a collective or MoE dispatch
// kernel makes of one routine. Built with -rdc=true (the device state is an
// extern __device__ symbol) and -I <nvshmem>/include.
#include <nvshmem.h>
#include <nvshmemx.h>

// Put a block's slice to `peer` with a signal, then wait for the peer's
// signal on our own copy and read what it put.
__global__ void put_signal_then_wait(float* recv, const float* send, uint64_t* sig, float* out, size_t n,
                                     int peer) {
  nvshmemx_float_put_signal_nbi_block(recv, send, n, sig, 1, NVSHMEM_SIGNAL_SET, peer);
  if (threadIdx.x == 0) nvshmem_signal_wait_until(sig, NVSHMEM_CMP_EQ, 1);
  __syncthreads();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = recv[i];
}

// Data with nvshmem_float_p, nvshmem_fence, then the flag with nvshmem_int_p;
// the receiver waits with nvshmem_int_wait_until and reads the data.
__global__ void p_fence_p_flag(float* data, int* flag, float* out, int peer) {
  if (threadIdx.x == 0) {
    nvshmem_float_p(data + blockIdx.x, 1.0f, peer);
    nvshmem_fence();
    nvshmem_int_p(flag + blockIdx.x, 1, peer);
    nvshmem_int_wait_until(flag + blockIdx.x, NVSHMEM_CMP_EQ, 1);
    out[blockIdx.x] = data[blockIdx.x];
  }
}

// Signal by atomic add (NVSHMEM_SIGNAL_ADD) from every block, after a
// blocking put; wait until every block's signal arrived.
__global__ void put_signal_add_count(float* recv, const float* send, uint64_t* sig, float* out, size_t n,
                                     int peer) {
  nvshmemx_float_put_signal_block(recv + blockIdx.x * n, send + blockIdx.x * n, n, sig, 1, NVSHMEM_SIGNAL_ADD,
                                  peer);
  if (threadIdx.x == 0) nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, gridDim.x);
  __syncthreads();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = recv[blockIdx.x * n + i];
}

// The device barriers: a block-scoped barrier over all PEs between a put and
// the read of what the peers put; sync_all (no quiet) as an execution barrier.
__global__ void barrier_all_after_put(float* recv, const float* send, float* out, size_t n, int peer) {
  nvshmemx_float_put_nbi_block(recv, send, n, peer);
  nvshmemx_barrier_all_block();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = recv[i];
}

__global__ void sync_all_then_put(float* recv, const float* send, size_t n, int peer) {
  nvshmemx_sync_all_block();
  nvshmemx_float_put_nbi_block(recv, send, n, peer);
  nvshmem_quiet();
}

__global__ void barrier_all_thread(float* recv, const float* send, float* out, int peer) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    nvshmem_float_p(recv, send[0], peer);
    nvshmem_barrier_all();
    out[0] = recv[0];
  }
}
