// Matrix descriptors in the memory analysis (model/Memory.h) over real nvcc
// output (Inputs/model_memory_{descriptors,matrix}.cu): the wgmma operands'
// shared memory decoded from the descriptors' start-address field (bits
// 0-13 = address >> 4), for the forms CUTLASS-style code and nvcc produce.
#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "ModelMemoryFacts.h"
#include "model/MatrixDescriptors.h"
#include "model/Memory.h"
#include "model/Values.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

using ObjectKind = MemoryObject::Kind;

// A ring [0, 24576), B ring [24576, 49152), scales [49152, 49664). An operand
// tile's extent is bounded by rows * 128 bytes (the widest swizzle), not read
// from the LBO / SBO fields: A (64 rows) and B (n64: 64 rows) each start at
// their stage and end no later than their ring.
TEST(ModelMemoryDescriptors, UnionDescriptorsOfAStage) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_descriptors");
  const auto& fn = p.fn("desc_union_stage");
  const MemoryAnalysis& m = *fn.memory;
  const InstId scaleStore = findOne(fn, "st.shared.f32"), scaleLoad = findOne(fn, "ld.shared.f32");
  EXPECT_TRUE(hasBytes(m.location(scaleStore, 0), ObjectKind::DynamicShared, 49152, 49152 + 512));
  EXPECT_TRUE(hasBytes(m.location(scaleLoad, 1), ObjectKind::DynamicShared, 49152, 49152 + 512));
  const InstId mma = findOne(fn, "wgmma.mma_async");
  MemoryAnalysis::MatrixOperands operands = m.matrixOperands(mma);
  ASSERT_TRUE(operands.decoded) << dump(fn);
  ASSERT_EQ(operands.operands.size(), 2u);
  const MemoryLocation &a = operands.operands[0], &b = operands.operands[1];
  EXPECT_EQ(a.object.kind, ObjectKind::DynamicShared) << a.toString();
  EXPECT_EQ(b.object.kind, ObjectKind::DynamicShared) << b.toString();
  // addr = smem - 24576 * (k / 3) + 8192 * k (strength-reduced smem + 8192 * (k % 3)): nvcc folds
  // the base into `mad.lo.s32 t, q, -24576, smem` and adds the 8192 * k counter (Values'
  // lockstepMadRemainder; a model gap until session 9).
  ASSERT_TRUE(a.bytes && b.bytes) << "A " << a.toString() << ", B " << b.toString() << dump(fn);
  EXPECT_TRUE(startsAtWithin(a, ObjectKind::DynamicShared, 0, 2 * 8192 + 2048, 24576));
  EXPECT_TRUE(startsAtWithin(b, ObjectKind::DynamicShared, 24576, 24576 + 2 * 8192 + 2048, 49152));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, a, m.location(scaleStore, 0)));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, b, m.location(scaleStore, 0)));
}

// ((smem & 0x3FFF0) >> 4) | layout, advanced by 128 (2048 bytes >> 4) per k16
// slice with add.s64 on the 64-bit descriptor: slice j of A starts at 2048*j,
// of B at 24576 + 2048*j.
TEST(ModelMemoryDescriptors, MaskDescriptorsAdvancedBySlices) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_descriptors");
  const auto& fn = p.fn("desc_mask_slices");
  auto mmas = find(fn, "wgmma.mma_async");
  ASSERT_EQ(mmas.size(), 4u) << dump(fn);
  for (int j = 0; j < 4; ++j) {
    SCOPED_TRACE("slice " + std::to_string(j));
    MemoryAnalysis::MatrixOperands operands = fn.memory->matrixOperands(mmas[j]);
    ASSERT_TRUE(operands.decoded);
    ASSERT_EQ(operands.operands.size(), 2u);
    EXPECT_TRUE(startsAtWithin(operands.operands[0], ObjectKind::DynamicShared, 2048 * j, 2048 * j + 2048,
                               2048 * j + 64 * 128));
    EXPECT_TRUE(startsAtWithin(operands.operands[1], ObjectKind::DynamicShared, 24576 + 2048 * j,
                               24576 + 2048 * j + 2048, 24576 + 2048 * j + 64 * 128));
    EXPECT_TRUE(aliasIs(fn, AliasResult::No, operands.operands[0], operands.operands[1]));
  }
}

// Operands in static arrays: A's descriptor as (a >> 4) & 0x3FFF | layout,
// B's assembled from 32-bit halves (mov.b64 %rd, {lo, hi}) at a runtime
// k-slice offset in [0, 1024].
TEST(ModelMemoryDescriptors, StaticTilesAndHalves) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_matrix");
  const auto& fn = p.fn("desc_static_tiles");
  const MemoryAnalysis& m = *fn.memory;
  MemoryAnalysis::MatrixOperands operands = m.matrixOperands(findOne(fn, "wgmma.mma_async"));
  ASSERT_TRUE(operands.decoded) << dump(fn);
  ASSERT_EQ(operands.operands.size(), 2u);
  const MemoryLocation &a = operands.operands[0], &b = operands.operands[1];
  EXPECT_TRUE(startsAtWithin(a, ObjectKind::SharedSymbol, 0, 2048, 64 * 128));
  EXPECT_EQ(a.object.name, "_ZZ17desc_static_tilesE1A");
  EXPECT_TRUE(startsAtWithin(b, ObjectKind::SharedSymbol, 0, 1024 + 2048, 1024 + 64 * 128));
  EXPECT_EQ(b.object.name, "_ZZ17desc_static_tilesE1B");
  const InstId other = findOne(fn, "st.shared.f32"), intoB = findOne(fn, "st.shared.u16");
  EXPECT_TRUE(hasBytes(m.location(intoB, 0), ObjectKind::SharedSymbol, 0, 128));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, a, m.location(other, 0)));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, b, m.location(other, 0)));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, a, m.location(intoB, 0)));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, b, m.location(intoB, 0)));
}

TEST(ModelMemoryDescriptors, DescriptorFromMemoryIsNotDecoded) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_descriptors");
  const auto& fn = p.fn("desc_from_memory");
  MemoryAnalysis::MatrixOperands operands = fn.memory->matrixOperands(findOne(fn, "wgmma.mma_async"));
  EXPECT_FALSE(operands.decoded);
  EXPECT_TRUE(operands.operands.empty());
  EXPECT_EQ(operands.uncertainty, "the shared-memory descriptor of operand A could not be decoded to a shared address");
}

// No swizzle, 8-row groups contiguous (SBO 128), k core matrices 1024 bytes
// apart (LBO 1024): the m64k16 bf16 operand spans [0, 2048), more than
// 8 groups * SBO = 1024; the store into bytes [1536, 1664) is read by it.
TEST(ModelMemoryDescriptors, LeadingOffsetWiderThanTheGroups) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_matrix");
  const auto& fn = p.fn("desc_leading_offset");
  const MemoryAnalysis& m = *fn.memory;
  MemoryAnalysis::MatrixOperands operands = m.matrixOperands(findOne(fn, "wgmma.mma_async"));
  ASSERT_TRUE(operands.decoded) << dump(fn);
  ASSERT_EQ(operands.operands.size(), 2u);
  const MemoryLocation& a = operands.operands[0];
  const InstId store = findOne(fn, "st.shared.u16");
  EXPECT_TRUE(hasBytes(m.location(store, 0), ObjectKind::SharedSymbol, 1536, 1664));
  FENCELINE_MODEL_GAP_IF(a.bytes && a.bytes->end <= 1536,
                         "desc_leading_offset: A operand (LBO 1024, SBO 128, no swizzle, m64k16 bf16) is "
                             << a.toString()
                             << ": tileSpan takes rows / 8 * SBO = 1024 bytes, but the second k core matrix lies "
                                "LBO = 1024 bytes further (extent 1024 + 1024 = 2048); NoAlias with the store into "
                                "bytes [1536, 1664) is UNSOUND");
  EXPECT_TRUE(startsAtWithin(a, ObjectKind::SharedSymbol, 0, 2048, 64 * 128));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, a, m.location(store, 0)));
}

// MN-major (transposed) operands: the span comes from the MN-major layout,
// atoms of 8 K rows of the swizzle width, LBO along N, SBO along K.
TEST(ModelMemoryDescriptors, MnMajorOperandSpansItsAtoms) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_matrix");
  for (const char* name : {"desc_mn_major_sw128", "desc_mn_major_sw64"}) {
    SCOPED_TRACE(name);
    const auto& fn = p.fn(name);
    const MemoryAnalysis& m = *fn.memory;
    const InstId mma = findOne(fn, "wgmma.mma_async");
    const MatrixRows rows = matrixRows(fn, mma);
    EXPECT_EQ(rows.majorA, OperandMajor::K);
    EXPECT_EQ(rows.majorB, OperandMajor::MN);
    EXPECT_EQ(rows.elementBytes, 2);
    MemoryAnalysis::MatrixOperands operands = m.matrixOperands(mma);
    ASSERT_TRUE(operands.decoded) << dump(fn);
    ASSERT_EQ(operands.operands.size(), 2u);
    const MemoryLocation& b = operands.operands[1];
    EXPECT_TRUE(hasBytes(b, ObjectKind::SharedSymbol, 0, 2048)) << b.toString();
    const std::vector<InstId> stores = find(fn, "st.shared.u16");
    ASSERT_EQ(stores.size(), 2u);
    EXPECT_TRUE(aliasIs(fn, AliasResult::May, b, m.location(stores[0], 0)));
    EXPECT_TRUE(aliasIs(fn, AliasResult::No, b, m.location(stores[1], 0)));
  }
}
