// Signals a wait never leaves on (model/ExitValueSignals.h; issue 34,
// MSCCL++'s shape FW).
//
// A store of a constant into the polled word satisfies a waiter only if the
// spin's exit holds for that constant (model/SpinLoops.h exitOnValue). A
// proxy FIFO shows why the value must be read at the polled bytes: the
// device stores a trigger `{1, work}` into a 16-byte slot with one
// `st.release.sys.v2.u64`, and before reusing the slot waits with
// `ld.relaxed.sys.b64` of the slot's first word until it is 0, the value the
// host proxy stores when it has taken the trigger. The word the wait reads
// gets the constant 1 from every store of the kernel: no block of the grid
// releases that wait, its partner is outside the kernel (the host).
//
// The value at the polled bytes is the stored constant of a scalar store (or
// exchange) of the poll's size, or the element of a vector store that the
// poll's bytes fall in: both addresses on one base, the store's elements of
// the poll's size, every other element apart from the poll's bytes
// whatever the index terms are (apartByStride: a ring of 16-byte slots whose
// first word is polled never meets a slot's second word).
#include "model/ExitValueSignals.h"


#include "model/Memory.h"
#include "model/Protocol.h"
#include "model/SpinLoops.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

// The constant a register holds at `at`: every reaching definition a `mov`
// of one integer.
std::optional<int64_t> registerConstant(const FunctionModel& fn, ValueReg reg, InstId at) {
  std::optional<int64_t> value;
  const std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
  if (defs.empty()) return std::nullopt;
  for (InstId d : defs) {
    const std::optional<int64_t> c = fn.values->constantOf(d, 1);
    const Inst& def = fn.instructions[d];
    if (def.opcode() != "mov" || def.operands.size() < 2 || !c || (value && *value != *c)) return std::nullopt;
    value = c;
  }
  return value;
}

}  // namespace

std::optional<int64_t> storedConstantAt(const ProtocolModel& protocol, InstId write, InstId poll) {
  const FunctionModel& fn_ = protocol.function();
  const Inst& store = fn_.instructions[write];
  const int oa = store.effect.address, ob = fn_.instructions[poll].effect.address;
  if (oa < 0 || ob < 0 || !fn_.memory || !fn_.values) return std::nullopt;
  const int64_t pollSize = fn_.memory->accessSize(poll, ob), storeSize = fn_.memory->accessSize(write, oa);
  if (pollSize <= 0 || storeSize <= 0) return std::nullopt;
  if (store.operands.empty() || store.operands.back().kind != ptx::Operand::Kind::Vector)
    return storeSize == pollSize ? protocol.storedConstant(write) : std::nullopt;
  if (store.effect.kind != EffectKind::Store) return std::nullopt;
  const ptx::Operand& vector = store.operands.back();
  const int64_t n = static_cast<int64_t>(vector.elements.size());
  if (n == 0 || storeSize % n != 0 || storeSize / n != pollSize) return std::nullopt;
  const AbstractValue &at = fn_.values->keptOperandValue(write, oa), &polled = fn_.values->keptOperandValue(poll, ob);
  if (!at.known || !polled.known || !at.hasBase() || at.baseKind != polled.baseKind || at.base != polled.base)
    return std::nullopt;
  // The one element the poll may read.
  int64_t element = -1;
  for (int64_t k = 0; k < n; ++k) {
    AbstractValue part = at;
    part.constant += k * pollSize;
    if (apartByStride(part, pollSize, polled, pollSize)) continue;
    if (element >= 0) return std::nullopt;
    element = k;
  }
  if (element < 0 || vector.elements[element].kind != ptx::Operand::Kind::Register) {
    if (element >= 0 && vector.elements[element].kind == ptx::Operand::Kind::Integer)
      return vector.elements[element].intValue;
    return std::nullopt;
  }
  return registerConstant(fn_, vector.elements[element].reg, write);
}

bool leavesNeverOn(const ProtocolModel& protocol, InstId signal, InstId poll) {
  const FunctionModel& fn = protocol.function();
  const SpinLoop* spin = protocol.spinContaining(poll);
  if (!spin || spin->contains(fn, signal)) return false;
  const std::optional<int64_t> value = storedConstantAt(protocol, signal, poll);
  return value && exitOnValue(fn, *spin, poll, *value) == ExitOn::No;
}

}  // namespace fenceline::model
