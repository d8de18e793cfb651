// Which threads write the word a thread reads (model/OwnWords.h), the
// block's first barrier (model/FirstBarrier.h) and a null-checked pointer's
// value, over real nvcc output (Inputs/model_own_words.cu).
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/FirstBarrier.h"
#include "model/OwnWords.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

// count[tid >> 5]: lane 0's read is of its own word; lane 1's is lane 0's.
TEST(ModelOwnWords, PerWarpSlotIsLaneZerosOwn) {
  FENCELINE_LOAD_PROGRAM(p, "model_own_words");
  const auto& fn = p.fn("per_warp_slot");
  const InstId write = findOne(fn, "st.shared");
  const InstId other = findOne(fn, "ld.volatile.shared"), own = findOne(fn, "ld.shared");
  EXPECT_TRUE(readsOnlyOwnWrites(fn, write, own)) << dump(fn);
  EXPECT_FALSE(readsOnlyOwnWrites(fn, write, other)) << dump(fn);
}

// One word that lane 0 of every warp writes: not any reader's own.
TEST(ModelOwnWords, BlockWordOfEveryWarpsLaneZeroIsShared) {
  FENCELINE_LOAD_PROGRAM(p, "model_own_words");
  const auto& fn = p.fn("block_word");
  EXPECT_FALSE(readsOnlyOwnWrites(fn, findOne(fn, "st.shared"), findOne(fn, "ld.shared"))) << dump(fn);
}

// Thread 0's write before the first barrier is ordered for a read after it;
// thread 1's write after the barrier is not.
TEST(ModelOwnWords, FirstBarrierOrdersTheBlocksInitialization) {
  FENCELINE_LOAD_PROGRAM(p, "model_own_words");
  const auto& fn = p.fn("first_barrier");
  const std::vector<InstId> stores = find(fn, "st.global");
  const std::vector<InstId> loads = find(fn, "ld.global");
  ASSERT_GE(stores.size(), 3u) << dump(fn);
  ASSERT_EQ(loads.size(), 2u) << dump(fn);
  const FirstBarrier first(fn);
  EXPECT_TRUE(first.orders(stores[0], loads[0])) << dump(fn);
  EXPECT_TRUE(first.orders(stores[0], loads[1])) << dump(fn);
  InstId late = -1;  // thread 1's record write, after the barrier
  for (InstId s : stores)
    if (s > loads[0] && s < loads[1]) late = s;
  ASSERT_GE(late, 0) << dump(fn);
  EXPECT_FALSE(first.orders(late, loads[1])) << dump(fn);
  EXPECT_FALSE(first.orders(stores[0], stores[0]));  // the write itself is before the barrier
}

// `records ? records + 4 * blockIdx.x : nullptr`: every access goes through
// the parameter's pointer (the null side faults).
TEST(ModelOwnWords, NullCheckedPointerIsThePointer) {
  FENCELINE_LOAD_PROGRAM(p, "model_own_words");
  const auto& fn = p.fn("first_barrier");
  const InstId write = find(fn, "st.global").front();
  const AbstractValue v = fn.values->operandValue(write, fn.instructions[write].effect.address);
  EXPECT_TRUE(v.known) << dump(fn);
  EXPECT_EQ(v.baseKind, AbstractValue::BaseKind::Param) << v.toString();
}
