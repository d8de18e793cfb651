// Identity facts of the value analysis (model/Values.h) over real nvcc output
// (Inputs/model_value_identity.cu): the same value for every thread, the
// same word, constants and negations, loop-invariant thresholds, values from
// an atomic's result, identity tests, merged addresses, special registers.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "ModelMemoryFacts.h"
#include "model/Memory.h"
#include "model/Values.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

// if ((tid.x | tid.y) == 0) { old = atomicAdd(count, 1); myPhase = old / need & 1;
// spin on ld.acquire(count) / need & 1 == myPhase; phase[ctaid] = myPhase;
// atomicSub(count, 1); }  if (ctaid.x == 0) ...
TEST(ModelValueIdentity, CountingBarrier) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_identity");
  const auto& fn = p.fn("counting_barrier");
  const ValueAnalysis& v = *fn.values;
  const InstId arrive = findOne(fn, "atom.global.add", 0), leave = findOne(fn, "atom.global.add", 1);
  const InstId poll = findOne(fn, "ld.acquire");
  const InstId elect = findOne(fn, "setp.eq.s32", 0), exit = findOne(fn, "setp.eq.s32", 1);
  const InstId firstBlock = findOne(fn, "setp.ne.s32"), phaseStore = findOne(fn, "st.global.u32");
  const InstId pollDivide = findOne(fn, "div.u32", 1);

  // Arrive with +1, leave with -1 (atomicSub is an add of -1).
  EXPECT_EQ(v.constantOf(arrive, 2), 1);
  EXPECT_EQ(v.constantOf(leave, 2), -1);
  EXPECT_FALSE(v.isNegation(arrive, 2));
  EXPECT_TRUE(v.isNegation(leave, 2));
  // One counter word, through cvta.to.global or not.
  EXPECT_TRUE(fn.memory->sameWord(arrive, leave));
  EXPECT_TRUE(fn.memory->sameWord(arrive, poll));
  EXPECT_TRUE(aliasIs(fn, AliasResult::Must, arrive, 1, 0, poll, 1, 0));
  // The threshold `need` is a parameter: invariant; the polled value is not.
  EXPECT_TRUE(v.isInvariant(pollDivide, 2)) << valueText(fn, pollDivide, 2);
  EXPECT_FALSE(v.isInvariant(pollDivide, 1)) << valueText(fn, pollDivide, 1);
  // The exit compares the poll's phase with the arrival's (an atomic's result).
  EXPECT_TRUE(v.readsAtomicResult(exit, 2));
  EXPECT_FALSE(v.readsAtomicResult(exit, 1));
  EXPECT_TRUE(v.sameValue(exit, 2, phaseStore, 1));
  EXPECT_FALSE(v.sameValue(exit, 1, exit, 2));
  EXPECT_GE(v.identity(exit, 2), 0);
  EXPECT_EQ(v.identity(exit, 2), v.identity(phaseStore, 1));
  // (tid.x | tid.y) == 0 elects a thread; ctaid.x == 0 a block.
  auto thread = v.identitiesNamed(elect, 1), block = v.identitiesNamed(firstBlock, 1);
  EXPECT_TRUE(thread.thread);
  EXPECT_FALSE(thread.block);
  EXPECT_TRUE(block.block);
  EXPECT_FALSE(block.thread);
  EXPECT_TRUE(v.isSpecialRegister(firstBlock, 1, "%ctaid.x"));
  EXPECT_FALSE(v.isSpecialRegister(elect, 1, "%tid.x"));  // an or of two ids
  // The same address keys: phase[ctaid] (store) and *phase (load) differ
  // (ctaid may be 0: May), both are parameter 1's memory.
  const InstId phaseLoad = findOne(fn, "ld.global.u32");
  EXPECT_FALSE(fn.memory->sameWord(phaseStore, phaseLoad));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, phaseStore, 0, 0, phaseLoad, 1, 0));
  EXPECT_EQ(fn.memory->objectOf(phaseStore, 0), fn.memory->objectOf(phaseLoad, 1));
}

// for (tile = ctaid.x; tile < tiles; tile += nctaid.x) lock / unlock locks[tile];
// then atomicAdd(&done[ctaid.x], 1).
TEST(ModelValueIdentity, PersistentLoopAddresses) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_identity");
  const auto& fn = p.fn("persistent_locks");
  const ValueAnalysis& v = *fn.values;
  const InstId lock = findOne(fn, "atom.global.cas"), unlock = findOne(fn, "atom.global.exch");
  const InstId done = findOne(fn, "atom.global.add");
  EXPECT_TRUE(v.isMerged(lock, 1)) << valueText(fn, lock, 1);
  EXPECT_TRUE(v.isMerged(unlock, 1));
  EXPECT_FALSE(v.isMerged(done, 1)) << valueText(fn, done, 1);
  // On one trip, the lock and the unlock name one word.
  EXPECT_TRUE(fn.memory->sameWord(lock, unlock));
  EXPECT_TRUE(aliasIs(fn, AliasResult::Must, lock, 1, 0, unlock, 1, 0));
  EXPECT_EQ(v.constantOf(unlock, 2), 0);
  EXPECT_TRUE(v.isInvariant(done, 2));
}
