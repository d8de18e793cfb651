// cuTensorMapEncodeTiled through the runtime's driver entry point (see TensorMap.h).
#include "TensorMap.h"

#include <cstdio>
#include <cstdlib>

namespace lab {

namespace {
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

EncodeTiled encodeFunction() {
  static EncodeTiled fn = nullptr;
  if (fn) return fn;
  void* entry = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess || !entry) {
    std::fprintf(stderr, "fenceline-lab: cuTensorMapEncodeTiled is not available\n");
    std::exit(2);
  }
  fn = reinterpret_cast<EncodeTiled>(entry);
  return fn;
}
}  // namespace

CUtensorMap encodeTensorMap2d(void* base, uint64_t rows, uint64_t cols, uint32_t boxRows,
                              uint32_t boxCols) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {cols * sizeof(uint32_t)};
  const cuuint32_t box[2] = {boxCols, boxRows};
  const cuuint32_t elementStrides[2] = {1, 1};
  CUresult status = encodeFunction()(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, base, dims, strides, box,
                                     elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                     CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                                     CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS) {
    std::fprintf(stderr, "fenceline-lab: cuTensorMapEncodeTiled failed (%d)\n", static_cast<int>(status));
    std::exit(2);
  }
  return map;
}

CUtensorMap encodeTensorMap2dBf16(void* base, uint64_t rows, uint64_t cols, uint32_t boxRows,
                                  uint32_t boxCols, bool swizzle64) {
  CUtensorMap map{};
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {cols * 2};
  const cuuint32_t box[2] = {boxCols, boxRows};
  const cuuint32_t elementStrides[2] = {1, 1};
  CUresult status = encodeFunction()(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, dims, strides, box,
                                     elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                     swizzle64 ? CU_TENSOR_MAP_SWIZZLE_64B : CU_TENSOR_MAP_SWIZZLE_NONE,
                                     CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (status != CUDA_SUCCESS) {
    std::fprintf(stderr, "fenceline-lab: cuTensorMapEncodeTiled (bf16) failed (%d)\n", static_cast<int>(status));
    std::exit(2);
  }
  return map;
}

}  // namespace lab
