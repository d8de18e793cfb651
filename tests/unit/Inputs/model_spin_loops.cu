// Inputs for ModelSpinLoopsTest: loops that are spin loops and loops that
// only look like them. Each kernel has at most one loop of interest.

// Spin: volatile poll compared with a constant.
__global__ void volatile_spin(const int* flag, int* out) {
  while (*(volatile const int*)flag == 0) {
  }
  out[0] = 1;
}

// Spin: warp-wide exit through __all_sync (vote.sync.all, not.pred).
__global__ void vote_spin(const int* flags, int* out) {
  while (!__all_sync(0xffffffffu, *(volatile const int*)&flags[threadIdx.x & 31] != 0)) {
  }
  out[threadIdx.x] = 1;
}

// Spin: backoff with __nanosleep; nvcc peels the first poll.
__global__ void backoff_spin(const unsigned* flag, unsigned expected, int* out) {
  unsigned delay = 8;
  while (*(volatile const unsigned*)flag != expected) {
    __nanosleep(delay);
    if (delay < 256) delay *= 2;
  }
  out[0] = 1;
}

// Not a spin: a compare-and-swap update loop compares with the last iteration's value.
__global__ void cas_loop(int* word, int v) {
  int old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, assumed + v);
  } while (assumed != old);
}

// Not a spin: a work queue writes results in the loop.
__global__ void work_queue(int* next, const int* in, int* out, int n) {
  for (int i = atomicAdd(next, 1); i < n; i = atomicAdd(next, 1)) out[i] = in[i];
}

struct Node {
  Node* next;
  int value;
};
// Not a spin: pointer chasing, the polled address changes every iteration.
__global__ void list_walk(Node* head, int* out) {
  Node* n = head;
  while (n->next) n = n->next;
  out[0] = n->value;
}

// Two addresses computed differently (cvta'd and raw, shl and mul) name one word.
__global__ void same_word(unsigned* counters, unsigned r) {
  atomicAdd(&counters[32 * r], 1u);
  *(volatile unsigned*)&counters[32 * r] = 0;
}

// Not a spin: a CAS retry whose expected value the thread keeps in its local memory (as
// libcu++'s compare_exchange does for its local-memory branch): ld.local of the slot, the CAS,
// st.local of what it returned. The compare value is the previous trip's.
__device__ __forceinline__ void put_local(unsigned long long* slot, unsigned long long v) {
  asm volatile("{\n\t.reg .b64 a;\n\tcvta.to.local.u64 a, %0;\n\tst.local.b64 [a], %1;\n\t}" ::"l"(slot), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long get_local(unsigned long long* slot) {
  unsigned long long v;
  asm volatile("{\n\t.reg .b64 a;\n\tcvta.to.local.u64 a, %1;\n\tld.local.b64 %0, [a];\n\t}" : "=l"(v) : "l"(slot) : "memory");
  return v;
}
__global__ void cas_local_slot(unsigned long long* word, unsigned long long v) {
  unsigned long long slot;
  put_local(&slot, *word);
  while (true) {
    const unsigned long long expected = get_local(&slot);
    const unsigned long long got = atomicCAS(word, expected, expected + v);
    put_local(&slot, got);
    if (got == expected) break;
  }
}

// Not a spin: a CAS retry that reads the word again on every trip and leaves when its CAS
// succeeded (a 128-bit sum, as cuDF's decimal aggregations compile).
__global__ void cas_reload(unsigned long long* word, unsigned long long v) {
  unsigned long long old;
  do {
    old = *(volatile unsigned long long*)word;
  } while (atomicCAS(word, old, old + v) != old);
}

// A spin: a semaphore whose count is read again on every trip, going back without the CAS
// while it is 0.
__global__ void semaphore_take(unsigned* count, int* out) {
  unsigned v;
  do {
    v = *(volatile unsigned*)count;
  } while (v == 0 || atomicCAS(count, v, v - 1) != v);
  out[0] = 1;
}

// A spin lock whose first CAS nvcc peels before a rotated loop: the CAS before the loop is the
// spin's first trip (SpinLoop::peeledPolls). The CAS that claims a slot first is on another
// word, and its value decides nothing about the loop: not a first trip.
__global__ void peeled_lock(int* lock, int* slots, int* out) {
  const int claimed = atomicCAS_system(&slots[threadIdx.x], 0, 1);
  while (atomicCAS_system(lock, 0, 1) != 0) __nanosleep(100);
  __threadfence();
  out[0] += claimed;
  __threadfence();
  atomicExch(lock, 0);
}
