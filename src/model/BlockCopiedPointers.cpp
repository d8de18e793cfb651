// Pointers read from a block's own copy of its slice (model/BlockCopiedPointers.h,
// asked by ProtocolModel::dataSlices beside MemoryAnalysis::blockSlices; issue
// 34, MSCCL++'s shape FW).
//
// Two accesses through one pointer expression, `*p` on both sides with `p`
// read from memory at one address, are the same bytes for two threads that
// read the same pointer. The partner of a flag protocol is another block (or
// another rank's copy): where the pointer's slot is one the block reads as
// its own, the partner reads another slot, and the two pointers are the same
// only if those slots hold the same value, which the PTX does not show:
//  - the slot's address carries the block index in every dimension the
//    kernel reads (`plans[blockIdx.x].ch[t]`; `descs[first + blockIdx.y]` in
//    a kernel that also reads blockIdx.x is one slot for a row of blocks);
//  - or the slot lies in the CTA's shared window (each block has its own)
//    and some store that may write it stores a value loaded from an address
//    that carries the block index: the block's copy of its own slice of a
//    plan (`for (i = tid; ...) smem[i] = plans[blockIdx.x][i]`), whose
//    channel handles are then read from shared memory.
// Then the pair is undecided (`block-slices`): each block's handles may
// point to its own counters (an interpreter's plan gives each block its
// channels) or to one another's (a plan that shares a channel), and only the
// plan's contents, run-time data, say which. A slot filled from a value the
// blocks share (a parameter, a table entry at an index that is not the
// block's) holds one pointer in every block: the expressions' answer stands.
#include <fmt/format.h>

#include "model/BlockCopiedPointers.h"

#include <unordered_map>


#include "model/Memory.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

// The dimensions of the block index the value carries (bit 0: x): a %ctaid
// term, or a product of one with another value (a stride).
int dimensionsCarried(const FunctionModel& fn, const AbstractValue& v) {
  auto dimension = [](std::string_view name) {
    return name.size() == 8 && name.starts_with("%ctaid.") && name[7] >= 'x' && name[7] <= 'z' ? name[7] - 'x' : -1;
  };
  int carried = 0;
  if (!v.known) return carried;
  for (const AbstractValue::Term& t : v.terms) {
    if (t.coefficient == 0) continue;
    if (int d = dimension(t.name); d >= 0) carried |= 1 << d;
    const InstId def = fn.termDefinition(t.name);
    if (def < 0) continue;
    const Inst& in = fn.instructions[def];
    if ((in.opcode() != "mul" && in.opcode() != "mad") || in.operands.size() < 3) continue;
    for (int k = 1; k <= 2; ++k) {
      const AbstractValue f = fn.values->operandValue(def, k);
      if (f.known && !f.hasBase() && f.terms.size() == 1)
        if (int d = dimension(f.terms[0].name); d >= 0) carried |= 1 << d;
    }
  }
  return carried;
}

// The dimensions of the block index the function reads (bit 0: x).
int dimensionsRead(const FunctionModel& fn) {
  int dims = 0;
  for (const Inst& in : fn.instructions)
    for (const ptx::Operand& op : in.operands)
      if (op.kind == ptx::Operand::Kind::Special && op.text.size() == 8 && op.text.starts_with("%ctaid."))
        dims |= 1 << (op.text[7] - 'x');
  return dims;
}

// The value names one slot per block: it carries the block index in every
// dimension the function reads (a dimension it does not carry is shared by
// the blocks of a row: `descs[first + blockIdx.y]` for every blockIdx.x).
bool carriesBlockIndex(const FunctionModel& fn, const AbstractValue& v, int read) {
  const int carried = dimensionsCarried(fn, v);
  return carried != 0 && (read & ~carried) == 0;
}

// The registers a store writes to memory (one, or a vector's elements).
std::vector<ValueReg> storedRegisters(const Inst& store) {
  std::vector<ValueReg> out;
  if (store.operands.empty() || static_cast<int>(store.operands.size()) - 1 <= store.effect.address) return out;
  const ptx::Operand& value = store.operands.back();
  if (value.kind == ptx::Operand::Kind::Register) out.push_back(value.reg);
  if (value.kind == ptx::Operand::Kind::Vector)
    for (const ptx::Operand& e : value.elements)
      if (e.kind == ptx::Operand::Kind::Register) out.push_back(e.reg);
  return out;
}

std::string computeBlockCopiedSlot(const FunctionModel& fn, InstId load);

// Why the pointer read by `load` (a load of a pointer from memory) is one
// the block reads as its own ("" when it is not): see the file comment.
// Asked for every data pair and read through a loaded pointer, and the scan
// of the shared stores is over the whole function: kept per load, for the
// function this thread is checking (a function's checks run on one thread;
// the key is the function's syntax node and its instruction list).
const std::string& blockCopiedSlot(const FunctionModel& fn, InstId load) {
  struct Memo {
    const ptx::Function* function = nullptr;
    const Inst* instructions = nullptr;
    size_t size = 0;
    std::unordered_map<InstId, std::string> slots;
  };
  thread_local Memo memo;
  if (memo.function != fn.function || memo.instructions != fn.instructions.data() ||
      memo.size != fn.instructions.size()) {
    memo = Memo{fn.function, fn.instructions.data(), fn.instructions.size(), {}};
  }
  auto [known, fresh] = memo.slots.try_emplace(load);
  if (fresh) known->second = computeBlockCopiedSlot(fn, load);
  return known->second;
}

std::string computeBlockCopiedSlot(const FunctionModel& fn, InstId load) {
  const MemoryAnalysis& memory = *fn.memory;
  const int slotOperand = fn.instructions[load].effect.address;
  if (slotOperand < 0) return {};
  const AbstractValue& slot = fn.values->keptOperandValue(load, slotOperand);
  const int read = dimensionsRead(fn);
  if (carriesBlockIndex(fn, slot, read))
    return fmt::format("the pointer is read from a slot that carries the block index ({})", slot.toString());
  if (memory.space(load, slotOperand) != Space::SharedCta || memory.mappedToAnotherCta(load, slotOperand)) return {};
  if (!slot.known || slot.baseKind != AbstractValue::BaseKind::SharedSymbol) return {};
  // The stores that may fill the slot in this block's window, and the loads
  // their values come from.
  for (InstId s = 0; s < static_cast<InstId>(fn.instructions.size()); ++s) {
    const Inst& store = fn.instructions[s];
    if (store.effect.kind != EffectKind::Store || store.effect.address < 0 || !isSharedSpace(store.effect.space))
      continue;
    if (memory.space(s, store.effect.address) != Space::SharedCta) continue;
    if (memory.alias(s, store.effect.address, load, slotOperand) == AliasResult::No) continue;
    for (ValueReg reg : storedRegisters(store))
      for (InstId d : fn.values->reachingDefinitions(reg, s)) {
        const Inst& def = fn.instructions[d];
        if (def.effect.kind != EffectKind::Load || def.effect.address < 0) continue;
        const AbstractValue& from = fn.values->keptOperandValue(d, def.effect.address);
        if (carriesBlockIndex(fn, from, read))
          return fmt::format("the pointer is read from the block's shared memory ({}), which the block filled from "
                             "its own slice of global memory ({})",
                             slot.toString(), from.toString());
      }
  }
  return {};
}

}  // namespace

std::string blockCopiedPointer(const FunctionModel& fn, InstId access) {
  const int operand = access >= 0 ? fn.instructions[access].effect.address : -1;
  if (!fn.values || !fn.memory || operand < 0) return {};
  const AbstractValue& v = fn.values->keptOperandValue(access, operand);
  if (!v.known || v.baseKind != AbstractValue::BaseKind::Loaded) return {};
  const InstId load = fn.values->pointerLoad(v.base.str());
  return load < 0 ? std::string() : blockCopiedSlot(fn, load);
}

std::string blockCopiedPointers(const FunctionModel& fn, InstId a, int oa, InstId b, int ob) {
  if (!fn.values || !fn.memory || oa < 0 || ob < 0) return {};
  const AbstractValue &va = fn.values->keptOperandValue(a, oa), &vb = fn.values->keptOperandValue(b, ob);
  if (!va.known || !vb.known || va.baseKind != AbstractValue::BaseKind::Loaded || va.baseKind != vb.baseKind ||
      va.base != vb.base)
    return {};
  const InstId load = fn.values->pointerLoad(va.base.str());
  if (load < 0) return {};
  const std::string why = blockCopiedSlot(fn, load);
  if (why.empty()) return {};
  return fmt::format("{}: a partner in another block reads its own slot, and whether it holds the same pointer is "
                     "the launch's data, not in the PTX",
                     why);
}

}  // namespace fenceline::model
