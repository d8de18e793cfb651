// Value identity (see ValueIdentity.h). Definitions come from the operand
// table (Operands.h); reaching definitions from a backward walk over the
// CFG; forms and roots from short recursive walks over those definitions,
// with a depth limit.
#include "model/ValueIdentity.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <span>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "model/Operands.h"
#include "model/PolledText.h"

namespace fenceline::model::detail {
namespace {

using Kind = ptx::Operand::Kind;

bool isCommutative(std::string_view op) {
  return op == "add" || op == "mul" || op == "and" || op == "or" || op == "xor" || op == "min" || op == "max";
}

bool isMove(std::string_view op) { return op == "mov" || op == "cvta" || op == "cvt"; }

// `prefix` + `name`, then `+offset` unless it is 0: in one allocation.
std::string named(std::string_view prefix, std::string_view name, int64_t offset = 0) {
  char digits[24];
  size_t length = offset ? static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, offset).ptr - digits) : 0;
  std::string text;
  text.reserve(prefix.size() + name.size() + 1 + length);
  text.append(prefix).append(name);
  if (offset) text.append("+").append(digits, length);
  return text;
}

// The key of the value read from byte `offset` of kernel parameter `param`:
// "param:p" for offset 0 (a scalar parameter, a struct's first field), else
// "param:p@k". The offset is not written "+k": a key "x+k" is the value x
// plus k (parseKey), and the field at +40 is not the field at +0 plus 40
// (two pointer fields of one struct, `[args+40] + 96` and `[args+104] + 32`,
// were one key, "param:p+136", and one word; issue 34, NCCL).
std::string parameterFieldKey(std::string_view param, int64_t offset) {
  std::string key = named("param:", param);
  if (offset) key.append("@").append(std::to_string(offset));
  return key;
}

// `key` is "sym:" + `name`.
bool isSymbolKey(std::string_view key, std::string_view name) {
  return key.size() == name.size() + 4 && key.starts_with("sym:") && key.substr(4) == name;
}

// `name(a,b)`, the two arguments in sorted order when `commutes`.
std::string call(std::string_view name, std::string_view a, std::string_view b, bool commutes) {
  if (commutes && b < a) std::swap(a, b);
  std::string text;
  text.reserve(name.size() + a.size() + b.size() + 3);
  text.append(name).append("(").append(a).append(",").append(b).append(")");
  return text;
}

constexpr int kMaxDepth = 24;
// The longest argument written out in a key (ValueIdentity::shortForm).
constexpr size_t kMaxArgumentText = 512;

// A key as a symbolic part plus a constant, so that `add %r, %p, 8` and
// `[%p+8]` agree. The symbolic part is a view into a key the caller holds
// (keys run to hundreds of bytes: they are not copied to be taken apart).
struct Affine {
  std::string_view symbolic;  // empty: a plain constant
  int64_t constant = 0;
  std::string text() const {
    std::string text;
    appendTo(text);
    return text;
  }
  void appendTo(std::string& text) const {
    char digits[24];
    auto number = [&] { return std::string_view(digits, std::to_chars(digits, digits + sizeof digits, constant).ptr - digits); };
    if (symbolic.empty()) {
      text.append(number());
      return;
    }
    text.append(symbolic);
    if (constant != 0) text.append("+").append(number());
  }
};

// Address arithmetic wraps like the hardware's (and stays defined behaviour).
int64_t wrappingAdd(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
int64_t wrappingNegate(int64_t a) { return static_cast<int64_t>(0 - static_cast<uint64_t>(a)); }

bool parseInteger(std::string_view text, int64_t& value) {
  if (text.empty()) return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

Affine parseKey(std::string_view key) {
  // Inverse of Affine::text for the forms produced here.
  Affine a;
  if (key.empty()) return a;
  if (parseInteger(key, a.constant)) return a;
  // `symbolic+k`: the key ends in '+', an optional '-' and digits (then that
  // '+' is the last one, with no ')' after it). Read from the end: keys run
  // to hundreds of bytes, and most have no offset.
  size_t digits = key.size();
  while (digits > 0 && key[digits - 1] >= '0' && key[digits - 1] <= '9') --digits;
  size_t plus = digits < key.size() && digits > 0 && key[digits - 1] == '-' ? digits - 1 : digits;
  int64_t offset = 0;
  if (digits < key.size() && plus > 0 && key[plus - 1] == '+' && parseInteger(key.substr(plus), offset)) {
    a.symbolic = key.substr(0, plus - 1);
    a.constant = offset;
    return a;
  }
  a.symbolic = key;
  a.constant = 0;
  return a;
}

}  // namespace

ValueIdentity::ValueIdentity(const FunctionModel& fn, const std::vector<std::vector<InstId>>& definitions)
    : fn_(fn), definitions_(definitions), inProgress_(fn.instructions.size(), 0) {}

bool ValueIdentity::enter(InstId d, uint8_t walk) const {
  if (static_cast<size_t>(d) >= inProgress_.size()) inProgress_.resize(static_cast<size_t>(d) + 1, 0);
  if (inProgress_[d] & walk) return false;
  inProgress_[d] |= walk;
  return true;
}

void ValueIdentity::leave(InstId d, uint8_t walk) const { inProgress_[d] &= uint8_t(~walk); }

const std::vector<InstId>& ValueIdentity::definitions(ValueReg reg) const {
  static const std::vector<InstId> kNone;
  if (reg < 0 || static_cast<size_t>(reg) >= definitions_.size()) return kNone;
  return definitions_[reg];
}

bool ValueIdentity::isOnlyDefinitionBefore(const std::vector<InstId>& defs, InstId at) const {
  return defs.size() == 1 && defs[0] != at && !fn_.instructions[defs[0]].guard && fn_.dominatesInst(defs[0], at);
}

const std::vector<InstId>& ValueIdentity::reachingDefinitions(ValueReg reg, InstId at) const {
  // One unconditional definition that dominates the use (most registers:
  // nvcc's PTX is nearly single-assignment) reaches it alone: the answer is
  // the register's list of definitions itself, with nothing to memoize.
  const auto& defs = definitions(reg);
  if (at >= 0 && static_cast<size_t>(at) < fn_.instructions.size() && isOnlyDefinitionBefore(defs, at)) return defs;
  // Node-based map: a reference to a value survives later insertions.
  const uint64_t cacheKey = (uint64_t(uint32_t(reg)) << 32) | uint32_t(at);
  if (auto cached = reachingCache_.find(cacheKey); cached != reachingCache_.end()) return cached->second;
  return reachingCache_.emplace(cacheKey, computeReaching(reg, at)).first->second;
}

std::vector<InstId> ValueIdentity::computeReaching(ValueReg reg, InstId at) const {
  std::vector<InstId> found;
  const auto& defs = definitions(reg);
  if (defs.empty() || at < 0 || static_cast<size_t>(at) >= fn_.instructions.size()) return found;
  // One unconditional definition that dominates the use: it is the nearest on
  // every path (nvcc's PTX is nearly single-assignment; no walk needed).
  if (isOnlyDefinitionBefore(defs, at)) {
    found.push_back(defs[0]);
    return found;
  }
  // Scans [first, last) downwards; true when an unconditional definition ends
  // the path. The definitions are sorted: those in the range are found by one
  // binary search, not one per instruction of the block.
  auto scan = [&](InstId last, InstId first) {
    for (auto i = std::lower_bound(defs.begin(), defs.end(), last); i != defs.begin() && *(i - 1) >= first;) {
      --i;
      found.push_back(*i);
      if (!fn_.instructions[*i].guard) return true;
    }
    return false;
  };
  BlockId start = fn_.blockOf[at];
  if (start < 0) return found;
  if (!scan(at, fn_.blocks[start].first)) {
    // The walk's buffers are kept between walks (cleared, not freed).
    std::vector<char>& seen = walkSeen_;
    std::vector<BlockId>& work = walkWork_;
    seen.assign(fn_.blocks.size(), 0);
    work.assign(fn_.blocks[start].predecessors.begin(), fn_.blocks[start].predecessors.end());
    while (!work.empty()) {
      model::poll();
      BlockId b = work.back();
      work.pop_back();
      if (b < 0 || seen[b]) continue;
      seen[b] = 1;
      if (scan(fn_.blocks[b].last, fn_.blocks[b].first)) continue;
      for (BlockId p : fn_.blocks[b].predecessors) work.push_back(p);
    }
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}


std::string ValueIdentity::operandKey(InstId at, int operand) const {
  if (at < 0 || static_cast<size_t>(at) >= fn_.instructions.size()) return {};
  const auto& ops = fn_.instructions[at].operands;
  if (operand < 0 || static_cast<size_t>(operand) >= ops.size()) return {};
  return keyOfOperand(ops[operand], at, 0);
}

std::string_view ValueIdentity::keyViewOfOperand(const ptx::Operand& op, InstId at, int depth,
                                                 std::string& storage) const {
  if (op.kind == Kind::Register) return keyOf(op.reg, at, depth);
  if (op.kind == Kind::Special) return op.text;
  storage = keyOfOperand(op, at, depth);
  return storage;
}

std::string ValueIdentity::keyOfOperand(const ptx::Operand& op, InstId at, int depth) const {
  switch (op.kind) {
    case Kind::Register: return keyOf(op.reg, at, depth);
    case Kind::Special: return std::string(op.text);
    case Kind::Integer: return std::to_string(op.intValue);
    case Kind::Symbol: return named("sym:", op.text);
    case Kind::Float: return "f" + std::to_string(op.floatValue);
    case Kind::Address: {
      Affine base;
      std::string baseKey;  // what base.symbolic views (for a register: its memoized key)
      if (op.base.kind == Kind::Register) {
        base = parseKey(keyOf(op.base.reg, at, depth));
      } else if (op.base.kind == Kind::Symbol) {
        baseKey = named("sym:", op.baseSymbol());
        base.symbolic = baseKey;
      } else {
        base.constant = op.baseValue();
      }
      base.constant = wrappingAdd(base.constant, op.offset);
      std::string text;
      text.reserve(base.symbolic.size() + 24);
      text += '[';
      base.appendTo(text);
      text += ']';
      return text;
    }
    default: return "?";
  }
}

const std::string& ValueIdentity::keyOf(ValueReg reg, InstId at, int depth) const {
  static const std::string kNone;
  const uint64_t use = (uint64_t(uint32_t(reg)) << 32) | uint32_t(at);
  if (depth > kMaxDepth) {
    auto [name, added] = depthNames_.try_emplace(use);
    if (added) name->second = "reg" + std::to_string(reg) + "@" + std::to_string(at);
    return name->second;
  }
  const std::vector<InstId>& defs = reachingDefinitions(reg, at);
  if (defs.empty()) {
    auto [name, added] = undefinedNames_.try_emplace(reg);
    if (added) name->second = "undef" + std::to_string(reg);
    return name->second;
  }
  // A merge of different values is named by the register and the definitions
  // that reach: two uses that see the same definitions see the same value.
  auto phi = [&]() -> const std::string& {
    auto [name, added] = phiNames_.try_emplace(use);
    if (added) {
      std::string& text = name->second;
      text = "phi@{" + std::to_string(reg);
      for (InstId d : defs) text.append(":").append(std::to_string(d));
      text += "}";
    }
    return name->second;
  };
  const std::string* first = nullptr;
  for (InstId d : defs) {
    if (fn_.instructions[d].guard || (defs.size() > 1 && d >= at && fn_.blockOf[d] == fn_.blockOf[at])) return phi();
    const std::string& k = keyOfDefinition(d, depth);
    if (!first || first->empty()) first = &k;
    else if (k != *first) return phi();
  }
  return first ? *first : kNone;
}

const std::string& ValueIdentity::keyOfDefinition(InstId d, int depth) const {
  if (auto cached = keyCache_.find(d); cached != keyCache_.end()) return cached->second;
  if (!enter(d, kBuildingKey)) {
    auto [cycle, added] = cycleNames_.try_emplace(d);
    if (added) cycle->second = "cycle@" + std::to_string(d);
    return cycle->second;
  }
  std::string key = computeKeyOfDefinition(d, depth);
  leave(d, kBuildingKey);
  return keyCache_.emplace(d, std::move(key)).first->second;
}

std::string ValueIdentity::computeKeyOfDefinition(InstId d, int depth) const {
  model::poll();  // the function's time budget (model/Limits.h)
  auto opaque = [d] { return "def@" + std::to_string(d); };
  const Inst& inst = fn_.instructions[d];
  const std::string_view op = inst.opcode();  // compared with literals: no strlen each time
  const auto& ops = inst.operands;
  if (isMove(op) && ops.size() >= 2) return keyOfOperand(ops[1], d, depth + 1);
  if (inst.effect.kind == EffectKind::Load) {
    // A parameter passed through an inlined call, or a local slot's reload:
    // the value its store wrote.
    if (inst.boundStore >= 0) {
      const Inst& store = fn_.instructions[inst.boundStore];
      if (store.operands.size() >= 2) return keyOfOperand(store.operands[1], inst.boundStore, depth + 1);
    }
    if (inst.effect.space == Space::Param) {
      if (ops.size() >= 2 && ops[1].kind == Kind::Address && ops[1].base.kind == Kind::Symbol)
        return parameterFieldKey(ops[1].baseSymbol(), ops[1].offset);
      if (std::string field = parameterField(d, depth); !field.empty()) return field;
    }
    if (inst.effect.address >= 0 && static_cast<size_t>(inst.effect.address) < ops.size()) {
      std::string storage, shortStorage;
      std::string_view address = keyViewOfOperand(ops[inst.effect.address], d, depth + 1, storage);
      if (address.size() > kMaxArgumentText) address = shortForm(address, shortStorage);
      model::pollBytes(address.size());
      std::string text;
      text.reserve(address.size() + 6);
      text.append("load(").append(address).append(")");
      return text;
    }
    return opaque();
  }
  if (inst.effect.kind != EffectKind::None) return std::string(toString(inst.effect.kind)) + "@" + std::to_string(d);
  if (ops.size() < 2) return opaque();
  // The operands' keys as views: of memoized keys (registers, the common
  // case, not copied) or of `storage`. Up to kInlineArguments of each live
  // on the stack; both are sized once, so that views stay valid.
  constexpr size_t kInlineArguments = 4;
  const size_t count = ops.size() - 1;
  std::array<std::string, kInlineArguments> inlineStorage;
  std::array<std::string_view, kInlineArguments> inlineArgs;
  std::vector<std::string> heapStorage(count > kInlineArguments ? count : 0);
  std::vector<std::string_view> heapArgs(count > kInlineArguments ? count : 0);
  std::string* storage = count > kInlineArguments ? heapStorage.data() : inlineStorage.data();
  std::span<std::string_view> args(count > kInlineArguments ? heapArgs.data() : inlineArgs.data(), count);
  for (size_t i = 1; i < ops.size(); ++i) args[i - 1] = keyViewOfOperand(ops[i], d, depth + 1, storage[i - 1]);
  if (op == "add" && args.size() == 2) {
    Affine a = parseKey(args[0]), b = parseKey(args[1]);
    if (a.symbolic.empty() || b.symbolic.empty()) {
      Affine sum{a.symbolic.empty() ? b.symbolic : a.symbolic, wrappingAdd(a.constant, b.constant)};
      return sum.text();
    }
  }
  if (op == "sub" && args.size() == 2) {
    Affine a = parseKey(args[0]), b = parseKey(args[1]);
    if (b.symbolic.empty()) return Affine{a.symbolic, wrappingAdd(a.constant, wrappingNegate(b.constant))}.text();
  }
  // Past here each argument is written into this key: a long one by its
  // short form (see shortForm), so that a key never holds more than
  // kMaxArgumentText bytes of each argument.
  std::vector<std::string> shortStorage;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].size() > kMaxArgumentText) {
      if (shortStorage.empty()) shortStorage.resize(args.size());
      args[i] = shortForm(args[i], shortStorage[i]);
    }
  if (op == "mad" && args.size() == 3) {
    Affine c = parseKey(args[2]);
    std::string symbolic = call("mul", args[0], args[1], true);
    if (!c.symbolic.empty()) symbolic = call("add", symbolic, c.symbolic, true);
    return Affine{symbolic, c.constant}.text();
  }
  // x << c is x * 2^c: nvcc scales one index both ways for two uses of an address.
  if (op == "shl" && args.size() == 2) {
    Affine amount = parseKey(args[1]);
    if (amount.symbolic.empty() && amount.constant >= 0 && amount.constant < 63)
      return call("mul", args[0], std::to_string(int64_t(1) << amount.constant), true);
  }
  std::string name(op);
  if (inst.hasModifier("hi")) name += ".hi";
  if (op == "setp" || op == "set" || op == "selp" || op == "shr" || op == "div" || op == "rem" || op == "min" ||
      op == "max")
    for (const auto& m : inst.syntax->modifiers) name.append(".").append(m);  // comparison and signedness matter
  if (isCommutative(op)) std::sort(args.begin(), args.end());
  size_t length = name.size() + args.size() + 2;
  for (const auto& arg : args) length += arg.size();
  model::pollBytes(length);  // the copy below (each argument is at most kMaxArgumentText bytes)
  std::string text;
  text.reserve(length);
  text.append(name).append("(");
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) text += ',';
    text += args[i];
  }
  text += ')';
  return text;
}

// A long key's short form: "&<id>{<markers>}" plus its constant ("+8"),
// where <id> numbers the distinct symbolic parts (hash-consing: equal texts,
// equal ids, so equal keys stay equal and different ones different) and
// <markers> lists the substrings that the facts below look for inside a
// form (opaque names, loads, thread and block indices), so that they read
// the same off the short form. Without it, `y ^= y >> 11` repeated doubles
// the key each time (a random-number generator's tempering chains over
// loaded words reached gigabytes).
std::string_view ValueIdentity::shortForm(std::string_view key, std::string& storage) const {
  static constexpr std::string_view kMarkers[] = {"@", "load(", "undef", "?", "rmw@", "phi@", "%tid.", "%ctaid."};
  model::pollBytes(key.size() * std::size(kMarkers));  // hashed once, searched once per marker
  Affine affine = parseKey(key);
  auto [it, added] = shortIds_.try_emplace(std::string(affine.symbolic), static_cast<int32_t>(shortIds_.size()));
  storage = "&" + std::to_string(it->second) + "{";
  bool first = true;
  for (std::string_view marker : kMarkers)
    if (affine.symbolic.find(marker) != std::string_view::npos) {
      if (!first) storage += ',';
      storage.append(marker);
      first = false;
    }
  storage += '}';
  if (affine.constant != 0) storage.append("+").append(std::to_string(affine.constant));
  return storage;
}

std::string ValueIdentity::addressKey(InstId at, int operand) const {
  if (at < 0 || static_cast<size_t>(at) >= fn_.instructions.size()) return {};
  const auto& ops = fn_.instructions[at].operands;
  if (operand < 0 || static_cast<size_t>(operand) >= ops.size() || ops[operand].kind != Kind::Address) return {};
  return keyOfOperand(ops[operand], at, 0);
}

std::string ValueIdentity::rootOfAddress(const ptx::Operand& address, InstId at, int depth) const {
  if (address.base.kind == Kind::Register) return rootOf(address.base.reg, at, depth);
  if (address.base.kind == Kind::Symbol) return named("sym:", address.baseSymbol());
  return {};
}

std::string ValueIdentity::rootOf(ValueReg reg, InstId at, int depth) const {
  if (depth > kMaxDepth) return {};
  const std::vector<InstId>& defs = reachingDefinitions(reg, at);
  const std::string* first = nullptr;
  for (InstId d : defs) {
    // A pointer stepped in a loop (`add %rd, %rd, 8192`) keeps the root of
    // the definitions it steps from (issue 34, cuDNN's TW: every block reads
    // all the partials through one pointer advanced per row).
    if (stepsOwnValue(d, reg, defs)) continue;
    const std::string& r = rootOfDefinition(d, depth);
    if (r.empty() || (first && r != *first)) return {};
    first = &r;
  }
  return first ? *first : std::string();
}

bool ValueIdentity::stepsOwnValue(InstId d, ValueReg reg, const std::vector<InstId>& defs) const {
  const Inst& inst = fn_.instructions[d];
  const std::string_view op = inst.opcode();
  const auto& ops = inst.operands;
  if ((op != "add" && op != "sub") || ops.size() != 3 || inst.guard) return false;
  if (ops[0].kind != Kind::Register || ops[0].reg != reg || ops[1].kind != Kind::Register || ops[1].reg != reg)
    return false;
  if (ops[2].kind != Kind::Integer && ops[2].kind != Kind::Register) return false;
  if (ops[2].kind == Kind::Register && ops[2].reg == reg) return false;
  // What it steps from is among the definitions asked about (a loop's
  // induction: the value before the loop, or its own previous step).
  for (InstId from : reachingDefinitions(reg, d))
    if (std::find(defs.begin(), defs.end(), from) == defs.end()) return false;
  return defs.size() > 1;
}

const std::string& ValueIdentity::rootOfDefinition(InstId d, int depth) const {
  static const std::string kUnknown;
  if (auto cached = rootCache_.find(d); cached != rootCache_.end()) return cached->second;
  if (!enter(d, kBuildingRoot)) return kUnknown;
  std::string root = computeRootOfDefinition(d, depth);
  leave(d, kBuildingRoot);
  return rootCache_.emplace(d, std::move(root)).first->second;
}

std::string ValueIdentity::computeRootOfDefinition(InstId d, int depth) const {
  model::poll();  // as computeKeyOfDefinition: a root is a walk over definitions
  const Inst& inst = fn_.instructions[d];
  const std::string_view op = inst.opcode();  // compared with literals: no strlen each time
  const auto& ops = inst.operands;
  if (isMove(op) && ops.size() >= 2) {
    if (ops[1].kind == Kind::Register) return rootOf(ops[1].reg, d, depth + 1);
    if (ops[1].kind == Kind::Symbol) return named("sym:", ops[1].text);
    return {};
  }
  if ((op == "add" || op == "sub") && ops.size() >= 3) {
    for (size_t i = 1; i < 3 && (op == "add" || i == 1); ++i) {
      if (ops[i].kind == Kind::Register) {
        if (std::string r = rootOf(ops[i].reg, d, depth + 1); !r.empty()) return r;
      } else if (ops[i].kind == Kind::Symbol) {
        return named("sym:", ops[i].text);
      }
    }
    return {};
  }
  if (inst.effect.kind == EffectKind::Load && inst.effect.address >= 0 &&
      static_cast<size_t>(inst.effect.address) < ops.size()) {
    const auto& address = ops[inst.effect.address];
    if (inst.boundStore >= 0) {
      const Inst& store = fn_.instructions[inst.boundStore];
      if (store.operands.size() >= 2 && store.operands[1].kind == Kind::Register)
        return rootOf(store.operands[1].reg, inst.boundStore, depth + 1);
      return {};
    }
    if (inst.effect.space == Space::Param) {
      if (address.base.kind == Kind::Symbol) return parameterFieldKey(address.baseSymbol(), address.offset);
      if (std::string field = parameterField(d, depth); !field.empty()) return field;
      // An indexed field (`params.table[i]`): the parameter is the table.
      if (std::string param = parameterOf(d, depth); !param.empty()) return named("param:", param);
      return {};
    }
    std::string table = rootOfAddress(address, d, depth + 1);
    return "loaded(" + table + ")";
  }
  return {};
}

// `ld.param [%rd + k]` with %rd the kernel parameter's address (`mov.b64 %rd,
// p`, plus constants): field k of p, named as a direct `ld.param [p + k]` is
// ("param:p@k", parameterFieldKey), so both forms give one key and one root.
// Empty otherwise.
std::string ValueIdentity::parameterField(InstId load, int depth) const {
  const auto& address = fn_.instructions[load].operands[1];
  if (address.kind != Kind::Address || address.base.kind != Kind::Register) return {};
  const std::string& baseKey = keyOf(address.base.reg, load, depth + 1);
  Affine base = parseKey(baseKey);
  const std::string param = parameterOf(load, depth);
  if (param.empty() || !isSymbolKey(base.symbolic, param)) return {};
  const int64_t offset = wrappingAdd(base.constant, address.offset);
  return parameterFieldKey(param, offset);
}

// The kernel parameter whose address an `ld.param [%rd + ...]` reads through
// (the root of %rd is that parameter's symbol), or empty.
std::string ValueIdentity::parameterOf(InstId load, int depth) const {
  const Inst& inst = fn_.instructions[load];
  const auto& address = inst.operands[1];
  if (address.kind != Kind::Address || address.base.kind != Kind::Register || !fn_.function ||
      inst.origin != fn_.function)
    return {};
  const std::string root = rootOf(address.base.reg, load, depth + 1);
  for (const auto& p : fn_.function->params)
    if (isSymbolKey(root, p.name)) return p.name;
  return {};
}

const std::string& ValueIdentity::addressRoot(InstId at, int operand) const {
  static const std::string kNone;
  if (at < 0 || static_cast<size_t>(at) >= fn_.instructions.size()) return kNone;
  const auto& ops = fn_.instructions[at].operands;
  if (operand < 0 || static_cast<size_t>(operand) >= ops.size() || ops[operand].kind != Kind::Address) return kNone;
  const uint64_t key = (uint64_t(uint32_t(at)) << 32) | uint32_t(operand);
  if (auto known = addressRoots_.find(key); known != addressRoots_.end()) return known->second;
  std::string root = rootOfAddress(ops[operand], at, 0);
  return addressRoots_.emplace(key, std::move(root)).first->second;
}

bool ValueIdentity::isLoadedPointer(InstId at, int operand) const {
  return addressRoot(at, operand).starts_with("loaded(");
}

// A per-instruction id of a text about its memory address operand (its key
// or its root), kept in `ids` (id + 2; 0: not asked), numbered in `numbers`;
// -1 where the instruction has no address or the text is empty.
template <typename Text>
int32_t ValueIdentity::addressId(std::vector<int32_t>& ids, std::unordered_map<std::string, int32_t>& numbers,
                                 InstId at, Text text) const {
  if (ids.empty()) ids.assign(fn_.instructions.size(), 0);
  if (const int32_t known = ids[at]) return known - 2;
  int32_t id = -1;
  if (const int operand = fn_.instructions[at].effect.address; operand >= 0)
    if (std::string form = text(operand); !form.empty())
      id = numbers.try_emplace(std::move(form), static_cast<int32_t>(numbers.size())).first->second;
  ids[at] = id + 2;
  return id;
}

int32_t ValueIdentity::addressIdentity(InstId at) const {
  return addressId(addressIds_, interned_, at, [&](int operand) { return addressKey(at, operand); });
}

bool ValueIdentity::sameAddress(InstId a, InstId b) const {
  const int32_t ia = addressIdentity(a);
  return ia >= 0 && ia == addressIdentity(b);
}

int32_t ValueIdentity::addressRootIdentity(InstId at) const {
  return addressId(rootIds_, internedRoots_, at, [&](int operand) { return addressRoot(at, operand); });
}

bool ValueIdentity::mayShareObject(InstId a, InstId b) const {
  if (fn_.instructions[a].effect.address < 0 || fn_.instructions[b].effect.address < 0) return false;
  const int32_t ra = addressRootIdentity(a), rb = addressRootIdentity(b);
  return ra < 0 || rb < 0 || ra == rb;
}


// --- Facts read off the canonical forms (the only place that reads them) ---

namespace {

bool isIntegerText(const std::string& form) {
  int64_t ignored;
  return parseInteger(form, ignored);
}

// Forms that name something other than a fixed computation: an opaque
// definition ("def@", "rmw@", "phi@", "cycle@", "undef"), a load, or an
// operand the walk could not read.
bool namesOpaqueValue(const std::string& form) {
  return form.find('@') != std::string::npos || form.find("load(") != std::string::npos ||
         form.find("undef") != std::string::npos || form.find('?') != std::string::npos;
}

}  // namespace

std::optional<int64_t> ValueIdentity::constantOf(InstId at, int operand) const {
  std::string form = operandKey(at, operand);
  int64_t value;
  if (parseInteger(form, value)) return value;
  return std::nullopt;
}

bool ValueIdentity::isNegation(InstId at, int operand) const {
  std::string form = operandKey(at, operand);
  return form.starts_with("-") || form.starts_with("neg(");
}

bool ValueIdentity::isInvariant(InstId at, int operand) const {
  std::string form = operandKey(at, operand);
  return !form.empty() && !namesOpaqueValue(form);
}

bool ValueIdentity::isMergedAddress(InstId at, int operand) const {
  return addressKey(at, operand).find("phi@") != std::string::npos;
}

ValueIdentity::Identities ValueIdentity::identitiesNamed(InstId at, int operand) const {
  std::string form = operandKey(at, operand);
  Identities ids;
  if (form.starts_with("%tid.")) ids.thread = true;
  else if (form.starts_with("%ctaid.")) ids.block = true;
  else if (form.starts_with("or(")) {
    ids.thread = form.find("%tid.") != std::string::npos;
    ids.block = form.find("%ctaid.") != std::string::npos;
  }
  return ids;
}

bool ValueIdentity::isConstant(InstId at, int operand) const { return isIntegerText(operandKey(at, operand)); }

bool ValueIdentity::readsAtomicResult(InstId at, int operand) const {
  return operandKey(at, operand).find("rmw@") != std::string::npos;
}

bool ValueIdentity::isSpecialRegister(InstId at, int operand, std::string_view name) const {
  return operandKey(at, operand) == name;
}

int32_t ValueIdentity::identity(InstId at, int operand) const {
  std::string form = operandKey(at, operand);
  if (form.empty()) return -1;
  auto [it, inserted] = interned_.try_emplace(std::move(form), static_cast<int32_t>(interned_.size()));
  return it->second;
}

}  // namespace fenceline::model::detail
