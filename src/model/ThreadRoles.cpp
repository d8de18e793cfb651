// Thread roles: which threads execute a block. A conditional branch whose
// predicate identifies threads (lane == c, tid == c, warp == c, block == c,
// elect.sync) narrows every block that only its taken or its fall-through edge
// leads to: the blocks dominated by that edge's target that do not
// post-dominate the branch. Elections are recognized by following the
// predicate's definition chain back, however far (nvcc computes them once at
// kernel entry and branches on them much later). A predicate set on several
// paths, to false on all but one (`tid >= 480 && elect_one()`: `mov.pred p, 0`
// before the branch around the election), is that one definition's set.
//
// Internally a set is a conjunction of facts (bits): "one lane per warp",
// "one warp", "one thread of the block", "one block", "data-dependent", and
// "one row" / "one plane" of a block with more than one dimension.
//
// %tid.x singles out a thread (tid.x == c): the block is taken to be 1-D, or
// its rows to be what the x index ranges over. %tid.y and %tid.z never do by
// themselves: `tid.y == 0` keeps a whole row of the block (cuBLAS's
// triangular solves run one 32-thread row so), and a row is one thread only
// together with an x fact (tid.x == 0 && tid.y == 0).
#include "model/ThreadRoles.h"

#include <iterator>
#include <memory>
#include <optional>

#include "model/Comparisons.h"
#include "model/Values.h"

namespace fenceline::model {
namespace {

constexpr uint8_t Lane = 1, Warp = 2, Thread = 4, Block = 8, Data = 16, RowY = 32, PlaneZ = 64;

ThreadSet toSet(uint8_t bits) {
  bool thread = (bits & Thread) || ((bits & Lane) && (bits & Warp));
  if (thread && (bits & Block)) return ThreadSet::OneBlockThread;
  if (thread) return ThreadSet::OneThread;
  if (bits & Lane) return ThreadSet::OneLane;
  if (bits & Warp) return ThreadSet::OneWarp;
  if (bits & (Block | Data | RowY | PlaneZ)) return ThreadSet::Subset;
  return ThreadSet::All;
}

// What an integer expression identifies, when it is a function of thread or
// block ids only. zeroOnly: only "== 0" identifies (x | y == 0, x + y == 0).
struct IdExpr {
  uint8_t bits = 0;  // Lane, Warp, Thread, Block (0 = not an id)
  bool zeroOnly = false;
};

using Kind = ptx::Operand::Kind;
constexpr int kMaxDepth = 24;

}  // namespace

struct ThreadRoles::Impl {
  const FunctionModel& fn;
  const ValueAnalysis& values;
  std::unique_ptr<ValueAnalysis> owned;  // when the model has none
  std::vector<uint8_t> blockBits;

  Impl(const FunctionModel& f, const ValueAnalysis& v) : fn(f), values(v) {}

  const ptx::Operand* op(InstId i, size_t k) const {
    const auto& ops = fn.instructions[i].operands;
    return k < ops.size() ? &ops[k] : nullptr;
  }

  std::optional<int64_t> constantOf(InstId at, size_t k) const {
    AbstractValue v = values.operandValue(at, static_cast<int>(k));
    if (v.isConstant()) return v.constant;
    return std::nullopt;
  }

  IdExpr special(std::string_view name) const {
    if (name == "%laneid") return {Lane, false};
    if (name == "%tid.x") return {Thread, false};
    if (name == "%tid.y") return {RowY, false};
    if (name == "%tid.z") return {PlaneZ, false};
    if (name.starts_with("%ctaid.")) return {Block, false};
    if (name == "%warpid") return {Warp, false};
    return {};
  }

  IdExpr operandExpr(InstId at, size_t k, int depth) const {
    const ptx::Operand* o = op(at, k);
    if (!o) return {};
    if (o->kind == Kind::Special) return special(o->text);
    if (o->kind == Kind::Register) return expr(o->reg, at, depth + 1);
    return {};
  }

  IdExpr expr(ValueReg reg, InstId at, int depth) const {
    if (depth > kMaxDepth) return {};
    InstId d = values.definition(reg, at);
    if (d < 0) return {};
    const Inst& inst = fn.instructions[d];
    if (inst.guard) return {};
    const std::string_view opc = inst.opcode();
    auto operandIsConst = [&](size_t k) { return constantOf(d, k); };
    if (opc == "mov" || opc == "cvt") return operandExpr(d, 1, depth);
    if (opc == "and" || opc == "rem") {
      for (size_t k : {size_t(1), size_t(2)}) {
        auto c = operandIsConst(3 - k);
        if (!c) continue;
        IdExpr x = operandExpr(d, k, depth);
        if (x.zeroOnly || (x.bits != Thread && x.bits != Lane)) return {};
        bool lanes = opc == "and" ? *c == 31 : *c == 32;
        if (lanes) return {Lane, false};
        // tid & -32 (= tid / 32 * 32, how nvcc writes tid / 32 == c): the warp.
        if (opc == "and" && *c == -32 && x.bits == Thread) return {Warp, false};
        return {};
      }
      return {};
    }
    if (opc == "shr" || opc == "div") {
      auto c = operandIsConst(2);
      IdExpr x = operandExpr(d, 1, depth);
      bool warps = opc == "shr" ? (c && *c == 5) : (c && *c == 32);
      if (x.bits == Thread && !x.zeroOnly && warps) return {Warp, false};
      return {};
    }
    if (opc == "mul" || opc == "shl") {  // scaling by a nonzero constant keeps identity
      auto c = operandIsConst(2);
      if (c && *c != 0) return operandExpr(d, 1, depth);
      return {};
    }
    if (opc == "or" || opc == "add") {
      IdExpr a = operandExpr(d, 1, depth), b = operandExpr(d, 2, depth);
      auto idOnly = [](const IdExpr& e) { return e.bits && (e.bits & ~(Thread | Block | RowY | PlaneZ)) == 0; };
      if (idOnly(a) && idOnly(b)) return {uint8_t(a.bits | b.bits), true};
      return {};
    }
    return {};
  }

  // The definition `d` sets the predicate to a constant under which it does
  // not hold (`mov.pred p, 0` asked as p, `mov.pred p, 1` asked as !p): no
  // thread that takes it is in the set.
  bool holdsForNoThread(InstId d, bool negated) const {
    const Inst& inst = fn.instructions[d];
    if (inst.guard || inst.opcode() != "mov") return false;
    const ptx::Operand* s = op(d, 1);
    return s && s->kind == Kind::Integer && (s->intValue == 0) != negated;
  }

  // Facts about the threads for which `reg` (or its negation) holds.
  uint8_t predicate(ValueReg reg, bool negated, InstId at, int depth) const {
    if (depth > kMaxDepth) return Data;
    InstId d = values.definition(reg, at);
    if (d < 0) {
      // Set on several paths: `p = tid >= 480 && elect_one()` compiled as
      // `mov.pred p, 0` on one path and the election on the other. A path
      // that sets it false adds no thread: with one other definition, the
      // set is that definition's (shape M, docs/real-code.md).
      InstId only = -1;
      for (InstId r : values.reachingDefinitions(reg, at)) {
        if (holdsForNoThread(r, negated)) continue;
        if (only >= 0) return Data;
        only = r;
      }
      if (only < 0) return Data;
      d = only;
    }
    const Inst& inst = fn.instructions[d];
    if (inst.guard) return Data;
    const std::string_view opc = inst.opcode();
    const ptx::Operand* dst = op(d, 0);
    if (!dst) return Data;
    // p|q pairs: q is the complement of p (setp) or the election flag (elect.sync).
    bool second = dst->kind == Kind::PredicatePair && dst->elements.size() == 2 && dst->elements[1].reg == reg;
    if (opc == "elect") return second && !negated ? Lane : Data;
    if (opc == "mov") {
      const ptx::Operand* s = op(d, 1);
      return s && s->kind == Kind::Register ? predicate(s->reg, negated, d, depth + 1) : Data;
    }
    if (opc == "not") {
      const ptx::Operand* s = op(d, 1);
      return s && s->kind == Kind::Register ? predicate(s->reg, !negated, d, depth + 1) : Data;
    }
    if (opc == "and" || opc == "or") {
      const ptx::Operand *a = op(d, 1), *b = op(d, 2);
      if (!a || !b || a->kind != Kind::Register || b->kind != Kind::Register) return Data;
      bool conjunction = (opc == "and") != negated;  // !(a | b) = !a & !b
      if (!conjunction) return Data;
      bool each = opc == "and" ? false : true;  // or negated: both operands negated
      return predicate(a->reg, each, d, depth + 1) | predicate(b->reg, each, d, depth + 1);
    }
    if (opc == "setp") {
      uint8_t bits = compare(d, negated != second, depth);
      // setp.cmp.and p, a, b, q: p = cmp && q
      if (inst.syntax->hasModifier("and") && !(negated != second)) {
        if (const ptx::Operand* q = op(d, 3); q && q->kind == Kind::Register)
          bits |= predicate(q->reg, q->negated, d, depth + 1);
      }
      return bits;
    }
    return Data;
  }

  // setp.cmp a, b taken as true (negated=false) or false.
  uint8_t compare(InstId d, bool negated, int depth) const {
    std::string_view cmp = comparisonOf(*fn.instructions[d].syntax);
    size_t xIndex = 1;
    auto c = constantOf(d, 2);
    if (!c) {
      c = constantOf(d, 1);
      xIndex = 2;
      cmp = swappedComparison(cmp);  // c < x  <=>  x > c
    }
    if (!c) return Data;
    if (negated) cmp = negatedComparison(cmp);
    // Ids are non-negative and the constants that single them out below are
    // small: an unsigned comparison reads as its signed twin.
    cmp = signedComparison(cmp);
    // Ids are non-negative: x < 1 and x <= 0 single out x == 0.
    std::optional<int64_t> single;
    if (cmp == "eq") single = *c;
    else if ((cmp == "lt" && *c == 1) || (cmp == "le" && *c == 0)) single = 0;
    const ptx::Operand* x = op(d, xIndex);
    if (!x) return Data;
    if (x->kind == Kind::Register) {
      if (uint8_t b = booleanAlias(x->reg, d, cmp, *c, depth)) return b;
    }
    IdExpr e = operandExpr(d, xIndex, depth);
    // tid < c for c <= 32: threads of warp 0 only.
    if (!single && cmp == "lt" && *c > 1 && *c <= 32 && e.bits == Thread && !e.zeroOnly) return Warp;
    if (!single || !e.bits) return Data;
    if (e.zeroOnly && *single != 0) return Data;
    return e.bits;
  }

  // x compared with a constant, where x is 1/0 from a predicate q:
  // `selp x, 1, 0, q`, or `mov x, 0` + `@q mov x, 1` (elect.sync wrappers).
  uint8_t booleanAlias(ValueReg x, InstId at, std::string_view cmp, int64_t c, int depth) const {
    if (cmp != "eq" && cmp != "ne") return 0;
    auto fromFlag = [&](ValueReg q, bool qNegated, int64_t whenTrue, int64_t whenFalse, InstId qAt) -> uint8_t {
      // Threads where (x cmp c): x == whenTrue where q holds.
      bool wantTrue = (cmp == "eq") ? c == whenTrue : c != whenTrue;
      bool wantFalse = (cmp == "eq") ? c == whenFalse : c != whenFalse;
      if (wantTrue && !wantFalse) return predicate(q, qNegated, qAt, depth + 1);
      if (wantFalse && !wantTrue) return predicate(q, !qNegated, qAt, depth + 1);
      return Data;
    };
    InstId d = values.definition(x, at);
    if (d >= 0 && fn.instructions[d].guard && fn.instructions[d].opcode() == "mov") {
      // mov x, c0 ... @q mov x, c1 (in the same block).
      const Inst& flagged = fn.instructions[d];
      InstId prev = values.definition(x, d);
      if (prev < 0 || prev >= d || fn.instructions[prev].guard || fn.instructions[prev].opcode() != "mov") return 0;
      auto c0 = constantOf(prev, 1), c1 = constantOf(d, 1);
      if (!c0 || !c1 || *c0 == *c1) return 0;
      return fromFlag(flagged.guard->reg, flagged.guard->negated, *c1, *c0, d);
    }
    if (d >= 0) {
      const Inst& inst = fn.instructions[d];
      if (inst.opcode() == "selp" && !inst.guard) {
        auto a = constantOf(d, 1), b = constantOf(d, 2);
        const ptx::Operand* q = op(d, 3);
        if (a && b && *a != *b && q && q->kind == Kind::Register) return fromFlag(q->reg, q->negated, *a, *b, d);
      }
      if (inst.opcode() == "mov" || inst.opcode() == "cvt") {
        const ptx::Operand* s = op(d, 1);
        if (s && s->kind == Kind::Register) return booleanAlias(s->reg, d, cmp, c, depth + 1);
      }
      return 0;
    }
    const auto& defs = values.definitions(x);
    if (defs.size() != 2) return 0;
    const Inst& first = fn.instructions[defs[0]];
    const Inst& second = fn.instructions[defs[1]];
    if (first.opcode() != "mov" || second.opcode() != "mov" || first.guard || !second.guard) return 0;
    auto a = constantOf(defs[0], 1), b = constantOf(defs[1], 1);
    if (!a || !b || *a == *b || fn.blockOf[defs[0]] != fn.blockOf[defs[1]]) return 0;
    return fromFlag(second.guard->reg, second.guard->negated, *b, *a, defs[1]);
  }

  void computeBlocks() {
    const BlockId count = static_cast<BlockId>(fn.blocks.size());
    blockBits.assign(count, 0);
    if (count == 0) return;
    // Conditions entering a block through its single incoming edge.
    struct Condition {
      BlockId branch;
      uint8_t bits;
    };
    std::vector<std::optional<Condition>> entering(count);
    for (BlockId s = 0; s < count; ++s) {
      const auto& preds = fn.blocks[s].predecessors;
      if (preds.size() != 1) continue;
      BlockId h = preds[0];
      const BasicBlock& hb = fn.blocks[h];
      if (hb.last <= hb.first) continue;
      InstId last = hb.last - 1;
      const Inst& term = fn.instructions[last];
      if (!term.guard) continue;
      bool isBranch = term.opcode() == "bra" || term.opcode() == "brx";
      bool isExit = term.effect.kind == EffectKind::Exit;
      if (!isBranch && !isExit) continue;
      if (isBranch && hb.successors.size() != 2) continue;
      bool taken = false;
      if (isBranch)
        for (const auto& o : term.operands)
          if (o.kind == Kind::Label && o.label == s) taken = true;
      // Threads entering s: the guard holds (taken) or does not (fall-through / not exited).
      bool negated = taken ? term.guard->negated : !term.guard->negated;
      entering[s] = Condition{h, predicate(term.guard->reg, negated, last, 0)};
    }
    // Dominator-tree walk with the conditions that guard the current path.
    std::vector<std::vector<BlockId>> children(count);
    for (BlockId b = 1; b < count; ++b)
      if (fn.idom[b] >= 0) children[fn.idom[b]].push_back(b);
    // One stack of active conditions per fact; for each fact, the innermost
    // condition the block does not post-dominate decides. The scan is capped
    // (kScan) so that long chains of data-dependent branches stay linear: a
    // block nested under more than kScan such branches may read as All
    // instead of Subset.
    constexpr size_t kScan = 64;
    constexpr uint8_t kFacts[] = {Lane, Warp, Thread, Block, Data, RowY, PlaneZ};
    constexpr int kFactCount = static_cast<int>(std::size(kFacts));
    std::vector<BlockId> active[kFactCount];
    std::vector<std::pair<BlockId, size_t>> stack{{0, 0}};
    auto enter = [&](BlockId b) {
      if (entering[b])
        for (int f = 0; f < kFactCount; ++f)
          if (entering[b]->bits & kFacts[f]) active[f].push_back(entering[b]->branch);
      uint8_t bits = 0;
      for (int f = 0; f < kFactCount; ++f) {
        const auto& branches = active[f];
        for (size_t k = 0; k < branches.size() && k < kScan; ++k)
          if (!fn.postDominates(b, branches[branches.size() - 1 - k])) {
            bits |= kFacts[f];
            break;
          }
      }
      blockBits[b] = bits;
    };
    auto leave = [&](BlockId b) {
      if (entering[b])
        for (int f = 0; f < kFactCount; ++f)
          if (entering[b]->bits & kFacts[f]) active[f].pop_back();
    };
    enter(0);
    while (!stack.empty()) {
      model::poll();
      auto& [b, next] = stack.back();
      if (next < children[b].size()) {
        BlockId c = children[b][next++];
        enter(c);
        stack.emplace_back(c, 0);
        continue;
      }
      leave(b);
      stack.pop_back();
    }
  }
};

ThreadRoles::ThreadRoles(const FunctionModel& fn) {
  // buildProgram builds the value analysis first; a model built by hand may not have one.
  std::unique_ptr<ValueAnalysis> own;
  if (!fn.values) own = std::make_unique<ValueAnalysis>(fn);
  const ValueAnalysis& values = fn.values ? *fn.values : *own;
  impl_ = std::make_shared<Impl>(fn, values);
  impl_->owned = std::move(own);
  impl_->computeBlocks();
}

ThreadSet ThreadRoles::blockSet(BlockId block) const {
  if (block < 0 || static_cast<size_t>(block) >= impl_->blockBits.size()) return ThreadSet::All;
  return toSet(impl_->blockBits[block]);
}

ThreadSet ThreadRoles::instructionSet(InstId inst) const {
  const auto& fn = impl_->fn;
  if (inst < 0 || static_cast<size_t>(inst) >= fn.instructions.size()) return ThreadSet::All;
  const Inst& i = fn.instructions[inst];
  uint8_t bits = impl_->blockBits[i.block];
  bool isBranch = i.opcode() == "bra" || i.opcode() == "brx";
  if (i.guard && !isBranch) bits |= impl_->predicate(i.guard->reg, i.guard->negated, inst, 0);
  return toSet(bits);
}

ThreadSet ThreadRoles::predicateSet(ValueReg predicate, bool negated, InstId at) const {
  return toSet(impl_->predicate(predicate, negated, at, 0));
}

std::string_view toString(ThreadSet s) {
  static constexpr std::string_view names[] = {"all",      "one-lane",         "one-thread",
                                               "one-warp", "one-block-thread", "subset"};
  auto i = static_cast<size_t>(s);
  return i < std::size(names) ? names[i] : "?";
}

}  // namespace fenceline::model
