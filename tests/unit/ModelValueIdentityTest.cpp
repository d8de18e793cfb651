// Identity facts of the value analysis (model/Values.h) over real nvcc output
// (Inputs/model_value_identity.cu): the same value for every thread, the
// same word, constants and negations, loop-invariant thresholds, values from
// an atomic's result, identity tests, merged addresses, special registers.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "ModelMemoryFacts.h"
#include "model/Memory.h"
#include "model/ValueIdentity.h"
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

// Issue 35: a form spells out its operands' forms, so `y = (y >> 1) ^ y`
// repeated doubled the text at each step (2^11 copies of the load here; a
// compare/select network or a predicated shuffle chain took gigabytes). Long
// operand forms are short forms now: hash-consed, so two chains that compute
// the same value still have equal forms, and a chain that differs does not.
TEST(ModelValueIdentity, DoublingChainsKeepExactEquality) {
  constexpr int kSteps = 11;  // forms are followed 24 levels deep, two per step
  std::ostringstream ptx;
  ptx << ".version 8.0\n.target sm_90a\n.address_size 64\n"
      << ".visible .entry chains(.param .u64 chains_p)\n{\n"
      << "\t.reg .b32 %a<" << kSteps + 1 << ">;\n\t.reg .b32 %b<" << kSteps + 1 << ">;\n"
      << "\t.reg .b32 %c<" << kSteps + 1 << ">;\n\t.reg .b32 %t<" << 3 * kSteps + 1 << ">;\n\t.reg .b64 %rd<3>;\n"
      << "\tld.param.u64 %rd1, [chains_p];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
      << "\tld.global.u32 %a0, [%rd2];\n\tld.global.u32 %b0, [%rd2];\n\tld.global.u32 %c0, [%rd2];\n";
  for (int i = 0; i < kSteps; ++i) {
    ptx << "\tshr.u32 %t" << 3 * i << ", %a" << i << ", 1;\n\txor.b32 %a" << i + 1 << ", %t" << 3 * i << ", %a" << i << ";\n";
    ptx << "\tshr.u32 %t" << 3 * i + 1 << ", %b" << i << ", 1;\n\txor.b32 %b" << i + 1 << ", %t" << 3 * i + 1 << ", %b" << i << ";\n";
    // The third chain shifts by 2 at its last step.
    ptx << "\tshr.u32 %t" << 3 * i + 2 << ", %c" << i << ", " << (i == kSteps - 1 ? 2 : 1) << ";\n\txor.b32 %c" << i + 1
        << ", %t" << 3 * i + 2 << ", %c" << i << ";\n";
  }
  ptx << "\tst.global.u32 [%rd2+4], %a" << kSteps << ";\n\tst.global.u32 [%rd2+8], %b" << kSteps << ";\n"
      << "\tst.global.u32 [%rd2+12], %c" << kSteps << ";\n\tret;\n}\n";
  auto loaded = loadProgram("chains", ptx.str());
  const auto& fn = loaded->fn("chains");
  const ValueAnalysis& v = *fn.values;
  const InstId a = findOne(fn, "st.global", 0), b = findOne(fn, "st.global", 1), c = findOne(fn, "st.global", 2);
  EXPECT_TRUE(v.sameValue(a, 1, b, 1));
  EXPECT_FALSE(v.sameValue(a, 1, c, 1));
  EXPECT_FALSE(v.isInvariant(a, 1));  // read from memory: the short form keeps the load's marker
  EXPECT_LT(fn.values->identityEngine().operandKey(a, 1).size(), size_t{4096});
}
