// The protocol model (src/model/Protocol.h) over real nvcc output
// (Inputs/model_protocol.cu): one test per named fact, and the partner model's
// alias, guarded-data and scope answers.
#include <gtest/gtest.h>

#include <algorithm>

#include "ModelInputs.h"
#include "model/Protocol.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

TEST(ModelProtocol, ConsumingDecrementIsNotASignal) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol");
  const auto& fn = p.fn("_Z18counter_taken_backPjj");
  const ProtocolModel& m = protocolOf(fn);
  ASSERT_EQ(m.spins().size(), 1u) << dump(fn);
  auto atoms = find(fn, "atom");
  ASSERT_EQ(atoms.size(), 2u) << dump(fn);
  EXPECT_FALSE(m.isConsumingDecrement(atoms[0]));
  EXPECT_TRUE(m.isConsumingDecrement(atoms[1]));
  EXPECT_EQ(m.signals(), std::vector<InstId>{atoms[0]});
}

TEST(ModelProtocol, FloatingPointAtomicIsData) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol");
  const auto& fn = p.fn("_Z15float_reductionPfPjf");
  const ProtocolModel& m = protocolOf(fn);
  InstId atom = findOne(fn, "atom");
  EXPECT_TRUE(m.isFloatingPointData(atom));
  EXPECT_TRUE(m.signals().empty());
}

TEST(ModelProtocol, OpaqueCallMayFence) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol");
  const auto& fn = p.fn("_Z11opaque_callPFvvEPjPfS2_");
  const ProtocolModel& m = protocolOf(fn);
  InstId call = findOne(fn, "call");
  EXPECT_TRUE(m.opaqueCallMayFence(call)) << dump(fn);
  EXPECT_TRUE(m.isAcquire(call));
  EXPECT_EQ(m.scopeOf(call), Scope::Sys);
}

TEST(ModelProtocol, RestrictInputIsNotGuarded) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol");
  const auto& fn = p.fn("_Z25restrict_input_after_waitPjPKfPfS2_");
  const ProtocolModel& m = protocolOf(fn);
  ASSERT_EQ(m.spins().size(), 1u) << dump(fn);
  InstId poll = m.spins()[0].polls.at(0);
  InstId input = findOne(fn, "ld.global.nc");
  EXPECT_TRUE(m.readsImmutableInput(input));
  EXPECT_FALSE(m.isGuardedRead(input, poll));
  bool bufferGuarded = false;
  for (InstId i : find(fn, "ld.global"))
    if (i != input && i != poll && m.isGuardedRead(i, poll)) bufferGuarded = true;
  EXPECT_TRUE(bufferGuarded) << dump(fn);
}

TEST(ModelProtocol, StructFieldsAndTablesDoNotAlias) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol");
  const auto& fn = p.fn("_Z13struct_fieldsP3SemPKPji");
  const ProtocolModel& m = protocolOf(fn);
  ASSERT_EQ(m.spins().size(), 1u) << dump(fn);
  InstId poll = m.spins()[0].polls.at(0);
  InstId expected = findOne(fn, "atom");
  EXPECT_EQ(m.alias(expected, poll), Alias::No);
  EXPECT_TRUE(m.signals().empty()) << "the private count is nobody's signal";
  InstId tableLoad = findOne(fn, "ld.global");
  InstId entryStore = findOne(fn, "st.u32");
  EXPECT_EQ(m.alias(tableLoad, entryStore), Alias::No) << dump(fn);
  EXPECT_EQ(m.alias(poll, poll), Alias::Must);
}

TEST(ModelProtocol, FinalBarrierAndWaiterScopeIsNotEvidence) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol");
  const auto& fn = p.fn("_Z13final_barrierPjPf");
  const ProtocolModel& m = protocolOf(fn);
  ASSERT_EQ(m.spins().size(), 1u) << dump(fn);
  InstId poll = m.spins()[0].polls.at(0);
  EXPECT_TRUE(m.isEndOfKernelWait(poll));
  InstId arrive = findOne(fn, "atom");
  EXPECT_EQ(m.requiredScope(poll), Scope::Gpu);
  EXPECT_EQ(m.requiredScope(arrive), Scope::Gpu);
  InstId data = findOne(fn, "st.global");
  EXPECT_TRUE(m.isPublishedWrite(data, arrive));
}

TEST(ModelProtocol, ResetThatReleasesNoWaiterIsNotASignal) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol");
  {
    const auto& fn = p.fn("_Z11count_resetPj");
    const ProtocolModel& m = protocolOf(fn);
    ASSERT_EQ(m.spins().size(), 1u) << dump(fn);
    const auto& spin = m.spins()[0];
    EXPECT_EQ(exitOnValue(fn, spin, spin.polls[0], 0), ExitOn::No) << dump(fn);
    InstId reset = findOne(fn, "atom.global.exch");
    EXPECT_EQ(m.storedConstant(reset), std::optional<int64_t>(0));
    EXPECT_TRUE(m.isPolledWordReset(reset));
    EXPECT_TRUE(std::find(m.signals().begin(), m.signals().end(), reset) == m.signals().end());
  }
  {
    const auto& fn = p.fn("_Z11lock_unlockPiPf");
    const ProtocolModel& m = protocolOf(fn);
    ASSERT_EQ(m.spins().size(), 1u) << dump(fn);
    const auto& spin = m.spins()[0];
    EXPECT_EQ(exitOnValue(fn, spin, spin.polls[0], 0), ExitOn::Yes) << dump(fn);
    InstId unlock = findOne(fn, "atom.global.exch");
    EXPECT_FALSE(m.isPolledWordReset(unlock));
    EXPECT_TRUE(std::find(m.signals().begin(), m.signals().end(), unlock) != m.signals().end());
  }
}
