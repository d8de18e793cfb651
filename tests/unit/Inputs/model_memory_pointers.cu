// Pointers loaded from memory for the memory-analysis unit tests (issue 11,
// shape 5): struct fields through a pointer parameter, fields of a by-value
// struct parameter, an array of structs, and a pointer table indexed by rank.
// Objects: a pointer loaded from [base + field offset (+ index * stride)] is
// the object "the pointee of that slot"; different slots are different
// objects (NoAlias) unless the indices may be equal; the same slot loaded
// twice is the same object (MustAlias for equal offsets).
#include <cstdint>

struct Mailbox {
  unsigned* inbound;   // offset 0
  unsigned* expected;  // offset 8
  float* payload;      // offset 16
};

__device__ __forceinline__ unsigned ld_relaxed(const unsigned* p) {
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// mb->inbound (twice: the poll and the reset), mb->expected, mb->payload.
// Facts: the two accesses to *mb->inbound MustAlias; *mb->inbound vs
// *mb->expected NoAlias; payload[tid] NoAlias with both flags.
extern "C" __global__ void fields_through_pointer(const Mailbox* mb, float* out) {
  while (ld_relaxed(mb->inbound) == 0) {
  }
  out[threadIdx.x] = mb->payload[threadIdx.x];
  atomicAdd(mb->expected, 1u);
  *mb->inbound = 0;
}

// The same through a by-value parameter (fields read with ld.param at +0, +8, +16).
extern "C" __global__ void fields_by_value(Mailbox mb, float* out) {
  while (ld_relaxed(mb.inbound) == 0) {
  }
  out[threadIdx.x] = mb.payload[threadIdx.x];
  atomicAdd(mb.expected, 1u);
  *mb.inbound = 0;
}

// boxes[blockIdx.x].expected vs boxes[0].expected: MayAlias (blockIdx.x may be
// 0); boxes[blockIdx.x].inbound vs boxes[blockIdx.x].expected: NoAlias.
extern "C" __global__ void array_of_structs(Mailbox* boxes, float* out) {
  while (ld_relaxed(boxes[blockIdx.x].inbound) == 0) {
  }
  atomicAdd(boxes[blockIdx.x].expected, 1u);
  atomicAdd(boxes[0].expected, 1u);
  out[threadIdx.x] = boxes[blockIdx.x].payload[threadIdx.x];
}

// ptrs[peer] (written) vs ptrs[rank] (read): entries of one table at two
// different index values (params rank and peer); issue 11 makes them distinct
// objects unless the analysis finds a reason they alias, while
// boxes[blockIdx.x] vs boxes[0] above has one (blockIdx.x may be 0). The
// object is "entry [index] of the table param ptrs". flags[peer] stored twice
// (reset, then raise): MustAlias. flags[peer] vs ptrs[peer]: NoAlias (two
// tables). Both tables are rank-indexed pointer tables (peer pointers).
extern "C" __global__ void rank_table(float** ptrs, unsigned** flags, const float* in, float* out, int rank,
                                      int peer) {
  ptrs[peer][rank * 256 + threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(flags[peer]), "r"(0u) : "memory");
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(flags[peer]), "r"(1u) : "memory");
  }
  out[threadIdx.x] = ptrs[rank][peer * 256 + threadIdx.x];
}

// Pointer tables inside a by-value parameter struct, indexed at run time
// (a collective's signal and two staging tables, one per slot): nvcc then
// takes the parameter's address (`mov.b64 %rd, param`) and reads the fields
// through it (`ld.param.u64 [%rd+72]`). signals[0] is a field of its own;
// staging0[dst] / staging1[dst] picked by a slot read from memory is one of
// the slot tables' sixteen fields, never signals[0]; signals[k & 7] is one of
// the signal table's eight fields, so it may be signals[0].
struct Tables {
  unsigned* signals[8];
  float* staging0[8];
  float* staging1[8];
};

extern "C" __global__ void param_tables(Tables t, const unsigned* slot_word, int k) {
  const unsigned slot = *slot_word & 1u;
#pragma unroll 1
  for (int pass = 1; pass < 8; ++pass) {
    const int dst = (k + pass) & 7;
    float* staging = slot == 0 ? t.staging0[dst] : t.staging1[dst];
    asm volatile("st.volatile.global.f32 [%0], %1;" ::"l"(staging + threadIdx.x), "f"(1.0f) : "memory");
  }
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(t.signals[0]), "r"(1u) : "memory");
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(t.signals[k & 7]), "r"(2u) : "memory");
}

// Slots of a flag array, 8 words per block: a block raises word
// 8 * s + rank of the slots beyond the grid (s = blockIdx.x + gridDim.x,
// s += gridDim.x) and polls word 8 * blockIdx.x + t of its own slot, t < 8.
// `rank` indexes the pointer table `bufs`, so it is taken as non-negative:
// the words never meet. In `beyond_grid_signed_rank` the rank indexes no
// array (it is only added), so word 8 * s + rank may be any polled word.
extern "C" __global__ void beyond_grid_slots(unsigned* flags, float* const* bufs, int rank, float* out) {
  for (int s = blockIdx.x + gridDim.x; s < 64; s += gridDim.x)
    asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(flags + s * 8 + rank), "r"(1u) : "memory");
  if (threadIdx.x < 8) {
    unsigned v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flags + blockIdx.x * 8 + threadIdx.x) : "memory");
    out[threadIdx.x] = bufs[rank][threadIdx.x] + float(v);
  }
}

extern "C" __global__ void beyond_grid_signed_rank(unsigned* flags, int rank, float* out) {
  for (int s = blockIdx.x + gridDim.x; s < 64; s += gridDim.x)
    asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(flags + s * 8 + rank), "r"(1u) : "memory");
  if (threadIdx.x < 8) {
    unsigned v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flags + blockIdx.x * 8 + threadIdx.x) : "memory");
    out[threadIdx.x] = float(v);
  }
}

// The same slots, the backfill starting at the block's own slot
// (s = blockIdx.x): it writes the polled slot.
extern "C" __global__ void own_grid_slots(unsigned* flags, float* const* bufs, int rank, float* out) {
  for (int s = blockIdx.x; s < 64; s += gridDim.x)
    asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(flags + s * 8 + rank), "r"(1u) : "memory");
  if (threadIdx.x < 8) {
    unsigned v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(flags + blockIdx.x * 8 + threadIdx.x) : "memory");
    out[threadIdx.x] = bufs[rank][threadIdx.x] + float(v);
  }
}

// A pointer read from a __constant__ state (converted by cvta) plus a byte
// offset read from a record (never converted): the pointer's object with an
// unknown offset, apart from a pointer read from another field of the state.
struct OffsetState {
  int mype;
  long* pool;
  long* counter;
  const long* offsets;
};
__constant__ OffsetState offset_state;

extern "C" __global__ void loaded_offset_from_pointer(int team, long value) {
  volatile long* word =
      reinterpret_cast<volatile long*>(reinterpret_cast<char*>(offset_state.pool) + offset_state.offsets[team]);
  while (*word < value) {
  }
  offset_state.counter[2 * team] = value;
}

// One heap, objects at page offsets: a counter at the page a parameter names,
// a payload at the page a record in memory names, and a second store and load
// through the record's page.
struct HeapRecord {
  unsigned pad[7];
  unsigned page;
};
extern "C" __global__ void heap_pages(char* heap, unsigned counterPage, const HeapRecord* record, float* out) {
  asm volatile("red.relaxed.sys.global.add.u32 [%0], 1;" ::"l"(heap + 4096ull * counterPage + 4 * threadIdx.x)
               : "memory");
  float* payload = reinterpret_cast<float*>(heap + 4096ull * record->page);
  asm volatile("st.relaxed.gpu.global.f32 [%0], %1;" ::"l"(payload + threadIdx.x), "f"(1.0f) : "memory");
  float v;
  asm volatile("ld.relaxed.gpu.global.f32 %0, [%1];" : "=f"(v) : "l"(payload + blockIdx.x) : "memory");
  out[threadIdx.x] = v;
}

// Per-block slices of one scratch buffer (MemoryAnalysis::blockSlices): 128
// threads; a slice of 128 words a block (apart), a slice at a parameter
// stride (undecided), a slice of 64 words (two blocks' accesses overlap), the
// next block's slice (not the same block terms), one word per thread (no
// block index).
extern "C" __global__ void __launch_bounds__(128) block_slices(float* scratch, unsigned stride, float* out) {
  float* fixed = scratch + blockIdx.x * 128;
  asm volatile("st.relaxed.gpu.global.f32 [%0], %1;" ::"l"(fixed + threadIdx.x), "f"(1.0f) : "memory");
  float* byParameter = scratch + blockIdx.x * stride;
  asm volatile("st.relaxed.sys.global.f32 [%0], %1;" ::"l"(byParameter + threadIdx.x), "f"(2.0f) : "memory");
  float* narrow = scratch + blockIdx.x * 64;
  asm volatile("st.volatile.global.f32 [%0], %1;" ::"l"(narrow + threadIdx.x), "f"(3.0f) : "memory");
  const float* next = scratch + ((blockIdx.x + 1) % gridDim.x) * 128;
  float v;
  asm volatile("ld.relaxed.gpu.global.f32 %0, [%1];" : "=f"(v) : "l"(next + threadIdx.x) : "memory");
  asm volatile("st.release.gpu.global.f32 [%0], %1;" ::"l"(out + threadIdx.x), "f"(v) : "memory");
}

// The block's own state slots (MemoryAnalysis::blockSlices, NCCL's block
// state): a context's state `state + words * (b % contexts)`, in it the
// block's slots at `k * b + first` (k chosen per block by a mode byte) and a
// second per-block word at `tail * b` (two strides: undecided); a slot at a
// stride read from memory (a factor of unknown level: a stride all the same,
// undecided); the context's first words (no block index beside the shared
// value: the expressions' answer stands).
extern "C" __global__ void __launch_bounds__(128) block_state_slots(unsigned long long* state, int words,
                                                                  unsigned contexts, int peers, int first,
                                                                  int tail, const unsigned char* modes,
                                                                  const int* strides) {
  const unsigned context = blockIdx.x % contexts;
  unsigned long long* own = state + words * (int)context;
  const int k = modes[context] == 5 ? 2 : max(peers, 2);
  const unsigned slot = k * blockIdx.x + first;
  asm volatile("st.relaxed.gpu.global.u64 [%0], 1;" ::"l"(own + slot) : "memory");
  const unsigned index = slot + threadIdx.x;
  unsigned v, w, u;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(own + index) : "memory");
  asm volatile("st.relaxed.sys.global.u64 [%0], 2;" ::"l"(own + tail * blockIdx.x) : "memory");
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(w) : "l"(own + threadIdx.x) : "memory");
  const int loaded = strides[0];
  asm volatile("st.volatile.global.u64 [%0], 3;" ::"l"(state + loaded * blockIdx.x), "r"(0) : "memory");
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(u) : "l"(state + loaded * blockIdx.x + threadIdx.x) : "memory");
  own[threadIdx.x + 64] = v + w + u;
}

// Chained blocks (MemoryAnalysis::blockDistance, atBlockDistance): each block
// raises flags[b]; it polls its predecessor's flags[b - 1] and the flag two
// blocks on, flags[b + 2]; on a stride of two words, flags[2b + 1] is never
// another block's flags[2b']. Data: x[b * 128 + tid] written, x[(b - 1) * 128
// + tid] (the predecessor's slice), x[tid] (no block index) read.
extern "C" __global__ void __launch_bounds__(128) block_distance(int* flags, float* x, float* out) {
  const int b = blockIdx.x;
  int v, w, u;
  asm volatile("st.relaxed.gpu.global.s32 [%0], 1;" ::"l"(flags + b) : "memory");
  asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(flags + b - 1) : "memory");
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(w) : "l"(flags + b + 2) : "memory");
  asm volatile("st.relaxed.sys.global.s32 [%0], 1;" ::"l"(flags + 2 * b) : "memory");
  asm volatile("ld.volatile.global.s32 %0, [%1];" : "=r"(u) : "l"(flags + 2 * b + 1) : "memory");
  asm volatile("st.relaxed.gpu.global.f32 [%0], %1;" ::"l"(x + b * 128 + threadIdx.x), "f"(1.0f) : "memory");
  float p, q;
  asm volatile("ld.relaxed.gpu.global.f32 %0, [%1];" : "=f"(p) : "l"(x + (b - 1) * 128 + threadIdx.x) : "memory");
  asm volatile("ld.acquire.gpu.global.f32 %0, [%1];" : "=f"(q) : "l"(x + threadIdx.x) : "memory");
  out[threadIdx.x] = p + q + float(v + w + u);
}
