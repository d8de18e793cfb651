// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
// Issue 11, shape 5: flag and data pointers loaded from memory (a mailbox
// struct passed by pointer, an array of mailboxes indexed by block). The
// struct holds the polled flag `inbound`, a consumption counter `expected`
// and the payload. Pointers loaded from different fields are different
// objects: a relaxed increment of `expected` after the consumer's writes is no
// signal, because no spin loop in the kernel waits on it. Identical loads
// (same base, same field, same index) are the same object: a relaxed store to
// `inbound` after the payload writes is the signal the spin loop waits on
// (release-missing). A pointer read from a struct field is no peer pointer:
// producer and consumers are blocks of this grid, so .gpu scope is enough.
// The partner model's rules (src/model/Protocol.h, ProtocolModel): pointers
// read from two distinct fields of one record are two objects
// (pointersFromDistinctFields), the same field of a table read at a variable
// index stays coarse (slots 2*peer and 2*rank); a pointer read from a struct
// field or a table indexed by block is no peer pointer, one read from a table
// indexed by rank is (goesThroughPeerPointer); re-reading the polled word is
// no guarded data (rereadsPolledWord).

#include <cuda/atomic>

struct Mailbox {
  unsigned* inbound;   // raised by the producer block, polled by the others
  unsigned* expected;  // consumption counter, incremented, never polled
  float* payload;
};

__device__ __forceinline__ void wait_acquire_gpu(const unsigned* flag) {
  unsigned v;
  do {
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  } while (v == 0);
}
__device__ __forceinline__ void st_release_gpu(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void st_relaxed_gpu(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void st_release_sys(unsigned* p, unsigned v) {
  asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void wait_acquire_sys(const unsigned* flag) {
  unsigned v;
  do {
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
  } while (v == 0);
}

// Clean: block 0 publishes with a release store on `inbound`; the others wait
// with an acquire, consume, and count themselves in `expected` (relaxed).
__global__ void mailbox_ptr_count_clean(const Mailbox* mb, float* out) {
  if (blockIdx.x == 0) {
    mb->payload[threadIdx.x] = 1.0f + threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) st_release_gpu(mb->inbound, 1);
    return;
  }
  wait_acquire_gpu(mb->inbound);
  out[blockIdx.x * blockDim.x + threadIdx.x] = mb->payload[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(mb->expected, 1u);
}

// Broken: the same, but block 0 raises `inbound` with a relaxed store.
__global__ void mailbox_ptr_relaxed_signal(const Mailbox* mb, float* out) {
  if (blockIdx.x == 0) {
    mb->payload[threadIdx.x] = 1.0f + threadIdx.x;
    __syncthreads();
    if (threadIdx.x == 0) st_relaxed_gpu(mb->inbound, 1);  // expect: release-missing
    return;
  }
  wait_acquire_gpu(mb->inbound);
  out[blockIdx.x * blockDim.x + threadIdx.x] = mb->payload[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(mb->expected, 1u);
}

// Array of mailboxes indexed by block: `boxes[blockIdx.x].inbound` polled,
// `boxes[blockIdx.x].expected` incremented, `boxes[0]` published by block 0.
__global__ void mailbox_array_count_clean(Mailbox* boxes, float* out) {
  const Mailbox& own = boxes[blockIdx.x];
  if (blockIdx.x == 0) {
    own.payload[threadIdx.x] = 2.0f;
    __syncthreads();
    if (threadIdx.x == 0) st_release_gpu(own.inbound, 1);
    return;
  }
  wait_acquire_gpu(boxes[0].inbound);
  out[blockIdx.x * blockDim.x + threadIdx.x] = boxes[0].payload[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(own.expected, 1u);
}

__device__ __forceinline__ unsigned ld_volatile(const unsigned* p) {
  unsigned v;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Clean: after the relaxed spin on *mb->inbound the thread reads only that
// word again (an identical load of the same field): no guarded data is read.
__global__ void mailbox_ptr_reread_flag(const Mailbox* mb, unsigned* out) {
  while (ld_volatile(mb->inbound) == 0) {
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = ld_volatile(mb->inbound);
}

// Broken: after the same spin it reads *mb->expected, another field's
// object, which other blocks update: guarded data, read without acquire.
__global__ void mailbox_ptr_read_other_field(const Mailbox* mb, unsigned* out) {
  while (ld_volatile(mb->inbound) == 0) {  // expect-strict: acquire-missing
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = *mb->expected;
}

// libcu++ form of mailbox_ptr_count_clean: cuda::atomic_ref on the loaded
// field pointers (acquire load polled on inbound, release store by block 0,
// relaxed fetch_add on expected). Clean.
__global__ void mailbox_atomic_ref_clean(const Mailbox* mb, float* out) {
  using ref = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;
  if (blockIdx.x == 0) {
    mb->payload[threadIdx.x] = 3.0f;
    __syncthreads();
    if (threadIdx.x == 0) ref(*mb->inbound).store(1, cuda::memory_order_release);
    return;
  }
  while (ref(*mb->inbound).load(cuda::memory_order_acquire) == 0) {
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = mb->payload[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) ref(*mb->expected).fetch_add(1, cuda::memory_order_relaxed);
}

// Broken: block 0 raises inbound with a relaxed store.
__global__ void mailbox_atomic_ref_relaxed_signal(const Mailbox* mb, float* out) {
  using ref = cuda::atomic_ref<unsigned, cuda::thread_scope_device>;
  if (blockIdx.x == 0) {
    mb->payload[threadIdx.x] = 3.0f;
    __syncthreads();
    if (threadIdx.x == 0) ref(*mb->inbound).store(1, cuda::memory_order_relaxed);  // expect: release-missing
    return;
  }
  while (ref(*mb->inbound).load(cuda::memory_order_acquire) == 0) {
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = mb->payload[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) ref(*mb->expected).fetch_add(1, cuda::memory_order_relaxed);
}

// One pointer table holds, per rank, [flag, counter]: slot 2*rank is the flag
// this rank polls (the peer raises it), slot 2*rank+1 a relaxed counter that
// nobody polls. Each rank pushes its slice into the peer's buffer
// (bufs[peer]), raises the peer's flag, waits on its own and reads what the
// peer pushed (bufs[rank]). Slots 2*r and 2*r+1 never coincide: the counter
// increment is no signal. Clean.
__global__ void slot_table_counter_clean(unsigned** slots, float** bufs, const float* in, float* out, int rank,
                                         int peer) {
  bufs[peer][rank * 256 + threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(slots[2 * rank + 1], 1u);
    __threadfence_system();
    atomicAdd_system(slots[2 * peer], 1u);
    wait_acquire_sys(slots[2 * rank]);
  }
  __syncthreads();
  out[threadIdx.x] = bufs[rank][peer * 256 + threadIdx.x];
}

// Broken: the peer's flag (slot 2*peer, the object the peer polls as its slot
// 2*rank) is raised with no release after the pushes.
__global__ void slot_table_peer_flag_relaxed(unsigned** slots, float** bufs, const float* in, float* out, int rank,
                                             int peer) {
  bufs[peer][rank * 256 + threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(slots[2 * rank + 1], 1u);
    atomicAdd_system(slots[2 * peer], 1u);  // expect: release-missing
    wait_acquire_sys(slots[2 * rank]);
  }
  __syncthreads();
  out[threadIdx.x] = bufs[rank][peer * 256 + threadIdx.x];
}

// A mailbox reached through a table of peer pointers indexed by rank: each
// rank fills the peer's payload and raises the peer's flag, then waits on its
// own. The partner is another GPU. Broken: both sides at .gpu scope.
__global__ void mailbox_peer_gpu_scope(Mailbox* const* boxes, float* out, int rank, int peer) {
  boxes[peer]->payload[threadIdx.x] = 4.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    st_release_gpu(boxes[peer]->inbound, 1);  // expect: scope-too-narrow
    wait_acquire_gpu(boxes[rank]->inbound);   // expect: scope-too-narrow
  }
  __syncthreads();
  out[threadIdx.x] = boxes[rank]->payload[threadIdx.x];
}

// Fixed: the same at .sys scope on both sides.
__global__ void mailbox_peer_sys_scope(Mailbox* const* boxes, float* out, int rank, int peer) {
  boxes[peer]->payload[threadIdx.x] = 4.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    st_release_sys(boxes[peer]->inbound, 1);
    wait_acquire_sys(boxes[rank]->inbound);
  }
  __syncthreads();
  out[threadIdx.x] = boxes[rank]->payload[threadIdx.x];
}
