// Spin-loop recognition and register flow over real nvcc output
// (Inputs/model_spin_loops.cu): which loops wait on memory, which only look
// like it, and when two differently computed addresses name one word.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/Memory.h"
#include "model/SpinLoops.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

namespace {

size_t spinCount(const FunctionModel& fn) {
  return findSpinLoops(fn).size();
}

}  // namespace

TEST(ModelSpinLoops, RecognizesSpins) {
  FENCELINE_LOAD_PROGRAM(p, "model_spin_loops");
  for (const char* kernel : {"_Z13volatile_spinPKiPi", "_Z9vote_spinPKiPi", "_Z12backoff_spinPKjjPi"}) {
    const auto& fn = p.fn(kernel);
    auto spins = findSpinLoops(fn);
    ASSERT_EQ(spins.size(), 1u) << kernel << "\n" << dump(fn);
    ASSERT_FALSE(spins[0].polls.empty()) << kernel;
    for (InstId poll : spins[0].polls)
      EXPECT_TRUE(dotted(fn.instructions[poll]).starts_with("ld.volatile")) << kernel;
    EXPECT_FALSE(spins[0].exitBranches.empty()) << kernel;
  }
}

TEST(ModelSpinLoops, RejectsLookAlikes) {
  FENCELINE_LOAD_PROGRAM(p, "model_spin_loops");
  for (const char* kernel : {"_Z8cas_loopPii", "_Z10work_queuePiPKiS_i", "_Z9list_walkP4NodePi",
                             "_Z14cas_local_slotPyy", "_Z10cas_reloadPyy"})
    EXPECT_EQ(spinCount(p.fn(kernel)), 0u) << kernel << "\n" << dump(p.fn(kernel));
}

// A CAS that reloads the count but goes back without it while the count is 0
// waits for another thread's raise (issue 34, shape O's look-alike).
TEST(ModelSpinLoops, SemaphoreWithCasIsASpin) {
  FENCELINE_LOAD_PROGRAM(p, "model_spin_loops");
  const auto& fn = p.fn("_Z14semaphore_takePjPi");
  EXPECT_EQ(spinCount(fn), 1u) << dump(fn);
}

TEST(ModelSpinLoops, PeeledFirstTrip) {
  FENCELINE_LOAD_PROGRAM(p, "model_spin_loops");
  const auto& fn = p.fn("_Z11peeled_lockPiS_S_");
  const InstId claim = findOne(fn, "atom.global.sys.cas", 0);
  const InstId first = findOne(fn, "atom.global.sys.cas", 1);
  const InstId retry = findOne(fn, "atom.global.sys.cas", 2);
  auto spins = findSpinLoops(fn);
  ASSERT_EQ(spins.size(), 1u) << dump(fn);
  EXPECT_EQ(spins[0].polls, std::vector<InstId>{retry});
  EXPECT_EQ(spins[0].peeledPolls, std::vector<InstId>{first}) << "the slot's CAS at " << claim;
}

TEST(ModelMemory, SameWordThroughDifferentComputations) {
  FENCELINE_LOAD_PROGRAM(p, "model_spin_loops");
  const auto& fn = p.fn("_Z9same_wordPjj");
  InstId atom = findOne(fn, "atom");
  InstId store = findOne(fn, "st.volatile");
  EXPECT_TRUE(fn.memory->sameWord(atom, store));
  EXPECT_EQ(fn.memory->alias(atom, fn.instructions[atom].effect.address, store, fn.instructions[store].effect.address),
            AliasResult::Must);
  EXPECT_EQ(fn.memory->rootOf(atom, fn.instructions[atom].effect.address),
            fn.memory->rootOf(store, fn.instructions[store].effect.address));
}
