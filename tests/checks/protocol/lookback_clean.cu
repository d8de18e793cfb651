// RUN: %fenceline check --verify --arch sm_90a %s
// Decoupled look-back (the single-pass scan pattern): each block publishes a
// status and a value in one 64-bit word with a relaxed vector store; its
// successors poll that word with one relaxed vector load, back off while the
// status says "not ready", and use the value that came with the status. Flag
// and payload travel in one access, so there is nothing else to acquire or to
// release: nothing is reported. nvcc peels the first poll out of the loop.

constexpr unsigned kNotReady = 0, kAggregate = 1, kPrefix = 2;

__device__ __forceinline__ void publish(unsigned long long* word, unsigned status, unsigned value) {
  asm volatile("st.relaxed.gpu.global.v2.u32 [%0], {%1, %2};" ::"l"(word), "r"(status), "r"(value) : "memory");
}
__device__ __forceinline__ void load_pair(const unsigned long long* word, unsigned& status, unsigned& value) {
  asm volatile("ld.relaxed.gpu.global.v2.u32 {%0, %1}, [%2];" : "=r"(status), "=r"(value) : "l"(word) : "memory");
}

// One warp per block; words[] is zeroed by the host.
__global__ void lookback_scan(unsigned long long* words, const unsigned* in, unsigned* out) {
  unsigned mine = in[blockIdx.x * 32 + threadIdx.x];
  unsigned aggregate = __reduce_add_sync(0xffffffffu, mine);
  unsigned prefix = 0;
  if (threadIdx.x == 0) {
    publish(&words[blockIdx.x], blockIdx.x == 0 ? kPrefix : kAggregate, aggregate);
    for (int p = int(blockIdx.x) - 1; p >= 0; --p) {
      unsigned status, value;
      load_pair(&words[p], status, value);
      while (status == kNotReady) {
        __nanosleep(64);
        load_pair(&words[p], status, value);
      }
      prefix += value;
      if (status == kPrefix) break;
    }
    if (blockIdx.x > 0) publish(&words[blockIdx.x], kPrefix, prefix + aggregate);
  }
  prefix = __shfl_sync(0xffffffffu, prefix, 0);
  unsigned inclusive = mine;
  for (int d = 1; d < 32; d <<= 1) {
    unsigned up = __shfl_up_sync(0xffffffffu, inclusive, d);
    if (threadIdx.x >= d) inclusive += up;
  }
  out[blockIdx.x * 32 + threadIdx.x] = prefix + inclusive;
}
