// The partner model's rules for pointers read from memory (src/model/Protocol.h,
// issue 11 shape 5) over real nvcc output (Inputs/model_protocol_fields.cu):
// pointersFromDistinctFields (two fields of one record are two objects, the
// same field of a table read at a variable index stays May), goesThroughPeerPointer
// (which loaded pointers are evidence of an off-GPU partner) and
// rereadsPolledWord (a second load of the polled word is no guarded data).
#include <algorithm>
#include <string_view>

#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/Protocol.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

namespace {

InstId onlyPoll(const FunctionModel& fn) {
  const ProtocolModel& m = protocolOf(fn);
  EXPECT_EQ(m.spins().size(), 1u) << dump(fn);
  return m.spins().empty() ? -1 : m.spins()[0].polls.at(0);
}

}  // namespace

TEST(ModelProtocolFields, TwoFieldsOfOneStructAreTwoObjects) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_fields");
  const auto& fn = p.fn("struct_fields");
  const ProtocolModel& m = protocolOf(fn);
  InstId poll = onlyPoll(fn);
  ASSERT_GE(poll, 0);
  InstId counter = findOne(fn, "atom"), flag = findOne(fn, "st.relaxed");
  EXPECT_TRUE(m.pointersFromDistinctFields(counter, poll)) << dump(fn);
  EXPECT_EQ(m.alias(counter, poll), Alias::No);
  // mb->inbound loaded twice: the same field, the same object.
  EXPECT_FALSE(m.pointersFromDistinctFields(flag, poll));
  EXPECT_NE(m.alias(flag, poll), Alias::No);
  // The counter is nobody's signal; the store of 0 to the polled field is a
  // reset on which the waiter (`while (inbound == 0)`) does not leave, not a
  // signal either (counter-reset's isPolledWordReset; before it, the store was
  // taken for a signal).
  EXPECT_TRUE(m.isPolledWordReset(flag)) << dump(fn);
  EXPECT_FALSE(m.isPolledWordReset(counter));
  EXPECT_TRUE(m.signals().empty()) << "the counter is nobody's signal, the reset is none";
  EXPECT_FALSE(m.goesThroughPeerPointer(poll)) << "a struct field is no peer pointer";
  EXPECT_EQ(m.requiredScope(poll), Scope::Gpu);
  EXPECT_EQ(m.requiredScope(flag), Scope::Gpu);
}

TEST(ModelProtocolFields, FieldsOfRecordsInATableIndexedByBlock) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_fields");
  const auto& fn = p.fn("record_table");
  const ProtocolModel& m = protocolOf(fn);
  InstId poll = onlyPoll(fn);
  ASSERT_GE(poll, 0);
  InstId counter = findOne(fn, "atom"), flag = findOne(fn, "st.relaxed");
  // boxes[b].expected (24 * b + 8) and boxes[0].inbound (0): other field.
  EXPECT_TRUE(m.pointersFromDistinctFields(counter, poll)) << dump(fn);
  EXPECT_EQ(m.alias(counter, poll), Alias::No);
  // boxes[b].inbound: the polled field of another entry (b = 0 is the same one).
  EXPECT_FALSE(m.pointersFromDistinctFields(flag, poll));
  EXPECT_EQ(m.alias(flag, poll), Alias::May);
  EXPECT_EQ(m.signals(), std::vector<InstId>{flag});
  // One entry per block of this launch: no peer.
  EXPECT_FALSE(m.goesThroughPeerPointer(flag));
  EXPECT_EQ(m.requiredScope(flag), Scope::Gpu);
  EXPECT_EQ(m.requiredScope(poll), Scope::Gpu);
}

TEST(ModelProtocolFields, SlotsOfAFlatTableDifferModuloTheRecordStride) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_fields");
  const auto& fn = p.fn("slot_table");
  const ProtocolModel& m = protocolOf(fn);
  InstId poll = onlyPoll(fn);
  ASSERT_GE(poll, 0);
  InstId counter = findOne(fn, "atom"), peerFlag = findOne(fn, "st.relaxed");
  // slots[2 * rank + 1] never is slots[2 * rank'] (8 and 0 modulo 16).
  EXPECT_TRUE(m.pointersFromDistinctFields(counter, poll)) << dump(fn);
  EXPECT_EQ(m.alias(counter, poll), Alias::No);
  // slots[2 * peer] on this rank is slots[2 * rank] on the peer: kept coarse.
  EXPECT_FALSE(m.pointersFromDistinctFields(peerFlag, poll));
  EXPECT_EQ(m.alias(peerFlag, poll), Alias::May);
  EXPECT_EQ(m.signals(), std::vector<InstId>{peerFlag});
  EXPECT_TRUE(m.goesThroughPeerPointer(poll));
  EXPECT_EQ(m.requiredScope(poll), Scope::Sys);
}

TEST(ModelProtocolFields, DisjointIndexRangesOfOneTableAreNotTwoFields) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_fields");
  const auto& fn = p.fn("table_halves");
  const ProtocolModel& m = protocolOf(fn);
  InstId poll = onlyPoll(fn);
  ASSERT_GE(poll, 0);
  InstId flag = findOne(fn, "st.relaxed");
  EXPECT_FALSE(m.pointersFromDistinctFields(flag, poll)) << dump(fn);
  EXPECT_EQ(m.alias(flag, poll), Alias::May);
}

TEST(ModelProtocolFields, PeerPointersAreTableEntriesChosenByRank) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_fields");
  {
    const auto& fn = p.fn("rank_table");
    InstId poll = onlyPoll(fn);
    ASSERT_GE(poll, 0);
    EXPECT_TRUE(protocolOf(fn).goesThroughPeerPointer(poll)) << dump(fn);
    EXPECT_EQ(protocolOf(fn).requiredScope(poll), Scope::Sys);
  }
  {
    const auto& fn = p.fn("block_table");
    InstId poll = onlyPoll(fn);
    ASSERT_GE(poll, 0);
    EXPECT_FALSE(protocolOf(fn).goesThroughPeerPointer(poll)) << dump(fn);
    EXPECT_EQ(protocolOf(fn).requiredScope(poll), Scope::Gpu);
  }
  {
    const auto& fn = p.fn("thread_table");
    EXPECT_TRUE(protocolOf(fn).goesThroughPeerPointer(findOne(fn, "st.relaxed"))) << dump(fn);
  }
  {
    const auto& fn = p.fn("peer_struct");
    EXPECT_TRUE(protocolOf(fn).goesThroughPeerPointer(findOne(fn, "st.relaxed"))) << dump(fn);
  }
}

TEST(ModelProtocolFields, TablesIndexedByAGroupOfBlocksDecideNothing) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_fields");
  {
    const auto& fn = p.fn("block_group_table");
    InstId poll = onlyPoll(fn);
    ASSERT_GE(poll, 0);
    const ProtocolModel& m = protocolOf(fn);
    EXPECT_EQ(m.peerPointer(poll), ProtocolModel::Peer::BlockGroup) << dump(fn);
    EXPECT_FALSE(m.goesThroughPeerPointer(poll));
    const ProtocolModel::ScopeEvidence scope = m.requiredScopeEvidence(poll);
    EXPECT_FALSE(scope.decided);
    EXPECT_EQ(scope.how, "block-group-pointer");
  }
  for (const char* name : {"rank_shifted_group_table", "group_of_peer_table"}) {
    const auto& fn = p.fn(name);
    InstId poll = onlyPoll(fn);
    ASSERT_GE(poll, 0);
    EXPECT_EQ(protocolOf(fn).peerPointer(poll), ProtocolModel::Peer::Yes) << name << "\n" << dump(fn);
    EXPECT_EQ(protocolOf(fn).requiredScope(poll), Scope::Sys) << name;
  }
}

// `table[first + blockIdx.x]` is `(table + first)[blockIdx.x]`: the block's
// own entry, as in block_table; a rank added and wrapped (a compare and a
// subtraction, a xor, a clamp) stays a peer's entry.
TEST(ModelProtocolFields, ALaunchWindowOfATableIsTheBlocksOwnEntry) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_fields");
  {
    const auto& fn = p.fn("launch_window_table");
    InstId poll = onlyPoll(fn);
    ASSERT_GE(poll, 0);
    EXPECT_EQ(protocolOf(fn).peerPointer(poll), ProtocolModel::Peer::No) << dump(fn);
    EXPECT_EQ(protocolOf(fn).requiredScope(poll), Scope::Gpu);
  }
  for (const char* name : {"rank_wrapped_by_compare_table", "rank_xor_block_table", "rank_clamped_table"}) {
    const auto& fn = p.fn(name);
    InstId poll = onlyPoll(fn);
    ASSERT_GE(poll, 0);
    EXPECT_EQ(protocolOf(fn).peerPointer(poll), ProtocolModel::Peer::Yes) << name << "\n" << dump(fn);
    EXPECT_EQ(protocolOf(fn).requiredScope(poll), Scope::Sys) << name;
  }
}

TEST(ModelProtocolFields, ReadingThePolledWordAgainIsNoGuardedData) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_fields");
  const auto& fn = p.fn("reread");
  const ProtocolModel& m = protocolOf(fn);
  InstId poll = onlyPoll(fn);
  ASSERT_GE(poll, 0);
  InstId again = findOne(fn, "ld.volatile", 1), other = findOne(fn, "ld.u32");
  EXPECT_TRUE(m.rereadsPolledWord(again, poll)) << dump(fn);
  EXPECT_FALSE(m.isGuardedRead(again, poll));
  EXPECT_FALSE(m.rereadsPolledWord(other, poll));
  EXPECT_TRUE(m.isGuardedRead(other, poll));
  // The pointer mb->inbound loaded again (the poll's own address), and the
  // pointer mb->expected (another field).
  InstId pointerAgain = findOne(fn, "ld.global.u64", 1), otherPointer = findOne(fn, "ld.global.u64", 2);
  EXPECT_TRUE(m.rereadsPolledWord(pointerAgain, poll));
  EXPECT_FALSE(m.isGuardedRead(pointerAgain, poll));
  EXPECT_FALSE(m.rereadsPolledWord(otherPointer, poll));
}

// Two entries of one pointer table compare by their offsets: the slots
// beyond the grid are no signal on the polled word; shifted one word down,
// they may be (Memory::offsetsApart, Values::atLeastGridSize).
TEST(ModelProtocolFields, EntriesOfOneTableCompareByOffset) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_fields");
  for (const char* kernel : {"table_backfill", "table_backfill_shifted"}) {
    const bool shifted = std::string_view(kernel).ends_with("shifted");
    const auto& fn = p.fn(kernel);
    const ProtocolModel& m = protocolOf(fn);
    InstId poll = onlyPoll(fn);
    ASSERT_GE(poll, 0);
    InstId backfill = findOne(fn, "st.relaxed");
    EXPECT_TRUE(m.entriesOfOneTable(backfill, poll)) << kernel << "\n" << dump(fn);
    EXPECT_EQ(m.alias(backfill, poll), shifted ? Alias::May : Alias::No) << kernel << "\n" << dump(fn);
    const auto& signals = m.signals();
    EXPECT_EQ(std::find(signals.begin(), signals.end(), backfill) != signals.end(), shifted) << kernel;
  }
}

TEST(ModelProtocolFields, FieldsBehindOneFixedPointerCompareByOffset) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_fields");
  struct Case {
    const char* kernel;
    bool fixed;
    Alias alias;
  };
  for (const Case& c : {Case{"fixed_table_fields", true, Alias::No}, Case{"fixed_table_same_field", true, Alias::May},
                        Case{"global_table_fields", false, Alias::May}}) {
    const auto& fn = p.fn(c.kernel);
    const ProtocolModel& m = protocolOf(fn);
    InstId poll = onlyPoll(fn);
    ASSERT_GE(poll, 0);
    InstId store = findOne(fn, "st.relaxed");
    EXPECT_EQ(m.throughOneFixedPointer(store, poll), c.fixed) << c.kernel << "\n" << dump(fn);
    EXPECT_EQ(m.alias(store, poll), c.alias) << c.kernel << "\n" << dump(fn);
  }
}

// A flag whose address pins the partner to the block (partnerInOwnBlock,
// signalPartnerInOwnBlock) needs .cta: scope-too-narrow asks the partner
// decision acquire- and release-missing use. A record two blocks share needs
// .gpu (session 25, nvCOMP's unsnap_kernel).
TEST(ModelProtocolFields, AFlagPinnedToTheBlockNeedsCtaScope) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_fields");
  {
    const auto& fn = p.fn("own_block_record");
    InstId poll = onlyPoll(fn);
    ASSERT_GE(poll, 0);
    const ProtocolModel& m = protocolOf(fn);
    EXPECT_TRUE(m.partnerInOwnBlock(poll)) << dump(fn);
    const ProtocolModel::ScopeEvidence scope = m.requiredScopeEvidence(poll);
    EXPECT_EQ(scope.scope, Scope::Cta);
    EXPECT_TRUE(scope.decided);
    EXPECT_EQ(scope.how, "own-block");
    ASSERT_EQ(m.signals().size(), 1u) << dump(fn);
    EXPECT_EQ(m.requiredScope(m.signals()[0]), Scope::Cta);
  }
  {
    const auto& fn = p.fn("pair_block_record");
    InstId poll = onlyPoll(fn);
    ASSERT_GE(poll, 0);
    const ProtocolModel& m = protocolOf(fn);
    EXPECT_FALSE(m.partnerInOwnBlock(poll)) << dump(fn);
    EXPECT_EQ(m.requiredScope(poll), Scope::Gpu);
    EXPECT_TRUE(m.requiredScopeEvidence(poll).how.empty());
  }
}

// A peer mirror is decided only through a pointer traced to a peer table: one
// the walk lost (stashed in shared memory on two paths) leaves the signal and
// the partner's scope undecided (session 25, nvCOMP's snappy_transcode_kernel).
TEST(ModelProtocolFields, APeerMirrorThroughAnUntracedPointerDecidesNothing) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_fields");
  {
    const auto& fn = p.fn("stashed_peer_mirror");
    InstId poll = onlyPoll(fn);
    ASSERT_GE(poll, 0);
    const ProtocolModel& m = protocolOf(fn);
    const InstId mirror = m.peerMirrorSignal(poll);
    ASSERT_GE(mirror, 0) << dump(fn);
    EXPECT_EQ(m.peerPointer(mirror), ProtocolModel::Peer::Unknown);
    EXPECT_FALSE(m.isDecidedPeerMirror(mirror));
    const ProtocolModel::Link signal = m.observedSignal(poll);
    EXPECT_FALSE(signal.evidence.decided);
    EXPECT_EQ(signal.evidence.how, "untraced-pointer");
    const ProtocolModel::ScopeEvidence scope = m.requiredScopeEvidence(poll);
    EXPECT_EQ(scope.scope, Scope::Sys);
    EXPECT_FALSE(scope.decided);
    EXPECT_EQ(scope.how, "untraced-signal-pointer");
  }
  {
    const auto& fn = p.fn("direct_peer_mirror");
    InstId poll = onlyPoll(fn);
    ASSERT_GE(poll, 0);
    const ProtocolModel& m = protocolOf(fn);
    const InstId mirror = m.peerMirrorSignal(poll);
    ASSERT_GE(mirror, 0) << dump(fn);
    EXPECT_TRUE(m.isDecidedPeerMirror(mirror));
    const ProtocolModel::Link signal = m.observedSignal(poll);
    EXPECT_TRUE(signal.evidence.decided);
    EXPECT_EQ(signal.evidence.how, "peer-mirror");
    const ProtocolModel::ScopeEvidence scope = m.requiredScopeEvidence(poll);
    EXPECT_TRUE(scope.decided);
    EXPECT_EQ(scope.how, "peer-signal");
  }
}
