// The setp comparison table (model/Comparisons.h) that the value analysis,
// the guarded ranges and the thread roles share: negation and mirroring are
// involutions, and reading an unsigned comparison as its signed twin
// commutes with both.
#include <gtest/gtest.h>

#include "model/Comparisons.h"

using namespace fenceline::model;

namespace {
constexpr std::string_view kAll[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
}

TEST(ModelComparisons, NegationAndMirrorAreInvolutions) {
  for (std::string_view cmp : kAll) {
    EXPECT_NE(negatedComparison(cmp), cmp) << cmp;
    EXPECT_EQ(negatedComparison(negatedComparison(cmp)), cmp) << cmp;
    EXPECT_EQ(swappedComparison(swappedComparison(cmp)), cmp) << cmp;
  }
  EXPECT_EQ(negatedComparison("lt"), "ge");
  EXPECT_EQ(swappedComparison("lo"), "hi");
  EXPECT_EQ(swappedComparison("eq"), "eq");
  EXPECT_EQ(negatedComparison("equ"), "");  // a float comparison the table does not read
}

TEST(ModelComparisons, SignedTwinCommutesWithNegationAndMirror) {
  EXPECT_EQ(signedComparison("lo"), "lt");
  EXPECT_EQ(signedComparison("hs"), "ge");
  EXPECT_EQ(signedComparison("ne"), "ne");
  for (std::string_view cmp : kAll) {
    EXPECT_EQ(signedComparison(negatedComparison(cmp)), negatedComparison(signedComparison(cmp))) << cmp;
    EXPECT_EQ(signedComparison(swappedComparison(cmp)), swappedComparison(signedComparison(cmp))) << cmp;
  }
}

TEST(ModelComparisons, ComparisonOfReadsTheSetpModifier) {
  fenceline::ptx::Instruction setp;
  setp.setSpelling("setp.hs.u32");
  EXPECT_EQ(comparisonOf(setp), "hs");
  setp.setSpelling("setp.equ.f32");
  EXPECT_EQ(comparisonOf(setp), "");
}
