// Which values a flag's address is computed from (DataIndexedFlags.h): a
// walk back from the address through effect-free instructions to the loads,
// parameters and special registers it starts from.
#include "model/DataIndexedFlags.h"

#include <algorithm>
#include <string_view>

#include "model/Protocol.h"
#include "model/ThreadRoles.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

enum class IndexLeaves : uint8_t { Data, NoData, Unknown };

// The values the word's address is computed from, followed back through
// effect-free instructions (every reaching definition): Data when one is a
// load of global memory (a table's entry), NoData when none is; Unknown when
// one is the block index, a value read from shared or local memory, an
// atomic's returned value, or the walk is cut short.
IndexLeaves indexLeaves(const FunctionModel& fn, InstId access) {
  const int operand = protocolAddress(fn, access);
  if (operand < 0) return IndexLeaves::Unknown;
  const ptx::Operand& address = fn.instructions[access].operands[operand];
  if (address.kind != ptx::Operand::Kind::Address || address.base.kind != ptx::Operand::Kind::Register)
    return IndexLeaves::Unknown;
  std::vector<std::pair<ValueReg, InstId>> work{{address.base.reg, access}};
  std::vector<std::pair<ValueReg, InstId>> seen;
  bool data = false;
  while (!work.empty()) {
    const auto [reg, at] = work.back();
    work.pop_back();
    if (std::find(seen.begin(), seen.end(), std::make_pair(reg, at)) != seen.end()) continue;
    if (seen.size() >= 256) return IndexLeaves::Unknown;
    seen.push_back({reg, at});
    const std::vector<InstId> defs = fn.values->reachingDefinitions(reg, at);
    if (defs.empty()) return IndexLeaves::Unknown;
    for (InstId d : defs) {
      const Inst& in = fn.instructions[d];
      const MemoryEffect& e = in.effect;
      if (e.kind == EffectKind::Load) {
        if (e.space == Space::Param || e.space == Space::Const) continue;  // the same for every block
        if (e.space == Space::Global || e.space == Space::Generic) {
          data = true;
          continue;
        }
        return IndexLeaves::Unknown;
      }
      if (e.kind != EffectKind::None) return IndexLeaves::Unknown;
      for (const ptx::Operand& op : in.operands.subspan(1)) {
        if (op.kind == ptx::Operand::Kind::Special && !op.text.starts_with("%tid.") && op.text != "%laneid")
          return IndexLeaves::Unknown;
        if (op.kind == ptx::Operand::Kind::Register) work.push_back({op.reg, d});
        if (op.kind == ptx::Operand::Kind::Address && op.base.kind == ptx::Operand::Kind::Register)
          work.push_back({op.base.reg, d});
      }
    }
  }
  return data ? IndexLeaves::Data : IndexLeaves::NoData;
}

}  // namespace

bool dataIndexedProtocol(const FunctionModel& fn, InstId access, const std::vector<InstId>& partners,
                         const std::function<const std::string&(InstId)>& rootOf) {
  auto indexedByData = [&](InstId i) {
    return rootOf(i).starts_with("param:") && indexLeaves(fn, i) == IndexLeaves::Data;
  };
  if (partners.empty() || !indexedByData(access)) return false;
  if (!std::all_of(partners.begin(), partners.end(), indexedByData)) return false;
  // Run by one thread of the block on both sides (a queue's lock taken by
  // thread 0): a partner in the block could only be one other single
  // thread, and the presumption of another block stays. The rule is for a
  // protocol that many threads of a block take part in (rows spread over
  // warps and lanes).
  auto manyThreads = [&](InstId i) {
    if (!fn.roles) return true;
    const ThreadSet set = fn.roles->instructionSet(i);
    return set != ThreadSet::OneThread && set != ThreadSet::OneBlockThread;
  };
  return manyThreads(access) || std::any_of(partners.begin(), partners.end(), manyThreads);
}

}  // namespace fenceline::model
