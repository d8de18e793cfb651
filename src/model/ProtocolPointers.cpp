// Pointers read from memory, as the partner model (Protocol.h) sees them:
// which load read the pointer an access goes through, when two such pointers
// come from two distinct fields of one record (distinct objects), and when
// one is a peer pointer (evidence of an off-GPU partner for the scope).
// Issue 11 shape 5: `s->inbound` and `s->expected` are two objects; a table
// indexed by rank holds peer pointers, a struct field or a table indexed by
// the block does not.
#include <algorithm>
#include <iterator>
#include <string_view>

#include "model/Protocol.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

int addressOf(const FunctionModel& fn, InstId inst) { return protocolAddress(fn, inst); }

}  // namespace

// Asked for the same accesses by every alias question: walked once each.
InstId ProtocolModel::pointerLoad(InstId access) const {
  InstId& cached = pointerLoad_[access];
  if (cached == kNotWalked) cached = walkToPointerLoad(access);
  return cached;
}

InstId ProtocolModel::walkToPointerLoad(InstId access) const {
  int operand = addressOf(fn_, access);
  if (operand < 0) return -1;
  const AbstractValue& value = fn_.values->keptOperandValue(access, operand);
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
      const AbstractValue& v = fn_.values->keptOperandValue(def, k);
      if (v.known && v.baseKind == AbstractValue::BaseKind::Loaded && v.base == value.base) carrier = k;
    }
    if (carrier < 0) return -1;
    at = def;
    operand = carrier;
  }
  return -1;
}

bool ProtocolModel::pointersFromDistinctFields(InstId a, InstId b) const {
  InstId la = pointerLoad(a), lb = pointerLoad(b);
  if (la < 0 || lb < 0 || memory_.sameWord(la, lb)) return false;
  const int oa = addressOf(fn_, la), ob = addressOf(fn_, lb);
  const AbstractValue &va = fn_.values->keptOperandValue(la, oa), &vb = fn_.values->keptOperandValue(lb, ob);
  if (!va.known || !vb.known || !va.hasBase() || va.baseKind != vb.baseKind || va.base != vb.base) return false;
  // Two constant fields (`s->inbound`, `s->expected`): model/Memory compares the bytes.
  if (va.terms.empty() && vb.terms.empty()) return memory_.alias(la, oa, lb, ob) == Alias::No;
  // Read at an index: different fields only when the offsets differ modulo the
  // record stride. (Two bounded index ranges that do not meet are not enough:
  // a table of peers indexed relative to the rank, `ptrs[(rank + k) % n]`,
  // holds one peer's pointer at different slots on different ranks.)
  const int64_t sizeA = memory_.accessSize(la, oa), sizeB = memory_.accessSize(lb, ob);
  return sizeA > 0 && sizeB > 0 && apartByStride(va, sizeA, vb, sizeB);
}

// Two entries of one pointer table (`flags[peer]` and `flags[rank]`, read at
// one base and one constant offset): on some GPU they may be the same
// buffer, or two buffers; either way two accesses through them touch one
// word only at equal offsets from the entries (MemoryAnalysis::offsetsApart).
bool ProtocolModel::entriesOfOneTable(InstId a, InstId b) const {
  const InstId la = pointerLoad(a), lb = pointerLoad(b);
  if (la < 0 || lb < 0) return false;
  const AbstractValue &va = fn_.values->keptOperandValue(la, addressOf(fn_, la)),
                      &vb = fn_.values->keptOperandValue(lb, addressOf(fn_, lb));
  return va.known && vb.known && va.hasBase() && va.baseKind == vb.baseKind && va.base == vb.base &&
         va.constant == vb.constant && !va.terms.empty() && !vb.terms.empty() &&
         memory_.accessSize(la, addressOf(fn_, la)) == memory_.accessSize(lb, addressOf(fn_, lb));
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

ProtocolModel::Peer ProtocolModel::peerPointer(InstId access) const {
  if (access < 0 || static_cast<size_t>(access) >= fn_.instructions.size()) return computePeerPointer(access);
  if (peer_.empty()) peer_.assign(fn_.instructions.size(), -1);
  int8_t& known = peer_[access];
  if (known < 0) known = static_cast<int8_t>(computePeerPointer(access));
  return static_cast<Peer>(known);
}

ProtocolModel::Peer ProtocolModel::computePeerPointer(InstId access) const {
  const int operand = addressOf(fn_, access);
  if (operand < 0 || !memory_.isLoadedPointer(access, operand)) return Peer::No;
  const InstId load = pointerLoad(access);
  if (load >= 0) return peerPointerLoad(load, 0);
  // The walk lost the pointer (a register assigned on several paths): every
  // definition of the address register that reaches the access, each walked
  // back to its own load.
  const ptx::Operand& op = fn_.instructions[access].operands[operand];
  const ValueReg reg = op.kind == ptx::Operand::Kind::Address && op.base.kind == ptx::Operand::Kind::Register
                           ? op.base.reg
                           : op.kind == ptx::Operand::Kind::Register ? op.reg : -1;
  if (reg < 0) return Peer::Unknown;
  const std::vector<InstId> defs = fn_.values->reachingDefinitions(reg, access);
  if (defs.empty() || defs.size() > 8) return Peer::Unknown;
  // Each definition's operands that carry a pointer read from memory (one
  // for an add, both of a selp), each walked back to its load.
  Peer result = Peer::No;
  for (InstId d : defs) {
    std::vector<InstId> loads;
    const Inst& def = fn_.instructions[d];
    if (def.effect.kind == EffectKind::Load) loads.push_back(d);
    else
      for (int k = 1; k < static_cast<int>(def.operands.size()); ++k) {
        const AbstractValue& v = fn_.values->keptOperandValue(d, k);
        if (!v.known || v.baseKind != AbstractValue::BaseKind::Loaded || def.operands[k].kind != ptx::Operand::Kind::Register)
          continue;
        InstId at = d;
        ValueReg r = def.operands[k].reg;
        InstId found = -1;
        for (int step = 0; step < 64 && found < 0; ++step) {
          const InstId dd = fn_.values->definition(r, at);
          if (dd < 0) break;
          if (fn_.instructions[dd].effect.kind == EffectKind::Load) {
            found = dd;
            break;
          }
          ValueReg next = -1;
          const auto& ops = fn_.instructions[dd].operands;
          for (int j = 1; j < static_cast<int>(ops.size()) && next < 0; ++j) {
            const AbstractValue& w = fn_.values->keptOperandValue(dd, j);
            if (w.known && w.baseKind == AbstractValue::BaseKind::Loaded && w.base == v.base &&
                ops[j].kind == ptx::Operand::Kind::Register)
              next = ops[j].reg;
          }
          if (next < 0) break;
          at = dd;
          r = next;
        }
        if (found < 0) return Peer::Unknown;
        loads.push_back(found);
      }
    if (loads.empty()) return Peer::Unknown;
    for (InstId load : loads) {
      const Peer p = peerPointerLoad(load, 0);
      if (p == Peer::Yes) return Peer::Yes;
      if (p == Peer::Unknown) result = Peer::Unknown;
    }
  }
  return result;
}

ProtocolModel::Peer ProtocolModel::peerPointerLoad(InstId load, int depth) const {
  constexpr int kMaxDepth = 8;
  const int operand = addressOf(fn_, load);
  if (depth > kMaxDepth || operand < 0) return Peer::Unknown;
  const AbstractValue& slot = fn_.values->keptOperandValue(load, operand);
  if (!slot.known) return Peer::Unknown;
  // A table read at an index other than the block's position (a rank, a peer, a loop over peers).
  if (std::any_of(slot.terms.begin(), slot.terms.end(), [](const auto& t) { return !isBlockPosition(t); }))
    return Peer::Yes;
  if (slot.baseKind != AbstractValue::BaseKind::Loaded) return Peer::No;
  // A field of a struct reached through a pointer read from memory: a peer's
  // struct when that pointer is a peer pointer.
  const InstId outer = pointerLoad(load);
  return outer < 0 ? Peer::Unknown : peerPointerLoad(outer, depth + 1);
}

// Not traced (Unknown) counts as a peer here, as before issue 34: the
// scope's evidence tells the two apart (requiredScopeEvidence).
bool ProtocolModel::isPeerPointerLoad(InstId load, int depth) const { return peerPointerLoad(load, depth) != Peer::No; }

bool ProtocolModel::readsThroughPeerPointer(InstId access) const {
  if (goesThroughPeerPointer(access)) return true;
  const int operand = addressOf(fn_, access);
  if (operand < 0) return false;
  const MemoryObject object = memory_.objectOf(access, operand);
  if (object.kind != MemoryObject::Kind::Loaded) return false;
  const InstId load = fn_.values->pointerLoad(object.name);
  return load >= 0 && isPeerPointerLoad(load, 0);
}

bool ProtocolModel::goesThroughPeerPointer(InstId access) const { return peerPointer(access) != Peer::No; }

}  // namespace fenceline::model
