// proxy-global: CTA pairs hand global memory across proxies. The writer CTA
// fills its pair's 8 KB global buffer with generic stores (the round's tag),
// meets at bar.sync, and thread 0 raises the pair's "ready" flag
// (st.release.gpu). The reader CTA's thread 0 polls the flag
// (ld.acquire.gpu), then loads the buffer into shared memory with a bulk copy
// (cp.async.bulk, async proxy) completing on an mbarrier; the reader threads
// check every word, and thread 0 raises "done" so the writer may start the
// next round. Generic writes and the async-proxy read of global memory are
// ordered only with a fence.proxy.async.global (shared/ordering-rules.md,
// "proxies in global memory").
// Variants:
//   unfixed        no proxy fence                              -> proxy-global
//   writer-fence   every writer: fence.proxy.async.global before bar.sync
//   issuer-fence   reader thread 0: fence.proxy.async.global after its acquire
// The reverse direction, async-proxy writes read generically: the writer CTA
// fills a shared tile, thread 0 bulk-stores it to the buffer
// (cp.async.bulk.global.shared::cta) and raises "ready"; the reader threads
// acquire the flag and read the buffer with plain loads.
//   store-unfixed  release after cp.async.bulk.wait_group.read 0 only (source
//                  read, writes not complete)                  -> proxy-global
//   store-fixed    release after cp.async.bulk.wait_group 0
#include "../DeviceCommon.cuh"
#include "../Experiment.h"

namespace lab::proxy_global {

constexpr unsigned kThreads = 128;
constexpr unsigned kWordsPerThread = 16;
constexpr unsigned kBufferWords = kThreads * kWordsPerThread;  // 8 KB

enum class Fence { None, Writer, Issuer };
enum class Store { ReadWait, CompleteWait };

struct Params {
  uint32_t* buffers;   // [pairs][kBufferWords]
  unsigned* ready;     // [pairs * 32]
  unsigned* done;      // [pairs * 32]
  unsigned rounds;
  uint64_t timeoutNs;
};

__host__ __device__ constexpr uint32_t tag(unsigned pair, unsigned round) {
  return 0x80000000u | ((pair & 0x7fffu) << 16) | (round & 0xffffu);
}

// The counters are kernel arguments of their own, apart from the flags:
// nobody polls them.
struct Counters {
  unsigned long long* stale;
  unsigned* timeouts;
};

template <Fence F>
__device__ __forceinline__ void pairRounds(const Params& p, unsigned long long* staleCount, unsigned* timeoutCount) {
  __shared__ __align__(128) uint32_t tile[kBufferWords];
  __shared__ __align__(8) uint64_t full;
  __shared__ unsigned gaveUp;
  const unsigned pair = blockIdx.x / 2, t = threadIdx.x;
  const bool writer = blockIdx.x % 2 == 0;
  uint32_t* buffer = p.buffers + static_cast<size_t>(pair) * kBufferWords;
  unsigned* ready = p.ready + 32 * pair;
  unsigned* done = p.done + 32 * pair;
  const uint32_t bar = sharedAddress(&full);
  if (t == 0) {
    mbarrierInit(bar, 1);
    fenceBarrierInit();
    gaveUp = 0;
  }
  __syncthreads();
  const uint64_t deadline = deadlineAfter(p.timeoutNs);
  unsigned long long stale = 0;
  for (unsigned round = 0; round < p.rounds; ++round) {
    if (writer) {
      if (t == 0)
        while (loadAcquireGpu(done) < round)
          if (pastDeadline(deadline)) {
            gaveUp = 1;
            break;
          }
      __syncthreads();
      if (gaveUp) break;
      for (unsigned j = 0; j < kWordsPerThread; ++j) buffer[j * kThreads + t] = tag(pair, round);
      if (F == Fence::Writer) asm volatile("fence.proxy.async.global;" ::: "memory");
      __syncthreads();
      if (t == 0) storeReleaseGpu(ready, round + 1);
    } else {
      if (t == 0) {
        while (loadAcquireGpu(ready) < round + 1)
          if (pastDeadline(deadline)) {
            gaveUp = 1;
            break;
          }
        if (!gaveUp) {
          if (F == Fence::Issuer) asm volatile("fence.proxy.async.global;" ::: "memory");
          mbarrierArriveExpectTx(bar, kBufferWords * 4);
          asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                           sharedAddress(tile)),
                       "l"(buffer), "r"(kBufferWords * 4), "r"(bar)
                       : "memory");
        }
      }
      __syncthreads();
      if (gaveUp) break;
      if (!mbarrierWait(bar, round & 1, deadline)) {
        gaveUp = 1;
        break;
      }
      // Thread 0 issues the copies and reads nothing, so that no proxy fence
      // of the tile's reuse (below) is ever executed by the issuing thread.
      if (t != 0)
        for (unsigned j = 0; j < kWordsPerThread; ++j)
          if (tile[j * kThreads + t] != tag(pair, round)) ++stale;
      if (t != 0) asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // readers, before the refill
      __syncthreads();
      if (t == 0) storeReleaseGpu(done, round + 1);
    }
  }
  if (t == 0 && gaveUp) noteTimeout(timeoutCount);
  if (stale) atomicAdd(staleCount, stale);
}

template <Store S>
__device__ __forceinline__ void storeRounds(const Params& p, unsigned long long* staleCount, unsigned* timeoutCount) {
  __shared__ __align__(128) uint32_t tile[kBufferWords];
  __shared__ unsigned gaveUp;
  const unsigned pair = blockIdx.x / 2, t = threadIdx.x;
  const bool writer = blockIdx.x % 2 == 0;
  uint32_t* buffer = p.buffers + static_cast<size_t>(pair) * kBufferWords;
  unsigned* ready = p.ready + 32 * pair;
  unsigned* done = p.done + 32 * pair;
  if (t == 0) gaveUp = 0;
  __syncthreads();
  const uint64_t deadline = deadlineAfter(p.timeoutNs);
  unsigned long long stale = 0;
  for (unsigned round = 0; round < p.rounds; ++round) {
    if (writer) {
      if (t == 0)
        while (loadAcquireGpu(done) < round)
          if (pastDeadline(deadline)) {
            gaveUp = 1;
            break;
          }
      __syncthreads();
      if (gaveUp) break;
      for (unsigned j = 0; j < kWordsPerThread; ++j) tile[j * kThreads + t] = tag(pair, round);
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      __syncthreads();
      if (t == 0) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(buffer),
                     "r"(sharedAddress(tile)), "r"(kBufferWords * 4)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        if (S == Store::CompleteWait) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
        else asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        storeReleaseGpu(ready, round + 1);
      }
    } else {
      if (t == 0)
        while (loadAcquireGpu(ready) < round + 1)
          if (pastDeadline(deadline)) {
            gaveUp = 1;
            break;
          }
      __syncthreads();
      if (gaveUp) break;
      for (unsigned j = 0; j < kWordsPerThread; ++j)
        if (buffer[j * kThreads + t] != tag(pair, round)) ++stale;
      __syncthreads();
      if (t == 0) storeReleaseGpu(done, round + 1);
    }
  }
  if (t == 0 && gaveUp) noteTimeout(timeoutCount);
  if (stale) atomicAdd(staleCount, stale);
}

__global__ void __launch_bounds__(kThreads) proxyGlobalStoreUnfixed(const __grid_constant__ Params p,
                                                                    unsigned long long* stale, unsigned* timeouts) {
  storeRounds<Store::ReadWait>(p, stale, timeouts);  // expect: proxy-global
}
__global__ void __launch_bounds__(kThreads) proxyGlobalStoreFixed(const __grid_constant__ Params p,
                                                                  unsigned long long* stale, unsigned* timeouts) {
  storeRounds<Store::CompleteWait>(p, stale, timeouts);
}

__global__ void __launch_bounds__(kThreads) proxyGlobalUnfixed(const __grid_constant__ Params p, unsigned long long* stale,
                                                           unsigned* timeouts) {
  pairRounds<Fence::None>(p, stale, timeouts);  // expect: proxy-global
}
__global__ void __launch_bounds__(kThreads) proxyGlobalWriterFence(const __grid_constant__ Params p, unsigned long long* stale,
                                                           unsigned* timeouts) {
  pairRounds<Fence::Writer>(p, stale, timeouts);
}
__global__ void __launch_bounds__(kThreads) proxyGlobalIssuerFence(const __grid_constant__ Params p, unsigned long long* stale,
                                                           unsigned* timeouts) {
  pairRounds<Fence::Issuer>(p, stale, timeouts);
}

std::vector<Result> runVariant(const RunContext& ctx, const std::string& variant) {
  // One CTA per SM at most: every pair must be co-resident (they spin on each other).
  const unsigned pairs = ctx.device->multiProcessorCount / 2;
  Params p{};
  p.rounds = static_cast<unsigned>(ctx.param("proxy-global.rounds", 2000));
  p.timeoutNs = static_cast<uint64_t>(ctx.param("proxy-global.timeout_ms", 5000)) * 1000000ull;
  check(cudaMalloc(&p.buffers, static_cast<size_t>(pairs) * kBufferWords * 4), "cudaMalloc");
  check(cudaMalloc(&p.ready, pairs * 32 * sizeof(unsigned)), "cudaMalloc");
  check(cudaMalloc(&p.done, pairs * 32 * sizeof(unsigned)), "cudaMalloc");
  Counters c{};
  check(cudaMalloc(&c.stale, sizeof(unsigned long long)), "cudaMalloc");
  check(cudaMalloc(&c.timeouts, sizeof(unsigned)), "cudaMalloc");
  void (*kernel)(Params, unsigned long long*, unsigned*) = variant == "writer-fence"    ? proxyGlobalWriterFence
                                                          : variant == "issuer-fence"  ? proxyGlobalIssuerFence
                                                          : variant == "store-unfixed" ? proxyGlobalStoreUnfixed
                                                          : variant == "store-fixed"   ? proxyGlobalStoreFixed
                                                                                       : proxyGlobalUnfixed;
  Result result{"proxy-global", variant};
  unsigned long long staleTotal = 0;
  unsigned timeoutTotal = 0;
  const auto began = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < ctx.iterations && (n == 0 || secondsSince(began) < ctx.budgetSeconds); ++n) {
    check(cudaMemset(p.buffers, 0, static_cast<size_t>(pairs) * kBufferWords * 4), "cudaMemset");
    check(cudaMemset(p.ready, 0, pairs * 32 * sizeof(unsigned)), "cudaMemset");
    check(cudaMemset(p.done, 0, pairs * 32 * sizeof(unsigned)), "cudaMemset");
    check(cudaMemset(c.stale, 0, sizeof(unsigned long long)), "cudaMemset");
    check(cudaMemset(c.timeouts, 0, sizeof(unsigned)), "cudaMemset");
    result.seconds += timedLaunch(ctx, "proxy-global", [&] { kernel<<<2 * pairs, kThreads>>>(p, c.stale, c.timeouts); });
    unsigned long long stale = 0;
    unsigned timeouts = 0;
    check(cudaMemcpy(&stale, c.stale, sizeof stale, cudaMemcpyDeviceToHost), "cudaMemcpy");
    check(cudaMemcpy(&timeouts, c.timeouts, sizeof timeouts, cudaMemcpyDeviceToHost), "cudaMemcpy");
    staleTotal += stale;
    timeoutTotal += timeouts;
    const unsigned readers = variant.rfind("store-", 0) == 0 ? kThreads : kThreads - 1;
    result.trials += static_cast<unsigned long long>(pairs) * p.rounds * readers * kWordsPerThread;
    ++result.launches;
  }
  for (void* ptr : {static_cast<void*>(p.buffers), static_cast<void*>(p.ready), static_cast<void*>(p.done),
                    static_cast<void*>(c.stale), static_cast<void*>(c.timeouts)})
    check(cudaFree(ptr), "cudaFree");
  result.violations = staleTotal;
  if (timeoutTotal) result.status = "timeout";
  result.set("timeouts", static_cast<double>(timeoutTotal));
  result.set("pairs", pairs);
  result.set("rounds_per_launch", p.rounds);
  result.set("buffer_bytes", kBufferWords * 4);
  if (result.launches) result.set("ns_per_round", result.seconds / result.launches / p.rounds * 1e9);
  return {result};
}

}  // namespace lab::proxy_global

lab::ExperimentInfo lab::proxyGlobalExperiment() {
  return {"proxy-global", "generic st.global, flag, then the partner CTA bulk-copies the buffer (async proxy)",
          {"unfixed", "writer-fence", "issuer-fence", "store-unfixed", "store-fixed"}, proxy_global::runVariant};
}
