// Driver (our own), session 10 fresh set: CUB's device-wide prefix scan (cub::DeviceScan,
// CCCL 2.8 from the nvidia-cuda-cccl-cu12 12.9.27 wheel, ahead of the toolkit's CCCL): a
// single-pass scan with decoupled look-back, tiles publishing their aggregate and inclusive
// prefix through status words (ScanTileState) that later tiles poll. Host functions of ours
// call the dispatch, which instantiates the init and scan kernels for int sums and float
// maxima. Built with -I <cccl>/include first.
#include <cub/device/device_scan.cuh>

cudaError_t InclusiveSumInt(void* temp, size_t& bytes, const int* in, int* out, int n) {
  return cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n);
}

cudaError_t ExclusiveMaxFloat(void* temp, size_t& bytes, const float* in, float* out, int n) {
  return cub::DeviceScan::ExclusiveScan(temp, bytes, in, out, cuda::maximum<>{}, -1.0f, n);
}
