// Paths a thread takes (see UniformModes.h, "Thread level"). Every comparison
// UniformModes names is of values fixed for a thread's whole life, so one
// that held on the way to an instruction holds on every edge the thread
// takes, before and after: an edge on which it is decided the other way is
// never taken by a thread that reaches the instruction. The definitions of a
// register read there are then those that reach it in the control flow
// without such edges: NCCL's outbox copy of a backend byte is zeroed on the
// fall-through of `warp < bound` and read on the fall-through of
// `warp >= bound` (another register, the same comparison), so at the read
// only the byte's own load reaches.
//
// Cost: per root block (the block whose facts prune), one walk from the
// entry over the edges it keeps; per (root, read, register), one walk from
// each definition until its register is written again: O(B + E) each, the
// edges' facts computed once per edge. The walks of one function share a
// bound of 64 (B + E) + 4096 block visits; past it nothing is pruned (every
// definition kept, as without this rule).
#include <algorithm>

#include "model/BranchEdges.h"
#include "model/Limits.h"
#include "model/UniformModes.h"
#include "model/Values.h"

namespace fenceline::model {

bool UniformModes::runsOnce(InstId def) const {
  if (inCycle_.empty()) {
    // Tarjan's strongly connected components, without recursion: a block is on
    // a cycle when its component has several blocks or it is its own successor
    // (irreducible cycles included, which Loops does not list).
    const BlockId count = static_cast<BlockId>(fn_.blocks.size());
    inCycle_.assign(count, 0);
    std::vector<int> index(count, -1), low(count, 0);
    std::vector<char> onStack(count, 0);
    std::vector<BlockId> stack;
    std::vector<std::pair<BlockId, size_t>> frames;
    int next = 0;
    for (BlockId start = 0; start < count; ++start) {
      if (index[start] >= 0) continue;
      frames.push_back({start, 0});
      while (!frames.empty()) {
        auto& [b, edge] = frames.back();
        if (edge == 0 && index[b] < 0) {
          index[b] = low[b] = next++;
          stack.push_back(b);
          onStack[b] = 1;
        }
        const auto& succ = fn_.blocks[b].successors;
        if (edge < succ.size()) {
          const BlockId s = succ[edge++];
          if (s == b) inCycle_[b] = 1;
          if (index[s] < 0) frames.push_back({s, 0});
          else if (onStack[s]) low[b] = std::min(low[b], index[s]);
          continue;
        }
        if (low[b] == index[b]) {
          std::vector<BlockId> component;
          BlockId w;
          do {
            w = stack.back();
            stack.pop_back();
            onStack[w] = 0;
            component.push_back(w);
          } while (w != b);
          if (component.size() > 1)
            for (BlockId c : component) inCycle_[c] = 1;
        }
        const BlockId done = b;
        frames.pop_back();
        if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[done]);
        poll();
      }
    }
  }
  const Inst& in = fn_.instructions[def];
  return !(in.guard && in.guard->reg >= 0) && !inCycle_[fn_.blockOf[def]];
}

const std::vector<UniformModes::Fact>& UniformModes::edgeFacts(BlockId from, BlockId to) const {
  const uint64_t key = (uint64_t(uint32_t(from)) << 32) | uint32_t(to);
  if (auto known = edgeFacts_.find(key); known != edgeFacts_.end()) return known->second;
  std::vector<Fact> facts;
  if (std::optional<EdgeCondition> edge = edgeCondition(fn_, from, to)) {
    // Without pruned paths: these facts decide which paths are pruned.
    const BlockId root = root_;
    root_ = -1;
    implied(edge->predicate, edge->branch, edge->value, 0, facts);
    root_ = root;
  }
  std::sort(facts.begin(), facts.end());
  return edgeFacts_[key] = std::move(facts);
}

bool UniformModes::contradicts(BlockId from, BlockId to, const std::vector<Fact>& facts) const {
  for (const Fact& f : edgeFacts(from, to))
    if (std::binary_search(facts.begin(), facts.end(), Fact{f.key, !f.value})) return true;
  return false;
}

const std::vector<char>& UniformModes::feasibleBlocks(BlockId root) const {
  if (auto known = feasibleBlocks_.find(root); known != feasibleBlocks_.end()) return known->second;
  const std::vector<Fact>& facts = blockFacts(root);
  std::vector<char> seen(fn_.blocks.size(), 0);
  std::vector<BlockId> work{0};
  while (!work.empty()) {
    const BlockId b = work.back();
    work.pop_back();
    if (seen[b]) continue;
    seen[b] = 1;
    --pathWork_;
    poll();
    for (BlockId next : fn_.blocks[b].successors)
      if (!seen[next] && !contradicts(b, next, facts)) work.push_back(next);
  }
  return feasibleBlocks_[root] = std::move(seen);
}

std::vector<InstId> UniformModes::feasibleDefinitions(ValueReg reg, InstId at, const std::vector<InstId>& defs,
                                                      BlockId root) const {
  if (root < 0 || defs.size() < 2 || !fn_.values) return defs;
  const auto cacheKey = std::make_tuple(root, at, reg);
  if (auto known = feasibleDefs_.find(cacheKey); known != feasibleDefs_.end()) {
    if (known->second.size() < defs.size()) ++pruned_;
    return known->second;
  }
  auto answer = [&](std::vector<InstId> kept) {
    if (kept.size() < defs.size()) ++pruned_;
    feasibleDefs_[cacheKey] = kept;
    return kept;
  };
  if (!pathWorkSet_) {
    pathWorkSet_ = true;
    size_t edges = 0;
    for (const BasicBlock& b : fn_.blocks) edges += b.successors.size();
    pathWork_ = 64 * int64_t(fn_.blocks.size() + edges) + 4096;
  }
  const std::vector<Fact>& facts = blockFacts(root);
  if (facts.empty() || pathWork_ <= 0) return answer(defs);
  // A value carried around a loop: its trips are not told apart by facts that hold on all of them.
  auto enclosing = [&](BlockId b) {  // the loops around b, innermost first
    std::vector<int32_t> chain;
    for (int32_t l = b < static_cast<BlockId>(fn_.loopOf.size()) ? fn_.loopOf[b] : -1; l >= 0; l = fn_.loops[l].parent)
      chain.push_back(l);
    return chain;
  };
  const std::vector<int32_t> aroundUse = enclosing(fn_.blockOf[at]);
  if (!aroundUse.empty())
    for (InstId d : defs)
      for (int32_t l : enclosing(fn_.blockOf[d]))
        if (std::find(aroundUse.begin(), aroundUse.end(), l) != aroundUse.end()) return answer(defs);
  const std::vector<char>& feasible = feasibleBlocks(root);
  // An unguarded write of the register ends a definition's reach (a guarded one may not run).
  auto kills = [&](InstId i) {
    const Inst& in = fn_.instructions[i];
    if (in.guard && in.guard->reg >= 0) return false;
    const std::vector<InstId>& all = fn_.values->definitions(reg);
    return std::binary_search(all.begin(), all.end(), i);
  };
  // From the instruction after `start` (or the block's first), up to `at`: reached unless written first.
  enum class Scan { Reached, Killed, Through };
  auto scan = [&](BlockId b, InstId start) {
    for (InstId i = start; i < fn_.blocks[b].last; ++i) {
      if (i == at) return Scan::Reached;
      if (kills(i)) return Scan::Killed;
    }
    return Scan::Through;
  };
  std::vector<InstId> kept;
  for (InstId def : defs) {
    const BlockId home = fn_.blockOf[def];
    if (!feasible[home]) continue;  // only on edges the thread never takes
    bool reaches = false;
    std::vector<char> seen(fn_.blocks.size(), 0);
    std::vector<BlockId> work;
    auto leave = [&](BlockId b) {
      for (BlockId next : fn_.blocks[b].successors)
        if (feasible[next] && !seen[next] && !contradicts(b, next, facts)) work.push_back(next);
    };
    switch (scan(home, def + 1)) {
      case Scan::Reached: reaches = true; break;
      case Scan::Killed: break;
      case Scan::Through: leave(home); break;
    }
    while (!reaches && !work.empty()) {
      const BlockId b = work.back();
      work.pop_back();
      if (seen[b]) continue;
      seen[b] = 1;
      poll();
      if (--pathWork_ <= 0) return answer(defs);  // the bound: keep every definition
      switch (scan(b, fn_.blocks[b].first)) {
        case Scan::Reached: reaches = true; break;
        case Scan::Killed: break;
        case Scan::Through: leave(b); break;
      }
    }
    if (reaches) kept.push_back(def);
  }
  // None left: the read is on no path such a thread takes; decide nothing.
  return answer(kept.empty() ? defs : kept);
}

}  // namespace fenceline::model
