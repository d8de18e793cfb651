// `warpSize` in device code: nvcc writes the PTX predefined constant
// (`mov.u32 %r, WARP_SZ;`), as in NVSHMEM's device headers.
// PtxPredefinedConstantsTest.cpp reads the PTX.
extern "C" __global__ void warp_size_slot(int* out) {
  // out + 4 * warpSize: a constant address once WARP_SZ is known to be 32.
  out[warpSize] = 1;
}

extern "C" __global__ void warp_size_lane(int* out) { out[threadIdx.x] = threadIdx.x % warpSize; }
