// The value analysis: what a register holds where it is used, as an
// AbstractValue. PTX registers may be assigned several times, so a use reads
// the nearest earlier definition in its block when there is one, and
// otherwise the join of all definitions of the register (flow-insensitive).
// A register whose definitions depend on itself (a loop counter, a pointer
// bumped each iteration) becomes "initial value + loop:<reg>". Everything is
// computed on demand and memoized, so a query costs little more than the
// definitions it reads.
//
// Inlined parameters and return values read through Inst::boundStore.
#include "model/Values.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "model/IntegerDivision.h"
#include "model/ReachingDefinitions.h"
#include "model/ValueAlgebra.h"

namespace fenceline::model {

using values::add;
using values::constant;
using values::join;
using values::scale;
using values::subtract;
using values::term;
using Kind = ptx::Operand::Kind;
using BaseKind = AbstractValue::BaseKind;

namespace {

// Special registers and their ranges.
struct SpecialRange {
  std::string_view prefix;
  int64_t low, high;
};
constexpr SpecialRange kSpecials[] = {
    {"%tid.x", 0, 1023},      {"%tid.y", 0, 1023},   {"%tid.z", 0, 63},          {"%laneid", 0, 31},
    {"%warpid", 0, 1023},     {"%ntid", 1, 1024},    {"%ctaid", 0, INT32_MAX},   {"%nctaid", 1, INT32_MAX},
    {"%cluster_ctarank", 0, 31}, {"%clusterid", 0, INT32_MAX}, {"%cluster_ctaid", 0, 31},
    {"%cluster_nctarank", 1, 32}, {"%smid", 0, 1023}, {"%nwarpid", 1, 1024},
};

AbstractValue special(const std::string& name) {
  for (const auto& s : kSpecials)
    if (name.starts_with(s.prefix)) return term(name, s.low, s.high);
  return term(name);
}

// Opcodes whose operand 0 is not a destination even when it is a register.
bool writesOperand0(const ptx::Instruction& i) {
  static const std::unordered_set<std::string_view> noDest = {"nanosleep", "pmevent", "trap", "exit", "ret", "bra", "brx",
                                                "call", "fence", "membar", "setmaxnreg", "griddepcontrol",
                                                "st", "red", "prefetch", "prefetchu", "cp", "stmatrix",
                                                "sust", "sured", "tensormap", "brkpt", "stackrestore"};
  if (i.opcode == "bar" || i.opcode == "barrier") return i.hasModifier("red");
  if (noDest.count(i.opcode)) return false;
  if (i.opcode == "multimem") return i.hasModifier("ld_reduce");
  if (i.opcode == "mbarrier") return i.hasModifier("arrive") || i.hasModifier("arrive_drop") ||
                                     i.hasModifier("try_wait") || i.hasModifier("test_wait") ||
                                     i.hasModifier("pending_count");
  return true;
}

void collectDefs(const ptx::Operand& op, std::vector<ValueReg>& out) {
  if (op.kind == Kind::Register && op.reg >= 0) out.push_back(op.reg);
  if (op.kind == Kind::Vector || op.kind == Kind::PredicatePair)
    for (const auto& e : op.elements) collectDefs(e, out);
}

// Width in bytes of a type modifier (.b32 -> 4), or 0.
int64_t typeWidth(std::string_view m) {
  if (m.size() < 2) return 0;
  char c = m[0];
  if (c != 'b' && c != 'u' && c != 's' && c != 'f') return 0;
  int bits = 0;
  for (char d : m.substr(1)) {
    if (d < '0' || d > '9') return 0;
    bits = bits * 10 + (d - '0');
  }
  return bits % 8 == 0 && bits > 0 && bits <= 128 ? bits / 8 : 0;
}

bool isIntegerConversion(const ptx::Instruction& i) {
  // cvt.u64.u32, cvt.s64.s32, cvt.u32.u64 ...: integer to integer (no rounding modifier needed).
  int ints = 0;
  for (const auto& m : i.modifiers)
    if (!m.empty() && (m[0] == 'u' || m[0] == 's' || m[0] == 'b') && typeWidth(m)) ++ints;
    else if (!m.empty() && m[0] == 'f' && typeWidth(m)) return false;
  return ints >= 2;
}

}  // namespace

struct ValueAnalysis::Impl {
  const FunctionModel& fn;
  std::vector<std::vector<InstId>> defs;  // per register, ascending
  std::vector<AbstractValue> defValue;    // per instruction: value of its operand-0 register
  std::vector<uint8_t> defState;          // 0 new, 1 in progress, 2 done
  std::vector<AbstractValue> joined;      // per register
  std::vector<uint8_t> joinState;
  std::vector<InstId> computedLog;        // defs computed, in order (for invalidation)
  std::vector<ValueReg> joinedLog;
  std::vector<uint8_t> placeholderUsed;   // per register

  std::unique_ptr<ReachingDefinitions> reaching;
  int depth = 0;                          // recursion guard for long definition chains
  static constexpr int kMaxDepth = 2000;

  explicit Impl(const FunctionModel& f) : fn(f) {
    const size_t n = fn.instructions.size();
    defs.resize(fn.registerNames.size());
    defValue.resize(n);
    defState.assign(n, 0);
    joined.resize(fn.registerNames.size());
    joinState.assign(fn.registerNames.size(), 0);
    placeholderUsed.assign(fn.registerNames.size(), 0);
    std::vector<ValueReg> out;
    for (size_t i = 0; i < n; ++i) {
      const Inst& inst = fn.instructions[i];
      if (inst.operands.empty() || !writesOperand0(*inst.syntax)) continue;
      out.clear();
      collectDefs(inst.operands[0], out);
      for (ValueReg r : out)
        if (static_cast<size_t>(r) < defs.size()) defs[r].push_back(static_cast<InstId>(i));
    }
    reaching = std::make_unique<ReachingDefinitions>(fn, defs);
    // Evaluate definitions in program order, so that operands are mostly
    // known already and recursion stays shallow (and results do not depend on
    // the order in which checks ask).
    for (size_t i = 0; i < n; ++i) {
      const Inst& inst = fn.instructions[i];
      if (inst.operands.empty() || inst.operands[0].kind != Kind::Register) continue;
      ValueReg r = inst.operands[0].reg;
      if (r < 0 || static_cast<size_t>(r) >= defs.size() || fn.registerTypes[r] == ".pred") continue;
      if (!writesOperand0(*inst.syntax)) continue;
      valueDefinedBy(static_cast<InstId>(i), r);
    }
  }

  std::string name(InstId i, const char* kind) const { return std::string(kind) + ":" + std::to_string(i); }
  std::string loopName(ValueReg r) const { return "loop:" + fn.registerNames[r] + "@" + std::to_string(r); }

  InstId definition(ValueReg reg, InstId at) const {
    if (reg < 0 || static_cast<size_t>(reg) >= defs.size()) return -1;
    const auto& d = defs[reg];
    if (d.empty()) return -1;
    if (at >= 0 && static_cast<size_t>(at) < fn.blockOf.size()) {
      auto it = std::lower_bound(d.begin(), d.end(), at);
      if (it != d.begin() && fn.blockOf[*(it - 1)] == fn.blockOf[at]) return *(it - 1);
    }
    if (d.size() == 1) return d.front();
    // Several definitions: the one that alone reaches the use's block, if any.
    if (!reaching || at < 0 || static_cast<size_t>(at) >= fn.blockOf.size()) return -1;
    InstId only = -1;
    for (InstId def : d)
      if (reaching->reachesEntry(def, fn.blockOf[at])) {
        if (only >= 0) return -1;
        only = def;
      }
    return only;
  }

  AbstractValue valueOf(ValueReg reg, InstId at) {
    if (reg < 0 || static_cast<size_t>(reg) >= defs.size()) return values::top();
    InstId d = definition(reg, at);
    if (d < 0) return defs[reg].empty() ? term("reg:" + std::to_string(reg)) : joinOf(reg);
    AbstractValue v = valueDefinedBy(d, reg);
    const Inst& def = fn.instructions[d];
    if (def.guard && defs[reg].size() > 1) {
      // @p mov r, x: r keeps its previous value where p is false.
      AbstractValue before = defs[reg].front() == d ? values::top() : valueOf(reg, d);
      if (before.known) v = join(v, before, name(d, "join"));
    }
    return v;
  }

  AbstractValue valueDefinedBy(InstId d, ValueReg reg) {
    const Inst& inst = fn.instructions[d];
    if (inst.operands.empty() || inst.operands[0].kind != Kind::Register || inst.operands[0].reg != reg)
      return term(name(d, "def"));  // one element of a vector / predicate pair
    if (defState[d] == 2) return defValue[d];
    if (defState[d] == 1) {  // a cycle through single definitions
      placeholderUsed[reg] = 1;
      return term(loopName(reg));
    }
    if (depth >= kMaxDepth) return term(name(d, "def"));
    defState[d] = 1;
    ++depth;
    AbstractValue v = evaluate(d);
    --depth;
    defValue[d] = v;
    defState[d] = 2;
    computedLog.push_back(d);
    return v;
  }

  AbstractValue joinOf(ValueReg reg) {
    if (joinState[reg] == 2) return joined[reg];
    if (joinState[reg] == 1) {
      placeholderUsed[reg] = 1;
      return term(loopName(reg));
    }
    joinState[reg] = 1;
    size_t logMark = computedLog.size(), joinMark = joinedLog.size();
    placeholderUsed[reg] = 0;
    std::string loop = loopName(reg);
    std::optional<AbstractValue> init;
    bool updated = false, unknown = false;
    for (InstId d : defs[reg]) {
      AbstractValue v = valueDefinedBy(d, reg);
      bool update = std::any_of(v.terms.begin(), v.terms.end(), [&](const auto& t) { return t.name == loop; });
      if (update) {
        updated = true;
        continue;
      }
      if (!v.known) unknown = true;
      init = init ? join(*init, v, "join:" + fn.registerNames[reg] + "@" + std::to_string(reg)) : v;
    }
    AbstractValue result;
    if (unknown || !init) {
      result = term(loop);
    } else if (updated) {
      AbstractValue base = *init;
      base.terms.clear();
      base.constant = 0;
      result = add(base, term(loop), loop);
      if (!init->hasBase()) result = term(loop);
    } else {
      result = *init;
    }
    if (placeholderUsed[reg]) {
      // Values computed meanwhile may hold the placeholder: recompute on demand.
      for (size_t k = logMark; k < computedLog.size(); ++k) defState[computedLog[k]] = 0;
      computedLog.resize(logMark);
      for (size_t k = joinMark; k < joinedLog.size(); ++k) joinState[joinedLog[k]] = 0;
      joinedLog.resize(joinMark);
    }
    joined[reg] = result;
    joinState[reg] = 2;
    joinedLog.push_back(reg);
    return result;
  }

  const ptx::Variable* variable(const Inst& inst, const std::string& symbol) const {
    if (inst.origin)
      for (const auto& v : inst.origin->locals)
        if (v.name == symbol) return &v;
    if (fn.module)
      for (const auto& v : fn.module->globals)
        if (v.name == symbol) return &v;
    return nullptr;
  }

  AbstractValue symbolValue(const Inst& inst, const std::string& symbol) const {
    if (const ptx::Variable* v = variable(inst, symbol)) {
      if (v->space == ".shared") return values::object(BaseKind::SharedSymbol, symbol, Space::SharedCta);
      if (v->space == ".global") return values::object(BaseKind::GlobalSymbol, symbol, Space::Global);
      if (v->space == ".const") return values::object(BaseKind::GlobalSymbol, symbol, Space::Const);
      if (v->space == ".local") return values::object(BaseKind::GlobalSymbol, symbol, Space::Local);
      if (v->space == ".param") return values::object(BaseKind::Unknown, symbol, Space::Param);
    }
    if (inst.origin)
      for (const auto& p : inst.origin->params)
        if (p.name == symbol) return values::object(BaseKind::Param, symbol, Space::Param);
    return values::object(BaseKind::Unknown, symbol, Space::Generic);
  }

  AbstractValue operand(InstId at, const ptx::Operand& op) {
    switch (op.kind) {
      case Kind::Register: return valueOf(op.reg, at);
      case Kind::Integer: return constant(op.intValue);
      case Kind::Special: return special(op.text);
      case Kind::Symbol: return symbolValue(fn.instructions[at], op.text);
      case Kind::Address: {
        AbstractValue base;
        if (op.base.kind == Kind::Register) base = valueOf(op.base.reg, at);
        else if (op.base.kind == Kind::Symbol) base = symbolValue(fn.instructions[at], op.base.symbol);
        else base = constant(op.base.value);
        return op.offset ? add(base, constant(op.offset), name(at, "addr")) : base;
      }
      default: return values::top();
    }
  }

  AbstractValue src(InstId at, size_t k) {
    const auto& ops = fn.instructions[at].operands;
    return k < ops.size() ? operand(at, ops[k]) : values::top();
  }

  // The value an instruction writes to its operand-0 register.
  AbstractValue evaluate(InstId d) {
    const Inst& inst = fn.instructions[d];
    const ptx::Instruction& s = *inst.syntax;
    const std::string& op = s.opcode;
    const std::string opaque = name(d, "def");
    auto withSpace = [](AbstractValue v, Space sp) {
      if (v.known) v.space = sp;
      return v;
    };
    if (op == "mov") return src(d, 1);
    if (op == "cvta") {
      Space sp = s.hasModifier("shared") || s.hasModifier("shared::cta") ? Space::SharedCta
                 : s.hasModifier("shared::cluster")                     ? Space::SharedCluster
                 : s.hasModifier("global")                              ? Space::Global
                 : s.hasModifier("local")                               ? Space::Local
                 : s.hasModifier("const")                               ? Space::Const
                 : s.hasModifier("param")                               ? Space::Param
                                                                        : Space::Generic;
      AbstractValue v = src(d, 1);
      return v.known ? withSpace(v, sp) : term(opaque);
    }
    if (op == "mapa") return withSpace(src(d, 1), Space::SharedCluster);
    if (op == "cvt") return isIntegerConversion(s) ? src(d, 1) : term(opaque);
    if (op == "add" && !s.hasModifier("f32") && !s.hasModifier("f64") && !s.hasModifier("f16"))
      return nonTop(add(src(d, 1), src(d, 2), opaque), opaque);
    if (op == "sub" && !s.hasModifier("f32") && !s.hasModifier("f64"))
      return nonTop(subtract(src(d, 1), src(d, 2), opaque), opaque);
    if ((op == "mul" && (s.hasModifier("lo") || s.hasModifier("wide"))) ||
        ((op == "mad") && (s.hasModifier("lo") || s.hasModifier("wide")))) {
      AbstractValue a = src(d, 1), b = src(d, 2);
      AbstractValue product = a.isConstant() ? scale(b, a.constant, opaque)
                              : b.isConstant() ? scale(a, b.constant, opaque)
                                               : term(opaque);
      return op == "mad" ? nonTop(add(product, src(d, 3), opaque), opaque) : nonTop(product, opaque);
    }
    if (op == "shl") {
      AbstractValue a = src(d, 1), k = src(d, 2);
      if (k.isConstant() && k.constant >= 0 && k.constant < 62) return nonTop(scale(a, int64_t(1) << k.constant, opaque), opaque);
      return term(opaque);
    }
    if (op == "and" || op == "or" || op == "xor" || op == "shr" || op == "rem" || op == "div") return bitwise(d, opaque);
    if (op == "selp") return join(src(d, 1), src(d, 2), name(d, "join"));
    if (op == "ld" && s.hasModifier("param")) {
      if (inst.boundStore >= 0) return nonTop(src(inst.boundStore, 1), opaque);
      const auto& a = inst.operands.size() > 1 ? inst.operands[1] : ptx::Operand{};
      if (a.kind == Kind::Address && a.base.kind == Kind::Symbol && inst.origin == fn.function) {
        // A kernel's pointer params point to global memory; a .func's may point anywhere.
        // A field of a by-value struct param is its own object: "p_param_0+48".
        Space sp = fn.function->isEntry ? Space::Global : Space::Generic;
        for (const auto& p : fn.function->params)
          if (p.name == a.base.symbol)
            return values::object(BaseKind::Param, a.offset ? p.name + "+" + std::to_string(a.offset) : p.name, sp);
      }
      return term(opaque);
    }
    return term(opaque);
  }

  AbstractValue nonTop(AbstractValue v, const std::string& opaque) { return v.known ? v : term(opaque); }

  // and / or / xor / shr / rem / div: exact on constants; otherwise an opaque
  // term, bounded when the operation bounds it.
  AbstractValue bitwise(InstId d, const std::string& opaque) {
    const ptx::Instruction& s = *fn.instructions[d].syntax;
    const std::string& op = s.opcode;
    AbstractValue a = src(d, 1), b = src(d, 2);
    if (a.isConstant() && b.isConstant()) {
      int64_t x = a.constant, y = b.constant;
      if (op == "and") return constant(x & y);
      if (op == "or") return constant(x | y);
      if (op == "xor") return constant(x ^ y);
      if (op == "shr" && y >= 0 && y < 64) return constant(x >> y);
      if (op == "rem" || op == "div") {
        bool isUnsigned = !(s.hasModifier("s16") || s.hasModifier("s32") || s.hasModifier("s64"));
        if (auto folded = foldDivision(x, y, isUnsigned, op == "rem")) return constant(*folded);
      }
      return term(opaque);
    }
    bool isSigned = s.hasModifier("s32") || s.hasModifier("s64");
    auto range = a.offsetRange();
    bool nonNegative = range && range->first >= 0;
    if (op == "and" && (b.isConstant() || a.isConstant())) {
      int64_t mask = b.isConstant() ? b.constant : a.constant;
      if (mask >= 0) return term(opaque, 0, mask);
    }
    if ((op == "or" || op == "xor") && nonNegative) {
      // Both non-negative and bounded: the result stays below the next power of two.
      auto rb = b.offsetRange();
      if (rb && rb->first >= 0 && range->second < (int64_t(1) << 40) && rb->second < (int64_t(1) << 40)) {
        int64_t top = std::max(range->second, rb->second), limit = 1;
        while (limit <= top) limit <<= 1;
        return term(opaque, 0, limit - 1);
      }
    }
    if (op == "rem" && b.isConstant() && b.constant > 0 && (!isSigned || nonNegative))
      return term(opaque, 0, b.constant - 1);
    if ((op == "shr" || op == "div") && b.isConstant() && b.constant > 0 && nonNegative) {
      int64_t hi = op == "shr" ? (b.constant < 63 ? range->second >> b.constant : 0) : range->second / b.constant;
      int64_t lo = op == "shr" ? (b.constant < 63 ? range->first >> b.constant : 0) : range->first / b.constant;
      return term(opaque, lo, hi);
    }
    return term(opaque);
  }
};

ValueAnalysis::ValueAnalysis(const FunctionModel& fn) : impl_(std::make_shared<Impl>(fn)) {}

AbstractValue ValueAnalysis::valueOf(ValueReg reg, InstId at) const { return impl_->valueOf(reg, at); }

AbstractValue ValueAnalysis::operandValue(InstId at, int k) const {
  const auto& insts = impl_->fn.instructions;
  if (at < 0 || static_cast<size_t>(at) >= insts.size() || k < 0 || static_cast<size_t>(k) >= insts[at].operands.size())
    return values::top();
  return impl_->operand(at, insts[at].operands[k]);
}

InstId ValueAnalysis::definition(ValueReg reg, InstId at) const { return impl_->definition(reg, at); }

const std::vector<InstId>& ValueAnalysis::definitions(ValueReg reg) const {
  static const std::vector<InstId> none;
  return reg >= 0 && static_cast<size_t>(reg) < impl_->defs.size() ? impl_->defs[reg] : none;
}

Space ValueAnalysis::addressSpace(InstId at, int k) const {
  const auto& insts = impl_->fn.instructions;
  if (at < 0 || static_cast<size_t>(at) >= insts.size()) return Space::None;
  const MemoryEffect& e = insts[at].effect;
  Space declared = Space::Generic;
  if (k == e.destination && e.destinationSpace != Space::None) declared = e.destinationSpace;
  else if (k == e.source && e.sourceSpace != Space::None) declared = e.sourceSpace;
  else if (k == e.address && e.space != Space::None) declared = e.space;
  else if (k == e.mbarrier) declared = Space::SharedCta;
  if (declared != Space::Generic) return declared;
  AbstractValue v = operandValue(at, k);
  if (v.known && v.space != Space::None && v.space != Space::Param) return v.space;
  return Space::Generic;
}

int64_t ValueAnalysis::accessSize(InstId at, int k) const {
  const auto& insts = impl_->fn.instructions;
  if (at < 0 || static_cast<size_t>(at) >= insts.size()) return -1;
  const Inst& inst = insts[at];
  const MemoryEffect& e = inst.effect;
  switch (e.kind) {
    case EffectKind::MbarrierInit: case EffectKind::MbarrierArrive: case EffectKind::MbarrierExpectTx:
    case EffectKind::MbarrierWait: case EffectKind::MbarrierInval:
      return 8;
    case EffectKind::AsyncCopy: {
      if (inst.hasModifier("tensor")) return -1;  // box size lives in the tensor map
      if (k == e.mbarrier) return 8;
      // cp.async[.bulk] [dst], [src], size: the first integer-valued operand after the addresses.
      for (size_t o = 2; o < inst.operands.size(); ++o) {
        if (inst.operands[o].kind == ptx::Operand::Kind::Address) continue;
        AbstractValue v = operandValue(at, static_cast<int>(o));
        return v.isConstant() && v.constant > 0 ? v.constant : -1;
      }
      return -1;
    }
    default: break;
  }
  if (inst.opcode() == "ldmatrix" || inst.opcode() == "stmatrix") return 16;
  int64_t width = 0, count = 1;
  for (const auto& m : inst.syntax->modifiers) {
    if (m == "v2") count = 2;
    else if (m == "v4") count = 4;
    else if (m == "v8") count = 8;
    else if (int64_t w = typeWidth(m)) width = w;
  }
  return width ? width * count : -1;
}

bool ValueAnalysis::sameObject(InstId a, int oa, InstId b, int ob) const {
  AbstractValue va = operandValue(a, oa), vb = operandValue(b, ob);
  if (!va.known || !vb.known || va.baseKind == BaseKind::None || va.baseKind == BaseKind::Unknown) return false;
  return va.baseKind == vb.baseKind && va.base == vb.base;
}

namespace {

bool disjointSpaces(Space a, Space b) {
  auto concrete = [](Space s) { return s != Space::None && s != Space::Generic; };
  if (!concrete(a) || !concrete(b) || a == b) return false;
  auto isShared = [](Space s) { return s == Space::SharedCta || s == Space::SharedCluster; };
  auto isGlobal = [](Space s) { return s == Space::Global || s == Space::Tensor; };
  if (isShared(a) && isShared(b)) return false;
  if (isGlobal(a) && isGlobal(b)) return false;
  return true;
}

}  // namespace

bool ValueAnalysis::mayAlias(InstId a, int oa, InstId b, int ob) const {
  if (disjointSpaces(addressSpace(a, oa), addressSpace(b, ob))) return false;
  AbstractValue va = operandValue(a, oa), vb = operandValue(b, ob);
  if (!va.known || !vb.known) return true;
  auto isObject = [](BaseKind k) { return k == BaseKind::SharedSymbol || k == BaseKind::GlobalSymbol; };
  auto externShared = [&](const AbstractValue& v, InstId at) {
    const ptx::Variable* var = impl_->variable(impl_->fn.instructions[at], v.base);
    return var && (var->isExtern || var->arraySize == 0);
  };
  if (va.baseKind != vb.baseKind || va.base != vb.base) {
    // Different named objects are disjoint, except dynamic (extern) shared arrays, which share one base.
    if (isObject(va.baseKind) && isObject(vb.baseKind)) {
      if (va.baseKind == BaseKind::SharedSymbol && vb.baseKind == BaseKind::SharedSymbol && externShared(va, a) &&
          externShared(vb, b))
        return true;
      return false;
    }
    // A kernel parameter points to global memory: never into a shared symbol.
    bool kernel = impl_->fn.function && impl_->fn.function->isEntry;
    if (kernel && ((va.baseKind == BaseKind::Param && vb.baseKind == BaseKind::SharedSymbol) ||
                   (vb.baseKind == BaseKind::Param && va.baseKind == BaseKind::SharedSymbol)))
      return false;
    return true;
  }
  // Same base (or both without one): compare offset intervals.
  auto ra = va.offsetRange(), rb = vb.offsetRange();
  if (!ra || !rb) return true;
  int64_t sa = accessSize(a, oa), sb = accessSize(b, ob);
  bool aBeforeB = sa > 0 && ra->second + sa <= rb->first;
  bool bBeforeA = sb > 0 && rb->second + sb <= ra->first;
  return !(aBeforeB || bBeforeA);
}

}  // namespace fenceline::model
