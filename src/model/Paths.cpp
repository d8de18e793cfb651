// Path queries: breadth-first walks over basic blocks, scanning instructions in
// program order (forward) or reverse order (backward). A visitor decides per
// instruction whether the walk goes on, cuts the current path, or ends. Each
// block is entered at most once per walk; the start block may be entered a
// second time from its top when a loop leads back to it.
#include "model/Paths.h"

#include "model/BlockReachability.h"
#include "model/BranchEdges.h"
#include "model/Operands.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>

namespace fenceline::model {
namespace {

enum class Step { Continue, Cut, Done };

bool valid(const FunctionModel& fn, InstId inst) {
  return inst >= 0 && static_cast<size_t>(inst) < fn.instructions.size() &&
         static_cast<size_t>(inst) < fn.blockOf.size() && fn.blockOf[inst] >= 0;
}

// Scans [begin, end) forward, or (begin, end] backward when step is -1.
template <class Visit>
Step scan(InstId begin, InstId end, int direction, Visit& visit) {
  if (direction > 0) {
    for (InstId i = begin; i < end; ++i)
      if (Step s = visit(i); s != Step::Continue) return s;
  } else {
    for (InstId i = begin; i >= end; --i)
      if (Step s = visit(i); s != Step::Continue) return s;
  }
  return Step::Continue;
}

// The block-level walk: `segment(block, entered)` visits a block (entered
// false: the start block, from after the start instruction) and says whether
// the walk goes on past it, cuts there, or ends.
template <class Segment>
void walkBlocks(const FunctionModel& fn, InstId start, int direction, Segment segment) {
  if (!valid(fn, start)) return;
  std::vector<char> seen(fn.blocks.size(), 0);
  std::vector<BlockId> queue;
  auto enqueueNext = [&](BlockId b) {
    const auto& next = direction > 0 ? fn.blocks[b].successors : fn.blocks[b].predecessors;
    for (BlockId n : next)
      if (n >= 0 && !seen[n]) {
        seen[n] = 1;
        queue.push_back(n);
      }
  };
  BlockId first = fn.blockOf[start];
  Step s = segment(first, false);
  if (s == Step::Done) return;
  if (s == Step::Continue) enqueueNext(first);
  for (size_t head = 0; head < queue.size(); ++head) {
    model::poll();  // the function's time budget (model/Limits.h): checks walk paths too
    s = segment(queue[head], true);
    if (s == Step::Done) return;
    if (s == Step::Continue) enqueueNext(queue[head]);
  }
}

// `blocks` (optional): the walk cuts at a block that is not live, one that
// holds no target and leads to none in `direction` (TargetBlocks). The blocks
// it enters keep their breadth-first order: none is entered only through a
// cut one.
template <class Visit>
void walk(const FunctionModel& fn, InstId start, int direction, Visit visit, const TargetBlocks* blocks = nullptr) {
  walkBlocks(fn, start, direction, [&](BlockId b, bool entered) {
    if (blocks && !blocks->live(b)) return Step::Cut;
    const BasicBlock& bb = fn.blocks[b];
    if (direction > 0) return scan(entered ? bb.first : start + 1, bb.last, 1, visit);
    return scan(entered ? bb.last - 1 : start - 1, bb.first, -1, visit);
  });
}

// Every instruction satisfying `target` reached from `start` in `direction`
// without crossing `stop` (the walk does not continue past a target), sorted;
// the walk ends once `limit` targets are found (the nearest ones, breadth first).
std::vector<InstId> collectTargets(const FunctionModel& fn, InstId start, int direction,
                                   const std::function<bool(InstId)>& target,
                                   const std::function<bool(InstId)>& stop, size_t limit = SIZE_MAX,
                                   const TargetBlocks* blocks = nullptr) {
  std::vector<InstId> found;
  walk(
      fn, start, direction,
      [&](InstId i) {
        if (target(i)) {
          found.push_back(i);
          return found.size() >= limit ? Step::Done : Step::Cut;
        }
        return stop(i) ? Step::Cut : Step::Continue;
      },
      blocks);
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

}  // namespace

bool reachable(const FunctionModel& fn, InstId from, InstId to) {
  if (!valid(fn, to)) return false;
  // The walk below in constant time: `to` later in `from`'s block, or its
  // block entered from the top after `from`.
  if (fn.reachability && valid(fn, from)) {
    const BlockId a = fn.blockOf[from], b = fn.blockOf[to];
    return (a == b && from < to) || fn.reachability->reaches(a, b);
  }
  bool found = false;
  walk(fn, from, 1, [&](InstId i) {
    if (i != to) return Step::Continue;
    found = true;
    return Step::Done;
  });
  return found;
}

bool everyPathPasses(const FunctionModel& fn, InstId from, InstId to,
                     const std::function<bool(InstId)>& stop) {
  if (!valid(fn, to)) return true;
  // Both in one block, `to` after `from`: every path from `from` leaves the
  // block at its end, after `to`, so it meets `to` first on the straight
  // segment between them. That segment decides.
  if (valid(fn, from) && fn.blockOf[from] == fn.blockOf[to] && from < to) {
    for (InstId i = from + 1; i < to; ++i)
      if (stop(i)) return true;
    return false;
  }
  bool escaped = false;
  walk(fn, from, 1, [&](InstId i) {
    if (i == to) {
      escaped = true;
      return Step::Done;
    }
    return stop(i) ? Step::Cut : Step::Continue;
  });
  return !escaped;
}

// One segment [begin, end) of a block, in program order: it reaches `to`
// (Done) unless a stop comes first (Cut); or it ends (Continue). `stop` is
// asked only at the instructions of `mayStop` (sorted).
static Step segmentTo(InstId to, const std::function<bool(InstId)>& stop, const std::vector<InstId>& mayStop,
                      InstId begin, InstId end) {
  const bool holdsTo = begin <= to && to < end;
  const InstId last = holdsTo ? to : end;
  for (auto c = std::lower_bound(mayStop.begin(), mayStop.end(), begin); c != mayStop.end() && *c < last; ++c)
    if (stop(*c)) return Step::Cut;
  return holdsTo ? Step::Done : Step::Continue;
}

bool everyPathPasses(const FunctionModel& fn, InstId from, InstId to,
                     const std::function<bool(InstId)>& stop, const std::vector<InstId>& mayStop) {
  if (!valid(fn, to) || !valid(fn, from)) return everyPathPasses(fn, from, to, stop);
  auto segment = [&](InstId begin, InstId end) { return segmentTo(to, stop, mayStop, begin, end); };
  if (fn.blockOf[from] == fn.blockOf[to] && from < to) return segment(from + 1, to + 1) == Step::Cut;
  bool escaped = false;
  walkBlocks(fn, from, 1, [&](BlockId b, bool entered) {
    const Step s = segment(entered ? fn.blocks[b].first : from + 1, fn.blocks[b].last);
    escaped |= s == Step::Done;
    return s;
  });
  return !escaped;
}

bool everyConsistentPathPasses(const FunctionModel& fn, InstId from, InstId to,
                               const std::function<bool(InstId)>& stop, const std::vector<InstId>& mayStop,
                               size_t maxStates) {
  if (!valid(fn, to) || !valid(fn, from)) return everyPathPasses(fn, from, to, stop);
  auto segment = [&](InstId begin, InstId end) { return segmentTo(to, stop, mayStop, begin, end); };
  if (fn.blockOf[from] == fn.blockOf[to] && from < to) return segment(from + 1, to + 1) == Step::Cut;
  // Fixed predicates: (register, value), sorted by register. Only a predicate
  // that guards two conditional branches or more can make a path inconsistent;
  // the others are not kept (they would only multiply the states).
  std::vector<ValueReg> shared;
  {
    std::vector<ValueReg> guards;
    for (BlockId b = 0; b < static_cast<BlockId>(fn.blocks.size()); ++b)
      if (const InstId br = conditionalBranch(fn, b); br >= 0 && fn.instructions[br].guard->reg >= 0)
        guards.push_back(fn.instructions[br].guard->reg);
    std::sort(guards.begin(), guards.end());
    for (size_t k = 1; k < guards.size(); ++k)
      if (guards[k] == guards[k - 1] && (shared.empty() || shared.back() != guards[k])) shared.push_back(guards[k]);
  }
  using Fixed = std::vector<std::pair<ValueReg, bool>>;
  std::set<std::pair<BlockId, Fixed>> seen;
  std::vector<std::pair<BlockId, Fixed>> work;
  // The block's instructions from `begin` on drop the predicates they write;
  // then its successors, on the edges its fixed predicates allow.
  auto leave = [&](BlockId b, InstId begin, Fixed fixed) {
    for (InstId i = begin; i < fn.blocks[b].last && !fixed.empty(); ++i)
      for (ValueReg r : writtenRegisters(fn.instructions[i]))
        std::erase_if(fixed, [&](const auto& f) { return f.first == r; });
    const InstId br = conditionalBranch(fn, b);
    std::optional<bool> known;
    ValueReg guard = -1;
    if (br >= 0 && std::binary_search(shared.begin(), shared.end(), fn.instructions[br].guard->reg)) {
      guard = fn.instructions[br].guard->reg;
      for (const auto& [r, v] : fixed)
        if (r == guard) known = v;
    }
    for (BlockId s : fn.blocks[b].successors) {
      Fixed next = fixed;
      if (guard >= 0 && branchTarget(fn, br, true) != branchTarget(fn, br, false)) {
        const bool value = s == branchTarget(fn, br, true);
        if (known && *known != value) continue;
        if (!known) next.insert(std::upper_bound(next.begin(), next.end(), std::make_pair(guard, value)),
                                {guard, value});
      }
      if (seen.size() >= maxStates) return false;
      if (seen.emplace(s, next).second) work.emplace_back(s, std::move(next));
    }
    return true;
  };
  if (segment(from + 1, fn.blocks[fn.blockOf[from]].last) == Step::Cut) return true;
  if (!leave(fn.blockOf[from], from + 1, {})) return false;
  for (size_t k = 0; k < work.size(); ++k) {
    poll();
    const auto [b, fixed] = work[k];
    const Step s = segment(fn.blocks[b].first, fn.blocks[b].last);
    if (s == Step::Done) return false;
    if (s == Step::Cut) continue;
    if (!leave(b, fn.blocks[b].first, fixed)) return false;
  }
  return true;
}

InstId findReachable(const FunctionModel& fn, InstId from,
                     const std::function<bool(InstId)>& target,
                     const std::function<bool(InstId)>& stop) {
  InstId found = -1;
  walk(fn, from, 1, [&](InstId i) {
    if (target(i)) {
      found = i;
      return Step::Done;
    }
    return stop(i) ? Step::Cut : Step::Continue;
  });
  return found;
}

InstId findReachable(const FunctionModel& fn, InstId from, const std::function<bool(InstId)>& target,
                     const std::function<bool(InstId)>& stop, const std::vector<InstId>& mayTarget,
                     const std::vector<InstId>& mayStop) {
  InstId found = -1;
  // One segment [begin, end) of a block in program order: the candidates of
  // both lists in it, merged; a target before a stop at one instruction.
  auto segment = [&](InstId begin, InstId end) {
    auto t = std::lower_bound(mayTarget.begin(), mayTarget.end(), begin);
    auto s = std::lower_bound(mayStop.begin(), mayStop.end(), begin);
    while (true) {
      const InstId nextTarget = t != mayTarget.end() && *t < end ? *t : end;
      const InstId nextStop = s != mayStop.end() && *s < end ? *s : end;
      const InstId i = std::min(nextTarget, nextStop);
      if (i >= end) return Step::Continue;
      if (i == nextTarget) {
        ++t;
        if (target(i)) {
          found = i;
          return Step::Done;
        }
      }
      if (i == nextStop) {
        ++s;
        if (stop(i)) return Step::Cut;
      }
    }
  };
  walkBlocks(fn, from, 1, [&](BlockId b, bool entered) {
    return segment(entered ? fn.blocks[b].first : from + 1, fn.blocks[b].last);
  });
  return found;
}

std::vector<InstId> findAllReachable(const FunctionModel& fn, InstId from,
                                     const std::function<bool(InstId)>& target,
                                     const std::function<bool(InstId)>& stop, size_t limit) {
  return collectTargets(fn, from, 1, target, stop, limit);
}

std::vector<InstId> findReachingBackward(const FunctionModel& fn, InstId to,
                                         const std::function<bool(InstId)>& target,
                                         const std::function<bool(InstId)>& stop) {
  return collectTargets(fn, to, -1, target, stop);
}

std::vector<InstId> findReachingBackward(const FunctionModel& fn, InstId to,
                                         const std::function<bool(InstId)>& target,
                                         const std::function<bool(InstId)>& stop,
                                         const std::vector<InstId>& mayTarget, const std::vector<InstId>& mayStop) {
  std::vector<InstId> found;
  // One segment [low, high] of a block in reverse program order: the
  // candidates of both lists in it, merged; a target before a stop at one
  // instruction (collectTargets' order).
  auto segment = [&](InstId high, InstId low) {
    auto t = std::upper_bound(mayTarget.begin(), mayTarget.end(), high);
    auto s = std::upper_bound(mayStop.begin(), mayStop.end(), high);
    while (true) {
      const InstId nextTarget = t != mayTarget.begin() && *(t - 1) >= low ? *(t - 1) : low - 1;
      const InstId nextStop = s != mayStop.begin() && *(s - 1) >= low ? *(s - 1) : low - 1;
      const InstId i = std::max(nextTarget, nextStop);
      if (i < low) return Step::Continue;
      if (i == nextTarget) {
        --t;
        if (target(i)) {
          found.push_back(i);
          return Step::Cut;
        }
      }
      if (i == nextStop) {
        --s;
        if (stop(i)) return Step::Cut;
      }
    }
  };
  walkBlocks(fn, to, -1, [&](BlockId b, bool entered) {
    return segment(entered ? fn.blocks[b].last - 1 : to - 1, fn.blocks[b].first);
  });
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

TargetBlocks::TargetBlocks(const FunctionModel& fn, const std::vector<InstId>& targets, int direction)
    : live_(fn.blocks.size(), 0) {
  std::vector<BlockId> work;
  for (InstId t : targets) {
    if (!valid(fn, t)) continue;
    const BlockId b = fn.blockOf[t];
    if (!live_[b]) {
      live_[b] = 1;
      work.push_back(b);
    }
  }
  while (!work.empty()) {
    model::poll();
    const BlockId b = work.back();
    work.pop_back();
    for (BlockId s : direction > 0 ? fn.blocks[b].successors : fn.blocks[b].predecessors)
      if (s >= 0 && !live_[s]) {
        live_[s] = 1;
        work.push_back(s);
      }
  }
}

std::vector<InstId> findAllReachable(const FunctionModel& fn, InstId from, const std::function<bool(InstId)>& target,
                                     const std::function<bool(InstId)>& stop, size_t limit, const TargetBlocks& blocks) {
  return collectTargets(fn, from, 1, target, stop, limit, &blocks);
}

std::vector<InstId> findReachingBackward(const FunctionModel& fn, InstId to,
                                         const std::function<bool(InstId)>& target,
                                         const std::function<bool(InstId)>& stop, const TargetBlocks& blocks) {
  return collectTargets(fn, to, -1, target, stop, SIZE_MAX, &blocks);
}

}  // namespace fenceline::model
