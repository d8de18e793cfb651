// Reaching definitions over basic blocks: out = gen | (in & ~kill), iterated
// in reverse postorder until nothing changes. Only definitions of registers
// with several definitions get a bit.
#include "model/ReachingDefinitions.h"

#include <algorithm>

namespace fenceline::model {
namespace {
constexpr size_t kMaxWords = 1 << 20;       // per bit matrix (8 MiB)
constexpr size_t kMaxKillWork = 1 << 26;    // bits set while building kill masks
}  // namespace

ReachingDefinitions::ReachingDefinitions(const FunctionModel& fn, const std::vector<std::vector<InstId>>& defs) {
  const size_t n = fn.instructions.size();
  const size_t blocks = fn.blocks.size();
  bitOf_.assign(n, -1);
  int32_t bits = 0;
  std::vector<ValueReg> regOfBit;
  for (size_t r = 0; r < defs.size(); ++r)
    if (defs[r].size() > 1)
      for (InstId d : defs[r]) {
        bitOf_[d] = bits++;
        regOfBit.push_back(static_cast<ValueReg>(r));
      }
  words_ = (static_cast<size_t>(bits) + 63) / 64;
  if (bits == 0 || blocks * words_ > kMaxWords) {
    words_ = 0;
    return;
  }
  std::vector<uint64_t> gen(blocks * words_, 0), kill(blocks * words_, 0), out(blocks * words_, 0);
  auto set = [&](std::vector<uint64_t>& m, size_t b, int32_t bit) { m[b * words_ + bit / 64] |= uint64_t(1) << (bit % 64); };
  size_t work = 0;
  for (size_t b = 0; b < blocks; ++b) {
    // gen: the last definition of each register in the block; kill: all definitions of those registers.
    std::vector<ValueReg> seen;
    for (InstId i = fn.blocks[b].last - 1; i >= fn.blocks[b].first; --i) {
      int32_t bit = bitOf_[i];
      if (bit < 0) continue;
      ValueReg r = regOfBit[bit];
      if (std::find(seen.begin(), seen.end(), r) != seen.end()) continue;
      seen.push_back(r);
      set(gen, b, bit);
      for (InstId d : defs[r]) set(kill, b, bitOf_[d]);
      work += defs[r].size();
    }
    if (work > kMaxKillWork) {
      words_ = 0;
      return;
    }
  }
  for (size_t b = 0; b < blocks; ++b)
    for (size_t w = 0; w < words_; ++w) out[b * words_ + w] = gen[b * words_ + w];
  in_.assign(blocks * words_, 0);
  for (bool changed = true; changed;) {
    model::poll();
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
}

bool ReachingDefinitions::reachesEntry(InstId def, BlockId block) const {
  if (words_ == 0 || in_.empty() || def < 0 || static_cast<size_t>(def) >= bitOf_.size()) return true;
  int32_t bit = bitOf_[def];
  if (bit < 0 || block < 0) return true;
  return (in_[block * words_ + bit / 64] >> (bit % 64)) & 1;
}

}  // namespace fenceline::model
