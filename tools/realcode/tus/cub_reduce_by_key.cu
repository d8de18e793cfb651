// Driver (our own), session 10 fresh set: CUB's reduce-by-key (cub::DeviceReduce::ReduceByKey,
// CCCL 2.8 from the nvidia-cuda-cccl-cu12 12.9.27 wheel): decoupled look-back over
// (segment count, partial sum) pairs, each tile's status word and payload published as one
// record, plus the run-length encoding that shares the agent (DeviceRunLengthEncode::Encode).
// Built with -I <cccl>/include first.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>

cudaError_t SumByKey(void* temp, size_t& bytes, const int* keys, int* unique, const float* values,
                     float* aggregates, int* runs, int n) {
  return cub::DeviceReduce::ReduceByKey(temp, bytes, keys, unique, values, aggregates, runs,
                                        cuda::std::plus<>{}, n);
}

cudaError_t Encode(void* temp, size_t& bytes, const int* in, int* unique, int* counts, int* runs, int n) {
  return cub::DeviceRunLengthEncode::Encode(temp, bytes, in, unique, counts, runs, n);
}
