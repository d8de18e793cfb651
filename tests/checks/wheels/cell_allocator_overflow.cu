// Shape A of the held-out libraries (docs/real-code.md, "Shapes M and A"): threads insert keys
// into a quadtree whose cells come from one pool. A thread locks the child slot it descends to,
// takes a new cell by decrementing the pool's top (`atomicAdd(top, -1) - 1`) and compares the
// cell with the pool's floor, a parameter: on equality the pool is exhausted and the thread puts
// the top back (`atomicExch`), below it the thread gives up; either way, and in the common case,
// it then fills the new cell's slots and reads one back, then publishes the cell with a release store.
// The equality with a launch value makes the decrement look like a last-arrival ticket, but the
// reads after it are made on both edges of that test: nothing in them depends on the count
// being reached, so no read is guarded by it and nothing is reported in either tier.
// The twin is the last-arrival shape on the same pool: only the thread whose cell is the floor
// (the last cell handed out) reads what the other threads stored into the pool before taking
// their cells, with no fence after its decrement: acquire-missing, and (each thread's own
// decrement publishes its stores without a fence) release-missing, default tier.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

constexpr int kLocked = -2;
constexpr int kEmpty = -1;

__device__ __forceinline__ int quadrant(float x, float y, float cx, float cy) {
  return (x < cx ? 0 : 1) | (y < cy ? 0 : 2);
}

__device__ __forceinline__ int take_cell(int* top) {
  int old;
  asm volatile("atom.global.add.u32 %0, [%1], -1;" : "=r"(old) : "l"(top) : "memory");
  return old - 1;
}
__device__ __forceinline__ int take_cell_twin(int* top) {
  int old;
  asm volatile("atom.global.add.u32 %0, [%1], -1;" : "=r"(old) : "l"(top) : "memory");  // expect: acquire-missing release-missing
  return old - 1;
}

// The unlock: a release store of the cell into the locked slot.
__device__ __forceinline__ void publish(int* slot, int cell) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(slot), "r"(cell) : "memory");
}

// child: 4 slots per cell, cell `root` at the top of the pool; every slot starts kEmpty.
template <bool kLastReads>
__device__ void insert(int* child, int* top, int floor, int root, const float* xs, const float* ys, int n,
                       int* failed, float* total) {
  const int stride = gridDim.x * blockDim.x;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
    const float x = xs[k], y = ys[k];
    float cx = 0.5f, cy = 0.5f, r = 0.25f;
    int cell = root;
    int q = quadrant(x, y, cx, cy);
    int slot = 4 * cell + q;
    int occupant = child[slot];
    while (occupant >= n) {  // an inner cell: descend
      cell = occupant;
      cx += (q & 1) ? r : -r;
      cy += (q & 2) ? r : -r;
      r *= 0.5f;
      q = quadrant(x, y, cx, cy);
      slot = 4 * cell + q;
      occupant = child[slot];
    }
    if (occupant == kLocked) continue;  // another thread is splitting it: retried by the host
    if (occupant == kEmpty) {
      if (atomicCAS(&child[slot], kEmpty, k) == kEmpty) continue;
      continue;
    }
    if (atomicCAS(&child[slot], occupant, kLocked) != occupant) continue;
    // Split: a new cell for the occupant and the key.
    const int fresh = kLastReads ? take_cell_twin(top) : take_cell(top);
    if (fresh == floor) {
      if (kLastReads) {
        // The last cell: add up what every thread stored into the pool.
        float sum = 0.f;
        for (int c = floor; c < root; ++c) sum += static_cast<float>(child[4 * c]);
        *total = sum;
      }
      // Exhausted: the host grows the pool and builds again. (No wait of this kernel reads the
      // top back: a signal to an unknown partner, strict tier, as in main.)
      atomicExch(top, root);  // expect-strict: release-missing release-missing
    } else if (fresh < floor) {
      *failed = 1;
      break;
    }
    const float ox = xs[occupant], oy = ys[occupant];
    const int oq = quadrant(ox, oy, cx, cy);
    child[4 * fresh + oq] = occupant;
    const int mine = child[4 * fresh + q];  // the new cell's slot: kEmpty, or the occupant
    if (mine == kEmpty) child[4 * fresh + q] = k;
    publish(&child[slot], fresh);  // unlock: publish the cell
  }
}

__global__ void insert_keys(int* child, int* top, int floor, int root, const float* xs, const float* ys, int n,
                            int* failed) {
  insert<false>(child, top, floor, root, xs, ys, n, failed, nullptr);
}

__global__ void insert_keys_last_reads(int* child, int* top, int floor, int root, const float* xs, const float* ys,
                                       int n, int* failed, float* total) {
  insert<true>(child, top, floor, root, xs, ys, n, failed, total);
}
