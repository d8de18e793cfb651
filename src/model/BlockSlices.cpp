// Per-block slices (MemoryAnalysis::blockSlices, Memory.h): two accesses made
// by threads of two different blocks, whose addresses carry the block index
// the same way.
//
// The memory model's answers compare address expressions: "the same address"
// (equal forms) and "one buffer" (one base) are answers for the threads that
// evaluate them with the same block index. The partner of a flag protocol is
// another block (or another rank's copy, which reaches this rank's memory
// only through pointers that say so: peer tables, multicast addresses).
// Evaluated in another block, `scratch + stride * blockIdx.x + 4 * tid` is
// that block's slice (NCCL's shape S: the scratch each block accumulates
// into around a network counter). With d = the partner's block index minus
// this one's, d != 0, the two offsets differ by stride * d plus what the
// other terms contribute: they never meet when the stride is a constant at
// least as large as a block's extent; whether they meet is not decided when
// the stride is a value the analysis cannot bound (a parameter: 0 would make
// every block share one slice).
//
// What hides the block index (issue 34, NCCL's block-private state word): a
// product of the block index with a factor whose level UniformModes does not
// name (a stride chosen per block from a mode byte) is a stride all the same;
// a context several blocks share beside the block index leaves the pair to
// the launch's values; and two addresses each at a stride of its own factor
// are slots of each side's own block in two arrays. All three: undecided.
// (A 32-bit index widened after the add, `mul.wide.u32 (slot + peer), 8`, is
// already an affine sum of its terms in the value analysis.)
#include <fmt/format.h>

#include <algorithm>
#include <climits>

#include "model/Memory.h"
#include "model/UniformModes.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

using Term = AbstractValue::Term;
using Level = UniformModes::Level;

// What a term of an address is, between two threads of two blocks.
enum class TermKind : uint8_t {
  BlockIndex,   // %ctaid.x / .y / .z itself: differs between any two blocks of that dimension
  BlockStride,  // a value the same within a block (a parameter) times the block index: a stride
  BlockLevel,   // another value computed from the block's position (`ctaid % n`, `ctaid >> k`: a
                // context several blocks share by design): the same within a block
  Grid,         // the same for every thread of the grid (a parameter, the launch shape)
  Thread,       // anything else: taken to differ freely between the two threads
};

bool sameTerm(const Term& a, const Term& b) { return a.name == b.name && a.coefficient == b.coefficient; }

// The dimension of a block index term (0: x, 1: y, 2: z), or -1.
int blockDimension(const std::string& name) {
  return name.size() == 8 && name.starts_with("%ctaid.") && name[7] >= 'x' && name[7] <= 'z' ? name[7] - 'x' : -1;
}

// The dimension of the block index that operand k of `d` is an affine form of
// (a single %ctaid term, as `cvt.u64.u32` of it), or -1.
int blockIndexOperand(const FunctionModel& fn, InstId d, int k) {
  const AbstractValue v = fn.values->operandValue(d, k);
  if (!v.known || v.hasBase() || v.terms.size() != 1 || v.terms[0].coefficient == 0) return -1;
  return blockDimension(v.terms[0].name);
}

TermKind kindOfTerm(const FunctionModel& fn, const UniformModes& modes, const Term& t) {
  if (blockDimension(t.name) >= 0) return TermKind::BlockIndex;
  const InstId d = fn.termDefinition(t.name);
  if (d < 0) return TermKind::Thread;
  const Inst& in = fn.instructions[d];
  const std::string_view op = in.opcode();
  Level level = Level::Thread;
  if ((op == "mul" || op == "mad") && in.operands.size() >= 3) {
    // A product the value analysis keeps opaque: any factor times the block
    // index itself is a stride over the blocks. A factor the same within a
    // block (a parameter, a mode chosen by the block's context) is the usual
    // case; one whose level is not known here (NCCL's `selp(2, max(m, 2))`
    // over a byte of a by-value argument and a quotient of two of its
    // fields, past what UniformModes names) is a stride all the same: the
    // product changes with the block index, so two blocks' values are not
    // one value, and the pair rests on the factors (Undecided), never on
    // the expressions' "the same term on both sides".
    if (blockIndexOperand(fn, d, 1) >= 0 || blockIndexOperand(fn, d, 2) >= 0) return TermKind::BlockStride;
    const Level x = modes.levelOf(in.operands[1], d), y = modes.levelOf(in.operands[2], d);
    level = std::max(x, y);
  } else {
    level = modes.levelOfDefinition(d);
  }
  return level == Level::Grid ? TermKind::Grid : level == Level::Block ? TermKind::BlockLevel : TermKind::Thread;
}

struct SplitTerms {
  std::vector<Term> block;   // BlockIndex, BlockStride and BlockLevel terms, in order
  std::vector<Term> stride;  // the BlockStride terms among them
  bool blockLevel = false;   // a BlockLevel term among them
  std::vector<Term> grid, thread;
};

SplitTerms splitTerms(const FunctionModel& fn, const UniformModes& modes, const AbstractValue& v) {
  SplitTerms s;
  for (const Term& t : v.terms) {
    switch (kindOfTerm(fn, modes, t)) {
      case TermKind::BlockIndex: s.block.push_back(t); break;
      case TermKind::BlockStride:
        s.block.push_back(t);
        s.stride.push_back(t);
        break;
      case TermKind::BlockLevel:
        s.block.push_back(t);
        s.blockLevel = true;
        break;
      case TermKind::Grid: s.grid.push_back(t); break;
      case TermKind::Thread: s.thread.push_back(t); break;
    }
  }
  return s;
}

// The dimensions of the block index the block terms carry (bit 0: x).
int dimensionsCarried(const FunctionModel& fn, const SplitTerms& s) {
  int carried = 0;
  for (const Term& t : s.block)
    if (int dim = blockDimension(t.name); dim >= 0) carried |= 1 << dim;
  for (const Term& t : s.stride)
    for (int k = 1; k <= 2; ++k)
      if (int dim = blockIndexOperand(fn, fn.termDefinition(t.name), k); dim >= 0) carried |= 1 << dim;
  return carried;
}

// The factor a stride term multiplies the block index by (the product's
// other operand), or an unknown value.
AbstractValue strideFactor(const FunctionModel& fn, const Term& t) {
  const InstId d = fn.termDefinition(t.name);
  if (d < 0) return AbstractValue{};
  for (int k = 1; k <= 2; ++k)
    if (blockIndexOperand(fn, d, k) >= 0) return fn.values->operandValue(d, 3 - k);
  return AbstractValue{};
}

// Both sides carry the block index at a stride, and no stride of one side
// has a factor of the other's: each names a slot of its own block in an
// array of its own stride (NCCL's block state, `k * ctaid + c` against
// `r * ctaid + c'`, k and r two values of the launch). Another block's slot
// of one meets this block's slot of the other only where the factors and
// the constants make it so. (One factor on both sides, at two block
// indices, `stride * (ctaid + 1)` against `stride * ctaid`, names the next
// block's slice: the expressions' answer stands.)
bool stridesOfTwoFactors(const FunctionModel& fn, const SplitTerms& a, const SplitTerms& b) {
  if (a.stride.empty() || b.stride.empty()) return false;
  for (const Term& x : a.stride) {
    const AbstractValue fx = strideFactor(fn, x);
    if (!fx.known) return false;
    for (const Term& y : b.stride) {
      const AbstractValue fy = strideFactor(fn, y);
      if (!fy.known || fx == fy) return false;
    }
  }
  return true;
}

// The terms free in each thread: the thread terms, and the grid-wide terms
// the other side does not carry too (those it does are one value in both
// threads: they cancel).
std::vector<Term> freeTerms(const SplitTerms& own, const SplitTerms& other) {
  std::vector<Term> out = own.thread;
  for (const Term& t : own.grid)
    if (std::none_of(other.grid.begin(), other.grid.end(), [&](const Term& u) { return sameTerm(t, u); }))
      out.push_back(t);
  return out;
}

// The CTA's shared window: a shared symbol's address (raw, or made generic
// by `cvta.shared`), never mapped to another CTA of the cluster. Each block
// has its own; the same address in another block is other bytes.
bool inOwnWindow(const AbstractValue& v) {
  return v.known && v.baseKind == AbstractValue::BaseKind::SharedSymbol && v.space != Space::SharedCluster;
}

// A kernel's pointer argument or a global variable: global memory, never in
// a shared window (a `.func`'s parameter may be a caller's shared address).
bool globalPointer(const FunctionModel& fn, const AbstractValue& v) {
  using K = AbstractValue::BaseKind;
  if (!v.known || (v.space != Space::None && v.space != Space::Generic && v.space != Space::Global)) return false;
  return v.baseKind == K::GlobalSymbol || (v.baseKind == K::Param && fn.function && fn.function->isEntry);
}

// Why two blocks' accesses never meet by their windows: both in the CTA's
// own shared memory, or one there and the other in global memory (nullptr:
// not by the windows).
const char* apartByWindow(const FunctionModel& fn, const AbstractValue& a, const AbstractValue& b) {
  const bool wa = inOwnWindow(a), wb = inOwnWindow(b);
  if (wa && wb) return "both addresses lie in the CTA's own shared memory: another block has its own";
  if ((wa && globalPointer(fn, b)) || (wb && globalPointer(fn, a)))
    return "one address lies in the CTA's own shared memory, the other in global memory";
  return nullptr;
}

}  // namespace

int MemoryAnalysis::blockDimensionsRead() const {
  if (blockDimensionsRead_ >= 0) return blockDimensionsRead_;
  int dims = 0;
  for (const Inst& in : fn_.instructions)
    for (const ptx::Operand& op : in.operands)
      if (op.kind == ptx::Operand::Kind::Special)
        if (int dim = blockDimension(std::string(op.text)); dim >= 0) dims |= 1 << dim;
  blockDimensionsRead_ = dims;
  return dims;
}

// A `.shared::cluster` access, or an address mapped to another CTA, may
// reach another block's shared window.
bool MemoryAnalysis::ownWindows(InstId a, int oa, InstId b, int ob) const {
  auto own = [&](InstId i, int o) { return space(i, o) != Space::SharedCluster && !mappedToAnotherCta(i, o); };
  return own(a, oa) && own(b, ob);
}

MemoryAnalysis::BlockSlices MemoryAnalysis::blockSlices(InstId a, int oa, InstId b, int ob, bool withDetail) const {
  if (!fn_.values) return BlockSlices{};
  const bool window = ownWindows(a, oa, b, ob);
  const AbstractValue &va = narrowedValue(a, oa), &vb = narrowedValue(b, ob);
  if (mayHaveChoices(va) || mayHaveChoices(vb)) return slicesOfChoices(a, oa, b, ob, window, withDetail);
  return slicesOfValues(va, accessSize(a, oa), vb, accessSize(b, ob), window, withDetail);
}

MemoryAnalysis::BlockSlices MemoryAnalysis::slicesOfValues(const AbstractValue& va, int64_t sizeA,
                                                           const AbstractValue& vb, int64_t sizeB, bool window,
                                                           bool withDetail) const {
  BlockSlices out;
  if (window)
    if (const char* why = apartByWindow(fn_, va, vb)) {
      out.kind = BlockSlices::Kind::Apart;
      if (withDetail) out.detail = fmt::format("{} ({} and {})", why, va.toString(), vb.toString());
      return out;
    }
  if (!va.known || !vb.known || va.baseKind != vb.baseKind || va.base != vb.base) return out;
  if (!modes_) modes_ = std::make_shared<UniformModes>(fn_);
  const SplitTerms sa = splitTerms(fn_, *modes_, va), sb = splitTerms(fn_, *modes_, vb);
  auto undecidedAs = [&](std::string_view carried, std::string_view named, std::string_view why) {
    out.kind = BlockSlices::Kind::Undecided;
    if (withDetail)
      out.detail = fmt::format("both offsets carry the block index {}({} and {}): for a partner in another block "
                               "they name {}, which {} only if {}",
                               carried, va.toString(), vb.toString(), named,
                               carried.empty() ? "meet this block's" : "meets this one", why);
    return out;
  };
  // One slice per block on both sides, or slots of each side's own block.
  auto undecided = [&](std::string_view why) {
    return undecidedAs("the same way ", "that block's own slice", why);
  };
  auto undecidedSlots = [&](std::string_view why) { return undecidedAs("", "that block's own slots", why); };
  // Both sides carry the same block terms, or this is not one slice per
  // block (but for slots of two strides, each side's own block's).
  if (sa.block.empty()) return out;
  if (!std::ranges::equal(sa.block, sb.block, sameTerm)) {
    const int dims = blockDimensionsRead();
    if ((dims & ~dimensionsCarried(fn_, sa)) == 0 && (dims & ~dimensionsCarried(fn_, sb)) == 0 &&
        stridesOfTwoFactors(fn_, sa, sb))
      return undecidedSlots("the strides of two arrays and their offsets, values of the launch, make it so");
    return out;
  }
  // Blocks share the slice by design, and the expressions' answer stands for
  // them: a value several blocks share with no block index beside it (a
  // context chosen by the block's position modulo a count); a dimension of
  // the block index the kernel
  // reads (a grid of that shape) and the address does not carry (a serial
  // split-K's blocks of one tile, `tile + blockDim.x * blockIdx.x` for every
  // blockIdx.y).
  if ((blockDimensionsRead() & ~dimensionsCarried(fn_, sa)) != 0) return out;
  const bool indexCarried = std::any_of(sa.block.begin(), sa.block.end(), [](const Term& t) {
    return blockDimension(t.name) >= 0;
  }) || !sa.stride.empty();
  if (sa.blockLevel && !indexCarried) return out;
  // A shared value beside the block index (NCCL's per-context state buffer,
  // `state + P * (ctaid % n)`, and in it the block's slots at `k * ctaid`):
  // blocks of one context differ by the index's term, blocks of two
  // contexts by both, and whether they meet rests on P, n and k.
  if (sa.blockLevel)
    return undecided("a value several blocks share (a context of the block's position), with the block index "
                     "beside it, makes it so");
  if (!sa.stride.empty()) return undecided("a stride the analysis cannot bound makes it so");
  if (sa.block.size() != 1) return undecided("the block's indices in two dimensions, at their strides, make it so");
  if (sizeA <= 0 || sizeB <= 0) return undecided("the accesses' sizes, unknown here, reach the next slice");
  const Term& index = sa.block.front();
  const std::vector<Term> freeA = freeTerms(sa, sb), freeB = freeTerms(sb, sa);
  // This side at a block index d away from the other's, d in [1, max] and in
  // [-max, -1]: apart for every d (and every value of the free terms).
  auto apartAt = [&](int64_t sign) {
    AbstractValue x = va, y = vb;
    x.terms = freeA;
    x.terms.push_back(Term{"@block-distance", sign * index.coefficient, 1, INT32_MAX});
    y.terms = freeB;
    return apartByStrideAndRange(x, sizeA, y, sizeB);
  };
  if (apartAt(1) && apartAt(-1)) {
    out.kind = BlockSlices::Kind::Apart;
    if (withDetail)
      out.detail = fmt::format("each block's accesses lie in its own slice ({} bytes apart, {} and {}): a partner in "
                               "another block touches another slice",
                               index.coefficient < 0 ? -index.coefficient : index.coefficient, va.toString(),
                               vb.toString());
    return out;
  }
  auto bounded = [](const Term& t) { return t.bounded(); };
  if (std::all_of(freeA.begin(), freeA.end(), bounded) && std::all_of(freeB.begin(), freeB.end(), bounded))
    return out;  // the slices of two blocks overlap: the expressions' answer stands
  return undecided("an index the analysis cannot bound reaches it");
}

// Chained blocks (issue 34): the flag's word of block p + d is the word
// block p polls. Every term but the block index is one value in both
// threads (a grid-wide term on both sides, no thread term: the elected
// signaller and poller name one word), so the words meet exactly when the
// constants make up c * d.
MemoryAnalysis::BlockDistance MemoryAnalysis::blockDistance(InstId a, int oa, InstId b, int ob) const {
  BlockDistance out;
  if (!fn_.values) return out;
  const AbstractValue &va = narrowedValue(a, oa), &vb = narrowedValue(b, ob);
  if (!va.known || !vb.known || va.baseKind != vb.baseKind || va.base != vb.base) return out;
  // The same terms on both sides, one of them the block index (asked
  // first: most pairs of a kernel's flag words differ there already).
  if (!std::ranges::equal(va.terms, vb.terms, sameTerm)) return out;
  const auto index = std::ranges::find_if(va.terms, [](const Term& t) { return blockDimension(t.name) >= 0; });
  if (index == va.terms.end()) return out;
  const int dimension = blockDimension(index->name);
  const int64_t difference = vb.constant - va.constant;
  if (index->coefficient == 0 || difference == 0 || difference % index->coefficient != 0) return out;
  if ((blockDimensionsRead() & ~(1 << dimension)) != 0) return out;
  const int64_t size = accessSize(a, oa);
  if (size <= 0 || size != accessSize(b, ob)) return out;
  // Every other term one value in both threads: grid-wide (no thread
  // term, no other block-level term).
  if (!modes_) modes_ = std::make_shared<UniformModes>(fn_);
  const SplitTerms sa = splitTerms(fn_, *modes_, va);
  if (sa.block.size() != 1 || !sa.stride.empty() || sa.blockLevel || !sa.thread.empty()) return out;
  out.dimension = dimension;
  out.distance = difference / index->coefficient;
  return out;
}

MemoryAnalysis::AtDistance MemoryAnalysis::atBlockDistance(InstId a, int oa, InstId b, int ob, BlockDistance d) const {
  if (!fn_.values || !d.found()) return AtDistance::Undecided;
  const AbstractValue &va = narrowedValue(a, oa), &vb = narrowedValue(b, ob);
  const int64_t sizeA = accessSize(a, oa), sizeB = accessSize(b, ob);
  // Addresses with several definitions: Apart when every pair of their
  // choices is (model/OwnBlockChoices.cpp), else the values' own answer.
  if (ownWindows(a, oa, b, ob) && (mayHaveChoices(va) || mayHaveChoices(vb))) {
    const std::vector<AbstractValue>&ca = addressChoices(a, oa), &cb = addressChoices(b, ob);
    const bool apart = std::ranges::all_of(ca, [&](const AbstractValue& x) {
      return std::ranges::all_of(
          cb, [&](const AbstractValue& y) { return atDistanceOfValues(x, sizeA, y, sizeB, d, true) == AtDistance::Apart; });
    });
    if (apart) return AtDistance::Apart;
  }
  return atDistanceOfValues(va, sizeA, vb, sizeB, d, ownWindows(a, oa, b, ob));
}

MemoryAnalysis::AtDistance MemoryAnalysis::atDistanceOfValues(const AbstractValue& va, int64_t sizeA,
                                                              const AbstractValue& vb, int64_t sizeB, BlockDistance d,
                                                              bool window) const {
  if (window && apartByWindow(fn_, va, vb)) return AtDistance::Apart;  // d != 0: another block
  if (!va.known || !vb.known) return AtDistance::Undecided;
  // Two objects (or none known): the expressions' answer stands.
  if (va.baseKind != vb.baseKind || va.base != vb.base) return AtDistance::Stands;
  if (!modes_) modes_ = std::make_shared<UniformModes>(fn_);
  const SplitTerms sa = splitTerms(fn_, *modes_, va), sb = splitTerms(fn_, *modes_, vb);
  if (sa.block.empty() && sb.block.empty()) return AtDistance::Stands;
  // Block terms other than the index itself, or two forms of it: whose
  // slice each side names is not decided here.
  if (!std::ranges::equal(sa.block, sb.block, sameTerm) || !sa.stride.empty() || sa.blockLevel)
    return AtDistance::Undecided;
  if (sizeA <= 0 || sizeB <= 0) return AtDistance::Undecided;
  // a's block index is b's + distance: its terms add c * distance; then the
  // block terms are one value on both sides and cancel.
  AbstractValue x = va, y = vb;
  for (const Term& t : sa.block)
    if (blockDimension(t.name) == d.dimension) x.constant += t.coefficient * d.distance;
  x.terms = freeTerms(sa, sb);
  y.terms = freeTerms(sb, sa);
  if (apartByStrideAndRange(x, sizeA, y, sizeB)) return AtDistance::Apart;
  if (x.constant == y.constant && sizeA == sizeB && std::ranges::equal(x.terms, y.terms, sameTerm))
    return AtDistance::Meets;
  return AtDistance::Undecided;
}

}  // namespace fenceline::model
