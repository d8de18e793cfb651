// Basic blocks and CFG edges over the flat body. A block starts at the entry,
// at every jump target, and after every jump or exit; it ends before the next
// leader. Guarded (`@p`) non-branch instructions stay inside their block: the
// checks read Inst::guard. A guarded branch, ret or exit also falls through.
#include <algorithm>
#include <functional>

#include "model/Build.h"

namespace fenceline::model::detail {

void buildBlocks(FunctionModel& fn, const std::vector<Flow>& flow) {
  const InstId n = static_cast<InstId>(fn.instructions.size());
  std::vector<char> leader(static_cast<size_t>(n) + 1, 0);
  leader[0] = 1;
  for (InstId i = 0; i < n; ++i) {
    model::poll();  // the function's time budget (model/Limits.h)
    const Flow& f = flow[i];
    if (f.jumps || f.exits) leader[i + 1] = 1;
    for (InstId t : f.targets)
      if (t >= 0 && t <= n) leader[t] = 1;
  }

  fn.blocks.clear();
  fn.blockOf.assign(n, -1);
  for (InstId i = 0; i < n || fn.blocks.empty(); ++i) {
    if (i < n && !leader[i] && !fn.blocks.empty()) {
      fn.blocks.back().last = i + 1;
    } else {
      fn.blocks.push_back(BasicBlock{i, std::min(i + 1, n), {}, {}});
    }
    if (i < n) fn.blockOf[i] = static_cast<BlockId>(fn.blocks.size() - 1);
    if (i >= n) break;
  }
  for (InstId i = 0; i < n; ++i) fn.instructions[i].block = fn.blockOf[i];

  auto blockAt = [&](InstId t) -> BlockId { return t >= 0 && t < n ? fn.blockOf[t] : -1; };
  const BlockId count = static_cast<BlockId>(fn.blocks.size());
  for (BlockId b = 0; b < count; ++b) {
    BasicBlock& bb = fn.blocks[b];
    auto& succ = bb.successors;
    bool fallsThrough = true;
    if (bb.last > bb.first) {
      const Flow& f = flow[bb.last - 1];
      for (InstId t : f.targets)
        if (BlockId tb = blockAt(t); tb >= 0) succ.push_back(tb);
      if ((f.jumps || f.exits) && !f.conditional) fallsThrough = false;
    }
    if (fallsThrough && b + 1 < count) succ.push_back(b + 1);
    std::sort(succ.begin(), succ.end());
    succ.erase(std::unique(succ.begin(), succ.end()), succ.end());
  }
  for (BlockId b = 0; b < count; ++b)
    for (BlockId s : fn.blocks[b].successors) fn.blocks[s].predecessors.push_back(b);

  // Label operands: instruction index -> block id.
  // A label operand is in a copy (model/Inliner.cpp), never the syntax's own.
  std::function<void(const ptx::Operand&)> relabel = [&](const ptx::Operand& op) {
    if (op.kind == ptx::Operand::Kind::Label) const_cast<ptx::Operand&>(op).label = blockAt(op.label);
    for (const auto& e : op.elements) relabel(e);
  };
  for (const auto& inst : fn.instructions)
    for (const auto& op : inst.operands) relabel(op);
}

}  // namespace fenceline::model::detail
