// Copies of polled words (model/PolledCopies.cpp) over real nvcc output
// (Inputs/model_polled_copies.cu): which stores are copies of a polled word,
// and which words hold nothing else.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/Protocol.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

namespace {

// The relaxed stores and loads of the kernel, in program order.
std::vector<InstId> relaxedStores(const FunctionModel& fn) { return find(fn, "st.relaxed"); }
std::vector<InstId> relaxedLoads(const FunctionModel& fn) { return find(fn, "ld.relaxed"); }

}  // namespace

TEST(ModelPolledCopies, CopyOnlyWordIsNoGuardedRead) {
  FENCELINE_LOAD_PROGRAM(p, "model_polled_copies");
  const auto& fn = p.fn("copy_only");
  const ProtocolModel& m = protocolOf(fn);
  const std::vector<InstId> stores = relaxedStores(fn), loads = relaxedLoads(fn);
  ASSERT_EQ(stores.size(), 1u) << dump(fn);
  ASSERT_EQ(loads.size(), 2u) << dump(fn);  // the done poll, the copy's read
  const InstId poll = loads[0], copyRead = loads[1];
  ASSERT_TRUE(m.isPoll(poll)) << dump(fn);
  EXPECT_TRUE(m.isPolledCopyStore(stores[0]));
  EXPECT_TRUE(m.isCopyOfPolledWord(copyRead));
  EXPECT_TRUE(m.isCopyOfPolledWord(stores[0]));
  EXPECT_TRUE(m.isCacheCheck(copyRead));
  EXPECT_TRUE(m.isCachedCopyPair(stores[0], copyRead));
  EXPECT_FALSE(m.isGuardedRead(copyRead, poll));
  EXPECT_EQ(m.polledCopyEvidence().how, "polled-copy");
  EXPECT_FALSE(m.polledCopyEvidence().decided);
}

TEST(ModelPolledCopies, AnotherValueMakesTheWordData) {
  FENCELINE_LOAD_PROGRAM(p, "model_polled_copies");
  const auto& fn = p.fn("copy_and_value");
  const ProtocolModel& m = protocolOf(fn);
  const std::vector<InstId> stores = relaxedStores(fn), loads = relaxedLoads(fn);
  ASSERT_EQ(stores.size(), 2u) << dump(fn);
  ASSERT_EQ(loads.size(), 2u) << dump(fn);
  EXPECT_TRUE(m.isPolledCopyStore(stores[0]));
  EXPECT_FALSE(m.isPolledCopyStore(stores[1]));  // `need`, a kernel parameter
  EXPECT_FALSE(m.isCopyOfPolledWord(loads[1]));
  EXPECT_TRUE(m.isGuardedRead(loads[1], loads[0]));
}

TEST(ModelPolledCopies, DerivedValueOrAtomicIsNoCopy) {
  FENCELINE_LOAD_PROGRAM(p, "model_polled_copies");
  const auto& fn = p.fn("derived_and_atomic");
  const ProtocolModel& m = protocolOf(fn);
  const std::vector<InstId> stores = relaxedStores(fn), loads = relaxedLoads(fn);
  ASSERT_EQ(stores.size(), 2u) << dump(fn);
  ASSERT_EQ(loads.size(), 3u) << dump(fn);  // the done poll, cached, other
  EXPECT_FALSE(m.isPolledCopyStore(stores[0]));  // c + 1
  EXPECT_TRUE(m.isPolledCopyStore(stores[1]));   // c, into `other`
  EXPECT_FALSE(m.isCopyOfPolledWord(loads[1]));  // cached: only c + 1 is stored there
  EXPECT_FALSE(m.isCopyOfPolledWord(loads[2]));  // other: an atomic writes it too
}

TEST(ModelPolledCopies, TargetOfASpinIsNoCacheCheck) {
  FENCELINE_LOAD_PROGRAM(p, "model_polled_copies");
  const auto& fn = p.fn("copy_as_target");
  const ProtocolModel& m = protocolOf(fn);
  const std::vector<InstId> stores = relaxedStores(fn), loads = relaxedLoads(fn);
  ASSERT_EQ(stores.size(), 1u) << dump(fn);
  ASSERT_EQ(loads.size(), 2u) << dump(fn);
  EXPECT_TRUE(m.isPolledCopyStore(stores[0]));
  EXPECT_FALSE(m.isCacheCheck(loads[1]));
  EXPECT_FALSE(m.isCachedCopyPair(stores[0], loads[1]));
  EXPECT_FALSE(m.isCopyOfPolledWord(loads[1]));
  EXPECT_TRUE(m.isGuardedRead(loads[1], loads[0]));
}
