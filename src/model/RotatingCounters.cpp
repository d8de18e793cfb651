// Barriers over counters taken in turn (see RotatingCounters.h): the
// arithmetic from the turn to the counter's address is evaluated on numbers,
// for every turn the barrier can store, and the uses are simulated.
#include "model/RotatingCounters.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/IntegerDivision.h"
#include "model/Memory.h"
#include "model/Paths.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

constexpr uint64_t kMaxTurns = 256;  // turns simulated (the bound of the stored turn)
constexpr int kMaxDepth = 48;        // register definitions followed from one operand

struct IntType {
  int bits = 0;
  bool isSigned = false;
};

// `u32`, `s64`, `b16`: an integer type modifier.
std::optional<IntType> intType(std::string_view m) {
  if (m.size() < 2 || (m[0] != 'u' && m[0] != 's' && m[0] != 'b')) return std::nullopt;
  if (m == "u8" || m == "s8" || m == "b8") return IntType{8, m[0] == 's'};
  if (m == "u16" || m == "s16" || m == "b16") return IntType{16, m[0] == 's'};
  if (m == "u32" || m == "s32" || m == "b32") return IntType{32, m[0] == 's'};
  if (m == "u64" || m == "s64" || m == "b64") return IntType{64, m[0] == 's'};
  return std::nullopt;
}

uint64_t truncated(uint64_t v, int bits) { return bits >= 64 ? v : v & ((uint64_t(1) << bits) - 1); }
int64_t signExtended(uint64_t v, int bits) {
  if (bits >= 64) return static_cast<int64_t>(v);
  const uint64_t sign = uint64_t(1) << (bits - 1);
  return static_cast<int64_t>((truncated(v, bits) ^ sign) - sign);
}
uint64_t extended(uint64_t v, IntType t) {
  return t.isSigned ? static_cast<uint64_t>(signExtended(v, t.bits)) : truncated(v, t.bits);
}

// The numbers of a use's arithmetic: the turn the load read (or the stored
// turn pinned at its definition), symbols and parameters as distinct bases.
class TurnArithmetic {
 public:
  using Bases = std::map<std::string, uint64_t, std::less<>>;
  // `bases`: the numbers of symbols and parameters, shared by every
  // evaluation whose results are compared.
  TurnArithmetic(const FunctionModel& fn, Bases& bases) : fn_(fn), bases_(bases) {}

  InstId turnLoad = -1;     // the load of the turn (found by the first evaluation when -1)
  bool turnReadable = true;  // false: evaluating needs the turn load -> fails
  uint64_t turn = 0;
  InstId pinned = -1;  // an instruction whose written value is `pinnedValue`
  uint64_t pinnedValue = 0;

  std::optional<uint64_t> address(InstId at, int operand) {
    if (operand < 0 || operand >= static_cast<int>(fn_.instructions[at].operands.size())) return std::nullopt;
    const ptx::Operand& op = fn_.instructions[at].operands[operand];
    if (op.kind != ptx::Operand::Kind::Address) return std::nullopt;
    std::optional<uint64_t> base;
    if (op.base.kind == ptx::Operand::Kind::Register) base = reg(op.base.reg, at, 0);
    else if (op.base.kind == ptx::Operand::Kind::Symbol) base = baseOf(op.text);
    else base = static_cast<uint64_t>(op.intValue);
    if (!base) return std::nullopt;
    return *base + static_cast<uint64_t>(op.offset);
  }
  std::optional<uint64_t> value(InstId at, int operand) { return operandValue(at, operand, 0); }

 private:
  uint64_t baseOf(std::string_view name) {
    auto [it, inserted] = bases_.try_emplace(std::string(name), bases_.size() + 1);
    return it->second << 44;
  }

  std::optional<uint64_t> operandValue(InstId at, int operand, int depth) {
    const auto& ops = fn_.instructions[at].operands;
    if (operand < 0 || operand >= static_cast<int>(ops.size())) return std::nullopt;
    const ptx::Operand& op = ops[operand];
    switch (op.kind) {
      case ptx::Operand::Kind::Register: return reg(op.reg, at, depth);
      case ptx::Operand::Kind::Integer: return static_cast<uint64_t>(op.intValue);
      case ptx::Operand::Kind::Symbol: return baseOf(op.text) + static_cast<uint64_t>(op.offset);
      default: return std::nullopt;
    }
  }

  std::optional<uint64_t> reg(ValueReg r, InstId at, int depth) {
    if (depth > kMaxDepth) return std::nullopt;
    const InstId def = fn_.values->definition(r, at);
    if (def < 0) return std::nullopt;
    return written(def, depth + 1);
  }

  std::optional<uint64_t> load(InstId def, int depth) {
    const Inst& inst = fn_.instructions[def];
    // A callee's parameter (or a local slot) bound to the one store that
    // wrote it: what that store wrote.
    if (inst.boundStore >= 0) return operandValue(inst.boundStore, 1, depth + 1);
    if (inst.hasModifier("param")) {
      // A kernel parameter: the number of its name (a pointer: a base).
      const ptx::Operand& op = inst.operands[1];
      if (op.kind != ptx::Operand::Kind::Address || op.base.kind != ptx::Operand::Kind::Symbol) return std::nullopt;
      return baseOf(op.text) + static_cast<uint64_t>(op.offset);
    }
    if (inst.effect.kind != EffectKind::Load || inst.operands[0].kind != ptx::Operand::Kind::Register)
      return std::nullopt;
    if (turnLoad < 0) turnLoad = def;
    if (def != turnLoad || !turnReadable) return std::nullopt;
    return turn;
  }

  std::optional<uint64_t> written(InstId def, int depth) {
    if (def == pinned) return pinnedValue;
    const Inst& inst = fn_.instructions[def];
    const std::string_view op = inst.opcode();
    if (inst.guard) return std::nullopt;  // a guarded definition may not run
    if (op == "ld") return load(def, depth);
    std::vector<IntType> types;
    for (std::string_view m : inst.syntax->modifiers)
      if (auto t = intType(m)) types.push_back(*t);
    if (op == "mov" || op == "cvta") return operandValue(def, 1, depth);
    if (types.empty()) return std::nullopt;
    auto source = [&](int operand, IntType t) -> std::optional<uint64_t> {
      auto v = operandValue(def, operand, depth);
      if (!v) return std::nullopt;
      return extended(*v, t);
    };
    const IntType t = types.back();
    if (op == "cvt") {
      if (types.size() != 2 || inst.syntax->modifiers.size() != 2) return std::nullopt;  // no float, no saturation
      auto v = source(1, types[1]);
      if (!v) return std::nullopt;
      return truncated(*v, types[0].bits);
    }
    auto a = source(1, t);
    if (!a) return std::nullopt;
    if (op == "neg") return truncated(0 - *a, t.bits);
    if (op == "not") return truncated(~*a, t.bits);
    const bool shift = op == "shl" || op == "shr";
    auto b = shift ? source(2, IntType{32, false}) : source(2, t);
    if (!b) return std::nullopt;
    const bool wide = inst.hasModifier("wide"), high = inst.hasModifier("hi");
    auto product = [&]() -> std::optional<uint64_t> {
      if (wide) {
        if (t.bits > 32) return std::nullopt;
        return truncated(static_cast<uint64_t>(static_cast<int64_t>(*a) * static_cast<int64_t>(*b)), 2 * t.bits);
      }
      const unsigned __int128 full =
          t.isSigned ? static_cast<unsigned __int128>(static_cast<__int128>(signExtended(*a, t.bits)) *
                                                      static_cast<__int128>(signExtended(*b, t.bits)))
                     : static_cast<unsigned __int128>(*a) * static_cast<unsigned __int128>(*b);
      return truncated(high ? static_cast<uint64_t>(full >> t.bits) : static_cast<uint64_t>(full), t.bits);
    };
    const int bits = wide ? 2 * t.bits : t.bits;
    if (op == "add") return truncated(*a + *b, bits);
    if (op == "sub") return truncated(*a - *b, bits);
    if (op == "mul") return product();
    if (op == "mad") {
      auto p = product();
      auto c = source(3, IntType{bits, t.isSigned});
      if (!p || !c || high) return std::nullopt;
      return truncated(*p + *c, bits);
    }
    if (op == "and") return *a & *b;
    if (op == "or") return *a | *b;
    if (op == "xor") return *a ^ *b;
    if (op == "shl") return *b >= uint64_t(t.bits) ? 0 : truncated(*a << *b, t.bits);
    if (op == "shr") {
      if (t.isSigned) return truncated(static_cast<uint64_t>(signExtended(*a, t.bits) >> std::min<uint64_t>(*b, 63)), t.bits);
      return *b >= uint64_t(t.bits) ? 0 : truncated(*a, t.bits) >> *b;
    }
    if (op == "rem" || op == "div") {
      auto q = foldDivision(t.isSigned ? signExtended(*a, t.bits) : static_cast<int64_t>(*a),
                            t.isSigned ? signExtended(*b, t.bits) : static_cast<int64_t>(*b), !t.isSigned, op == "rem");
      if (!q) return std::nullopt;
      return truncated(static_cast<uint64_t>(*q), t.bits);
    }
    if (op == "min" || op == "max") {
      const bool less = t.isSigned ? signExtended(*a, t.bits) < signExtended(*b, t.bits) : *a < *b;
      return (op == "min") == less ? *a : *b;
    }
    return std::nullopt;
  }

  const FunctionModel& fn_;
  Bases& bases_;
};

// The constant operand `operand` of `def`, or nullopt.
std::optional<int64_t> constantOperand(const FunctionModel& fn, InstId def, int operand) {
  const auto& ops = fn.instructions[def].operands;
  if (operand >= static_cast<int>(ops.size())) return std::nullopt;
  if (ops[operand].kind == ptx::Operand::Kind::Integer) return ops[operand].intValue;
  return fn.values->constantOf(def, operand);
}

InstId definitionOf(const FunctionModel& fn, InstId at, int operand) {
  const auto& ops = fn.instructions[at].operands;
  if (operand >= static_cast<int>(ops.size()) || ops[operand].kind != ptx::Operand::Kind::Register) return -1;
  return fn.values->definition(ops[operand].reg, at);
}

// `q` computes x / d exactly for every 32-bit unsigned x, where x is operand
// `xOperand` of `at` (nvcc's multiply by an inverse: mul.wide.u32 x, M, then
// shr.u64 by s, then cvt.u32.u64; or mul.hi.u32 x, M, then shr.u32 by s - 32),
// M verified for d: 2^s <= M*d <= 2^s + 2^(s-32).
bool isExactQuotient(const FunctionModel& fn, InstId q, int64_t d, InstId at, int xOperand) {
  for (int hop = 0; hop < 2 && q >= 0 && fn.instructions[q].opcode() == "cvt"; ++hop) q = definitionOf(fn, q, 1);
  if (q < 0 || fn.instructions[q].opcode() != "shr") return false;
  const auto shift = constantOperand(fn, q, 2);
  const InstId m = definitionOf(fn, q, 1);
  if (!shift || m < 0 || fn.instructions[m].opcode() != "mul" || !fn.instructions[m].hasModifier("u32")) return false;
  int s = static_cast<int>(*shift);
  if (fn.instructions[m].hasModifier("hi")) s += 32;
  else if (!fn.instructions[m].hasModifier("wide")) return false;
  if (s < 32 || s > 63 || d <= 0) return false;
  for (int xm = 1; xm <= 2; ++xm) {
    const auto magic = constantOperand(fn, m, 3 - xm);
    if (!magic || !fn.values->sameValue(m, xm, at, xOperand)) continue;
    const unsigned __int128 md = static_cast<unsigned __int128>(static_cast<uint32_t>(*magic)) * static_cast<uint64_t>(d);
    const unsigned __int128 low = static_cast<unsigned __int128>(1) << s;
    if (md >= low && md <= low + (static_cast<unsigned __int128>(1) << (s - 32))) return true;
  }
  return false;
}

// An exclusive upper bound of the value `def` writes, from its own
// computation: x % d, x & m, min(x, c), the remainder nvcc computes as
// x - (x / d) * d through an inverse; through mov and cvt.
std::optional<uint64_t> boundOf(const FunctionModel& fn, InstId def, int depth = 0) {
  if (def < 0 || depth > 4) return std::nullopt;
  const Inst& inst = fn.instructions[def];
  const std::string_view op = inst.opcode();
  if (inst.guard) return std::nullopt;
  if (op == "mov" || (op == "cvt" && inst.syntax->modifiers.size() == 2)) return boundOf(fn, definitionOf(fn, def, 1), depth + 1);
  if (op == "rem" && (inst.hasModifier("u32") || inst.hasModifier("u64"))) {
    const auto d = constantOperand(fn, def, 2);
    if (d && *d > 0) return static_cast<uint64_t>(*d);
  }
  if (op == "and")
    for (int k = 1; k <= 2; ++k)
      if (const auto m = constantOperand(fn, def, k); m && *m >= 0) return static_cast<uint64_t>(*m) + 1;
  if (op == "min" && (inst.hasModifier("u32") || inst.hasModifier("u64")))
    for (int k = 1; k <= 2; ++k)
      if (const auto c = constantOperand(fn, def, k); c && *c >= 0) return static_cast<uint64_t>(*c) + 1;
  if (op == "sub") {
    // x - q * d, q = x / d exactly.
    const InstId product = definitionOf(fn, def, 2);
    if (product < 0 || fn.instructions[product].opcode() != "mul" || !fn.instructions[product].hasModifier("lo"))
      return std::nullopt;
    for (int k = 1; k <= 2; ++k) {
      const auto d = constantOperand(fn, product, 3 - k);
      if (d && *d > 0 && isExactQuotient(fn, definitionOf(fn, product, k), *d, def, 1)) return static_cast<uint64_t>(*d);
    }
  }
  return std::nullopt;
}

bool isCounterArrival(const FunctionModel& fn, InstId i) {
  const Inst& inst = fn.instructions[i];
  return inst.effect.kind == EffectKind::ReadModifyWrite && inst.effect.writes &&
         (inst.hasModifier("add") || inst.hasModifier("inc"));
}

// One use of the barrier: its turn load and store, its zeroing stores, and
// what they name for each turn.
struct TurnUse {
  InstId arrival = -1, turnLoad = -1, turnStore = -1, turnDef = -1;
  std::vector<InstId> zeroBefore, zeroAfter;
  uint64_t turns = 0;     // the stored turn lies in [0, turns)
  uint64_t turnWord = 0;  // the turn word's address (bases as numbers)
  // Per turn t < turns read by the load: the next turn, the counter, the words zeroed.
  std::vector<uint64_t> next, counter;
  std::vector<std::vector<uint64_t>> zeroedBefore, zeroedAfter;
  // Per turn v < turns stored by the first use: its counter and zeroed words
  // (only the zeroing stores named through the stored turn).
  std::vector<uint64_t> firstCounter;
  std::vector<std::vector<uint64_t>> firstZeroedBefore, firstZeroedAfter;
  bool operator==(const TurnUse& o) const {
    return turns == o.turns && turnWord == o.turnWord && next == o.next && counter == o.counter &&
           zeroedBefore == o.zeroedBefore && zeroedAfter == o.zeroedAfter && firstCounter == o.firstCounter &&
           firstZeroedBefore == o.firstZeroedBefore && firstZeroedAfter == o.firstZeroedAfter;
  }
};

std::optional<TurnUse> turnUseOf(const FunctionModel& fn, InstId arrival, TurnArithmetic::Bases& bases) {
  if (!isCounterArrival(fn, arrival)) return std::nullopt;
  TurnUse use;
  use.arrival = arrival;
  const int address = fn.instructions[arrival].effect.address;
  TurnArithmetic discover(fn, bases);
  if (!discover.address(arrival, address) || discover.turnLoad < 0) return std::nullopt;
  use.turnLoad = discover.turnLoad;
  const Inst& load = fn.instructions[use.turnLoad];
  if (!isGlobalSpace(load.effect.space) && load.effect.space != Space::Generic) return std::nullopt;
  // The store of the turn: after the arrival on every path back to it.
  for (InstId s = 0; s < static_cast<InstId>(fn.instructions.size()); ++s) {
    const Inst& st = fn.instructions[s];
    if (st.effect.kind != EffectKind::Store || st.guard || !fn.dominatesInst(arrival, s) ||
        !fn.memory->sameWord(s, use.turnLoad))
      continue;
    use.turnStore = s;
    break;
  }
  if (use.turnStore < 0) return std::nullopt;
  use.turnDef = definitionOf(fn, use.turnStore, 1);
  if (use.turnDef < 0) return std::nullopt;
  const auto bound = boundOf(fn, use.turnDef);
  if (!bound || *bound == 0 || *bound > kMaxTurns) return std::nullopt;
  use.turns = *bound;
  auto isTurnStore = [&](InstId i) { return i == use.turnStore; };
  auto isTurnLoad = [&](InstId i) { return i == use.turnLoad; };
  if (!everyPathPasses(fn, arrival, arrival, isTurnStore) || !everyPathPasses(fn, use.turnStore, arrival, isTurnLoad))
    return std::nullopt;
  // The zeroing stores of the trip: between the turn load and the arrival,
  // or between the arrival and the turn store, on every path.
  for (InstId s = 0; s < static_cast<InstId>(fn.instructions.size()); ++s) {
    const Inst& st = fn.instructions[s];
    if (st.effect.kind != EffectKind::Store || st.guard || s == use.turnStore) continue;
    if (fn.dominatesInst(use.turnLoad, s) && fn.dominatesInst(s, arrival)) use.zeroBefore.push_back(s);
    else if (fn.dominatesInst(arrival, s) && fn.dominatesInst(s, use.turnStore)) use.zeroAfter.push_back(s);
  }
  // A store whose address is not computed from the turn, symbols and
  // parameters is no zeroing store (and, if it may touch the counters or the
  // turn, the rule does not hold: takesCountersInTurn).
  auto evaluable = [&](std::vector<InstId>& stores) {
    std::erase_if(stores, [&](InstId s) {
      TurnArithmetic a(fn, bases);
      a.turnLoad = use.turnLoad;
      return !a.address(s, fn.instructions[s].effect.address);
    });
  };
  evaluable(use.zeroBefore);
  evaluable(use.zeroAfter);
  auto words = [&](TurnArithmetic& a, const std::vector<InstId>& stores) {
    std::vector<uint64_t> out;
    for (InstId s : stores) {
      auto w = a.address(s, fn.instructions[s].effect.address);
      if (w) out.push_back(*w);
      else if (a.turnReadable) return std::optional<std::vector<uint64_t>>();  // every turn's or none
    }
    std::sort(out.begin(), out.end());
    return std::optional<std::vector<uint64_t>>(std::move(out));
  };
  TurnArithmetic word(fn, bases);
  word.turnLoad = use.turnLoad;
  const auto turnWord = word.address(use.turnLoad, load.effect.address);
  if (!turnWord) return std::nullopt;
  use.turnWord = *turnWord;
  for (uint64_t t = 0; t < use.turns; ++t) {
    TurnArithmetic a(fn, bases);
    a.turnLoad = use.turnLoad;
    a.turn = t;
    const auto next = a.value(use.turnStore, 1);
    const auto counter = a.address(arrival, address);
    if (!next || !counter || *next >= use.turns) return std::nullopt;
    use.next.push_back(*next);
    use.counter.push_back(*counter);
    auto before = words(a, use.zeroBefore), after = words(a, use.zeroAfter);
    if (!before || !after) return std::nullopt;
    use.zeroedBefore.push_back(std::move(*before));
    use.zeroedAfter.push_back(std::move(*after));
    // The first use: its counter named through the turn it stores alone.
    TurnArithmetic first(fn, bases);
    first.turnLoad = use.turnLoad;
    first.turnReadable = false;
    first.pinned = use.turnDef;
    first.pinnedValue = t;
    const auto firstCounter = first.address(arrival, address);
    if (!firstCounter) return std::nullopt;
    use.firstCounter.push_back(*firstCounter);
    // A zeroing store named through the turn load itself, not the stored turn: left out of the first use.
    use.firstZeroedBefore.push_back(*words(first, use.zeroBefore));
    use.firstZeroedAfter.push_back(*words(first, use.zeroAfter));
  }
  return use;
}

// From every first turn, no use arrives on a counter arrived on since it was
// last zeroed; neither a counter nor a zeroed word is the turn word.
bool neverTakenUnzeroed(const TurnUse& use) {
  auto meetsTurn = [&](const std::vector<std::vector<uint64_t>>& words) {
    return std::any_of(words.begin(), words.end(), [&](const std::vector<uint64_t>& w) {
      return std::find(w.begin(), w.end(), use.turnWord) != w.end();
    });
  };
  if (std::count(use.counter.begin(), use.counter.end(), use.turnWord) ||
      std::count(use.firstCounter.begin(), use.firstCounter.end(), use.turnWord) || meetsTurn(use.zeroedBefore) ||
      meetsTurn(use.zeroedAfter) || meetsTurn(use.firstZeroedBefore) || meetsTurn(use.firstZeroedAfter))
    return false;
  const size_t trips = 2 * use.turns + 2;
  for (uint64_t first = 0; first < use.turns; ++first) {
    std::set<uint64_t> arrived;  // counters arrived on since they were last zeroed
    auto zero = [&](const std::vector<uint64_t>& words) {
      for (uint64_t w : words) arrived.erase(w);
    };
    zero(use.firstZeroedBefore[first]);
    arrived.insert(use.firstCounter[first]);
    zero(use.firstZeroedAfter[first]);
    uint64_t turn = first;
    for (size_t trip = 1; trip <= trips; ++trip) {
      zero(use.zeroedBefore[turn]);
      if (!arrived.insert(use.counter[turn]).second) return false;
      zero(use.zeroedAfter[turn]);
      turn = use.next[turn];
    }
  }
  return true;
}

// `w` may write what `other` accesses: the memory model cannot tell them
// apart, and `w` goes through the same root object. When `other` is a
// `__device__` variable (a global symbol), a write through another root, or
// through one the analysis cannot name (a parameter, a pointer read from
// memory, an address aligned with `and`), is taken to be elsewhere: a pointer
// into the variable would have to come from the host
// (cudaGetSymbolAddress), which the kernel does not show. Otherwise a root the
// analysis cannot name may be the barrier's.
bool mayTouch(const FunctionModel& fn, InstId w, InstId other) {
  const auto& a = fn.instructions[w].effect;
  const auto& b = fn.instructions[other].effect;
  if (fn.memory->alias(w, a.address, other, b.address) == AliasResult::No) return false;
  const MemoryObject root = fn.memory->rootOf(w, a.address);
  const MemoryObject target = fn.memory->rootOf(other, b.address);
  if (root.known() && target.known()) return root == target;
  if (target.kind == MemoryObject::Kind::GlobalSymbol) return false;
  return true;
}

}  // namespace

bool takesCountersInTurn(const FunctionModel& fn, InstId arrival) {
  TurnArithmetic::Bases bases;
  const auto use = turnUseOf(fn, arrival, bases);
  if (!use || !neverTakenUnzeroed(*use)) return false;
  // Every write of the kernel that may touch the turn word or a counter
  // belongs to a use with the same tables on the same turn word (this one,
  // or another copy of the barrier): its arrival, its turn store, or one of
  // its zeroing stores. The simulation covers any order of such uses.
  std::set<InstId> covered;
  for (InstId other = 0; other < static_cast<InstId>(fn.instructions.size()); ++other) {
    if (!isCounterArrival(fn, other)) continue;
    const auto copy = other == arrival ? use : turnUseOf(fn, other, bases);
    if (!copy || !(*copy == *use) || !fn.memory->sameWord(copy->turnLoad, use->turnLoad)) continue;
    covered.insert({copy->arrival, copy->turnStore});
    covered.insert(copy->zeroBefore.begin(), copy->zeroBefore.end());
    covered.insert(copy->zeroAfter.begin(), copy->zeroAfter.end());
  }
  for (InstId w = 0; w < static_cast<InstId>(fn.instructions.size()); ++w) {
    const Inst& inst = fn.instructions[w];
    if (inst.effect.kind == EffectKind::Call && !inst.summarizedCall) return false;
    if (!inst.effect.writes || inst.effect.address < 0 || covered.count(w)) continue;
    if (mayTouch(fn, w, use->turnLoad) || mayTouch(fn, w, arrival)) return false;
  }
  return true;
}

}  // namespace fenceline::model
