// Blocks no thread runs (model/ThreadDecidedBranches.h) over real nvcc
// output (Inputs/model_thread_decided.cu): the remainder iterations and the
// four-way body of a block-strided loop over fewer items than threads.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/ThreadDecidedBranches.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

// 256 items, 1024 threads: of the unrolled loop's atomics only the first
// iteration's runs.
TEST(ModelThreadDecidedBranches, RemainderIterationsOfAShortStridedLoopNeverRun) {
  FENCELINE_LOAD_PROGRAM(p, "model_thread_decided");
  const auto& fn = p.fn("_Z11strided_256PjPKji");
  const std::vector<InstId> atomics = find(fn, "atom.global.add");
  ASSERT_GE(atomics.size(), 2u) << dump(fn);
  size_t running = 0;
  for (InstId a : atomics) running += !neverRuns(fn, a);
  EXPECT_EQ(running, 1u) << dump(fn);
  EXPECT_FALSE(neverRuns(fn, atomics.front()));
}

// 2500 items: two or three iterations a thread (three below thread 452).
// The remainder runs them all, so its three atomics run, for some threads
// and not others; the four-way body never runs (no thread has four).
TEST(ModelThreadDecidedBranches, IterationsSomeThreadsRunAreKept) {
  FENCELINE_LOAD_PROGRAM(p, "model_thread_decided");
  const auto& fn = p.fn("_Z12strided_2500PjPKji");
  const std::vector<InstId> atomics = find(fn, "atom.global.add");
  ASSERT_EQ(atomics.size(), 7u) << dump(fn);
  for (size_t k = 0; k < atomics.size(); ++k) EXPECT_EQ(neverRuns(fn, atomics[k]), k >= 3) << k << "\n" << dump(fn);
}
