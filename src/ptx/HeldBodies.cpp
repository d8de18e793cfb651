// See HeldBodies.h.
#include "ptx/HeldBodies.h"

#include <algorithm>

namespace fenceline::ptx {

HeldBodies::HeldBodies(ModuleReader& reader, int maxCallDepth, size_t cachedTextBytes)
    : reader_(reader), maxCallDepth_(maxCallDepth) {
  size_t largest = 0;
  for (size_t i = 0; i < reader_.module().functions.size(); ++i) largest = std::max(largest, reader_.textBytes(i));
  cachedTextBytes_ = std::min(cachedTextBytes, largest);
}

void HeldBodies::hold(size_t index) {
  const Module& module = reader_.module();
  if (inHold_.size() != module.functions.size()) {
    inHold_.assign(module.functions.size(), false);
    inCache_.assign(module.functions.size(), cache_.end());
    uses_.assign(module.functions.size(), 0);
  }
  // Breadth first, so that each body is reached at its smallest call depth:
  // the inliner reads a callee at depth d only when d <= maxCallDepth.
  std::vector<size_t> frontier{index};
  use(index);
  for (int depth = 1; depth <= maxCallDepth_ && !frontier.empty(); ++depth) {
    std::vector<size_t> next;
    for (size_t caller : frontier) {
      for (const Instruction& inst : module.functions[caller].instructions) {
        if (inst.opcode != "call") continue;
        for (const Operand& op : inst.operands) {
          if (op.kind != Operand::Kind::Symbol) continue;
          auto callee = module.functionIndex.find(op.text);
          if (callee == module.functionIndex.end() || inHold_[callee->second]) continue;
          use(callee->second);
          next.push_back(callee->second);
        }
      }
    }
    frontier = std::move(next);
  }
}

void HeldBodies::use(size_t index) {
  if (uses_[index] < 2) ++uses_[index];
  if (inCache_[index] != cache_.end()) {
    cacheSize_ -= reader_.textBytes(index);
    cache_.erase(inCache_[index]);
    inCache_[index] = cache_.end();
  }
  reader_.load(index);
  held_.push_back(index);
  inHold_[index] = true;
}

void HeldBodies::release() {
  const Module& module = reader_.module();
  for (size_t index : held_) {
    inHold_[index] = false;
    const Function& function = module.functions[index];
    const size_t bytes = reader_.textBytes(index);
    if (function.isEntry || uses_[index] < 2 || bytes > cachedTextBytes_) {
      reader_.release(index);
      continue;
    }
    cache_.push_front(index);
    inCache_[index] = cache_.begin();
    cacheSize_ += bytes;
  }
  held_.clear();
  evict();
}

void HeldBodies::evict() {
  while (cacheSize_ > cachedTextBytes_ && !cache_.empty()) {
    size_t index = cache_.back();
    cache_.pop_back();
    inCache_[index] = cache_.end();
    cacheSize_ -= reader_.textBytes(index);
    reader_.release(index);
  }
}

}  // namespace fenceline::ptx
