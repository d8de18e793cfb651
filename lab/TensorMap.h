// Host helper: encodes a 2-D tiled TMA tensor map over 32-bit words through the
// driver's cuTensorMapEncodeTiled, reached with cudaGetDriverEntryPoint so the
// lab needs no link against libcuda.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace lab {

// A row-major [rows x cols] array of uint32 at `base`, copied in boxes of
// [boxRows x boxCols] (no swizzle, no interleave).
CUtensorMap encodeTensorMap2d(void* base, uint64_t rows, uint64_t cols, uint32_t boxRows,
                              uint32_t boxCols);

// A row-major [rows x cols] array of bf16 at `base`, copied in boxes of [boxRows x boxCols];
// swizzle64: the 64-byte swizzle (boxCols must then be 32, one 64-byte row).
CUtensorMap encodeTensorMap2dBf16(void* base, uint64_t rows, uint64_t cols, uint32_t boxRows,
                                  uint32_t boxCols, bool swizzle64);

}  // namespace lab
