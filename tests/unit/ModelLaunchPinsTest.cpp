// Launch-uniform predicates and pinned blocks (issue 34, shapes P6 and P4):
// UniformModes::singleBlockLaunch (an instruction that runs only in a launch
// of one block, `if (gridDim.x == 1)`) and model::pinnedBlock (the one block
// whose threads run an instruction, `((tid >> 4) | ctaid.x) == 0`, asked
// through UniformModes::pinnedBlock), on small
// hand-written kernels.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "model/PinnedBlock.h"
#include "model/UniformModes.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

namespace {

// A kernel whose body is `body`; %rd2 is the output pointer (global).
std::string kernel(const std::string& body) {
  return ".version 8.0\n.target sm_90a\n.address_size 64\n"
         ".visible .entry k(.param .u64 k_out, .param .u32 k_n)\n{\n"
         "\t.reg .pred %p<8>;\n\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<4>;\n"
         "\tld.param.u64 %rd1, [k_out];\n\tcvta.to.global.u64 %rd2, %rd1;\n" +
         body + "\tret;\n}\n";
}

// The first and second st.global: does each run only in a launch of one block?
std::pair<bool, bool> singleBlock(const std::string& body) {
  auto loaded = loadProgram("k", kernel(body));
  const auto& fn = loaded->fn("k");
  UniformModes modes(fn);
  return {modes.singleBlockLaunch(findOne(fn, "st.global", 0)), modes.singleBlockLaunch(findOne(fn, "st.global", 1))};
}

std::optional<std::array<int64_t, 3>> pinned(const std::string& body) {
  auto loaded = loadProgram("k", kernel(body));
  const auto& fn = loaded->fn("k");
  UniformModes modes(fn);
  return modes.pinnedBlock(findOne(fn, "st.global"));
}

// `if (gridDim.x == 1) store A;` then store B after the join (Eigen's form).
const std::string kGridOfOne =
    "\tmov.u32 %r1, %nctaid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tsetp.ne.s32 %p1, %r1, 1;\n\t@%p1 bra $L_join;\n"
    "\tst.global.u32 [%rd2], %r2;\n$L_join:\n\tst.global.u32 [%rd2+4], 1;\n";

}  // namespace

TEST(ModelLaunchPins, OneBlockLaunchByGridSizeTest) {
  EXPECT_EQ(singleBlock(kGridOfOne), std::make_pair(true, false));
  // gridDim.x > 1 skips the store: the store runs where gridDim.x <= 1.
  EXPECT_EQ(singleBlock("\tmov.u32 %r1, %nctaid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tsetp.gt.u32 %p1, %r1, 1;\n"
                        "\t@%p1 bra $L_join;\n\tst.global.u32 [%rd2], %r2;\n$L_join:\n\tst.global.u32 [%rd2+4], 1;\n"),
            std::make_pair(true, false));
  // The store's own guard: @%p1 st with %p1 = gridDim.x < 2.
  EXPECT_EQ(singleBlock("\tmov.u32 %r1, %nctaid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tsetp.lt.u32 %p1, %r1, 2;\n"
                        "\t@%p1 st.global.u32 [%rd2], %r2;\n\tst.global.u32 [%rd2+4], 1;\n"),
            std::make_pair(true, false));
}

TEST(ModelLaunchPins, NoOneBlockLaunchWhereAnotherDimensionIsRead) {
  // The function tells blocks apart in y too: gridDim.x == 1 leaves other blocks.
  EXPECT_EQ(singleBlock("\tmov.u32 %r3, %ctaid.y;\n" + kGridOfOne + "\tst.global.u32 [%rd2+8], %r3;\n"),
            std::make_pair(false, false));
  // A grid size other than one, or a parameter compared with one.
  EXPECT_EQ(singleBlock("\tmov.u32 %r1, %nctaid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tsetp.ne.s32 %p1, %r1, 2;\n"
                        "\t@%p1 bra $L_join;\n\tst.global.u32 [%rd2], %r2;\n$L_join:\n\tst.global.u32 [%rd2+4], 1;\n"),
            std::make_pair(false, false));
  EXPECT_EQ(singleBlock("\tld.param.u32 %r1, [k_n];\n\tmov.u32 %r2, %ctaid.x;\n\tsetp.ne.s32 %p1, %r1, 1;\n"
                        "\t@%p1 bra $L_join;\n\tst.global.u32 [%rd2], %r2;\n$L_join:\n\tst.global.u32 [%rd2+4], 1;\n"),
            std::make_pair(false, false));
}

TEST(ModelLaunchPins, BlockPinnedByAnOrOfIdsComparedWithZero) {
  // ((tid.x >> 4) | ctaid.x) == 0 and a data test: block 0.
  const auto block0 = pinned(
      "\tmov.u32 %r1, %tid.x;\n\tshr.u32 %r2, %r1, 4;\n\tmov.u32 %r3, %ctaid.x;\n\tor.b32 %r4, %r2, %r3;\n"
      "\tsetp.eq.s32 %p1, %r4, 0;\n\tld.param.u32 %r5, [k_n];\n\tsetp.lt.s32 %p2, %r1, %r5;\n"
      "\tand.pred %p3, %p1, %p2;\n\tnot.pred %p4, %p3;\n\t@%p4 bra $L_end;\n\tst.global.u32 [%rd2], %r1;\n$L_end:\n");
  ASSERT_TRUE(block0.has_value());
  EXPECT_EQ(*block0, (std::array<int64_t, 3>{0, 0, 0}));
  // blockIdx.x == 3 as the store's own guard, through a widening cvt.
  const auto block3 = pinned("\tmov.u32 %r3, %ctaid.x;\n\tcvt.u64.u32 %rd3, %r3;\n\tsetp.eq.s64 %p1, %rd3, 3;\n"
                             "\t@%p1 st.global.u32 [%rd2], %r3;\n");
  ASSERT_TRUE(block3.has_value());
  EXPECT_EQ(*block3, (std::array<int64_t, 3>{3, 0, 0}));
}

TEST(ModelLaunchPins, NoPinWithoutABlockTest) {
  // tid.x == 0 alone: every block's thread 0.
  EXPECT_FALSE(pinned("\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r3, %ctaid.x;\n\tsetp.eq.s32 %p1, %r1, 0;\n"
                      "\t@%p1 st.global.u32 [%rd2], %r3;\n")
                   .has_value());
  // A truncation: (u16)ctaid.x == 0 holds for block 65536 too.
  EXPECT_FALSE(pinned("\tmov.u32 %r3, %ctaid.x;\n\tcvt.u16.u32 %rs1, %r3;\n\tsetp.eq.s16 %p1, %rs1, 0;\n"
                      "\t@%p1 st.global.u32 [%rd2], %r3;\n")
                   .has_value());
  // x pinned, but the function reads ctaid.y: one block per row.
  EXPECT_FALSE(pinned("\tmov.u32 %r3, %ctaid.x;\n\tmov.u32 %r4, %ctaid.y;\n\tsetp.eq.s32 %p1, %r3, 0;\n"
                      "\t@%p1 st.global.u32 [%rd2], %r4;\n")
                   .has_value());
  // An `or` compared with a value other than 0 pins nothing.
  EXPECT_FALSE(pinned("\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r3, %ctaid.x;\n\tor.b32 %r4, %r1, %r3;\n"
                      "\tsetp.eq.s32 %p1, %r4, 1;\n\t@%p1 st.global.u32 [%rd2], %r3;\n")
                   .has_value());
}
