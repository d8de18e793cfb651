// Shows acquire-missing: block 0 publishes a value and raises a flag with a
// proper release (__threadfence before the flag store); every other block
// spins on the flag with volatile loads and then reads the value with no
// acquire after the spin. The loop exit only proves the flag was seen, not
// that the payload is: on an H200 a consumer that had read the payload before
// spinning kept its stale L1 copy in almost every round.
// Fix: __threadfence() (fence.acq_rel.gpu) right after the loop, or poll with
// an acquire load (cuda::atomic_ref::load(memory_order_acquire)).

__device__ int payload;
__device__ int ready;

__global__ void publish_and_consume(int* out, int value) {
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      payload = value;
      __threadfence();                      // release: payload before flag
      *(volatile int*)&ready = 1;
    }
    return;
  }
  if (threadIdx.x == 0) {
    while (*(volatile int*)&ready == 0) {  // spin: relaxed polling
    }
    out[blockIdx.x] = payload;
  }
}
