// Exclusive modes through a per-warp copy of the mode (model/UniformModes.h,
// "Thread level"): the copy is the mode on the stage-0 warps and 0 on the
// others; the write runs where the mode is 2, the signal where the copy is
// not 2 behind a second stage test of another register. The two are apart
// when the second test is the first one (by value: the same comparison, its
// negation, its swapped form), not when it differs or reads its bound anew.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/UniformModes.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

namespace {

// `bound` computes %r1 (the stage's bound); `second` is the second stage test,
// a predicate %p3 over %r7 (the warp index again) and %r1 (or a reloaded %r9),
// true on the stage-0 warps.
std::string kernel(const std::string& bound, const std::string& second) {
  return ".version 8.0\n.target sm_90a\n.address_size 64\n"
         ".visible .entry k(.param .u32 k_stage, .param .u32 k_mode, .param .u64 k_out)\n{\n"
         "\t.reg .pred %p<8>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n"
         "\tld.param.u64 %rd1, [k_out];\n\tcvta.to.global.u64 %rd2, %rd1;\n" +
         bound +
         "\tld.param.u32 %r2, [k_mode];\n"
         "\tmov.u32 %r4, %tid.x;\n\tshr.u32 %r5, %r4, 5;\n"
         "\tsetp.lt.u32 %p1, %r5, %r1;\n"
         "\t@%p1 bra $L_copy;\n"
         "\tmov.u32 %r3, 0;\n"
         "\tbra.uni $L_join;\n"
         "$L_copy:\n"
         "\tld.param.u32 %r3, [k_mode];\n"
         "$L_join:\n"
         "\tsetp.ne.s32 %p2, %r2, 2;\n"
         "\t@%p2 bra $L_skip;\n"
         "\tst.global.u32 [%rd2], 1;\n"
         "$L_skip:\n"
         "\tmov.u32 %r6, %tid.x;\n\tshr.u32 %r7, %r6, 5;\n" +
         second +
         "\t@!%p3 bra $L_end;\n"
         "\tsetp.eq.s32 %p4, %r3, 2;\n"
         "\t@%p4 bra $L_end;\n"
         "\tst.global.u32 [%rd2+8], 2;\n"
         "$L_end:\n"
         "\tret;\n}\n";
}

const std::string kParamBound = "\tld.param.u32 %r8, [k_stage];\n\tadd.s32 %r1, %r8, 1;\n";
// Read once from memory: the same value at every read of %r1.
const std::string kLoadedBound = "\tld.global.u32 %r8, [%rd2+16];\n\tadd.s32 %r1, %r8, 1;\n";

bool apart(const std::string& bound, const std::string& second) {
  auto loaded = loadProgram("k", kernel(bound, second));
  const auto& fn = loaded->fn("k");
  const InstId write = findOne(fn, "st.global", 0), signal = findOne(fn, "st.global", 1);
  UniformModes modes(fn);
  return modes.exclusiveInBlock(write, signal);
}

}  // namespace

TEST(ModelUniformModes, CopyOfTheModeIsTheModeWhereTheStageTestIsRepeated) {
  EXPECT_TRUE(apart(kParamBound, "\tsetp.lt.u32 %p3, %r7, %r1;\n"));  // the same comparison
  EXPECT_TRUE(apart(kParamBound, "\tsetp.gt.u32 %p3, %r1, %r7;\n"));  // swapped
  EXPECT_TRUE(apart(kParamBound, "\tsetp.hi.u32 %p3, %r1, %r7;\n"));  // swapped, unsigned name
  EXPECT_TRUE(apart(kParamBound, "\tsetp.ge.u32 %p5, %r7, %r1;\n\tnot.pred %p3, %p5;\n"));  // negated
  EXPECT_TRUE(apart(kLoadedBound, "\tsetp.lt.u32 %p3, %r7, %r1;\n"));  // a bound loaded once
}

TEST(ModelUniformModes, CopyStaysTwoValuesWhereTheTestsDiffer) {
  EXPECT_FALSE(apart(kParamBound, "\tsetp.le.u32 %p3, %r7, %r1;\n"));  // warp <= bound
  EXPECT_FALSE(apart(kParamBound, "\tsetp.lt.s32 %p3, %r7, %r1;\n"));  // another comparison (signed)
  EXPECT_FALSE(apart(kParamBound, "\tsetp.lt.u32 %p3, %r7, %r8;\n"));  // another bound
  // The bound read anew from memory that may have changed.
  EXPECT_FALSE(apart(kLoadedBound, "\tld.global.u32 %r9, [%rd2+16];\n\tadd.s32 %r10, %r9, 1;\n"
                                   "\tsetp.lt.u32 %p3, %r7, %r10;\n"));
}
