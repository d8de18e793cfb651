// Inputs for tests/unit/ModelPhaseFlipBarriersTest.cpp (model/PhaseFlipBarriers.h): sign-bit
// phase grid barriers and the forms that are none. Thread 0 of each block arrives.

// cuDNN's form: the phase read by a volatile load before the arrival.
extern "C" __global__ void flip_load(unsigned* bar, unsigned n) {
  if (threadIdx.x == 0) {
    const unsigned old = *(volatile unsigned*)bar;
    __threadfence();
    atomicAdd(bar, blockIdx.x == 0 ? 0x80000001u - n : 1u);
    while ((int)(*(volatile unsigned*)bar ^ old) >= 0) {
    }
  }
}

// Cooperative groups' form: the phase is the arrival's returned value, the test an and with bit 31.
extern "C" __global__ void flip_return(unsigned* bar) {
  if (threadIdx.x == 0) {
    const unsigned inc = blockIdx.x == 0 ? 0x80000000u - (gridDim.x - 1) : 1u;
    const unsigned old = atomicAdd(bar, inc);
    while (((*(volatile unsigned*)bar ^ old) & 0x80000000u) == 0) {
    }
  }
}

// The bit tested by an and with 0x80000000 (written in asm: nvcc turns the C form into a sign test).
extern "C" __global__ void flip_and_mask(unsigned* bar, unsigned n) {
  if (threadIdx.x == 0) {
    const unsigned old = *(volatile unsigned*)bar;
    atomicAdd(bar, blockIdx.x == 0 ? 0x80000001u - n : 1u);
    unsigned bit;
    do {
      asm volatile("and.b32 %0, %1, 0x80000000;" : "=r"(bit) : "r"(*(volatile unsigned*)bar ^ old));
    } while (bit == 0);
  }
}

// The master adds 1 like the others.
extern "C" __global__ void master_adds_one(unsigned* bar) {
  if (threadIdx.x == 0) {
    const unsigned old = *(volatile unsigned*)bar;
    atomicAdd(bar, 1u);
    while ((int)(*(volatile unsigned*)bar ^ old) >= 0) {
    }
  }
}

// The master adds 0x80000000 - n: a use adds 0x7fffffff.
extern "C" __global__ void master_off_by_one(unsigned* bar, unsigned n) {
  if (threadIdx.x == 0) {
    const unsigned old = *(volatile unsigned*)bar;
    atomicAdd(bar, blockIdx.x == 0 ? 0x80000000u - n : 1u);
    while ((int)(*(volatile unsigned*)bar ^ old) >= 0) {
    }
  }
}

// The phase load is not of the counter.
extern "C" __global__ void phase_of_other_word(unsigned* bar, unsigned* other, unsigned n) {
  if (threadIdx.x == 0) {
    const unsigned old = *(volatile unsigned*)other;
    atomicAdd(bar, blockIdx.x == 0 ? 0x80000001u - n : 1u);
    while ((int)(*(volatile unsigned*)bar ^ old) >= 0) {
    }
  }
}

// Two uses: a loop's and a last one.
__device__ __forceinline__ void flip_sync(unsigned* bar, unsigned n) {
  if (threadIdx.x == 0) {
    const unsigned old = *(volatile unsigned*)bar;
    __threadfence();
    atomicAdd(bar, blockIdx.x == 0 ? 0x80000001u - n : 1u);
    while ((int)(*(volatile unsigned*)bar ^ old) >= 0) {
    }
  }
  __syncthreads();
}
extern "C" __global__ void two_uses(unsigned* bar, float* a, int steps) {
  for (int s = 0; s < steps; ++s) {
    a[blockIdx.x] += 1.0f;
    flip_sync(bar, gridDim.x);
  }
  flip_sync(bar, gridDim.x);
}
