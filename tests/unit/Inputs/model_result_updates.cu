// Read-modify-writes that update results and ones that write a value a poller can test
// (model/ResultUpdates.h; ModelResultUpdatesTest.cpp).

// Results: the max of an input element, a sum computed in a CAS loop from the word's old value.
__global__ void max_of_data(long long* out, const long long* in, const int* rows) {
  const int i = threadIdx.x;
  atomicMax(out + rows[i], in[i]);
}

__global__ void cas_sum(unsigned long long* word, unsigned long long v) {
  unsigned long long old = *word, assumed;
  do {
    assumed = old;
    old = atomicCAS(word, assumed, assumed + v);
  } while (assumed != old);
}

// Values a poller can test: a constant, a kernel parameter, a reservation's slot, a choice of
// two constants by a test of the data.
__global__ void exch_one(unsigned* done) { atomicExch(done, 1u); }

__global__ void add_param(unsigned* count, unsigned k) { atomicAdd(count, k); }

__global__ void max_of_slot(unsigned long long* reserved, unsigned long long* doorbell) {
  const unsigned long long slot = atomicAdd(reserved, 1ull);
  atomicMax(doorbell, slot + 1);
}

__global__ void exch_by_test(unsigned* flag, const int* in) { atomicExch(flag, in[threadIdx.x] > 0 ? 1u : 2u); }
