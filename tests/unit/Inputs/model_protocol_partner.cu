// Kernels for ModelProtocolPartnerTest.cpp: the partner model's facts on
// device state in __constant__ memory, translated peer addresses, flag-only
// calls and a counter reset after a wait (compiled by nvcc, sm_90a).

__device__ __forceinline__ unsigned ld_volatile(const unsigned* p) { return *(const volatile unsigned*)p; }

struct State {
  unsigned* counter;        // an epoch bumped after the wait
  unsigned* flags;          // the polled flags
  unsigned* blocks[4];      // a table chosen by a variable index
  char* const* peer_base;   // peer_base[pe]: pe's heap, mapped here
  char* heap_base;
};
__constant__ State state;

// pointersFromDistinctFields: `counter` and `flags` are two fields;
// blocks[blockIdx.x] and blocks[0] are entries of one table.
extern "C" __global__ void const_fields() {
  while (ld_volatile(state.flags) == 0) {
  }
  *(volatile unsigned*)state.counter = 1;
  *(volatile unsigned*)state.blocks[blockIdx.x & 3] = 1;
  while (ld_volatile(state.blocks[0]) == 0) {
  }
}

// isTranslatedPeerAddress, partnerWrites: a put through the translated
// address, then the flag raised the same way, then the wait on our flag.
extern "C" __global__ void translated_peer(float* recv, const float* __restrict__ in, int pe) {
  float* peer_recv = (float*)(state.peer_base[pe] + ((char*)(recv + threadIdx.x) - state.heap_base));
  *peer_recv = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence_system();
    *(volatile unsigned*)(state.peer_base[pe] + ((char*)state.flags - state.heap_base)) = 1;
    while (ld_volatile(state.flags) == 0) {
    }
  }
}

// isFlagOnlyCall: an opaque call passed only the polled flag, and one passed data.
extern "C" __global__ void flag_only_call(void (*raise)(unsigned*), void (*put)(float*), unsigned* flag,
                                          float* data) {
  put(data);
  raise(flag);
  while (ld_volatile(flag) == 0) {
  }
}

// isResetAfterWait: every block arrives, block 0 waits for all, then resets.
extern "C" __global__ void reset_after_wait(unsigned* count) {
  if (threadIdx.x == 0) atomicAdd(count, 1u);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    while (ld_volatile(count) != gridDim.x) {
    }
    *count = 0;
  }
}
