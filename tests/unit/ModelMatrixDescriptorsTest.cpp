// The tcgen05 instruction descriptor in the memory analysis
// (model/MatrixDescriptors.h) over real nvcc output
// (Inputs/model_memory_idesc_sm100.cu): known bits of the descriptor, the
// rows of A and B it allows, and the operands located at the fewest and the
// most rows. Both operands use SBO 256 (8-row groups of 32-byte rows) and LBO
// 128: A starts at smem, B at smem + 4096.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "ModelMemoryFacts.h"
#include "model/MatrixDescriptors.h"
#include "model/Memory.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

using ObjectKind = MemoryObject::Kind;

namespace {

// The instruction descriptor of the function's only tcgen05.mma (operand 3).
KnownBits idescBits(const FunctionModel& fn) {
  const InstId mma = findOne(fn, "tcgen05.mma");
  return knownBits(fn, fn.instructions[mma].operands[3], mma);
}

}  // namespace

// A constant descriptor (M = 128, N = 64): every bit known, the shape exact,
// and both operand locations equal.
TEST(ModelMatrixDescriptors, ConstantDescriptorIsExact) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_idesc_sm100");
  const auto& fn = p.fn("_Z14idesc_constantj");
  KnownBits bits = idescBits(fn);
  EXPECT_EQ(bits.zeros | bits.ones, ~uint64_t(0));
  EXPECT_EQ(bits.fieldMin(17, 6), 8u);
  EXPECT_EQ(bits.fieldMin(24, 5), 8u);
  MatrixRows rows = matrixRows(fn, findOne(fn, "tcgen05.mma"));
  EXPECT_TRUE(rows.exact()) << rows.why;
  EXPECT_EQ(rows.fewestA, 128);
  EXPECT_EQ(rows.fewestB, 64);
  MemoryAnalysis::MatrixOperands operands = fn.memory->matrixOperands(findOne(fn, "tcgen05.mma"));
  ASSERT_TRUE(operands.decoded) << dump(fn);
  ASSERT_EQ(operands.operands.size(), 2u);
  ASSERT_EQ(operands.fewest.size(), 2u);
  EXPECT_TRUE(hasBytes(operands.operands[0], ObjectKind::DynamicShared, 0, 4096));
  EXPECT_TRUE(hasBytes(operands.operands[1], ObjectKind::DynamicShared, 4096, 4096 + 2048));
  EXPECT_TRUE(hasBytes(operands.fewest[1], ObjectKind::DynamicShared, 4096, 4096 + 2048));
  EXPECT_EQ(operands.uncertainty, "");
}

// A kernel parameter: nothing known; A is 64 to 128 rows, B 8 to 256 (one
// CTA), and the note says which fields are not decoded.
TEST(ModelMatrixDescriptors, ParameterDescriptorSpansTheLegalShapes) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_idesc_sm100");
  const auto& fn = p.fn("_Z11idesc_paramjj");
  KnownBits bits = idescBits(fn);
  EXPECT_EQ(bits.zeros | bits.ones, 0u);
  const InstId mma = findOne(fn, "tcgen05.mma");
  MatrixRows rows = matrixRows(fn, mma);
  EXPECT_FALSE(rows.exact());
  EXPECT_EQ(rows.fewestA, 64);
  EXPECT_EQ(rows.mostA, 128);
  EXPECT_EQ(rows.fewestB, 8);
  EXPECT_EQ(rows.mostB, 256);
  MemoryAnalysis::MatrixOperands operands = fn.memory->matrixOperands(mma);
  ASSERT_TRUE(operands.decoded) << dump(fn);
  ASSERT_EQ(operands.operands.size(), 2u);
  // B: 8 rows = one 8-row group plus its second core matrix, 256 rows = 32 groups.
  EXPECT_TRUE(hasBytes(operands.fewest[0], ObjectKind::DynamicShared, 0, 2048));
  EXPECT_TRUE(hasBytes(operands.operands[0], ObjectKind::DynamicShared, 0, 4096));
  EXPECT_TRUE(hasBytes(operands.fewest[1], ObjectKind::DynamicShared, 4096, 4096 + 256));
  EXPECT_TRUE(hasBytes(operands.operands[1], ObjectKind::DynamicShared, 4096, 4096 + 8192));
  EXPECT_EQ(operands.uncertainty,
            "the N and M fields of the instruction descriptor could not be decoded (M: 64 to 128 rows of A, N: 8 "
            "to 256 rows of B)");
}

// selp between N = 64 and N = 128 (M = 128 in both): the N field is 8 or 16,
// so its bits 0-2 and 5 are known zero: N is 8 to 192 (a superset of {64,
// 128}, never smaller), M exact.
TEST(ModelMatrixDescriptors, SelectedDescriptorBoundsN) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_idesc_sm100");
  const auto& fn = p.fn("_Z14idesc_selectedji");
  KnownBits bits = idescBits(fn);
  EXPECT_TRUE(bits.fieldKnown(24, 5));
  EXPECT_FALSE(bits.fieldKnown(17, 6));
  EXPECT_EQ(bits.fieldMax(17, 6), 0b011000u);
  MatrixRows rows = matrixRows(fn, findOne(fn, "tcgen05.mma"));
  EXPECT_EQ(rows.fewestA, 128);
  EXPECT_EQ(rows.mostA, 128);
  EXPECT_EQ(rows.fewestB, 8);
  EXPECT_EQ(rows.mostB, 192);
  EXPECT_EQ(rows.why, "the N field of the instruction descriptor could not be decoded (N: 8 to 192 rows of B)");
}

// CUTLASS's runtime block-scaled descriptor: the scale-factor ids are
// unknown (bits 4-5, 29-30) but N and M are constants, so the shape is exact.
TEST(ModelMatrixDescriptors, RuntimeBlockScaledDescriptorKeepsItsShape) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_idesc_sm100");
  const auto& fn = p.fn("_Z18idesc_block_scaledjjj");
  KnownBits bits = idescBits(fn);
  EXPECT_FALSE(bits.fieldKnown(4, 2));
  EXPECT_FALSE(bits.fieldKnown(29, 2));
  EXPECT_TRUE(bits.fieldKnown(17, 6));
  EXPECT_TRUE(bits.fieldKnown(24, 5));
  const InstId mma = findOne(fn, "tcgen05.mma");
  MatrixRows rows = matrixRows(fn, mma);
  EXPECT_TRUE(rows.exact()) << rows.why;
  EXPECT_EQ(rows.fewestA, 128);
  EXPECT_EQ(rows.fewestB, 64);
  MemoryAnalysis::MatrixOperands operands = fn.memory->matrixOperands(mma);
  ASSERT_TRUE(operands.decoded) << dump(fn);
  ASSERT_EQ(operands.operands.size(), 2u);
  EXPECT_TRUE(hasBytes(operands.operands[1], ObjectKind::DynamicShared, 4096, 4096 + 2048));
  EXPECT_EQ(operands.uncertainty, "");
}
