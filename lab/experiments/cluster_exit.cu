// cluster-exit (issue 30, shape 13; SGLang #32907, fixed in #32954): what happens on an H100/H200
// when a CTA of a cluster exits while its peer still reaches into its shared memory? Two-CTA
// clusters, one warp each. CTA 1 stores a tag into its shared `value` and hands it to CTA 0 with
// a remote arrive on CTA 0's "full" mbarrier (release, cluster scope). CTA 0 waits on "full",
// waits `cluster-exit.delay_ns` more (the window in which CTA 1 may leave), reads `value` through
// the cluster window (`ld.shared::cluster` at `mapa(value, 1)`) and answers with a remote arrive
// on CTA 1's "done" mbarrier. The dynamic shared memory (`cluster-exit.smem_kb`) keeps one CTA per
// SM, and the grid runs `cluster-exit.waves` waves of clusters, so a CTA that exits early leaves
// its SM to a CTA of a later cluster, whose first act is to overwrite its own `value` with a
// "newcomer" mark.
// One trial is one cluster; a violation is a read of anything but the cluster's tag (another
// CTA's newcomer mark, or any other word). A launch that fails (the GPU faults on the access to
// an exited CTA) ends the variant: its status is the CUDA error and no further launch is made
// (the context is lost; run each variant in its own process, as lab/run-cluster-exit.sh does).
// Variants:
//   unfixed       CTA 1 exits right after its hand-off              -> cluster-exit (default tier)
//   fixed         CTA 1 waits on "done" before it exits (CUTLASS's producer tail)
//   cluster-sync  every CTA ends with barrier.cluster.arrive.release + wait.acquire (the public fix)
#include "../DeviceCommon.cuh"
#include "../Experiment.h"

#include <vector>

namespace lab::cluster_exit {

constexpr unsigned kThreads = 32;

struct Params {
  uint32_t* out;       // [clusters]: what CTA 0 read
  unsigned* timeouts;  // waits that gave up
  uint64_t delayNs;
  uint64_t timeoutNs;
};

__host__ __device__ constexpr uint32_t tag(unsigned cluster) { return 0x80000000u | (cluster & 0x3fffffffu); }
__host__ __device__ constexpr uint32_t newcomer(unsigned cta) { return 0x40000000u | (cta & 0x3fffffffu); }
constexpr uint32_t kTimedOut = 0x20000000u;

__device__ __forceinline__ uint32_t peerAddress(uint32_t addr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(addr), "r"(rank));
  return r;
}
__device__ __forceinline__ uint32_t clusterRank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void clusterSync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// Cluster-scope acquire wait on a local mbarrier; false when the deadline passes first.
__device__ __forceinline__ bool waitCluster(uint32_t bar, uint32_t parity, uint64_t deadline) {
  for (;;) {
    uint32_t done;
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
    if (done) return true;
    if (pastDeadline(deadline)) return false;
  }
}
__device__ __forceinline__ void arriveRemote(uint32_t remoteBar) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remoteBar) : "memory");
}
__device__ __forceinline__ uint32_t loadCluster(uint32_t remote) {
  uint32_t v;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory");
  return v;
}

enum Mode { kUnfixed, kProducerWaits, kClusterBarrier };

template <Mode kMode>
__device__ __forceinline__ void handOff(const Params& p) {
  extern __shared__ __align__(16) uint32_t occupancy[];  // only there to keep one CTA per SM
  __shared__ uint32_t value;
  __shared__ __align__(8) uint64_t full, done;
  const unsigned cluster = blockIdx.x / 2;
  const bool leader = threadIdx.x == 0;
  if (leader) {
    value = newcomer(blockIdx.x);  // the newcomer's first act on memory an exited CTA may have left
    occupancy[0] = newcomer(blockIdx.x);
    mbarrierInit(sharedAddress(&full), 1);
    mbarrierInit(sharedAddress(&done), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  clusterSync();
  if (leader) {
    const uint64_t deadline = deadlineAfter(p.timeoutNs);
    if (clusterRank() == 1) {
      value = tag(cluster);
      arriveRemote(peerAddress(sharedAddress(&full), 0));
      if (kMode == kProducerWaits && !waitCluster(sharedAddress(&done), 0, deadline)) noteTimeout(p.timeouts);
    } else if (!waitCluster(sharedAddress(&full), 0, deadline)) {
      noteTimeout(p.timeouts);
      p.out[cluster] = kTimedOut;
    } else {
      delayNs(p.delayNs);
      p.out[cluster] = loadCluster(peerAddress(sharedAddress(&value), 1));
      arriveRemote(peerAddress(sharedAddress(&done), 1));  // expect: cluster-exit
    }
  }
  __syncwarp();
  if (kMode == kClusterBarrier) clusterSync();
}

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(kThreads) clusterExitUnfixed(const __grid_constant__ Params p) {
  handOff<kUnfixed>(p);
}
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(kThreads) clusterExitFixed(const __grid_constant__ Params p) {
  handOff<kProducerWaits>(p);
}
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(kThreads) clusterExitClusterSync(const __grid_constant__ Params p) {
  handOff<kClusterBarrier>(p);
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant) {
  void (*kernel)(Params) = variant == "fixed"          ? clusterExitFixed
                           : variant == "cluster-sync" ? clusterExitClusterSync
                                                       : clusterExitUnfixed;
  const unsigned waves = static_cast<unsigned>(ctx.param("cluster-exit.waves", 32));
  const unsigned clusters = ctx.device->multiProcessorCount / 2 * waves;
  const int dynamicBytes = static_cast<int>(ctx.param("cluster-exit.smem_kb", 160)) * 1024;
  Params p{};
  p.delayNs = static_cast<uint64_t>(ctx.param("cluster-exit.delay_ns", 2000));
  p.timeoutNs = static_cast<uint64_t>(ctx.param("cluster-exit.timeout_ns", 5000000));
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamicBytes), "cudaFuncSetAttribute");
  check(cudaMalloc(&p.out, clusters * sizeof(uint32_t)), "cudaMalloc");
  check(cudaMalloc(&p.timeouts, sizeof(unsigned)), "cudaMalloc");
  check(cudaMemset(p.timeouts, 0, sizeof(unsigned)), "cudaMemset");
  std::vector<uint32_t> host(clusters);
  Result result{"cluster-exit", variant};
  uint64_t otherCta = 0, ownCta = 0, other = 0;
  std::string failure;
  const auto began = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    check(cudaMemset(p.out, 0, clusters * sizeof(uint32_t)), "cudaMemset");
    // Not timedLaunch: a fault is this experiment's outcome, not a reason to stop the process
    // before the row is written.
    const auto launched = std::chrono::steady_clock::now();
    kernel<<<clusters * 2, kThreads, dynamicBytes>>>(p);
    cudaError_t status = cudaGetLastError();
    if (status == cudaSuccess) status = cudaDeviceSynchronize();
    result.seconds += secondsSince(launched);
    ++result.launches;
    result.trials += clusters;
    if (status != cudaSuccess) {
      failure = cudaGetErrorName(status);
      ++result.violations;
      break;
    }
    check(cudaMemcpy(host.data(), p.out, clusters * sizeof(uint32_t), cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (unsigned c = 0; c < clusters; ++c) {
      const uint32_t v = host[c];
      if (v == tag(c)) continue;
      if (v == newcomer(2 * c + 1)) ++ownCta;  // CTA 1's own mark: its tag not yet visible
      else if ((v & 0xc0000000u) == 0x40000000u) ++otherCta;
      else if (v != kTimedOut) ++other;
    }
  }
  unsigned timeouts = 0;
  if (failure.empty()) {
    check(cudaMemcpy(&timeouts, p.timeouts, sizeof timeouts, cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaFree(p.out), "cudaFree");
    check(cudaFree(p.timeouts), "cudaFree");
    result.violations = otherCta + ownCta + other;
  } else {
    result.status = "fault";
    result.set("error", failure);
  }
  result.set("other_cta_mark", static_cast<double>(otherCta));
  result.set("own_mark", static_cast<double>(ownCta));
  result.set("other_wrong", static_cast<double>(other));
  result.set("timeouts", timeouts);
  result.set("clusters", clusters);
  result.set("delay_ns", static_cast<double>(p.delayNs));
  result.set("smem_kb", dynamicBytes / 1024);
  return {result};
}

}  // namespace lab::cluster_exit

lab::ExperimentInfo lab::clusterExitExperiment() {
  return {"cluster-exit",
          "a CTA exits while its cluster peer still reads its shared memory and arrives on its mbarrier",
          {"unfixed", "fixed", "cluster-sync"}, cluster_exit::runVariant};
}
