// Natural loops: a back edge is an edge latch -> header where the header
// dominates the latch; the loop is every block that reaches a latch without
// passing the header. Back edges to the same header make one loop. Loops are
// stored outermost first; parent and loopOf come from containment. Irreducible
// cycles (no dominating header) are not loops here.
#include <algorithm>
#include <map>

#include "model/Build.h"

namespace fenceline::model::detail {

void computeLoops(FunctionModel& fn) {
  const BlockId count = static_cast<BlockId>(fn.blocks.size());
  std::map<BlockId, std::vector<BlockId>> latchesOf;
  for (BlockId b = 0; b < count; ++b)
    for (BlockId s : fn.blocks[b].successors)
      if (fn.domIn[b] >= 0 && fn.dominates(s, b)) latchesOf[s].push_back(b);

  std::vector<Loop> loops;
  std::vector<char> in(count, 0);
  for (auto& [header, latches] : latchesOf) {
    Loop loop;
    loop.header = header;
    loop.latches = latches;
    in[header] = 1;
    loop.blocks.push_back(header);
    std::vector<BlockId> work;
    for (BlockId l : latches)
      if (!in[l]) {
        in[l] = 1;
        loop.blocks.push_back(l);
        work.push_back(l);
      }
    while (!work.empty()) {
      model::poll();
      BlockId b = work.back();
      work.pop_back();
      for (BlockId p : fn.blocks[b].predecessors)
        if (!in[p] && fn.domIn[p] >= 0) {
          in[p] = 1;
          loop.blocks.push_back(p);
          work.push_back(p);
        }
    }
    std::sort(loop.blocks.begin(), loop.blocks.end());
    for (BlockId b : loop.blocks)
      for (BlockId s : fn.blocks[b].successors)
        if (!in[s]) loop.exits.push_back(s);
    std::sort(loop.exits.begin(), loop.exits.end());
    loop.exits.erase(std::unique(loop.exits.begin(), loop.exits.end()), loop.exits.end());
    for (BlockId b : loop.blocks) in[b] = 0;  // not a fill: O(loop), not O(function), per loop
    loops.push_back(std::move(loop));
  }

  std::stable_sort(loops.begin(), loops.end(),
                   [](const Loop& a, const Loop& b) { return a.blocks.size() > b.blocks.size(); });
  fn.loopOf.assign(count, -1);
  for (size_t i = 0; i < loops.size(); ++i) {
    loops[i].parent = fn.loopOf[loops[i].header];
    for (BlockId b : loops[i].blocks) fn.loopOf[b] = static_cast<int32_t>(i);
  }
  fn.loops = std::move(loops);
}

}  // namespace fenceline::model::detail
