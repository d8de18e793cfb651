// A grid barrier of three rotating counters and an index word, in an interpreter that also sends
// and receives LL packets (shape GS of the held-out libraries, docs/real-code.md "Shapes FW and
// GS"; MSCCL++'s DeviceSyncer in its executionKernel has this form, this is our own code).
// Thread 0 of each block reads the barrier's index, takes the counter after it, zeroes the one
// after that, arrives with a release add and spins with ld.acquire.gpu until every block has
// arrived, then stores the new index. Every block stores the same value (each read the same old
// one: no block stores before every block has read, and a block's next read follows its own
// store), and the next barrier reads it back. main's binary (m27a) pairs that store, as data, with
// a packet poll before the next barrier's read (acquire-missing, a warning); here the pair is
// undecided (`barrier-state`: whether every block that stores the word passes the barrier rests on
// the count the spin waits for, a value of the launch) and the finding names the read it has left
// (`distinct-pointers`): strict tier. The packet store's release-missing is strict in both
// (`other-trip`).
//
// The twin that must still fire: each block's thread 0 also stores its own block index into a
// word beside the barrier (`last`), and the next barrier hands it on as data (out[blockIdx.x] =
// s.last): a value that differs between the blocks, published by nothing but the packets. Since
// msclp27's LP rule (merged with this kernel in session 27: a write that reaches the packet store only
// through the interpreter's dispatch loop is a `plan-order` pair, undecided) the twin's acquire-missing
// is strict too, naming another pair (`distinct-pointers`): in the default tier this twin no longer
// tells the barrier-state rule from an over-broad one (not redone this session).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s
#include <cstdint>

struct GridSyncer {
  unsigned count[3];
  unsigned index;
  unsigned last;
};
__device__ GridSyncer syncers[4];

enum OpType : uint8_t { kNop, kBarrier, kCopyPackets, kRecvPackets };
enum Buffer : uint8_t { kInput, kOutput, kScratch };
struct Op {
  uint8_t type, syncer, buffer;
  uint16_t nblocks;
  uint32_t offset, count;
};
struct Plan {
  int nops;
  Op ops[16];
};

__device__ __forceinline__ uint2 load_packet(const uint2* p) {
  uint2 v;
  asm volatile("ld.volatile.global.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void store_packet(uint2* p, unsigned data, unsigned flag) {
  asm volatile("st.volatile.global.v2.u32 [%0], {%1, %2};" ::"l"(p), "r"(data), "r"(flag) : "memory");
}

__device__ __forceinline__ void grid_sync(GridSyncer& s, unsigned nblocks) {
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned i = (s.index + 1) % 3;
    s.count[(i + 1) % 3] = 0;
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(&s.count[i]) : "memory");
    unsigned seen;
    do {
      asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(seen) : "l"(&s.count[i]) : "memory");
    } while (seen != nblocks);
    s.index = i;
  }
  __syncthreads();
}

__device__ __forceinline__ uint2* buffer_of(uint8_t b, unsigned* in, unsigned* out, uint2* scratch) {
  return b == kInput ? reinterpret_cast<uint2*>(in) : b == kOutput ? reinterpret_cast<uint2*>(out) : scratch;
}

__device__ __forceinline__ void run(const Plan& plan, unsigned* out, unsigned* in, uint2* scratch,
                                    const unsigned* __restrict__ src, unsigned flag, bool twin) {
  const unsigned t = threadIdx.x;
  for (int k = 0; k < plan.nops; ++k) {
    const Op op = plan.ops[k];
    switch (op.type) {
      case kBarrier:
        if (twin && t == 0) out[blockIdx.x] = syncers[op.syncer].last;
        grid_sync(syncers[op.syncer], op.nblocks);
        if (twin && t == 0) syncers[op.syncer].last = blockIdx.x;
        break;
      case kCopyPackets: {
        uint2* to = buffer_of(op.buffer, in, out, scratch) + op.offset;
        for (unsigned i = t; i < op.count; i += blockDim.x) store_packet(to + i, src[i], flag);
        break;
      }
      case kRecvPackets: {
        const uint2* from = buffer_of(op.buffer, in, out, scratch) + op.offset;
        for (unsigned i = t; i < op.count; i += blockDim.x) {
          uint2 v;
          do {
            v = load_packet(from + i);
          } while (v.y != flag);
          out[i] = v.x;
        }
        break;
      }
      default:
        break;
    }
  }
}

__global__ void run_with_grid_syncer(const Plan* plan, unsigned* out, unsigned* in, uint2* scratch,
                                     const unsigned* __restrict__ src, unsigned flag) {
  run(*plan, out, in, scratch, src, flag, false);  // expect-strict: acquire-missing, release-missing
}

__global__ void run_with_last_block_word(const Plan* plan, unsigned* out, unsigned* in, uint2* scratch,
                                         const unsigned* __restrict__ src, unsigned flag) {
  run(*plan, out, in, scratch, src, flag, true);  // expect-strict: acquire-missing, release-missing
}
