// The stores a broadcast load reads (model/BroadcastStores.h).
#include "model/BroadcastStores.h"

#include <algorithm>
#include <iterator>

#include "model/Memory.h"
#include "model/Paths.h"
#include "model/ThreadRoles.h"

namespace fenceline::model {
namespace {

bool isElection(ThreadSet set) { return set == ThreadSet::OneThread || set == ThreadSet::OneBlockThread; }

// The block whose conditional branch lets one thread through to `store`: the
// nearest dominator of the store's block run by more than one thread, when it
// ends with a conditional branch, dominates the load, and its edge toward the
// store always reaches it; the load lies past that election's region (the
// other threads read too, not the elected one inside it). -1 otherwise.
BlockId electingBlock(const FunctionModel& fn, InstId store, InstId load) {
  const BlockId home = fn.blockOf[store];
  BlockId b = fn.idom[home];
  while (b >= 0 && isElection(fn.roles->blockSet(b))) b = fn.idom[b] == b ? -1 : fn.idom[b];
  if (b < 0 || !fn.dominates(b, fn.blockOf[load])) return -1;
  const BasicBlock& block = fn.blocks[b];
  if (block.last <= block.first) return -1;
  const Inst& branch = fn.instructions[block.last - 1];
  if (branch.opcode() != "bra" || !branch.guard || branch.guard->reg < 0) return -1;
  for (BlockId s : block.successors)
    if ((s == home || (fn.dominates(s, home) && fn.postDominates(home, s))) && !fn.dominates(s, fn.blockOf[load]))
      return b;
  return -1;
}

}  // namespace

std::vector<InstId> storesReadByBroadcast(const FunctionModel& fn, InstId load, const std::vector<InstId>& mayRead) {
  if (mayRead.size() < 2 || !fn.roles || !fn.memory) return mayRead;
  std::vector<InstId> screened;
  for (InstId own : mayRead) {
    const Inst& store = fn.instructions[own];
    if ((store.guard && store.guard->reg >= 0) || !isElection(fn.roles->blockSet(fn.blockOf[own])) ||
        !fn.memory->sameWord(own, load) || !reachable(fn, own, load))
      continue;
    const BlockId elect = electingBlock(fn, own, load);
    if (elect < 0) continue;
    const InstId branch = fn.blocks[elect].last - 1;
    const std::vector<InstId> stops{branch};
    auto passesElection = [&](InstId i) { return i == branch; };
    // The store of this round: it reaches the load before the next election.
    if (everyPathPasses(fn, own, load, passesElection, stops)) continue;
    for (InstId other : mayRead)
      if (other != own && everyPathPasses(fn, other, load, passesElection, stops))
        screened.push_back(other);
  }
  if (screened.empty()) return mayRead;
  std::sort(screened.begin(), screened.end());
  std::vector<InstId> kept;
  std::set_difference(mayRead.begin(), mayRead.end(), screened.begin(), screened.end(), std::back_inserter(kept));
  return kept;
}

}  // namespace fenceline::model
