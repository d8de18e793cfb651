// Dominators and post-dominators with the Cooper-Harvey-Kennedy iteration over
// reverse postorder ("A Simple, Fast Dominance Algorithm"). Post-dominators
// run on the reversed graph from a virtual exit whose predecessors are the
// blocks without successors. Blocks the walk never reaches (unreachable code;
// infinite loops, for post-dominators) keep -1 and dominate nothing else.
// Dominator-tree pre/post numbers make dominates() O(1).
#include <algorithm>
#include <functional>

#include "model/Build.h"

namespace fenceline::model::detail {
namespace {

using Edges = std::function<const std::vector<BlockId>&(BlockId)>;

// Immediate dominators of a graph of `count` nodes rooted at `root`;
// -1 for nodes the root does not reach. idom[root] = root.
std::vector<BlockId> immediateDominators(BlockId count, BlockId root, const Edges& succ, const Edges& pred) {
  std::vector<int32_t> order(count, -1);  // postorder number
  std::vector<BlockId> rpo;
  // Iterative DFS producing postorder.
  std::vector<std::pair<BlockId, size_t>> stack{{root, 0}};
  std::vector<char> seen(count, 0);
  seen[root] = 1;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    const auto& s = succ(b);
    if (next < s.size()) {
      BlockId c = s[next++];
      if (!seen[c]) {
        seen[c] = 1;
        stack.emplace_back(c, 0);
      }
      continue;
    }
    order[b] = static_cast<int32_t>(rpo.size());
    rpo.push_back(b);
    stack.pop_back();
  }
  std::reverse(rpo.begin(), rpo.end());

  std::vector<BlockId> idom(count, -1);
  idom[root] = root;
  auto intersect = [&](BlockId a, BlockId b) {
    while (a != b) {
      while (order[a] < order[b]) a = idom[a];
      while (order[b] < order[a]) b = idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (BlockId b : rpo) {
      if (b == root) continue;
      BlockId chosen = -1;
      for (BlockId p : pred(b)) {
        if (idom[p] < 0) continue;
        chosen = chosen < 0 ? p : intersect(p, chosen);
      }
      if (chosen != idom[b]) {
        idom[b] = chosen;
        changed = true;
      }
    }
  }
  return idom;
}

// Pre/post numbers of the tree given by parent links (root's parent = itself).
void number(const std::vector<BlockId>& parent, BlockId root, std::vector<int32_t>& in, std::vector<int32_t>& out) {
  const size_t count = parent.size();
  std::vector<std::vector<BlockId>> children(count);
  for (size_t b = 0; b < count; ++b)
    if (parent[b] >= 0 && static_cast<BlockId>(b) != root) children[parent[b]].push_back(static_cast<BlockId>(b));
  in.assign(count, -1);
  out.assign(count, -1);
  int32_t clock = 0;
  std::vector<std::pair<BlockId, size_t>> stack{{root, 0}};
  in[root] = clock++;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    if (next < children[b].size()) {
      BlockId c = children[b][next++];
      in[c] = clock++;
      stack.emplace_back(c, 0);
      continue;
    }
    out[b] = clock++;
    stack.pop_back();
  }
}

}  // namespace

void computeDominators(FunctionModel& fn) {
  const BlockId count = static_cast<BlockId>(fn.blocks.size());
  if (count == 0) return;
  fn.idom = immediateDominators(
      count, 0, [&](BlockId b) -> const std::vector<BlockId>& { return fn.blocks[b].successors; },
      [&](BlockId b) -> const std::vector<BlockId>& { return fn.blocks[b].predecessors; });
  number(fn.idom, 0, fn.domIn, fn.domOut);
  fn.idom[0] = -1;

  // Reversed graph with a virtual exit node `count`.
  const BlockId exitNode = count;
  std::vector<BlockId> exits;
  for (BlockId b = 0; b < count; ++b)
    if (fn.blocks[b].successors.empty()) exits.push_back(b);
  const std::vector<BlockId> none;
  std::vector<std::vector<BlockId>> toExit(count);
  for (BlockId b : exits) toExit[b].push_back(exitNode);
  auto revSucc = [&](BlockId b) -> const std::vector<BlockId>& {
    return b == exitNode ? exits : fn.blocks[b].predecessors;
  };
  auto revPred = [&](BlockId b) -> const std::vector<BlockId>& {
    if (b == exitNode) return none;
    return toExit[b].empty() ? fn.blocks[b].successors : toExit[b];
  };
  std::vector<BlockId> ipdom = immediateDominators(count + 1, exitNode, revSucc, revPred);
  number(ipdom, exitNode, fn.postDomIn, fn.postDomOut);
  fn.postDomIn.pop_back();
  fn.postDomOut.pop_back();
  ipdom.pop_back();
  for (auto& p : ipdom)
    if (p == exitNode) p = -1;
  fn.ipostdom = std::move(ipdom);
}

}  // namespace fenceline::model::detail
