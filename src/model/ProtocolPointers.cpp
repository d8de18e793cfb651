// Pointers read from memory, as the partner model (Protocol.h) sees them:
// which load read the pointer an access goes through, when two such pointers
// come from two distinct fields of one record (distinct objects), and when
// one is a peer pointer (evidence of an off-GPU partner for the scope).
// Issue 11 shape 5: `s->inbound` and `s->expected` are two objects; a table
// indexed by rank holds peer pointers, a struct field or a table indexed by
// the block does not.
#include <algorithm>
#include <iterator>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "model/Protocol.h"
#include "model/SpinLoops.h"
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
    const ValueReg reg = op.valueRegister();
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
  if (!va.known || !vb.known || va.constant != vb.constant || va.terms.empty() || vb.terms.empty() ||
      memory_.accessSize(la, addressOf(fn_, la)) != memory_.accessSize(lb, addressOf(fn_, lb)))
    return false;
  if (va.hasBase() || vb.hasBase()) return va.baseKind == vb.baseKind && va.base == vb.base;
  return readsOfOneSlotExpression(a, b, va, vb);
}

bool ProtocolModel::throughOneSlotExpression(InstId a, InstId b) const {
  const InstId la = pointerLoad(a), lb = pointerLoad(b);
  if (la < 0 || lb < 0) return false;
  const AbstractValue &va = fn_.values->keptOperandValue(la, addressOf(fn_, la)),
                      &vb = fn_.values->keptOperandValue(lb, addressOf(fn_, lb));
  return va.known && vb.known && !va.hasBase() && !vb.hasBase() && entriesOfOneTable(a, b);
}

// A table whose own base pointer is read at an index the value analysis
// cannot name (a by-value parameter array indexed by the block's group,
// `args.groups[k]`, then `groups->descs[ctx]`): each read of the table's
// base is a term of its own (`def:<load>`), so two reads of one slot have no
// base in common. model/Memory names a pointer read from memory by the
// address expression of its load (`loaded:load([...])`), the base's reads
// included: two accesses whose pointers carry one such name were read at
// one expression of one table's slot, with an index term (a variable slot,
// not one fixed word the kernel may rewrite between the reads). On another
// thread or rank the index may pick another entry: entries of one table, as
// above (issue 34, NCCL's GIN descriptors: `descs + 296 * ctx` reached
// through two reads of one group record in two branches).
bool ProtocolModel::readsOfOneSlotExpression(InstId a, InstId b, const AbstractValue& va,
                                             const AbstractValue& vb) const {
  const int oa = addressOf(fn_, a), ob = addressOf(fn_, b);
  if (oa < 0 || ob < 0) return false;
  const AbstractValue &pa = fn_.values->keptOperandValue(a, oa), &pb = fn_.values->keptOperandValue(b, ob);
  if (!pa.known || !pb.known || pa.baseKind != AbstractValue::BaseKind::Loaded || pa.baseKind != pb.baseKind ||
      pa.base != pb.base || !pa.alternatives.empty() || !pb.alternatives.empty())
    return false;
  auto indexed = [](const AbstractValue& v) {
    return std::any_of(v.terms.begin(), v.terms.end(),
                       [](const AbstractValue::Term& t) { return t.coefficient != 0 && !t.name.starts_with("def:"); });
  };
  return indexed(va) && indexed(vb);
}

bool ProtocolModel::throughOneFixedPointer(InstId a, InstId b) const {
  const InstId la = pointerLoad(a), lb = pointerLoad(b);
  if (la < 0 || lb < 0) return false;
  auto fixed = [&](InstId load) {
    const Inst& in = fn_.instructions[load];
    return in.effect.space == Space::Const || in.hasModifier("nc");
  };
  const int oa = addressOf(fn_, la), ob = addressOf(fn_, lb);
  const AbstractValue &va = fn_.values->keptOperandValue(la, oa), &vb = fn_.values->keptOperandValue(lb, ob);
  if (!fixed(la) || !fixed(lb)) return false;
  return va.known && vb.known && va.hasBase() && va.alternatives.empty() && va.baseKind == vb.baseKind &&
         va.base == vb.base && va.constant == vb.constant && va.terms.empty() && vb.terms.empty() &&
         memory_.accessSize(la, oa) == memory_.accessSize(lb, ob);
}

// One pointer read from memory, and offsets from it that never meet: the
// bytes meet only through two different values read from its slot.
void ProtocolModel::undecideRereadPointer(AliasEvidence& e, InstId a, int oa, InstId b, int ob,
                                          bool withDetail) const {
  if (!e.decided || (e.how != "same-buffer" && e.how != "same-object")) return;
  const MemoryObject& object = memory_.objectOf(a, oa);
  if (object.kind != MemoryObject::Kind::Loaded || !object.alternatives.empty() ||
      !(object == memory_.objectOf(b, ob)) || memory_.alias(a, oa, b, ob) != Alias::No)
    return;
  e.decided = false;
  e.how = "reread-pointer";
  if (withDetail)
    e.detail = fmt::format("both go through {}, a pointer read from memory, at offsets that never meet under one "
                           "value of it ({} and {}): they meet only if two reads of the pointer give two pointers, "
                           "which the PTX does not show",
                           object.toString(), fn_.values->keptOperandValue(a, oa).toString(),
                           fn_.values->keptOperandValue(b, ob).toString());
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

// What an index is computed from (issue 34, NCCL's GIN descriptors): only
// constants; launch-uniform values (kernel parameters, the grid's sizes),
// which may be the rank; the block's position, grouped by constants or
// launch-uniform values (`blockIdx.x % n`, `/ n`, `>> s`, `& mask`, a
// choice between such); the block's position shifted by launch-uniform
// values and scaled by them, with no wrap (Window: `first + blockIdx.y`,
// `(first + blockIdx.y) * stride`); or anything else (a value read from
// memory, the thread index, a loop counter, a rank added to the block index
// and wrapped, `(rank + blockIdx.x) % world`).
//
// Why a shift without a wrap is the block's own entry (nvCOMP's per-chunk
// descriptors, `descs[first + blockIdx.y]`): `table[u + b]` is `(table +
// u)[b]`, a table indexed by the block at a launch-uniform base, the form of
// `boxes[blockIdx.x]`: the launch's blocks take one entry each of a window
// of consecutive entries. A rank-relative peer index must stay inside the
// table on every rank, so it wraps (a modulo, a mask, a shift, a division, a
// choice between `i` and `i - n`, a min): each of those folds a Window into
// Other, and so does every operation that is not a shift or a scaling (or,
// xor: `rank ^ blockIdx.x` pairs ranks). `peers[tid >> 5]` and
// `peers[(block + rank) % n]` stay Other, as before.
enum class IndexKind : int8_t { Constant, Uniform, Block, Window, Other };

IndexKind specialKind(std::string_view name) {
  static constexpr std::string_view kSizes[] = {"%nctaid.", "%nclusterid.", "%cluster_nctaid.", "%cluster_nctarank",
                                                "%ntid.", "%nsmid"};
  for (std::string_view s : kSizes)
    if (name.starts_with(s)) return IndexKind::Uniform;
  for (std::string_view s : kBlockPositionRegisters)
    if (name.starts_with(s)) return IndexKind::Block;
  return IndexKind::Other;
}

// Two alternatives of one value (a merge of paths, a selp): the block's
// position on one path and constants on the others is still the block's
// position; a parameter on one path and the block on another is not, nor is
// a choice with a shifted position on either side (`i < n ? i : i - n`, a
// wrap).
IndexKind join(IndexKind a, IndexKind b) {
  if (a == IndexKind::Window || b == IndexKind::Window) return IndexKind::Other;
  if (a == b) return a;
  if (a == IndexKind::Other || b == IndexKind::Other) return IndexKind::Other;
  if (a == IndexKind::Constant) return b;
  if (b == IndexKind::Constant) return a;
  return IndexKind::Other;  // Block with Uniform
}

// a / b, a % b, a >> b, a & b, min, max (and a * b, a << b outside a
// Window): the block's position grouped by launch-uniform values stays the
// block's position (of a group). A Window folded is a wrap: Other.
IndexKind grouping(IndexKind a, IndexKind b) {
  if (a == IndexKind::Other || b == IndexKind::Other || a == IndexKind::Window || b == IndexKind::Window)
    return IndexKind::Other;
  if (a == IndexKind::Block || b == IndexKind::Block) return IndexKind::Block;
  return a == IndexKind::Constant && b == IndexKind::Constant ? IndexKind::Constant : IndexKind::Uniform;
}

// a * b, a << b (b the amount): a Window scaled by a constant or a
// launch-uniform value (a record's size) stays a Window.
IndexKind scaling(IndexKind a, IndexKind b, bool shift) {
  const bool uniform = b == IndexKind::Constant || b == IndexKind::Uniform;
  if (a == IndexKind::Window && uniform) return IndexKind::Window;
  if (!shift && b == IndexKind::Window && (a == IndexKind::Constant || a == IndexKind::Uniform)) return IndexKind::Window;
  return grouping(a, b);
}

// a + b, a - b: a launch-uniform value added to the block's position shifts
// it (Window); a wrap after it decides (grouping).
IndexKind additive(IndexKind a, IndexKind b) {
  if (a == IndexKind::Other || b == IndexKind::Other) return IndexKind::Other;
  const bool position = a == IndexKind::Block || a == IndexKind::Window || b == IndexKind::Block || b == IndexKind::Window;
  if (position) {
    if (a == IndexKind::Window || b == IndexKind::Window || a == IndexKind::Uniform || b == IndexKind::Uniform)
      return IndexKind::Window;
    return IndexKind::Block;
  }
  return a == IndexKind::Constant && b == IndexKind::Constant ? IndexKind::Constant : IndexKind::Uniform;
}

// a | b, a ^ b: as an addition of constants or the block's parts, but a
// parameter combined with the block's position (`rank ^ blockIdx.x`, the
// pairs of a butterfly) varies from rank to rank with no window: Other.
IndexKind bitwise(IndexKind a, IndexKind b) {
  if (a == IndexKind::Window || b == IndexKind::Window) return IndexKind::Other;
  const IndexKind sum = additive(a, b);
  return sum == IndexKind::Window ? IndexKind::Other : sum;
}

class IndexClassifier {
 public:
  IndexClassifier(const FunctionModel& fn, std::unordered_map<InstId, int8_t>& memo) : fn_(fn), memo_(memo) {}

  IndexKind operand(InstId at, int k, int depth) const {
    const ptx::Operand& op = fn_.instructions[at].operands[k];
    switch (op.kind) {
      case ptx::Operand::Kind::Integer: return IndexKind::Constant;
      case ptx::Operand::Kind::Special: return specialKind(op.text);
      case ptx::Operand::Kind::Register: return reg(op.reg, at, depth);
      case ptx::Operand::Kind::Vector: {  // mov.b64 %rd, {%r1, %r2}
        std::optional<IndexKind> kind;
        for (const ptx::Operand& e : op.elements) {
          IndexKind part = IndexKind::Constant;
          if (e.kind == ptx::Operand::Kind::Register) part = reg(e.reg, at, depth);
          else if (e.kind != ptx::Operand::Kind::Integer) return IndexKind::Other;
          kind = kind ? join(*kind, part) : part;
        }
        return kind.value_or(IndexKind::Other);
      }
      default: return IndexKind::Other;
    }
  }

 private:
  static constexpr int kMaxDepth = 48;
  static constexpr int8_t kInProgress = -1;

  IndexKind reg(ValueReg r, InstId at, int depth) const {
    if (depth > kMaxDepth) return IndexKind::Other;
    const std::vector<InstId> defs = fn_.values->reachingDefinitions(r, at);
    if (defs.empty() || defs.size() > 8) return IndexKind::Other;
    std::optional<IndexKind> kind;
    for (InstId d : defs) {
      const IndexKind k = definition(d, depth + 1);
      kind = kind ? join(*kind, k) : k;
      if (kind == IndexKind::Other) break;
    }
    return kind.value_or(IndexKind::Other);
  }

  IndexKind definition(InstId d, int depth) const {
    auto [it, fresh] = memo_.try_emplace(d, kInProgress);
    if (!fresh) return it->second == kInProgress ? IndexKind::Other : static_cast<IndexKind>(it->second);  // a cycle: a loop counter
    const IndexKind kind = compute(d, depth);
    memo_[d] = static_cast<int8_t>(kind);
    return kind;
  }

  IndexKind compute(InstId d, int depth) const {
    const Inst& inst = fn_.instructions[d];
    if (inst.guard) return IndexKind::Other;  // a predicated definition: merged with what was there
    const std::string_view op = inst.opcode();
    const int n = static_cast<int>(inst.operands.size());
    if (inst.effect.kind == EffectKind::Load)
      return inst.effect.space == Space::Param ? IndexKind::Uniform : IndexKind::Other;
    if (inst.effect.kind != EffectKind::None || n < 2) return IndexKind::Other;
    auto at = [&](int k) { return operand(d, k, depth); };
    if (op == "mov" || op == "cvt" || op == "neg" || op == "not") return at(1);
    if (op == "selp" && n >= 4 && decidedByWindow(d, 3, depth)) return IndexKind::Other;  // `i - (i < n ? 0 : n)`
    if (op == "selp" && n >= 3) return join(at(1), at(2));
    if ((op == "mul" || op == "mul24" || op == "shl") && !inst.hasModifier("hi") && n >= 3)  // mul.hi: a division by a constant
      return scaling(at(1), at(2), op == "shl");
    if ((op == "mul" || op == "mul24" || op == "div" || op == "rem" || op == "shr" || op == "and" || op == "min" || op == "max") && n >= 3)
      return grouping(at(1), at(2));
    if (op == "bfe" && n >= 4) return grouping(at(1), grouping(at(2), at(3)));
    if ((op == "add" || op == "sub") && n >= 3) return additive(at(1), at(2));
    if ((op == "or" || op == "xor") && n >= 3) return bitwise(at(1), at(2));
    if ((op == "mad" || op == "mad24") && n >= 4) return additive(scaling(at(1), at(2), false), at(3));
    return IndexKind::Other;
  }

  // A choice whose predicate compares a shifted position (`selp 0, n, i < n`
  // subtracted from i: the wrap nvcc makes of `if (i >= n) i -= n`): the
  // offset it picks depends on the index itself.
  bool decidedByWindow(InstId at, int k, int depth) const {
    const ptx::Operand& op = fn_.instructions[at].operands[k];
    if (op.kind != ptx::Operand::Kind::Register || depth > kMaxDepth) return false;
    for (InstId d : fn_.values->reachingDefinitions(op.reg, at)) {
      const Inst& def = fn_.instructions[d];
      const std::string_view name = def.opcode();
      const int n = static_cast<int>(def.operands.size());
      if (name == "setp") {
        for (int j = 1; j < n; ++j)
          if (operand(d, j, depth + 1) == IndexKind::Window)
            return true;
      } else if (name == "and" || name == "or" || name == "xor" || name == "not" || name == "mov") {
        for (int j = 1; j < n; ++j)
          if (decidedByWindow(d, j, depth + 1)) return true;
      }
    }
    return false;
  }

  const FunctionModel& fn_;
  std::unordered_map<InstId, int8_t>& memo_;
};

// The stride of a slot's index terms other than the block's position (the
// greatest common divisor of their coefficients; 0 without such a term).
int64_t indexStride(const AbstractValue& slot) {
  int64_t stride = 0;
  for (const auto& t : slot.terms) {
    if (isBlockPosition(t)) continue;
    int64_t c = t.coefficient < 0 ? -t.coefficient : t.coefficient;
    for (int64_t a = stride; a != 0;) {  // stride = gcd(stride, c)
      const int64_t r = c % a;
      c = a;
      a = r;
    }
    stride = c;
  }
  return stride;
}

// A pointer read as one field of a record in a table (issue 34, NVSHMEM's
// queue-pair descriptors, 184 and 424 bytes a record): every index term that
// is not the block's position steps by a multiple of a stride larger than
// the pointer read (the greatest common divisor of their coefficients). An
// array of pointers (`peers[next]`, `ptrs[rank]`: the stride is the
// pointer's size), or an index the value analysis could not scale (a
// coefficient of 1), is not.
bool isRecordField(const AbstractValue& slot, int64_t pointerSize) {
  return pointerSize > 0 && indexStride(slot) > pointerSize;
}

// The slot's offset within its record: the constant modulo the stride of
// the index, when there is one.
int64_t fieldOffset(int64_t constant, int64_t stride) {
  if (stride <= 0) return constant;
  const int64_t r = constant % stride;
  return r < 0 ? r + stride : r;
}

}  // namespace

bool ProtocolModel::pointersFromMirroredFields(InstId peerAccess, InstId ownAccess) const {
  const InstId peerLoad = pointerLoad(peerAccess);
  if (peerLoad < 0) return true;
  const int pk = addressOf(fn_, peerLoad);
  const AbstractValue& peerSlot = fn_.values->keptOperandValue(peerLoad, pk);
  const int64_t size = memory_.accessSize(peerLoad, pk);
  if (!peerSlot.known || size <= 0) return true;
  const int64_t peerStride = indexStride(peerSlot);
  // A table's own entry (`peers[p]`, a pointer read at a stride of its size)
  // or a slot of a named struct: the pointer itself is the peer's.
  const bool field = isRecordField(peerSlot, size) ||
                     (peerStride == 0 && peerSlot.baseKind == AbstractValue::BaseKind::Loaded);
  if (!field) return true;
  const InstId ownLoad = pointerLoad(ownAccess);
  if (ownLoad < 0) return false;  // the own pointer is not read from memory (a parameter): not that field
  const int ok = addressOf(fn_, ownLoad);
  const AbstractValue& ownSlot = fn_.values->keptOperandValue(ownLoad, ok);
  if (!ownSlot.known || memory_.accessSize(ownLoad, ok) != size) return false;
  const int64_t ownStride = indexStride(ownSlot);
  if (peerStride > 0 && ownStride > 0 && peerStride != ownStride) return false;
  const int64_t stride = std::max(peerStride, ownStride);
  return fieldOffset(peerSlot.constant, stride) == fieldOffset(ownSlot.constant, stride);
}

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
  const ValueReg reg = op.valueRegister();
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
      if ((p == Peer::BlockGroup || p == Peer::Record) && result == Peer::No) result = p;
    }
  }
  return result;
}

ProtocolModel::Peer ProtocolModel::peerPointerLoad(InstId load, int depth) const {
  constexpr int kMaxDepth = 8;
  const int operand = addressOf(fn_, load);
  if (depth > kMaxDepth || operand < 0) return Peer::Unknown;
  const AbstractValue& slot = fn_.values->keptOperandValue(load, operand);
  // Not traced: unless every definition of the address is a record field
  // (mergedRecordSlot), as when the value analysis loses a pointer merged
  // from several paths.
  if (!slot.known) return mergedRecordSlot(load, operand, depth) == Peer::Record ? Peer::Record : Peer::Unknown;
  // A table read at an index other than the block's position (a rank, a peer,
  // a loop over peers), unless the index is computed from the block's
  // position alone (an entry per group of blocks, or a peer per group: not
  // decided either way; the table's own pointer may still be a peer's).
  Peer own = Peer::No;
  InstId outer = kNotWalked;
  if (std::any_of(slot.terms.begin(), slot.terms.end(), [](const auto& t) { return !isBlockPosition(t); })) {
    const BlockGroupIndex& group = blockGroupIndex(load);
    if (group.grouped) {
      own = Peer::BlockGroup;
      if (group.table < 0) return own;  // a named table: a kernel parameter or a global symbol
      outer = group.table;
    } else if (group.window) {
      // `(table + first)[blockIdx.y]`: the block's own entry, as `boxes[blockIdx.x]`
      // (see IndexKind); the table's own pointer may still be a peer's.
      if (group.table < 0) return own;
      outer = group.table;
    } else if (!isRecordField(slot, memory_.accessSize(load, operand)) || !writesIntoTable(load)) {
      return mergedRecordSlot(load, operand, depth);
    } else {
      // A field of a per-destination record: the record table's own pointer
      // may still be a peer's (walked below, as a struct field's).
      own = Peer::Record;
      if (slot.baseKind != AbstractValue::BaseKind::Loaded) return own;
    }
  } else if (slot.baseKind != AbstractValue::BaseKind::Loaded) {
    return own;
  }
  // A field of a struct reached through a pointer read from memory: a peer's
  // struct when that pointer is a peer pointer.
  if (outer == kNotWalked) outer = pointerLoad(load);
  if (outer < 0) return own == Peer::Record ? own : Peer::Unknown;
  const Peer up = peerPointerLoad(outer, depth + 1);
  if (own == Peer::Record && up != Peer::Yes) return own;  // see recordDefinitions
  return up == Peer::No ? own : up;
}

// A pointer one lane broadcast to its warp, 32 bits at a time
// (`__shfl_sync(mask, ptr, lane)` on a pointer: `mov.b64 {lo, hi}, p`, a
// shfl.sync.idx of each half, `mov.b64 q, {lo', hi'}`): the register the
// source lane's pointer was in, and where it was unpacked. A lane's pointer is
// computed as this lane's is, so it is classified alike.
bool ProtocolModel::broadcastPointer(InstId def, ValueReg& source, InstId& unpack) const {
  const Inst& pack = fn_.instructions[def];
  if (pack.opcode() != "mov" || pack.operands.size() != 2 || pack.operands[1].kind != ptx::Operand::Kind::Vector ||
      pack.operands[1].elements.size() != 2)
    return false;
  ValueReg halves[2];
  for (int k = 0; k < 2; ++k) {
    const ptx::Operand& e = pack.operands[1].elements[k];
    if (e.kind != ptx::Operand::Kind::Register) return false;
    const InstId shfl = fn_.values->definition(e.reg, def);
    if (shfl < 0 || fn_.instructions[shfl].opcode() != "shfl" || !fn_.instructions[shfl].hasModifier("idx") ||
        fn_.instructions[shfl].operands.size() < 2 || fn_.instructions[shfl].operands[1].kind != ptx::Operand::Kind::Register)
      return false;
    halves[k] = fn_.instructions[shfl].operands[1].reg;
    const InstId split = fn_.values->definition(halves[k], shfl);
    if (split < 0 || (k == 1 && split != unpack)) return false;
    unpack = split;
  }
  const Inst& split = fn_.instructions[unpack];
  if (split.opcode() != "mov" || split.operands.size() != 2 || split.operands[0].kind != ptx::Operand::Kind::Vector ||
      split.operands[0].elements.size() != 2 || split.operands[0].elements[0].kind != ptx::Operand::Kind::Register ||
      split.operands[0].elements[1].kind != ptx::Operand::Kind::Register ||
      split.operands[0].elements[0].reg != halves[0] || split.operands[0].elements[1].reg != halves[1] ||
      split.operands[1].kind != ptx::Operand::Kind::Register)
    return false;
  source = split.operands[1].reg;
  return true;
}

// A slot whose address register is assigned on several paths (NVSHMEM picks
// a queue pair from one of two record tables, `near + 184 * i` or
// `far + 184 * j`, and broadcasts lane 0's choice to the warp): Record when
// the value each definition gives is a record field at an index that is not
// the block's position, and no record table's own pointer is a peer's; Yes
// otherwise (a table of pointers on some path, or a definition not read).
ProtocolModel::Peer ProtocolModel::mergedRecordSlot(InstId load, int operand, int depth) const {
  const ValueReg reg = fn_.instructions[load].operands[operand].valueRegister();
  if (reg < 0) return Peer::Yes;
  int budget = 16;  // definitions looked at, broadcasts followed included
  const Peer p = recordDefinitions(reg, load, memory_.accessSize(load, operand), depth, budget);
  return p == Peer::Record && !writesIntoTable(load) ? Peer::Yes : p;
}

// The kernel updates or synchronizes on another field of the record the slot
// is read from (a write, an atomic, a volatile or relaxed read: a lock, a
// counter): the table is working state, not an address book set up before
// the launch (tables of peer pointers are exchanged by the host and only
// read, weakly, on the device). The access goes through the slot's own
// address register, with the same definitions reaching it (`[qp+104]`
// beside `[qp+72]`), directly or through one `add` of a constant. Every
// access of the function is looked at, not the protocol's writes_
// (peerPointer is asked while they are collected).
bool ProtocolModel::writesIntoTable(InstId slotLoad) const {
  auto [memo, fresh] = writesIntoTable_.try_emplace(slotLoad, false);
  if (!fresh) return memo->second;
  const int operand = addressOf(fn_, slotLoad);
  const ValueReg reg = operand >= 0 ? fn_.instructions[slotLoad].operands[operand].valueRegister() : -1;
  if (reg < 0) return false;
  if (!writesThrough_) {  // per address register: the global writes through it (or through reg + constant)
    writesThrough_.emplace();
    for (InstId i = 0; i < static_cast<InstId>(fn_.instructions.size()); ++i) {
      const MemoryEffect& e = fn_.instructions[i].effect;
      const bool strongRead = e.kind == EffectKind::Load && e.semantics != Semantics::Weak &&
                              e.semantics != Semantics::None && (e.space == Space::Global || e.space == Space::Generic);
      if (!strongRead && !writesGlobalMemory(fn_, i)) continue;
      const int k = addressOf(fn_, i);
      const ValueReg r = k >= 0 ? fn_.instructions[i].operands[k].valueRegister() : -1;
      if (r < 0) continue;
      (*writesThrough_)[r].push_back(i);
      const InstId def = fn_.values->definition(r, i);
      if (def < 0) continue;
      const Inst& add = fn_.instructions[def];
      if (add.opcode() == "add" && !add.guard && add.operands.size() == 3 &&
          add.operands[1].kind == ptx::Operand::Kind::Register && add.operands[2].kind == ptx::Operand::Kind::Integer)
        (*writesThrough_)[add.operands[1].reg].push_back(def);  // the add stands for the write
    }
  }
  const auto found = writesThrough_->find(reg);
  if (found == writesThrough_->end()) return false;
  const std::vector<InstId> defs = fn_.values->reachingDefinitions(reg, slotLoad);
  if (defs.empty()) return false;
  const bool written = std::any_of(found->second.begin(), found->second.end(),
                                   [&](InstId w) { return fn_.values->reachingDefinitions(reg, w) == defs; });
  return writesIntoTable_[slotLoad] = written;
}

ProtocolModel::Peer ProtocolModel::recordDefinitions(ValueReg reg, InstId at, int64_t size, int depth,
                                                     int& budget) const {
  const std::vector<InstId> defs = fn_.values->reachingDefinitions(reg, at);
  if (defs.empty() || defs.size() > 8) return Peer::Yes;
  for (InstId d : defs) {
    if (--budget < 0) return Peer::Yes;
    ValueReg source = -1;
    InstId unpack = -1;
    if (broadcastPointer(d, source, unpack)) {
      const Peer p = recordDefinitions(source, unpack, size, depth, budget);
      if (p != Peer::Record) return p;
      continue;
    }
    // The definition's own value: the table's pointer (an operand read
    // from memory) plus an offset (the other operand) that steps by records.
    const Inst& def = fn_.instructions[d];
    const std::string_view op = def.opcode();
    if ((op == "mov" || op == "cvta") && def.operands.size() == 2 && def.operands[1].kind == ptx::Operand::Kind::Register &&
        !def.guard) {
      const Peer p = recordDefinitions(def.operands[1].reg, d, size, depth, budget);
      if (p != Peer::Record) return p;
      continue;
    }
    if (op != "add" || def.guard || def.operands.size() != 3) return Peer::Yes;
    int carrierOperand = -1;
    for (int k = 1; k < 3; ++k) {
      const AbstractValue& w = fn_.values->keptOperandValue(d, k);
      if (w.known && w.baseKind == AbstractValue::BaseKind::Loaded && def.operands[k].kind == ptx::Operand::Kind::Register)
        carrierOperand = carrierOperand < 0 ? k : 0;
    }
    if (carrierOperand <= 0) return Peer::Yes;
    const AbstractValue v = fn_.values->keptOperandValue(d, carrierOperand);
    const AbstractValue& offset = fn_.values->keptOperandValue(d, 3 - carrierOperand);
    if (!offset.known || offset.hasBase() ||
        std::all_of(offset.terms.begin(), offset.terms.end(), [](const auto& t) { return isBlockPosition(t); }) ||
        !isRecordField(offset, size))
      return Peer::Yes;
    // The record table's own pointer: walked back along the operand that
    // carries the table (add, mad, cvta) to its load.
    InstId walk = fn_.values->definition(def.operands[carrierOperand].reg, d), table = -1;
    for (int step = 0; step < 64 && walk >= 0; ++step) {
      const Inst& in = fn_.instructions[walk];
      if (in.effect.kind == EffectKind::Load) {
        table = walk;
        break;
      }
      if (in.guard || in.effect.kind != EffectKind::None) break;
      ValueReg carrier = -1;
      for (int k = 1; k < static_cast<int>(in.operands.size()) && carrier < 0; ++k) {
        const AbstractValue& w = fn_.values->keptOperandValue(walk, k);
        if (w.known && w.baseKind == AbstractValue::BaseKind::Loaded && w.base == v.base &&
            in.operands[k].kind == ptx::Operand::Kind::Register)
          carrier = in.operands[k].reg;
      }
      if (carrier < 0) break;
      walk = fn_.values->definition(carrier, walk);
    }
    if (table < 0) return Peer::Yes;
    const Peer up = peerPointerLoad(table, depth + 1);
    if (up == Peer::Yes) return up;  // a peer's table (one not traced is no evidence: the record decides)
  }
  return Peer::Record;
}

// The walk from the load's address back to the table (the load of its
// pointer, or a named table), along the operand that carries the table
// (cvta, add, mad): the one whose value has the slot's base, or, when the
// value analysis keeps the table's pointer as a term (a pointer read at an
// index it cannot name), the one with that term. Every other operand on the
// way is a part of the index; the slot is a block group's when each part is
// a constant or computed from the block's position by constants and
// launch-uniform values (IndexClassifier). Memoized per load.
const ProtocolModel::BlockGroupIndex& ProtocolModel::blockGroupIndex(InstId load) const {
  auto [memo, fresh] = blockGroupIndex_.try_emplace(load);
  if (!fresh) return memo->second;
  BlockGroupIndex result;
  const int operand = addressOf(fn_, load);
  const AbstractValue slot = operand >= 0 ? fn_.values->operandValue(load, operand) : AbstractValue{};
  // Without a base: the term that is the table's pointer, a 64-bit value
  // loaded from memory added once (`def:<load>`); one, or the walk stops.
  std::string pointerTerm;
  if (slot.known && !slot.hasBase())
    for (const auto& t : slot.terms) {
      if (t.coefficient != 1 || !t.name.starts_with("def:")) continue;
      const std::string_view digits = std::string_view(t.name).substr(4);
      InstId d = 0;
      bool number = !digits.empty() && digits.size() < 10;
      for (char c : digits) number = number && c >= '0' && c <= '9', d = d * 10 + (c - '0');
      if (!number || d >= static_cast<InstId>(fn_.instructions.size())) continue;
      const Inst& def = fn_.instructions[d];
      if (def.effect.kind != EffectKind::Load || !(def.hasModifier("b64") || def.hasModifier("u64") || def.hasModifier("s64")))
        continue;
      if (!pointerTerm.empty()) {  // two candidates: not told apart
        pointerTerm.clear();
        break;
      }
      pointerTerm = t.name;
    }
  if (slot.known && (slot.hasBase() || !pointerTerm.empty())) {
    auto carries = [&](InstId d, int k) {
      const AbstractValue v = fn_.values->operandValue(d, k);
      if (!v.known) return false;
      if (slot.hasBase()) return v.baseKind == slot.baseKind && v.base == slot.base;
      return std::any_of(v.terms.begin(), v.terms.end(),
                         [&](const auto& t) { return t.name == pointerTerm && t.coefficient == 1; });
    };
    const IndexClassifier classify(fn_, indexKindOfDefinition_);
    // The index's parts along the walk, summed: each add's other operand, each mad's product.
    IndexKind index = IndexKind::Constant;
    auto found = [&](InstId table) {
      result.grouped = index == IndexKind::Constant || index == IndexKind::Block;
      result.window = index == IndexKind::Window;
      result.table = table;
    };
    const ptx::Operand& address = fn_.instructions[load].operands[operand];
    ValueReg reg = address.valueRegister();
    InstId at = load;
    for (int step = 0; step < 64 && reg >= 0; ++step) {
      const std::vector<InstId> defs = fn_.values->reachingDefinitions(reg, at);
      if (defs.size() != 1) break;  // the table's pointer merged from several paths: not followed
      const InstId d = defs.front();
      const Inst& def = fn_.instructions[d];
      if (def.effect.kind == EffectKind::Load) {  // the table's pointer itself
        found(d);
        break;
      }
      if (def.guard || def.effect.kind != EffectKind::None) break;
      const int n = static_cast<int>(def.operands.size());
      int carrier = -1;
      for (int k = 1; k < n && carrier < 0; ++k)
        if (carries(d, k)) carrier = k;
      if (carrier < 0) break;
      const std::string_view op = def.opcode();
      if ((op == "mad" || op == "mad24") && carrier == 3 && n == 4) {
        index = additive(index, scaling(classify.operand(d, 1, 0), classify.operand(d, 2, 0), false));
      } else if (op == "add" || op == "sub" || op == "mov" || op == "cvta" || op == "cvt") {
        for (int k = 1; k < n; ++k)
          if (k != carrier) index = additive(index, classify.operand(d, k, 0));
      } else {
        break;
      }
      if (index == IndexKind::Other) break;
      const ptx::Operand& next = def.operands[carrier];
      if (next.kind != ptx::Operand::Kind::Register) {  // the named table (a parameter or a global symbol)
        if (next.kind == ptx::Operand::Kind::Symbol) found(-1);
        break;
      }
      reg = next.reg;
      at = d;
    }
  }
  return blockGroupIndex_[load] = result;
}

// Not traced (Unknown) counts as a peer here, as before issue 34: the
// scope's evidence tells the two apart (requiredScopeEvidence). A table
// indexed by a group of blocks does not: nothing decides it holds peers.
bool ProtocolModel::isPeerPointerLoad(InstId load, int depth) const {
  const Peer p = peerPointerLoad(load, depth);
  return p == Peer::Yes || p == Peer::Unknown;
}

bool ProtocolModel::readsThroughPeerPointer(InstId access) const {
  if (goesThroughPeerPointer(access)) return true;
  const int operand = addressOf(fn_, access);
  if (operand < 0) return false;
  const MemoryObject object = memory_.objectOf(access, operand);
  if (object.kind != MemoryObject::Kind::Loaded) return false;
  const InstId load = fn_.values->pointerLoad(object.name);
  return load >= 0 && isPeerPointerLoad(load, 0);
}

bool ProtocolModel::goesThroughPeerPointer(InstId access) const {
  const Peer p = peerPointer(access);
  return p == Peer::Yes || p == Peer::Unknown;
}

}  // namespace fenceline::model
