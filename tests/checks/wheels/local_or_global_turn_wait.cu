// Shape U of NCCL's GIN kernels (docs/real-code.md, "NCCL (issue 34)"): a turn wait whose load
// is libcu++'s atomic_ref load of an address whose space the compiler does not know. The load
// tests the address with `isspacep.local` and, as nvcc compiled it there, runs two branches on
// that one predicate: when it holds, a plain read of the thread's local memory and a nanosleep;
// when it does not, a relaxed load. Both write the register the wait compares, which also holds
// what the caller saw before (an enclosing loop's earlier value). Read path-insensitively, that
// earlier value reaches the comparison on the path that skips both branches, a path no thread
// takes: the comparison looked carried from the previous iteration, the loop was not taken for a
// spin, and its load was paired as data (the turn's release store as a data write, the wait's
// relaxed load as its reader: release-missing on another signal).
//
// The helper below reproduces that PTX (nvcc 13.0 folds libcu++'s own two tests into one branch,
// so the two branches are written out in inline PTX); the stores and the mailbox wait are
// libcu++'s.
//  - ring_turns: blocks take turns on a ring: wait for the turn, acquire fence, read the record
//    the previous holder wrote, extend it, pass the turn with a release store. Silent.
//  - ring_turns_no_acquire: no fence after the relaxed wait: acquire-missing (missed while the
//    loop was not a spin).
//  - ring_turns_relaxed_publish: the turn passed with a relaxed store: release-missing.
//  - ring_credit_turns: NCCL's pairing: a credit count (acquire poll, relaxed fetch_add after the
//    turn's release store) and the turn wait. The turn's load is a poll, not the credit's reader:
//    no data access follows the credit wait, so the credit's release-missing is strict only
//    (next-launch); it was a default-tier finding with the turn's store and load as its data.
//  - mailbox_wait, mailbox_wait_relaxed: cuda::atomic_ref::wait after a producer's release store
//    and notify_all: silent with memory_order_acquire, acquire-missing with memory_order_relaxed.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cuda/atomic>

struct Ring {
  unsigned turn;   // whose turn it is: the blocks take it in order
  unsigned spare;
  float log[64];   // the record each holder reads from its predecessor and extends
};

// A relaxed load of the turn, local-or-global as libcu++ dispatches it. `seen` is what the
// caller saw last: the register keeps it on the path that runs neither branch.
__device__ __forceinline__ unsigned load_turn_relaxed(const unsigned* p, unsigned seen) {
  asm volatile(
      "{\n\t"
      ".reg .pred l;\n\t"
      "isspacep.local l, %1;\n\t"
      "@!l bra LOCAL_DONE;\n\t"
      "ld.u32 %0, [%1];\n\t"
      "nanosleep.u32 0;\n"
      "LOCAL_DONE:\n\t"
      "@l bra GLOBAL_DONE;\n\t"
      "ld.relaxed.gpu.b32 %0, [%1];\n"
      "GLOBAL_DONE:\n\t"
      "}"
      : "+r"(seen)
      : "l"(p)
      : "memory");
  return seen;
}

__global__ void ring_turns(Ring* r, float* out, int rounds) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> turn(r->turn);
  unsigned mine = blockIdx.x, seen = 0;
  for (int k = 0; k < rounds; ++k, mine += gridDim.x) {
    if (threadIdx.x == 0) {
      while ((seen = load_turn_relaxed(&r->turn, seen)) != mine) {
      }
      cuda::atomic_thread_fence(cuda::std::memory_order_acquire, cuda::thread_scope_device);
      const float v = r->log[mine % 64];
      out[mine] = v;
      r->log[(mine + 1) % 64] = v + 1.0f;
      turn.store(mine + 1, cuda::std::memory_order_release);
      seen = mine + 1;
    }
    __syncthreads();
  }
}

__global__ void ring_turns_no_acquire(Ring* r, float* out, int rounds) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> turn(r->turn);
  unsigned mine = blockIdx.x, seen = 0;
  for (int k = 0; k < rounds; ++k, mine += gridDim.x) {
    if (threadIdx.x == 0) {
      while ((seen = load_turn_relaxed(&r->turn, seen)) != mine) {  // expect: acquire-missing
      }
      const float v = r->log[mine % 64];
      out[mine] = v;
      r->log[(mine + 1) % 64] = v + 1.0f;
      turn.store(mine + 1, cuda::std::memory_order_release);
      seen = mine + 1;
    }
    __syncthreads();
  }
}

__global__ void ring_turns_relaxed_publish(Ring* r, float* out, int rounds) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> turn(r->turn);
  unsigned mine = blockIdx.x, seen = 0;
  for (int k = 0; k < rounds; ++k, mine += gridDim.x) {
    if (threadIdx.x == 0) {
      while ((seen = load_turn_relaxed(&r->turn, seen)) != mine) {
      }
      cuda::atomic_thread_fence(cuda::std::memory_order_acquire, cuda::thread_scope_device);
      const float v = r->log[mine % 64];
      out[mine] = v;
      r->log[(mine + 1) % 64] = v + 1.0f;
      turn.store(mine + 1, cuda::std::memory_order_relaxed);  // expect: release-missing
      seen = mine + 1;
    }
    __syncthreads();
  }
}

__global__ void ring_credit_turns(Ring* r, unsigned* credits, int rounds, unsigned window) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> turn(r->turn), freed(*credits);
  unsigned mine = blockIdx.x, seen = 0;
  for (int k = 0; k < rounds; ++k, mine += gridDim.x) {
    if (threadIdx.x == 0) {
      // Room: at most `window` holders ahead of the finished ones.
      while (mine - freed.load(cuda::std::memory_order_acquire) >= window) {
      }
      while ((seen = load_turn_relaxed(&r->turn, seen)) != mine) {
      }
      turn.store(mine + 1, cuda::std::memory_order_release);
      freed.fetch_add(1, cuda::std::memory_order_relaxed);  // expect-strict: release-missing
      seen = mine + 1;
    }
    __syncthreads();
  }
}

struct Mailbox {
  unsigned full;
  float data[256];
};

__global__ void mailbox_wait(Mailbox* m, float* out) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> full(m->full);
  if (blockIdx.x == 0) {
    m->data[threadIdx.x] = threadIdx.x * 2.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      full.store(1, cuda::std::memory_order_release);
      full.notify_all();
    }
    return;
  }
  full.wait(0, cuda::std::memory_order_acquire);
  out[blockIdx.x * blockDim.x + threadIdx.x] = m->data[threadIdx.x];
}

__global__ void mailbox_wait_relaxed(Mailbox* m, float* out) {
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> full(m->full);
  if (blockIdx.x == 0) {
    m->data[threadIdx.x] = threadIdx.x * 2.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
      full.store(1, cuda::std::memory_order_release);
      full.notify_all();
    }
    return;
  }
  full.wait(0, cuda::std::memory_order_relaxed);  // expect: acquire-missing
  out[blockIdx.x * blockDim.x + threadIdx.x] = m->data[threadIdx.x];
}
