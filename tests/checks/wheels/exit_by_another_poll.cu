// Shape X of the NVSHMEM sample (docs/real-code.md, "NVSHMEM (issue 34)"): a completion-queue
// wait that polls two words in one spin loop. Each iteration reads the next entry's counter, which
// a device outside the kernel writes, and a cached "consumed" count that the kernel's threads raise
// with an atomic max once they have seen an entry (after handing the previous entry back). The
// loop leaves when the count says another thread already consumed the entry (exit 1: nothing is
// read after it), or when the entry's counter has reached the target (exit 2: the thread raises
// the count itself and reads the entry's status byte). The status read follows exit 2 alone: on
// every path to it the count's own test took the edge that stays in the loop, so it does not
// follow an observation of the count, and the count's atomic max publishes nothing to it. No
// acquire-missing on the count's poll, no release-missing on its atomic max.
// The twin reads the status after the loop, on both exits: after the count's own exit too, which
// observes another thread's atomic max with a volatile load and no acquire (acquire-missing: strict
// tier, the status being read with a volatile load, the disputed form of the rule), and that
// thread's write to the ring before its count has no release (release-missing).
// The entry's counter itself is polled with no partner in the kernel: strict tier in both.
// RUN: %fenceline check --arch sm_90a --verify %s
// RUN: %fenceline check --strict --arch sm_90a --verify %s

struct Entry {
  unsigned char pad[60];
  unsigned short counter;  // written by the device that completes the work
  unsigned char reserved;
  unsigned char status;    // likewise
};

struct Queue {
  Entry* entries;                 // the completion ring
  unsigned long long* consumed;   // the count of entries the kernel's threads have seen
};

__device__ __forceinline__ unsigned short read_counter(const Entry* e) {
  // The device's counter: no write of the kernel raises it (strict tier, partner unknown).
  return *reinterpret_cast<const volatile unsigned short*>(&e->counter);  // expect-strict: acquire-missing
}
__device__ __forceinline__ unsigned short read_counter_twin(const Entry* e) {
  return *reinterpret_cast<const volatile unsigned short*>(&e->counter);  // expect-strict: acquire-missing
}
__device__ __forceinline__ unsigned char read_status(const Entry* e) {
  return *reinterpret_cast<const volatile unsigned char*>(&e->status);
}
__device__ __forceinline__ unsigned long long read_consumed(const unsigned long long* c) {
  return *reinterpret_cast<const volatile unsigned long long*>(c);
}
// The twin's own copy (a fix edits this helper alone).
__device__ __forceinline__ unsigned long long read_consumed_twin(const unsigned long long* c) {
  return *reinterpret_cast<const volatile unsigned long long*>(c);  // expect-strict: acquire-missing
}

// Safe: the status is read only after the exit that the entry's counter decides.
__global__ void wait_completion(Queue* queues, int q, unsigned long long target, unsigned char* out) {
  Queue* queue = &queues[q];
  const Entry* entry = &queue->entries[target % 64];
  unsigned char status = 0;
  while (true) {
    const unsigned short seen = read_counter(entry);
    if (read_consumed(queue->consumed) >= target) break;
    if (static_cast<unsigned short>(target - seen) < 0x8000u) {
      queue->entries[(target - 1) % 64].status = 0;  // hand the previous entry back
      atomicMax(queue->consumed, target);
      status = read_status(entry);
      break;
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = status;
}

// Broken twin: the status is read after the loop, on both exits: after the consumed count's
// exit too, which observes another thread's atomic max with a volatile load and no acquire.
__global__ void wait_completion_twin(Queue* queues, int q, unsigned long long target, unsigned char* out) {
  Queue* queue = &queues[q];
  const Entry* entry = &queue->entries[target % 64];
  while (true) {
    const unsigned short seen = read_counter_twin(entry);
    if (read_consumed_twin(queue->consumed) >= target) break;
    if (static_cast<unsigned short>(target - seen) < 0x8000u) {
      queue->entries[(target - 1) % 64].status = 0;  // hand the previous entry back
      atomicMax(queue->consumed, target);  // expect: release-missing
      break;
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = read_status(entry);
}
