// Pointers loaded from memory in the memory analysis (model/Memory.h) over
// real nvcc output (Inputs/model_memory_pointers.cu): struct fields through a
// pointer and by value, arrays of structs, rank-indexed pointer tables.
// Different slots are different objects, the same slot loaded twice is one.
#include <algorithm>

#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "ModelMemoryFacts.h"
#include "model/Memory.h"
#include "model/Values.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

using ObjectKind = MemoryObject::Kind;

// Mailbox {inbound @0, expected @8, payload @16} behind `const Mailbox* mb`.
TEST(ModelMemoryPointers, FieldsThroughAPointer) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_pointers");
  const auto& fn = p.fn("fields_through_pointer");
  const MemoryAnalysis& m = *fn.memory;
  const InstId poll = findOne(fn, "ld.relaxed"), reset = findOne(fn, "st.u32"), expected = findOne(fn, "atom");
  const InstId payload = findOne(fn, "ld.f32"), out = findOne(fn, "st.global.f32");
  const int pollOp = addressOf(fn, poll), resetOp = addressOf(fn, reset), expectedOp = addressOf(fn, expected);
  const int payloadOp = addressOf(fn, payload), outOp = addressOf(fn, out);
  for (auto [inst, op] : {std::pair{poll, pollOp}, {reset, resetOp}, {expected, expectedOp}, {payload, payloadOp}}) {
    EXPECT_EQ(m.objectOf(inst, op).kind, ObjectKind::Loaded) << valueText(fn, inst, op);
    EXPECT_TRUE(m.isLoadedPointer(inst, op)) << valueText(fn, inst, op);
  }
  EXPECT_EQ(m.objectOf(out, outOp).kind, ObjectKind::Param);
  EXPECT_FALSE(m.isLoadedPointer(out, outOp));
  // mb->inbound loaded twice from [mb]: one object, one word.
  EXPECT_EQ(m.objectOf(poll, pollOp), m.objectOf(reset, resetOp));
  EXPECT_TRUE(m.sameWord(poll, reset));
  EXPECT_TRUE(aliasIs(fn, AliasResult::Must, poll, pollOp, 0, reset, resetOp, 0));
  // Different fields: different objects.
  EXPECT_NE(m.objectOf(poll, pollOp), m.objectOf(expected, expectedOp));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, poll, pollOp, 0, expected, expectedOp, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, reset, resetOp, 0, expected, expectedOp, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, payload, payloadOp, 0, poll, pollOp, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, payload, payloadOp, 0, expected, expectedOp, 0));
  // A loaded pointer may point where a parameter does.
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, payload, payloadOp, 0, out, outOp, 0));
  // All three fields come from one struct: one root, which out's is not.
  EXPECT_EQ(m.rootOf(poll, pollOp), m.rootOf(expected, expectedOp));
  EXPECT_TRUE(m.rootOf(poll, pollOp).known()) << m.rootOf(poll, pollOp).toString();
  EXPECT_TRUE(m.mayShareRoot(poll, expected));
  EXPECT_NE(m.rootOf(poll, pollOp), m.rootOf(out, outOp));
}

// The same Mailbox passed by value: fields are parameter objects "p+8", "p+16".
TEST(ModelMemoryPointers, FieldsOfAByValueStruct) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_pointers");
  const auto& fn = p.fn("fields_by_value");
  const MemoryAnalysis& m = *fn.memory;
  const InstId poll = findOne(fn, "ld.relaxed"), reset = findOne(fn, "st.global.u32");
  const InstId expected = findOne(fn, "atom"), payload = findOne(fn, "ld.global.f32");
  const InstId out = findOne(fn, "st.global.f32");
  MemoryObject inbound = m.objectOf(poll, 1);
  EXPECT_EQ(inbound.kind, ObjectKind::Param);
  EXPECT_EQ(inbound.name, "fields_by_value_param_0");
  EXPECT_EQ(m.objectOf(reset, 0), inbound);  // through cvta.to.global
  EXPECT_EQ(m.objectOf(expected, 1).toString(), "param:fields_by_value_param_0+8");
  EXPECT_EQ(m.objectOf(payload, 1).toString(), "param:fields_by_value_param_0+16");
  EXPECT_FALSE(m.isLoadedPointer(poll, 1));  // ld.param reads no memory a thread could write
  EXPECT_TRUE(m.sameWord(poll, reset));
  EXPECT_TRUE(aliasIs(fn, AliasResult::Must, poll, 1, 0, reset, 0, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, poll, 1, 0, expected, 1, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, payload, 1, 0, expected, 1, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, payload, 1, 0, reset, 0, 0));
  // Two pointer parameters (no __restrict__) may alias.
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, payload, 1, 0, out, 0, 0));
}

// boxes[blockIdx.x] and boxes[0]: slots [p + 24*ctaid + 8] and [p + 8] are the
// same slot in block 0, so the pointers loaded from them may be equal.
TEST(ModelMemoryPointers, ArrayOfStructs) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_pointers");
  const auto& fn = p.fn("array_of_structs");
  const MemoryAnalysis& m = *fn.memory;
  const InstId poll = findOne(fn, "ld.relaxed"), mine = findOne(fn, "atom", 0), first = findOne(fn, "atom", 1);
  const InstId payload = findOne(fn, "ld.f32");
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, poll, 1, 0, mine, 1, 0));       // .inbound vs .expected of one box
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, payload, 1, 0, mine, 1, 0));    // .payload vs .expected
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, payload, 1, 0, poll, 1, 0));
  EXPECT_EQ(m.objectOf(mine, 1).kind, ObjectKind::Loaded);
  EXPECT_EQ(m.objectOf(first, 1).kind, ObjectKind::Loaded);
  // The slots [p + 24*ctaid.x + 8] and [p + 8] may be one (ctaid.x may be 0):
  // the pointers read from them may be equal.
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, mine, 1, 0, first, 1, 0));
}

// ptrs[peer] (pushed to) and ptrs[rank] (read): distinct objects by issue 11's
// rule for rank-indexed pointer tables; flags[peer] loaded twice: one word.
TEST(ModelMemoryPointers, RankIndexedTables) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_pointers");
  const auto& fn = p.fn("rank_table");
  const MemoryAnalysis& m = *fn.memory;
  const InstId push = findOne(fn, "st.f32"), pull = findOne(fn, "ld.f32");
  const InstId reset = findOne(fn, "st.relaxed"), raise = findOne(fn, "st.release");
  for (auto [inst, op] : {std::pair{push, 0}, {pull, 1}, {reset, 0}, {raise, 0}}) {
    EXPECT_TRUE(m.isLoadedPointer(inst, op)) << valueText(fn, inst, op);
    EXPECT_EQ(m.objectOf(inst, op).kind, ObjectKind::Loaded) << valueText(fn, inst, op);
  }
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, push, 0, 0, pull, 1, 0));
  EXPECT_TRUE(m.sameWord(reset, raise));
  EXPECT_TRUE(aliasIs(fn, AliasResult::Must, reset, 0, 0, raise, 0, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, reset, 0, 0, push, 0, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, raise, 0, 0, pull, 1, 0));
  // Roots: entries of one table share it; the two tables do not.
  EXPECT_EQ(m.rootOf(push, 0), m.rootOf(pull, 1))
      << m.rootOf(push, 0).toString() << " " << m.rootOf(pull, 1).toString();
  EXPECT_TRUE(m.mayShareRoot(push, pull));
  EXPECT_NE(m.rootOf(push, 0), m.rootOf(reset, 0));
  EXPECT_FALSE(m.mayShareRoot(push, reset));
}

// Fields of a by-value parameter read through its address (`mov.b64 %rd, p;
// ld.param.u64 [%rd+k]`, nvcc's form once a table in it is indexed at run
// time): a constant offset is one field; a bounded index or a `selp` of two
// tables is the choice of the naturally aligned fields it may read.
TEST(ModelMemoryPointers, FieldsOfAParameterThroughItsAddress) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_pointers");
  const auto& fn = p.fn("param_tables");
  const MemoryAnalysis& m = *fn.memory;
  const InstId staging = findOne(fn, "st.volatile"), raise = findOne(fn, "st.relaxed"), release = findOne(fn, "st.release");
  // signals[0], read at [%rd+0] through the parameter's address.
  EXPECT_EQ(m.objectOf(raise, 0).toString(), "param:param_tables_param_0");
  // staging0[dst] or staging1[dst], dst = (k + pass) & 7: fields +64 .. +184.
  const MemoryObject slots = m.objectOf(staging, 0);
  EXPECT_EQ(slots.kind, ObjectKind::Param) << valueText(fn, staging, 0);
  ASSERT_EQ(slots.alternatives.size(), 16u) << slots.toString();
  EXPECT_EQ(slots.alternatives.front(), "param_tables_param_0+104");  // sorted by name
  EXPECT_TRUE(std::is_sorted(slots.alternatives.begin(), slots.alternatives.end()));
  // signals[k & 7]: fields +0 .. +56, signals[0] among them.
  const MemoryObject signals = m.objectOf(release, 0);
  ASSERT_EQ(signals.alternatives.size(), 8u) << signals.toString();
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, staging, 0, 0, raise, 0, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, staging, 0, 0, release, 0, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, raise, 0, 0, release, 0, 0));
  // Roots: a constant field is its own root, as with `ld.param [p+k]`; an
  // indexed field has the parameter (the table) as its root.
  EXPECT_EQ(m.rootOf(raise, 0).toString(), "param:param:param_tables_param_0");
  EXPECT_EQ(m.rootOf(release, 0).kind, ObjectKind::Param);
  EXPECT_FALSE(m.isLoadedPointer(staging, 0));
}

// slots[2 * rank + 1], slots[2 * peer], slots[2 * rank] of a flat table
// (Inputs/model_protocol_fields.cu, slot_table): `2 * rank` of an integer
// parameter keeps its factor in the value analysis (a 32-bit kernel
// parameter is an integer variable of its own, so the byte offsets are
// 16 * rank + 8 and 16 * peer), so an odd slot never is an even one,
// whichever ranks; two even slots may be one.
TEST(ModelMemoryPointers, SlotsOnOneStrideKeepTheFactorOfAParameter) {
  FENCELINE_LOAD_PROGRAM(p, "model_protocol_fields");
  const auto& fn = p.fn("slot_table");
  const InstId odd = findOne(fn, "ld.global.u64", 0), peer = findOne(fn, "ld.global.u64", 1);
  const InstId mine = findOne(fn, "ld.global.u64", 2);
  EXPECT_NE(valueText(fn, peer, 1).find("16*param:slot_table_param_"), std::string::npos) << valueText(fn, peer, 1);
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, odd, 1, 0, mine, 1, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, odd, 1, 0, peer, 1, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, peer, 1, 0, mine, 1, 0));
}

// Slots beyond the grid (Values::atLeastGridSize) against the block's own
// slot: apart when the rank indexes an array (taken as non-negative), may
// alias when nothing bounds it, and when the backfill starts at the block's
// own slot.
TEST(ModelMemoryPointers, SlotsBeyondTheGrid) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_pointers");
  auto check = [&](const char* kernel, AliasResult expected) {
    const auto& fn = p.fn(kernel);
    const InstId store = findOne(fn, "st.relaxed.sys"), poll = findOne(fn, "ld.acquire.sys");
    EXPECT_TRUE(aliasIs(fn, expected, store, addressOf(fn, store), 0, poll, addressOf(fn, poll), 0)) << kernel;
    EXPECT_EQ(fn.memory->offsetsApart(store, addressOf(fn, store), poll, addressOf(fn, poll)), expected == AliasResult::No)
        << kernel;
  };
  check("beyond_grid_slots", AliasResult::No);
  check("beyond_grid_signed_rank", AliasResult::May);
  check("own_grid_slots", AliasResult::May);
}

// `pool + offsets[team]`: pool read from a __constant__ state and converted by
// cvta, the offset read from memory and never converted: the sum points into
// pool's object (Values' add rule), so the poll and the store through the
// state's counter field are two objects. Without the rule the poll's object is
// unknown and may be the counter.
TEST(ModelMemoryPointers, LoadedOffsetFromAConvertedPointer) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_pointers");
  const auto& fn = p.fn("loaded_offset_from_pointer");
  const InstId poll = findOne(fn, "ld.volatile.global"), store = findOne(fn, "st.global");
  const MemoryObject object = fn.memory->objectOf(poll, addressOf(fn, poll));
  EXPECT_EQ(object.kind, MemoryObject::Kind::Loaded) << object.toString() << "\n" << valueText(fn, poll, addressOf(fn, poll));
  EXPECT_NE(object.name.find("offset_state+8"), std::string::npos) << object.toString();
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, poll, addressOf(fn, poll), 0, store, addressOf(fn, store), 0));
}

// Pages of one heap selected by different unknown values (a parameter, a
// field read from memory): the overlap is undecided ("page-selectors"); two
// accesses through the same page selector keep "same-buffer".
TEST(ModelMemoryPointers, PageSelectorsOfOneHeap) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_pointers");
  const auto& fn = p.fn("heap_pages");
  const MemoryAnalysis& m = *fn.memory;
  const InstId counter = findOne(fn, "red.relaxed"), store = findOne(fn, "st.relaxed"), load = findOne(fn, "ld.relaxed");
  const int counterOp = addressOf(fn, counter), storeOp = addressOf(fn, store), loadOp = addressOf(fn, load);
  const AliasEvidence pages = m.aliasEvidence(counter, counterOp, 0, load, loadOp, 0);
  EXPECT_FALSE(pages.decided) << pages.how << ": " << valueText(fn, counter, counterOp) << " / "
                              << valueText(fn, load, loadOp);
  EXPECT_EQ(pages.how, "page-selectors");
  EXPECT_NE(pages.result, AliasResult::No);
  const AliasEvidence samePage = m.aliasEvidence(store, storeOp, 0, load, loadOp, 0);
  EXPECT_TRUE(samePage.decided) << samePage.how << ": " << valueText(fn, store, storeOp) << " / "
                                << valueText(fn, load, loadOp);
  EXPECT_EQ(samePage.how, "same-buffer");
}

// The same expression in two blocks (issue 34, shape S): `scratch + S *
// blockIdx.x + 4 * tid` names each block's own slice. Apart when the stride S
// is a constant beyond a block's extent, undecided when it is a parameter;
// the expressions' answer stands when two blocks' extents overlap, when the
// two sides carry different block terms, or when neither carries one.
TEST(ModelMemoryPointers, BlockSlicesOfOneScratch) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_pointers");
  const auto& fn = p.fn("block_slices");
  const MemoryAnalysis& m = *fn.memory;
  using Kind = MemoryAnalysis::BlockSlices::Kind;
  const InstId fixed = findOne(fn, "st.relaxed.gpu"), byParameter = findOne(fn, "st.relaxed.sys");
  const InstId narrow = findOne(fn, "st.volatile"), next = findOne(fn, "ld.relaxed"), out = findOne(fn, "st.release");
  auto slices = [&](InstId a, InstId b) { return m.blockSlices(a, addressOf(fn, a), b, addressOf(fn, b)); };
  const auto apart = slices(fixed, fixed);
  EXPECT_EQ(apart.kind, Kind::Apart) << valueText(fn, fixed, addressOf(fn, fixed));
  EXPECT_NE(apart.detail.find("512 bytes apart"), std::string::npos) << apart.detail;
  const auto undecided = slices(byParameter, byParameter);
  EXPECT_EQ(undecided.kind, Kind::Undecided) << valueText(fn, byParameter, addressOf(fn, byParameter));
  EXPECT_NE(undecided.detail.find("stride the analysis cannot bound"), std::string::npos) << undecided.detail;
  EXPECT_EQ(slices(narrow, narrow).kind, Kind::None) << valueText(fn, narrow, addressOf(fn, narrow));
  EXPECT_EQ(slices(fixed, next).kind, Kind::None) << valueText(fn, next, addressOf(fn, next));
  EXPECT_EQ(slices(out, out).kind, Kind::None);
  // The expressions' own answer is unchanged: the same address for one block's threads.
  EXPECT_TRUE(aliasIs(fn, AliasResult::Must, fixed, addressOf(fn, fixed), 0, fixed, addressOf(fn, fixed), 0));
}

// The block's own state slots (issue 34, NCCL's block-private state word):
// a shared context beside the block index, slots at two strides, a stride
// whose factor is a loaded value: undecided; the context's words without
// the block index: the expressions' answer stands.
TEST(ModelMemoryPointers, BlockSlicesOfStateSlots) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_pointers");
  const auto& fn = p.fn("block_state_slots");
  const MemoryAnalysis& m = *fn.memory;
  using Kind = MemoryAnalysis::BlockSlices::Kind;
  const InstId slot = findOne(fn, "st.relaxed.gpu"), read = findOne(fn, "ld.relaxed.gpu");
  const InstId tail = findOne(fn, "st.relaxed.sys"), context = findOne(fn, "ld.volatile");
  const InstId loaded = findOne(fn, "st.volatile"), loadedRead = findOne(fn, "ld.acquire.gpu");
  auto slices = [&](InstId a, InstId b) { return m.blockSlices(a, addressOf(fn, a), b, addressOf(fn, b)); };
  const auto shared = slices(slot, read);
  EXPECT_EQ(shared.kind, Kind::Undecided) << valueText(fn, slot, addressOf(fn, slot)) << " / "
                                          << valueText(fn, read, addressOf(fn, read));
  EXPECT_NE(shared.detail.find("a value several blocks share"), std::string::npos) << shared.detail;
  const auto two = slices(tail, read);
  EXPECT_EQ(two.kind, Kind::Undecided) << valueText(fn, tail, addressOf(fn, tail));
  EXPECT_NE(two.detail.find("the strides of two arrays"), std::string::npos) << two.detail;
  const auto unknownFactor = slices(loaded, loadedRead);
  EXPECT_EQ(unknownFactor.kind, Kind::Undecided) << valueText(fn, loaded, addressOf(fn, loaded));
  EXPECT_NE(unknownFactor.detail.find("a stride the analysis cannot bound"), std::string::npos) << unknownFactor.detail;
  EXPECT_EQ(slices(slot, context).kind, Kind::None) << valueText(fn, context, addressOf(fn, context));
}

// Chained blocks (issue 34): a flag word another block raises. flags[b]
// against flags[b - 1] meet for the block one before, flags[b + 2] two
// after; flags[2b] never meets flags[2b' + 1]. The data of the block one
// before: its x[b' * 128 + tid] is the read x[(b - 1) * 128 + tid], never
// the reader's own slice; against x[tid] (no block index) it is undecided.
TEST(ModelMemoryPointers, BlockDistanceOfChainedFlags) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_pointers");
  const auto& fn = p.fn("block_distance");
  const MemoryAnalysis& m = *fn.memory;
  const InstId own = findOne(fn, "st.relaxed.gpu.global.s32"), before = findOne(fn, "ld.relaxed.gpu.global.s32");
  const InstId after = findOne(fn, "ld.acquire.gpu.global.s32"), even = findOne(fn, "st.relaxed.sys.global.s32");
  const InstId odd = findOne(fn, "ld.volatile.global.s32");
  auto distance = [&](InstId a, InstId b) { return m.blockDistance(a, addressOf(fn, a), b, addressOf(fn, b)); };
  const auto one = distance(own, before);
  ASSERT_TRUE(one.found()) << valueText(fn, own, addressOf(fn, own)) << " / " << valueText(fn, before, addressOf(fn, before));
  EXPECT_EQ(one.dimension, 0);
  EXPECT_EQ(one.distance, -1);
  const auto two = distance(own, after);
  ASSERT_TRUE(two.found());
  EXPECT_EQ(two.distance, 2);
  EXPECT_FALSE(distance(own, own).found());  // the same word in one block: not a distance
  EXPECT_FALSE(distance(even, odd).found()) << valueText(fn, odd, addressOf(fn, odd));
  using At = MemoryAnalysis::AtDistance;
  const InstId write = findOne(fn, "st.relaxed.gpu.global.f32"), previous = findOne(fn, "ld.relaxed.gpu.global.f32");
  const InstId shared = findOne(fn, "ld.acquire.gpu.global.f32");
  auto at = [&](InstId a, InstId b, MemoryAnalysis::BlockDistance d) {
    return m.atBlockDistance(a, addressOf(fn, a), b, addressOf(fn, b), d);
  };
  EXPECT_EQ(at(write, previous, one), At::Meets);
  EXPECT_EQ(at(write, previous, two), At::Apart);
  EXPECT_EQ(at(write, write, one), At::Apart);  // the reader's own slice is not the partner's
  EXPECT_EQ(at(write, shared, one), At::Undecided);
  EXPECT_EQ(at(shared, shared, one), At::Stands);
}
