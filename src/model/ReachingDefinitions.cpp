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
  blockCount_ = blocks;

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

  // Per definition, the blocks whose entry it reaches; kept per block (the
  // numbers of the definitions that reach its entry, ascending), since the
  // question is asked per use: which of this register's definitions reach here.
  std::vector<int32_t> stamp(blocks, -1);
  std::vector<BlockId> stack;
  std::vector<std::pair<BlockId, int32_t>> pairs;  // (block, definition number), definitions ascending
  // Where the definitions reach far (long-lived registers written in many
  // blocks) the walks cost more than the bit matrix, which handles 64
  // definitions per word: past that cost, the matrix (same answers).
  const size_t denseCost = 4 * blocks * words + blocks;
  size_t steps = 0;
  for (int32_t bit = 0; bit < bits; ++bit) {
    if (steps > denseCost) {
      buildDense(fn, defs, writes, bits);
      return;
    }
    model::poll();  // the function's time budget (model/Limits.h)
    const InstId d = defOfBit[bit];
    const BlockId home = fn.instructions[d].block;
    const ValueReg r = regOfBit[bit];
    if (home < 0) continue;
    const auto& w = writes[home];
    if (std::none_of(w.begin(), w.end(), [&](const auto& e) { return e.second == d; })) continue;  // not the block's last write
    auto enter = [&](BlockId s) {
      ++steps;
      if (s < 0 || stamp[s] == bit) return;
      stamp[s] = bit;
      pairs.emplace_back(s, bit);
      if (!writesReg(s, r)) stack.push_back(s);
    };
    for (BlockId s : fn.blocks[home].successors) enter(s);
    while (!stack.empty()) {
      BlockId b = stack.back();
      stack.pop_back();
      for (BlockId s : fn.blocks[b].successors) enter(s);
    }
  }
  // Counting sort by block; definitions stay ascending within a block.
  start_.assign(blocks + 1, 0);
  for (const auto& [b, bit] : pairs) ++start_[b + 1];
  for (size_t b = 0; b < blocks; ++b) start_[b + 1] += start_[b];
  reaching_.resize(pairs.size());
  std::vector<uint32_t> next(start_.begin(), start_.end() - 1);
  for (const auto& [b, bit] : pairs) reaching_[next[b]++] = bit;
  defOfBit_ = std::move(defOfBit);
  tracked_ = true;
}

void ReachingDefinitions::buildDense(const FunctionModel& fn, const std::vector<std::vector<InstId>>& defs,
                                     const std::vector<std::vector<std::pair<ValueReg, InstId>>>& writes, int32_t bits) {
  const size_t blocks = fn.blocks.size();
  words_ = (static_cast<size_t>(bits) + 63) / 64;
  std::vector<uint64_t> gen(blocks * words_, 0), kill(blocks * words_, 0), out(blocks * words_, 0);
  auto set = [&](std::vector<uint64_t>& m, size_t b, int32_t bit) { m[b * words_ + bit / 64] |= uint64_t(1) << (bit % 64); };
  for (size_t b = 0; b < blocks; ++b)
    for (const auto& [r, last] : writes[b]) {
      set(gen, b, bitOf_[last]);
      for (InstId d : defs[r]) set(kill, b, bitOf_[d]);
    }
  out = gen;
  in_.assign(blocks * words_, 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < blocks; ++b) {
      model::poll();  // the function's time budget (model/Limits.h)
      uint64_t* in = &in_[b * words_];
      for (BlockId p : fn.blocks[b].predecessors)
        for (size_t w = 0; w < words_; ++w) in[w] |= out[p * words_ + w];
      for (size_t w = 0; w < words_; ++w) {
        uint64_t o = gen[b * words_ + w] | (in[w] & ~kill[b * words_ + w]);
        if (o != out[b * words_ + w]) {
          out[b * words_ + w] = o;
          changed = true;
        }
      }
    }
  }
  dense_ = true;
  tracked_ = true;
}

bool ReachingDefinitions::reachesEntry(InstId def, BlockId block) const {
  if (!tracked_ || def < 0 || static_cast<size_t>(def) >= bitOf_.size()) return true;
  int32_t bit = bitOf_[def];
  if (bit < 0 || block < 0 || static_cast<size_t>(block) >= blockCount_) return true;
  if (dense_) return (in_[block * words_ + bit / 64] >> (bit % 64)) & 1;
  return std::binary_search(reaching_.begin() + start_[block], reaching_.begin() + start_[block + 1], bit);
}

InstId ReachingDefinitions::onlyReaching(const std::vector<InstId>& defs, BlockId block) const {
  if (defs.empty()) return -1;
  if (!tracked_ || block < 0 || static_cast<size_t>(block) >= blockCount_) return defs.size() == 1 ? defs.front() : -1;
  const InstId front = defs.front();
  if (front < 0 || static_cast<size_t>(front) >= bitOf_.size() || bitOf_[front] < 0) return defs.size() == 1 ? front : -1;
  // One register's definitions have consecutive numbers (see the constructor).
  const int32_t first = bitOf_[front], last = first + static_cast<int32_t>(defs.size());
  if (dense_) {
    InstId only = -1;
    for (InstId d : defs)
      if (reachesEntry(d, block)) {
        if (only >= 0) return -1;
        only = d;
      }
    return only;
  }
  auto begin = reaching_.begin() + start_[block], end = reaching_.begin() + start_[block + 1];
  auto it = std::lower_bound(begin, end, first);
  if (it == end || *it >= last) return -1;
  if (it + 1 != end && *(it + 1) < last) return -1;
  return defOfBit_[*it];
}

}  // namespace fenceline::model
