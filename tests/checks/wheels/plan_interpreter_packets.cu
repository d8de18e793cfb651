// Session 27, MSCCL++'s shape LP (docs/real-code.md, "Shapes LP and RC"): a kernel that
// interprets a plan, one operation per trip of a loop, chosen by an op code read from the plan
// on each trip. A put operation stores LL packets ({data, flag} in one 8-byte store) to a peer;
// a reduce operation polls the packets from a peer (the data comes in the poll's own registers),
// then reads this rank's own chunk, adds, and stores the result into its buffer. Main took the
// reduce's result store (a write of another operation, by the partner rank's copy) for data the
// put's packets publish, read after the poll: acquire-missing in the default tier. The partner's
// write reaches its packet store only through a later trip that the plan's op code sends to the
// put arm (model/DispatchLoops.h): whether it writes before signalling is the run-time plan's.
// The data link is undecided (`plan-order`): strict tier. (The put arm's packet store keeps
// main's strict release-missing: the reduce arm's write is of an earlier trip, `other-trip`.)
//
// Twin that still fires (default tier): an operation that writes its buffer and then puts
// packets in the same trip (the reduce-and-put arm): the write precedes the signal in the PTX,
// acquire-missing at the poll and release-missing at the packet store.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Op {
  unsigned char type;  // 1: put packets, 2: reduce packets, 3: reduce and put
  unsigned char peer;
  unsigned offset;
  unsigned count;
};
struct Plan {
  int operations;
  Op ops[32];
};

__device__ __forceinline__ void store_packet(uint2* p, unsigned data, unsigned flag) {
  asm volatile("st.volatile.global.v2.u32 [%0], {%1, %2};" ::"l"(p), "r"(data), "r"(flag) : "memory");  // expect-strict: release-missing
}
__device__ __forceinline__ void store_packet_twin(uint2* p, unsigned data, unsigned flag) {
  asm volatile("st.volatile.global.v2.u32 [%0], {%1, %2};" ::"l"(p), "r"(data), "r"(flag) : "memory");  // expect: release-missing
}
__device__ __forceinline__ unsigned poll_packet(const uint2* p, unsigned flag) {
  unsigned data, seen;
  do {
    asm volatile("ld.volatile.global.v2.u32 {%0, %1}, [%2];" : "=r"(data), "=r"(seen) : "l"(p) : "memory");  // expect-strict: acquire-missing
  } while (seen != flag);
  return data;
}
__device__ __forceinline__ unsigned poll_packet_twin(const uint2* p, unsigned flag) {
  unsigned data, seen;
  do {
    asm volatile("ld.volatile.global.v2.u32 {%0, %1}, [%2];" : "=r"(data), "=r"(seen) : "l"(p) : "memory");  // expect: acquire-missing
  } while (seen != flag);
  return data;
}

// packets[r]: the packet buffer of rank r (this rank's at `rank`), each reached through this table.
__global__ void plan_interpreter_packets(const Plan* plan, unsigned* buf, uint2* const* packets, int rank,
                                         unsigned flag) {
  __shared__ Op ops[32];
  const int n = plan->operations;
  if (threadIdx.x < n) ops[threadIdx.x] = plan->ops[threadIdx.x];
  __syncthreads();
  for (int k = 0; k < n; ++k) {
    const Op op = ops[k];
    if (op.type == 1) {
      uint2* dst = packets[op.peer] + op.offset;
      for (unsigned i = threadIdx.x; i < op.count; i += blockDim.x) store_packet(dst + i, buf[op.offset + i], flag);
    } else if (op.type == 2) {
      const uint2* src = packets[rank] + op.offset;
      for (unsigned i = threadIdx.x; i < op.count; i += blockDim.x) {
        const unsigned got = poll_packet(src + i, flag);
        buf[op.offset + i] = buf[op.offset + i] + got;
      }
    }
    __syncthreads();
  }
}

// Broken: the reduce-and-put arm writes its buffer and puts packets of it in one trip.
__global__ void plan_interpreter_write_then_put(const Plan* plan, unsigned* buf, uint2* const* packets, int rank,
                                                unsigned flag) {
  __shared__ Op ops[32];
  const int n = plan->operations;
  if (threadIdx.x < n) ops[threadIdx.x] = plan->ops[threadIdx.x];
  __syncthreads();
  for (int k = 0; k < n; ++k) {
    const Op op = ops[k];
    if (op.type == 3) {
      for (unsigned i = threadIdx.x; i < op.count; i += blockDim.x) buf[op.offset + i] += 1;
      __syncthreads();
      uint2* dst = packets[op.peer] + op.offset;
      for (unsigned i = threadIdx.x; i < op.count; i += blockDim.x) store_packet_twin(dst + i, op.count, flag);
    } else if (op.type == 2) {
      const uint2* src = packets[rank] + op.offset;
      for (unsigned i = threadIdx.x; i < op.count; i += blockDim.x) {
        const unsigned got = poll_packet_twin(src + i, flag);
        buf[op.offset + i] = buf[op.offset + i] + got;
      }
    }
    __syncthreads();
  }
}
