// Block reachability (see BlockReachability.h): Tarjan's strongly connected
// components, iteratively (no recursion on deep CFGs), then one bit set per
// component. Tarjan numbers a component only after every component it
// reaches, so each component's successors have smaller numbers and one pass
// in increasing order builds all the sets.
#include "model/BlockReachability.h"

#include <algorithm>

namespace fenceline::model {
namespace {

// Bit-set words at most: 16 MiB (all sets of about 11,000 components).
constexpr size_t kMaxWords = size_t(1) << 21;

}  // namespace

BlockReachability::BlockReachability(const FunctionModel& fn) : fn_(fn) {
  const size_t blocks = fn.blocks.size();
  componentOf_.assign(blocks, -1);
  std::vector<int32_t> index(blocks, -1), low(blocks, 0);
  std::vector<char> onStack(blocks, 0);
  std::vector<BlockId> stack;
  struct Frame {
    BlockId block;
    size_t next;  // successor to visit next
  };
  std::vector<Frame> frames;
  int32_t counter = 0, components = 0;
  for (BlockId root = 0; root < static_cast<BlockId>(blocks); ++root) {
    if (index[root] >= 0) continue;
    frames.push_back({root, 0});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    onStack[root] = 1;
    while (!frames.empty()) {
      model::poll();
      Frame& f = frames.back();
      const auto& succ = fn.blocks[f.block].successors;
      if (f.next < succ.size()) {
        BlockId s = succ[f.next++];
        if (s < 0 || static_cast<size_t>(s) >= blocks) continue;
        if (index[s] < 0) {
          index[s] = low[s] = counter++;
          stack.push_back(s);
          onStack[s] = 1;
          frames.push_back({s, 0});
        } else if (onStack[s]) {
          low[f.block] = std::min(low[f.block], index[s]);
        }
        continue;
      }
      const BlockId b = f.block;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().block] = std::min(low[frames.back().block], low[b]);
      if (low[b] != index[b]) continue;
      for (BlockId m = -1; m != b;) {
        m = stack.back();
        stack.pop_back();
        onStack[m] = 0;
        componentOf_[m] = components;
      }
      ++components;
    }
  }
  cyclic_.assign(components, 0);
  successors_.assign(components, {});
  std::vector<int32_t> size(components, 0);
  for (BlockId b = 0; b < static_cast<BlockId>(blocks); ++b) ++size[componentOf_[b]];
  for (BlockId b = 0; b < static_cast<BlockId>(blocks); ++b) {
    const int32_t c = componentOf_[b];
    if (size[c] > 1) cyclic_[c] = 1;
    for (BlockId s : fn.blocks[b].successors) {
      if (s < 0 || static_cast<size_t>(s) >= blocks) continue;
      if (componentOf_[s] == c) cyclic_[c] = 1;  // a self edge, or an edge inside the component
      else successors_[c].push_back(componentOf_[s]);
    }
  }
  for (auto& s : successors_) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  words_ = (static_cast<size_t>(components) + 63) / 64;
  if (words_ * static_cast<size_t>(components) > kMaxWords) return;  // walks, see reaches
  closure_.assign(components, {});
  for (int32_t c = 0; c < components; ++c) {
    std::vector<uint64_t>& set = closure_[c];
    set.assign(words_, 0);
    if (cyclic_[c]) set[c / 64] |= uint64_t(1) << (c % 64);
    for (int32_t s : successors_[c]) {  // s < c: already built
      set[s / 64] |= uint64_t(1) << (s % 64);
      const std::vector<uint64_t>& below = closure_[s];
      for (size_t w = 0; w < words_; ++w) set[w] |= below[w];
    }
  }
}

bool BlockReachability::bit(const std::vector<uint64_t>& set, size_t component) const {
  return (set[component / 64] >> (component % 64)) & 1;
}

bool BlockReachability::walkReaches(int32_t from, int32_t to) const {
  std::vector<char> seen(successors_.size(), 0);
  std::vector<int32_t> queue(successors_[from].begin(), successors_[from].end());
  for (size_t head = 0; head < queue.size(); ++head) {
    const int32_t c = queue[head];
    if (c == to) return true;
    if (seen[c]) continue;
    seen[c] = 1;
    for (int32_t s : successors_[c])
      if (s >= to && !seen[s]) queue.push_back(s);  // smaller numbers cannot lead back up to `to`
  }
  return false;
}

bool BlockReachability::reaches(BlockId from, BlockId to) const {
  if (from < 0 || to < 0 || static_cast<size_t>(from) >= componentOf_.size() ||
      static_cast<size_t>(to) >= componentOf_.size())
    return false;
  const int32_t a = componentOf_[from], b = componentOf_[to];
  if (a < b) return false;  // components reach only smaller numbers (and themselves)
  if (a == b) return cyclic_[a] != 0;
  return closure_.empty() ? walkReaches(a, b) : bit(closure_[a], b);
}

}  // namespace fenceline::model
