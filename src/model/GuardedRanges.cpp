#include "model/GuardedRanges.h"

#include <algorithm>
#include <optional>

#include "model/BranchEdges.h"
#include "model/Comparisons.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

using Range = std::pair<int64_t, int64_t>;
constexpr int64_t kLimit = int64_t(1) << 40;  // index ranges and constants are far below this
constexpr int kMaxGuards = 1 << 20;           // dominator-tree steps per query (a bound on a corrupt tree)

// A non-decreasing function of the index: index + k, index >> k, index / k,
// or index & -k (k a power of two: rounds down to a multiple of k).
// `outer` (optional) is applied after it: a non-decreasing function of a
// non-decreasing function (`(tid / 32) & -4`, a warp index's group of four).
struct IndexFunction {
  enum class Kind { Plus, Shift, Divide, RoundDown } kind;
  int64_t k;
  std::optional<std::pair<Kind, int64_t>> outer;
};

int64_t clampToLimit(int64_t x) { return std::clamp(x, -kLimit, kLimit); }

// a * b, saturated at +-kLimit (a shift by up to 31 of a clamped bound would
// overflow int64_t).
int64_t times(int64_t a, int64_t b) {
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return (a < 0) != (b < 0) ? -kLimit : kLimit;
  return clampToLimit(product);
}

int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The indices whose f lies in [lo, hi] (empty when first > second).
Range preimageOf(IndexFunction::Kind kind, int64_t k, int64_t lo, int64_t hi);

// One walk up the dominator tree from `block`, applying each edge condition
// once (innermost first) to `range`.
Range walkDominators(const FunctionModel& fn, BlockId block, std::string_view name, Range range);

Range preimage(IndexFunction f, int64_t lo, int64_t hi) {
  if (f.outer) {
    const Range inner = preimageOf(f.outer->first, f.outer->second, lo, hi);
    if (inner.first > inner.second) return inner;
    lo = inner.first;
    hi = inner.second;
  }
  return preimageOf(f.kind, f.k, lo, hi);
}

Range preimageOf(IndexFunction::Kind kind, int64_t k, int64_t lo, int64_t hi) {
  IndexFunction f{kind, k, std::nullopt};
  lo = clampToLimit(lo);
  hi = clampToLimit(hi);
  switch (f.kind) {
    case IndexFunction::Kind::Plus: return {lo - f.k, hi - f.k};
    case IndexFunction::Kind::Shift: return {times(lo, int64_t(1) << f.k), times(hi + 1, int64_t(1) << f.k) - 1};
    case IndexFunction::Kind::Divide: return {times(lo, f.k), times(hi + 1, f.k) - 1};
    case IndexFunction::Kind::RoundDown: return {-floorDiv(-lo, f.k) * f.k, floorDiv(hi, f.k) * f.k + f.k - 1};
  }
  return {1, 0};
}

bool isIndex(const AbstractValue& v, std::string_view name, int64_t* plus) {
  if (!v.known || v.hasBase() || v.terms.size() != 1 || v.terms[0].name != name || v.terms[0].coefficient != 1)
    return false;
  *plus = v.constant;
  return true;
}

std::optional<IndexFunction> indexFunction(const FunctionModel& fn, InstId inst, int k, std::string_view name);

// shfl.sync.idx from lane 0 (clamp 31) of a value that depends on the index
// only through its warp (index >> k, index / c, index & -c with the unit a
// multiple of 32): every lane receives its own warp's value, so the shuffle
// is that function (`make_warp_uniform(tid / 32)`, CUTLASS's
// canonical_warp_idx_sync).
std::optional<IndexFunction> warpUniformShuffle(const FunctionModel& fn, InstId d, std::string_view name) {
  const Inst& def = fn.instructions[d];
  if (def.opcode() != "shfl" || !def.hasModifier("idx") || def.operands.size() < 4) return std::nullopt;
  const AbstractValue lane = fn.values->operandValue(d, 2), clamp = fn.values->operandValue(d, 3);
  if (!(lane.isConstant() && lane.constant == 0 && clamp.isConstant() && (clamp.constant & 0x1f) == 0x1f))
    return std::nullopt;
  const auto inner = indexFunction(fn, d, 1, name);
  const bool warpUniform =
      inner && !inner->outer && name == "%tid.x" &&
      ((inner->kind == IndexFunction::Kind::Shift && inner->k >= 5) ||
       ((inner->kind == IndexFunction::Kind::Divide || inner->kind == IndexFunction::Kind::RoundDown) &&
        inner->k % 32 == 0));
  if (warpUniform) return inner;
  return std::nullopt;
}

// The function of the index that operand k of `inst` computes, when it is one.
std::optional<IndexFunction> indexFunction(const FunctionModel& fn, InstId inst, int k, std::string_view name) {
  int64_t plus = 0;
  if (isIndex(fn.values->operandValue(inst, k), name, &plus)) return IndexFunction{IndexFunction::Kind::Plus, plus, std::nullopt};
  const ptx::Operand& op = fn.instructions[inst].operands[k];
  if (op.kind != ptx::Operand::Kind::Register) return std::nullopt;
  const InstId d = fn.values->definition(op.reg, inst);
  if (d < 0 || fn.instructions[d].operands.size() < 3) return std::nullopt;
  const Inst& def = fn.instructions[d];
  // shfl.sync.idx from lane 0 (clamp 31) of a value that depends on the
  // index only through its warp (index >> k, index / c, index & -c with the
  // unit a multiple of 32): every lane receives its own warp's value, so the
  // shuffle is that function (`make_warp_uniform(tid / 32)`, CUTLASS's
  // canonical_warp_idx_sync).
  if (def.opcode() == "shfl") return warpUniformShuffle(fn, d, name);
  const AbstractValue amount = fn.values->operandValue(d, 2);
  if (!amount.isConstant()) return std::nullopt;
  if (!isIndex(fn.values->operandValue(d, 1), name, &plus) || plus != 0) {
    // One more step over a function of the index (one level: `& -c` of a
    // warp index read back from a shuffle).
    const auto inner = indexFunction(fn, d, 1, name);
    if (!inner || inner->outer || !(def.opcode() == "and" || def.opcode() == "shr")) return std::nullopt;
    const int64_t c = amount.constant;
    IndexFunction f = *inner;
    if (def.opcode() == "shr" && (def.hasModifier("u32") || def.hasModifier("b32")) && c >= 0 && c < 32)
      f.outer = std::make_pair(IndexFunction::Kind::Shift, c);
    else if (def.opcode() == "and" && c < 0 && c > -kLimit && ((-c) & (-c - 1)) == 0)
      f.outer = std::make_pair(IndexFunction::Kind::RoundDown, -c);
    else
      return std::nullopt;
    return f;
  }
  const int64_t c = amount.constant;
  if (def.opcode() == "shr" && (def.hasModifier("u32") || def.hasModifier("b32")) && c >= 0 && c < 32)
    return IndexFunction{IndexFunction::Kind::Shift, c, std::nullopt};
  if (def.opcode() == "div" && def.hasModifier("u32") && c > 0) return IndexFunction{IndexFunction::Kind::Divide, c, std::nullopt};
  if (def.opcode() == "and" && c < 0 && c > -kLimit && ((-c) & (-c - 1)) == 0)
    return IndexFunction{IndexFunction::Kind::RoundDown, -c, std::nullopt};
  return std::nullopt;
}

// Narrow `range` by "predicate `reg` (read at `at`) is `value`".
Range applyCondition(const FunctionModel& fn, InstId at, ptx::RegisterId reg, bool value, std::string_view name,
                     Range range, int depth = 0) {
  const InstId d = fn.values->definition(reg, at);
  if (d < 0) return range;
  const Inst& setp = fn.instructions[d];
  // `or.pred p, a, b` false, or `and.pred p, a, b` true: both a and b have
  // that value (nvcc's `if (warp < 2 && lane == 0)` branches on
  // `or.pred %p6, %p5, %p2` of the negated tests).
  if (((setp.opcode() == "or" && !value) || (setp.opcode() == "and" && value)) && setp.hasModifier("pred") &&
      setp.operands.size() == 3 && depth < 4) {
    for (int k = 1; k <= 2; ++k)
      if (setp.operands[k].kind == ptx::Operand::Kind::Register)
        range = applyCondition(fn, d, setp.operands[k].reg, value, name, range, depth + 1);
    return range;
  }
  if (setp.opcode() != "setp" || setp.operands.size() < 3 || setp.operands[0].kind != ptx::Operand::Kind::Register ||
      setp.operands[0].reg != reg || setp.operands.size() > 3)  // a combining setp (.and p) is left alone
    return range;
  std::string_view cmp = comparisonOf(*setp.syntax);
  if (cmp.empty()) return range;
  int indexOperand = 1;
  AbstractValue bound = fn.values->operandValue(d, 2);
  if (!bound.isConstant()) {
    bound = fn.values->operandValue(d, 1);
    if (!bound.isConstant()) return range;
    indexOperand = 2;
    cmp = swappedComparison(cmp);
  }
  const auto f = indexFunction(fn, d, indexOperand, name);
  if (!f) return range;
  if (!value) cmp = negatedComparison(cmp);
  const int64_t b = bound.constant;
  Range allowed{-kLimit, kLimit};
  if (cmp == "eq") allowed = preimage(*f, b, b);
  else if (cmp == "lt" || cmp == "lo") allowed = preimage(*f, -kLimit, b - 1);
  else if (cmp == "le" || cmp == "ls") allowed = preimage(*f, -kLimit, b);
  else if (cmp == "gt" || cmp == "hi") allowed = preimage(*f, b + 1, kLimit);
  else if (cmp == "ge" || cmp == "hs") allowed = preimage(*f, b, kLimit);
  else if (cmp == "ne") {
    // Excluding one value's preimage narrows only at an end of the range.
    const Range excluded = preimage(*f, b, b);
    if (excluded.first <= range.first && excluded.second >= range.first) return {excluded.second + 1, range.second};
    if (excluded.second >= range.second && excluded.first <= range.second) return {range.first, excluded.first - 1};
    return range;
  } else {
    return range;
  }
  const Range narrowed{std::max(range.first, allowed.first), std::min(range.second, allowed.second)};
  return narrowed.first <= narrowed.second ? narrowed : range;  // a contradiction: unreachable code, keep the range
}

}  // namespace

std::pair<int64_t, int64_t> guardedRange(const FunctionModel& fn, InstId at, std::string_view name,
                                         std::pair<int64_t, int64_t> range) {
  if (!fn.values || at < 0 || static_cast<size_t>(at) >= fn.instructions.size()) return range;
  const Inst& inst = fn.instructions[at];
  if (inst.guard) range = applyCondition(fn, at, inst.guard->reg, !inst.guard->negated, name, range);
  return guardedRangeAtBlock(fn, inst.block, name, range);
}

bool isWarpIndexTerm(const FunctionModel& fn, std::string_view name) {
  if (!fn.values || !name.starts_with("def:")) return false;
  int64_t d = 0;
  for (char c : name.substr(4)) {
    if (c < '0' || c > '9' || d > int64_t(1) << 40) return false;
    d = d * 10 + (c - '0');
  }
  if (name.size() == 4 || d >= static_cast<int64_t>(fn.instructions.size())) return false;
  return warpUniformShuffle(fn, static_cast<InstId>(d), "%tid.x").has_value();
}

std::pair<int64_t, int64_t> guardedRangeAtBlock(const FunctionModel& fn, BlockId block, std::string_view name,
                                                std::pair<int64_t, int64_t> range) {
  if (!fn.values || block < 0 || static_cast<size_t>(block) >= fn.blocks.size()) return range;
  if (name.starts_with("def:")) {
    // A warp index (isWarpIndexTerm): the role branches test it one value
    // at a time (`< 2`, `== 2`, `== 3`, else), so the conditions are applied
    // outermost first, and again until the range stops changing: excluding
    // one value narrows only at an end of the range.
    std::vector<EdgeCondition> edges;
    for (int steps = 0; block > 0 && steps < kMaxGuards; ++steps) {
      const BasicBlock& b = fn.blocks[block];
      if (b.predecessors.size() == 1)
        if (auto edge = edgeCondition(fn, b.predecessors.front(), block)) edges.push_back(*edge);
      if (static_cast<size_t>(block) >= fn.idom.size()) break;
      block = fn.idom[block];
    }
    for (int pass = 0; pass < 8; ++pass) {
      const Range before = range;
      for (auto it = edges.rbegin(); it != edges.rend(); ++it)
        range = applyCondition(fn, it->branch, it->predicate, it->value, name, range);
      if (range == before) break;
    }
    return range;
  }
  // The conditions are applied innermost first, and excluding one value
  // narrows only at an end of the range: in `if (y == 0) {...} else if (y ==
  // 1) {...} else {...}` the last branch's `y != 1` comes before `y != 0` and
  // narrows nothing on the first walk. So the walk is repeated from its own
  // answer until the range stops changing (each walk applies every condition
  // again; the threads that get there satisfy all of them).
  for (int pass = 0; pass < 4; ++pass) {
    const Range narrowed = walkDominators(fn, block, name, range);
    if (narrowed == range) break;
    range = narrowed;
  }
  return range;
}

namespace {

Range walkDominators(const FunctionModel& fn, BlockId block, std::string_view name, Range range) {
  // The walk from (block, range) is deterministic: every (block, range) it
  // passes through ends at the same answer. Memoized per function, so a
  // dominator chain is walked once per distinct range, not once per query
  // (issue 33: one walk per address grew with accesses x depth).
  static constexpr std::string_view kNames[] = {"%tid.x", "%tid.y", "%tid.z", "%laneid"};
  const auto named = std::find(std::begin(kNames), std::end(kNames), name);
  GuardedRangeMemo* memo = named == std::end(kNames) ? nullptr : &fn.guardedRangeMemo;
  const uint8_t nameIndex = static_cast<uint8_t>(named - std::begin(kNames));
  std::vector<GuardedRangeMemo::Key> passed;
  for (int steps = 0; block > 0 && steps < kMaxGuards; ++steps) {
    if (memo) {
      const GuardedRangeMemo::Key key{block, nameIndex, range.first, range.second};
      if (auto it = memo->answers.find(key); it != memo->answers.end()) {
        range = it->second;
        break;
      }
      passed.push_back(key);
    }
    const BasicBlock& b = fn.blocks[block];
    if (b.predecessors.size() == 1)
      if (auto edge = edgeCondition(fn, b.predecessors.front(), block))
        range = applyCondition(fn, edge->branch, edge->predicate, edge->value, name, range);
    if (static_cast<size_t>(block) >= fn.idom.size()) break;
    block = fn.idom[block];
  }
  if (memo)
    for (const auto& key : passed) memo->answers.emplace(key, range);
  return range;
}

}  // namespace

}  // namespace fenceline::model
