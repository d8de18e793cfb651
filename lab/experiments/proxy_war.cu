// proxy-war and proxy-war-tma: consumers read a stage with generic loads and
// hand it back; the producer's next bulk (or TMA tensor) copy, an async-proxy
// write, may overtake those reads unless a fence.proxy.async lies between them
// (shared/ordering-rules.md, "proxy-war"). The ring itself is ProxyRing.cuh;
// each kernel below supplies only its hand-off. Variants:
//   unfixed         lane 0 arrives on "empty", no fence            -> proxy-war
//   fixed           every reader fences, then lane 0 arrives
//   elected-fence   lane 0 fences and arrives (covers lane 0 only) -> proxy-war
//   fixed-syncwarp  every reader fences, __syncwarp, lane 0 arrives
//   producer-fence  lane 0 arrives; the producer fences after its wait, before the copy
//   lib-consumers   fenceline::TmaPipeline<4, RefillFence::consumers> hands the stage back
//   lib-producer    fenceline::TmaPipeline<4, RefillFence::producer> (the producer fences)
// The lib-* variants are built from include/fenceline and need stages=4.
// Every kernel is a template over reader (ld.shared, ldmatrix) and copy (bulk,
// tensor): four kernels per variant, which fenceline reports as one finding per
// broken line (one source site across instantiations), hence one expectation.
#include "../../include/fenceline/tma_pipeline.cuh"
#include "../Experiment.h"
#include "../TensorMap.h"
#include "ProxyRing.cuh"

namespace lab::proxy_war {

using namespace proxy_ring;

template <Reader R, Copy C>
__global__ void __launch_bounds__(32 * (1 + kMaxConsumerWarps)) proxyWarUnfixed(const __grid_constant__ Params p) {
  stageRing<R, C>(p, [](unsigned, unsigned) {}, [](uint32_t emptyBar, unsigned lane, unsigned, unsigned) {
    if (lane == 0)
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(emptyBar) : "memory");  // expect-strict: proxy-war
  });
}

template <Reader R, Copy C>
__global__ void __launch_bounds__(32 * (1 + kMaxConsumerWarps)) proxyWarFixed(const __grid_constant__ Params p) {
  stageRing<R, C>(p, [](unsigned, unsigned) {}, [](uint32_t emptyBar, unsigned lane, unsigned, unsigned) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(emptyBar) : "memory");
  });
}

template <Reader R, Copy C>
__global__ void __launch_bounds__(32 * (1 + kMaxConsumerWarps)) proxyWarElectedFence(const __grid_constant__ Params p) {
  stageRing<R, C>(p, [](unsigned, unsigned) {}, [](uint32_t emptyBar, unsigned lane, unsigned, unsigned) {
    if (lane == 0) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(emptyBar) : "memory");  // expect-strict: proxy-war
    }
  });
}

template <Reader R, Copy C>
__global__ void __launch_bounds__(32 * (1 + kMaxConsumerWarps)) proxyWarFixedSyncwarp(const __grid_constant__ Params p) {
  stageRing<R, C>(p, [](unsigned, unsigned) {}, [](uint32_t emptyBar, unsigned lane, unsigned, unsigned) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncwarp();
    if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(emptyBar) : "memory");
  });
}

template <Reader R, Copy C>
__global__ void __launch_bounds__(32 * (1 + kMaxConsumerWarps)) proxyWarProducerFence(const __grid_constant__ Params p) {
  stageRing<R, C>(
      p, [](unsigned, unsigned) { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); },
      [](uint32_t emptyBar, unsigned lane, unsigned, unsigned) {
        if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(emptyBar) : "memory");
      });
}

constexpr int kLibStages = 4;

template <fenceline::RefillFence F>
__device__ fenceline::TmaPipeline<kLibStages, F> libraryPipeline(const Params& p) {
  return {static_cast<fenceline::StageBarriers<kLibStages>*>(ringBarriers(p))};
}

template <Reader R, Copy C>
__global__ void __launch_bounds__(32 * (1 + kMaxConsumerWarps)) proxyWarLibConsumers(const __grid_constant__ Params p) {
  const auto pipe = libraryPipeline<fenceline::RefillFence::consumers>(p);
  stageRing<R, C>(p, [](unsigned, unsigned) {}, [&](uint32_t, unsigned, unsigned stage, unsigned round) {
    pipe.consumer_release(fenceline::StageCursor<kLibStages>{stage, round & 1});
  });
}

template <Reader R, Copy C>
__global__ void __launch_bounds__(32 * (1 + kMaxConsumerWarps)) proxyWarLibProducer(const __grid_constant__ Params p) {
  const auto pipe = libraryPipeline<fenceline::RefillFence::producer>(p);
  stageRing<R, C>(
      // The ring has already waited on "empty"; producer_acquire's wait passes at once
      // and it runs the library's producer-side fence.
      p, [&](unsigned stage, unsigned round) { pipe.producer_acquire(fenceline::StageCursor<kLibStages>{stage, round & 1}); },
      [&](uint32_t, unsigned, unsigned stage, unsigned round) {
        pipe.consumer_release(fenceline::StageCursor<kLibStages>{stage, round & 1});
      });
}

// ---- host side -------------------------------------------------------------

using Kernel = void (*)(Params);

struct VariantKernels {
  const char* name;
  Kernel kernels[2][2];  // [reader][copy]
};

#define FENCELINE_LAB_VARIANT(name, kernel)                                      \
  {name,                                                                         \
   {{kernel<Reader::Lds, Copy::Bulk>, kernel<Reader::Lds, Copy::Tensor>},        \
    {kernel<Reader::Ldmatrix, Copy::Bulk>, kernel<Reader::Ldmatrix, Copy::Tensor>}}}

const VariantKernels kVariants[] = {
    FENCELINE_LAB_VARIANT("unfixed", proxyWarUnfixed),
    FENCELINE_LAB_VARIANT("fixed", proxyWarFixed),
    FENCELINE_LAB_VARIANT("elected-fence", proxyWarElectedFence),
    FENCELINE_LAB_VARIANT("fixed-syncwarp", proxyWarFixedSyncwarp),
    FENCELINE_LAB_VARIANT("producer-fence", proxyWarProducerFence),
    FENCELINE_LAB_VARIANT("lib-consumers", proxyWarLibConsumers),
    FENCELINE_LAB_VARIANT("lib-producer", proxyWarLibProducer),
};
#undef FENCELINE_LAB_VARIANT

__global__ void fillSources(uint32_t* sources, size_t words, size_t regionWords, unsigned tags) {
  for (size_t w = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; w < words;
       w += static_cast<size_t>(gridDim.x) * blockDim.x)
    sources[w] = tagValue(static_cast<unsigned>((w / regionWords) % tags));
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant, Copy copy) {
  const char* experiment = copy == Copy::Bulk ? "proxy-war" : "proxy-war-tma";
  const unsigned ctasPerSm = static_cast<unsigned>(ctx.param("proxy-war.ctas_per_sm", 1));
  const unsigned ctas = static_cast<unsigned>(ctx.param("proxy-war.ctas", ctx.device->multiProcessorCount * ctasPerSm));
  Params p{};
  p.fills = static_cast<unsigned>(ctx.param("proxy-war.fills", 20000));
  p.stages = static_cast<unsigned>(ctx.param("proxy-war.stages", 4));
  p.consumerWarps = static_cast<unsigned>(ctx.param("proxy-war.consumer_warps", 4));
  p.bankConflicts = static_cast<unsigned>(ctx.param("proxy-war.bank_conflicts", 1));
  const bool l2Resident = ctx.param("proxy-war.l2_resident", 1) != 0;
  p.tags = l2Resident ? 4 : 64;
  p.sourceSets = l2Resident ? 1 : ctas;
  p.timeoutNs = static_cast<uint64_t>(ctx.param("proxy-war.timeout_ms", 5000)) * 1000000ull;
  if (p.consumerWarps < 1 || p.consumerWarps > kMaxConsumerWarps || p.stages < 1) {
    std::fprintf(stderr, "fenceline-lab: proxy-war: consumer_warps must be 1..%u, stages >= 1\n", kMaxConsumerWarps);
    std::exit(2);
  }
  const unsigned bytes = p.consumerWarps * kSliceBytes;
  const size_t regionWords = bytes / 4;
  const size_t sourceWords = regionWords * p.tags * p.sourceSets;
  uint32_t* sources = nullptr;
  unsigned long long* counters = nullptr;
  check(cudaMalloc(&sources, sourceWords * 4), "cudaMalloc");
  check(cudaMalloc(&counters, 4 * sizeof(unsigned long long)), "cudaMalloc");
  fillSources<<<1024, 256>>>(sources, sourceWords, regionWords, p.tags);
  check(cudaDeviceSynchronize(), "fillSources");
  p.sources = sources;
  p.counters = counters;
  if (copy == Copy::Tensor)
    p.tensorMap = encodeTensorMap2d(sources, sourceWords / kTensorCols, kTensorCols, bytes / (kTensorCols * 4),
                                    kTensorCols);
  const size_t smem = static_cast<size_t>(p.stages) * bytes + 16 * p.stages;
  if (smem > ctx.device->sharedMemPerBlockOptin) {
    std::fprintf(stderr, "fenceline-lab: proxy-war: %u stages of %u bytes exceed shared memory\n", p.stages, bytes);
    std::exit(2);
  }

  if (variant.rfind("lib-", 0) == 0 && p.stages != kLibStages) {
    std::fprintf(stderr, "fenceline-lab: %s %s: skipped (the library ring is built for %d stages)\n", experiment,
                 variant.c_str(), kLibStages);
    return {};
  }
  const VariantKernels* chosen = nullptr;
  for (const auto& v : kVariants)
    if (variant == v.name) chosen = &v;

  std::vector<Result> results;
  const std::string readers = ctx.param("proxy-war.readers", "lds,ldmatrix");
  for (Reader reader : {Reader::Lds, Reader::Ldmatrix}) {
    const char* readerName = reader == Reader::Lds ? "lds" : "ldmatrix";
    if (readers.find(readerName) == std::string::npos) continue;
    Kernel kernel = chosen->kernels[reader == Reader::Lds ? 0 : 1][copy == Copy::Bulk ? 0 : 1];
    check(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(smem)),
          "cudaFuncSetAttribute");
    Result result{experiment, variant};
    unsigned long long totals[3] = {0, 0, 0};
    const auto began = std::chrono::steady_clock::now();
    for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds / 2); ++n) {
      check(cudaMemset(counters, 0, 4 * sizeof(unsigned long long)), "cudaMemset");
      result.seconds += timedLaunch(ctx, experiment, [&] {
        kernel<<<ctas, 32 * (1 + p.consumerWarps), smem>>>(p);
      });
      unsigned long long host[3];
      check(cudaMemcpy(host, counters, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
      for (int k = 0; k < 3; ++k) totals[k] += host[k];
      result.trials += static_cast<uint64_t>(ctas) * p.fills * p.consumerWarps * 32 * kWordsPerLane;
      ++result.launches;
    }
    result.violations = totals[0] + totals[1];
    if (totals[2]) result.status = "timeout";
    result.set("reader", readerName);
    result.set("copy", copy == Copy::Bulk ? "cp.async.bulk" : "cp.async.bulk.tensor.2d");
    result.set("saw_refill", static_cast<double>(totals[0]));
    result.set("other_wrong", static_cast<double>(totals[1]));
    result.set("timeouts", static_cast<double>(totals[2]));
    result.set("ctas", ctas);
    result.set("fills_per_cta", p.fills);
    result.set("stages", p.stages);
    result.set("consumer_warps", p.consumerWarps);
    result.set("stage_bytes", bytes);
    result.set("bank_conflicts", p.bankConflicts);
    result.set("l2_resident", l2Resident ? 1 : 0);
    // Each CTA runs its fills one after another and all CTAs run at once, so a
    // launch's time over its fills is the cost of one stage hand-off.
    if (result.launches) result.set("ns_per_stage", result.seconds / result.launches / p.fills * 1e9);
    results.push_back(result);
  }
  check(cudaFree(sources), "cudaFree");
  check(cudaFree(counters), "cudaFree");
  return results;
}

std::vector<std::string> variantNames() {
  std::vector<std::string> names;
  for (const auto& v : kVariants) names.push_back(v.name);
  return names;
}

}  // namespace lab::proxy_war

lab::ExperimentInfo lab::proxyWarExperiment() {
  return {"proxy-war", "bulk-copy stage ring: generic reads vs the next cp.async.bulk refill",
          proxy_war::variantNames(), [](const RunContext& ctx, const std::string& v) {
            return proxy_war::runVariant(ctx, v, proxy_ring::Copy::Bulk);
          }};
}

lab::ExperimentInfo lab::proxyWarTmaExperiment() {
  return {"proxy-war-tma", "TMA tensor-copy stage ring: generic reads vs the next cp.async.bulk.tensor refill",
          proxy_war::variantNames(), [](const RunContext& ctx, const std::string& v) {
            return proxy_war::runVariant(ctx, v, proxy_ring::Copy::Tensor);
          }};
}
