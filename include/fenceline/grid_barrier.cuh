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
// Two designs share that counter, picked by grid size (GridBarrierDesign): below
// kFlagLineFromBlocks blocks the waiters poll the counter itself (one_word); from there on
// they poll a flag word on another 128-byte line that only the last arriver writes
// (flag_line), so that a thousand polls do not queue behind the arrivals' atomics on one
// line (crossover measured on an H200: docs/primitives.md). The flag holds the counter
// value at the end of the last flag_line episode and only grows; a waiter waits for the
// value its own episode ends at, so a flag that lags behind (one_word launches do not write
// it; values compare as a signed 64-bit difference, so a lag of up to 2^43 episodes) can
// never let a block through early, and launches of any grid size may follow each other on
// one barrier. The words are allocated and zeroed on the host
// (GridBarrier::create), never in the kernel.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "atomic.cuh"

namespace fenceline {

// Which waiting design a GridBarrier episode uses (see the file comment).
enum class GridBarrierDesign {
  by_grid_size,  // one_word below kFlagLineFromBlocks blocks, flag_line from there on
  one_word,      // waiters poll the counter word
  flag_line,     // waiters poll a flag line written by the last arriver
};

// From this many blocks on, by_grid_size picks flag_line (the crossover measured on an H200).
inline constexpr uint32_t kFlagLineFromBlocks = 1056;

struct GridBarrier {
  // word[0]: the counter; word[kFlagOffset]: the flag (see the file comment).
  static constexpr uint32_t kFlagOffset = 16;  // 128 bytes on: another line
  static constexpr uint32_t kWords = 32;       // 64-bit words that create() allocates
  static constexpr uint64_t kEpisode = 1ull << 20;  // what one complete episode adds
  uint64_t* word = nullptr;

  // What a block's arrival returned; meaningful in the block's thread 0, which waits.
  struct Token {
    uint64_t arrived_at = 0;  // the counter just before this block's add
    bool last = false;        // this block's add completed the episode: everyone has arrived
  };

  // The counter value at which the token's episode is complete.
  __device__ static uint64_t completed_at(Token token) { return (token.arrived_at & ~(kEpisode - 1)) + kEpisode; }

  template <GridBarrierDesign D>
  __device__ static bool polls_flag() {
    if constexpr (D == GridBarrierDesign::by_grid_size)
      return gridDim.x * gridDim.y * gridDim.z >= kFlagLineFromBlocks;
    else
      return D == GridBarrierDesign::flag_line;
  }

  // Relaxed .gpu polls of the counter (one_word) or the flag (flag_line) until it reaches
  // the value the token's episode ends at; the caller runs the acquire fence after it. The
  // bounded form gives up (false) once %globaltimer passes deadline_ns.
  __device__ static bool reached(const uint64_t* polled, Token token) {
    return static_cast<int64_t>(atomic_load<Sem::relaxed, Scope::gpu>(polled) - completed_at(token)) >= 0;
  }
  __device__ static void poll_until_complete(const uint64_t* polled, Token token) {
    while (!reached(polled, token)) {
    }
  }
  __device__ static bool poll_until_complete_or(const uint64_t* polled, Token token, uint64_t deadline_ns) {
    while (!reached(polled, token))
      if (global_timer_ns() > deadline_ns) return false;
    return true;
  }

  // Arrival, called by every thread of the block. Contract: the block's accesses before
  // arrive() are gathered by __syncthreads() and then released at .gpu scope by thread 0's
  // atom.release.gpu arrival; they happen before every access that any block of the grid
  // makes after its wait() for this same episode. Work placed between arrive() and wait()
  // is not ordered by this episode. Under flag_line the last arriver then runs
  // fence.acquire.gpu (its atom read every arrival) and publishes the episode's end value
  // in the flag with st.release.gpu, which is what the flag_line waiters synchronize with.
  template <GridBarrierDesign D = GridBarrierDesign::by_grid_size>
  __device__ Token arrive() const {
    __syncthreads();
    Token token;
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
      const uint64_t blocks = gridDim.x * gridDim.y * gridDim.z;
      const bool leader = blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;
      const uint64_t add = leader ? kEpisode - (blocks - 1u) : 1u;
      token.arrived_at = atomic_fetch_add<Sem::release, Scope::gpu>(word, add);
      token.last = token.arrived_at + add == completed_at(token);
      if (token.last && polls_flag<D>()) {
        fence<Sem::acquire, Scope::gpu>();
        atomic_store<Sem::release, Scope::gpu>(word + kFlagOffset, completed_at(token));
      }
    }
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
  template <Sem AcquireFence = Sem::acquire, GridBarrierDesign D = GridBarrierDesign::by_grid_size>
  __device__ void wait(Token token) const {
    static_assert(AcquireFence != Sem::relaxed && AcquireFence != Sem::release, "wait needs an acquire fence");
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
      if (!token.last) {
        if (polls_flag<D>())
          poll_until_complete(word + kFlagOffset, token);
        else
          poll_until_complete(word, token);
      }
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
  template <Sem AcquireFence = Sem::acquire, GridBarrierDesign D = GridBarrierDesign::by_grid_size>
  __device__ bool wait_until(Token token, uint64_t deadline_ns) const {
    static_assert(AcquireFence != Sem::relaxed && AcquireFence != Sem::release, "wait needs an acquire fence");
    int timed_out = 0;
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
      if (!token.last) {
        if (polls_flag<D>())
          timed_out = !poll_until_complete_or(word + kFlagOffset, token, deadline_ns);
        else
          timed_out = !poll_until_complete_or(word, token, deadline_ns);
      }
      fence<AcquireFence, Scope::gpu>();
    }
    return __syncthreads_or(timed_out) == 0;
  }

  // arrive() then wait_until(): as sync() when it returns true; false (in every thread) when
  // the deadline passed first.
  // by_grid_size picks the design once for the whole episode (the same branch in every
  // thread of the grid). Measured on an H200 at 132 blocks (docs/primitives.md): 911 ns per
  // sync, against 936 ns with the choice made in arrive() and again in wait(), and 833 ns
  // for one_word named explicitly: a kernel that knows its grid size names the design.
  template <Sem AcquireFence = Sem::acquire, GridBarrierDesign D = GridBarrierDesign::by_grid_size>
  __device__ bool sync_until(uint64_t deadline_ns) const {
    if constexpr (D == GridBarrierDesign::by_grid_size) {
      if (polls_flag<D>()) return sync_until<AcquireFence, GridBarrierDesign::flag_line>(deadline_ns);
      return sync_until<AcquireFence, GridBarrierDesign::one_word>(deadline_ns);
    } else {
      return wait_until<AcquireFence, D>(arrive<D>(), deadline_ns);
    }
  }

  // arrive() then wait(): every access of every block before sync() happens before every
  // access of every block after it (.gpu scope; all threads of every block must call it).
  template <Sem AcquireFence = Sem::acquire, GridBarrierDesign D = GridBarrierDesign::by_grid_size>
  __device__ void sync() const {
    if constexpr (D == GridBarrierDesign::by_grid_size) {
      if (polls_flag<D>())
        sync<AcquireFence, GridBarrierDesign::flag_line>();
      else
        sync<AcquireFence, GridBarrierDesign::one_word>();
    } else {
      wait<AcquireFence, D>(arrive<D>());
    }
  }

  // Host: allocates the counter and flag lines on the current device and zeroes them
  // (before any launch).
  static cudaError_t create(GridBarrier* barrier) {
    cudaError_t error = cudaMalloc(&barrier->word, kWords * sizeof(uint64_t));
    if (error != cudaSuccess) return error;
    return cudaMemset(barrier->word, 0, kWords * sizeof(uint64_t));
  }
  // Host: zeroes the words again; needed only after a launch that did not finish an episode.
  cudaError_t reset(cudaStream_t stream = 0) const {
    return cudaMemsetAsync(word, 0, kWords * sizeof(uint64_t), stream);
  }
  cudaError_t destroy() {
    cudaError_t error = cudaFree(word);
    word = nullptr;
    return error;
  }
};

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

// Host: launches a kernel that uses a GridBarrier. Refuses (cudaErrorCooperativeLaunchTooLarge,
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
  status.error = cudaLaunchKernelEx(&config, kernel, static_cast<Args&&>(args)...);
  if (!status) status.message = std::string("cooperative launch failed: ") + cudaGetErrorString(status.error);
  return status;
}

}  // namespace fenceline
