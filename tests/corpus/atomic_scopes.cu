// libcu++ atomics with explicit scopes and orders: cuda::atomic_ref at
// block, device and system scope, cuda::std::atomic_ref, fences, and a flag
// hand-off. Builds for sm_80 and later.
#include <cuda/atomic>
#include <cuda/std/atomic>

extern "C" __global__ void corpus_atomic_scopes(int* counters, int* flag, int* payload) {
  __shared__ int block_counter;
  if (threadIdx.x == 0) block_counter = 0;
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block> local(block_counter);
  local.fetch_add(1, cuda::memory_order_relaxed);
  cuda::atomic_ref<int, cuda::thread_scope_device> device(counters[0]);
  int ticket = device.fetch_add(1, cuda::memory_order_acq_rel);
  cuda::atomic_ref<int, cuda::thread_scope_system> system(counters[1]);
  system.fetch_max(ticket, cuda::memory_order_seq_cst);
  cuda::std::atomic_ref<int> plain(counters[2]);
  int expected = 0;
  plain.compare_exchange_strong(expected, ticket);
  cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_block);

  cuda::atomic_ref<int, cuda::thread_scope_device> ready(*flag);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    payload[0] = 42;
    ready.store(1, cuda::memory_order_release);
  } else if (threadIdx.x == 0) {
    while (ready.load(cuda::memory_order_acquire) == 0) {
    }
    payload[blockIdx.x] = payload[0] + local.load(cuda::memory_order_relaxed);
  }
}
