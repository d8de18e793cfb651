// Blocks that no thread runs, because the branches leading to them compare a
// value of the thread index alone and, for every thread index that reaches
// the branch, go the other way.
//
// nvcc unrolls a block-strided loop `for (i = tid; i < N; i += blockDim)`
// by four with a remainder in front: the remainder runs iterations at
// i = tid + blockDim * k, k = 1, 2, when the trip count
// ((N - 1 - tid) >> log2(blockDim)) + 1 says so, and the four-way body when
// N - 1 - tid >= 3 * blockDim. With N below blockDim (FlashInfer's radix
// top-k: 256 buckets, 1024 threads) none of them runs: the loop's own guard
// (tid < N) bounds the thread index, and for every tid in [0, N) the
// remainder test and the body test go the other way. Their accesses
// (i = tid + 1024 k, an address far past the 256-entry histogram) are not
// accesses of the kernel.
//
// The thread index's range at a branch is narrowed by the branches that
// guard it (model/GuardedRanges.h). A comparison is decided when both of
// its operands are computed from %tid.x and constants alone (mov, add, sub,
// mul, shl, shr, and, or, xor, not, cvt between integers, selp of such) and
// every thread index of the range gives the same outcome (at most 1024
// values are tried, each exactly). Blocks reached only through edges that no
// thread takes never run.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

// The value predicate `predicate` (read at `at`) has for the thread whose
// %tid.x is `tid`, where the predicate is computed from %tid.x and constants
// (and/or/not of such comparisons: one false operand decides an and);
// nothing otherwise. The same evaluation decides the branches.
std::optional<bool> predicateForThreadIndex(const FunctionModel& fn, ValueReg predicate, InstId at, int64_t tid);

// The same evaluation over the three thread-index dimensions (%tid.x, y,
// z), compiled once: the value the predicate has for the thread (x, y, z).
// With `allowed`, of a register's several reaching definitions only those it
// accepts count (counter-reset: the definitions on the paths from a rewrite
// to a read that pass no barrier); still one must remain.
class ThreadPredicate {
 public:
  ThreadPredicate(const FunctionModel& fn, ValueReg predicate, InstId at,
                  const std::function<bool(InstId)>* allowed = nullptr);
  // predicateForThreadIndex's evaluation (%tid.x alone; %tid.y and %tid.z
  // unknown), compiled once for the loops that try every thread index.
  static ThreadPredicate ofThreadIndex(const FunctionModel& fn, ValueReg predicate, InstId at);
  std::optional<bool> operator()(int64_t x, int64_t y, int64_t z) const;
  std::optional<bool> operator()(int64_t x) const { return (*this)(x, 0, 0); }

 private:
  struct Compiled;
  ThreadPredicate(const FunctionModel& fn, ValueReg predicate, InstId at, bool threeDims,
                  const std::function<bool(InstId)>* allowed);
  std::shared_ptr<Compiled> compiled_;
};

// The same evaluation for the integer that instruction `definition` writes
// (its first operand), for the thread (x, y, z), where that value is computed
// from the thread index and constants (`(tid >> 3) & 12`, a warp's slot in a
// per-warp array); nothing otherwise. The low bits of its type's width, as
// an unsigned number.
class ThreadValue {
 public:
  ThreadValue(const FunctionModel& fn, InstId definition);
  std::optional<uint64_t> operator()(int64_t x, int64_t y, int64_t z) const;

 private:
  struct Compiled;
  std::shared_ptr<Compiled> compiled_;
};

// Per block: 1 when no thread runs it (FunctionModel::noThreadRuns).
std::vector<char> blocksNoThreadRuns(const FunctionModel& fn);

// No thread runs instruction `inst`.
inline bool neverRuns(const FunctionModel& fn, InstId inst) {
  return !fn.noThreadRuns.empty() && fn.noThreadRuns[fn.blockOf[inst]];
}

}  // namespace fenceline::model
