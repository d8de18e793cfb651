// An interpreter of a per-block plan with proxy-FIFO pushes and semaphores (shape FW of the held-out
// libraries, docs/real-code.md "Shapes FW and GS"; MSCCL++'s executionKernel has this form, this is
// our own code). Each block copies its own slice of the plan (`plans[blockIdx.x]`: channel handles
// and an op list) into shared memory, then runs the ops one per trip of a dispatch loop:
// - push: thread t reserves a slot of its port channel's FIFO (a .sys atomic on the head), waits for
//   room (the proxy's tail replica), waits for the slot to be free (`ld.relaxed.sys` of the slot's
//   first word until it is 0: the host proxy stores 0 when it has taken the trigger) and stores the
//   trigger with `st.release.sys.v2.u64 {1, work}`: its first word is the constant 1;
// - wait: thread t counts one more expected signal in its semaphore's own counter (a plain
//   `*expected += 1`, the counter reached through the handle in shared memory) and waits with
//   ld.acquire.sys until the inbound token reaches it;
// - signal: a release .sys add on the peer's inbound token;
// - packets: LL16 packets (two data words, each with the flag beside it) sent to a peer's buffer
//   and received from this rank's buffer with one volatile v4 load, the payload used from the
//   poll's own registers.
// The free-slot wait leaves only on 0, a value no store of the kernel writes there (every trigger
// stores 1 in that word): no block of the grid releases it through the trigger, its partner is the
// host (model/ExitValueSignals.h). And the expected counter is written and read by one thread
// through a pointer read from its block's shared copy of its own plan slice: another block's copy
// (or another rank's) is of another slice, whose pointer the PTX does not show to be this one
// (model/BlockCopiedPointers.h: `block-slices`, undecided). main's binary (m27a) pairs the
// free-slot wait and the packet poll with another block's increment of the counter (must-alias)
// and the packet store with the counter's read: 2 acquire-missing and 1 release-missing of
// run_block_plans, warnings. Here every finding of run_block_plans is strict tier: the waits name
// the pairs they have left, none decided (the packet store for the FIFO word, a read of the
// output, `distinct-pointers`), and the counter's release names `block-slices`.
//
// Twins that still fire:
// - every block copies the same plan (`plans[0]`): every block's thread t uses one counter,
//   incremented before the block's packets, read after another block's packets: acquire-missing
//   at the packet poll and release-missing at the packet store (warnings; the pointer is one for
//   every block); its FIFO waits are strict, as above (the trigger stores 1);
// - a slot freed inside the kernel (a consumer block stores 0 after writing its reply): the
//   free-slot wait leaves on that store, and the reply read after it is unordered:
//   acquire-missing at the wait, release-missing at the freeing store.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cstdint>

struct Trigger {
  unsigned long long fst, snd;
};
struct Fifo {
  Trigger* triggers;         // the ring the host proxy polls
  unsigned long long* head;  // pushes reserved
  unsigned long long* tail;  // the proxy's replica of the triggers it has taken
  int size;
};
struct Semaphore {
  unsigned long long* inbound;        // the peers' signals arrive here
  unsigned long long* expected;       // this thread's count of the signals it has waited for
  unsigned long long* remoteInbound;  // the peer's inbound token
  unsigned long long outbound;
};
struct PortChannel {
  Fifo fifo;
  Semaphore sem;
  int id;
};
enum OpType : uint8_t { kNop, kPush, kWait, kSignal, kCopyPackets, kRecvPackets };
enum Buffer : uint8_t { kInput, kOutput, kScratch };
struct Op {
  uint8_t type, nchannels, buffer;
  uint8_t channel[5];
  uint32_t offset, count;
};
struct BlockPlan {
  uint16_t nops, nchannels;
  PortChannel ports[4];
  Op ops[16];
};

__device__ __forceinline__ unsigned long long load_relaxed_sys(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.sys.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned long long load_acquire_sys(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_trigger(Trigger* slot, unsigned long long fst, unsigned long long snd) {
  asm volatile("st.global.release.sys.v2.u64 [%0], {%1, %2};" ::"l"(slot), "l"(fst), "l"(snd) : "memory");
}
__device__ __forceinline__ uint4 load_packet(const uint4* p) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}
__device__ __forceinline__ void store_packet(uint4* p, unsigned a, unsigned b, unsigned flag) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(a), "r"(flag), "r"(b), "r"(flag)
               : "memory");
}

// The host proxy takes a trigger and stores 0 into its first word: the slot is free again.
__device__ __forceinline__ void push(const Fifo& fifo, unsigned long long work) {
  const unsigned long long head = atomicAdd_system(fifo.head, 1ull);
  while (head >= fifo.size + load_relaxed_sys(fifo.tail)) __nanosleep(0);
  Trigger* slot = &fifo.triggers[head % fifo.size];
  while (load_relaxed_sys(&slot->fst) != 0) __nanosleep(0);
  store_trigger(slot, 1ull, work);
}

__device__ __forceinline__ void wait(Semaphore& sem) {
  const unsigned long long want = ++*sem.expected;
  while (load_acquire_sys(sem.inbound) < want) {
  }
}

__device__ __forceinline__ void signal(Semaphore& sem) {
  asm volatile("red.release.sys.global.add.u64 [%0], 1;" ::"l"(sem.remoteInbound) : "memory");
}

__device__ __forceinline__ void copy_plan(BlockPlan& plan, const BlockPlan* from) {
  int4* to = reinterpret_cast<int4*>(&plan);
  const int4* src = reinterpret_cast<const int4*>(from);
  for (unsigned i = threadIdx.x; i < sizeof(BlockPlan) / sizeof(int4); i += blockDim.x) to[i] = src[i];
  __syncthreads();
}

__device__ __forceinline__ uint4* buffer_of(uint8_t b, unsigned* in, unsigned* out, uint4* scratch) {
  return b == kInput ? reinterpret_cast<uint4*>(in) : b == kOutput ? reinterpret_cast<uint4*>(out) : scratch;
}

__device__ __forceinline__ void run(BlockPlan& plan, unsigned* out, unsigned* in, uint4* scratch,
                                    const unsigned* __restrict__ src, unsigned flag) {
  const unsigned t = threadIdx.x;
  for (int k = 0; k < plan.nops; ++k) {
    const Op& op = plan.ops[k];
    switch (op.type) {
      case kPush:
        if (t < op.nchannels) {
          PortChannel& ch = plan.ports[op.channel[t]];
          push(ch.fifo, (static_cast<unsigned long long>(ch.id) << 53) | op.offset);
        }
        break;
      case kWait:
        if (t < op.nchannels) wait(plan.ports[op.channel[t]].sem);
        __syncthreads();  // the block goes on once every channel's signal has come
        break;
      case kSignal:
        if (t < op.nchannels) signal(plan.ports[op.channel[t]].sem);
        break;
      case kCopyPackets: {
        uint4* to = buffer_of(op.buffer, in, out, scratch) + op.offset;
        for (unsigned i = t; i < op.count; i += blockDim.x) store_packet(to + i, src[2 * i], src[2 * i + 1], flag);
        break;
      }
      case kRecvPackets: {
        const uint4* from = buffer_of(op.buffer, in, out, scratch) + op.offset;
        for (unsigned i = t; i < op.count; i += blockDim.x) {
          uint4 v;
          do {
            v = load_packet(from + i);
          } while (v.y != flag || v.w != flag);
          out[2 * i] = v.x;
          out[2 * i + 1] = v.z;
        }
        break;
      }
      default:
        break;
    }
  }
}

__global__ void __launch_bounds__(256) run_block_plans(const BlockPlan* plans, unsigned* out, unsigned* in,
                                                       uint4* scratch, const unsigned* __restrict__ src,
                                                       unsigned flag) {
  __shared__ BlockPlan plan;
  copy_plan(plan, plans + blockIdx.x);
  run(plan, out, in, scratch, src, flag);  // expect-strict: acquire-missing, acquire-missing, acquire-missing, release-missing, release-missing
}

// Twin: one plan for every block. Thread t of every block counts in the same counter. Its
// release-missing stays default; since msclp27's LP rule (merged with this kernel in session 27) the
// free-slot wait's acquire-missing names a signal that is one of several objects (strict): the
// release-missing is what shows the block-slices rule does not reach a shared plan.
__global__ void __launch_bounds__(256) run_one_plan(const BlockPlan* plans, unsigned* out, unsigned* in,
                                                    uint4* scratch, const unsigned* __restrict__ src,
                                                    unsigned flag) {
  __shared__ BlockPlan plan;
  copy_plan(plan, plans);
  run(plan, out, in, scratch, src, flag);  // expect: release-missing // expect-strict: acquire-missing, acquire-missing, acquire-missing, release-missing
}

// Twin: the slot is freed by a consumer block of this grid, which writes its reply first; the
// producer reads the reply after the free-slot wait.
__global__ void fifo_freed_in_kernel(Trigger* ring, unsigned long long* replies, unsigned long long* results,
                                     int size) {
  const int slot = blockIdx.x % size;
  if (blockIdx.x < size) {
    if (threadIdx.x == 0) {
      while (load_relaxed_sys(&ring[slot].fst) == 0) {
      }
      replies[slot] = ring[slot].snd * 2;
      asm volatile("st.global.relaxed.sys.u64 [%0], %1;" ::"l"(&ring[slot].fst), "l"(0ull) : "memory");  // expect: release-missing
    }
  } else if (threadIdx.x == 0) {
    store_trigger(&ring[slot], 1ull, blockIdx.x);
    while (load_relaxed_sys(&ring[slot].fst) != 0) __nanosleep(0);  // expect: acquire-missing
    results[blockIdx.x] = replies[slot];
  }
}
