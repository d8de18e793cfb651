// Sign-bit phase barriers (model/PhaseFlipBarriers.h).
#include "model/PhaseFlipBarriers.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "model/Memory.h"
#include "model/Paths.h"
#include "model/Protocol.h"
#include "model/SpinLoops.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

constexpr int64_t kMasterBase = 0x80000001LL;  // 0x80000001 - X: the master's amount
constexpr int64_t kMaxBlocks = int64_t(1) << 24;

bool same32(int64_t a, int64_t b) { return ((a - b) & 0xffffffffLL) == 0; }

bool isAddArrival(const FunctionModel& fn, InstId i) {
  const Inst& in = fn.instructions[i];
  return in.effect.kind == EffectKind::ReadModifyWrite && writesGlobalMemory(fn, i) && in.hasModifier("add");
}

// The only definition of register operand `operand` of `at`, or -1.
InstId onlyDefinition(const FunctionModel& fn, InstId at, int operand) {
  const auto& ops = fn.instructions[at].operands;
  if (operand >= static_cast<int>(ops.size()) || ops[operand].kind != ptx::Operand::Kind::Register) return -1;
  const std::vector<InstId> defs = fn.values->reachingDefinitions(ops[operand].reg, at);
  return defs.size() == 1 ? defs.front() : -1;
}

// The register operand whose bit 31 comparison `compare` tests (a signed
// comparison of it with 0 or -1; `x & 0x80000000` compared with 0 for
// equality), as (instruction, operand); nullopt when it tests none.
std::optional<std::pair<InstId, int>> signTested(const FunctionModel& fn, InstId compare, int polled) {
  const Inst& c = fn.instructions[compare];
  if (c.opcode() != "setp" || c.operands.size() < 3 || (polled != 1 && polled != 2)) return std::nullopt;
  const std::optional<int64_t> k = fn.values->constantOf(compare, 3 - polled);
  if (!k) return std::nullopt;
  if (c.hasModifier("eq") || c.hasModifier("ne")) {
    if (*k != 0) return std::nullopt;
    const InstId mask = onlyDefinition(fn, compare, polled);
    if (mask < 0 || fn.instructions[mask].opcode() != "and") return std::nullopt;
    for (int m = 1; m <= 2; ++m) {
      const std::optional<int64_t> bits = fn.values->constantOf(mask, m);
      if (bits && same32(*bits, 0x80000000LL)) return std::make_pair(mask, 3 - m);
    }
    return std::nullopt;
  }
  if (!c.hasModifier("s32")) return std::nullopt;
  // With the tested value on the left: gt -1, ge 0 (bit clear); lt 0, le -1 (bit set).
  const bool left = polled == 1;
  const bool gt = c.hasModifier(left ? "gt" : "lt"), ge = c.hasModifier(left ? "ge" : "le");
  const bool lt = c.hasModifier(left ? "lt" : "gt"), le = c.hasModifier(left ? "le" : "ge");
  if (((gt || le) && *k == -1) || ((ge || lt) && *k == 0)) return std::make_pair(compare, polled);
  return std::nullopt;
}

// The arrival on `load`'s word that every path from `load` meets first (no
// other arrival on the word between), which `load` dominates; or -1.
InstId arrivalAfterLoad(const FunctionModel& fn, InstId load) {
  auto onWord = [&](InstId i) { return isAddArrival(fn, i) && fn.memory->sameWord(i, load); };
  const InstId arrival = findReachable(fn, load, onWord, [](InstId) { return false; });
  if (arrival < 0 || !fn.dominatesInst(load, arrival)) return -1;
  auto other = [&](InstId i) { return i != arrival && onWord(i); };
  if (findReachable(fn, load, other, [&](InstId i) { return i == arrival; }) >= 0) return -1;
  return arrival;
}

// The amount is 1, the master's 0x80000001 - X, or neither (nullopt).
std::optional<bool> amountKind(const AbstractValue& v) {
  if (!v.known || v.hasBase()) return std::nullopt;
  if (v.terms.empty()) {
    if (v.constant == 1) return false;
    const int64_t blocks = (kMasterBase - v.constant) & 0xffffffffLL;
    if (blocks >= 2 && blocks <= kMaxBlocks) return true;
    return std::nullopt;
  }
  if (v.terms.size() == 1 && v.terms.front().coefficient == -1 && same32(v.constant, kMasterBase)) return true;
  return std::nullopt;
}

}  // namespace

InstId phaseFlipArrival(const FunctionModel& fn, InstId compare, int polled, InstId poll) {
  if (!fn.values || !fn.memory) return -1;
  const auto tested = signTested(fn, compare, polled);
  if (!tested) return -1;
  const InstId x = onlyDefinition(fn, tested->first, tested->second);
  if (x < 0 || fn.instructions[x].opcode() != "xor" || fn.instructions[x].operands.size() < 3) return -1;
  const auto& ops = fn.instructions[x].operands;
  for (int p = 1; p <= 2; ++p) {
    const int q = 3 - p;
    if (ops[p].kind != ptx::Operand::Kind::Register || ops[q].kind != ptx::Operand::Kind::Register) continue;
    if (!valueDependsOn(fn, ops[p].reg, x, {poll}) || valueDependsOn(fn, ops[q].reg, x, {poll})) continue;
    const InstId phase = onlyDefinition(fn, x, q);
    if (phase < 0) continue;
    InstId arrival = -1;
    if (isAddArrival(fn, phase))
      arrival = phase;  // the arrival's returned value
    else if (fn.instructions[phase].effect.kind == EffectKind::Load && readsGlobalMemory(fn, phase))
      arrival = arrivalAfterLoad(fn, phase);  // a load of the counter before the arrival
    if (arrival < 0 || !fn.memory->sameWord(arrival, poll) || !fn.dominatesInst(arrival, poll)) continue;
    return arrival;
  }
  return -1;
}

bool addsPhaseFlip(const FunctionModel& fn, InstId arrival) {
  if (!fn.values || !isAddArrival(fn, arrival)) return false;
  const auto& ops = fn.instructions[arrival].operands;
  const int amount = static_cast<int>(ops.size()) - 1;
  if (amount < 2) return false;
  bool one = false, master = false;
  auto take = [&](const AbstractValue& v) {
    const std::optional<bool> kind = amountKind(v);
    if (!kind) return false;
    (*kind ? master : one) = true;
    return true;
  };
  if (ops[amount].kind != ptx::Operand::Kind::Register) return false;  // one constant: no master
  // The definitions that reach the amount, through selp and mov.
  std::set<std::pair<ValueReg, InstId>> seen;
  std::vector<std::pair<ValueReg, InstId>> work{{ops[amount].reg, arrival}};
  while (!work.empty()) {
    auto [reg, at] = work.back();
    work.pop_back();
    if (!seen.insert({reg, at}).second) continue;
    if (seen.size() > 16) return false;
    const std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
    if (defs.empty()) return false;
    for (InstId d : defs) {
      const Inst& def = fn.instructions[d];
      const std::string_view op = def.opcode();
      std::vector<int> chosen;
      if (op == "selp" && def.operands.size() >= 4) chosen = {1, 2};
      else if (op == "mov" && def.operands.size() == 2 && def.operands[1].kind == ptx::Operand::Kind::Register)
        chosen = {1};
      if (chosen.empty()) {
        if (!take(fn.values->valueWrittenBy(d))) return false;
        continue;
      }
      for (int c : chosen) {
        if (def.operands[c].kind == ptx::Operand::Kind::Register) work.push_back({def.operands[c].reg, d});
        else if (!take(fn.values->operandValue(d, c))) return false;
      }
    }
  }
  return one && master;
}

InstId phaseFlipUseOfPoll(const ProtocolModel& ctx, InstId poll) {
  const FunctionModel& fn = ctx.function();
  const SpinLoop* spin = ctx.spinContaining(poll);
  if (!spin) return -1;
  for (InstId compare : spin->comparisons)
    for (int polled = 1; polled <= 2; ++polled) {
      const InstId arrival = phaseFlipArrival(fn, compare, polled, poll);
      if (arrival >= 0 && addsPhaseFlip(fn, arrival)) return arrival;
    }
  return -1;
}

bool waitOfOtherPhaseFlipUse(const ProtocolModel& ctx, InstId signal, InstId poll) {
  const FunctionModel& fn = ctx.function();
  if (!addsPhaseFlip(fn, signal)) return false;
  const InstId arrival = phaseFlipUseOfPoll(ctx, poll);
  return arrival >= 0 && arrival != signal && fn.memory->sameWord(arrival, signal);
}

}  // namespace fenceline::model
