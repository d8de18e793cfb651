// The partner model's facts (src/model/Protocol.h) over real nvcc output
// (Inputs/model_protocol_partner.cu): pointers from two fields of a
// __constant__ struct (pointersFromDistinctFields), translated peer addresses and the partner's writes,
// flag-only calls, and a counter reset after a wait.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/Protocol.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

TEST(ModelProtocolPartner, TwoFieldsOfAConstantStructAreTwoObjects) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_partner");
  const auto& fn = p.fn("const_fields");
  const ProtocolModel& m = protocolOf(fn);
  ASSERT_EQ(m.spins().size(), 2u) << dump(fn);
  InstId flagPoll = m.spins()[0].polls.at(0), entryPoll = m.spins()[1].polls.at(0);
  auto stores = find(fn, "st.volatile");
  ASSERT_EQ(stores.size(), 2u) << dump(fn);
  InstId counter = stores[0], entry = stores[1];
  EXPECT_TRUE(m.pointersFromDistinctFields(counter, flagPoll));
  EXPECT_EQ(m.alias(counter, flagPoll), Alias::No);
  // blocks[blockIdx.x & 3] and blocks[0]: one table, a variable index.
  EXPECT_FALSE(m.pointersFromDistinctFields(entry, entryPoll));
  EXPECT_EQ(m.alias(entry, entryPoll), Alias::May);
  EXPECT_EQ(m.signals(), std::vector<InstId>{entry}) << "the epoch counter is nobody's signal";
}

TEST(ModelProtocolPartner, TranslatedPeerFlagIsTheWaitsPartner) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_partner");
  const auto& fn = p.fn("translated_peer");
  const ProtocolModel& m = protocolOf(fn);
  ASSERT_EQ(m.spins().size(), 1u) << dump(fn);
  InstId poll = m.spins()[0].polls.at(0);
  InstId put = findOne(fn, "st.f32"), flag = findOne(fn, "st.volatile");
  EXPECT_TRUE(m.isTranslatedPeerAddress(put)) << dump(fn);
  EXPECT_TRUE(m.isTranslatedPeerAddress(flag));
  EXPECT_FALSE(m.isTranslatedPeerAddress(poll));  // a field plus nothing: not translated
  // The partner (this kernel on the peer) put before raising the flag.
  EXPECT_EQ(m.partnerWrites(poll), std::vector<InstId>{put});
}

TEST(ModelProtocolPartner, CallPassedOnlyTheFlagDeliversNoData) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_partner");
  const auto& fn = p.fn("flag_only_call");
  const ProtocolModel& m = protocolOf(fn);
  ASSERT_EQ(m.spins().size(), 1u) << dump(fn);
  InstId poll = m.spins()[0].polls.at(0);
  auto calls = find(fn, "call");
  ASSERT_EQ(calls.size(), 2u) << dump(fn);
  EXPECT_FALSE(m.isFlagOnlyCall(calls[0], poll));  // put(data)
  EXPECT_TRUE(m.isFlagOnlyCall(calls[1], poll));   // raise(flag)
}

TEST(ModelProtocolPartner, ResetAfterWaitingForTheArrivals) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_partner");
  const auto& fn = p.fn("reset_after_wait");
  const ProtocolModel& m = protocolOf(fn);
  ASSERT_EQ(m.spins().size(), 1u) << dump(fn);
  InstId reset = findOne(fn, "st.global");
  EXPECT_TRUE(m.isResetAfterWait(reset)) << dump(fn);
  EXPECT_FALSE(m.isResetAfterWait(findOne(fn, "atom")));
}

// isPublishedByGroupBarrier: the clear by thread 0 of CTA 0, then a group
// barrier (release, arrive, acquiring spin, __syncthreads), then the adds.
TEST(ModelProtocolPartner, GroupBarrierPublishesTheInitialization) {
  FENCELINE_LOAD_PROGRAM(p, "model_group_barrier");
  struct Case {
    const char* kernel;
    bool published;
  };
  for (const Case& c : {Case{"clear_barrier_add", true}, Case{"clear_add_barrier", false},
                        Case{"clear_unreleased_barrier_add", false}}) {
    SCOPED_TRACE(c.kernel);
    const auto& fn = p.fn(c.kernel);
    const InstId clear = findOne(fn, "st.global"), add = findOne(fn, "atom.global.add");
    EXPECT_EQ(protocolOf(fn).isPublishedByGroupBarrier(clear, add), c.published) << dump(fn);
  }
}
