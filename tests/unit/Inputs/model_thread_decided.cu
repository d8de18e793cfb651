// Block-strided loops that nvcc unrolls by four with a remainder in front
// (model/ThreadDecidedBranches.h). With 1024 threads and 256 items, only
// the first iteration (i = tid) runs; with 2500, the third iteration runs
// for some threads and not others.
__global__ void __launch_bounds__(1024) strided_256(unsigned* out, const unsigned* in, int rows) {
  __shared__ unsigned local[1024];
  for (int row = 0; row < rows; ++row) {
    local[threadIdx.x] = in[row * 1024 + threadIdx.x];
    __syncthreads();
    for (unsigned i = threadIdx.x; i < 256; i += 1024)
      if (local[i] > 0) atomicAdd(&out[i], local[i]);
    __syncthreads();
  }
}

// 2500 items: threads below 452 run three iterations, the others two; the
// remainder in front of the four-way body runs them all.
__global__ void __launch_bounds__(1024) strided_2500(unsigned* out, const unsigned* in, int rows) {
  __shared__ unsigned local[1024];
  for (int row = 0; row < rows; ++row) {
    local[threadIdx.x] = in[row * 1024 + threadIdx.x];
    __syncthreads();
    for (unsigned i = threadIdx.x; i < 2500; i += 1024)
      if (local[i % 1024] > 0) atomicAdd(&out[i], local[i % 1024]);
    __syncthreads();
  }
}
