// A barrier across GPUs of one process over peer-mapped memory (one rank per GPU, one
// participating block per rank). Every rank owns an inbox of one 64-bit slot per rank in
// its own memory; arriving at episode e, rank r writes e into slot r of every rank's inbox
// through peer pointers, and then waits until every slot of its own inbox holds at least
// e. Each slot has a single writer and only grows, so the barrier is reusable with no
// reset and no atomics. With a timeout, a wait that gives up records which ranks never
// arrived instead of hanging. Works with one rank (it then only orders its own block).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "atomic.cuh"

namespace fenceline {

inline constexpr int kMaxRanks = 8;

// One rank's view, passed to its kernel by value.
struct MultiGpuBarrierRank {
  uint64_t* inbox = nullptr;                 // this rank's slots, one per source rank
  uint64_t* peer_inbox[kMaxRanks] = {};      // every rank's inbox (peer pointers; own included)
  uint32_t* missing = nullptr;               // after a timeout: bit i set = rank i never arrived
  int rank = 0;
  int ranks = 1;

  // Called by every thread of the one participating block of this rank (blockDim >= ranks).
  // Contract: the block's accesses before sync() are gathered by __syncthreads() and
  // released at .sys scope by st.release.sys into each peer's inbox; after the relaxed .sys
  // polls succeed, fence.acquire.sys and the closing barrier order every later access of the
  // block after the arriving blocks' prior accesses, on every GPU. Returns false on timeout
  // (timeout_ns > 0); the barrier is then broken until MultiGpuBarrier::reset().
  __device__ bool sync(uint64_t timeout_ns = 0) const {
    // Our own slot holds the last episode we arrived at; read it before the barrier, since
    // the thread that signals ourselves rewrites it after.
    const uint64_t episode = atomic_load<Sem::relaxed, Scope::sys>(&inbox[rank]) + 1;
    __syncthreads();
    const int thread = static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
    bool arrived = true;
    if (thread < ranks) {
      const int peer = thread;  // this thread signals rank `peer` and waits for rank `peer`
      atomic_store<Sem::release, Scope::sys>(&peer_inbox[peer][rank], episode);
      const uint64_t start = timeout_ns ? global_timer_ns() : 0;
      while (atomic_load<Sem::relaxed, Scope::sys>(&inbox[peer]) < episode) {
        if (timeout_ns && global_timer_ns() - start > timeout_ns) {
          atomicOr(missing, 1u << peer);
          arrived = false;
          break;
        }
      }
      fence<Sem::acquire, Scope::sys>();
    }
    return __syncthreads_and(arrived) != 0;
  }
};

// Host side: allocates the inboxes, enables peer access between the ranks' devices and
// hands out each rank's view. Several ranks may share a device (used by the one-GPU tests).
class MultiGpuBarrier {
 public:
  static std::string create(const int* devices, int ranks, MultiGpuBarrier* out) {
    if (ranks < 1 || ranks > kMaxRanks) return "multi-GPU barrier: 1 to " + std::to_string(kMaxRanks) + " ranks";
    out->ranks_ = ranks;
    for (int r = 0; r < ranks; ++r) {
      out->devices_[r] = devices[r];
      if (std::string error = out->enable_peer_access(r); !error.empty()) return error;
      if (cudaSetDevice(devices[r]) != cudaSuccess ||
          cudaMalloc(&out->inbox_[r], sizeof(uint64_t) * kMaxRanks) != cudaSuccess ||
          cudaMalloc(&out->missing_[r], sizeof(uint32_t)) != cudaSuccess)
        return "multi-GPU barrier: allocation on device " + std::to_string(devices[r]) + " failed";
    }
    return out->reset() == cudaSuccess ? "" : "multi-GPU barrier: reset failed";
  }

  MultiGpuBarrierRank rank(int r) const {
    MultiGpuBarrierRank view;
    view.inbox = inbox_[r];
    for (int p = 0; p < ranks_; ++p) view.peer_inbox[p] = inbox_[p];
    view.missing = missing_[r];
    view.rank = r;
    view.ranks = ranks_;
    return view;
  }

  // Bit i set: rank i had not arrived when rank r's wait timed out.
  cudaError_t missing_ranks(int r, uint32_t* mask) const {
    cudaSetDevice(devices_[r]);
    return cudaMemcpy(mask, missing_[r], sizeof(uint32_t), cudaMemcpyDeviceToHost);
  }

  // Zeroes every inbox and timeout mask; no kernel using the barrier may be running.
  cudaError_t reset() const {
    for (int r = 0; r < ranks_; ++r) {
      cudaSetDevice(devices_[r]);
      cudaError_t error = cudaMemset(inbox_[r], 0, sizeof(uint64_t) * kMaxRanks);
      if (error == cudaSuccess) error = cudaMemset(missing_[r], 0, sizeof(uint32_t));
      if (error == cudaSuccess) error = cudaDeviceSynchronize();
      if (error != cudaSuccess) return error;
    }
    return cudaSuccess;
  }

  void destroy() {
    for (int r = 0; r < ranks_; ++r) {
      cudaSetDevice(devices_[r]);
      cudaFree(inbox_[r]);
      cudaFree(missing_[r]);
      inbox_[r] = nullptr;
      missing_[r] = nullptr;
    }
  }

 private:
  // Rank r's device must reach every other rank's device (both directions are set up as
  // each rank is added).
  std::string enable_peer_access(int r) {
    for (int p = 0; p < r; ++p) {
      const int a = devices_[r], b = devices_[p];
      if (a == b) continue;
      int ab = 0, ba = 0;
      cudaDeviceCanAccessPeer(&ab, a, b);
      cudaDeviceCanAccessPeer(&ba, b, a);
      if (!ab || !ba)
        return "multi-GPU barrier: devices " + std::to_string(a) + " and " + std::to_string(b) +
               " cannot access each other's memory";
      for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
        cudaSetDevice(from);
        cudaError_t error = cudaDeviceEnablePeerAccess(to, 0);
        if (error == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
        else if (error != cudaSuccess) return std::string("multi-GPU barrier: ") + cudaGetErrorString(error);
      }
    }
    return "";
  }

  int ranks_ = 0;
  int devices_[kMaxRanks] = {};
  uint64_t* inbox_[kMaxRanks] = {};
  uint32_t* missing_[kMaxRanks] = {};
};

}  // namespace fenceline
