// gemm and gemm-latency: the SM120 incident's hazard in a real GEMM (GemmKernel.cuh), not
// in a synthetic ring. Consumer warps read a TMA-filled stage with ldmatrix and lane 0
// hands it back before the MMAs use the values; without a fence.proxy.async between the
// reads and the producer's next tensor copy into that stage (shared/ordering-rules.md,
// "proxy-war"), the copy may overwrite data the ldmatrix loads have not yet read, and a run
// on the same inputs returns a different C. Variants (the hand-off only):
//   unfixed         __syncwarp, lane 0 arrives on "empty"                      -> proxy-war
//   consumer-fence  every thread fences, __syncwarp, lane 0 arrives (the incident's merged fix)
//   producer-fence  as unfixed; the producer fences after its wait, before the copies
//   lane0-fence     __syncwarp, lane 0 fences and arrives (covers lane 0 only) -> proxy-war
//   generic-fence   every thread fence.acq_rel.cta instead of the proxy fence  -> proxy-war
//   lib-consumers   fenceline::TmaPipeline<7, RefillFence::consumers>
//   lib-producer    fenceline::TmaPipeline<7, RefillFence::producer>
// Each kernel is a template over its shape (GemmKernel.cuh's GemmShape: tile width, warp
// grid, consumer schedule; the shapes built are FENCELINE_LAB_GEMM_SHAPES below), picked by
// the knobs gemm.tile_n, gemm.warps and gemm.schedule. The lib-* variants need stages=7.
// fenceline check reports each broken arrive twice, once per place gemmRing reads a stage
// (the same-stage loop and the prefetch loop), hence "proxy-war, proxy-war" on those lines.
//
// gemm runs one variant in the incident's protocol: fixed seed, the first run checked
// against a reference GEMM, then `runs` runs compared bitwise with the first (mode
// "repeat": each GEMM followed by its comparison; "back-to-back": 8 GEMMs into 8 buffers,
// then the 8 comparisons), batched in CUDA graphs, optionally beside a co-running memory
// kernel. A/B/A is three invocations (lab/run-gemm-h200.sh). gemm-latency times every
// variant's GEMM in CUDA graphs, the variants interleaved replay by replay, medians.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

#include "../../include/fenceline/tma_pipeline.cuh"
#include "../Experiment.h"
#include "../TensorMap.h"
#include "GemmKernel.cuh"
#include "GemmSupport.cuh"

namespace lab::gemm {

// A hand-off: the producer's wait and what it runs before a refill, the consumers' wait
// and what each consumer lane runs after its reads of a stage (GemmKernel.cuh calls them).
template <class WaitEmpty, class BeforeRefill, class WaitFull, class Release>
struct Handoff {
  WaitEmpty waitEmpty;
  BeforeRefill beforeRefill;
  WaitFull waitFull;
  Release release;
};

template <class WaitEmpty, class BeforeRefill, class WaitFull, class Release>
__device__ Handoff<WaitEmpty, BeforeRefill, WaitFull, Release> makeHandoff(WaitEmpty we, BeforeRefill b, WaitFull wf,
                                                                           Release r) {
  return {we, b, wf, r};
}

// The lab's bounded waits (DeviceCommon.cuh); the producer's first round passes at once.
__device__ __forceinline__ bool labWaitEmpty(uint32_t emptyBar, unsigned, unsigned round, uint64_t deadline) {
  return round == 0 || mbarrierWait(emptyBar, (round - 1) & 1, deadline);
}
__device__ __forceinline__ bool labWaitFull(uint32_t fullBar, unsigned, unsigned round, uint64_t deadline) {
  return mbarrierWait(fullBar, round & 1, deadline);
}
template <class BeforeRefill, class Release>
__device__ auto handoff(BeforeRefill b, Release r) {
  return makeHandoff(labWaitEmpty, b, labWaitFull, r);
}
__device__ __forceinline__ void nothingBeforeRefill(unsigned, unsigned) {}

template <class Shape>
__global__ void __launch_bounds__(Shape::kThreads, 1) gemmUnfixed(const __grid_constant__ Params p) {
  gemmRing<Shape>(p, handoff(nothingBeforeRefill, [](uint32_t emptyBar, unsigned lane, unsigned, unsigned) {
    __syncwarp();
    if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(emptyBar) : "memory");  // expect: proxy-war, proxy-war
  }));
}

template <class Shape>
__global__ void __launch_bounds__(Shape::kThreads, 1) gemmConsumerFence(const __grid_constant__ Params p) {
  gemmRing<Shape>(p, handoff(nothingBeforeRefill, [](uint32_t emptyBar, unsigned lane, unsigned, unsigned) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncwarp();
    if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(emptyBar) : "memory");
  }));
}

template <class Shape>
__global__ void __launch_bounds__(Shape::kThreads, 1) gemmProducerFence(const __grid_constant__ Params p) {
  gemmRing<Shape>(p, handoff([](unsigned, unsigned) { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); },
                             [](uint32_t emptyBar, unsigned lane, unsigned, unsigned) {
                               __syncwarp();
                               if (lane == 0)
                                 asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(emptyBar) : "memory");
                             }));
}

template <class Shape>
__global__ void __launch_bounds__(Shape::kThreads, 1) gemmLane0Fence(const __grid_constant__ Params p) {
  gemmRing<Shape>(p, handoff(nothingBeforeRefill, [](uint32_t emptyBar, unsigned lane, unsigned, unsigned) {
    __syncwarp();
    if (lane == 0) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(emptyBar) : "memory");  // expect: proxy-war, proxy-war
    }
  }));
}

template <class Shape>
__global__ void __launch_bounds__(Shape::kThreads, 1) gemmGenericFence(const __grid_constant__ Params p) {
  gemmRing<Shape>(p, handoff(nothingBeforeRefill, [](uint32_t emptyBar, unsigned lane, unsigned, unsigned) {
    asm volatile("fence.acq_rel.cta;" ::: "memory");  // orders the generic proxy only
    __syncwarp();
    if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(emptyBar) : "memory");  // expect: proxy-war, proxy-war
  }));
}

constexpr int kLibStages = 7;

template <int TileN, fenceline::RefillFence F>
__device__ fenceline::TmaPipeline<kLibStages, F> libraryPipeline(const Params& p) {
  return {static_cast<fenceline::StageBarriers<kLibStages>*>(ringBarriers<TileN>(p))};
}

// The whole hand-off through fenceline::TmaPipeline: its bounded waits, its release, and
// (RefillFence::producer) the fence inside producer_acquire_until.
template <int TileN, fenceline::RefillFence F>
__device__ auto libraryHandoff(const Params& p) {
  using Cursor = fenceline::StageCursor<kLibStages>;
  const auto pipe = libraryPipeline<TileN, F>(p);
  return makeHandoff([pipe](uint32_t, unsigned stage, unsigned round, uint64_t deadline) {
                   return pipe.producer_acquire_until(Cursor{stage, round & 1}, deadline);
                 },
                 nothingBeforeRefill,
                 [pipe](uint32_t, unsigned stage, unsigned round, uint64_t deadline) {
                   return pipe.consumer_wait_until(Cursor{stage, round & 1}, deadline);
                 },
                 [pipe](uint32_t, unsigned, unsigned stage, unsigned round) {
                   pipe.consumer_release(Cursor{stage, round & 1});
                 });
}

template <class Shape>
__global__ void __launch_bounds__(Shape::kThreads, 1) gemmLibConsumers(const __grid_constant__ Params p) {
  gemmRing<Shape>(p, libraryHandoff<Shape::kTileN, fenceline::RefillFence::consumers>(p));
}

template <class Shape>
__global__ void __launch_bounds__(Shape::kThreads, 1) gemmLibProducer(const __grid_constant__ Params p) {
  gemmRing<Shape>(p, libraryHandoff<Shape::kTileN, fenceline::RefillFence::producer>(p));
}

// ---- host side -------------------------------------------------------------

using Kernel = void (*)(Params);

// The shapes built (GemmKernel.cuh): tile width, warp grid, consumer schedule. The first is
// the default; the knobs gemm.tile_n, gemm.warps ("4x2", "8x1", "8x2") and gemm.schedule
// ("same-stage", "pinned", "prefetch"; gemm.pinned_release=1 is "pinned") pick one.
#define FENCELINE_LAB_GEMM_SHAPES(X, k)                                                                 \
  X(k, 96, 4, 2, same_stage) X(k, 96, 4, 2, pinned) X(k, 128, 4, 2, same_stage) X(k, 128, 4, 2, pinned)  \
  X(k, 96, 4, 2, prefetch) X(k, 96, 8, 1, same_stage) X(k, 96, 8, 1, pinned) X(k, 96, 8, 1, prefetch)    \
  X(k, 96, 8, 2, same_stage) X(k, 96, 8, 2, pinned) X(k, 96, 8, 2, prefetch) X(k, 96, 8, 3, same_stage)     \
  X(k, 96, 8, 3, prefetch)

struct ShapeInfo {
  int tileN, warpsM, warpsN;
  Schedule schedule;
  int threads;
};
#define FENCELINE_LAB_GEMM_SHAPE_INFO(k, n, wm, wn, s) \
  {n, wm, wn, Schedule::s, GemmShape<n, wm, wn, Schedule::s>::kThreads},
const ShapeInfo kShapes[] = {FENCELINE_LAB_GEMM_SHAPES(FENCELINE_LAB_GEMM_SHAPE_INFO, _)};
#undef FENCELINE_LAB_GEMM_SHAPE_INFO
constexpr int kShapeCount = sizeof kShapes / sizeof kShapes[0];

const char* scheduleName(Schedule s) {
  constexpr const char* kNames[] = {"same-stage", "pinned", "prefetch"};
  return kNames[static_cast<int>(s)];
}

struct Variant {
  const char* name;
  Kernel kernels[kShapeCount];  // in kShapes' order
  bool library;
};

#define FENCELINE_LAB_GEMM_KERNEL(k, n, wm, wn, s) k<GemmShape<n, wm, wn, Schedule::s>>,
#define FENCELINE_LAB_GEMM(name, kernel, library) \
  {name, {FENCELINE_LAB_GEMM_SHAPES(FENCELINE_LAB_GEMM_KERNEL, kernel)}, library}
const Variant kVariants[] = {
    FENCELINE_LAB_GEMM("unfixed", gemmUnfixed, false),
    FENCELINE_LAB_GEMM("consumer-fence", gemmConsumerFence, false),
    FENCELINE_LAB_GEMM("producer-fence", gemmProducerFence, false),
    FENCELINE_LAB_GEMM("lane0-fence", gemmLane0Fence, false),
    FENCELINE_LAB_GEMM("generic-fence", gemmGenericFence, false),
    FENCELINE_LAB_GEMM("lib-consumers", gemmLibConsumers, true),
    FENCELINE_LAB_GEMM("lib-producer", gemmLibProducer, true),
};
#undef FENCELINE_LAB_GEMM
#undef FENCELINE_LAB_GEMM_KERNEL

const Variant* findVariant(const std::string& name) {
  for (const auto& v : kVariants)
    if (name == v.name) return &v;
  return nullptr;
}

[[noreturn]] void usage(const char* message) {
  std::fprintf(stderr, "fenceline-lab: gemm: %s\n", message);
  std::exit(2);
}

// The problem and its knobs (--param gemm.*), checked once.
struct Config {
  int m, n, k, tileN, ctas;
  unsigned stages, swizzle;
  int shape;  // index into kShapes
  uint64_t timeoutNs;
  static Config read(const RunContext& ctx) {
    Config c{};
    c.m = static_cast<int>(ctx.param("gemm.m", 4096));
    c.n = static_cast<int>(ctx.param("gemm.n", 896));
    c.k = static_cast<int>(ctx.param("gemm.k", 1024));
    c.tileN = static_cast<int>(ctx.param("gemm.tile_n", 96));
    c.stages = static_cast<unsigned>(ctx.param("gemm.stages", 7));
    c.swizzle = static_cast<unsigned>(ctx.param("gemm.swizzle", 1));
    const std::string warps = ctx.param("gemm.warps", "4x2");
    std::string schedule = ctx.param("gemm.schedule", "same-stage");
    if (ctx.param("gemm.pinned_release", 0) != 0) schedule = "pinned";
    c.shape = -1;
    for (int i = 0; i < kShapeCount; ++i)
      if (kShapes[i].tileN == c.tileN && warps == std::to_string(kShapes[i].warpsM) + "x" + std::to_string(kShapes[i].warpsN) &&
          schedule == scheduleName(kShapes[i].schedule))
        c.shape = i;
    c.ctas = static_cast<int>(ctx.param("gemm.ctas", ctx.device->multiProcessorCount));
    c.timeoutNs = static_cast<uint64_t>(ctx.param("gemm.timeout_ms", 2000)) * 1000000ull;
    if (c.tileN != 96 && c.tileN != 128) usage("tile_n must be 96 or 128");
    if (c.shape < 0) usage("no kernel built for this tile_n, warps and schedule (gemm.cu: FENCELINE_LAB_GEMM_SHAPES)");
    if (c.stages < 1 || c.stages > kMaxStages) usage("stages must be 1..8");
    if (c.m <= 0 || c.n <= 0 || c.k <= 0 || c.k % kTileK || c.n % 8) usage("need m, n, k > 0, k % 32 == 0, n % 8 == 0");
    if (c.ctas <= 0) usage("ctas must be > 0");
    return c;
  }
  double flops() const { return 2.0 * m * n * static_cast<double>(k); }
};

// Device buffers of one problem: inputs, reference, output buffers and per-run counters.
struct Problem {
  Config config;
  __nv_bfloat16 *a = nullptr, *b = nullptr;
  float* ref = nullptr;
  std::vector<float*> outs;
  float* first = nullptr;
  unsigned* mismatches = nullptr;  // [batch]
  uint32_t* samples = nullptr;     // [batch][kSamplesPerRun]
  unsigned* timeouts = nullptr;
  double* sums = nullptr;
  Params params{};

  size_t elements() const { return static_cast<size_t>(config.m) * config.n; }

  Problem(const Config& c, uint64_t seed, int outputs, int batch) : config(c) {
    const size_t aCount = static_cast<size_t>(c.m) * c.k, bCount = static_cast<size_t>(c.n) * c.k;
    check(cudaMalloc(&a, aCount * 2), "cudaMalloc");
    check(cudaMalloc(&b, bCount * 2), "cudaMalloc");
    check(cudaMalloc(&ref, elements() * 4), "cudaMalloc");
    check(cudaMalloc(&first, elements() * 4), "cudaMalloc");
    outs.resize(outputs);
    for (auto& o : outs) check(cudaMalloc(&o, elements() * 4), "cudaMalloc");
    check(cudaMalloc(&mismatches, batch * sizeof(unsigned)), "cudaMalloc");
    check(cudaMalloc(&samples, static_cast<size_t>(batch) * kSamplesPerRun * 4), "cudaMalloc");
    check(cudaMalloc(&timeouts, sizeof(unsigned)), "cudaMalloc");
    check(cudaMalloc(&sums, 3 * sizeof(double)), "cudaMalloc");
    check(cudaMemset(timeouts, 0, sizeof(unsigned)), "cudaMemset");
    fillRandomBf16<<<1024, 256>>>(a, aCount, seed);
    fillRandomBf16<<<1024, 256>>>(b, bCount, seed ^ 0xB0B0B0B0ull);
    referenceGemm<<<dim3((c.n + 127) / 128, c.m), 128>>>(a, b, ref, c.m, c.n, c.k);
    check(cudaDeviceSynchronize(), "reference GEMM");
    params.a = encodeTensorMap2dBf16(a, c.m, c.k, kTileM, kTileK, c.swizzle != 0);
    params.b = encodeTensorMap2dBf16(b, c.n, c.k, c.tileN, kTileK, c.swizzle != 0);
    params.m = c.m;
    params.n = c.n;
    params.k = c.k;
    params.stages = c.stages;
    params.swizzle = c.swizzle;
    params.timeouts = timeouts;
    params.timeoutNs = c.timeoutNs;
  }
  ~Problem() {
    for (void* p : {static_cast<void*>(a), static_cast<void*>(b), static_cast<void*>(ref), static_cast<void*>(first),
                    static_cast<void*>(mismatches), static_cast<void*>(samples), static_cast<void*>(timeouts),
                    static_cast<void*>(sums)})
      cudaFree(p);
    for (float* o : outs) cudaFree(o);
  }

  Kernel kernelOf(const Variant& v) const {
    Kernel kernel = v.kernels[config.shape];
    check(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(sharedBytes(config.tileN, config.stages))),
          "cudaFuncSetAttribute");
    return kernel;
  }
  void launch(Kernel kernel, float* out, cudaStream_t stream) const {
    Params p = params;
    p.c = out;
    kernel<<<config.ctas, kShapes[config.shape].threads, sharedBytes(config.tileN, config.stages), stream>>>(p);
  }
  void compare(const float* out, int run, cudaStream_t stream) const {
    compareBitwise<<<264, 512, 0, stream>>>(reinterpret_cast<const uint32_t*>(out),
                                            reinterpret_cast<const uint32_t*>(first), elements(), mismatches + run,
                                            samples + static_cast<size_t>(run) * kSamplesPerRun);
  }
  unsigned timeoutCount() const {
    unsigned host = 0;
    check(cudaMemcpy(&host, timeouts, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }
  // ||out - ref|| / ||ref||, and the number of non-finite (unwritten: poisoned) elements.
  std::pair<double, double> error(const float* out) const {
    check(cudaMemset(sums, 0, 3 * sizeof(double)), "cudaMemset");
    errorSums<<<264, 512>>>(out, ref, elements(), sums);
    double host[3];
    check(cudaMemcpy(host, sums, sizeof host, cudaMemcpyDeviceToHost), "error sums");
    return {std::sqrt(host[0] / host[1]), host[2]};
  }
};

// The batch of runs one graph replay makes: GEMMs and their comparisons with the first run.
cudaGraphExec_t captureBatch(const Problem& problem, Kernel kernel, const std::string& mode, int batch) {
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  check(cudaMemsetAsync(problem.mismatches, 0, batch * sizeof(unsigned), stream), "cudaMemsetAsync");
  const int group = mode == "back-to-back" ? static_cast<int>(problem.outs.size()) : 1;
  for (int run = 0; run < batch; run += group) {
    for (int j = 0; j < group; ++j) problem.launch(kernel, problem.outs[j], stream);
    for (int j = 0; j < group; ++j) problem.compare(problem.outs[j], run + j, stream);
  }
  cudaGraph_t graph;
  check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
  cudaGraphExec_t exec;
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  check(cudaGraphDestroy(graph), "cudaGraphDestroy");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  return exec;
}

// The co-running kernel: gemm.stress=1 streams device memory (memoryStress), 2 hammers its
// own shared memory (sharedStress: the SM's shared-memory pipe, which the GEMM's ldmatrix
// loads queue on); started before each replay on a stream of its own, stopped by a flag set
// behind the replay.
struct MemoryStress {
  bool on = false;
  uint4* buffer = nullptr;
  unsigned* stop = nullptr;
  cudaStream_t stream = nullptr;
  cudaEvent_t began = nullptr, ended = nullptr;
  mutable double seconds = 0;  // how long the memory kernel ran, summed over the batches
  size_t words = size_t(64) << 20;  // 256 MB: several times the L2
  int blocks = 0;
  int kind = 0;
  explicit MemoryStress(const RunContext& ctx) : on(ctx.param("gemm.stress", 0) != 0) {
    if (!on) return;
    kind = static_cast<int>(ctx.param("gemm.stress", 0));
    if (kind != 1 && kind != 2) usage("stress must be 0, 1 (device memory) or 2 (shared memory)");
    check(cudaFuncSetAttribute(reinterpret_cast<const void*>(sharedStress),
                               cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared),
          "cudaFuncSetAttribute");
    blocks = static_cast<int>(ctx.param("gemm.stress_blocks", ctx.device->multiProcessorCount));
    check(cudaMalloc(&buffer, words * 4), "cudaMalloc");
    check(cudaMemset(buffer, 0x11, words * 4), "cudaMemset");
    check(cudaMalloc(&stop, sizeof(unsigned)), "cudaMalloc");
    // The same shared-memory carveout as the GEMM's: an SM switches carveouts only when
    // idle, so with the default (little shared memory) the GEMM's CTAs waited for the
    // memory kernel to end (seen in run 2: every batch took the memory kernel's time limit).
    check(cudaFuncSetAttribute(reinterpret_cast<const void*>(memoryStress),
                               cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared),
          "cudaFuncSetAttribute");
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&began), "cudaEventCreate");
    check(cudaEventCreate(&ended), "cudaEventCreate");
  }
  ~MemoryStress() {
    if (!on) return;
    cudaFree(buffer);
    cudaFree(stop);
    cudaEventDestroy(began);
    cudaEventDestroy(ended);
    cudaStreamDestroy(stream);
  }
  void start() const {
    if (!on) return;
    check(cudaMemsetAsync(stop, 0, sizeof(unsigned), stream), "cudaMemsetAsync");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");  // reset before the batch's stop can land
    check(cudaEventRecord(began, stream), "cudaEventRecord");
    if (kind == 1)
      memoryStress<<<blocks, 256, 0, stream>>>(buffer, words, stop, 2'000'000'000ull);
    else
      sharedStress<<<blocks, 256, kSharedStressBytes, stream>>>(reinterpret_cast<unsigned*>(buffer), stop,
                                                                2'000'000'000ull);
    check(cudaGetLastError(), "memoryStress");
    check(cudaEventRecord(ended, stream), "cudaEventRecord");
  }
  void stopAfter(cudaStream_t mainStream) const {
    if (on) check(cudaMemsetAsync(stop, 1, sizeof(unsigned), mainStream), "cudaMemsetAsync");
  }
  void join() const {
    if (!on) return;
    check(cudaStreamSynchronize(stream), "memory stress");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, began, ended), "cudaEventElapsedTime");
    seconds += ms / 1e3;
  }
};

// What the bad runs looked like: wrong elements, and where the sampled ones lie.
struct Mismatches {
  uint64_t badRuns = 0, wrongElements = 0, maxPerRun = 0, firstBadRun = 0;
  std::set<int> columns;  // output columns of the sampled wrong elements of the first bad runs
  int rowMin = 1 << 30, rowMax = -1;
  std::string firstRunSample;

  void add(uint64_t runIndex, unsigned count, const uint32_t* sample, int n) {
    if (count == 0) return;
    if (badRuns++ == 0) firstBadRun = runIndex;
    wrongElements += count;
    maxPerRun = std::max<uint64_t>(maxPerRun, count);
    if (badRuns > 4) return;  // positions of the first four bad runs only
    std::set<int> runColumns;
    int lo = 1 << 30, hi = -1;
    for (unsigned i = 0; i < std::min(count, kSamplesPerRun); ++i) {
      const int row = static_cast<int>(sample[i] / n), col = static_cast<int>(sample[i] % n);
      columns.insert(col);
      runColumns.insert(col);
      lo = std::min(lo, row);
      hi = std::max(hi, row);
    }
    rowMin = std::min(rowMin, lo);
    rowMax = std::max(rowMax, hi);
    char text[160];
    std::snprintf(text, sizeof text, "%srun %llu: %u wrong, %zu columns (first %d), rows %d-%d",
                  firstRunSample.empty() ? "" : "; ", static_cast<unsigned long long>(runIndex), count,
                  runColumns.size(), *runColumns.begin(), lo, hi);
    firstRunSample += text;
  }
};

void setConfig(Result& r, const Config& c) {
  r.set("m", c.m);
  r.set("n", c.n);
  r.set("k", c.k);
  r.set("tile", "128x" + std::to_string(c.tileN) + "x32");
  r.set("stages", c.stages);
  r.set("ctas", c.ctas);
  r.set("swizzle", c.swizzle ? "64B" : "none");
  const ShapeInfo& shape = kShapes[c.shape];
  r.set("warps", std::to_string(shape.warpsM) + "x" + std::to_string(shape.warpsN));
  r.set("schedule", scheduleName(shape.schedule));
}

std::vector<Result> runRepeatability(const RunContext& ctx, const std::string& variantName) {
  const Variant* variant = findVariant(variantName);
  const Config config = Config::read(ctx);
  if (variant->library && config.stages != kLibStages) {
    std::fprintf(stderr, "fenceline-lab: gemm %s: skipped (the library ring is built for %d stages)\n",
                 variantName.c_str(), kLibStages);
    return {};
  }
  const std::string mode = ctx.param("gemm.mode", "repeat");
  if (mode != "repeat" && mode != "back-to-back") usage("mode must be repeat or back-to-back");
  const int group = mode == "back-to-back" ? 8 : 1;
  const int batch = static_cast<int>((ctx.param("gemm.batch", 96) + group - 1) / group * group);
  const uint64_t runs = static_cast<uint64_t>(ctx.param("gemm.runs", 6000));
  Problem problem(config, ctx.seed, group, batch);
  const Kernel kernel = problem.kernelOf(*variant);
  Result result{"gemm", variantName};
  setConfig(result, config);
  result.set("mode", mode);

  // Run 1: poisoned output, checked against the reference; it becomes the bitwise baseline.
  check(cudaMemset(problem.first, 0xFF, problem.elements() * 4), "cudaMemset");
  result.seconds += timedLaunch(ctx, "gemm", [&] { problem.launch(kernel, problem.first, 0); });
  const auto [relativeError, unwritten] = problem.error(problem.first);
  result.set("rel_error_vs_reference", relativeError);
  result.set("unwritten_elements", unwritten);
  const bool correct = relativeError < 1e-5 && unwritten == 0 && problem.timeoutCount() == 0;
  result.set("first_run_correct", correct ? "yes" : "no");

  const MemoryStress stress(ctx);
  result.set("memory_stress", stress.on ? "yes" : "no");
  const cudaGraphExec_t exec = captureBatch(problem, kernel, mode, batch);
  std::vector<unsigned> counts(batch);
  std::vector<uint32_t> samples(static_cast<size_t>(batch) * kSamplesPerRun);
  Mismatches seen;
  const auto began = std::chrono::steady_clock::now();
  uint64_t done = 0;
  while (done < runs && secondsSince(began) < ctx.budgetSeconds) {
    stress.start();
    result.seconds += timedLaunch(ctx, "gemm", [&] {
      check(cudaGraphLaunch(exec, 0), "cudaGraphLaunch");
      stress.stopAfter(0);
    });
    stress.join();
    check(cudaMemcpy(counts.data(), problem.mismatches, batch * sizeof(unsigned), cudaMemcpyDeviceToHost), "counts");
    check(cudaMemcpy(samples.data(), problem.samples, samples.size() * 4, cudaMemcpyDeviceToHost), "samples");
    for (int i = 0; i < batch; ++i)
      seen.add(done + i + 2, counts[i], &samples[static_cast<size_t>(i) * kSamplesPerRun], config.n);
    done += batch;
    ++result.launches;
  }
  check(cudaGraphExecDestroy(exec), "cudaGraphExecDestroy");
  const unsigned timeouts = problem.timeoutCount();
  if (timeouts) result.status = "timeout";
  if (!correct) result.status = "wrong";
  result.trials = done;
  result.violations = seen.badRuns;
  result.set("mismatching_runs", static_cast<double>(seen.badRuns));
  result.set("wrong_elements", static_cast<double>(seen.wrongElements));
  result.set("max_wrong_per_run", static_cast<double>(seen.maxPerRun));
  if (seen.badRuns) {
    result.set("first_bad_run", static_cast<double>(seen.firstBadRun));
    result.set("sampled_columns", static_cast<double>(seen.columns.size()));
    result.set("bad_runs_sample", seen.firstRunSample);
  }
  result.set("timeouts", timeouts);
  if (stress.on) result.set("memory_kernel_seconds", stress.seconds);  // vs "seconds": did it co-run
  result.set("ms_per_run_with_compare", result.seconds / static_cast<double>(done + 1) * 1e3);
  return {result};
}

// Every variant's GEMM, timed in graphs of `graph_gemms` launches; one replay of each
// variant per round, `rounds` rounds, the median replay per variant.
std::vector<Result> runLatency(const RunContext& ctx) {
  const Config config = Config::read(ctx);
  const int gemmsPerGraph = static_cast<int>(ctx.param("gemm.graph_gemms", 20));
  const int rounds = static_cast<int>(ctx.param("gemm.rounds", 41));
  Problem problem(config, ctx.seed, 1, 1);
  struct Timed {
    const Variant* variant;
    cudaGraphExec_t exec;
    std::vector<double> ms;
  };
  std::vector<Timed> timed;
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  for (const auto& v : kVariants) {
    if (v.library && config.stages != kLibStages) continue;
    const Kernel kernel = problem.kernelOf(v);
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    for (int i = 0; i < gemmsPerGraph; ++i) problem.launch(kernel, problem.outs[0], stream);
    cudaGraph_t graph;
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    cudaGraphExec_t exec;
    check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    check(cudaGraphDestroy(graph), "cudaGraphDestroy");
    timed.push_back({&v, exec, {}});
  }
  double total = 0;
  for (int r = -2; r < rounds; ++r)  // two warm-up rounds
    for (auto& t : timed) {
      const double s = timedLaunch(ctx, "gemm-latency", [&] { check(cudaGraphLaunch(t.exec, 0), "cudaGraphLaunch"); });
      total += s;
      if (r >= 0) t.ms.push_back(s * 1e3 / gemmsPerGraph);
    }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double unfixed = median(timed.front().ms);
  std::vector<Result> results;
  for (auto& t : timed) {
    Result r{"gemm-latency", t.variant->name};
    setConfig(r, config);
    const double us = median(t.ms) * 1e3;
    r.seconds = total / timed.size();
    r.launches = rounds;
    r.trials = static_cast<uint64_t>(rounds) * gemmsPerGraph;
    r.set("us_median", us);
    r.set("us_min", *std::min_element(t.ms.begin(), t.ms.end()) * 1e3);
    r.set("us_max", *std::max_element(t.ms.begin(), t.ms.end()) * 1e3);
    r.set("vs_unfixed", us / (unfixed * 1e3));
    r.set("tflops", config.flops() / (us * 1e-6) / 1e12);
    r.set("gemms_per_graph", gemmsPerGraph);
    results.push_back(r);
    check(cudaGraphExecDestroy(t.exec), "cudaGraphExecDestroy");
  }
  if (problem.timeoutCount()) results.front().status = "timeout";
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  return results;
}

std::vector<std::string> variantNames() {
  std::vector<std::string> names;
  for (const auto& v : kVariants) names.push_back(v.name);
  return names;
}

}  // namespace lab::gemm

lab::ExperimentInfo lab::gemmExperiment() {
  return {"gemm", "BF16 TMA GEMM (ldmatrix + mma.sync, lane-0 release): runs compared bitwise with the first",
          gemm::variantNames(),
          [](const RunContext& ctx, const std::string& v) { return gemm::runRepeatability(ctx, v); }};
}

lab::ExperimentInfo lab::gemmLatencyExperiment() {
  return {"gemm-latency", "the GEMM's latency per hand-off variant (CUDA graphs, variants interleaved, medians)",
          {"interleaved"}, [](const RunContext& ctx, const std::string&) { return gemm::runLatency(ctx); }};
}
