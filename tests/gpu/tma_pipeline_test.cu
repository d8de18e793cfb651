// TmaPipeline on the GPU: moves at least 10^9 bytes (default 10^10) per fence policy and
// copy kind (bulk, 2-D tensor) through a 4-stage ring of 32 KB stages, under the lab's
// proxy-war stress: each of four consumer warps reads its 8 KB slice of a stage with 64
// ld.shared per lane, all 32 lanes in one bank (32-way conflicts), keeps the values in
// registers, hands the stage back and compares them with what the source held only after
// the next stage's wait. A read that the producer's refill overtook sees another tile's data
// and counts as corrupted; both policies must show zero. Three controls built here from the
// raw mbarrier operations show whether the stress reaches the hazard on this GPU: the ring
// with the fence left out, the same without __syncwarp (lane 0 arrives alone), and that with
// the arrive written as the lab's "unfixed" writes it (no .sem/.scope).
#include <cuda.h>
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <cstdint>
#include <cstring>
#include <string>

#include "../../include/fenceline/tma_pipeline.cuh"
#include "gpu_check.h"

using namespace fenceline;

constexpr int kStages = 4;
constexpr int kWordsPerLane = 64;            // reads in flight per lane when the stage is handed back
constexpr int kConsumerWarps = 4;
constexpr int kStageWords = kConsumerWarps * 32 * kWordsPerLane;  // 32 KB: 32 rows of 256 words
constexpr int kStageBytes = kStageWords * 4;
constexpr int kThreads = 32 * (kConsumerWarps + 1);
constexpr int kRowsPerTile = kStageWords / 256;
constexpr uint32_t kSourceTiles = 128;       // 4 MB source at most: stays in L2, refills land fast
constexpr size_t kRingBytes = size_t(kStages) * kStageBytes;  // dynamic shared memory

// Every word of source tile t holds tag(t): one expected value per stage.
__host__ __device__ __forceinline__ uint32_t tag(uint32_t tile) { return 0xA5000000u + tile * 0x10001u; }

// Control 1: TmaPipeline's producer policy without the producer's fence. Never use.
template <int Stages>
struct UnfencedRing : TmaPipeline<Stages, RefillFence::producer> {
  __device__ void producer_acquire(StageCursor<Stages> cursor) const {
    mbarrier_wait_parity(&this->barriers->empty[cursor.stage], cursor.phase ^ 1u);
  }
};

// Control 2: as control 1, and lane 0 arrives without __syncwarp (the lab's "unfixed").
template <int Stages>
struct UnfencedUnsyncedRing : UnfencedRing<Stages> {
  __device__ void consumer_release(StageCursor<Stages> cursor) const {
    if ((threadIdx.x & 31u) == 0) mbarrier_arrive(&this->barriers->empty[cursor.stage]);
  }
};

// Control 3: as control 2, with the arrive written without .sem/.scope (the ISA's default is
// .release.cta, the same semantics as mbarrier_arrive's explicit form), as the lab writes it.
template <int Stages>
struct UnfencedLegacyArriveRing : UnfencedRing<Stages> {
  __device__ void consumer_release(StageCursor<Stages> cursor) const {
    if ((threadIdx.x & 31u) == 0)
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(&this->barriers->empty[cursor.stage]))
                   : "memory");
  }
};

// One ld.shared.u32 per word in the PTX (ptxas still merges neighbours into LDS.128).
__device__ __forceinline__ uint32_t load_shared(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(shared_address(p)) : "memory");
  return v;
}

// Lanes 64 words apart: all 32 lanes of a load in one bank, 32-way conflicts.
__device__ __forceinline__ uint32_t lane_word(uint32_t warp, uint32_t lane, int j) {
  return (warp * 32 + lane) * kWordsPerLane + j;
}


template <class Ring, bool Tensor>
__global__ void __launch_bounds__(kThreads) ring_kernel(const uint32_t* source, const __grid_constant__ CUtensorMap map,
                                                        uint32_t tiles_per_block, uint32_t source_tiles,
                                                        unsigned long long* corrupted) {
  __shared__ StageBarriers<kStages> barriers;
  extern __shared__ __align__(1024) uint32_t ring_memory[];
  auto stages = reinterpret_cast<uint32_t(*)[kStageWords]>(ring_memory);
  Ring ring;  // the controls are TmaPipelines with steps left out: the same init
  ring.barriers = TmaPipeline<kStages, RefillFence::producer>::init(barriers, kConsumerWarps).barriers;
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  StageCursor<kStages> cursor;
  if (warp == kConsumerWarps) {
    if (lane != 0) return;
    for (uint32_t k = 0; k < tiles_per_block; ++k) {
      const uint32_t tile = (blockIdx.x * tiles_per_block + k) % source_tiles;
      ring.producer_acquire(cursor);
      if constexpr (Tensor) {
        ring.producer_commit_tensor_2d(cursor, stages[cursor.stage], &map, 0, static_cast<int>(tile * kRowsPerTile),
                                       kStageBytes);
      } else {
        ring.producer_commit_bulk(cursor, stages[cursor.stage], source + tile * kStageWords, kStageBytes);
      }
      cursor.advance();
    }
    return;
  }
  // The reads of stage k are checked only after the wait for stage k+1: that wait is a loop,
  // so ptxas cannot schedule the checks (which need the loaded values) before the hand-off,
  // and the 64 reads per lane are still in flight when lane 0 arrives, as in real consumers.
  // (Checked right after the release, ptxas interleaves checks and loads and every load has
  // completed before the arrive: the hazard then never shows.)
  uint32_t bad = 0, seen[kWordsPerLane], seen_tag = 0;
  for (uint32_t k = 0; k < tiles_per_block; ++k) {
    const uint32_t tile = (blockIdx.x * tiles_per_block + k) % source_tiles;
    ring.consumer_wait(cursor);
    if (k > 0) {
#pragma unroll
      for (int j = 0; j < kWordsPerLane; ++j) bad += seen[j] != seen_tag;
    }
    const uint32_t* stage = stages[cursor.stage];
#pragma unroll
    for (int j = 0; j < kWordsPerLane; ++j) seen[j] = load_shared(stage + lane_word(warp, lane, j));
    ring.consumer_release(cursor);
    seen_tag = tag(tile);
    cursor.advance();
  }
  if (tiles_per_block > 0) {
#pragma unroll
    for (int j = 0; j < kWordsPerLane; ++j) bad += seen[j] != seen_tag;
  }
  if (bad) atomicAdd(corrupted, static_cast<unsigned long long>(bad));
}

__global__ void fill_kernel(uint32_t* source, uint32_t words) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < words; i += gridDim.x * blockDim.x)
    source[i] = tag(i / kStageWords);
}

// A 2-D view of the source: 256 words wide, kRowsPerTile * kSourceTiles rows; one box = one tile.
static CUtensorMap make_tensor_map(uint32_t* source) {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  cudaDriverEntryPointQueryResult found;
  GPU_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", reinterpret_cast<void**>(&encode), 12000,
                                             cudaEnableDefault, &found));
  if (found != cudaDriverEntryPointSuccess || !encode) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled not found\n");
    std::exit(2);
  }
  CUtensorMap map;
  const cuuint64_t dims[2] = {256, 1ull * kRowsPerTile * kSourceTiles};
  const cuuint64_t strides[1] = {256 * sizeof(uint32_t)};
  const cuuint32_t box[2] = {256, kRowsPerTile};
  const cuuint32_t element_strides[2] = {1, 1};
  CUresult result = encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, source, dims, strides, box, element_strides,
                           CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                           CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", static_cast<int>(result));
    std::exit(2);
  }
  return map;
}

int main(int argc, char** argv) {
  // --source-tiles: distinct 8 KB tiles the copies cycle through (not a divisor of the stage
  // count, or a refill would bring the same data back); --ctas-per-sm: blocks per SM.
  double total_bytes = 1e10;
  uint32_t source_tiles = kSourceTiles, ctas_per_sm = 1;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--bytes")) total_bytes = std::stod(argv[i + 1]);
    if (!std::strcmp(argv[i], "--source-tiles")) source_tiles = std::min<uint32_t>(std::stoul(argv[i + 1]), kSourceTiles);
    if (!std::strcmp(argv[i], "--ctas-per-sm")) ctas_per_sm = std::stoul(argv[i + 1]);
  }
  if (source_tiles == 0 || kStages % source_tiles == 0) {
    std::fprintf(stderr, "--source-tiles must not divide %d\n", kStages);
    return 2;
  }
  std::printf("config: %u CTAs per SM, %u source tiles of %d bytes, %d stages, %d consumer warps\n", ctas_per_sm,
              source_tiles, kStageBytes, kStages, kConsumerWarps);
  TestReport report;
  int device = 0, sms = 0;
  GPU_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const uint32_t blocks = static_cast<uint32_t>(sms) * ctas_per_sm;
  const uint32_t tiles_per_launch = 1u << 16;  // cap on tiles per block and launch
  uint32_t* source = nullptr;
  unsigned long long* corrupted = nullptr;
  GPU_CHECK(cudaMalloc(&source, sizeof(uint32_t) * kStageWords * kSourceTiles));
  GPU_CHECK(cudaMalloc(&corrupted, sizeof(unsigned long long)));
  fill_kernel<<<256, 256>>>(source, kStageWords * kSourceTiles);
  gpu_check_launch("fill");
  const CUtensorMap map = make_tensor_map(source);
  // Launches of about 10^9 bytes each until total_bytes have moved.
  const uint32_t tiles_per_block =
      std::min<uint32_t>(tiles_per_launch, static_cast<uint32_t>(1e9 / (double(kStageBytes) * blocks)) + 1);
  const double bytes_per_launch = double(kStageBytes) * blocks * tiles_per_block;
  const int launches = static_cast<int>((total_bytes + bytes_per_launch - 1) / bytes_per_launch);

  auto run = [&](auto kernel, const char* name, bool must_be_clean) {
    GPU_CHECK(cudaMemset(corrupted, 0, sizeof(unsigned long long)));
    cudaEvent_t start, stop;
    GPU_CHECK(cudaEventCreate(&start));
    GPU_CHECK(cudaEventCreate(&stop));
    GPU_CHECK(cudaEventRecord(start));
    GPU_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kRingBytes)));
    for (int l = 0; l < launches; ++l) kernel<<<blocks, kThreads, kRingBytes>>>(source, map, tiles_per_block, source_tiles, corrupted);
    GPU_CHECK(cudaEventRecord(stop));
    gpu_check_launch(name);
    float ms = 0;
    GPU_CHECK(cudaEventElapsedTime(&ms, start, stop));
    unsigned long long bad = 0;
    GPU_CHECK(cudaMemcpy(&bad, corrupted, sizeof bad, cudaMemcpyDeviceToHost));
    const double bytes = bytes_per_launch * launches;
    const double reads = bytes / 4;
    char detail[256];
    std::snprintf(detail, sizeof detail, "%.3g bytes, %.3g reads, %llu corrupted (%.3g%%), %.3f s, %.1f ns/stage/block",
                  bytes, reads, bad, 100.0 * bad / reads, ms / 1e3,
                  ms * 1e6 / (double(tiles_per_block) * launches) * 1.0);
    if (must_be_clean) {
      report.result(bad == 0, name, detail);
    } else {
      std::printf("INFO %s (control, the bug): %s\n", name, detail);
      std::fflush(stdout);
    }
  };

  using Consumers = TmaPipeline<kStages, RefillFence::consumers>;
  using Producer = TmaPipeline<kStages, RefillFence::producer>;
  using Unfenced = UnfencedRing<kStages>;
  using Unsynced = UnfencedUnsyncedRing<kStages>;
  using Legacy = UnfencedLegacyArriveRing<kStages>;
  run(ring_kernel<Consumers, false>, "tma-pipeline-bulk-consumers-fence", true);
  run(ring_kernel<Producer, false>, "tma-pipeline-bulk-producer-fences", true);
  run(ring_kernel<Unfenced, false>, "tma-pipeline-bulk-unfenced", false);
  run(ring_kernel<Unsynced, false>, "tma-pipeline-bulk-unfenced-no-syncwarp", false);
  run(ring_kernel<Legacy, false>, "tma-pipeline-bulk-unfenced-no-syncwarp-default-arrive", false);
  run(ring_kernel<Consumers, true>, "tma-pipeline-tensor-consumers-fence", true);
  run(ring_kernel<Producer, true>, "tma-pipeline-tensor-producer-fences", true);
  run(ring_kernel<Unfenced, true>, "tma-pipeline-tensor-unfenced", false);
  run(ring_kernel<Unsynced, true>, "tma-pipeline-tensor-unfenced-no-syncwarp", false);
  run(ring_kernel<Legacy, true>, "tma-pipeline-tensor-unfenced-no-syncwarp-default-arrive", false);

  GPU_CHECK(cudaFree(source));
  GPU_CHECK(cudaFree(corrupted));
  return report.exit_code();
}
