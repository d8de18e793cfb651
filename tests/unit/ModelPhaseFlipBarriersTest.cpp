// model/PhaseFlipBarriers.h over real nvcc output (Inputs/model_phase_flip_barriers.cu): which
// grid barriers flip bit 31 once per use and wait for the flip (session 28, shape P5), and which
// waits belong to another use.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/PhaseFlipBarriers.h"
#include "model/Protocol.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

namespace {

// The polls of the function's spins, in program order.
std::vector<InstId> polls(const FunctionModel& fn) {
  std::vector<InstId> out;
  for (const auto& spin : protocolOf(fn).spins()) out.insert(out.end(), spin.polls.begin(), spin.polls.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(ModelPhaseFlipBarriers, LoadBeforeArrivalAndReturnedValue) {
  FENCELINE_LOAD_PROGRAM(p, "model_phase_flip_barriers");
  for (const char* kernel : {"flip_load", "flip_return", "flip_and_mask"}) {
    const auto& fn = p.fn(kernel);
    const InstId arrival = findOne(fn, "atom");
    EXPECT_TRUE(addsPhaseFlip(fn, arrival)) << kernel << "\n" << dump(fn);
    const std::vector<InstId> ps = polls(fn);
    ASSERT_EQ(ps.size(), 1u) << kernel << "\n" << dump(fn);
    EXPECT_EQ(phaseFlipUseOfPoll(protocolOf(fn), ps[0]), arrival) << kernel << "\n" << dump(fn);
  }
}

TEST(ModelPhaseFlipBarriers, NoFlipNoUse) {
  FENCELINE_LOAD_PROGRAM(p, "model_phase_flip_barriers");
  for (const char* kernel : {"master_adds_one", "master_off_by_one"}) {
    const auto& fn = p.fn(kernel);
    EXPECT_FALSE(addsPhaseFlip(fn, findOne(fn, "atom"))) << kernel << "\n" << dump(fn);
    const std::vector<InstId> ps = polls(fn);
    ASSERT_EQ(ps.size(), 1u) << kernel << "\n" << dump(fn);
    EXPECT_EQ(phaseFlipUseOfPoll(protocolOf(fn), ps[0]), -1) << kernel << "\n" << dump(fn);
  }
  // The amounts flip, but the wait's phase is read from another word.
  const auto& other = p.fn("phase_of_other_word");
  EXPECT_TRUE(addsPhaseFlip(other, findOne(other, "atom"))) << dump(other);
  const std::vector<InstId> ps = polls(other);
  ASSERT_EQ(ps.size(), 1u) << dump(other);
  EXPECT_EQ(phaseFlipUseOfPoll(protocolOf(other), ps[0]), -1) << dump(other);
}

TEST(ModelPhaseFlipBarriers, WaitOfAnotherUse) {
  FENCELINE_LOAD_PROGRAM(p, "model_phase_flip_barriers");
  const auto& fn = p.fn("two_uses");
  const ProtocolModel& ctx = protocolOf(fn);
  const InstId loop = findOne(fn, "atom", 0), last = findOne(fn, "atom", 1);
  const std::vector<InstId> ps = polls(fn);
  ASSERT_EQ(ps.size(), 2u) << dump(fn);
  EXPECT_EQ(phaseFlipUseOfPoll(ctx, ps[0]), loop) << dump(fn);
  EXPECT_EQ(phaseFlipUseOfPoll(ctx, ps[1]), last) << dump(fn);
  EXPECT_TRUE(waitOfOtherPhaseFlipUse(ctx, last, ps[0])) << dump(fn);
  EXPECT_TRUE(waitOfOtherPhaseFlipUse(ctx, loop, ps[1])) << dump(fn);
  EXPECT_FALSE(waitOfOtherPhaseFlipUse(ctx, loop, ps[0])) << dump(fn);
  EXPECT_FALSE(waitOfOtherPhaseFlipUse(ctx, last, ps[1])) << dump(fn);
}
