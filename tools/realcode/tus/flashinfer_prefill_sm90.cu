// Driver (our own): FlashInfer's Hopper prefill attention (flashinfer/attention/hopper/, the
// FlashAttention-3 port), instantiated as FlashInfer's JIT does (single_prefill_sm90 and
// batch_prefill_paged_sm90 kernel_inst templates): bf16, head dim 128, causal, no sliding
// window, the standard variant. Two kernels of one PrefillWithKVCacheKernel template:
//  - single prefill: Q, K, V loaded by TMA (CollectiveMainloop, PipelineTmaAsync), two
//    consumer warp groups ordered by named barriers (WarpScheduler), TMA-store epilogue;
//  - batch prefill over a paged KV cache: K and V gathered page by page with cp.async by the
//    128 producer threads (SparseCollectiveMainloop, cutlass::PipelineAsync), Q still by TMA,
//    consumed by wgmma.
// The parameter structs are ours, with the fields the kernels read (FlashInfer's JIT generates
// them from its customize_config templates). Built with -I <flashinfer>/data/include.
#include "flashinfer/attention/hopper/prefill_sm90.cuh"
#include "flashinfer/attention/hopper/variants.cuh"

namespace {
using DType = cutlass::bfloat16_t;
using Index = int32_t;

struct ScaleOnly {
  float sm_scale;
};

// Fields of a contiguous Q/K/V/O problem, as the single-prefill dispatch reads them.
struct SingleParams {
  using DTypeQ = DType;
  using DTypeKV = DType;
  using DTypeO = DType;
  using IdType = Index;
  using AdditionalParams = ScaleOnly;
  DType *q_ptr, *k_ptr, *v_ptr, *o_ptr;
  float* lse_ptr;
  AdditionalParams additional_params;
  int64_t q_stride_n, k_stride_n, v_stride_n, o_stride_n;
  int64_t q_stride_h, k_stride_h, v_stride_h, o_stride_h;
  int qo_len, kv_len, head_dim, num_qo_heads, num_kv_heads, group_size, window_left;
  bool causal;
};

// Fields of a batch over a paged KV cache, with the planner's work lists.
struct PagedParams {
  using DTypeQ = DType;
  using DTypeKV = DType;
  using DTypeO = DType;
  using IdType = Index;
  using AdditionalParams = ScaleOnly;
  DType *q_ptr, *k_ptr, *v_ptr, *o_ptr;
  float* lse_ptr;
  Index *qo_tile_indices, *qo_indptr, *kv_indptr, *kv_indices, *qo_lens, *kv_lens;
  Index *head_indices, *work_indptr, *batch_indices;
  AdditionalParams additional_params;
  int64_t q_stride_n, k_stride_n, v_stride_n, o_stride_n;
  int64_t q_stride_h, k_stride_h, v_stride_h, o_stride_h;
  int64_t nnz_qo, k_page_stride, v_page_stride;
  int head_dim, num_qo_heads, num_kv_heads, group_size, page_size, window_left;
  bool causal;
};
}  // namespace

namespace flashinfer {
template cudaError_t SinglePrefillWithKVCacheDispatched<128, 128, MaskMode::kCausal,
                                                        /*LEFT_SLIDING_WINDOW=*/false,
                                                        StandardAttention, SingleParams>(
    SingleParams& params, cudaStream_t stream);
template cudaError_t BatchPrefillWithPagedKVCacheDispatched<128, 128, MaskMode::kCausal,
                                                            /*LEFT_SLIDING_WINDOW=*/false,
                                                            /*SAME_SCHEDULE_FOR_ALL_HEADS=*/true,
                                                            StandardAttention, PagedParams>(
    PagedParams& params, bool enable_pdl, cudaStream_t stream);
}  // namespace flashinfer
