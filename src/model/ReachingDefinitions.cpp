// Reaching definitions over basic blocks. A definition reaches the entry of a
// block when some path from the end of its own block gets there without
// passing through another block that writes its register, and it is the last
// write of the register in its own block: the least fixed point of
// out = gen | (in & ~kill), computed here per definition by a forward walk
// that stops at the blocks that write the register. Only registers with
// several definitions are tracked. The cost is the sum of the definitions'
// reach (straight-line code that reuses a predicate in every round: linear),
// not blocks x definitions as a dense bit matrix would be.
#include "model/ReachingDefinitions.h"

#include <algorithm>

namespace fenceline::model {
namespace {
// Past these sizes nothing is tracked (every definition "may reach"): the
// bounds of the dense bit matrix this replaced, kept so that answers do not
// change with the representation. blocks x definitions bounds the walks too.
constexpr size_t kMaxWords = 1 << 20;     // blocks x 64-bit words of definitions
constexpr size_t kMaxKillWork = 1 << 26;  // per block, the definitions of the registers it writes
}  // namespace

ReachingDefinitions::ReachingDefinitions(const FunctionModel& fn, const std::vector<std::vector<InstId>>& defs) {
  const size_t n = fn.instructions.size();
  const size_t blocks = fn.blocks.size();
  bitOf_.assign(n, -1);
  int32_t bits = 0;
  std::vector<ValueReg> regOfBit;
  std::vector<InstId> defOfBit;
  for (size_t r = 0; r < defs.size(); ++r)
    if (defs[r].size() > 1)
      for (InstId d : defs[r]) {
        bitOf_[d] = bits++;
        regOfBit.push_back(static_cast<ValueReg>(r));
        defOfBit.push_back(d);
      }
  const size_t words = (static_cast<size_t>(bits) + 63) / 64;
  if (bits == 0 || blocks * words > kMaxWords) return;

  // writes[b]: the tracked registers block b writes, each once, with the last
  // definition of each in the block (its "gen").
  std::vector<std::vector<std::pair<ValueReg, InstId>>> writes(blocks);
  size_t work = 0;
  for (size_t b = 0; b < blocks; ++b) {
    auto& w = writes[b];
    for (InstId i = fn.blocks[b].last - 1; i >= fn.blocks[b].first; --i) {
      int32_t bit = bitOf_[i];
      if (bit < 0) continue;
      ValueReg r = regOfBit[bit];
      if (std::any_of(w.begin(), w.end(), [&](const auto& e) { return e.first == r; })) continue;
      w.emplace_back(r, i);
      work += defs[r].size();
    }
    if (work > kMaxKillWork) return;
  }
  auto writesReg = [&](BlockId b, ValueReg r) {
    const auto& w = writes[b];
    return std::any_of(w.begin(), w.end(), [&](const auto& e) { return e.first == r; });
  };

  // Per definition, the blocks whose entry it reaches (sorted), in one flat array.
  start_.assign(static_cast<size_t>(bits) + 1, 0);
  std::vector<int32_t> stamp(blocks, -1);
  std::vector<BlockId> stack;
  for (int32_t bit = 0; bit < bits; ++bit) {
    model::poll();  // the function's time budget (model/Limits.h)
    start_[bit] = static_cast<uint32_t>(reach_.size());
    const InstId d = defOfBit[bit];
    const BlockId home = fn.instructions[d].block;
    const ValueReg r = regOfBit[bit];
    if (home < 0) continue;
    const auto& w = writes[home];
    if (std::none_of(w.begin(), w.end(), [&](const auto& e) { return e.second == d; })) continue;  // not the block's last write
    auto enter = [&](BlockId s) {
      if (s < 0 || stamp[s] == bit) return;
      stamp[s] = bit;
      reach_.push_back(s);
      if (!writesReg(s, r)) stack.push_back(s);
    };
    for (BlockId s : fn.blocks[home].successors) enter(s);
    while (!stack.empty()) {
      BlockId b = stack.back();
      stack.pop_back();
      for (BlockId s : fn.blocks[b].successors) enter(s);
    }
    std::sort(reach_.begin() + start_[bit], reach_.end());
  }
  start_[bits] = static_cast<uint32_t>(reach_.size());
  tracked_ = true;
}

bool ReachingDefinitions::reachesEntry(InstId def, BlockId block) const {
  if (!tracked_ || def < 0 || static_cast<size_t>(def) >= bitOf_.size()) return true;
  int32_t bit = bitOf_[def];
  if (bit < 0 || block < 0) return true;
  auto first = reach_.begin() + start_[bit], last = reach_.begin() + start_[bit + 1];
  return std::binary_search(first, last, block);
}

}  // namespace fenceline::model
