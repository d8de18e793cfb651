// Shared by the GPU test programs: CUDA error checking and a pass/fail summary line.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

// Every CUDA call is checked; a failure ends the program with exit code 2.
#define GPU_CHECK(call)                                                                     \
  do {                                                                                      \
    cudaError_t gpu_check_error = (call);                                                   \
    if (gpu_check_error != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
                   cudaGetErrorString(gpu_check_error));                                    \
      std::exit(2);                                                                         \
    }                                                                                       \
  } while (0)

// Launch errors surface at the next call; synchronize and check both.
inline void gpu_check_launch(const char* what) {
  cudaError_t error = cudaGetLastError();
  if (error == cudaSuccess) error = cudaDeviceSynchronize();
  if (error != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(error));
    std::exit(2);
  }
}

// Prints "PASS name: detail" or "FAIL name: detail" and counts failures.
struct TestReport {
  int failures = 0;
  void result(bool ok, const char* name, const char* detail) {
    std::printf("%s %s: %s\n", ok ? "PASS" : "FAIL", name, detail);
    std::fflush(stdout);
    if (!ok) ++failures;
  }
  int exit_code() const { return failures == 0 ? 0 : 1; }
};
