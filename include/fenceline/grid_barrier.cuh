// A grid-wide barrier for one kernel launch whose blocks are all co-resident, usable any
// number of times per launch and across launches. One 64-bit counter word holds the
// arrivals of the current episode (bits 0..19) and the number of completed episodes (bits
// 20..63): block 0 adds 2^20 - (blocks - 1), every other block adds 1, so each episode adds
// exactly 2^20 and the last arrival carries into bit 20 (grids of up to 2^20 - 1 blocks).
// A block waits until the episode its own arrival (an atom) returned has completed;
// nothing compares against a fixed threshold and nothing is reset, so consecutive episodes
// cannot be confused. The block whose arrival completed the episode knows it is last and
// does not poll.
//
// Two waiting designs share that counter (GridBarrierDesign): in one_word the waiters
// poll the counter itself; in flag_line they poll a flag word on another 128-byte line
// that only the last arriver writes, so that a thousand polls do not queue behind the
// arrivals' atomics on one line (crossover measured on an H200: docs/primitives.md). The
// flag holds the counter value at the end of the last flag_line episode and only grows; a
// waiter waits for the value its own episode ends at, so a flag that lags behind (one_word
// launches do not write it; values compare as a signed 64-bit difference, so a lag of up to
// 2^43 episodes) can never let a block through early, and launches of any grid size and
// either design may follow each other on one barrier.
//
// The design is chosen on the host, per launch, and travels in the barrier object: which
// word the waiters poll is a member (poll_offset: 0 or kFlagOffset), so the default sync()
// has one code path and no branch on the grid size (an earlier device-side choice by
// gridDim cost 1.5% per sync on an H200, in the same run at the same words). for_grid()
// returns the barrier set up for a grid (one_word below kFlagLineFromBlocks blocks,
// flag_line from there on), and launch_with_grid_barrier() applies it to every GridBarrier
// argument of the launch; a barrier used as created is one_word. The words are allocated
// and zeroed on the host (GridBarrier::create), never in the kernel; create() also picks
// where in the L2 the counter lies, by timing candidate places (it moves a sync by up to
// 8% on an H200).
//
// The counter and the flag are cudaMalloc'd device memory, so the accesses name the
// .global state space (grid_barrier_access below): with generic addresses, ptxas adds a
// shared-memory fallback path to the 64-bit atom (QSPC); and the arrival is written so
// that ptxas does not aggregate it across the warp (arrive_release_if). sync() is one block
// of thread-0 code: arrival, poll, fence, between the two __syncthreads().
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "atomic.cuh"

namespace fenceline {

// Which waiting design a GridBarrier episode uses (see the file comment).
enum class GridBarrierDesign {
  chosen,     // the one the host set in the barrier (for_grid, launch_with_grid_barrier)
  one_word,   // waiters poll the counter word
  flag_line,  // waiters poll a flag line written by the last arriver
};

// From this many blocks on, for_grid() picks flag_line (the crossover measured on an H200).
inline constexpr uint32_t kFlagLineFromBlocks = 1056;

// The barrier's three accesses to its words, with the .global state space (file comment).
namespace grid_barrier_access {
// The arrival's atom, issued only where `first` (thread (0, 0, 0)) holds; 0 elsewhere. It is
// called under threadIdx.x == 0 with the test of threadIdx.y and .z as the instruction's own
// predicate: under a condition on all three, ptxas wraps the atom in a warp aggregation
// (VOTE, POPC, two SHFL of the result between the arrival and the first poll), under
// threadIdx.x == 0 alone it does not (sm_90a, nvcc 13.0).
__device__ __forceinline__ uint64_t arrive_release_if(uint64_t* word, uint64_t add, bool first) {
  uint64_t old = 0;
  asm volatile(
      "{ .reg .pred p; setp.ne.u32 p, %3, 0; @p atom.release.gpu.global.add.u64 %0, [%1], %2; }"
      : "+l"(old)
      : "l"(word), "l"(add), "r"(static_cast<uint32_t>(first))
      : "memory");
  return old;
}
__device__ __forceinline__ uint64_t poll_relaxed(const uint64_t* word) {
  uint64_t value;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(value) : "l"(word) : "memory");
  return value;
}
__device__ __forceinline__ void publish_release(uint64_t* word, uint64_t value) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(word), "l"(value) : "memory");
}
}  // namespace grid_barrier_access

struct GridBarrier {
  // word[0]: the counter; word[kFlagOffset]: the flag (see the file comment).
  static constexpr uint32_t kFlagOffset = 16;  // 128 bytes on: another line
  static constexpr uint32_t kWords = 32;       // 64-bit words of one barrier (what reset() zeroes)
  static constexpr uint64_t kEpisode = 1ull << 20;  // what one complete episode adds
  uint64_t* word = nullptr;
  // The design of GridBarrierDesign::chosen, as the word its waiters poll: 0 (one_word) or
  // kFlagOffset (flag_line, whose last arriver also publishes the flag). Set on the host.
  uint32_t poll_offset = 0;

  // What a block's arrival returned; meaningful in the block's thread 0, which waits.
  struct Token {
    uint64_t arrived_at = 0;  // the counter just before this block's add
    bool last = false;        // this block's add completed the episode: everyone has arrived
  };

  // Host: this barrier with the design for a grid of `blocks` blocks (file comment).
  GridBarrier for_grid(uint64_t blocks) const {
    GridBarrier set = *this;
    set.poll_offset = blocks >= kFlagLineFromBlocks ? kFlagOffset : 0;
    return set;
  }
  // Host: the design that GridBarrierDesign::chosen stands for in this barrier.
  GridBarrierDesign design() const {
    return poll_offset == kFlagOffset ? GridBarrierDesign::flag_line : GridBarrierDesign::one_word;
  }

  // The counter value at which the token's episode is complete.
  __device__ static uint64_t completed_at(Token token) { return (token.arrived_at & ~(kEpisode - 1)) + kEpisode; }

  // The word that design D's waiters poll (for chosen: the member, no branch).
  template <GridBarrierDesign D>
  __device__ const uint64_t* polled() const {
    if constexpr (D == GridBarrierDesign::chosen)
      return word + poll_offset;
    else
      return D == GridBarrierDesign::flag_line ? word + kFlagOffset : word;
  }
  template <GridBarrierDesign D>
  __device__ bool publishes_flag() const {
    if constexpr (D == GridBarrierDesign::chosen)
      return poll_offset != 0;
    else
      return D == GridBarrierDesign::flag_line;
  }

  // Relaxed .gpu polls of the polled word until it reaches the value the token's episode
  // ends at; the caller runs the acquire fence after it. The bounded form gives up (false)
  // once %globaltimer passes deadline_ns.
  __device__ static bool reached(uint64_t value, Token token) {
    return static_cast<int64_t>(value - completed_at(token)) >= 0;
  }
  __device__ static void poll_until_complete(const uint64_t* polled, Token token) {
    while (!reached(grid_barrier_access::poll_relaxed(polled), token)) {
    }
  }
  __device__ static bool poll_until_complete_or(const uint64_t* polled, Token token, uint64_t deadline_ns) {
    while (!reached(grid_barrier_access::poll_relaxed(polled), token))
      if (global_timer_ns() > deadline_ns) return false;
    return true;
  }

  // The last arriver's publication under flag_line: fence.acquire.gpu (its atom read every
  // arrival), then st.release.gpu of the episode's end value. Not inlined, so that ptxas
  // cannot turn the branch into predicated instructions that every block would issue:
  // with GridBarrierDesign::chosen, a predicated-off MEMBAR.ALL.GPU in every one_word
  // arrival cost about 55 ns per sync on an H200 (docs/primitives.md).
  __device__ __noinline__ static void publish_flag(uint64_t* flag, uint64_t value) {
    fence<Sem::acquire, Scope::gpu>();
    grid_barrier_access::publish_release(flag, value);
  }

  // Arrival, called by every thread of the block. Contract: the block's accesses before
  // arrive() are gathered by __syncthreads() and then released at .gpu scope by thread 0's
  // atom.release.gpu arrival; they happen before every access that any block of the grid
  // makes after its wait() for this same episode. Work placed between arrive() and wait()
  // is not ordered by this episode. Under flag_line the last arriver then runs
  // fence.acquire.gpu (its atom read every arrival) and publishes the episode's end value
  // in the flag with st.release.gpu, which is what the flag_line waiters synchronize with.
  template <GridBarrierDesign D = GridBarrierDesign::chosen>
  __device__ Token arrive() const {
    __syncthreads();
    return threadIdx.x == 0 ? arrive_in_column<D>((threadIdx.y | threadIdx.z) == 0) : Token{};
  }

  // The arrival (and, under flag_line, the last arriver's publication), run by the threads
  // with threadIdx.x == 0 and done by the one of them that is `first`, thread (0, 0, 0);
  // the others get an empty token.
  template <GridBarrierDesign D>
  __device__ Token arrive_in_column(bool first) const {
    Token token;
    const uint64_t blocks = gridDim.x * gridDim.y * gridDim.z;
    const bool leader = blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;
    const uint64_t add = leader ? kEpisode - (blocks - 1u) : 1u;
    token.arrived_at = grid_barrier_access::arrive_release_if(word, add, first);
    token.last = first && token.arrived_at + add == completed_at(token);
    if (token.last && publishes_flag<D>()) publish_flag(word + kFlagOffset, completed_at(token));
    return token;
  }

  // Wait, called by every thread of the block with the token of its last arrive() (of the
  // same design D). Contract: thread 0 polls with relaxed .gpu loads, the counter (one_word)
  // or the flag (flag_line), until the episode has completed (the last arriver, whose atom
  // already read every other arrival, skips the poll), then executes one acquire fence at
  // .gpu (fence.acquire.gpu by default; AcquireFence may strengthen it to acq_rel or sc),
  // which pairs with every block's release (one_word) or with the last arriver's
  // st.release, which follows its acquire of every arrival (flag_line); the closing
  // __syncthreads() extends it to the whole block.
  template <Sem AcquireFence = Sem::acquire, GridBarrierDesign D = GridBarrierDesign::chosen>
  __device__ void wait(Token token) const {
    static_assert(AcquireFence != Sem::relaxed && AcquireFence != Sem::release, "wait needs an acquire fence");
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
      if (!token.last) poll_until_complete(polled<D>(), token);
      fence<AcquireFence, Scope::gpu>();
    }
    __syncthreads();
  }

  // wait() with a deadline on %globaltimer (global_timer_ns()), for code that must not hang
  // when a block never arrives. Called by every thread of the block with the token of its
  // last arrive(); returns the same value in every thread: true when the episode completed
  // before deadline_ns, false on timeout. Contract: as wait() when it returns true. Thread
  // 0 polls with relaxed .gpu loads and leaves the poll either because the episode
  // completed or because the deadline passed; the acquire fence (AcquireFence at .gpu)
  // runs on both exits, so no path out of the wait lacks the acquire. On timeout nothing is
  // ordered by this episode (it did not complete), and the counter holds a partial count:
  // reset() it on the host before the next launch. The closing __syncthreads_or() extends
  // the acquire to the block and hands thread 0's outcome to every thread.
  template <Sem AcquireFence = Sem::acquire, GridBarrierDesign D = GridBarrierDesign::chosen>
  __device__ bool wait_until(Token token, uint64_t deadline_ns) const {
    static_assert(AcquireFence != Sem::relaxed && AcquireFence != Sem::release, "wait needs an acquire fence");
    int timed_out = 0;
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
      if (!token.last) timed_out = !poll_until_complete_or(polled<D>(), token, deadline_ns);
      fence<AcquireFence, Scope::gpu>();
    }
    return __syncthreads_or(timed_out) == 0;
  }

  // arrive() then wait_until(): as sync() when it returns true; false (in every thread) when
  // the deadline passed first.
  template <Sem AcquireFence = Sem::acquire, GridBarrierDesign D = GridBarrierDesign::chosen>
  __device__ bool sync_until(uint64_t deadline_ns) const {
    return wait_until<AcquireFence, D>(arrive<D>(), deadline_ns);
  }

  // arrive() then wait(): every access of every block before sync() happens before every
  // access of every block after it (.gpu scope; all threads of every block must call it).
  // The same instructions as wait(arrive()), as one block of thread-0 code.
  template <Sem AcquireFence = Sem::acquire, GridBarrierDesign D = GridBarrierDesign::chosen>
  __device__ void sync() const {
    static_assert(AcquireFence != Sem::relaxed && AcquireFence != Sem::release, "sync needs an acquire fence");
    __syncthreads();
    if (threadIdx.x == 0) {
      const bool first = (threadIdx.y | threadIdx.z) == 0;
      const Token token = arrive_in_column<D>(first);
      if (first) {
        if (!token.last) poll_until_complete(polled<D>(), token);
        fence<AcquireFence, Scope::gpu>();
      }
    }
    __syncthreads();
  }

  // Host: allocates the counter and flag lines on the current device and zeroes them
  // (before any launch). The barrier is one_word until for_grid() says otherwise. Where the
  // counter lies in the L2 moves a sync by up to 8% on an H200 (the same design at 12 lines
  // of one allocation: 821-879 ns at 132 blocks, docs/primitives.md), so create() allocates
  // kPlacements candidate places, times kCalibrationEpisodes one_word episodes on each with
  // one 32-thread block per SM (grid_barrier_calibration below, one cooperative launch, a few
  // milliseconds), and keeps the fastest; if that launch fails, the first place, and the
  // error is cleared. calibration_ns (optional) receives the time per episode of each place.
  static constexpr uint32_t kPlacements = 16;
  static constexpr uint32_t kPlacementStride = 37 * 16;  // 64-bit words: 37 lines of 128 bytes
  static constexpr uint32_t kCalibrationEpisodes = 256;
  static cudaError_t create(GridBarrier* barrier, double* calibration_ns = nullptr);
  // Host: zeroes the words again; needed only after a launch that did not finish an episode.
  cudaError_t reset(cudaStream_t stream = 0) const {
    return cudaMemsetAsync(word, 0, kWords * sizeof(uint64_t), stream);
  }
  cudaError_t destroy() {
    cudaError_t error = cudaFree(allocation);
    word = nullptr;
    allocation = nullptr;
    return error;
  }
  uint64_t* allocation = nullptr;  // what create() allocated: kPlacements places (host-side bookkeeping)
};

// create()'s calibration kernel: every block runs `episodes` one_word episodes on each
// candidate place in turn, twice (the first pass warms up); block 0 times the second pass.
template <int = 0>
__global__ void grid_barrier_calibration(uint64_t* first, uint32_t places, uint32_t stride, uint32_t episodes,
                                       unsigned long long* ns) {
  for (int pass = 0; pass < 2; ++pass)
    for (uint32_t p = 0; p < places; ++p) {
      GridBarrier barrier;
      barrier.word = first + static_cast<size_t>(p) * stride;
      const uint64_t start = global_timer_ns();
      for (uint32_t e = 0; e < episodes; ++e) barrier.sync<Sem::acquire, GridBarrierDesign::one_word>();
      if (pass == 1 && blockIdx.x == 0 && threadIdx.x == 0) ns[p] = global_timer_ns() - start;
    }
}

inline cudaError_t GridBarrier::create(GridBarrier* barrier, double* calibration_ns) {
  barrier->poll_offset = 0;
  const size_t words = static_cast<size_t>(kPlacements) * kPlacementStride;
  cudaError_t error = cudaMalloc(&barrier->allocation, words * sizeof(uint64_t));
  if (error != cudaSuccess) return error;
  barrier->word = barrier->allocation;
  if ((error = cudaMemset(barrier->allocation, 0, words * sizeof(uint64_t))) != cudaSuccess) return error;
  int device = 0, sms = 0;
  unsigned long long* ns = nullptr;
  unsigned long long host[kPlacements] = {};
  bool timed = cudaGetDevice(&device) == cudaSuccess &&
               cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess &&
               cudaMalloc(&ns, sizeof host) == cudaSuccess;
  if (timed) {
    uint64_t* first = barrier->allocation;
    uint32_t places = kPlacements, stride = kPlacementStride, episodes = kCalibrationEpisodes;
    void* args[] = {&first, &places, &stride, &episodes, &ns};
    timed = cudaLaunchCooperativeKernel(reinterpret_cast<void*>(grid_barrier_calibration<>), dim3(sms), dim3(32), args,
                                        0, 0) == cudaSuccess &&
            cudaMemcpy(host, ns, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess;
  }
  if (ns) cudaFree(ns);
  if (!timed) {
    cudaGetLastError();  // the calibration's failure is not the caller's: the first place stays
  } else {
    uint32_t best = 0;
    for (uint32_t p = 1; p < kPlacements; ++p)
      if (host[p] < host[best]) best = p;
    barrier->word = barrier->allocation + static_cast<size_t>(best) * kPlacementStride;
  }
  if (calibration_ns)
    for (uint32_t p = 0; p < kPlacements; ++p) calibration_ns[p] = timed ? host[p] / double(kCalibrationEpisodes) : 0;
  return cudaMemset(barrier->allocation, 0, words * sizeof(uint64_t));
}

// The outcome of a checked launch: error is cudaSuccess, or message says why not.
struct LaunchStatus {
  cudaError_t error = cudaSuccess;
  std::string message;
  explicit operator bool() const { return error == cudaSuccess; }
};

// Host: how many blocks of `kernel` with this block size and dynamic shared memory can be
// resident on the current device at once (blocks per SM x SMs).
template <class... Params>
LaunchStatus max_coresident_blocks(void (*kernel)(Params...), int threads_per_block,
                                   size_t dynamic_smem, int* blocks) {
  int device = 0, sms = 0, per_sm = 0;
  LaunchStatus status;
  if ((status.error = cudaGetDevice(&device)) != cudaSuccess ||
      (status.error = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess ||
      (status.error = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads_per_block,
                                                                    dynamic_smem)) != cudaSuccess) {
    status.message = std::string("occupancy query failed: ") + cudaGetErrorString(status.error);
    return status;
  }
  *blocks = per_sm * sms;
  return status;
}

namespace detail {
// launch_with_grid_barrier's arguments as passed, but a GridBarrier set up for the grid.
template <class Arg>
Arg&& set_for_grid(Arg&& arg, long long) {
  return static_cast<Arg&&>(arg);
}
inline GridBarrier set_for_grid(const GridBarrier& barrier, long long blocks) { return barrier.for_grid(blocks); }
inline GridBarrier set_for_grid(GridBarrier& barrier, long long blocks) { return barrier.for_grid(blocks); }
inline GridBarrier set_for_grid(GridBarrier&& barrier, long long blocks) { return barrier.for_grid(blocks); }
}  // namespace detail

// Host: launches a kernel that uses a GridBarrier, each GridBarrier argument set up for the
// grid (GridBarrier::for_grid: the waiting design by grid size). Refuses (cudaErrorCooperativeLaunchTooLarge,
// with the numbers in the message) a grid larger than the co-resident maximum, which would
// deadlock at the first sync(); then launches cooperatively, so the driver also guarantees
// that all blocks are scheduled together.
template <class... Params, class... Args>
LaunchStatus launch_with_grid_barrier(void (*kernel)(Params...), dim3 grid, dim3 block,
                                      size_t dynamic_smem, cudaStream_t stream, Args&&... args) {
  const long long requested = 1LL * grid.x * grid.y * grid.z;
  const int threads = static_cast<int>(block.x * block.y * block.z);
  int resident = 0;
  LaunchStatus status = max_coresident_blocks(kernel, threads, dynamic_smem, &resident);
  if (!status) return status;
  if (requested >= static_cast<long long>(GridBarrier::kEpisode)) {
    status.error = cudaErrorInvalidConfiguration;
    status.message = "grid barrier: a grid of " + std::to_string(requested) + " blocks exceeds the barrier's " +
                     std::to_string(GridBarrier::kEpisode - 1) + "-block limit (arrival count bits)";
    return status;
  }
  if (requested > resident) {
    status.error = cudaErrorCooperativeLaunchTooLarge;
    status.message = "grid barrier: a grid of " + std::to_string(requested) + " blocks exceeds the " +
                     std::to_string(resident) + " blocks of " + std::to_string(threads) +
                     " threads (" + std::to_string(dynamic_smem) +
                     " B dynamic shared memory) that can be co-resident on this device; "
                     "blocks that never start would never arrive and the grid would deadlock";
    return status;
  }
  cudaLaunchAttribute cooperative{};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = dynamic_smem;
  config.stream = stream;
  config.attrs = &cooperative;
  config.numAttrs = 1;
  status.error = cudaLaunchKernelEx(&config, kernel, detail::set_for_grid(static_cast<Args&&>(args), requested)...);
  if (!status) status.message = std::string("cooperative launch failed: ") + cudaGetErrorString(status.error);
  return status;
}

}  // namespace fenceline
