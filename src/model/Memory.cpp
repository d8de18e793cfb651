// The memory analysis (see Memory.h): memory objects and byte ranges from
// the value analysis, the alias rules between them, copy extents and the
// decoding of wgmma matrix descriptors.
#include "model/Memory.h"

#include <algorithm>
#include <limits>

#include "model/Paths.h"
#include "model/ValueIdentity.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

using BaseKind = AbstractValue::BaseKind;
using Kind = ptx::Operand::Kind;
constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();

bool isShared(Space s) { return s == Space::SharedCta || s == Space::SharedCluster; }
bool isGlobal(Space s) { return s == Space::Global || s == Space::Tensor; }

bool disjointSpaces(Space a, Space b) {
  auto concrete = [](Space s) { return s != Space::None && s != Space::Generic; };
  if (!concrete(a) || !concrete(b) || a == b) return false;
  if (isShared(a) && isShared(b)) return false;
  if (isGlobal(a) && isGlobal(b)) return false;
  return true;
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

bool sameTerms(const AbstractValue& a, const AbstractValue& b) {
  if (a.terms.size() != b.terms.size()) return false;
  for (size_t i = 0; i < a.terms.size(); ++i)
    if (a.terms[i].name != b.terms[i].name || a.terms[i].coefficient != b.terms[i].coefficient) return false;
  return true;
}

int64_t saturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return b > 0 ? kUnbounded : std::numeric_limits<int64_t>::min();
  return r;
}

// The parameter a field object belongs to: "p+48" -> "p".
std::string_view paramOf(const std::string& name) {
  size_t plus = name.find('+');
  return plus == std::string::npos ? std::string_view(name) : std::string_view(name).substr(0, plus);
}

bool never(InstId) { return false; }

}  // namespace

std::string MemoryObject::toString() const {
  switch (kind) {
    case Kind::Unknown: return "unknown";
    case Kind::SharedSymbol: return "shared:" + name;
    case Kind::DynamicShared: return "dynamic-shared";
    case Kind::GlobalSymbol: return "global:" + name;
    case Kind::Param: return "param:" + name;
    case Kind::Loaded: return "loaded:" + name;
  }
  return "unknown";
}

std::string MemoryLocation::toString() const {
  std::string text = object.toString();
  if (bytes) {
    text += "[" + std::to_string(bytes->begin) + ", ";
    text += bytes->end == kUnbounded ? std::string("?") : std::to_string(bytes->end);
    text += ")";
  }
  return text;
}

MemoryAnalysis::MemoryAnalysis(const FunctionModel& fn) : fn_(fn) {}

namespace {

struct Located {
  MemoryLocation location;
  AbstractValue value;  // the address's symbolic value (for same-term comparisons)
  int64_t size = -1;
};

MemoryObject objectFromValue(const FunctionModel& fn, const AbstractValue& v, InstId at) {
  MemoryObject object;
  if (!v.known) return object;
  switch (v.baseKind) {
    case BaseKind::SharedSymbol: {
      const ptx::Variable* var = fn.values->variable(at, v.base);
      if (var && (var->isExtern || var->arraySize == 0)) {
        object.kind = MemoryObject::Kind::DynamicShared;
      } else {
        object.kind = MemoryObject::Kind::SharedSymbol;
        object.name = v.base;
      }
      object.space = Space::SharedCta;
      return object;
    }
    case BaseKind::GlobalSymbol:
      object.kind = MemoryObject::Kind::GlobalSymbol;
      object.name = v.base;
      object.space = v.space;
      return object;
    case BaseKind::Param:
      object.kind = MemoryObject::Kind::Param;
      object.name = v.base;
      object.space = v.space;
      return object;
    case BaseKind::Loaded:
      object.kind = MemoryObject::Kind::Loaded;
      object.name = v.base;
      return object;
    default:
      return object;
  }
}

Located locate(const MemoryAnalysis& memory, const FunctionModel& fn, InstId inst, int operand, int64_t size) {
  Located out;
  if (!fn.values || inst < 0 || static_cast<size_t>(inst) >= fn.instructions.size() || operand < 0 ||
      static_cast<size_t>(operand) >= fn.instructions[inst].operands.size())
    return out;
  out.value = fn.values->operandValue(inst, operand);
  out.size = size == 0 ? memory.accessSize(inst, operand) : size;
  MemoryLocation& loc = out.location;
  loc.object = objectFromValue(fn, out.value, inst);
  loc.space = memory.space(inst, operand);
  if (fn.instructions[inst].operands[operand].kind == Kind::Address)
    loc.address = fn.values->identity(inst, operand);
  if (auto range = out.value.offsetRange(); range && loc.object.known())
    loc.bytes = ByteRange{range->first, out.size > 0 ? saturatingAdd(range->second, out.size) : kUnbounded};
  return out;
}

}  // namespace

MemoryLocation MemoryAnalysis::location(InstId inst, int operand, int64_t size) const {
  return locate(*this, fn_, inst, operand, size).location;
}

MemoryLocation MemoryAnalysis::copyDestination(InstId copy) const {
  const MemoryEffect& e = fn_.instructions[copy].effect;
  return location(copy, e.destination, copyExtent(copy));
}

MemoryLocation MemoryAnalysis::copySource(InstId copy) const {
  const MemoryEffect& e = fn_.instructions[copy].effect;
  return location(copy, e.source, copyExtent(copy));
}

AliasResult MemoryAnalysis::alias(const MemoryLocation& a, const MemoryLocation& b) const {
  if (a.address >= 0 && a.address == b.address) return AliasResult::Must;
  if (disjointSpaces(a.space, b.space)) return AliasResult::No;
  using K = MemoryObject::Kind;
  const bool kernel = fn_.function && fn_.function->isEntry;
  auto isNamedMemory = [](K k) { return k == K::SharedSymbol || k == K::DynamicShared || k == K::GlobalSymbol; };
  auto isSharedObject = [](K k) { return k == K::SharedSymbol || k == K::DynamicShared; };
  if (!a.object.known() || !b.object.known()) return AliasResult::May;
  if (!(a.object == b.object)) {
    // Different named variables never overlap.
    if (isNamedMemory(a.object.kind) && isNamedMemory(b.object.kind)) return AliasResult::No;
    // A kernel's parameters point to global memory, never into shared memory.
    if (kernel && ((a.object.kind == K::Param && isSharedObject(b.object.kind)) ||
                   (b.object.kind == K::Param && isSharedObject(a.object.kind))))
      return AliasResult::No;
    // Different fields of one by-value struct parameter are different pointers.
    if (a.object.kind == K::Param && b.object.kind == K::Param && paramOf(a.object.name) == paramOf(b.object.name))
      return AliasResult::No;
    // Pointers read from different addresses (different fields, different
    // table entries) are different objects unless something says otherwise.
    if (a.object.kind == K::Loaded && b.object.kind == K::Loaded) return AliasResult::No;
    return AliasResult::May;
  }
  if (a.bytes && b.bytes && !a.bytes->overlaps(*b.bytes)) return AliasResult::No;
  return AliasResult::May;
}

AliasResult MemoryAnalysis::alias(InstId a, int oa, InstId b, int ob) const { return alias(a, oa, 0, b, ob, 0); }

AliasResult MemoryAnalysis::alias(InstId a, int oa, int64_t sizeA, InstId b, int ob, int64_t sizeB) const {
  Located la = locate(*this, fn_, a, oa, sizeA), lb = locate(*this, fn_, b, ob, sizeB);
  AliasResult result = alias(la.location, lb.location);
  if (result != AliasResult::May || !(la.location.object == lb.location.object)) return result;
  // Same object, same variable parts (the same stage index): the constant
  // parts decide for every thread.
  if (la.value.known && lb.value.known && sameTerms(la.value, lb.value)) {
    const int64_t delta = lb.value.constant - la.value.constant;  // b's start relative to a's
    if (la.size > 0 && delta >= la.size) return AliasResult::No;
    if (lb.size > 0 && -delta >= lb.size) return AliasResult::No;
  }
  return result;
}

bool MemoryAnalysis::sameWord(InstId a, InstId b) const {
  int oa = fn_.instructions[a].effect.address, ob = fn_.instructions[b].effect.address;
  if (oa < 0 || ob < 0 || !fn_.values) return false;
  return fn_.values->identityEngine().sameAddress(a, b);
}

MemoryObject MemoryAnalysis::objectOf(InstId inst, int operand) const {
  if (!fn_.values) return {};
  return objectFromValue(fn_, fn_.values->operandValue(inst, operand), inst);
}

MemoryObject MemoryAnalysis::rootOf(InstId inst, int operand) const {
  MemoryObject object;
  if (!fn_.values) return object;
  std::string root = fn_.values->identityEngine().addressRoot(inst, operand);
  if (root.empty()) return object;
  object.name = root;
  if (root.starts_with("loaded(")) object.kind = MemoryObject::Kind::Loaded;
  else if (root.starts_with("param:")) object.kind = MemoryObject::Kind::Param;
  else object.kind = MemoryObject::Kind::GlobalSymbol;  // "sym:..." (shared or global: compared by name)
  return object;
}

bool MemoryAnalysis::mayShareRoot(InstId a, InstId b) const {
  return fn_.values && fn_.values->identityEngine().mayShareObject(a, b);
}

bool MemoryAnalysis::isLoadedPointer(InstId inst, int operand) const {
  return fn_.values && fn_.values->identityEngine().isLoadedPointer(inst, operand);
}

Space MemoryAnalysis::space(InstId inst, int operand) const {
  return fn_.values ? fn_.values->addressSpace(inst, operand) : Space::Generic;
}

int64_t MemoryAnalysis::accessSize(InstId at, int k) const {
  const auto& insts = fn_.instructions;
  if (at < 0 || static_cast<size_t>(at) >= insts.size()) return -1;
  const Inst& inst = insts[at];
  const MemoryEffect& e = inst.effect;
  switch (e.kind) {
    case EffectKind::MbarrierInit: case EffectKind::MbarrierArrive: case EffectKind::MbarrierExpectTx:
    case EffectKind::MbarrierWait: case EffectKind::MbarrierInval:
      return 8;
    case EffectKind::AsyncCopy: {
      if (k == e.mbarrier) return 8;
      if (inst.hasModifier("tensor")) return -1;  // box size lives in the tensor map
      // cp.async[.bulk] [dst], [src], size: the first integer-valued operand after the addresses.
      for (size_t o = 2; o < inst.operands.size(); ++o) {
        if (inst.operands[o].kind == Kind::Address) continue;
        std::optional<int64_t> v = fn_.values ? fn_.values->constantOf(at, static_cast<int>(o)) : std::nullopt;
        if (!v && fn_.values) {
          AbstractValue value = fn_.values->operandValue(at, static_cast<int>(o));
          if (value.isConstant()) v = value.constant;
        }
        return v && *v > 0 ? *v : -1;
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

namespace {

std::optional<int64_t> constantOperand(const FunctionModel& fn, InstId inst, const ptx::Operand& op) {
  if (op.kind == Kind::Integer) return op.intValue;
  if (op.kind == Kind::Register && fn.values) {
    AbstractValue v = fn.values->valueOf(op.reg, inst);
    if (v.isConstant()) return v.constant;
  }
  return std::nullopt;
}

bool announcesBytes(const FunctionModel& fn, InstId inst) {
  const auto& in = fn.instructions[inst];
  if (in.effect.kind == EffectKind::MbarrierExpectTx) return in.opcode() == "mbarrier" && in.hasModifier("expect_tx");
  if (in.effect.kind != EffectKind::MbarrierArrive) return false;
  for (const auto& m : in.syntax->modifiers)
    if (m.starts_with("expect_tx")) return true;
  return false;
}

}  // namespace

int64_t MemoryAnalysis::copyExtent(InstId copy) const {
  const auto& in = fn_.instructions[copy];
  if (in.effect.kind != EffectKind::AsyncCopy) return -1;
  if (!in.hasModifier("tensor")) {
    // [dst], [src], size, ...: the first operand after the two addresses.
    int addresses = 0;
    for (const auto& op : in.operands) {
      if (op.kind == Kind::Address) {
        ++addresses;
        continue;
      }
      if (addresses >= 2) return constantOperand(fn_, copy, op).value_or(-1);
    }
    return -1;
  }
  const int mbarrier = in.effect.mbarrier;
  if (mbarrier < 0 || !fn_.values) return -1;
  std::vector<InstId> announcements = findReachingBackward(
      fn_, copy,
      [&](InstId i) {
        return announcesBytes(fn_, i) && fn_.instructions[i].effect.address >= 0 &&
               alias(i, fn_.instructions[i].effect.address, copy, mbarrier) != AliasResult::No;
      },
      never);
  int64_t bound = -1;
  for (InstId i : announcements) {  // every path's announcement must be known; take the largest
    const auto& ops = fn_.instructions[i].operands;
    std::optional<int64_t> bytes = ops.empty() ? std::nullopt : constantOperand(fn_, i, ops.back());
    if (!bytes || *bytes <= 0) return -1;
    bound = std::max(bound, *bytes);
  }
  return bound;
}

namespace {

// A matrix descriptor (wgmma, tcgen05): bits 0-13 hold the shared address
// >> 4; other bits hold layout fields. Walking its definitions backwards
// from the descriptor: `or`/`and`/`bfi` at bit 0 keep the address field, an
// `add` of a constant advances it by 16 bytes per unit, `shr x, 4` returns
// to byte addresses, where the value analysis names the shared object.
struct DescriptorDecoder {
  const FunctionModel& fn;

  struct Decoded {
    AbstractValue address;  // the shared byte address the descriptor starts at
    int64_t advance = 0;    // bytes added after the shift
  };

  std::optional<Decoded> fromAddress(ValueReg reg, InstId at) const {
    AbstractValue v = fn.values->valueOf(reg, at);
    if (v.known && v.baseKind == BaseKind::SharedSymbol) return Decoded{v, 0};
    return std::nullopt;
  }

  std::optional<Decoded> decode(const ptx::Operand& op, InstId at, bool shifted, int depth) const {
    if (op.kind == Kind::Register) return decode(op.reg, at, shifted, depth);
    if (op.kind == Kind::Vector && !op.elements.empty()) return decode(op.elements[0], at, shifted, depth);
    return std::nullopt;
  }

  bool isConstant(const ptx::Operand& op, InstId at) const { return constantOperand(fn, at, op).has_value(); }

  std::optional<Decoded> decode(ValueReg reg, InstId at, bool shifted, int depth) const {
    if (depth > 24 || reg < 0) return std::nullopt;
    if (!shifted)
      if (auto d = fromAddress(reg, at)) return d;
    InstId def = fn.values->definition(reg, at);
    if (def < 0) return std::nullopt;
    const Inst& in = fn.instructions[def];
    const auto& ops = in.operands;
    const std::string& op = in.opcode();
    if (ops.size() < 2) return std::nullopt;
    if (op == "mov" || op == "cvt" || op == "cvta") return decode(ops[1], def, shifted, depth + 1);
    if (op == "shr" && shifted && ops.size() >= 3) {
      std::optional<int64_t> amount = constantOperand(fn, def, ops[2]);
      if (amount != 4) return std::nullopt;
      return decode(ops[1], def, /*shifted=*/false, depth + 1);
    }
    if (op == "and" && ops.size() >= 3) {
      if (isConstant(ops[2], def)) return decode(ops[1], def, shifted, depth + 1);
      if (isConstant(ops[1], def)) return decode(ops[2], def, shifted, depth + 1);
      return std::nullopt;
    }
    if (op == "or" || op == "xor") {
      // One side carries the address field, the other layout bits (a constant
      // or a value with no address); exactly one side must decode.
      if (ops.size() < 3) return std::nullopt;
      auto left = decode(ops[1], def, shifted, depth + 1), right = decode(ops[2], def, shifted, depth + 1);
      if (left && !right) return left;
      if (right && !left) return right;
      return std::nullopt;
    }
    if (op == "bfi" && ops.size() >= 5) {
      // bfi d, a, b, pos, len: b with bits [pos, pos + len) taken from a.
      std::optional<int64_t> pos = constantOperand(fn, def, ops[3]);
      if (pos == 0) return decode(ops[1], def, shifted, depth + 1);
      return decode(ops[2], def, shifted, depth + 1);
    }
    if ((op == "add" || op == "sub") && ops.size() >= 3) {
      for (int k = 1; k <= 2; ++k) {
        if (op == "sub" && k == 1 && !isConstant(ops[2], def)) break;
        const ptx::Operand& other = ops[3 - k];
        std::optional<int64_t> c = constantOperand(fn, def, other);
        if (!c) continue;
        auto d = decode(ops[k], def, shifted, depth + 1);
        if (!d) return std::nullopt;
        int64_t step = op == "sub" ? -*c : *c;
        d->advance = saturatingAdd(d->advance, shifted ? step * 16 : step);
        return d;
      }
    }
    return std::nullopt;
  }
};

// Bytes an operand tile of `rows` rows may span: a K-major row of a swizzled
// layout is at most 128 bytes apart from the next one (the widest swizzle),
// and an MN-major tile of the same element count spans no more.
int64_t tileSpan(int64_t rows) { return rows * 128; }

// wgmma.mma_async.sync.aligned.m64nNkK...: A is 64 rows, B is N rows.
std::optional<std::pair<int64_t, int64_t>> wgmmaShape(const Inst& in) {
  for (const auto& m : in.syntax->modifiers) {
    if (m.size() < 5 || m[0] != 'm') continue;
    size_t n = m.find('n'), k = m.find('k');
    if (n == std::string::npos || k == std::string::npos || k < n) continue;
    int64_t rowsA = 0, rowsB = 0;
    for (size_t i = 1; i < n; ++i) rowsA = rowsA * 10 + (m[i] - '0');
    for (size_t i = n + 1; i < k; ++i) rowsB = rowsB * 10 + (m[i] - '0');
    if (rowsA > 0 && rowsB > 0) return std::make_pair(rowsA, rowsB);
  }
  return std::nullopt;
}

bool isDescriptorRegister(const FunctionModel& fn, const ptx::Operand& op) {
  if (op.kind != Kind::Register || op.reg < 0 || fn.registerTypes.size() <= static_cast<size_t>(op.reg)) return false;
  const std::string& type = fn.registerTypes[op.reg];
  return type == ".b64" || type == ".u64" || type == ".s64";  // descriptors are 64-bit
}

}  // namespace

MemoryAnalysis::MatrixOperands MemoryAnalysis::matrixOperands(InstId mma) const {
  MatrixOperands result;
  if (!fn_.values) return result;
  const Inst& in = fn_.instructions[mma];
  const bool wgmma = in.effect.kind == EffectKind::Wgmma;
  auto shape = wgmma ? wgmmaShape(in) : std::nullopt;
  DescriptorDecoder decoder{fn_};
  bool sawDescriptor = false;
  // wgmma: d, a, b, ...: operand 1 is A (a descriptor, or registers), operand 2 is B.
  // tcgen05.mma: [d], a, b, idesc, ...: operands 1 and 2 likewise.
  for (size_t k = 1; k < in.operands.size() && k <= 2; ++k) {
    const ptx::Operand& op = in.operands[k];
    if (!isDescriptorRegister(fn_, op)) continue;
    if (!wgmma && k == 1 && in.operands[k].kind == Kind::Address) continue;  // A in tensor memory
    sawDescriptor = true;
    auto decoded = decoder.decode(op.reg, mma, /*shifted=*/true, 0);
    if (!decoded) return result;  // one unknown operand: nothing is known
    MemoryLocation loc;
    loc.object = objectFromValue(fn_, decoded->address, mma);
    loc.space = Space::SharedCta;
    if (auto range = decoded->address.offsetRange()) {
      int64_t span = shape ? tileSpan(k == 1 ? shape->first : shape->second) : -1;
      int64_t begin = saturatingAdd(range->first, decoded->advance);
      int64_t end = span > 0 ? saturatingAdd(saturatingAdd(range->second, decoded->advance), span) : kUnbounded;
      loc.bytes = ByteRange{begin, end};
    }
    result.operands.push_back(std::move(loc));
  }
  result.decoded = sawDescriptor && !result.operands.empty();
  return result;
}

}  // namespace fenceline::model
