// Facts from branch edges and a predicate evaluated from them (see
// EdgeFacts.h): the climb up the single-predecessor chain, the operands an
// or/and/not decides, and a three-valued evaluation whose leaves are values
// equal to a fact's, by register or by computation.
#include "model/EdgeFacts.h"

#include <algorithm>

#include "model/BranchEdges.h"
#include "model/Limits.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

constexpr int kMaxDepth = 8;
constexpr int kMaxEdges = 6;

// Special registers that hold one value for a thread through the kernel.
bool fixedSpecial(std::string_view name) {
  for (std::string_view prefix : {"%tid.", "%ntid.", "%ctaid.", "%nctaid.", "%laneid", "%cluster_ctaid.",
                                  "%cluster_nctaid.", "%cluster_ctarank", "%cluster_nctarank", "%clusterid.",
                                  "%nclusterid."})
    if (name.starts_with(prefix)) return true;
  return false;
}

// A register operand (not negated unless `negatedOk`), or -1.
ValueReg registerOperand(const Inst& in, size_t k) {
  return k < in.operands.size() && in.operands[k].kind == ptx::Operand::Kind::Register ? in.operands[k].reg : -1;
}

bool negatedOperand(const Inst& in, size_t k) { return k < in.operands.size() && in.operands[k].negated; }

}  // namespace

std::vector<PredicateFact> EdgeFacts::onEdgeChain(BlockId from, BlockId to) const {
  std::vector<PredicateFact> facts;
  for (int edges = 0; edges < kMaxEdges && from >= 0; ++edges) {
    if (const std::optional<EdgeCondition> edge = edgeCondition(fn_, from, to); edge && edge->predicate >= 0)
      addWithOperands(facts, {edge->predicate, edge->value, edge->branch}, 0);
    if (fn_.blocks[from].predecessors.size() != 1) break;
    to = from;
    from = fn_.blocks[from].predecessors.front();
    if (from == to) break;
  }
  return facts;
}

void EdgeFacts::addWithOperands(std::vector<PredicateFact>& facts, PredicateFact fact, int depth) const {
  facts.push_back(fact);
  if (depth >= 4 || !fn_.values) return;
  const std::vector<InstId> defs = fn_.values->reachingDefinitions(fact.reg, fact.at);
  if (defs.size() != 1) return;
  const InstId d = defs.front();
  const Inst& in = fn_.instructions[d];
  if (!in.hasModifier("pred") && in.opcode() != "mov") return;
  const std::string_view op = in.opcode();
  auto operand = [&](size_t k, bool value) {
    const ValueReg r = registerOperand(in, k);
    if (r >= 0) addWithOperands(facts, {r, negatedOperand(in, k) ? !value : value, d}, depth + 1);
  };
  if ((op == "not" || op == "mov") && in.operands.size() == 2) {
    if (op == "mov" && fn_.registerTypes[fact.reg] != ".pred") return;
    operand(1, op == "not" ? !fact.value : fact.value);
  } else if (in.operands.size() == 3 && ((op == "or" && !fact.value) || (op == "and" && fact.value))) {
    operand(1, fact.value);
    operand(2, fact.value);
  }
}

std::optional<bool> EdgeFacts::evaluate(const std::vector<PredicateFact>& facts, ValueReg reg, InstId use) const {
  if (facts.empty() || !fn_.values) return std::nullopt;
  return evaluate(facts, reg, use, 0);
}

std::optional<bool> EdgeFacts::evaluate(const std::vector<PredicateFact>& facts, ValueReg reg, InstId use,
                                        int depth) const {
  if (depth > kMaxDepth) return std::nullopt;
  for (const PredicateFact& f : facts)
    if (sameValue(f.reg, f.at, reg, use, depth)) return f.value;
  const InstId d = tripDefinition(reg, use);
  if (d < 0) return std::nullopt;
  const Inst& in = fn_.instructions[d];
  const std::string_view op = in.opcode();
  auto operand = [&](size_t k) -> std::optional<bool> {
    const ValueReg r = registerOperand(in, k);
    if (r < 0) return std::nullopt;
    std::optional<bool> v = evaluate(facts, r, d, depth + 1);
    if (v && negatedOperand(in, k)) v = !*v;
    return v;
  };
  if (op == "mov" && in.operands.size() == 2 && fn_.registerTypes[reg] == ".pred") return operand(1);
  if (!in.hasModifier("pred")) return std::nullopt;
  if (op == "not" && in.operands.size() == 2) {
    const std::optional<bool> v = operand(1);
    return v ? std::optional<bool>(!*v) : std::nullopt;
  }
  if ((op == "and" || op == "or") && in.operands.size() == 3) {
    const bool dominant = op == "or";  // the operand value that decides the result alone
    const std::optional<bool> a = operand(1);
    if (a && *a == dominant) return dominant;
    const std::optional<bool> b = operand(2);
    if (b && *b == dominant) return dominant;
    if (a && b) return !dominant;
  }
  return std::nullopt;
}

bool EdgeFacts::onceOnTrip(InstId definition, InstId at) const {
  if (!fn_.dominatesInst(definition, at)) return false;
  // Every loop holding the definition lies around the trip's loop (not the
  // loop itself, not a loop inside or beside it): one execution per trip.
  for (int32_t l = fn_.loopOf[fn_.blockOf[definition]]; l >= 0; l = fn_.loops[l].parent) {
    bool around = false;
    for (int32_t t = tripLoop_ >= 0 ? fn_.loops[tripLoop_].parent : -1; t >= 0 && !around; t = fn_.loops[t].parent)
      around = t == l;
    if (!around) return false;
  }
  return true;
}

InstId EdgeFacts::tripDefinition(ValueReg reg, InstId at) const {
  const std::vector<InstId> defs = fn_.values->reachingDefinitions(reg, at);
  if (defs.size() != 1 || !onceOnTrip(defs.front(), at)) return -1;
  return defs.front();
}

bool EdgeFacts::sameValue(ValueReg a, InstId atA, ValueReg b, InstId atB, int depth) const {
  poll();
  if (depth > kMaxDepth) return false;
  const InstId da = tripDefinition(a, atA);
  const InstId db = tripDefinition(b, atB);
  if (da < 0 || db < 0) return false;
  if (da == db) return true;  // one execution gave both
  // The same computation: same opcode and modifiers, equal operands, no
  // memory read but a kernel parameter.
  const Inst& x = fn_.instructions[da];
  const Inst& y = fn_.instructions[db];
  if (x.opcode() != y.opcode() || x.operands.size() != y.operands.size()) return false;
  if (!std::equal(x.syntax->modifiers.begin(), x.syntax->modifiers.end(), y.syntax->modifiers.begin(),
                  y.syntax->modifiers.end()))
    return false;
  const bool parameter = x.opcode() == "ld" && x.hasModifier("param") && x.boundStore < 0 && y.boundStore < 0;
  if (!parameter && (x.effect.kind != EffectKind::None || y.effect.kind != EffectKind::None)) return false;
  if (x.guard || y.guard) return false;
  for (size_t k = 1; k < x.operands.size(); ++k)
    if (!sameOperand(da, db, k, depth)) return false;
  return true;
}

bool EdgeFacts::sameOperand(InstId a, InstId b, size_t k, int depth) const {
  const ptx::Operand& x = fn_.instructions[a].operands[k];
  const ptx::Operand& y = fn_.instructions[b].operands[k];
  if (x.kind != y.kind || x.negated != y.negated) return false;
  switch (x.kind) {
    case ptx::Operand::Kind::Register: return sameValue(x.reg, a, y.reg, b, depth + 1);
    case ptx::Operand::Kind::Integer: return x.intValue == y.intValue;
    case ptx::Operand::Kind::Special: return x.text == y.text && fixedSpecial(x.text);
    case ptx::Operand::Kind::Address:
      // A kernel parameter, by name and offset (ld.param only: see sameValue).
      return !x.baseSymbol().empty() && x.baseSymbol() == y.baseSymbol() && x.offset == y.offset &&
             x.elements.empty() && y.elements.empty();
    default: return false;
  }
}

}  // namespace fenceline::model
