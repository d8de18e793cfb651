// Shape F3 of the wheels sample (docs/real-code.md, "The wheels sample, second draw"): a split-K
// fix-up whose partial sums and semaphore are the kernel's own workspace, two pointers of its
// parameter struct. The struct is copied into the thread's local memory (it is modified and its
// address escapes, as CUTLASS's kernels do), and the pointers are loaded from that copy. The
// writer publishes with fence.acq_rel.gpu and a relaxed .gpu add; the reader waits with an
// acquire at .gpu: the scope the protocol needs, since every block runs on this GPU. No finding.
// The twin reaches its semaphore through a table of the ranks' semaphores indexed by a peer: another
// GPU raises it, .gpu is too narrow: scope-too-narrow (writer's fence and reader's acquire).
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct FixupParams {
  float* workspace;  // partial sums, one tile per block
  int* semaphore;    // one counter per output tile
  float* out;
  int tiles, splits, peer;
  int* peer_semaphores[8];  // the ranks' semaphores (used by the twin only)
  int tile_order[96];       // a large struct: nvcc copies it with a loop
};

__device__ __forceinline__ void wait_eq(const int* lock, int value) {
  int v;
  do {
    asm volatile("ld.global.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(lock) : "memory");
  } while (v != value);
}
__device__ __forceinline__ void arrive_inc(int* lock) {
  asm volatile("fence.acq_rel.gpu;\n\tred.relaxed.gpu.global.add.s32 [%0], 1;" ::"l"(lock) : "memory");
}

// The twin's own copy (a fix of its scope edits this helper alone).
__device__ __forceinline__ void arrive_inc_peer(int* lock) {
  asm volatile("fence.acq_rel.gpu;" ::: "memory");  // expect: scope-too-narrow
  asm volatile("red.relaxed.gpu.global.add.s32 [%0], 1;" ::"l"(lock) : "memory");
}

// Not inlined, takes the struct by reference: the kernel keeps its parameters in local memory.
__device__ __noinline__ void clamp_splits(FixupParams& p) {
  if (p.splits > 8) p.splits = 8;
  for (int k = 0; k < p.tiles && k < 96; ++k) p.tile_order[k] = p.tile_order[k] % p.tiles;
}

// Safe: the semaphore is the kernel's own, all on this GPU. Its address is computed on two
// paths (the serial fix-up waits on the tile's counter, the others only count on it), so the
// register that holds it is assigned twice.
__global__ void split_k_fixup(FixupParams params) {
  clamp_splits(params);
  const int tile = blockIdx.x % params.tiles, split = blockIdx.x / params.tiles;
  const int i = threadIdx.x;
  float acc = static_cast<float>(i * (split + 1));
  int* lock;
  if (split > 0) {
    lock = params.semaphore + tile;
    if (i == 0) wait_eq(lock, split);
    __syncthreads();
    acc += params.workspace[tile * blockDim.x + i];
  } else {
    lock = params.semaphore + params.tile_order[tile % 96];
  }
  if (split + 1 < params.splits) {
    params.workspace[tile * blockDim.x + i] = acc;
    __syncthreads();
    if (i == 0) arrive_inc(lock);
  } else {
    params.out[tile * blockDim.x + i] = acc;
  }
}

// Broken twin: the semaphore is a peer's, from a table indexed by the peer rank.
__global__ void split_k_fixup_peer(FixupParams params) {
  clamp_splits(params);
  const int tile = blockIdx.x % params.tiles, split = blockIdx.x / params.tiles;
  const int i = threadIdx.x;
  int* semaphore = params.peer_semaphores[params.peer];
  float acc = static_cast<float>(i * (split + 1));
  if (split > 0) {
    if (i == 0) wait_eq(semaphore + tile, split);  // expect: scope-too-narrow
    __syncthreads();
    acc += params.workspace[tile * blockDim.x + i];
  }
  if (split + 1 < params.splits) {
    params.workspace[tile * blockDim.x + i] = acc;
    __syncthreads();
    if (i == 0) arrive_inc_peer(semaphore + tile);
  } else {
    params.out[tile * blockDim.x + i] = acc;
  }
}
