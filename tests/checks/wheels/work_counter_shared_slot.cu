// Shape A' of the held-out libraries (docs/real-code.md, "Shape L in cuOpt's form; A' in cuDSS"):
// a persistent kernel hands two values to its block through one shared word. At the top of each
// trip thread 0 takes the next work item with atomicAdd on a counter, stores it to `slot`, and
// after __syncthreads() every thread reads it and the block leaves when the item is past the end:
// a work counter. Item k depends on item k-1: thread 0 waits until every part of item k-1 has
// been counted (volatile poll, then __threadfence()) and __syncthreads() hands the wait to the
// block. At the bottom thread 0 fences, counts the block on the item's counter (the same words the
// waiters poll) and stores the count to the same `slot`; the block that counted last goes on to
// finish the item: a last-arrival ticket. Whatever the ticket search takes through `slot`, the
// work item read at the top is the store made at the top (thread 0 stores it again before the
// others read), and the count read at the bottom is the ticket's. Here the last block's thread 0
// fences after its count, and __syncthreads() hands that to the block: silent in both tiers.
//
// The twin takes no fence after the count: its ticket still fires (acquire-missing), and its
// work counter stays silent.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

__global__ void chained_items(unsigned* next, unsigned* deps, int* owner, float* out, const float* __restrict__ in,
                              int items, int parts) {
  __shared__ unsigned slot;
  for (;;) {
    if (threadIdx.x == 0) slot = atomicAdd(next, 1u);
    __syncthreads();
    const unsigned taken = slot;
    const int item = taken / parts, part = taken % parts;
    if (item >= items) return;
    if (item > 0) {
      if (threadIdx.x == 0) {
        while (*(volatile unsigned*)&deps[item - 1] < (unsigned)parts) {
        }
        __threadfence();
      }
      __syncthreads();
    }
    const int prev = item > 0 ? owner[(item - 1) * parts + threadIdx.x % parts] : 0;
    out[taken * blockDim.x + threadIdx.x] = in[taken * blockDim.x + threadIdx.x] + prev;
    if (threadIdx.x == 0) owner[item * parts + part] = blockIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      slot = atomicAdd(&deps[item], 1u);
      __threadfence();
    }
    __syncthreads();
    if (slot != (unsigned)parts - 1) {
      __syncthreads();
      continue;
    }
    out[item] += 1.f;
    __syncthreads();
  }
}

__global__ void chained_items_unfenced_count(unsigned* next, unsigned* deps, int* owner, float* out,
                                             const float* __restrict__ in, int items, int parts) {
  __shared__ unsigned slot;
  for (;;) {
    if (threadIdx.x == 0) slot = atomicAdd(next, 1u);
    __syncthreads();
    const unsigned taken = slot;
    const int item = taken / parts, part = taken % parts;
    if (item >= items) return;
    if (item > 0) {
      if (threadIdx.x == 0) {
        while (*(volatile unsigned*)&deps[item - 1] < (unsigned)parts) {
        }
        __threadfence();
      }
      __syncthreads();
    }
    const int prev = item > 0 ? owner[(item - 1) * parts + threadIdx.x % parts] : 0;
    out[taken * blockDim.x + threadIdx.x] = in[taken * blockDim.x + threadIdx.x] + prev;
    if (threadIdx.x == 0) owner[item * parts + part] = blockIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      slot = atomicAdd(&deps[item], 1u);  // expect: acquire-missing
    }
    __syncthreads();
    if (slot != (unsigned)parts - 1) {
      __syncthreads();
      continue;
    }
    out[item] += 1.f;
    __syncthreads();
  }
}
