// litmus-mp, litmus-sb, litmus-lb: the classic two-thread shapes at .gpu scope,
// run as many instances per launch with the stress techniques of the GPU
// litmus-testing literature: the two threads of an instance sit in different
// blocks, chosen by seeded random permutations each launch (thread
// randomization); each testing thread first runs a random number of accesses
// to a scratchpad, and extra blocks hammer that scratchpad throughout
// (memory stress). Weak outcomes:
//   MP  T0: x=1; y=1          T1: a=y; b=x      weak: a==1, b==0
//   SB  T0: x=1; a=y          T1: y=1; b=x      weak: a==0, b==0
//   LB  T0: a=x; y=1          T1: b=y; x=1      weak: a==1, b==1
// `relaxed` uses ld/st.relaxed.gpu only; `fenced` puts a fence between the two
// accesses of each thread (fence.acq_rel.gpu for MP and LB, fence.sc.gpu for SB),
// written with the library's fenceline::fence (include/fenceline/atomic.cuh).
//
// What `fenceline check` says: nothing, and rightly so by the checks'
// definitions. MP-relaxed's T0 raises a flag (y) after a data write (x) with no
// release, but release-missing is defined on a signal that a spin loop waits
// on, and acquire-missing on a spin loop; the litmus reader reads the flag once.
// SB and LB are not flag/data protocols at all. All three relaxed variants are
// racy on purpose in ways no check covers (docs/lab.md).
#include <random>

#include "../../include/fenceline/atomic.cuh"
#include "../DeviceCommon.cuh"
#include "../Experiment.h"

namespace lab::litmus {

using fenceline::Scope;
using fenceline::Sem;

constexpr unsigned kThreads = 256;

struct Params {
  unsigned* x;               // [instances * stride]
  unsigned* y;
  unsigned* out;             // [instances][2 roles][2 values]
  const unsigned* instanceOf;  // [2 roles][testing threads]: thread randomization
  unsigned* scratch;
  unsigned instances;
  unsigned stride;           // words between neighbouring instances' locations
  unsigned testBlocks;       // blocks per role; blocks beyond 2*testBlocks only stress
  unsigned scratchWords;
  unsigned preStressMax;     // a testing thread first makes 0..preStressMax scratch accesses
  unsigned stressIterations;
  unsigned seed;
};

__device__ __forceinline__ unsigned mix(unsigned v) {
  v ^= v >> 16;
  v *= 0x7feb352dU;
  v ^= v >> 15;
  v *= 0x846ca68bU;
  return v ^ (v >> 16);
}

__device__ void stressScratch(const Params& p, unsigned count, unsigned salt) {
  unsigned sink = 0;
  for (unsigned k = 0; k < count; ++k) {
    unsigned* line = p.scratch + (mix(salt + k) % (p.scratchWords / 32)) * 32;
    storeRelaxedGpu(line, k);
    sink += loadRelaxedGpu(line + 1);
  }
  if (sink == 0xffffffffu) p.scratch[0] = sink;
}

// Runs role 0 or role 1 of one instance per testing thread; `role0` and
// `role1` get the instance's two locations and write up to two observed values.
template <class Role0, class Role1>
__device__ void litmusInstances(const Params& p, Role0 role0, Role1 role1) {
  const unsigned salt = mix(p.seed ^ (blockIdx.x * kThreads + threadIdx.x));
  if (blockIdx.x >= 2 * p.testBlocks) return stressScratch(p, p.stressIterations, salt);
  const unsigned role = blockIdx.x / p.testBlocks;
  const unsigned t = (blockIdx.x % p.testBlocks) * kThreads + threadIdx.x;
  const unsigned instance = p.instanceOf[role * p.testBlocks * kThreads + t];
  if (instance >= p.instances) return;
  stressScratch(p, salt % (p.preStressMax + 1), salt);
  unsigned* x = p.x + static_cast<size_t>(instance) * p.stride;
  unsigned* y = p.y + static_cast<size_t>(instance) * p.stride;
  unsigned a = 0, b = 0;
  if (role == 0) role0(x, y, a, b);
  else role1(x, y, a, b);
  p.out[instance * 4 + role * 2] = a;
  p.out[instance * 4 + role * 2 + 1] = b;
}

__global__ void __launch_bounds__(kThreads) litmusMpRelaxed(Params p) {
  litmusInstances(
      p,
      [](unsigned* x, unsigned* y, unsigned&, unsigned&) {
        storeRelaxedGpu(x, 1);
        asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(y), "r"(1) : "memory");  // no release: not a check's finding
      },
      [](unsigned* x, unsigned* y, unsigned& a, unsigned& b) {
        a = loadRelaxedGpu(y);
        b = loadRelaxedGpu(x);
      });
}

__global__ void __launch_bounds__(kThreads) litmusMpFenced(Params p) {
  litmusInstances(
      p,
      [](unsigned* x, unsigned* y, unsigned&, unsigned&) {
        storeRelaxedGpu(x, 1);
        fenceline::fence<Sem::acq_rel, Scope::gpu>();
        asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(y), "r"(1) : "memory");
      },
      [](unsigned* x, unsigned* y, unsigned& a, unsigned& b) {
        a = loadRelaxedGpu(y);
        fenceline::fence<Sem::acq_rel, Scope::gpu>();
        b = loadRelaxedGpu(x);
      });
}

__global__ void __launch_bounds__(kThreads) litmusSbRelaxed(Params p) {
  litmusInstances(
      p,
      [](unsigned* x, unsigned* y, unsigned& a, unsigned&) {
        storeRelaxedGpu(x, 1);
        a = loadRelaxedGpu(y);
      },
      [](unsigned* x, unsigned* y, unsigned&, unsigned& b) {
        storeRelaxedGpu(y, 1);
        b = loadRelaxedGpu(x);
      });
}

__global__ void __launch_bounds__(kThreads) litmusSbFenced(Params p) {
  litmusInstances(
      p,
      [](unsigned* x, unsigned* y, unsigned& a, unsigned&) {
        storeRelaxedGpu(x, 1);
        fenceline::fence<Sem::sc, Scope::gpu>();
        a = loadRelaxedGpu(y);
      },
      [](unsigned* x, unsigned* y, unsigned&, unsigned& b) {
        storeRelaxedGpu(y, 1);
        fenceline::fence<Sem::sc, Scope::gpu>();
        b = loadRelaxedGpu(x);
      });
}

__global__ void __launch_bounds__(kThreads) litmusLbRelaxed(Params p) {
  litmusInstances(
      p,
      [](unsigned* x, unsigned* y, unsigned& a, unsigned&) {
        a = loadRelaxedGpu(x);
        storeRelaxedGpu(y, 1);
      },
      [](unsigned* x, unsigned* y, unsigned&, unsigned& b) {
        b = loadRelaxedGpu(y);
        storeRelaxedGpu(x, 1);
      });
}

__global__ void __launch_bounds__(kThreads) litmusLbFenced(Params p) {
  litmusInstances(
      p,
      [](unsigned* x, unsigned* y, unsigned& a, unsigned&) {
        a = loadRelaxedGpu(x);
        fenceline::fence<Sem::acq_rel, Scope::gpu>();
        storeRelaxedGpu(y, 1);
      },
      [](unsigned* x, unsigned* y, unsigned&, unsigned& b) {
        b = loadRelaxedGpu(y);
        fenceline::fence<Sem::acq_rel, Scope::gpu>();
        storeRelaxedGpu(x, 1);
      });
}

enum class Shape { Mp, Sb, Lb };

// out[i] = {T0.a, T0.b, T1.a, T1.b}; counts the instances with the weak outcome.
__global__ void countWeak(const unsigned* out, unsigned instances, Shape shape, unsigned long long* weak) {
  unsigned count = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < instances; i += gridDim.x * blockDim.x) {
    const unsigned* o = out + 4 * i;
    if (shape == Shape::Mp) count += o[2] == 1 && o[3] == 0;
    if (shape == Shape::Sb) count += o[0] == 0 && o[3] == 0;
    if (shape == Shape::Lb) count += o[0] == 1 && o[3] == 1;
  }
  if (count) atomicAdd(weak, static_cast<unsigned long long>(count));
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant, Shape shape) {
  static const char* names[] = {"litmus-mp", "litmus-sb", "litmus-lb"};
  const char* name = names[static_cast<int>(shape)];
  const bool fenced = variant == "fenced";
  using Kernel = void (*)(Params);
  const Kernel kernels[3][2] = {{litmusMpRelaxed, litmusMpFenced},
                                {litmusSbRelaxed, litmusSbFenced},
                                {litmusLbRelaxed, litmusLbFenced}};
  Kernel kernel = kernels[static_cast<int>(shape)][fenced ? 1 : 0];

  Params p{};
  p.testBlocks = ctx.device->multiProcessorCount;
  const unsigned stressBlocks = static_cast<unsigned>(ctx.param("litmus.stress_blocks", ctx.device->multiProcessorCount));
  p.instances = p.testBlocks * kThreads;
  p.stride = static_cast<unsigned>(ctx.param("litmus.stride_words", 32));
  p.scratchWords = 32 * 1024;
  p.preStressMax = static_cast<unsigned>(ctx.param("litmus.pre_stress", 64));
  p.stressIterations = static_cast<unsigned>(ctx.param("litmus.stress_iterations", 256));
  const size_t locationWords = static_cast<size_t>(p.instances) * p.stride;
  unsigned* memory = nullptr;
  const size_t words = 2 * locationWords + 4ull * p.instances + 2ull * p.instances + p.scratchWords;
  check(cudaMalloc(&memory, words * 4), "cudaMalloc");
  p.x = memory;
  p.y = memory + locationWords;
  p.out = p.y + locationWords;
  unsigned* instanceOf = p.out + 4ull * p.instances;
  p.instanceOf = instanceOf;
  p.scratch = instanceOf + 2ull * p.instances;
  unsigned long long* weak = nullptr;
  check(cudaMalloc(&weak, sizeof *weak), "cudaMalloc");
  check(cudaMemset(weak, 0, sizeof *weak), "cudaMemset");

  std::mt19937_64 rng(ctx.seed * 1000003ull + static_cast<unsigned>(shape) * 2 + fenced);
  std::vector<unsigned> permutation(2ull * p.instances);
  Result result{name, variant};
  const auto began = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    for (unsigned role = 0; role < 2; ++role) {
      auto first = permutation.begin() + role * p.instances;
      for (unsigned i = 0; i < p.instances; ++i) first[i] = i;
      std::shuffle(first, first + p.instances, rng);
    }
    p.seed = static_cast<unsigned>(rng());
    check(cudaMemcpy(instanceOf, permutation.data(), permutation.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemset(memory, 0, (2 * locationWords + 4ull * p.instances) * 4), "cudaMemset");
    result.seconds += timedLaunch(ctx, name, [&] { kernel<<<2 * p.testBlocks + stressBlocks, kThreads>>>(p); });
    countWeak<<<256, 256>>>(p.out, p.instances, shape, weak);
    check(cudaGetLastError(), "countWeak");
    result.trials += p.instances;
    ++result.launches;
  }
  unsigned long long host = 0;
  check(cudaMemcpy(&host, weak, sizeof host, cudaMemcpyDeviceToHost), "cudaMemcpy");
  check(cudaFree(memory), "cudaFree");
  check(cudaFree(weak), "cudaFree");
  result.violations = host;
  result.set("instances_per_launch", p.instances);
  result.set("testing_blocks", 2 * p.testBlocks);
  result.set("stress_blocks", stressBlocks);
  result.set("stride_words", p.stride);
  result.set("pre_stress_max", p.preStressMax);
  result.set("stress_iterations", p.stressIterations);
  if (result.trials) result.set("weak_per_million", 1e6 * static_cast<double>(host) / static_cast<double>(result.trials));
  return {result};
}

}  // namespace lab::litmus

lab::ExperimentInfo lab::litmusMpExperiment() {
  return {"litmus-mp", "message passing, .gpu scope, relaxed vs fence.acq_rel", {"relaxed", "fenced"},
          [](const RunContext& c, const std::string& v) { return litmus::runVariant(c, v, litmus::Shape::Mp); }};
}
lab::ExperimentInfo lab::litmusSbExperiment() {
  return {"litmus-sb", "store buffering, .gpu scope, relaxed vs fence.sc", {"relaxed", "fenced"},
          [](const RunContext& c, const std::string& v) { return litmus::runVariant(c, v, litmus::Shape::Sb); }};
}
lab::ExperimentInfo lab::litmusLbExperiment() {
  return {"litmus-lb", "load buffering, .gpu scope, relaxed vs fence.acq_rel", {"relaxed", "fenced"},
          [](const RunContext& c, const std::string& v) { return litmus::runVariant(c, v, litmus::Shape::Lb); }};
}
