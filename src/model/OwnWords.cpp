// Which threads write the word a thread reads (see OwnWords.h).
#include "model/OwnWords.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>

#include "model/BranchEdges.h"
#include "model/Limits.h"
#include "model/Memory.h"
#include "model/Operands.h"
#include "model/ThreadDecidedBranches.h"
#include "model/Values.h"

namespace fenceline::model {

namespace {

using Term = AbstractValue::Term;

constexpr int kMostSteps = 256;

bool isThreadRegister(std::string_view name) {
  return name.starts_with("%tid") || name == "%laneid" || name == "%warpid";
}

// Whether the value instruction `d` writes is computed from no thread index:
// every instruction its operands (address operands included: a value loaded
// at `in[tid]` is the thread's own) come from reads none. Nothing when the
// walk is too long to tell.
std::optional<bool> freeOfThreadIndex(const FunctionModel& fn, InstId d) {
  std::vector<InstId> work{d}, seen;
  int steps = 0;
  while (!work.empty()) {
    const InstId i = work.back();
    work.pop_back();
    if (std::find(seen.begin(), seen.end(), i) != seen.end()) continue;
    if (++steps > kMostSteps) return std::nullopt;
    seen.push_back(i);
    const Inst& in = fn.instructions[i];
    for (const ptx::Operand& op : in.operands)
      if (op.kind == ptx::Operand::Kind::Special && isThreadRegister(op.text)) return false;
    const RegisterUse use = registerUse(in);
    for (const auto* regs : {&use.read, &use.addressed})
      for (ValueReg r : *regs)
        for (InstId def : fn.values->reachingDefinitions(r, i)) work.push_back(def);
  }
  return true;
}

// An address as a function of the thread index within one block: the terms
// every thread of the block shares (compared, never evaluated) and the
// thread-index terms, each with its evaluation.
struct ThreadAddress {
  AbstractValue shared;  // base, constant and shared terms
  std::vector<std::pair<int64_t, ThreadValue>> evaluated;  // coefficient, value
  std::vector<std::pair<int64_t, int>> indices;            // coefficient, %tid dimension

  std::optional<int64_t> at(int64_t x, int64_t y, int64_t z) const {
    const int64_t t[3] = {x, y, z};
    int64_t offset = shared.constant;
    for (const auto& [coefficient, dimension] : indices) offset += coefficient * t[dimension];
    for (const auto& [coefficient, value] : evaluated) {
      const std::optional<uint64_t> v = value(x, y, z);
      if (!v) return std::nullopt;
      offset += coefficient * static_cast<int64_t>(*v);
    }
    return offset;
  }
};

std::optional<ThreadAddress> threadAddress(const FunctionModel& fn, InstId access) {
  const int operand = fn.instructions[access].effect.address;
  if (operand < 0 || !fn.values) return std::nullopt;
  const AbstractValue v = fn.values->operandValue(access, operand);
  if (!v.known || !v.alternatives.empty()) return std::nullopt;
  ThreadAddress out;
  out.shared = v;
  out.shared.terms.clear();
  for (const Term& t : v.terms) {
    if (t.name.size() == 6 && t.name.starts_with("%tid.") && t.name[5] >= 'x' && t.name[5] <= 'z') {
      out.indices.emplace_back(t.coefficient, t.name[5] - 'x');
      continue;
    }
    if (isThreadRegister(t.name)) return std::nullopt;  // %laneid: the block's shape decides it
    if (t.name.starts_with("%") || t.name.starts_with("param:")) {
      out.shared.terms.push_back(t);  // the block's position, the launch, a parameter
      continue;
    }
    const InstId d = fn.termDefinition(t.name);
    if (d < 0) return std::nullopt;  // a loop counter, a join: not decided here
    const std::optional<bool> free = freeOfThreadIndex(fn, d);
    if (!free) return std::nullopt;
    if (*free) {
      out.shared.terms.push_back(t);
      continue;
    }
    ThreadValue value(fn, d);
    if (!value(0, 0, 0)) return std::nullopt;
    out.evaluated.emplace_back(t.coefficient, std::move(value));
  }
  return out;
}

bool sameShared(const AbstractValue& a, const AbstractValue& b) {
  return a.baseKind == b.baseKind && a.base == b.base && a.space == b.space &&
         std::ranges::equal(a.terms, b.terms, [](const Term& x, const Term& y) {
           return x.name == y.name && x.coefficient == y.coefficient;
         });
}

// The guards' value for a thread: false when some guard decidedly excludes it.
class GuardSet {
 public:
  GuardSet(const FunctionModel& fn, InstId inst) {
    for (const ThreadGuard& g : guardsOf(fn, inst)) {
      predicates_.emplace_back(fn, g.predicate, g.at);
      values_.push_back(g.value);
    }
  }
  bool mayRun(int64_t x, int64_t y, int64_t z) const {
    for (size_t k = 0; k < predicates_.size(); ++k)
      if (const std::optional<bool> v = predicates_[k](x, y, z); v && *v != values_[k]) return false;
    return true;
  }

 private:
  std::vector<ThreadPredicate> predicates_;
  std::vector<bool> values_;
};

// The thread indices of the blocks the function declares: each dimension of
// %tid up to its declared range (one wide where the function never reads it),
// at most `threads` in all ((x + 1)(y + 1)(z + 1) <= threads).
struct BlockShape {
  int64_t extent[3] = {1, 1, 1};
  int64_t threads = 1024;

  template <typename Visit>
  bool forEachThread(const Visit& visit) const {
    for (int64_t z = 0; z < extent[2] && z + 1 <= threads; ++z)
      for (int64_t y = 0; y < extent[1] && (y + 1) * (z + 1) <= threads; ++y)
        for (int64_t x = 0; x < extent[0] && (x + 1) * (y + 1) * (z + 1) <= threads; ++x) {
          poll();
          if (!visit(x, y, z)) return false;
        }
    return true;
  }
};

std::optional<BlockShape> declaredShape(const FunctionModel& fn) {
  bool reads[3] = {false, false, false};
  for (const Inst& in : fn.instructions)
    for (const ptx::Operand& op : in.operands)
      if (op.kind == ptx::Operand::Kind::Special && op.text.size() == 6 && op.text.starts_with("%tid.") &&
          op.text[5] >= 'x' && op.text[5] <= 'z')
        reads[op.text[5] - 'x'] = true;
  BlockShape shape;
  // .reqntid and .maxntid bound the block's threads in all.
  if (fn.function)
    for (const auto& [directive, sizes] : fn.function->performanceDirectives)
      if ((directive == ".reqntid" || directive == ".maxntid") && !sizes.empty()) {
        int64_t product = 1;
        for (int64_t size : sizes) product *= std::clamp<int64_t>(size, 1, 1024);
        shape.threads = std::min<int64_t>(product, 1024);
      }
  for (int k = 0; k < 3; ++k) {
    if (!reads[k]) continue;
    const auto [low, high] = specialRegisterRange(std::string("%tid.") + char('x' + k), fn.function);
    if (low != 0 || high < 0 || high >= 1024) return std::nullopt;
    shape.extent[k] = high + 1;
  }
  return shape;
}

}  // namespace

std::vector<ThreadGuard> guardsOf(const FunctionModel& fn, InstId inst) {
  std::vector<ThreadGuard> guards;
  const auto& own = fn.instructions[inst].guard;
  if (own && own->reg >= 0) guards.push_back({inst, own->reg, !own->negated});
  const BlockId home = fn.blockOf[inst];
  for (BlockId b = 0; b < static_cast<BlockId>(fn.blocks.size()); ++b) {
    const InstId br = conditionalBranch(fn, b);
    if (br < 0 || fn.instructions[br].guard->reg < 0) continue;
    const auto& g = fn.instructions[br].guard;
    for (bool value : {true, false}) {
      const BlockId s = branchTarget(fn, br, value);
      if (s < 0 || s == branchTarget(fn, br, !value) || fn.blocks[s].predecessors.size() != 1 ||
          !fn.dominates(s, home))
        continue;
      bool exit = false;
      for (int32_t l = b < static_cast<BlockId>(fn.loopOf.size()) ? fn.loopOf[b] : -1; l >= 0 && !exit;
           l = fn.loops[l].parent)
        exit = !std::binary_search(fn.loops[l].blocks.begin(), fn.loops[l].blocks.end(), s);
      if (!exit) guards.push_back({br, g->reg, g->negated ? !value : value});
    }
  }
  return guards;
}

bool readsOnlyOwnWrites(const FunctionModel& fn, InstId write, InstId read) {
  if (!fn.memory || !fn.values) return false;
  const std::optional<BlockShape> shape = declaredShape(fn);
  if (!shape) return false;
  const std::optional<ThreadAddress> w = threadAddress(fn, write), r = threadAddress(fn, read);
  if (!w || !r || !sameShared(w->shared, r->shared)) return false;
  const int64_t writeSize = fn.memory->accessSize(write, fn.instructions[write].effect.address);
  const int64_t readSize = fn.memory->accessSize(read, fn.instructions[read].effect.address);
  if (writeSize <= 0 || readSize <= 0) return false;
  const GuardSet writes(fn, write), reads(fn, read);
  // The first byte each thread that may write writes, and which threads write there.
  std::map<int64_t, std::vector<int64_t>> writers;
  auto id = [](int64_t x, int64_t y, int64_t z) { return x + 1024 * (y + 1024 * z); };
  const bool evaluated = shape->forEachThread([&](int64_t x, int64_t y, int64_t z) {
    if (!writes.mayRun(x, y, z)) return true;
    const std::optional<int64_t> at = w->at(x, y, z);
    if (at) writers[*at].push_back(id(x, y, z));
    return at.has_value();
  });
  if (!evaluated) return false;
  bool anyReader = false;
  const bool own = shape->forEachThread([&](int64_t x, int64_t y, int64_t z) {
    if (!reads.mayRun(x, y, z)) return true;
    const std::optional<int64_t> at = r->at(x, y, z);
    if (!at) return false;
    anyReader = true;
    // Writes of [o, o + writeSize) that overlap [at, at + readSize): the reader's own only.
    for (auto it = writers.lower_bound(*at - writeSize + 1); it != writers.end() && it->first < *at + readSize; ++it)
      for (int64_t writer : it->second)
        if (writer != id(x, y, z)) return false;
    return true;
  });
  if (!own) return false;
  return anyReader;
}

}  // namespace fenceline::model
