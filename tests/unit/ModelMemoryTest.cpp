// The memory analysis (model/Memory.h) over real nvcc output: memory objects,
// byte ranges of accesses and copies, alias results, and the bounded stage
// indices that keep a ring inside its bytes (issue 11). Inputs:
// Inputs/model_memory_{objects,stages,barriers,copies}.cu and
// Inputs/model_value_ranges.cu (strided headers, tensor-copy extents).
// Descriptors, loaded pointers and bar.red: ModelMemory{Descriptors,
// Pointers,BarRed}Test.cpp.
#include <gtest/gtest.h>

#include <algorithm>

#include "ModelInputs.h"
#include "ModelMemoryFacts.h"
#include "model/Memory.h"
#include "model/Values.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

namespace {

using ObjectKind = MemoryObject::Kind;

// model_memory_stages.cu: a ring of `stages` stages of 16384 bytes at the
// start of the dynamic buffer, full barriers at 65536 + 8*s, a bookkeeping
// word at 65600; the stage index's range is what keeps them apart.
constexpr int64_t kStage = 16384;
constexpr int64_t kBars = 65536;
constexpr int64_t kBook = 65600;

void expectRing(const FunctionModel& fn, int64_t stages) {
  const MemoryAnalysis& m = *fn.memory;
  const InstId copy = findOne(fn, "cp.async.bulk");
  const MemoryEffect& e = fn.instructions[copy].effect;
  const int64_t extent = m.copyExtent(copy);
  EXPECT_EQ(extent, kStage) << dump(fn);
  const std::string last = "[0, " + std::to_string(stages - 1) + "]";
  EXPECT_EQ(termRange(fn.values->operandValue(copy, e.destination), kStage), last)
      << "stage index: " << valueText(fn, copy, e.destination);
  EXPECT_TRUE(hasBytes(m.copyDestination(copy), ObjectKind::DynamicShared, 0, stages * kStage));
  EXPECT_TRUE(hasBytes(m.location(copy, e.mbarrier), ObjectKind::DynamicShared, kBars, kBars + 8 * stages));

  const InstId book = findOne(fn, "st.shared.u32");
  EXPECT_TRUE(hasBytes(m.location(book, addressOf(fn, book)), ObjectKind::DynamicShared, kBook, kBook + 4));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, copy, e.destination, extent, book, addressOf(fn, book), 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, m.copyDestination(copy), m.location(book, addressOf(fn, book))));

  // The stage read: [s*16384 + 4*tid, +4) for tid in [0, 1023].
  const InstId read = findOne(fn, "ld.shared.f32");
  EXPECT_TRUE(hasBytes(m.location(read, addressOf(fn, read)), ObjectKind::DynamicShared, 0,
                       (stages - 1) * kStage + 4 * 1024));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, copy, e.destination, extent, read, addressOf(fn, read), 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, read, addressOf(fn, read), 0, book, addressOf(fn, book), 0));

  // The wait polls the copy's completion barrier (the same s on one trip).
  const InstId wait = findOne(fn, "mbarrier.try_wait");
  EXPECT_TRUE(hasBytes(m.location(wait, addressOf(fn, wait)), ObjectKind::DynamicShared, kBars, kBars + 8 * stages));
  EXPECT_TRUE(aliasIs(fn, AliasResult::Must, copy, e.mbarrier, 0, wait, addressOf(fn, wait), 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, book, addressOf(fn, book), 0, wait, addressOf(fn, wait), 0));
  // (The phase bits: ModelValueRangesTest.cpp.)
}

}  // namespace

// ---- Memory objects ----

// Static shared arrays a and b, the dynamic buffer, globals g_count, g_flag
// and g_table[256], kernel parameters out and in.
TEST(ModelMemoryObjects, NamedObjects) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_objects");
  const auto& fn = p.fn("named_objects");
  const MemoryAnalysis& m = *fn.memory;
  const InstId storeA = findOne(fn, "st.shared.f32"), storeB = findOne(fn, "st.shared.u32", 0);
  const InstId storeDyn = findOne(fn, "st.shared.u32", 1);
  const InstId loadA = findOne(fn, "ld.shared.f32", 0), loadB0 = findOne(fn, "ld.shared.f32", 1);
  const InstId loadDyn0 = findOne(fn, "ld.shared.f32", 2);
  const InstId count = findOne(fn, "atom.global.add"), flag = findOne(fn, "atom.global.exch");
  const InstId storeTable = findOne(fn, "st.global.f32", 0), storeOut = findOne(fn, "st.global.f32", 1);
  const InstId loadIn = findOne(fn, "ld.global.f32", 0), loadTable0 = findOne(fn, "ld.global.f32", 1);

  EXPECT_TRUE(hasBytes(m.location(storeA, 0), ObjectKind::SharedSymbol, 0, 512));
  EXPECT_EQ(m.objectOf(storeA, 0).name, "_ZZ13named_objectsE1a");
  EXPECT_TRUE(hasBytes(m.location(storeB, 0), ObjectKind::SharedSymbol, 0, 512));
  EXPECT_TRUE(hasBytes(m.location(storeDyn, 0), ObjectKind::DynamicShared, 0, 4096));
  EXPECT_TRUE(hasBytes(m.location(loadB0, 1), ObjectKind::SharedSymbol, 0, 4));
  EXPECT_TRUE(hasBytes(m.location(count, 1), ObjectKind::GlobalSymbol, 0, 4));
  EXPECT_EQ(m.objectOf(count, 1).name, "g_count");
  EXPECT_EQ(m.space(count, 1), Space::Global);
  EXPECT_TRUE(hasBytes(m.location(storeTable, 0), ObjectKind::GlobalSymbol, 0, 1024));
  EXPECT_EQ(m.objectOf(storeOut, 0).kind, ObjectKind::Param);
  EXPECT_EQ(m.objectOf(storeOut, 0).name, "named_objects_param_0");
  EXPECT_EQ(m.space(storeOut, 0), Space::Global);

  // Different named variables never alias; the same one may.
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, storeA, 0, 0, storeB, 0, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, storeA, 0, 0, storeDyn, 0, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, count, 1, 0, flag, 1, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, storeA, 0, 0, loadA, 1, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, storeB, 0, 0, loadB0, 1, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, storeDyn, 0, 0, loadDyn0, 1, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, storeTable, 0, 0, loadTable0, 1, 0));
  // A kernel parameter points to global memory: maybe a global variable,
  // maybe another parameter's buffer, never shared memory.
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, storeTable, 0, 0, storeOut, 0, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, loadIn, 1, 0, storeOut, 0, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, storeA, 0, 0, storeOut, 0, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, storeDyn, 0, 0, loadIn, 1, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, storeA, 0, 0, storeTable, 0, 0));
}

// p = odd thread ? tile : out + 64 * ctaid: a generic store through p is to
// an unknown object, which may be either; the shared tile and the global
// output stay apart.
TEST(ModelMemoryObjects, GenericPointerToEither) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_objects");
  const auto& fn = p.fn("generic_either");
  const MemoryAnalysis& m = *fn.memory;
  const InstId either = findOne(fn, "st.f32"), tile = findOne(fn, "st.shared.u32");
  const InstId tileRead = findOne(fn, "ld.shared.f32"), out = findOne(fn, "st.global.f32");
  MemoryLocation loc = m.location(either, 0);
  EXPECT_EQ(loc.object.kind, ObjectKind::Unknown) << loc.toString() << " " << valueText(fn, either, 0);
  EXPECT_EQ(loc.space, Space::Generic);
  EXPECT_FALSE(m.objectOf(either, 0).known());
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, either, 0, 0, tile, 0, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, either, 0, 0, out, 0, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, tileRead, 1, 0, out, 0, 0));
}

// Widths: st.shared.v4.f32 16, st.shared.u8 1, mbarrier 8, ldmatrix 16 per
// row address; byte ranges widen by them.
TEST(ModelMemoryObjects, AccessSizes) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_objects");
  const auto& fn = p.fn("access_sizes");
  const MemoryAnalysis& m = *fn.memory;
  const InstId vec = findOne(fn, "st.shared.v4.f32"), byte = findOne(fn, "st.shared.u8");
  const InstId init = findOne(fn, "mbarrier.init"), matrix = findOne(fn, "ldmatrix");
  EXPECT_EQ(m.accessSize(vec, 0), 16);
  EXPECT_EQ(m.accessSize(byte, 0), 1);
  EXPECT_EQ(m.accessSize(init, addressOf(fn, init)), 8);
  EXPECT_EQ(m.accessSize(matrix, addressOf(fn, matrix)), 16);
  EXPECT_TRUE(hasBytes(m.location(vec, 0), ObjectKind::SharedSymbol, 0, 256));  // vec[tid & 15]
  EXPECT_TRUE(hasBytes(m.location(byte, 0), ObjectKind::SharedSymbol, 0, 64));
  EXPECT_TRUE(hasBytes(m.location(init, addressOf(fn, init)), ObjectKind::SharedSymbol, 0, 8));
  EXPECT_TRUE(hasBytes(m.location(matrix, addressOf(fn, matrix)), ObjectKind::SharedSymbol, 0, 128));  // 8 rows x 16
  // An explicit size overrides the access's own: 4 bytes of the vector slot.
  EXPECT_TRUE(hasBytes(m.location(vec, 0, 4), ObjectKind::SharedSymbol, 0, 244));
  // The ldmatrix rows and the u32 stores into them (rows[2 * (tid & 31)]).
  const InstId rowStore = findOne(fn, "st.shared.u32");
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, matrix, addressOf(fn, matrix), 0, rowStore, 0, 0));
}

// ---- Bounded stage indices: the ring stays in [0, N * STAGE) ----

TEST(ModelMemoryStages, WrapCounterBoundsTheRing) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_stages");
  expectRing(p.fn("stage_wrap"), 4);  // s = s + 1 == 4 ? 0 : s + 1
}

TEST(ModelMemoryStages, ModuloAndMaskBoundTheRing) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_stages");
  for (const char* kernel : {"stage_modulo", "stage_mask"}) {  // k % 4 (as `and 3`), k & 3
    SCOPED_TRACE(kernel);
    expectRing(p.fn(kernel), 4);
  }
}

TEST(ModelMemoryStages, SelpWrapBoundsThreeStages) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_stages");
  expectRing(p.fn("stage_selp"), 3);  // setp.gt s, 1; selp 0, s + 1: s in [0, 2]
}

TEST(ModelMemoryStages, UnsignedModThreeBoundsThreeStages) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_stages");
  const auto& fn = p.fn("stage_unsigned_mod3");  // k - 3 * (k * 0xAAAAAAAB >> 33), k a .u32 counter
  const InstId copy = findOne(fn, "cp.async.bulk");
  FENCELINE_MODEL_GAP_IF(!fn.values->operandValue(copy, 0).offsetRange(),
                         "stage_unsigned_mod3: k % 3u (mul.wide.u32 0xAAAAAAAB; shr.u64 33; mul.lo 3; sub) of the "
                         "unbounded .u32 loop counter k is not bounded to [0, 2]: "
                             << valueText(fn, copy, 0));
  expectRing(fn, 3);
}

TEST(ModelMemoryStages, InlinedCalleeSeesTheCallersBound) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_stages");
  expectRing(p.fn("stage_noinline"), 4);  // the ld.shared is read_stage's, inlined; s = k & 3 passed by st.param
  const auto& fn = p.fn("stage_noinline");
  const InstId read = findOne(fn, "ld.shared.f32");
  EXPECT_EQ(fn.instructions[read].inlineDepth, 1);

  // The .func on its own: s is its parameter, unbounded; still the dynamic buffer.
  const auto& callee = p.fn("_Z10read_stagePKhi");
  const InstId alone = findOne(callee, "ld.shared.f32");
  MemoryLocation loc = callee.memory->location(alone, addressOf(callee, alone));
  EXPECT_EQ(loc.object.kind, ObjectKind::DynamicShared) << loc.toString();
  EXPECT_FALSE(loc.bytes.has_value()) << loc.toString();
}

TEST(ModelMemoryStages, StageFromMemoryIsUnbounded) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_stages");
  const auto& fn = p.fn("stage_from_memory");
  const MemoryAnalysis& m = *fn.memory;
  const InstId copy = findOne(fn, "cp.async.bulk"), book = findOne(fn, "st.shared.u32");
  const InstId read = findOne(fn, "ld.shared.f32");
  MemoryLocation destination = m.copyDestination(copy);
  EXPECT_EQ(destination.object.kind, ObjectKind::DynamicShared) << destination.toString();
  EXPECT_FALSE(destination.bytes.has_value()) << destination.toString();
  EXPECT_EQ(m.copyExtent(copy), kStage);
  const int dst = fn.instructions[copy].effect.destination;
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, copy, dst, kStage, book, addressOf(fn, book), 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, read, addressOf(fn, read), 0, book, addressOf(fn, book), 0));
  // The barrier is fixed (smem + 65536): the copy's and the wait's are one word.
  const InstId wait = findOne(fn, "mbarrier.try_wait");
  const int mbarrier = fn.instructions[copy].effect.mbarrier;
  EXPECT_TRUE(aliasIs(fn, AliasResult::Must, copy, mbarrier, 0, wait, addressOf(fn, wait), 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, book, addressOf(fn, book), 0, wait, addressOf(fn, wait), 0));
}

// Stages of [8192-byte tile | 256-byte header], stride 8448: the intervals of
// the copy ([0, 33536)) and of the headers ([8192, 33792)) overlap, but no
// header word is inside any tile. A word written inside a tile is.
TEST(ModelMemoryStages, StridedHeadersAreOutsideEveryTile) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("strided_headers");
  const MemoryAnalysis& m = *fn.memory;
  const InstId copy = findOne(fn, "cp.async.bulk");
  const int dst = fn.instructions[copy].effect.destination;
  ASSERT_EQ(m.copyExtent(copy), 8192) << dump(fn);
  EXPECT_TRUE(hasBytes(m.copyDestination(copy), ObjectKind::DynamicShared, 0, 3 * 8448 + 8192));
  const InstId header = findOne(fn, "st.shared.f32"), inTile = findOne(fn, "st.shared.u32");
  // 64 threads (.maxntid 64): header words [8448*s + 8192, + 256).
  EXPECT_TRUE(hasBytes(m.location(header, 0), ObjectKind::DynamicShared, 8192, 3 * 8448 + 8192 + 256));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, copy, dst, 8192, header, 0, 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, copy, dst, 8192, inTile, 0, 0));
  // The interval view alone cannot tell (it is the exact start offsets that do).
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, m.copyDestination(copy), m.location(header, 0)));
}

// ---- Barriers of several rings in one array ----

// bars[q] (outer ring, q = o & 1), bars[2 + s] full / bars[6 + s] empty
// (inner ring, s = step & 3): the outer release is its wait's word and apart
// from every inner barrier.
TEST(ModelMemoryBarriers, RingsInOneArray) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_barriers");
  const auto& fn = p.fn("barrier_rings");
  const MemoryAnalysis& m = *fn.memory;
  const InstId outerWait = findOne(fn, "mbarrier.try_wait", 0), innerWait = findOne(fn, "mbarrier.try_wait", 1);
  const InstId innerArrive = findOne(fn, "mbarrier.arrive", 0), outerRelease = findOne(fn, "mbarrier.arrive", 1);
  using K = ObjectKind;
  EXPECT_TRUE(hasBytes(m.location(outerWait, addressOf(fn, outerWait)), K::SharedSymbol, 0, 16));
  EXPECT_TRUE(hasBytes(m.location(innerWait, addressOf(fn, innerWait)), K::SharedSymbol, 16, 48));
  EXPECT_TRUE(hasBytes(m.location(innerArrive, addressOf(fn, innerArrive)), K::SharedSymbol, 48, 80));
  EXPECT_TRUE(hasBytes(m.location(outerRelease, addressOf(fn, outerRelease)), K::SharedSymbol, 0, 16));
  auto op = [&](InstId i) { return addressOf(fn, i); };
  EXPECT_TRUE(m.sameWord(outerWait, outerRelease));
  EXPECT_TRUE(aliasIs(fn, AliasResult::Must, outerWait, op(outerWait), 0, outerRelease, op(outerRelease), 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, outerRelease, op(outerRelease), 0, innerArrive, op(innerArrive), 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, outerRelease, op(outerRelease), 0, innerWait, op(innerWait), 0));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, innerWait, op(innerWait), 0, innerArrive, op(innerArrive), 0));
  EXPECT_FALSE(m.sameWord(innerWait, innerArrive));
  for (InstId wait : {outerWait, innerWait})
    EXPECT_EQ(rangeText(fn.values->operandValue(wait, 2)), "[0, 1]") << valueText(fn, wait, 2);
}

// ---- Copy extents ----

TEST(ModelMemoryCopies, TensorCopyExtentIsTheExpectTxCount) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("tensor_expect_tx");
  const MemoryAnalysis& m = *fn.memory;
  const InstId copy = findOne(fn, "cp.async.bulk.tensor");
  EXPECT_EQ(m.accessSize(copy, fn.instructions[copy].effect.destination), -1);  // the box lives in the tensor map
  EXPECT_EQ(m.copyExtent(copy), 16384) << dump(fn);
  // dst = smem + ((k << 14) & 49152): [0, 49152] + 16384 bytes.
  EXPECT_TRUE(hasBytes(m.copyDestination(copy), ObjectKind::DynamicShared, 0, 65536));
  const InstId book = findOne(fn, "st.shared.u32");
  EXPECT_TRUE(hasBytes(m.location(book, 0), ObjectKind::DynamicShared, 65600, 65604));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, m.copyDestination(copy), m.location(book, 0)));
  // The completion barrier is the one expect_tx announced on (same register).
  const InstId arrive = findOne(fn, "mbarrier.arrive.expect_tx");
  EXPECT_TRUE(aliasIs(fn, AliasResult::Must, arrive, addressOf(fn, arrive), 0, copy,
                      fn.instructions[copy].effect.mbarrier, 0));
  EXPECT_TRUE(hasBytes(m.location(arrive, addressOf(fn, arrive)), ObjectKind::DynamicShared, 65536, 65536 + 32));
  // The source is the tensor map: not shared memory.
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, m.copySource(copy), m.location(book, 0)));
}

TEST(ModelMemoryCopies, BulkCopyExtentIsItsSizeOperand) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_stages");
  const auto& fn = p.fn("stage_mask");
  const InstId copy = findOne(fn, "cp.async.bulk");
  EXPECT_EQ(fn.memory->copyExtent(copy), kStage);
  EXPECT_EQ(fn.memory->accessSize(copy, fn.instructions[copy].effect.destination), kStage);
  EXPECT_EQ(fn.memory->accessSize(copy, fn.instructions[copy].effect.mbarrier), 8);
  // The global source: a parameter's memory, never the shared ring.
  MemoryLocation source = fn.memory->copySource(copy);
  EXPECT_EQ(source.object.kind, ObjectKind::Param) << source.toString();
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, source, fn.memory->copyDestination(copy)));
}

// Buffer: data [0, 8192), barrier at 8192, flag word at 8200.
TEST(ModelMemoryCopies, BulkSizesBoundedUnknownAndStores) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_copies");
  const auto& fn = p.fn("bulk_sizes");
  const MemoryAnalysis& m = *fn.memory;
  const InstId clamped = findOne(fn, "cp.async.bulk.shared::cluster", 0);
  const InstId unbounded = findOne(fn, "cp.async.bulk.shared::cluster", 1);
  const InstId bulkStore = findOne(fn, "cp.async.bulk.global.shared");
  const InstId flag = findOne(fn, "st.shared.u32");
  // min(n, 2048u) * 4: at most 8192 bytes.
  EXPECT_EQ(m.copyExtent(clamped), 8192);
  EXPECT_TRUE(hasBytes(m.copyDestination(clamped), ObjectKind::DynamicShared, 0, 8192));
  EXPECT_TRUE(hasBytes(m.location(clamped, fn.instructions[clamped].effect.mbarrier), ObjectKind::DynamicShared, 8192,
                       8200));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, m.copyDestination(clamped), m.location(flag, 0)));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, m.copyDestination(clamped),
                      m.location(clamped, fn.instructions[clamped].effect.mbarrier)));
  // n * 4: unknown; the copy may reach every byte from its start on.
  EXPECT_EQ(m.copyExtent(unbounded), -1);
  MemoryLocation anywhere = m.copyDestination(unbounded);
  ASSERT_TRUE(anywhere.bytes.has_value()) << anywhere.toString();
  EXPECT_EQ(anywhere.bytes->begin, 0);
  EXPECT_TRUE(aliasIs(fn, AliasResult::May, anywhere, m.location(flag, 0)));
  // The bulk store reads [0, 4096) of shared memory and writes out's memory.
  EXPECT_EQ(m.copyExtent(bulkStore), 4096);
  EXPECT_TRUE(hasBytes(m.copySource(bulkStore), ObjectKind::DynamicShared, 0, 4096));
  EXPECT_EQ(m.copyDestination(bulkStore).object.toString(), "param:bulk_sizes_param_1");
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, m.copySource(bulkStore), m.location(flag, 0)));
  // Must is "the same start address" (Memory.h), whatever the two extents.
  EXPECT_TRUE(aliasIs(fn, AliasResult::Must, m.copySource(bulkStore), m.copyDestination(clamped)));
}

// expect_tx 16384 on the barrier at 32768; a runtime count on the one at
// 32776, for a copy through the same tensor map 16384 bytes further on.
TEST(ModelMemoryCopies, TensorCopyExtentsFromTheirOwnBarrier) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_copies");
  const auto& fn = p.fn("tensor_counts");
  const MemoryAnalysis& m = *fn.memory;
  const InstId known = findOne(fn, "cp.async.bulk.tensor", 0), runtime = findOne(fn, "cp.async.bulk.tensor", 1);
  EXPECT_EQ(m.copyExtent(known), 16384);
  EXPECT_TRUE(hasBytes(m.copyDestination(known), ObjectKind::DynamicShared, 0, 16384));
  EXPECT_EQ(m.copyExtent(runtime), -1);
  MemoryLocation from16k = m.copyDestination(runtime);
  ASSERT_TRUE(from16k.bytes.has_value()) << from16k.toString();
  EXPECT_EQ(from16k.bytes->begin, 16384);
  // The first copy ends where the second starts.
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, m.copyDestination(known), from16k));
  // The runtime count bounds nothing, but the copy goes through the first
  // copy's tensor map (one box) at a constant 16384 bytes from it: the two do
  // not overlap, so it ends by 32768 (Memory's unrolledRingGap), before the
  // barrier there.
  EXPECT_EQ(from16k.bytes->end, 32768) << from16k.toString();
  const InstId knownBar = findOne(fn, "mbarrier.arrive.expect_tx", 0);
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, from16k, m.location(knownBar, addressOf(fn, knownBar))));
}

// A and B tiles of one stage complete on one barrier (expect_tx 16384 for
// both). nvcc computes the stage offset as (k << 13) & 24576: the stages are
// 8192 apart, so each copy writes one 8192-byte stage of its ring and A's
// ring [0, 32768) is apart from B's [32768, 65536).
TEST(ModelMemoryCopies, TensorPairOnOneBarrierStaysInItsRing) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_copies");
  const auto& fn = p.fn("tensor_pair");
  const MemoryAnalysis& m = *fn.memory;
  const InstId a = findOne(fn, "cp.async.bulk.tensor", 0), b = findOne(fn, "cp.async.bulk.tensor", 1);
  EXPECT_EQ(m.copyExtent(a), 16384);  // the barrier's count, for both copies together
  MemoryLocation ringA = m.copyDestination(a), ringB = m.copyDestination(b);
  FENCELINE_MODEL_GAP_IF(ringA.bytes && ringA.bytes->end > 32768,
                         "tensor_pair: the stage offset (k << 13) & 24576 (shl.b32 13; and.b32 24576) is a term "
                         "[0, 24576] with coefficient 1: its stride 8192 is lost, so ringStride gives nothing and the "
                         "A copy keeps the barrier's 16384 bytes: A "
                             << ringA.toString() << " overlaps B " << ringB.toString()
                             << "; expected A [0, 32768), B [32768, 65536), NoAlias (value: "
                             << valueText(fn, a, fn.instructions[a].effect.destination) << ")");
  EXPECT_TRUE(hasBytes(ringA, ObjectKind::DynamicShared, 0, 32768));
  EXPECT_TRUE(hasBytes(ringB, ObjectKind::DynamicShared, 32768, 65536));
  EXPECT_TRUE(aliasIs(fn, AliasResult::No, ringA, ringB));
}
