// Shape 9 (a device-to-host FIFO push), mscclpp proxy FIFO:
// https://github.com/microsoft/mscclpp/pull/229 (merged; replaced the
// trigger's st.global.release.sys.v2.u64 with st.volatile.global.v2.u64, a
// reviewer warning "I think this is dangerous"),
// https://github.com/microsoft/mscclpp/pull/497 ("the memory ordering of
// writing the trigger should be release? to match the acquire" on the host),
// https://github.com/microsoft/mscclpp/pull/864 (merged; "CUDA publishes both
// words with one st.global.release.sys.v2.u64", the host acquire-loads).
// A kernel thread that wants the host proxy to move data reserves a slot with
// a relaxed fetch-and-add on the device-side head, waits for room, and writes
// the 16-byte trigger into the host-mapped slot; the host polls the slot and
// then reads the memory the trigger names. The trigger store is the signal
// the host observes; the head fetch-and-add is device-only bookkeeping. With
// a volatile trigger store nothing releases the kernel's writes of the data
// before the host sees the trigger. Our kernel: the data is written by the
// warp, lane 0 pushes after __syncwarp(), the FIFO is a struct passed by value.
// RUN: %fenceline check --arch sm_90a --verify %s
#include <cuda/atomic>

#include <cstdint>

struct Fifo {
  uint64_t* triggers;              // host-mapped, 2 words per slot
  unsigned long long* head;        // device memory
  volatile unsigned long long* tail;  // host-written
  unsigned long long size;
};

template <bool kRelease>
__device__ __forceinline__ void push(Fifo f, uint64_t fst, uint64_t snd) {
  unsigned long long slot = atomicAdd(f.head, 1ull);  // relaxed: device-side reservation only
  while (slot - *f.tail >= f.size) {
  }
  uint64_t* t = f.triggers + 2 * (slot % f.size);
  if (kRelease)
    asm volatile("st.global.release.sys.v2.u64 [%0], {%1, %2};" ::"l"(t), "l"(fst), "l"(snd) : "memory");
  else
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(t), "l"(fst), "l"(snd) : "memory");  // expect: release-missing
}

template <bool kRelease>
__device__ __forceinline__ void send(Fifo f, const float* in, float* sendbuf) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  sendbuf[i] = in[i] * 2.0f;  // the data the host proxy will read (or hand to the NIC)
  __syncwarp();  // the warp's data before its lane 0 pushes
  if (threadIdx.x % 32 == 0) {
    push<kRelease>(f, reinterpret_cast<uint64_t>(sendbuf + i - threadIdx.x % 32), 32 * sizeof(float));
  }
}

__global__ void push_volatile_trigger(Fifo f, const float* in, float* sendbuf) { send<false>(f, in, sendbuf); }
__global__ void push_release_trigger(Fifo f, const float* in, float* sendbuf) { send<true>(f, in, sendbuf); }
