// Pointers read from memory, as the partner model (Protocol.h) sees them:
// which load read the pointer an access goes through, when two such pointers
// come from two distinct fields of one record (distinct objects), and when
// one is a peer pointer (evidence of an off-GPU partner for the scope).
// Issue 11 shape 5: `s->inbound` and `s->expected` are two objects; a table
// indexed by rank holds peer pointers, a struct field or a table indexed by
// the block does not.
#include <algorithm>
#include <charconv>
#include <iterator>
#include <numeric>
#include <string_view>

#include "model/Protocol.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

int addressOf(const FunctionModel& fn, InstId inst) { return fn.instructions[inst].effect.address; }

}  // namespace

InstId ProtocolModel::pointerLoad(InstId access) const {
  int operand = addressOf(fn_, access);
  if (operand < 0) return -1;
  const AbstractValue value = fn_.values->operandValue(access, operand);
  if (!value.known || value.baseKind != AbstractValue::BaseKind::Loaded) return -1;
  // Walk the definitions back along the operand that carries the same base
  // (cvta, add, mad ...) to the load whose result is that base.
  InstId at = access;
  for (int step = 0; step < 64; ++step) {
    const ptx::Operand& op = fn_.instructions[at].operands[operand];
    ValueReg reg = op.kind == ptx::Operand::Kind::Register ? op.reg
                   : (op.kind == ptx::Operand::Kind::Address && op.base.kind == ptx::Operand::Kind::Register)
                       ? op.base.reg
                       : -1;
    if (reg < 0) return -1;
    InstId def = fn_.values->definition(reg, at);
    if (def < 0) return -1;
    if (fn_.instructions[def].effect.kind == EffectKind::Load) return def;
    int carrier = -1;
    const auto& sources = fn_.instructions[def].operands;
    for (int k = 1; k < static_cast<int>(sources.size()) && carrier < 0; ++k) {
      const AbstractValue v = fn_.values->operandValue(def, k);
      if (v.known && v.baseKind == AbstractValue::BaseKind::Loaded && v.base == value.base) carrier = k;
    }
    if (carrier < 0) return -1;
    at = def;
    operand = carrier;
  }
  return -1;
}

namespace {

// The values an index term takes are multiples of this: 1, unless the term
// is an opaque definition (Values.h: "def:<inst>") by a shift or a widening
// multiplication by a constant, or a 32-bit multiplication by a power of two
// (nvcc's `shl.b32 %r, %rank, 1` for `2 * rank`: the value analysis keeps
// an integer parameter as an object, so the product is opaque to it). Those
// keep their factor even when the 32-bit result wraps.
int64_t termMultiple(const FunctionModel& fn, const AbstractValue::Term& term) {
  constexpr std::string_view kDefinition = "def:";
  if (!term.name.starts_with(kDefinition)) return 1;
  InstId def = -1;
  const char* digits = term.name.data() + kDefinition.size();
  if (std::from_chars(digits, term.name.data() + term.name.size(), def).ec != std::errc() || def < 0 ||
      static_cast<size_t>(def) >= fn.instructions.size())
    return 1;
  const Inst& inst = fn.instructions[def];
  auto constantOperand = [&](int k) { return inst.operands.size() > 2 ? fn.values->constantOf(def, k) : std::nullopt; };
  auto isPowerOfTwo = [](int64_t c) { return c > 0 && (c & (c - 1)) == 0; };
  if (inst.opcode() == "shl") {
    auto k = constantOperand(2);
    return k && *k >= 0 && *k < 31 ? int64_t(1) << *k : 1;
  }
  if (inst.opcode() != "mul" || !(inst.hasModifier("wide") || inst.hasModifier("lo"))) return 1;
  for (int k : {1, 2}) {
    auto c = constantOperand(k);
    if (!c || *c <= 0) continue;
    if (inst.hasModifier("wide") || isPowerOfTwo(*c)) return *c;
  }
  return 1;
}

// Two slots read at offsets `a` and `b` from one base (pointer loads of
// sizeA and sizeB bytes), every index term an independent integer (the loads
// may be made by different threads or ranks): no values make them overlap
// when their constant offsets differ modulo every index stride (the gcd of
// the steps: the record size of a table of structs) by at least the slot
// size. (Local until MemoryAnalysis::alias compares offsets modulo a common
// stride.)
bool slotsDifferModuloStride(const FunctionModel& fn, const AbstractValue& a, int64_t sizeA, const AbstractValue& b,
                             int64_t sizeB) {
  int64_t stride = 0;
  for (const auto* v : {&a, &b})
    for (const auto& t : v->terms) {
      int64_t step = 0;
      if (__builtin_mul_overflow(t.coefficient < 0 ? -t.coefficient : t.coefficient, termMultiple(fn, t), &step))
        return false;
      stride = std::gcd(stride, step);
    }
  if (stride <= 0 || sizeA <= 0 || sizeB <= 0 || sizeA + sizeB > stride) return false;
  auto modulo = [stride](int64_t x) { return ((x % stride) + stride) % stride; };
  const int64_t fromAToB = modulo(b.constant - a.constant), fromBToA = modulo(a.constant - b.constant);
  return fromAToB >= sizeA && fromBToA >= sizeB;
}

}  // namespace

bool ProtocolModel::pointersFromDistinctFields(InstId a, InstId b) const {
  InstId la = pointerLoad(a), lb = pointerLoad(b);
  if (la < 0 || lb < 0 || memory_.sameWord(la, lb)) return false;
  const int oa = addressOf(fn_, la), ob = addressOf(fn_, lb);
  const AbstractValue va = fn_.values->operandValue(la, oa), vb = fn_.values->operandValue(lb, ob);
  if (!va.known || !vb.known || !va.hasBase() || va.baseKind != vb.baseKind || va.base != vb.base) return false;
  // Two constant fields (`s->inbound`, `s->expected`): model/Memory compares the bytes.
  if (va.terms.empty() && vb.terms.empty()) return memory_.alias(la, oa, lb, ob) == Alias::No;
  // Read at an index: different fields only when the offsets differ modulo the
  // record stride. (Two bounded index ranges that do not meet are not enough:
  // a table of peers indexed relative to the rank, `ptrs[(rank + k) % n]`,
  // holds one peer's pointer at different slots on different ranks.)
  return slotsDifferModuloStride(fn_, va, memory_.accessSize(la, oa), vb, memory_.accessSize(lb, ob));
}

namespace {

// Special registers that number a block of this launch (blockIdx, the
// cluster coordinates, the SM): a table indexed only by them holds one entry
// per block or SM, all on this GPU. Any other index (a rank, a peer, a loop over
// peers, the thread index of `if (tid < world)`) may select a peer.
constexpr std::string_view kBlockPositionRegisters[] = {
    "%ctaid.", "%nctaid.", "%clusterid.", "%nclusterid.", "%cluster_ctaid.", "%cluster_nctaid.", "%cluster_ctarank",
    "%cluster_nctarank", "%smid"};

bool isBlockPosition(const AbstractValue::Term& term) {
  return std::any_of(std::begin(kBlockPositionRegisters), std::end(kBlockPositionRegisters),
                     [&](std::string_view reg) { return term.name.starts_with(reg); });
}

}  // namespace

bool ProtocolModel::isPeerPointerLoad(InstId load, int depth) const {
  constexpr int kMaxDepth = 8;  // struct-in-table chains of real code are two or three deep
  const int operand = addressOf(fn_, load);
  if (depth > kMaxDepth || operand < 0) return true;
  const AbstractValue slot = fn_.values->operandValue(load, operand);
  if (!slot.known) return true;  // cannot tell: a peer, as before
  if (std::any_of(slot.terms.begin(), slot.terms.end(), [](const auto& t) { return !isBlockPosition(t); }))
    return true;
  if (slot.baseKind != AbstractValue::BaseKind::Loaded) return false;
  // A field of a struct reached through a pointer read from memory: a peer's
  // struct when that pointer is a peer pointer.
  const InstId outer = pointerLoad(load);
  return outer < 0 || isPeerPointerLoad(outer, depth + 1);
}

bool ProtocolModel::goesThroughPeerPointer(InstId access) const {
  const int operand = addressOf(fn_, access);
  if (operand < 0 || !memory_.isLoadedPointer(access, operand)) return false;
  const InstId load = pointerLoad(access);
  return load < 0 || isPeerPointerLoad(load, 0);
}

}  // namespace fenceline::model
