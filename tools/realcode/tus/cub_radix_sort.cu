// Driver (our own), session 10 fresh set: CUB's device-wide radix sort (cub::DeviceRadixSort,
// CCCL 2.8 from the nvidia-cuda-cccl-cu12 12.9.27 wheel): the onesweep path (a histogram
// kernel, then one pass per digit whose tiles publish per-bin counts through decoupled
// look-back, with a global tile counter handing out tiles in order) and the classic
// upsweep/scan/downsweep path, instantiated for 32-bit keys with 32-bit values.
// Built with -I <cccl>/include first.
#include <cub/device/device_radix_sort.cuh>

cudaError_t SortPairs(void* temp, size_t& bytes, const unsigned* keys_in, unsigned* keys_out,
                      const int* values_in, int* values_out, int n) {
  return cub::DeviceRadixSort::SortPairs(temp, bytes, keys_in, keys_out, values_in, values_out, n);
}
