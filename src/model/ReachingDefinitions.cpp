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
  // The walks run twice: once counting, per block, the definitions that
  // reach it (and the steps, which choose the matrix), then again writing
  // them in place, ascending: no list of (block, definition) pairs, which
  // could reach 4 times the matrix's size (docs/performance.md, session 16).
  std::vector<int32_t> stamp(blocks, -1);
  std::vector<BlockId> stack;
  std::vector<uint32_t> next;  // the second walk: where each block's next definition goes
  // Where the definitions reach far (long-lived registers written in many
  // blocks) the walks cost more than the bit matrix, which handles 64
  // definitions per word: past that cost, the matrix (same answers).
  const size_t denseCost = 4 * blocks * words + blocks;
  size_t steps = 0;
  start_.assign(blocks + 1, 0);
  for (const bool fill : {false, true}) {
    if (fill) {
      for (size_t b = 0; b < blocks; ++b) start_[b + 1] += start_[b];
      reaching_.resize(start_[blocks]);
      next.assign(start_.begin(), start_.end() - 1);
      std::fill(stamp.begin(), stamp.end(), -1);
    }
    for (int32_t bit = 0; bit < bits; ++bit) {
      if (!fill && steps > denseCost) {
        start_ = {};
        std::vector<int32_t>().swap(stamp);
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
        if (fill) reaching_[next[s]++] = bit;
        else ++start_[s + 1];
        if (!writesReg(s, r)) stack.push_back(s);
      };
      for (BlockId s : fn.blocks[home].successors) enter(s);
      while (!stack.empty()) {
        BlockId b = stack.back();
        stack.pop_back();
        for (BlockId s : fn.blocks[b].successors) enter(s);
      }
    }
  }
  defOfBit_ = std::move(defOfBit);
  tracked_ = true;
}

void ReachingDefinitions::buildDense(const FunctionModel& fn, const std::vector<std::vector<InstId>>& defs,
                                     const std::vector<std::vector<std::pair<ValueReg, InstId>>>& writes, int32_t bits) {
  const size_t blocks = fn.blocks.size();
  words_ = (static_cast<size_t>(bits) + 63) / 64;
  // out = gen | (in & ~kill), with gen and kill read off `writes` (a block
  // kills every definition of the registers it writes: consecutive numbers,
  // a range each; its gen is the last of them) rather than kept as two more
  // matrices of the matrix's size.
  std::vector<uint64_t> out(blocks * words_, 0), row(words_);
  auto set = [](uint64_t* m, int32_t bit) { m[bit / 64] |= uint64_t(1) << (bit % 64); };
  auto clear = [](uint64_t* m, size_t from, size_t to) {  // bits [from, to)
    for (size_t bit = from; bit < to;) {
      const size_t w = bit / 64, low = bit % 64, high = std::min<size_t>(64, low + (to - bit));
      const uint64_t mask = (high == 64 ? ~uint64_t(0) : (uint64_t(1) << high) - 1) & ~((uint64_t(1) << low) - 1);
      m[w] &= ~mask;
      bit += high - low;
    }
  };
  for (size_t b = 0; b < blocks; ++b)
    for (const auto& [r, last] : writes[b]) set(&out[b * words_], bitOf_[last]);
  // A register's definitions have consecutive numbers unless one of them also
  // defines another register numbered later (a vector or predicate pair
  // written at once): then its bits are cleared one by one.
  std::vector<char> consecutive(defs.size(), 0);
  for (size_t r = 0; r < defs.size(); ++r)
    if (defs[r].size() > 1) {
      consecutive[r] = 1;
      for (size_t k = 0; k < defs[r].size(); ++k)
        if (bitOf_[defs[r][k]] != bitOf_[defs[r].front()] + static_cast<int32_t>(k)) consecutive[r] = 0;
    }
  in_.assign(blocks * words_, 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < blocks; ++b) {
      model::poll();  // the function's time budget (model/Limits.h)
      uint64_t* in = &in_[b * words_];
      for (BlockId p : fn.blocks[b].predecessors)
        for (size_t w = 0; w < words_; ++w) in[w] |= out[p * words_ + w];
      std::copy(in, in + words_, row.begin());
      for (const auto& [r, last] : writes[b]) {
        if (consecutive[r]) {
          const auto first = static_cast<size_t>(bitOf_[defs[r].front()]);
          clear(row.data(), first, first + defs[r].size());
        } else {
          for (InstId d : defs[r]) clear(row.data(), bitOf_[d], bitOf_[d] + 1);
        }
      }
      for (const auto& [r, last] : writes[b]) set(row.data(), bitOf_[last]);
      for (size_t w = 0; w < words_; ++w)
        if (row[w] != out[b * words_ + w]) {
          out[b * words_ + w] = row[w];
          changed = true;
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
