// Shape T of the first look at nvCOMP (docs/real-code.md, "First look: nvCOMP, cuStateVec,
// cuVS"): a table of per-chunk descriptors (records larger than a pointer, read only) that a
// batched launch reaches at `first + blockIdx.y`: the launch's first chunk plus the block's row of
// the grid. In each row, the last block decodes the chunk's header, writes it and publishes with a
// release at .gpu through the descriptor's `header_ready` pointer; block 0 of the row waits for it
// with an acquire at .gpu through the same field and reads the header. Both are blocks of this
// grid: .gpu is the scope the protocol needs. `descs[first + blockIdx.y]` is `(descs + first)
// [blockIdx.y]`, the block's own entry in a window of the table, as `boxes[blockIdx.x]` is: no
// peer pointer, no finding.
// The twins pick the descriptor by the row shifted by the rank and wrapped to the table, as a
// table of peers is indexed relative to the rank (`(rank + blockIdx.y) % world`, and the
// compare-and-subtract form of the same wrap): the descriptors are the ranks', another GPU
// touches the flag, and .gpu is too narrow: scope-too-narrow in the default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct ChunkDesc {
  const unsigned char* input;          // the compressed chunk
  unsigned long long input_bytes;
  unsigned long long* header_ready;    // raised once the header is decoded
  unsigned int* header;                // the decoded header (16 words)
  float* output;
  unsigned long long output_bytes;
  int kind, level;
  unsigned long long reserved[12];     // a 160-byte record
};

__device__ __forceinline__ void release_gpu(unsigned long long* flag, unsigned long long v) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(flag), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long acquire_gpu(const unsigned long long* flag) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(flag) : "memory");
  return v;
}

// The last block of the row decodes the header; block 0 of the row waits for it.
__device__ __forceinline__ void header_handoff(const ChunkDesc& d, float* out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == gridDim.x - 1) {
    for (int k = 0; k < 16; ++k) d.header[k] = d.input[k] * 3u + static_cast<unsigned>(d.kind);
    release_gpu(d.header_ready, 1);
  } else if (blockIdx.x == 0) {
    while (acquire_gpu(d.header_ready) == 0) {
    }
    out[blockIdx.y] = static_cast<float>(d.header[0] + d.header[15]);
  }
}

// Safe: the launch's window of the descriptor table.
__global__ void chunks_of_launch_window(const ChunkDesc* __restrict__ descs, int first, float* out) {
  header_handoff(descs[first + blockIdx.y], out);
}

// The twins' own copies, one finding each (a fix of their scope edits these alone).
__device__ __forceinline__ void publish_peer(const ChunkDesc& d) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(d.header_ready), "l"(1ull) : "memory");  // expect: scope-too-narrow
}
__device__ __forceinline__ void wait_peer(const ChunkDesc& d) {
  unsigned long long v;
  do {
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(d.header_ready) : "memory");  // expect: scope-too-narrow
  } while (v == 0);
}
__device__ __forceinline__ void publish_wrapped(const ChunkDesc& d) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(d.header_ready), "l"(1ull) : "memory");  // expect: scope-too-narrow
}
__device__ __forceinline__ void wait_wrapped(const ChunkDesc& d) {
  unsigned long long v;
  do {
    asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(d.header_ready) : "memory");  // expect: scope-too-narrow
  } while (v == 0);
}

// Broken twin: the ranks' descriptors, the row shifted by the rank modulo the world.
__global__ void chunks_of_rank_shifted_row(const ChunkDesc* __restrict__ descs, int rank, int world, float* out) {
  const ChunkDesc& d = descs[(rank + blockIdx.y) % world];
  if (threadIdx.x != 0) return;
  if (blockIdx.x == gridDim.x - 1) {
    for (int k = 0; k < 16; ++k) d.header[k] = d.input[k] * 3u + static_cast<unsigned>(d.kind);
    publish_peer(d);
  } else if (blockIdx.x == 0) {
    wait_peer(d);
    out[blockIdx.y] = static_cast<float>(d.header[0] + d.header[15]);
  }
}

// Broken twin: the same wrap written as a compare and a subtraction.
__global__ void chunks_of_rank_wrapped_row(const ChunkDesc* __restrict__ descs, int rank, int world, float* out) {
  int i = rank + static_cast<int>(blockIdx.y);
  if (i >= world) i -= world;
  const ChunkDesc& d = descs[i];
  if (threadIdx.x != 0) return;
  if (blockIdx.x == gridDim.x - 1) {
    for (int k = 0; k < 16; ++k) d.header[k] = d.input[k] * 3u + static_cast<unsigned>(d.kind);
    publish_wrapped(d);
  } else if (blockIdx.x == 0) {
    wait_wrapped(d);
    out[blockIdx.y] = static_cast<float>(d.header[0] + d.header[15]);
  }
}
