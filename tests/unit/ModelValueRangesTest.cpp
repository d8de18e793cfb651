// Ranges of index values in the value analysis (model/Values.h) over real
// nvcc output (Inputs/model_value_ranges.cu): remainders by constants,
// loop-carried stage indices and phases, declared block sizes and shuffled
// warp ids. Each kernel stores to a static shared array `slot` at the index
// under test, so the store's offset range is 4 * the index's range.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "ModelInputs.h"
#include "ModelMemoryFacts.h"
#include "model/Memory.h"
#include "model/Values.h"

using namespace fenceline;
using namespace fenceline::model;
using namespace fenceline::testing;

namespace {

// The offset range of the nth shared store (`store` names its width) into
// the kernel's `slot` (or `bytes`) array.
std::string slotOffsets(const FunctionModel& fn, size_t nth, std::string_view store = "st.shared.u32") {
  AbstractValue v = fn.values->operandValue(findOne(fn, store, nth), 0);
  if (v.baseKind != AbstractValue::BaseKind::SharedSymbol || !(v.base.ends_with("slot") || v.base.ends_with("bytes")))
    return "not the slot array: " + v.toString();
  return rangeText(v);
}

std::string storeValue(const FunctionModel& fn, size_t nth, std::string_view store = "st.shared.u32") {
  return valueText(fn, findOne(fn, store, nth), 0) + "\n" + dump(fn);
}

}  // namespace

// ---- Remainders by constants ----

// x % 3u for any unsigned x: x - 3 * (x * 0xAAAAAAAB >> 33) is in [0, 2]
// (the magic multiplier is exact for every 32-bit x).
TEST(ModelValueRanges, UnsignedRemainderOfAnyValue) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("rem_unsigned_loaded");
  FENCELINE_MODEL_GAP_IF(slotOffsets(fn, 0) == "unbounded",
                         "rem_unsigned_loaded: x % 3u of a loaded .u32 x (mul.wide.u32 x, 0xAAAAAAAB; shr.u64 33; "
                         "cvt.u32.u64; mul.lo 3; sub.s32) is unbounded: remainderBound requires a known range of x, "
                         "but every .u32 value is in [0, 2^32), where the multiplier is exact; expected [0, 8] bytes: "
                             << valueText(fn, findOne(fn, "st.shared.u32"), 0));
  EXPECT_EQ(slotOffsets(fn, 0), "[0, 8]") << storeValue(fn, 0);
}

// x % 32 of a signed x of unknown sign is in [-31, 31]; stored at byte
// 32 + r: offsets [1, 63]. nvcc: x - ((x + (x >> 31 >>> 27)) & -32).
TEST(ModelValueRanges, SignedRemainderOfAnyValue) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("rem_signed_loaded");
  EXPECT_EQ(slotOffsets(fn, 0, "st.shared.u8"), "[1, 63]") << storeValue(fn, 0, "st.shared.u8");
}

// A signed counter k >= 0: nvcc emits k % 32 as `and 124` of 4k and k % 3 as
// the unsigned magic multiply: [0, 31] and [0, 2].
TEST(ModelValueRanges, RemaindersOfANonNegativeCounter) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("rem_signed_counter");
  EXPECT_EQ(slotOffsets(fn, 0), "[0, 124]") << storeValue(fn, 0);
  FENCELINE_MODEL_GAP_IF(slotOffsets(fn, 1) == "unbounded",
                         "rem_signed_counter: k % 3 of the loop counter k (k = 0, k += 1, nvcc proves k >= 0 and "
                         "emits mul.wide.u32 k, 0xAAAAAAAB; shr.u64 33; mul.lo 3; sub) is unbounded; expected slot "
                         "offsets [128, 136]: "
                             << valueText(fn, findOne(fn, "st.shared.u32", 1), 0));
  EXPECT_EQ(slotOffsets(fn, 1), "[128, 136]") << storeValue(fn, 1);
}

// ---- Loop-carried stage indices and phases ----

// Triton's `s = (s + 1) % 3`: nvcc's signed magic (mul.hi.s32 0x55555556,
// plus the sign bit) of s + 1, with s the loop-carried value: [0, 2].
TEST(ModelValueRanges, PlusOneModuloStage) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("stage_plus_one_mod");
  FENCELINE_MODEL_GAP_IF(slotOffsets(fn, 0) == "unbounded",
                         "stage_plus_one_mod: s = (s + 1) % 3 as nvcc emits it for int s (add 1; mul.hi.s32 "
                         "0x55555556; shr.u32 31; add; mul.lo 3; sub) is not bounded to [0, 2]: isQuotient knows "
                         "only div.u32, mul.wide.u32 / mul.hi.u32 + shr, not the signed mul.hi.s32 + sign-bit form; "
                         "expected slot offsets [0, 8]: "
                             << valueText(fn, findOne(fn, "st.shared.u32"), 0));
  EXPECT_EQ(slotOffsets(fn, 0), "[0, 8]") << storeValue(fn, 0);
}

// `if (++s == 5) { s = 0; phase ^= 1; }`: selp 0 / s + 1 and xor with a selp
// of 1 / 0: s in [0, 4], phase in [0, 1].
TEST(ModelValueRanges, WrapAndPhaseFlip) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("stage_wrap_phase");
  EXPECT_EQ(slotOffsets(fn, 0), "[0, 16]") << storeValue(fn, 0);
  EXPECT_EQ(slotOffsets(fn, 1), "[128, 132]") << storeValue(fn, 1);
}

// CUTLASS's PipelineState::advance: index [0, 3], phase [0, 1].
TEST(ModelValueRanges, PipelineStateIndexAndPhase) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("pipeline_state");
  EXPECT_EQ(slotOffsets(fn, 0), "[0, 12]") << storeValue(fn, 0);
  EXPECT_EQ(slotOffsets(fn, 1), "[128, 132]") << storeValue(fn, 1);
}

// A stage that advances on some trips only: selp(skip, s, selp(s > 1, 0, s + 1)).
TEST(ModelValueRanges, ConditionalAdvance) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("conditional_advance");
  EXPECT_EQ(slotOffsets(fn, 0), "[0, 8]") << storeValue(fn, 0);
}

// A wrap with a side effect keeps nvcc's branch: `add s, 1; setp.ne s, 3;
// @p bra keep; st.global; mov s, 0; keep:`. Only s + 1 != 3 leaves the
// block unchanged (the other edge sets s = 0): s in [0, 2].
TEST(ModelValueRanges, BranchGuardedWrap) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("branch_wrap");
  EXPECT_EQ(slotOffsets(fn, 0), "[0, 8]") << storeValue(fn, 0);
}

// s = s == 0 ? 3 : s - 1, starting at 3: [0, 3].
TEST(ModelValueRanges, CountDownStage) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("stage_count_down");
  FENCELINE_MODEL_GAP_IF(slotOffsets(fn, 0) == "unbounded",
                         "stage_count_down: s = s == 0 ? 3 : s - 1 from 3 (add -1; setp.eq s, 0; selp.b32 s, 3, "
                         "s - 1) is unbounded: boundLoopCounter widens the upper end to the next setp constant at or "
                         "above 3 and finds none (constants {-1..2}), though the upper end does not move; expected "
                         "[0, 3]: "
                             << valueText(fn, findOne(fn, "st.shared.u32"), 0));
  EXPECT_EQ(slotOffsets(fn, 0), "[0, 12]") << storeValue(fn, 0);
}

// The stage kernels of model_memory_stages.cu, at the index itself.
TEST(ModelValueRanges, StageIndicesOfTheRingKernels) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_stages");
  const std::pair<const char*, const char*> kernels[] = {
      {"stage_wrap", "[0, 3]"}, {"stage_modulo", "[0, 3]"}, {"stage_mask", "[0, 3]"}, {"stage_selp", "[0, 2]"},
      {"stage_noinline", "[0, 3]"}};
  for (auto [kernel, range] : kernels) {
    const auto& fn = p.fn(kernel);
    const InstId copy = findOne(fn, "cp.async.bulk");
    // The copy's destination is smem + 16384 * s.
    EXPECT_EQ(termRange(fn.values->operandValue(copy, 0), 16384), range) << kernel << ": " << valueText(fn, copy, 0);
  }
  const auto& fromMemory = p.fn("stage_from_memory");
  const InstId copy = findOne(fromMemory, "cp.async.bulk");
  EXPECT_EQ(rangeText(fromMemory.values->operandValue(copy, 0)), "unbounded") << valueText(fromMemory, copy, 0);
}

// ---- Phase bits ----

// The phase bits of the ring kernels at their mbarrier.try_wait: [0, 1].
TEST(ModelValueRanges, PhasesOfTheRingKernels) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_stages");
  // (k / 4) & 1, (k >> 2) & 1, (k * 0xAAAAAAAB >> 33) & 1, k & 1.
  for (const char* kernel : {"stage_modulo", "stage_mask", "stage_selp", "stage_noinline", "stage_from_memory"}) {
    const auto& fn = p.fn(kernel);
    const InstId wait = findOne(fn, "mbarrier.try_wait");
    EXPECT_EQ(rangeText(fn.values->operandValue(wait, 2)), "[0, 1]") << kernel << ": " << valueText(fn, wait, 2);
  }
}

// stage_wrap's `phase ^= s == 0` (xor of the loop-carried phase with a selp
// 1 / 0) is read only by the wait: [0, 1], never the constant 0.
TEST(ModelValueRanges, PhaseOfStageWrapReadOnlyByTheWait) {
  FENCELINE_LOAD_PROGRAM(p, "model_memory_stages");
  const auto& fn = p.fn("stage_wrap");
  const InstId wait = findOne(fn, "mbarrier.try_wait");
  FENCELINE_MODEL_GAP_IF(rangeText(fn.values->operandValue(wait, 2)) == "[0, 0]",
                         "stage_wrap: the phase (xor.b32 %r35, %r35, %r32, read only by mbarrier.try_wait.parity) "
                         "is the constant "
                             << fn.values->operandValue(wait, 2).toString()
                             << " (UNSOUND): joinOf(phase) is entered from the xor's own evaluation, and the "
                                "verification round reads the xor as the hypothesis [0, 0] itself; expected [0, 1]");
  EXPECT_EQ(rangeText(fn.values->operandValue(wait, 2)), "[0, 1]") << valueText(fn, wait, 2);
}

// The same xor, when a shl reads the phase before the update (slot[32 + phase]).
TEST(ModelValueRanges, PhaseReadBeforeItsUpdate) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  EXPECT_EQ(slotOffsets(p.fn("stage_wrap_phase"), 1), "[128, 132]") << storeValue(p.fn("stage_wrap_phase"), 1);
}

// ---- Declared block sizes and warp ids ----

// __launch_bounds__(64) -> .maxntid 64: %tid.x in [0, 63].
TEST(ModelValueRanges, DeclaredBlockBoundsTheThreadIndex) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("declared_block");
  EXPECT_EQ(slotOffsets(fn, 0), "[0, 252]") << storeValue(fn, 0);
  const InstId read = findOne(fn, "ld.shared.u32");
  EXPECT_EQ(rangeText(fn.values->operandValue(read, 1)), "[0, 252]") << valueText(fn, read, 1);
}

// __block_size__((128, 2, 1)) -> .reqntid 128, 2, 1: tid.x in [0, 127], tid.y in [0, 1].
TEST(ModelValueRanges, RequiredBlockBoundsEachAxis) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("required_block");
  EXPECT_EQ(slotOffsets(fn, 0), "[0, 1020]") << storeValue(fn, 0);
  const InstId read = findOne(fn, "ld.shared.u32");
  EXPECT_EQ(rangeText(fn.values->operandValue(read, 1)), "[0, 4]") << valueText(fn, read, 1);
}

// .maxntid bounds %ntid.x from above only (a 32 x 2 launch of a
// __launch_bounds__(64) kernel); .reqntid makes it exact.
TEST(ModelValueRanges, DeclaredBlockBoundsItsWidthFromAbove) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  EXPECT_EQ(slotOffsets(p.fn("declared_block_width"), 0), "[0, 252]") << storeValue(p.fn("declared_block_width"), 0);
  EXPECT_EQ(slotOffsets(p.fn("required_block_width"), 0), "[508, 508]") << storeValue(p.fn("required_block_width"), 0);
}

// Without declared bounds %tid.x is in [0, 1023].
TEST(ModelValueRanges, UndeclaredBlockUsesTheHardwareLimit) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("undeclared_block");
  const InstId read = findOne(fn, "ld.shared.u32");
  EXPECT_EQ(rangeText(fn.values->operandValue(read, 1)), "[0, 4092]") << valueText(fn, read, 1);
}

// The warp id tid >> 5 broadcast by shfl.sync.idx (nvcc writes `%r|%p`):
// [0, 1] with .maxntid 64, [0, 31] without.
TEST(ModelValueRanges, ShuffledWarpId) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& declared = p.fn("declared_block");
  const auto& undeclared = p.fn("undeclared_block");
  FENCELINE_MODEL_GAP_IF(slotOffsets(declared, 1) == "unbounded",
                         "declared_block / undeclared_block: shfl.sync.idx.b32 %r11|%p1, %r8, 0, 31, -1 writes a "
                         "predicate pair, and the value analysis evaluates only instructions whose operand 0 is a "
                         "register, so the shfl rule (the operand's range) never applies: "
                             << valueText(declared, findOne(declared, "st.shared.u32", 1), 0)
                             << "; expected [128, 132] and [4096, 4220]");
  EXPECT_EQ(slotOffsets(declared, 1), "[128, 132]") << storeValue(declared, 1);
  EXPECT_EQ(slotOffsets(undeclared, 0), "[4096, 4220]") << storeValue(undeclared, 0);
  // Thread words and warp words of one array: overlapping with 64 threads,
  // apart with 1024 (the warp words follow all 1024 thread words).
  EXPECT_TRUE(aliasIs(declared, AliasResult::May, findOne(declared, "st.shared.u32", 0), 0, 0,
                      findOne(declared, "st.shared.u32", 1), 0, 0));
  EXPECT_TRUE(aliasIs(undeclared, AliasResult::No, findOne(undeclared, "st.shared.u32"), 0, 0,
                      findOne(undeclared, "ld.shared.u32"), 1, 0));
}

// ---- Packed indices and cluster registers ----

// (s << 7) | low with low below 128 is s * 128 + low: the stage keeps its
// stride (s = blockIdx.x % 3 in [0, 2]). low = ((t >> 2) & 7) | ((t & 96) >> 1)
// | ((t >> 1) & 64) may set only the bits 7 | 48 (with 128 threads (t >> 1) &
// 64 is 0): low in [0, 55], offsets [0, 4 * (256 + 55)]. (Bounded by the next
// power of two instead, low would reach 63.)
TEST(ModelValueRanges, OrOfDisjointBitsIsAnAdd) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("packed_index");
  EXPECT_EQ(slotOffsets(fn, 0), "[0, 1244]") << storeValue(fn, 0);
  const AbstractValue v = fn.values->operandValue(findOne(fn, "st.shared.u32"), 0);
  bool strided = false;
  for (const auto& t : v.terms) strided |= t.coefficient == 512 && t.low == 0 && t.high == 2;
  EXPECT_TRUE(strided) << v.toString();
}

// bfi.b32 d, a, b, 4, 28 with b below 16 and a in the field is 16 * a + b.
TEST(ModelValueRanges, BitFieldInsertBelowTheField) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("inserted_index");
  // s * 128 + 16 * [0, 3] + [0, 7]: at most 256 + 55, times 4.
  EXPECT_EQ(slotOffsets(fn, 0), "[0, 1244]") << storeValue(fn, 0);
}

// .reqnctapercluster bounds %cluster_ctarank; without it the rank is in [0, 15].
TEST(ModelValueRanges, DeclaredClusterBoundsTheRank) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  EXPECT_EQ(slotOffsets(p.fn("declared_cluster"), 0), "[0, 4]") << storeValue(p.fn("declared_cluster"), 0);
  EXPECT_EQ(slotOffsets(p.fn("undeclared_cluster"), 0), "[0, 60]") << storeValue(p.fn("undeclared_cluster"), 0);
}

// A role branch narrows %tid.x for the memory analysis (model/GuardedRanges.h):
// the value analysis keeps [0, 159] for the whole kernel.
TEST(ModelValueRanges, RoleBranchNarrowsTheThreadIndex) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("role_guarded");
  std::vector<std::string> ranges;
  for (size_t i = 0; i < 2; ++i) {
    const MemoryLocation loc = fn.memory->location(findOne(fn, "st.shared.u32", i), 0);
    ranges.push_back(loc.bytes ? "[" + std::to_string(loc.bytes->begin) + ", " + std::to_string(loc.bytes->end) + ")"
                               : "unbounded");
  }
  std::sort(ranges.begin(), ranges.end());
  EXPECT_EQ(ranges, (std::vector<std::string>{"[0, 512)", "[384, 640)"})) << dump(fn);
}

// An XOR swizzle keeps the address in its 128-byte row: rows 8..15 of
// `slot` are bytes [1024, 2048).
TEST(ModelValueRanges, XorSwizzleStaysInItsRow) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("xor_swizzle");
  const InstId store = findOne(fn, "st.v4.u32");  // through the generic address
  const MemoryLocation loc = fn.memory->location(store, 0);
  ASSERT_TRUE(loc.bytes) << valueText(fn, store, 0) << "\n" << dump(fn);
  EXPECT_GE(loc.bytes->begin, 1024) << valueText(fn, store, 0);
  EXPECT_LE(loc.bytes->end, 2048 + 15) << valueText(fn, store, 0);
}

// or / xor of non-negative values: bounded by the union of the bits each
// operand may set (Values' possibleBits), not by the next power of two.
TEST(ModelValueRanges, OrAndXorKeepToTheirBits) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("layout_bits");
  EXPECT_EQ(slotOffsets(fn, 0, "st.shared.u8"), "[0, 13304]") << storeValue(fn, 0, "st.shared.u8");
  EXPECT_EQ(slotOffsets(fn, 1, "st.shared.u8"), "[0, 13304]") << storeValue(fn, 1, "st.shared.u8");
  EXPECT_EQ(slotOffsets(fn, 2, "st.shared.u8"), "[0, 8199]") << storeValue(fn, 2, "st.shared.u8");
}

// A swizzle that keeps the stride of x's high field: the opaque low part is
// bounded by the bits the operands may set below that stride.
TEST(ModelValueRanges, XorKeepsStrideAndLowBits) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("xor_kept_stride");
  EXPECT_EQ(slotOffsets(fn, 0, "st.shared.v4"), "[0, 30704]") << storeValue(fn, 0, "st.shared.v4");
  EXPECT_EQ(slotOffsets(fn, 1, "st.shared.v4"), "[0, 30704]") << storeValue(fn, 1, "st.shared.v4");
}

// The latch of a loop whose exit never reads the counter again refines the
// counter by its test: s + gridDim.x flows back only below 64. With the
// entry test, s is in [1, 63] in the body (before: unbounded, the update
// adds a value with no constant bound).
TEST(ModelValueRanges, LoopExitTestBoundsAGridStridedCounter) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("grid_strided_counter");
  EXPECT_EQ(slotOffsets(fn, 0), "[4, 252]") << storeValue(fn, 0);
}

// Values::atLeastGridSize: the counter that starts one grid ahead and steps
// by the grid is at least gridDim.x; one that starts at blockIdx.x is not.
TEST(ModelValueRanges, CounterBeyondTheGrid) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  auto counterOf = [&](const FunctionModel& fn) {
    const AbstractValue v = fn.values->operandValue(findOne(fn, "st.shared.u32"), 0);
    for (const auto& t : v.terms)
      if (t.name.starts_with("loop:")) return t.name;
    return std::string("no loop term in ") + v.toString();
  };
  const auto& beyond = p.fn("grid_strided_counter");
  EXPECT_TRUE(beyond.values->atLeastGridSize(counterOf(beyond), 'x')) << counterOf(beyond);
  EXPECT_FALSE(beyond.values->atLeastGridSize(counterOf(beyond), 'y')) << counterOf(beyond);
  EXPECT_TRUE(beyond.values->atLeastGridSize("%nctaid.x", 'x'));
  EXPECT_FALSE(beyond.values->atLeastGridSize("%ctaid.x", 'x'));
  const auto& own = p.fn("block_strided_counter");
  EXPECT_FALSE(own.values->atLeastGridSize(counterOf(own), 'x')) << counterOf(own);
}

// Triton's warp-specialized matmul (tests/checks/memory/Inputs/triton_ws_matmul_sm90.ptx),
// or null when the input is missing.
std::unique_ptr<LoadedProgram> loadTritonWsMatmul() {
  std::ifstream in(std::string(FENCELINE_TEST_DIR) + "/checks/memory/Inputs/triton_ws_matmul_sm90.ptx");
  if (!in) return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  return loadProgram("triton_ws_matmul_sm90", text.str());
}

// Triton's strength-reduced stage offsets (tests/checks/memory/Inputs/
// triton_ws_matmul_sm90.ptx, the producer's loop): the loop counts k in a
// 64-bit register and 8192 * k in a 32-bit one, and a stage's offset is
// 8192 * k - 24576 * (k / 3) (mul.hi.u64 by 0xAAAAAAAAAAAAAAAB, shr 1):
// 8192 * (k mod 3), so each TMA copy stays in its third of the ring.
TEST(ModelValueRanges, LockstepCountersGiveTheStageOfAStrengthReducedRing) {
  auto owner = loadTritonWsMatmul();
  ASSERT_TRUE(owner) << "the Triton PTX input is missing";
  const auto& fn = owner->fn("ws_matmul_kernel");
  std::vector<std::string> ranges;
  for (InstId copy : find(fn, "cp.async.bulk.tensor.2d.shared"))
    ranges.push_back(fn.memory->copyDestination(copy).toString());
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(ranges[0], "dynamic-shared[49152, 73728)") << dump(fn);
  EXPECT_EQ(ranges[1], "dynamic-shared[0, 49152)");
  EXPECT_EQ(ranges[2], "dynamic-shared[73728, 98304)");
}

// The consumer's B operand of the same kernel: its 32-bit stage address
// starts at global_smem itself (`mov.b32 %r395, %r19`, %r19 = global_smem)
// and grows by 16384 per trip in lockstep with the 64-bit trip count, so
// %r395 - 49152 * (k / 3) is global_smem + 16384 * (k mod 3): the wgmma's B
// descriptor stays in the B ring, [0, 49152), instead of anywhere in the
// buffer. The K slices' descriptors add (1 << 25) + 128 * j in one add: the
// high bits are the leading byte offset field, not an advance.
TEST(ModelValueRanges, LockstepCounterFromABaseGivesTheStageAddress) {
  auto owner = loadTritonWsMatmul();
  ASSERT_TRUE(owner) << "the Triton PTX input is missing";
  const auto& fn = owner->fn("ws_matmul_kernel");
  std::vector<std::string> operandB;
  for (InstId mma : find(fn, "wgmma.mma_async")) {
    const auto operands = fn.memory->matrixOperands(mma);
    ASSERT_TRUE(operands.decoded);
    ASSERT_EQ(operands.operands.size(), 2u);
    operandB.push_back(operands.operands[1].toString());
  }
  ASSERT_EQ(operandB.size(), 8u);
  EXPECT_EQ(operandB[0], "dynamic-shared[0, 43008)") << dump(fn);
  EXPECT_EQ(operandB[1], "dynamic-shared[2048, 45056)");
  EXPECT_EQ(operandB[3], "dynamic-shared[6144, 49152)");
}

// ---- Narrow loads, masks and parameter products (issue 34 P1, P2) ----

// A byte loaded from memory is in [0, 255] (ld.u8 zero-extends), and `i &
// mask` with such a mask is in [0, mask's bound] whatever i is.
TEST(ModelValueRanges, IndexMaskedByALoadedByte) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("byte_masked_index");
  EXPECT_EQ(slotOffsets(fn, 0, "st.shared.u8"), "[0, 255]") << storeValue(fn, 0, "st.shared.u8");
}

// Two `mad.lo.s64 %, slot, 88, base` of one parameter give one term: the
// flag at +0 and the word at +16 differ by 16 bytes on the same index.
TEST(ModelValueRanges, TwoProductsOfOneParameter) {
  FENCELINE_LOAD_PROGRAM(p, "model_value_ranges");
  const auto& fn = p.fn("parameter_product_twice");
  const AbstractValue flag = fn.values->operandValue(findOne(fn, "st.volatile.u8"), 0);
  const AbstractValue word = fn.values->operandValue(findOne(fn, "st.volatile.u64"), 0);
  ASSERT_TRUE(flag.known && word.known) << dump(fn);
  ASSERT_EQ(flag.terms.size(), 1u) << flag.toString();
  ASSERT_EQ(word.terms.size(), 1u) << word.toString();
  EXPECT_EQ(flag.terms[0].name, word.terms[0].name) << flag.toString() << " and " << word.toString();
  EXPECT_EQ(word.constant - flag.constant, 16) << flag.toString() << " and " << word.toString();
}
