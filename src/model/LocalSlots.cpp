// bindLocalSlots: a value kept in a slot of the thread's own local memory and
// read back, as Inst::boundStore binds a parameter read to the st.param that
// wrote it. nvcc keeps a variable in the function's local depot when it
// cannot hold it in a register (a `volatile` pointer variable: st.local of the
// value once, ld.volatile.local before each use; at -O0 every variable, through
// the depot's generic address %SP). Without this the value analysis knows the
// reloaded value only as "a pointer read from memory", and a pointer to shared
// memory kept there looks like any generic pointer: its stores look global
// (issue 34, nvCOMP's V: a volatile store to shared memory taken for a .sys
// signal).
//
// Decided only where nothing else can write the slot: the depot's address is
// used only as the address of a load or store at a constant offset (never
// stored, passed, compared or offset by a register: no other pointer can reach
// the slot), the slot has exactly one store, of the load's size, unguarded, and
// that store executes before the load on every path (it dominates it). Local
// memory is the thread's own: no other thread writes it.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "model/Build.h"
#include "model/Limits.h"
#include "model/Operands.h"

namespace fenceline::model::detail {

namespace {

using Kind = ptx::Operand::Kind;

// A depot address: the variable and a constant offset into it.
struct DepotAddress {
  std::string_view depot;
  int64_t offset = 0;
};

// The `.local` variables of each function whose body an instruction comes
// from, found once per function (a kernel may declare thousands: one per
// inlined call's depot).
class LocalVariables {
 public:
  bool contains(const Inst& inst, std::string_view symbol) {
    if (!inst.origin) return false;
    auto [it, added] = names_.try_emplace(inst.origin);
    if (added)
      for (const ptx::Variable& v : inst.origin->locals)
        if (v.space == ".local") it->second.insert(v.name);
    return it->second.count(symbol) != 0;
  }

 private:
  std::unordered_map<const ptx::Function*, std::unordered_set<std::string_view>> names_;
};

// The bytes one scalar access moves (.b64: 8), 0 for a vector or an unknown type.
int64_t scalarBytes(const Inst& inst) {
  if (vectorLength(*inst.syntax) > 1) return 0;
  int64_t bytes = 0;
  for (const auto& m : inst.syntax->modifiers)
    if (const int64_t w = typeWidth(m); w > 0) bytes = w;
  return bytes;
}

bool isPlainLoadOrStore(const Inst& inst) {
  const std::string_view op = inst.opcode();
  return (op == "ld" || op == "st") && inst.effect.address >= 0 &&
         (inst.effect.kind == EffectKind::Load || inst.effect.kind == EffectKind::Store);
}

}  // namespace

void bindLocalSlots(FunctionModel& fn) {
  const InstId count = static_cast<InstId>(fn.instructions.size());
  LocalVariables locals;
  // Registers holding a depot address: defined once, by mov of the depot
  // symbol, mov/cvta.local of such a register, or add of a constant to one.
  std::vector<int> definitions(fn.registerNames.size(), 0);
  bool anyDepot = false;
  for (InstId i = 0; i < count; ++i) {
    const Inst& inst = fn.instructions[i];
    for (ValueReg r : writtenRegisters(inst))
      if (r >= 0 && static_cast<size_t>(r) < definitions.size()) ++definitions[r];
    for (const auto& op : inst.operands)
      if ((op.kind == Kind::Symbol && locals.contains(inst, op.text)) ||
          (op.kind == Kind::Address && op.base.kind == Kind::Symbol && locals.contains(inst, op.text)))
        anyDepot = true;
  }
  if (!anyDepot) return;
  std::unordered_map<ValueReg, DepotAddress> held;
  std::set<std::string_view> escaped;
  auto depotOf = [&](const ptx::Operand& op, const Inst& inst) -> std::optional<DepotAddress> {
    if (op.kind == Kind::Symbol && locals.contains(inst, op.text)) return DepotAddress{op.text, op.offset};
    if (op.kind == Kind::Register)
      if (auto it = held.find(op.reg); it != held.end()) return it->second;
    return std::nullopt;
  };
  // nvcc defines the depot registers at the entry, before their uses: one
  // pass in program order finds them (a definition after a use is no match).
  std::vector<char> derives(count, 0);
  for (InstId i = 0; i < count; ++i) {
    model::poll();
    const Inst& inst = fn.instructions[i];
    const auto& ops = inst.operands;
    const std::string_view op = inst.opcode();
    if (ops.size() < 2 || ops[0].kind != Kind::Register || (inst.guard && inst.guard->reg >= 0)) continue;
    const ValueReg r = ops[0].reg;
    if (r < 0 || static_cast<size_t>(r) >= definitions.size() || definitions[r] != 1) continue;
    std::optional<DepotAddress> from;
    if ((op == "mov" || (op == "cvta" && inst.hasModifier("local") && !inst.hasModifier("to"))) && ops.size() == 2)
      from = depotOf(ops[1], inst);
    else if (op == "add" && ops.size() == 3 && ops[2].kind == Kind::Integer)
      if ((from = depotOf(ops[1], inst))) from->offset += ops[2].intValue;
    if (!from) continue;
    held[r] = *from;
    derives[i] = 1;
  }
  // Every other use of a depot address lets another pointer reach the depot.
  struct Access {
    InstId inst;
    DepotAddress at;
    int64_t bytes;
  };
  std::vector<Access> accesses;
  for (InstId i = 0; i < count; ++i) {
    const Inst& inst = fn.instructions[i];
    if (derives[i]) continue;
    const int address = isPlainLoadOrStore(inst) ? inst.effect.address : -1;
    for (int k = 0; k < static_cast<int>(inst.operands.size()); ++k) {
      const ptx::Operand& op = inst.operands[k];
      std::optional<DepotAddress> at;
      if (op.kind == Kind::Address) {
        if (op.base.kind == Kind::Symbol && locals.contains(inst, op.text)) at = DepotAddress{op.text, 0};
        else if (op.base.kind == Kind::Register)
          if (auto it = held.find(op.base.reg); it != held.end()) at = it->second;
        if (at) at->offset += op.offset;
      } else {
        at = depotOf(op, inst);
      }
      if (!at) continue;
      if (k != address || !op.elements.empty()) {
        escaped.insert(at->depot);
        continue;
      }
      accesses.push_back({i, *at, scalarBytes(inst)});
    }
    if (inst.guard && inst.guard->reg >= 0 && held.count(inst.guard->reg)) escaped.insert(held[inst.guard->reg].depot);
  }
  // The stores of each depot by offset, so that a load finds the stores that
  // may overlap it without walking every access (a kernel of 40,000 inlined
  // calls has as many slots: issue 35's inlined-calls-scaling).
  struct DepotStores {
    std::vector<const Access*> sized;  // by offset
    int64_t widest = 0;
    std::vector<const Access*> unsized;  // a store of unknown size overlaps every load
  };
  std::map<std::string_view, DepotStores> stores;
  for (const Access& a : accesses) {
    if (fn.instructions[a.inst].effect.kind != EffectKind::Store) continue;
    DepotStores& d = stores[a.at.depot];
    if (a.bytes <= 0) {
      d.unsized.push_back(&a);
      continue;
    }
    d.sized.push_back(&a);
    d.widest = std::max(d.widest, a.bytes);
  }
  for (auto& [depot, d] : stores)
    std::stable_sort(d.sized.begin(), d.sized.end(),
                     [](const Access* a, const Access* b) { return a->at.offset < b->at.offset; });
  for (const Access& load : accesses) {
    model::poll();
    const Inst& l = fn.instructions[load.inst];
    if (l.effect.kind != EffectKind::Load || load.bytes <= 0 || escaped.count(load.at.depot) || l.boundStore >= 0)
      continue;
    const auto found = stores.find(load.at.depot);
    if (found == stores.end()) continue;
    const DepotStores& d = found->second;
    // The overlapping stores, counted up to two: one is the binding, two none.
    const Access* only = d.unsized.empty() ? nullptr : d.unsized.front();
    bool bindable = d.unsized.size() <= 1;
    auto first = std::lower_bound(d.sized.begin(), d.sized.end(), load.at.offset - d.widest + 1,
                                  [](const Access* a, int64_t offset) { return a->at.offset < offset; });
    for (auto it = first; bindable && it != d.sized.end() && (*it)->at.offset < load.at.offset + load.bytes; ++it) {
      if ((*it)->at.offset + (*it)->bytes <= load.at.offset) continue;
      if (only) bindable = false;
      only = *it;
    }
    if (!bindable || !only) continue;
    const Inst& s = fn.instructions[only->inst];
    if (only->at.offset != load.at.offset || only->bytes != load.bytes || (s.guard && s.guard->reg >= 0) || s.operands.size() < 2 ||
        !fn.dominatesInst(only->inst, load.inst))
      continue;
    fn.instructions[load.inst].boundStore = only->inst;
  }
}

}  // namespace fenceline::model::detail
