// A peer mirror through a pointer the walk lost (issue 34, nvCOMP's snappy_transcode_kernel, shape
// Q in docs/real-code.md): the ranks exchange one word per round. Each lane of a warp keeps the
// pointer to one peer's slots; a rank writes its own data, fences at .gpu, raises its flag in the
// peer's slots (`flags[round][rank]`) with a relaxed .gpu store, polls its own slots' flag of that
// peer (`flags[round][t]`, the same field of its own copy: a peer mirror), fences at .gpu and
// reads the peer's data through the peer pointer. The peers are other GPUs: .gpu is too narrow.
//  - Stashed: the lane's peer pointer is kept in shared memory and read back, and a round may
//    replace it (a store of the stash on two paths, the pointer register merged around the loop):
//    the walk cannot trace the signal's pointer to its load. By the contract ("Evidence before a
//    warning") an untraced pointer decides nothing: the flag may be raised on this rank's own copy,
//    and the mirror, the data it carries and the partner's scope are undecided
//    (`untraced-pointer`, `untraced-signal-pointer`): the strict tier. Main's binary took the
//    untraced pointer for a peer's and reported scope-too-narrow in the default tier.
//  - Direct twin: the pointer is read from the peer table at each round: a peer pointer, the
//    mirror is decided: scope-too-narrow in the default tier at the fence after the wait.
// (The fence before the signal orders the rank's own copy of the data, which the peers read
// through their peer pointers: the model pairs no read with it in either kernel.)
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --arch sm_90a --strict --verify %s

struct Slots {
  unsigned flags[16][8];   // flags[round][rank]: raised by `rank`
  float data[16][8][32];   // data[round][rank]: written by `rank` into its own slots
};

__device__ __forceinline__ void st_relaxed_gpu(unsigned* p, unsigned v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned ld_relaxed_gpu(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// The pointer stashed in shared memory, replaced on some rounds: strict tier only.
__global__ void exchange_stashed(Slots** peers, Slots* self, int rank, int world, const float* in, float* out,
                                 int rounds) {
  __shared__ Slots* stash[4][8];
  const int t = threadIdx.x & 31, w = threadIdx.x >> 5;
  if (t < world) stash[w][t] = peers[(rank + t) % world];
  __syncwarp();
  if (t >= world) return;
  Slots* p = stash[w][t];
  for (int r = 0; r < rounds; ++r) {
    self->data[r & 15][rank][0] = in[r];
    __threadfence();
    st_relaxed_gpu(&p->flags[r & 15][rank], 1);
    while (ld_relaxed_gpu(&self->flags[r & 15][t]) == 0) {
    }
    __threadfence();  // expect-strict: scope-too-narrow
    out[r * 8 + t] = p->data[r & 15][t][0];
    if (in[r] > 0.f) {
      stash[w][t] = peers[(rank + t + r) % world];
      __syncwarp(1u << t);
      p = stash[w][t];
    }
  }
}

// Broken twin: the peer table read directly.
__global__ void exchange_direct(Slots** peers, Slots* self, int rank, int world, const float* in, float* out,
                                int rounds) {
  const int t = threadIdx.x & 31;
  if (t >= world) return;
  for (int r = 0; r < rounds; ++r) {
    Slots* p = peers[(rank + t + r) % world];
    self->data[r & 15][rank][0] = in[r];
    __threadfence();
    st_relaxed_gpu(&p->flags[r & 15][rank], 1);
    while (ld_relaxed_gpu(&self->flags[r & 15][t]) == 0) {
    }
    __threadfence();  // expect: scope-too-narrow
    out[r * 8 + t] = p->data[r & 15][t][0];
  }
}
