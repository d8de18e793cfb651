// Completion points of Ampere cp.async copies over real nvcc output
// (Inputs/model_copy_groups.cu): the non-bulk async-group accounting of
// model/BulkGroups (commit_group, wait_group N, wait_all; bulk groups kept
// apart) and completion through cp.async.mbarrier.arrive
// (model/CopyCompletion.h).
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/BulkGroups.h"
#include "model/CopyCompletion.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

namespace {

std::string texts(const FunctionModel& fn, const std::vector<InstId>& insts) {
  std::string out;
  for (InstId i : insts) out += (out.empty() ? "" : ", ") + dotted(fn.instructions[i]) + "@" + std::to_string(i);
  return "{" + out + "}";
}

// The completion points of one copy, through the one entry point the checks use.
std::vector<InstId> completionOf(const FunctionModel& fn, InstId copy) { return CopyCompletions(fn).of(copy); }

}  // namespace

TEST(ModelCopyCompletion, WaitAllSettlesTheOpenGroup) {
  FENCELINE_LOAD_PROGRAM(p, "model_copy_groups");
  const auto& fn = p.fn("_Z21wait_all_settles_openPK4int4PS_");
  const InstId copy = findOne(fn, "cp.async.cg");
  EXPECT_TRUE(isAmpereCopy(fn, copy));
  EXPECT_EQ(completionOf(fn, copy), std::vector<InstId>{findOne(fn, "cp.async.wait_all")})
      << texts(fn, completionOf(fn, copy));
}

TEST(ModelCopyCompletion, WaitBeforeCommitDoesNotSettle) {
  FENCELINE_LOAD_PROGRAM(p, "model_copy_groups");
  const auto& fn = p.fn("_Z18wait_before_commitPK4int4PS_");
  const InstId copy = findOne(fn, "cp.async.cg");
  EXPECT_EQ(completionOf(fn, copy), std::vector<InstId>{findOne(fn, "cp.async.wait_group", 1)})
      << texts(fn, completionOf(fn, copy));
}

TEST(ModelCopyCompletion, WaitGroupDepth) {
  FENCELINE_LOAD_PROGRAM(p, "model_copy_groups");
  const auto& fn = p.fn("_Z10wait_depthPK4int4PS_");
  const InstId first = findOne(fn, "cp.async.cg", 0), second = findOne(fn, "cp.async.cg", 1);
  const InstId wait1 = findOne(fn, "cp.async.wait_group", 0), wait0 = findOne(fn, "cp.async.wait_group", 1);
  ASSERT_EQ(fn.instructions[wait1].operands.front().intValue, 1);
  EXPECT_EQ(groupWaitDepth(fn, wait1), 1);
  EXPECT_EQ(completionOf(fn, first), std::vector<InstId>{wait1}) << texts(fn, completionOf(fn, first));
  EXPECT_EQ(completionOf(fn, second), std::vector<InstId>{wait0})
      << texts(fn, completionOf(fn, second));
}

TEST(ModelCopyCompletion, BulkGroupsAreKeptApart) {
  FENCELINE_LOAD_PROGRAM(p, "model_copy_groups");
  const auto& fn = p.fn("_Z17bulk_groups_apartPK4int4PS_");
  const InstId copy = findOne(fn, "cp.async.cg");
  EXPECT_FALSE(isGroupCommit(fn, findOne(fn, "cp.async.bulk.commit_group"), GroupKind::NonBulk));
  EXPECT_FALSE(isGroupWait(fn, findOne(fn, "cp.async.bulk.wait_group"), GroupKind::NonBulk));
  EXPECT_TRUE(isGroupCommit(fn, findOne(fn, "cp.async.wait_all"), GroupKind::NonBulk));
  EXPECT_FALSE(isGroupCommit(fn, findOne(fn, "cp.async.wait_all"), GroupKind::Bulk));
  EXPECT_EQ(completionOf(fn, copy), std::vector<InstId>{findOne(fn, "cp.async.wait_all")})
      << texts(fn, completionOf(fn, copy));
}

// Every copy of the ring completes at non-bulk waits only; nvcc unrolls the
// loop, so a copy of the body completes at the wait of a later (unrolled)
// trip, and the copies that can leave the loop pending at the drain after
// it; the first wait of the loop settles the first prologue copy.
TEST(ModelCopyCompletion, StageRing) {
  FENCELINE_LOAD_PROGRAM(p, "model_copy_groups");
  const auto& fn = p.fn("_Z4ringPK4int4PS_i");
  const std::vector<InstId> copies = find(fn, "cp.async.cg");
  ASSERT_GE(copies.size(), 3u);
  const std::vector<InstId> waits = find(fn, "cp.async.wait_group");
  const InstId drain = waits.back();
  ASSERT_EQ(fn.instructions[drain].operands.front().intValue, 0) << dump(fn);
  CopyCompletions all(fn);
  EXPECT_EQ(all.copies(), copies);
  size_t drained = 0;
  for (InstId copy : copies) {
    const auto& points = all.of(copy);
    ASSERT_FALSE(points.empty()) << "copy @" << copy;
    for (InstId point : points) EXPECT_TRUE(isGroupWait(fn, point, GroupKind::NonBulk)) << texts(fn, points);
    if (copy > copies[1] && std::find(points.begin(), points.end(), drain) != points.end()) ++drained;
  }
  EXPECT_GT(drained, 0u) << "some loop copy is still pending when the loop ends";
  const auto& first = all.of(copies[0]);
  EXPECT_NE(std::find(first.begin(), first.end(), waits.front()), first.end()) << texts(fn, first);
  EXPECT_EQ(all.of(waits.front()), std::vector<InstId>{}) << "not a copy";
}

// Completion through an mbarrier: the waits on `full` (which the copies'
// cp.async.mbarrier.arrive.noinc signals), not the wait on `empty`.
TEST(ModelCopyCompletion, MbarrierArriveHandsCompletionToTheBarrier) {
  FENCELINE_LOAD_PROGRAM(p, "model_copy_groups");
  const auto& fn = p.fn("_Z19mbarrier_completionPK4int4PS_");
  const InstId copy = findOne(fn, "cp.async.cg");
  const std::vector<InstId> waits = find(fn, "mbarrier.try_wait");
  ASSERT_EQ(waits.size(), 2u);
  EXPECT_EQ(completionOf(fn, copy), std::vector<InstId>{waits[1]})
      << texts(fn, completionOf(fn, copy)) << "\n" << dump(fn);
}
