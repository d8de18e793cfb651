// The value analysis: what a register holds where it is used, as an
// AbstractValue. PTX registers may be assigned several times, so a use reads
// the nearest earlier definition in its block when there is one, and
// otherwise the join of all definitions of the register (flow-insensitive).
// A register whose definitions depend on itself (a loop counter, a pointer
// bumped each iteration) becomes "initial value + loop:<reg>". Everything is
// computed on demand and memoized, so a query costs little more than the
// definitions it reads.
//
// Inlined parameters and return values read through Inst::boundStore.
//
// Bounded loop counters: a register assigned in a loop from its own previous
// value (a stage index `s = s + 1 == N ? 0 : s + 1`, `(s + 1) % N`, a phase
// bit `p ^= 1`) gets a range by guess and verify: assume the range of its
// initial values, evaluate the update under that assumption (selp and guarded
// moves refine their operands by the predicate that selects them, a value
// that leaves its block along one branch edge only by that branch's
// predicate), widen to
// the next comparison constant while the update leaves the range, and accept
// the first range the update maps into itself (an inductive invariant).
#include "model/Values.h"

#include <algorithm>
#include <cstddef>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <deque>

#include <fmt/format.h>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "model/BranchEdges.h"
#include "model/Comparisons.h"
#include "model/IntegerDivision.h"
#include "model/Operands.h"
#include "model/PairMap.h"
#include "model/ReachingDefinitions.h"
#include "model/ValueAlgebra.h"
#include "model/ValueIdentity.h"

namespace fenceline::model {

using values::add;
using values::constant;
using values::join;
using values::scale;
using values::subtract;
using values::term;
using Kind = ptx::Operand::Kind;
using BaseKind = AbstractValue::BaseKind;

namespace {

// Special registers and their ranges.
struct SpecialRange {
  std::string_view prefix;
  int64_t low, high;
};
constexpr SpecialRange kSpecials[] = {
    {"%tid.x", 0, 1023},      {"%tid.y", 0, 1023},   {"%tid.z", 0, 63},          {"%laneid", 0, 31},
    {"%warpid", 0, 1023},     {"%ntid", 1, 1024},    {"%ctaid", 0, INT32_MAX},   {"%nctaid", 1, INT32_MAX},
    // A cluster holds at most 16 CTAs (the non-portable maximum; 8 portable).
    {"%cluster_ctarank", 0, 15}, {"%clusterid", 0, INT32_MAX}, {"%cluster_ctaid", 0, 15},
    {"%cluster_nctarank", 1, 16}, {"%smid", 0, 1023}, {"%nwarpid", 1, 1024},
};

// The most threads per block along one axis that the kernel declares
// (.reqntid / .maxntid), or 0 when it declares none; `exact` when %ntid of
// that axis is that number (.reqntid only: .maxntid is an upper bound, and a
// launch may use fewer threads than it allows, in any shape).
// .maxntid bounds the number of threads of the block, the product of its
// extents: nvcc writes __launch_bounds__(320) as `.maxntid 320, 1, 1`, and a
// block of 32 x 10 threads may run it (cuBLAS's symv_tma_ws_kernel declares
// `.maxntid 320` and requires %ntid.y == 10). So the y and z indices are
// bounded by that product, not by 1.
struct DeclaredThreads {
  int64_t threads = 0;
  bool exact = true;
};
DeclaredThreads declaredThreads(const ptx::Function* function, char axis) {
  if (!function) return {};
  const size_t index = axis == 'x' ? 0 : axis == 'y' ? 1 : 2;
  for (const auto& [directive, sizes] : function->performanceDirectives)
    if ((directive == ".reqntid" || directive == ".maxntid") && !sizes.empty()) {
      if (directive == ".maxntid" && index > 0) {
        int64_t product = 1;
        for (int64_t size : sizes) product *= std::clamp<int64_t>(size, 1, 1024);
        return {std::min<int64_t>(product, 1024), false};
      }
      int64_t size = index < sizes.size() ? sizes[index] : 1;
      if (size > 0) return {size, directive == ".reqntid"};
    }
  return {};
}

// The cluster the kernel declares: CTAs along one axis ('x', 'y', 'z') or in
// all ('r'), from .reqnctapercluster x, y, z (exact) or .maxclusterrank n (at
// most n in all); {0, false} when it declares none.
std::pair<int64_t, bool> declaredClusterCtas(const ptx::Function* function, char axis) {
  if (!function) return {0, false};
  for (const auto& [directive, sizes] : function->performanceDirectives) {
    if (directive == ".reqnctapercluster" && !sizes.empty()) {
      int64_t ctas = 1;
      for (size_t i = 0; i < sizes.size(); ++i)
        if (axis == 'r' || size_t(axis - 'x') == i) ctas *= std::max<int64_t>(sizes[i], 1);
      return {ctas, true};
    }
    if (directive == ".maxclusterrank" && axis == 'r' && !sizes.empty() && sizes[0] > 0) return {sizes[0], false};
  }
  return {0, false};
}

// %cluster_ctarank, %cluster_nctarank, %cluster_ctaid.x, %cluster_nctaid.x, ...
// bounded by the cluster the kernel declares; nullopt when it declares none.
std::optional<AbstractValue> declaredClusterRegister(const std::string& name, const ptx::Function* function) {
  const bool rank = name == "%cluster_ctarank" || name == "%cluster_nctarank";
  const bool axis = (name.starts_with("%cluster_ctaid.") || name.starts_with("%cluster_nctaid.")) &&
                    name.back() >= 'x' && name.back() <= 'z';
  if (!rank && !axis) return std::nullopt;
  const auto [ctas, exact] = declaredClusterCtas(function, rank ? 'r' : name.back());
  if (ctas <= 0) return std::nullopt;
  if (!name.starts_with("%cluster_n")) return term(name, 0, ctas - 1);
  return exact ? term(name, ctas, ctas) : term(name, 1, ctas);
}

// A null-checked pointer (`p ? p + i : nullptr`, a selp or a merge of a
// 64-bit register): an access through the null side faults, so every access
// that completes goes through the pointer; as a number, a pointer's value is
// unknown either way. The pointer, when one side is the constant 0 and the
// other points into global or generic memory (a 32-bit shared address 0 is
// a variable's, not null).
std::optional<AbstractValue> nullCheckedPointer(const AbstractValue& a, const AbstractValue& b, bool wide) {
  auto isNull = [](const AbstractValue& v) { return v.isConstant() && v.constant == 0; };
  auto isPointer = [](const AbstractValue& v) {
    return v.known && v.hasBase() && v.baseKind != BaseKind::SharedSymbol && v.space != Space::SharedCta &&
           v.space != Space::SharedCluster && v.space != Space::Local;
  };
  if (!wide) return std::nullopt;
  if (isNull(a) && isPointer(b)) return b;
  if (isNull(b) && isPointer(a)) return a;
  return std::nullopt;
}

AbstractValue special(const std::string& name, const ptx::Function* function) {
  const bool threadIndex = name.size() == 6 && name.starts_with("%tid.");
  const bool blockExtent = name.size() == 7 && name.starts_with("%ntid.");
  if (threadIndex || blockExtent)
    if (const DeclaredThreads declared = declaredThreads(function, name.back()); declared.threads > 0)
      return threadIndex ? term(name, 0, declared.threads - 1)
                                       : term(name, declared.exact ? declared.threads : 1, declared.threads);
  if (auto cluster = declaredClusterRegister(name, function)) return *cluster;
  for (const auto& s : kSpecials)
    if (name.starts_with(s.prefix)) return term(name, s.low, s.high);
  return term(name);
}

// The largest power of two that divides every value v may take (its constant
// and each term's coefficient), capped at 2^40; 1 when v has a base or is unknown.
int64_t alignmentOf(const AbstractValue& v) {
  static constexpr int64_t kCap = int64_t(1) << 40;
  if (!v.known || v.hasBase()) return 1;
  auto lowestBit = [](int64_t x) { return x == 0 ? kCap : std::min(kCap, x & -x); };
  int64_t alignment = lowestBit(v.constant);
  for (const auto& t : v.terms) alignment = std::min(alignment, lowestBit(t.coefficient < 0 ? -t.coefficient : t.coefficient));
  return alignment;
}

using Range = std::pair<int64_t, int64_t>;

// The range of a value that is known to satisfy `value <cmp> bound` (or to
// fail it, when `holds` is false). Comparisons as setp writes them.
std::optional<Range> clip(Range r, std::string_view cmp, int64_t bound, bool holds) {
  if (!holds) cmp = negatedComparison(cmp);
  if (cmp == "eq") r = {std::max(r.first, bound), std::min(r.second, bound)};
  else if (cmp == "ne") {
    if (r.first == bound) ++r.first;
    if (r.second == bound) --r.second;
  } else if (cmp == "lt" || cmp == "lo") r.second = std::min(r.second, bound - 1);
  else if (cmp == "le" || cmp == "ls") r.second = std::min(r.second, bound);
  else if (cmp == "gt" || cmp == "hi") r.first = std::max(r.first, bound + 1);
  else if (cmp == "ge" || cmp == "hs") r.first = std::max(r.first, bound);
  else return std::nullopt;
  if (r.first > r.second) return std::nullopt;  // never selected: keep the unrefined value
  return r;
}

bool comparisonUnknown(std::string_view cmp) { return cmp.empty(); }

bool isIntegerConversion(const ptx::Instruction& i) {
  // cvt.u64.u32, cvt.s64.s32, cvt.u32.u64 ...: integer to integer (no rounding modifier needed).
  int ints = 0;
  for (const auto& m : i.modifiers)
    if (!m.empty() && (m[0] == 'u' || m[0] == 's' || m[0] == 'b') && typeWidth(m)) ++ints;
    else if (!m.empty() && m[0] == 'f' && typeWidth(m)) return false;
  return ints >= 2;
}

}  // namespace

struct ValueAnalysis::Impl {
  const FunctionModel& fn;
  std::vector<std::vector<InstId>> defs;  // per register, ascending
  // Per instruction, the value of its operand-0 register (defState 2), and per
  // register its joined value (joinState 2), as a slot: an index into
  // `stored`, or kOpaque (the term `def:<d>` alone: half of a kernel's
  // definitions, its floating-point arithmetic) or kTop. An AbstractValue is
  // 96 bytes (its base name shared with its copies, SharedText.h) and its
  // term a block of its own; most instructions need none (docs/performance.md,
  // session 16).
  static constexpr uint32_t kNoValue = UINT32_MAX, kOpaque = UINT32_MAX - 1, kTop = UINT32_MAX - 2;
  std::vector<uint32_t> defSlot;
  std::vector<uint8_t> defState;          // 0 new, 1 in progress, 2 done
  std::vector<uint32_t> joinSlot;         // per register
  // In chunks of 1,024 (a vector's growth left up to half of it unused).
  struct Store {
    std::vector<std::unique_ptr<AbstractValue[]>> chunks;
    size_t count = 0;
    AbstractValue& operator[](size_t i) { return chunks[i >> 10][i & 1023]; }
    const AbstractValue& operator[](size_t i) const { return chunks[i >> 10][i & 1023]; }
    size_t size() const { return count; }
    void emplace_back() {
      if ((count & 1023) == 0) chunks.push_back(std::make_unique<AbstractValue[]>(1024));
      ++count;
    }
  } stored;
  std::vector<uint32_t> freeSlots;        // of `stored`, emptied
  std::vector<uint8_t> joinState;
  std::vector<InstId> computedLog;        // defs computed, in order (for invalidation)
  std::vector<ValueReg> joinedLog;
  std::vector<uint8_t> placeholderUsed;   // per register

  std::unique_ptr<ReachingDefinitions> reaching;
  std::unique_ptr<detail::ValueIdentity> identity;
  // Assumed ranges of loop-carried registers while a bound is being verified.
  std::unordered_map<ValueReg, Range> hypothesis;
  std::unordered_map<uint64_t, bool> deadAtEntry;  // deadAt, per (block, reg)
  struct FirstUses {
    std::vector<ValueReg> read, written;  // sorted (firstUse)
    bool computed = false;
  };
  std::vector<uint32_t> registerSeen;  // firstUse's summary: the build that last met each register
  uint32_t registerSeenGeneration = 0;
  std::vector<FirstUses> firstUses;                 // per block, built on first use
  std::vector<uint32_t> visitStamp;                 // deadAt's walk: visited in this generation
  uint32_t visitGeneration = 0;
  // The load behind each Loaded base (the first of identical loads).
  std::unordered_map<std::string, InstId> pointerLoads;
  // The Loaded objects whose load some cvta converts (known pointers).
  std::unordered_set<std::string> convertedLoads;
  // Every integer constant a setp compares with, and its neighbours (the
  // widening thresholds: `s + 1 == N` bounds s by N - 1).
  std::vector<int64_t> thresholds;
  // Loop counters whose bound could not be tried because one of their
  // updates was being evaluated (see the constructor); `deferring` is false
  // once they have been evaluated again, first.
  std::vector<ValueReg> deferredCounters;
  bool deferring = true;
  // The function tests an address's space (isspacep): -1 not yet asked.
  int8_t testsSpace = -1;
  int depth = 0;                          // recursion guard for long definition chains
  static constexpr int kMaxDepth = 2000;
  // The same guard in bytes of stack: a level is several frames (evaluate,
  // the operator, operand, valueOf), about 2 KB in a release build and
  // several times that with AddressSanitizer, so kMaxDepth alone overflowed
  // a sanitizer build's 8 MB stack on a 256-step tempering chain
  // (tests/limits/exponential.test) and left a release build less than 2x
  // of headroom. Past the budget a definition is a term, as past kMaxDepth.
  static constexpr ptrdiff_t kMaxStackBytes = 2 << 20;
  const char* stackTop = nullptr;         // the frame of the outermost evaluation
  // The work budget (issue 35). Guess and verify re-evaluates what a loop
  // counter's join reaches, and a join that met its own placeholder
  // invalidates everything computed since it began: with many loop-carried
  // registers that feed each other (a Mersenne-Twister state of 600 words in
  // rotating registers) the re-evaluations nest, exponentially. Definitions
  // evaluated, re-evaluations included, are counted; past kWorkPerInstruction
  // per instruction (plus kWorkBase) the analysis starts again in the simple
  // mode: every join once, flow-insensitive, no loop bounds and no
  // invalidation (a value read through an unfinished join keeps the
  // placeholder "loop:<reg>", an unknown number), so each definition is
  // evaluated once. Real kernels stay far below (docs/performance.md).
  static constexpr size_t kWorkPerInstruction = 16, kWorkBase = 1 << 16;
  size_t evaluations = 0, evaluationBudget = 0;
  bool simple = false;
  struct OverBudget {};
  // keptOperandValue's values, per mode (normal, simple): never freed before
  // the analysis, so that references handed out stay valid.
  // (An open-addressing table: asked for both accesses of every pair the
  // protocol model compares, issue 34.)
  PairMap<const AbstractValue*> keptOperands[2];
  std::deque<AbstractValue> keptStore;

  explicit Impl(const FunctionModel& f) : fn(f) {
    const size_t n = fn.instructions.size();
    evaluationBudget = kWorkPerInstruction * n + kWorkBase;
    defs.resize(fn.registerNames.size());
    defSlot.assign(n, kNoValue);
    defState.assign(n, 0);
    joinSlot.assign(fn.registerNames.size(), kNoValue);
    joinState.assign(fn.registerNames.size(), 0);
    placeholderUsed.assign(fn.registerNames.size(), 0);
    for (size_t i = 0; i < n; ++i)
      for (ValueReg r : writtenRegisters(fn.instructions[i]))
        if (r >= 0 && static_cast<size_t>(r) < defs.size()) defs[r].push_back(static_cast<InstId>(i));
    reaching = std::make_unique<ReachingDefinitions>(fn, defs);
    identity = std::make_unique<detail::ValueIdentity>(fn, defs);
    // Pointers read from memory that some cvta converts to a state space: the
    // objects of those loads are pointers wherever else they are used (see
    // the add rule in evaluate).
    for (size_t i = 0; i < n; ++i) {
      const Inst& inst = fn.instructions[i];
      if (inst.opcode() != "cvta" || inst.operands.size() < 2 || inst.operands[1].kind != Kind::Register) continue;
      const InstId def = definition(inst.operands[1].reg, static_cast<InstId>(i));
      if (def < 0 || fn.instructions[def].effect.kind != EffectKind::Load || fn.instructions[def].effect.address < 0)
        continue;
      if (std::string object = loadedObjectName(def); !object.empty()) convertedLoads.insert(std::move(object));
    }
    for (const Inst& inst : fn.instructions)
      if (inst.opcode() == "setp")
        for (const auto& op : inst.operands)
          if (op.kind == Kind::Integer && op.intValue > INT64_MIN + 1 && op.intValue < INT64_MAX - 1)
            for (int64_t delta : {-1, 0, 1}) thresholds.push_back(op.intValue + delta);
    std::sort(thresholds.begin(), thresholds.end());
    thresholds.erase(std::unique(thresholds.begin(), thresholds.end()), thresholds.end());
    try {
      evaluateAll();
    } catch (const OverBudget&) {
      startSimple();
      evaluateAll();
    }
    // Queries after this (the memory analysis, the checks) get the same allowance again.
    evaluationBudget = evaluations + kWorkPerInstruction * n + kWorkBase;
    static const bool debugWork = std::getenv("FENCELINE_DEBUG_WORK") != nullptr;
    if (debugWork)
      fmt::print(stderr, "values {}: {} instructions, {} evaluations{}\n", fn.function ? fn.function->name : "?", n,
                 evaluations, simple ? " (simple)" : "");
  }

  // Forgets everything computed and goes on in the simple mode (see kWorkPerInstruction).
  void startSimple() {
    simple = true;
    std::fill(defState.begin(), defState.end(), 0);
    std::fill(joinState.begin(), joinState.end(), 0);
    std::fill(placeholderUsed.begin(), placeholderUsed.end(), 0);
    computedLog.clear();
    joinedLog.clear();
    hypothesis.clear();
    deferredCounters.clear();
    deferring = false;
    depth = 0;
    pointerLoads.clear();
  }

  // Runs a query; past the budget, once in the simple mode from scratch.
  template <typename F>
  auto guarded(F&& query) -> decltype(query()) {
    try {
      return query();
    } catch (const OverBudget&) {
      startSimple();
      return query();
    }
  }

  // Every definition's value: the constructor's work.
  void evaluateAll() {
    const size_t n = fn.instructions.size();
    // Registers assigned more than once first, each from outside any of its
    // own definitions, so that a loop counter's range is verified with all
    // of its updates evaluable (boundLoopCounter).
    for (size_t r = 0; r < defs.size(); ++r)
      if (defs[r].size() > 1 && fn.registerTypes[r] != ".pred") joinOf(static_cast<ValueReg>(r));
    // A counter first met through one of its own updates (a lower-numbered
    // register's definition reads the counter after the update: Triton's
    // prefetching pipelines compute the next stage's address from the
    // wrapped index) could not be bounded then. Evaluate again, those
    // counters first, each from outside its updates.
    if (!deferredCounters.empty() && !simple) {
      std::vector<ValueReg> first = std::move(deferredCounters);
      std::sort(first.begin(), first.end());
      first.erase(std::unique(first.begin(), first.end()), first.end());
      deferring = false;
      invalidateSince(0, 0);
      for (ValueReg r : first) joinOf(r);
      for (size_t r = 0; r < defs.size(); ++r)
        if (defs[r].size() > 1 && fn.registerTypes[r] != ".pred") joinOf(static_cast<ValueReg>(r));
    }
    // Evaluate definitions in program order, so that operands are mostly
    // known already and recursion stays shallow (and results do not depend on
    // the order in which checks ask).
    for (size_t i = 0; i < n; ++i) {
      const Inst& inst = fn.instructions[i];
      if (inst.operands.empty() || inst.operands[0].kind != Kind::Register) continue;
      ValueReg r = inst.operands[0].reg;
      if (r < 0 || static_cast<size_t>(r) >= defs.size() || fn.registerTypes[r] == ".pred") continue;
      if (!writesOperand0(inst)) continue;
      valueDefinedBy(static_cast<InstId>(i), r);
    }
  }

  std::string name(InstId i, const char* kind) const { return std::string(kind) + ":" + std::to_string(i); }

  // `v` into `slot` (see defSlot): kOpaque when it is exactly term(opaque()), kTop when top().
  template <typename Name>
  void keep(uint32_t& slot, const AbstractValue& v, const Name& opaque) {
    const bool plain = v.baseKind == BaseKind::None && v.base.empty() && v.alternatives.empty() &&
                       v.space == Space::None && v.constant == 0;
    uint32_t special = kNoValue;
    if (plain && !v.known && v.terms.empty()) special = kTop;
    else if (plain && v.known && v.terms.size() == 1 && v.terms[0].coefficient == 1 && v.terms[0].low == INT64_MIN &&
             v.terms[0].high == INT64_MAX && v.terms[0].name == opaque())
      special = kOpaque;
    if (special != kNoValue) {
      if (slot < kTop) {
        stored[slot] = AbstractValue{};
        freeSlots.push_back(slot);
      }
      slot = special;
      return;
    }
    if (slot >= kTop) {
      if (!freeSlots.empty()) {
        slot = freeSlots.back();
        freeSlots.pop_back();
      } else {
        slot = static_cast<uint32_t>(stored.size());
        stored.emplace_back();
      }
    }
    stored[slot] = v;
  }
  template <typename Name>
  AbstractValue kept(uint32_t slot, const Name& opaque) const {
    if (slot == kOpaque) return term(opaque());
    if (slot == kTop) return values::top();
    return stored[slot];
  }
  std::string loopName(ValueReg r) const {
    return "loop:" + std::string(fn.registerNames[r]) + "@" + std::to_string(r);
  }

  // ValueAnalysis::atLeastGridSize for a loop counter: every definition of
  // `reg` is %nctaid.<dim> or the counter itself, plus values that are never
  // negative (`s = blockIdx.x + gridDim.x`, `s += gridDim.x`). The test that
  // leaves the loop only bounds s from above, so it keeps the lower bound.
  bool counterAtLeastGridSize(ValueReg reg, char dim) {
    if (reg < 0 || static_cast<size_t>(reg) >= defs.size() || defs[reg].empty()) return false;
    const std::string grid = std::string("%nctaid.") + dim, loop = loopName(reg);
    for (InstId d : defs[reg]) {
      const AbstractValue v = valueDefinedBy(d, reg);
      if (!v.known || v.hasBase() || v.constant < 0) return false;
      bool anchored = false;
      for (const auto& t : v.terms) {
        if (!anchored && t.coefficient == 1 && (t.name == grid || t.name == loop)) {
          anchored = true;
          continue;
        }
        if (!((t.coefficient > 0 && t.low >= 0) || (t.coefficient < 0 && t.high <= 0))) return false;
      }
      if (!anchored) return false;
    }
    return true;
  }

  // The placeholder for a register's value from the previous trip (bounded
  // while a hypothesis about it is being verified).
  AbstractValue placeholder(ValueReg reg) {
    placeholderUsed[reg] = 1;
    if (auto it = hypothesis.find(reg); it != hypothesis.end())
      return term(loopName(reg), it->second.first, it->second.second);
    return term(loopName(reg));
  }

  InstId definition(ValueReg reg, InstId at) const {
    if (reg < 0 || static_cast<size_t>(reg) >= defs.size()) return -1;
    const auto& d = defs[reg];
    if (d.empty()) return -1;
    if (at >= 0 && static_cast<size_t>(at) < fn.blockOf.size()) {
      auto it = std::lower_bound(d.begin(), d.end(), at);
      if (it != d.begin() && fn.blockOf[*(it - 1)] == fn.blockOf[at]) return *(it - 1);
    }
    if (d.size() == 1) return d.front();
    // Several definitions: the one that alone reaches the use's block, if any.
    if (!reaching || at < 0 || static_cast<size_t>(at) >= fn.blockOf.size()) return -1;
    return reaching->onlyReaching(d, fn.blockOf[at]);
  }

  AbstractValue valueOf(ValueReg reg, InstId at) {
    if (reg < 0 || static_cast<size_t>(reg) >= defs.size()) return values::top();
    InstId d = definition(reg, at);
    if (d < 0) return defs[reg].empty() ? term("reg:" + std::to_string(reg)) : joinOf(reg);
    AbstractValue v = valueDefinedBy(d, reg);
    const Inst& def = fn.instructions[d];
    if (def.guard && defs[reg].size() > 1) {
      // @p mov r, x: r keeps its previous value where p is false.
      AbstractValue before = defs[reg].front() == d ? values::top() : valueOf(reg, d);
      const bool taken = !def.guard->negated;
      if (before.known) v = join(refine(v, def.guard->reg, d, taken), refine(before, def.guard->reg, d, !taken), name(d, "join"));
    }
    return v;
  }

  AbstractValue valueDefinedBy(InstId d, ValueReg reg) {
    const Inst& inst = fn.instructions[d];
    const bool pairResult = !inst.operands.empty() && inst.operands[0].kind == Kind::PredicatePair &&
                            !inst.operands[0].elements.empty() && inst.operands[0].elements[0].kind == Kind::Register &&
                            inst.operands[0].elements[0].reg == reg && inst.opcode() == "shfl";
    if (!pairResult && (inst.operands.empty() || inst.operands[0].kind != Kind::Register || inst.operands[0].reg != reg))
      return term(name(d, "def"));  // one element of a vector / predicate pair (shfl's value is evaluated)
    if (defState[d] == 2) return kept(defSlot[d], [&] { return name(d, "def"); });
    if (defState[d] == 1) return placeholder(reg);  // a cycle through single definitions
    if (depth >= kMaxDepth) return term(name(d, "def"));
    const char* frame = static_cast<const char*>(__builtin_frame_address(0));
    if (depth == 0) stackTop = frame;
    else if (stackTop - frame > kMaxStackBytes) return term(name(d, "def"));
    model::poll();
    if (++evaluations > evaluationBudget && !simple) throw OverBudget{};
    defState[d] = 1;
    ++depth;
    AbstractValue v = evaluate(d);
    --depth;
    keep(defSlot[d], v, [&] { return name(d, "def"); });
    defState[d] = 2;
    computedLog.push_back(d);
    return v;
  }

  AbstractValue joinOf(ValueReg reg) {
    if (joinState[reg] == 2) return kept(joinSlot[reg], [&] { return loopName(reg); });
    if (joinState[reg] == 1) return placeholder(reg);
    joinState[reg] = 1;
    size_t logMark = computedLog.size(), joinMark = joinedLog.size();
    placeholderUsed[reg] = 0;
    std::string loop = loopName(reg);
    std::optional<AbstractValue> init;
    bool updated = false, unknown = false;
    for (InstId d : defs[reg]) {
      AbstractValue v = valueLeaving(d, reg);
      bool update = std::any_of(v.terms.begin(), v.terms.end(), [&](const auto& t) { return t.name == loop; });
      if (update) {
        updated = true;
        continue;
      }
      if (!v.known) unknown = true;
      const bool wide = static_cast<size_t>(reg) < fn.registerTypes.size() && fn.registerTypes[reg].ends_with("64");
      if (init)
        if (auto pointer = nullCheckedPointer(*init, v, wide)) {
          init = *pointer;
          continue;
        }
      init = init ? join(*init, v, "join:" + std::string(fn.registerNames[reg]) + "@" + std::to_string(reg)) : v;
    }
    AbstractValue result;
    if (unknown || !init) {
      result = term(loop);
    } else if (updated) {
      AbstractValue base = *init;
      base.terms.clear();
      base.constant = 0;
      result = add(base, term(loop), loop);
      if (!init->hasBase()) result = term(loop);
    } else {
      result = *init;
    }
    if (placeholderUsed[reg] && !simple && !result.hasBase() && !result.offsetRange())
      if (auto bound = boundLoopCounter(reg, logMark, joinMark)) result = term(loop, bound->first, bound->second);
    if (placeholderUsed[reg] && !simple) invalidateSince(logMark, joinMark);  // values computed meanwhile hold the placeholder
    keep(joinSlot[reg], result, [&] { return loop; });
    joinState[reg] = 2;
    joinedLog.push_back(reg);
    return result;
  }

  void invalidateSince(size_t logMark, size_t joinMark) {
    for (size_t k = logMark; k < computedLog.size(); ++k) defState[computedLog[k]] = 0;
    computedLog.resize(logMark);
    for (size_t k = joinMark; k < joinedLog.size(); ++k) joinState[joinedLog[k]] = 0;
    joinedLog.resize(joinMark);
  }

  // What `block` does with `reg` first: reads it, writes it (unguarded)
  // before any read, or neither. From a per-block summary built on the
  // block's first visit (one registerUse per instruction): the registers it
  // reads before writing them, and those it writes before reading them
  // (visitRegisters: reads of an instruction before its writes).
  enum class FirstUse { Read, Write, None };
  FirstUse firstUse(BlockId block, ValueReg reg) {
    if (firstUses.empty()) firstUses.resize(fn.blocks.size());
    FirstUses& uses = firstUses[block];
    if (!uses.computed) {
      uses.computed = true;
      if (registerSeen.size() != fn.registerNames.size()) registerSeen.assign(fn.registerNames.size(), 0);
      const uint32_t here = ++registerSeenGeneration;
      auto firstTime = [&](ValueReg r) {
        if (r < 0 || static_cast<size_t>(r) >= registerSeen.size() || registerSeen[r] == here) return false;
        registerSeen[r] = here;
        return true;
      };
      for (InstId i = fn.blocks[block].first; i < fn.blocks[block].last; ++i) {
        const bool guarded = fn.instructions[i].guard.has_value();
        visitRegisters(fn.instructions[i], [&](ValueReg r, bool written) {
          if (written && guarded) return;  // a guarded write may not happen
          if (firstTime(r)) (written ? uses.written : uses.read).push_back(r);
        });
      }
      std::sort(uses.read.begin(), uses.read.end());
      std::sort(uses.written.begin(), uses.written.end());
    }
    if (std::binary_search(uses.read.begin(), uses.read.end(), reg)) return FirstUse::Read;
    if (std::binary_search(uses.written.begin(), uses.written.end(), reg)) return FirstUse::Write;
    return FirstUse::None;
  }

  // Is `reg` dead where `block` begins: no path from there reads it before
  // an unguarded write (nvcc's loop exit, where the counter is never read
  // again; a block that redefines it first). Memoized per (block, reg).
  bool deadAt(BlockId block, ValueReg reg) {
    const uint64_t key = (uint64_t(uint32_t(block)) << 32) | uint32_t(reg);
    if (auto known = deadAtEntry.find(key); known != deadAtEntry.end()) return known->second;
    if (visitStamp.size() != fn.blocks.size()) visitStamp.assign(fn.blocks.size(), 0);
    const uint32_t stamp = ++visitGeneration;
    std::vector<BlockId> work{block};
    bool dead = true;
    while (!work.empty() && dead) {
      model::poll();
      const BlockId b = work.back();
      work.pop_back();
      if (b < 0 || static_cast<size_t>(b) >= fn.blocks.size() || visitStamp[b] == stamp) continue;
      visitStamp[b] = stamp;
      switch (firstUse(b, reg)) {
        case FirstUse::Read: dead = false; break;
        case FirstUse::Write: break;
        case FirstUse::None:
          for (BlockId next : fn.blocks[b].successors) work.push_back(next);
          break;
      }
    }
    deadAtEntry.emplace(key, dead);
    return dead;
  }

  // The value definition d gives `reg` where it is read after d's block.
  // When d is the block's last definition of reg, the block ends in a
  // conditional branch, and reg is dead on one edge (the block there
  // redefines it before reading it, or no path from there reads it), d's
  // value leaves only along the other edge, where the branch predicate has a
  // known value: it is refined by that predicate, as a selp operand is. This
  // is nvcc's `if (++s == N) { laps[k] = 1; s = 0; }`, kept as a branch
  // because of the side effect: s + 1 flows on only where it differs from N;
  // and the latch of `for (i = ...; i < N; i += step)`, whose exit never
  // reads i again: i + step flows back only below N.
  AbstractValue valueLeaving(InstId d, ValueReg reg) {
    AbstractValue v = valueDefinedBy(d, reg);
    const BlockId block = fn.instructions[d].block;
    if (!v.known || block < 0) return v;
    const InstId branch = conditionalBranch(fn, block);
    if (branch < 0 || fn.instructions[branch].guard->reg < 0) return v;
    // d must be the block's last definition of reg (defs are in program order).
    const auto& all = defs[reg];
    if (auto next = std::upper_bound(all.begin(), all.end(), d); next != all.end() && *next < branch) return v;
    for (bool value : {true, false}) {
      const BlockId kept = branchTarget(fn, branch, value), killed = branchTarget(fn, branch, !value);
      if (kept == killed || killed < 0 || static_cast<size_t>(killed) >= fn.blocks.size()) return v;
      if (deadAt(killed, reg)) return refine(v, fn.instructions[branch].guard->reg, branch, value);
    }
    return v;
  }

  // The range of every definition of `reg` (all must be bounded, none a pointer).
  std::optional<Range> rangeOfDefinitions(ValueReg reg) {
    std::optional<Range> all;
    for (InstId d : defs[reg]) {
      AbstractValue v = valueLeaving(d, reg);
      auto r = v.numericRange();
      if (!r) return std::nullopt;
      all = all ? Range{std::min(all->first, r->first), std::max(all->second, r->second)} : *r;
    }
    return all;
  }

  // Guess and verify (see the file comment): a range that every definition
  // of `reg` stays in when its previous-trip value is assumed to lie in it.
  // Called while joinOf(reg) is in progress; leaves no hypothesis behind.
  std::optional<Range> boundLoopCounter(ValueReg reg, size_t logMark, size_t joinMark) {
    // Start from the definitions that are bounded without any assumption
    // (the initial values), as the first pass computed them.
    std::optional<Range> guess;
    // An update being evaluated further up the stack cannot be re-evaluated
    // under the guess: no bound (its register is bounded from outside later
    // only if asked again; the constructor asks from outside first).
    for (InstId d : defs[reg])
      if (defState[d] == 1) {
        if (deferring) deferredCounters.push_back(reg);
        return std::nullopt;
      }
    for (InstId d : defs[reg]) {
      AbstractValue v = valueDefinedBy(d, reg);
      if (v.hasBase()) return std::nullopt;
      if (auto r = v.offsetRange()) guess = guess ? Range{std::min(guess->first, r->first), std::max(guess->second, r->second)} : *r;
    }
    static const bool debug = std::getenv("FENCELINE_DEBUG_BOUNDS") != nullptr;
    if (debug) fmt::print(stderr, "bound {}: guess {}\n", fn.registerNames[reg], guess ? fmt::format("[{}, {}]", guess->first, guess->second) : "none");
    if (!guess) return std::nullopt;
    std::optional<Range> accepted;
    for (int round = 0; round < 8 && !accepted; ++round) {
      invalidateSince(logMark, joinMark);
      hypothesis[reg] = *guess;
      std::optional<Range> next = rangeOfDefinitions(reg);
      if (debug) fmt::print(stderr, "  round {}: [{}, {}] -> {}\n", round, guess->first, guess->second, next ? fmt::format("[{}, {}]", next->first, next->second) : "unbounded");
      if (!next) break;
      if (next->first >= guess->first && next->second <= guess->second) {
        accepted = guess;
        // Narrow once: what the definitions reach under the accepted range,
        // when it is itself closed (a counter clipped by its loop's exit test
        // stays below the test's bound whatever the guess allowed).
        if (*next != *guess) {
          invalidateSince(logMark, joinMark);
          hypothesis[reg] = *next;
          std::optional<Range> narrower = rangeOfDefinitions(reg);
          if (narrower && narrower->first >= next->first && narrower->second <= next->second) accepted = next;
          if (debug) fmt::print(stderr, "  narrowed: [{}, {}] {}\n", next->first, next->second, accepted == next ? "kept" : "refused");
        }
        break;
      }
      // Widen: the lower end to what the update reached, the upper end to the
      // next comparison constant at or above it.
      auto it = std::lower_bound(thresholds.begin(), thresholds.end(), next->second);
      if (next->first < guess->first - (int64_t(1) << 20)) break;
      const int64_t upper = it == thresholds.end() ? next->second : *it;  // no constant above: what was reached
      guess = Range{std::min(guess->first, next->first), std::max(guess->second, upper)};
    }
    hypothesis.erase(reg);
    invalidateSince(logMark, joinMark);
    return accepted;
  }

  // A value as operand `taken ? 1 : 2` of a selp (or a guarded move) sees it:
  // where the value is the compared register plus a constant, its range is
  // clipped by the comparison (`s + 1 == N ? 0 : s + 1` selects s + 1 only
  // below N).
  // `never` (when given) is set when the comparison cannot come out `holds`
  // for any value in range: that operand is never the one selected.
  AbstractValue refine(const AbstractValue& v, ValueReg predicate, InstId at, bool holds, bool* never = nullptr) {
    if (!v.known || predicate < 0) return v;
    const std::optional<Range> range = v.offsetRange();  // the unrefined range, if any
    InstId d = definition(predicate, at);
    if (d < 0) return v;
    const Inst& setp = fn.instructions[d];
    if (setp.opcode() != "setp" || setp.operands.size() < 3 || setp.operands[0].kind != Kind::Register ||
        setp.operands[0].reg != predicate)
      return v;
    std::string_view cmp = comparisonOf(*setp.syntax);
    if (cmp.empty()) return v;
    AbstractValue left = src(d, 1), right = src(d, 2);
    // value <cmp> bound, with the compared value as operand 1 (swap the
    // comparison when the constant comes first).
    if (left.isConstant() && !right.isConstant()) {
      std::swap(left, right);
      cmp = swappedComparison(cmp);
    }
    if (!left.known) return v;
    // The wrap test compares two registers whose difference is a constant:
    // bases (a scalar parameter `n`) cancel, and the result is a bit range.
    if (!right.isConstant()) return refineWrap(v, left, right, setp, cmp, holds, at, predicate);
    if (v.hasBase() || left.hasBase()) return v;
    // v = left + delta for every thread?
    AbstractValue difference = subtract(v, left, "refine");
    if (!difference.isConstant()) return v;
    const bool unsignedCompare = cmp == "lo" || cmp == "ls" || cmp == "hi" || cmp == "hs" ||
                                 setp.hasModifier("u32") || setp.hasModifier("u16");
    auto leftRange = left.offsetRange();
    // An unsigned 32-bit comparison sees the register's bits as [0, 2^32).
    if (!leftRange && unsignedCompare && !setp.hasModifier("u64")) leftRange = Range{0, (int64_t(1) << 32) - 1};
    if (!leftRange) return v;
    if (unsignedCompare && leftRange->first < 0) return v;
    auto clipped = clip(*leftRange, cmp, right.constant, holds);
    if (!clipped) {
      if (never && !comparisonUnknown(cmp)) *never = true;
      return v;
    }
    Range r{clipped->first + difference.constant, clipped->second + difference.constant};
    if (range) {
      r = {std::max(r.first, range->first), std::min(r.second, range->second)};
      if (r.first > r.second || (r.first == range->first && r.second == range->second)) return v;
    }
    if (r.first == r.second) return constant(r.first);
    return term(name(at, "refine") + ":" + std::to_string(predicate), r.first, r.second);
  }

  // `x = y + d` (d > 0) compared unsigned `x < y`: true only when the add
  // wrapped around, so x's bits lie in [0, d - 1] (nvcc's clamp of a
  // remaining count: `y + TILE < y ? y + TILE : TILE`).
  AbstractValue refineWrap(const AbstractValue& v, const AbstractValue& left, const AbstractValue& right,
                           const Inst& setp, std::string_view cmp, bool holds, InstId at, ValueReg predicate) {
    const bool isUnsigned = setp.hasModifier("u32") || cmp == "lo" || cmp == "hs";
    const bool less = (cmp == "lt" || cmp == "lo") == holds && (cmp == "lt" || cmp == "lo" || cmp == "ge" || cmp == "hs");
    if (!isUnsigned || !less || !right.known) return v;
    AbstractValue d = subtract(left, right, "wrap");
    AbstractValue fromLeft = subtract(v, left, "wrap");
    if (!d.isConstant() || d.constant <= 0 || !fromLeft.isConstant() || fromLeft.constant != 0) return v;
    return term(name(at, "refine") + ":" + std::to_string(predicate), 0, d.constant - 1);
  }

  // The variable a symbol names: the first of that name among the locals of
  // the function whose body holds the instruction, else among the module's
  // globals. Indexed once per function (a body with many call sites declares
  // a `.param` block at each, thousands of locals in NVSHMEM's collectives).
  using SymbolIndex = std::unordered_map<std::string_view, const ptx::Variable*>;
  mutable std::unordered_map<const ptx::Function*, SymbolIndex> localIndex;
  mutable std::optional<SymbolIndex> globalIndex;

  static SymbolIndex indexOf(const std::vector<ptx::Variable>& variables) {
    SymbolIndex index;
    index.reserve(variables.size());
    for (const auto& v : variables) index.try_emplace(v.name, &v);  // the first of a name wins
    return index;
  }

  const ptx::Variable* variable(const Inst& inst, const std::string& symbol) const {
    if (inst.origin) {
      auto [it, inserted] = localIndex.try_emplace(inst.origin);
      if (inserted) it->second = indexOf(inst.origin->locals);
      if (auto found = it->second.find(symbol); found != it->second.end()) return found->second;
    }
    if (fn.module) {
      if (!globalIndex) globalIndex = indexOf(fn.module->globals);
      if (auto found = globalIndex->find(symbol); found != globalIndex->end()) return found->second;
    }
    return nullptr;
  }

  AbstractValue symbolValue(const Inst& inst, const std::string& symbol) const {
    if (const ptx::Variable* v = variable(inst, symbol)) {
      if (v->space == ".shared") return values::object(BaseKind::SharedSymbol, symbol, Space::SharedCta);
      if (v->space == ".global") return values::object(BaseKind::GlobalSymbol, symbol, Space::Global);
      if (v->space == ".const") return values::object(BaseKind::GlobalSymbol, symbol, Space::Const);
      if (v->space == ".local") return values::object(BaseKind::GlobalSymbol, symbol, Space::Local);
      if (v->space == ".param") return values::object(BaseKind::Unknown, symbol, Space::Param);
    }
    if (inst.origin)
      for (const auto& p : inst.origin->params)
        if (p.name == symbol) return values::object(BaseKind::Param, symbol, Space::Param);
    return values::object(BaseKind::Unknown, symbol, Space::Generic);
  }

  AbstractValue operand(InstId at, const ptx::Operand& op) {
    switch (op.kind) {
      case Kind::Register: return valueOf(op.reg, at);
      case Kind::Integer: return constant(op.intValue);
      case Kind::Special: return special(std::string(op.text), fn.function);
      case Kind::Symbol: return symbolValue(fn.instructions[at], std::string(op.text));
      case Kind::Address: {
        AbstractValue base;
        if (op.base.kind == Kind::Register) base = valueOf(op.base.reg, at);
        else if (op.base.kind == Kind::Symbol) base = symbolValue(fn.instructions[at], std::string(op.baseSymbol()));
        else base = constant(op.baseValue());
        return op.offset ? add(base, constant(op.offset), name(at, "addr")) : base;
      }
      default: return values::top();
    }
  }

  AbstractValue src(InstId at, size_t k) {
    const auto& ops = fn.instructions[at].operands;
    return k < ops.size() ? operand(at, ops[k]) : values::top();
  }

  // The value an instruction writes to its operand-0 register.
  AbstractValue evaluate(InstId d) {
    const Inst& inst = fn.instructions[d];
    const ptx::Instruction& s = *inst.syntax;
    const std::string_view op = s.opcode;  // compared with literals below: no strlen each time
    const std::string opaque = name(d, "def");
    auto withSpace = [](AbstractValue v, Space sp) {
      if (v.known) v.space = sp;
      return v;
    };
    if (op == "mov") return src(d, 1);
    if (op == "cvta") {
      Space sp = s.hasModifier("shared") || s.hasModifier("shared::cta") ? Space::SharedCta
                 : s.hasModifier("shared::cluster")                     ? Space::SharedCluster
                 : s.hasModifier("global")                              ? Space::Global
                 : s.hasModifier("local")                               ? Space::Local
                 : s.hasModifier("const")                               ? Space::Const
                 : s.hasModifier("param")                               ? Space::Param
                                                                        : Space::Generic;
      AbstractValue v = src(d, 1);
      return v.known ? withSpace(v, sp) : term(opaque);
    }
    if (op == "mapa") return withSpace(src(d, 1), Space::SharedCluster);
    if (op == "cvt") return isIntegerConversion(s) ? src(d, 1) : term(opaque);
    if (op == "add" && !s.hasModifier("f32") && !s.hasModifier("f64") && !s.hasModifier("f16")) {
      if (auto remainder = lockstepMadRemainder(d, opaque)) return *remainder;
      AbstractValue a = src(d, 1), b = src(d, 2);
      // A pointer (converted to a state space by cvta or mapa, or read by a
      // load that a cvta converts elsewhere) plus a value read from memory
      // that is never converted: the pointer plus an unknown offset
      // (NVSHMEM's `psync + team->offset`), not two bases. Adding two
      // pointers means nothing, and an offset is never converted.
      auto isPointer = [&](const AbstractValue& v) {
        return v.hasBase() && ((v.space != Space::Generic && v.space != Space::None) ||
                               (v.baseKind == BaseKind::Loaded && convertedLoads.count(v.base)));
      };
      auto convertedPlusLoaded = [&](const AbstractValue& p, const AbstractValue& q) {
        return p.known && q.known && isPointer(p) && q.baseKind == BaseKind::Loaded && q.space == Space::Generic &&
               !convertedLoads.count(q.base);
      };
      if (convertedPlusLoaded(a, b)) return nonTop(add(a, term(name(d, "offset")), opaque), opaque);
      if (convertedPlusLoaded(b, a)) return nonTop(add(b, term(name(d, "offset")), opaque), opaque);
      return nonTop(add(a, b, opaque), opaque);
    }
    if (op == "sub" && !s.hasModifier("f32") && !s.hasModifier("f64")) {
      if (auto largest = remainderBound(d)) return term(opaque, 0, *largest);
      if (auto remainder = lockstepRemainder(d, opaque)) return *remainder;
      if (auto r = signedRemainderRange(d)) return term(opaque, r->first, r->second);
      return nonTop(subtract(src(d, 1), src(d, 2), opaque), opaque);
    }
    if ((op == "mul" && (s.hasModifier("lo") || s.hasModifier("wide"))) ||
        ((op == "mad") && (s.hasModifier("lo") || s.hasModifier("wide")))) {
      AbstractValue a = src(d, 1), b = src(d, 2);
      const bool wide = s.hasModifier("wide");
      AbstractValue product = a.isConstant() ? scaleOrMultiple(d, b, a.constant, wide, opaque)
                              : b.isConstant() ? scaleOrMultiple(d, a, b.constant, wide, opaque)
                                               : term(opaque);
      return op == "mad" ? nonTop(add(product, src(d, 3), opaque), opaque) : nonTop(product, opaque);
    }
    if (op == "shl") {
      AbstractValue a = src(d, 1), k = src(d, 2);
      const int bits = s.hasModifier("b64") || s.hasModifier("u64") || s.hasModifier("s64") ? 64 : 32;
      if (k.isConstant() && k.constant >= 0 && k.constant < std::min(bits - 1, 62))
        return scaleOrMultiple(d, a, int64_t(1) << k.constant, false, opaque);
      return term(opaque);
    }
    if (op == "and" || op == "or" || op == "xor" || op == "shr" || op == "rem" || op == "div") return bitwise(d, opaque);
    if (op == "selp") {
      ValueReg p = inst.operands.size() > 3 && inst.operands[3].kind == Kind::Register ? inst.operands[3].reg : -1;
      bool neverFirst = false, neverSecond = false;
      AbstractValue first = refine(src(d, 1), p, d, true, &neverFirst);
      AbstractValue second = refine(src(d, 2), p, d, false, &neverSecond);
      if (neverFirst && !neverSecond) return second;
      if (neverSecond && !neverFirst) return first;
      const bool wide = s.hasModifier("b64") || s.hasModifier("u64") || s.hasModifier("s64");
      if (auto pointer = nullCheckedPointer(first, second, wide)) return *pointer;
      return join(first, second, name(d, "join"));
    }
    // A shuffle returns another lane's operand: the operand's range.
    // A value with no index terms (a constant, a symbol's address plus a
    // constant) is the same in every lane: the shuffle returns it (the CuTe
    // DSL makes the shared base warp-uniform so: shfl.sync.idx of __dynamic_shmem__0).
    if (op == "shfl") {
      AbstractValue v = src(d, 1);
      if (v.known && v.terms.empty()) return v;
      return boundedLike(v, opaque);
    }
    if (op == "bfe" && s.hasModifier("u32")) return bitfield(d, opaque);
    if (op == "bfi" && s.hasModifier("b32")) return bitInsert(d, opaque);
    if ((op == "min" || op == "max") && !s.hasModifier("f32") && !s.hasModifier("f64")) return minMax(d, opaque);
    // An inlined call's parameter or return value, or a local-memory slot's
    // reload (model/LocalSlots.cpp): the value its store wrote.
    if (op == "ld" && inst.boundStore >= 0) return nonTop(src(inst.boundStore, 1), opaque);
    if (op == "ld" && s.hasModifier("param")) {
      if (auto field = parameterField(d)) return *field;
      return term(opaque);
    }
    if (op == "ld" || op == "ldu") return loadedValue(d, opaque);
    return term(opaque);
  }

  // `ld.param [p + k]`: the value of field k of the kernel's parameter p, a
  // pointer into an object of its own ("p_param_0+48": the fields of a
  // by-value struct are different pointers). The address is the parameter's
  // symbol, or a register holding the parameter's address at a constant
  // offset (nvcc's `mov.b64 %rd, p; ld.param.u64 %r, [%rd+136]`, once some
  // field of p is indexed at run time). A kernel's pointer parameters point to
  // global memory; a .func's may point anywhere.
  // An index into the parameter (`params.table[i]`, i bounded: `i % 8`, a
  // bounded loop counter, a `selp` of two tables) makes the value the choice
  // of the fields it may read: a load is naturally aligned (PTX ISA, "Memory
  // Operations"), so a w-byte load reads at offsets that are multiples of w,
  // at most values::kMaxAlternatives of them.
  std::optional<AbstractValue> parameterField(InstId d) {
    const Inst& inst = fn.instructions[d];
    const auto& a = inst.operands.size() > 1 ? inst.operands[1] : ptx::Operand{};
    if (a.kind != Kind::Address || inst.origin != fn.function) return std::nullopt;
    AbstractValue address;
    if (a.base.kind == Kind::Symbol) address = symbolValue(inst, std::string(a.baseSymbol()));
    else if (a.base.kind == Kind::Register) address = valueOf(a.base.reg, d);
    if (!address.known || address.baseKind != BaseKind::Param || address.space != Space::Param ||
        !address.alternatives.empty())
      return std::nullopt;
    const ptx::Parameter* param = nullptr;
    for (const auto& p : fn.function->params)
      if (p.name == address.base) param = &p;
    if (!param) return std::nullopt;
    address = add(address, constant(a.offset), name(d, "field"));
    const Space sp = fn.function->isEntry ? Space::Global : Space::Generic;
    auto field = [&](int64_t offset) {
      return values::object(BaseKind::Param, offset ? param->name + "+" + std::to_string(offset) : param->name, sp);
    };
    const int64_t width = scalarWidth(*inst.syntax);
    // A kernel's scalar of 32 bits or fewer is an integer (a rank, a count),
    // never a pointer: a variable of its own, so that `8 * rank + s` stays
    // affine (an object base cannot be scaled).
    if (address.terms.empty() && fn.function->isEntry && width > 0 && width <= 4)
      return term("param:" + (address.constant ? param->name + "+" + std::to_string(address.constant) : param->name));
    if (address.terms.empty()) return field(address.constant);
    auto range = address.offsetRange();
    if (width <= 0 || !range || range->first < 0) return std::nullopt;
    const int64_t first = (range->first + width - 1) / width * width;
    if (range->second < first || (range->second - first) / width + 1 > int64_t(values::kMaxAlternatives))
      return std::nullopt;
    std::optional<AbstractValue> choice;
    for (int64_t offset = first; offset <= range->second; offset += width)
      choice = choice ? join(*choice, field(offset), name(d, "fields")) : field(offset);
    if (choice && choice->known) choice->terms.clear();  // each choice is a field's own pointer
    return choice && choice->known ? choice : std::nullopt;
  }

  // The bytes of a scalar load or store's type (.u64: 8); 0 for a vector.
  static int64_t scalarWidth(const ptx::Instruction& s) {
    static constexpr std::pair<std::string_view, int64_t> kWidths[] = {
        {"8", 1}, {"16", 2}, {"32", 4}, {"64", 8}};
    if (vectorLength(s) > 1) return 0;
    int64_t width = 0;
    for (const auto& m : s.modifiers) {
      if (m.size() < 2 || (m[0] != 'u' && m[0] != 's' && m[0] != 'b')) continue;
      for (const auto& [bits, bytes] : kWidths)
        if (std::string_view(m).substr(1) == bits) width = bytes;
    }
    return width;
  }

  // A 64-bit scalar load reads a pointer (a struct field, a pointer-table
  // entry): its value is an object of its own, named by the address it was
  // read from, so that `s->inbound` and `s->expected` are different objects
  // and two loads of `ptrs[peer]` the same one.
  // The name of the object a pointer read by the load `d` points into,
  // "load(<address form>)", or empty when the address has no form.
  std::string loadedObjectName(InstId d) const {
    std::string from = identity->addressKey(d, fn.instructions[d].effect.address);
    return from.empty() ? from : "load(" + from + ")";
  }

  AbstractValue loadedValue(InstId d, const std::string& opaque) {
    const Inst& inst = fn.instructions[d];
    const MemoryEffect& e = inst.effect;
    if (e.kind != EffectKind::Load || e.address < 0) return term(opaque);
    if (vectorLength(*inst.syntax) > 1) return term(opaque);
    bool pointerWide = false;
    for (const auto& m : inst.syntax->modifiers) {
      if (m == "u64" || m == "b64" || m == "s64") pointerWide = true;
    }
    if (!pointerWide) return narrowLoadedValue(*inst.syntax, opaque);
    std::string object = loadedObjectName(d);
    if (object.empty()) return term(opaque);
    pointerLoads.emplace(object, d);
    return values::object(BaseKind::Loaded, std::move(object), Space::Generic);
  }

  AbstractValue nonTop(AbstractValue v, const std::string& opaque) { return v.known ? v : term(opaque); }

  // A scalar load of 8 or 16 bits: the register holds the loaded value
  // zero-extended (.u and .b types) or sign-extended (.s types) to its width
  // (PTX ISA, the relaxed type-checking rules for destination operands): a
  // byte's value lies in [0, 255] whatever the register's width, so a
  // byte-wide mask (`idx & ep->mask`, UCX's queue index) bounds what it
  // masks (issue 34 P1).
  AbstractValue narrowLoadedValue(const ptx::Instruction& s, const std::string& opaque) {
    if (s.hasModifier("u8") || s.hasModifier("b8")) return term(opaque, 0, 255);
    if (s.hasModifier("u16") || s.hasModifier("b16")) return term(opaque, 0, 65535);
    if (s.hasModifier("s8")) return term(opaque, -128, 127);
    if (s.hasModifier("s16")) return term(opaque, -32768, 32767);
    return term(opaque);
  }

  // x * k for the multiplication (or shift) d, whose opaque name is
  // `opaque`. When x has no affine form (an
  // integer kernel parameter, which this analysis keeps as an object; a
  // loaded index) the product is still a multiple of k: k times an opaque
  // variable of its own ("mul:<d>", never "def:<d>", which a depth limit may
  // name with another meaning), so that offsets on one stride keep their
  // factor (MemoryAnalysis: `2 * rank` and `2 * rank + 1` never meet). A
  // truncated product keeps the factor only when k is a power of two;
  // `wide` products are not truncated.
  AbstractValue scaleOrMultiple(InstId d, const AbstractValue& x, int64_t k, bool wide, const std::string& opaque) {
    AbstractValue product = scale(x, k, opaque);
    const bool opaqueProduct = !product.known || (product.terms.size() == 1 && product.terms[0].name == opaque);
    if (!opaqueProduct) return product;
    const bool keepsFactor = k != 0 && (wide || (k > 0 && (k & (k - 1)) == 0));
    if (!keepsFactor) return parameterProduct(d, x, k, wide).value_or(term(opaque));
    AbstractValue multiple = term(name(d, "mul"));
    multiple.terms[0].coefficient = k;
    return multiple;
  }

  // x * k where x is a kernel parameter's value (an integer parameter, kept
  // as an object) and k does not keep a factor: one number for the whole
  // launch, named by what it is computed from, so that two multiplications of
  // the parameter by k are the same term. nvcc may compute `p + 88 * i` once
  // per use (`mad.lo.s64 %a, %i, 88, %p` twice, one on the converted pointer)
  // where an older target shares one `mul.lo`: the record's fields at +0 and
  // +16 are then apart in both (issue 34 P2, Mooncake's task slot).
  std::optional<AbstractValue> parameterProduct(InstId d, const AbstractValue& x, int64_t k, bool wide) {
    if (!x.known || x.baseKind != BaseKind::Param || !x.terms.empty() || !x.alternatives.empty() || x.constant != 0)
      return std::nullopt;
    const ptx::Instruction& s = *fn.instructions[d].syntax;
    // The low half depends on the width only; a wide product on the sign too.
    std::string type;
    for (std::string_view m : {"s16", "u16", "s32", "u32", "s64", "u64", "b32", "b64"})
      if (s.hasModifier(m)) type = wide ? std::string(m) : "lo" + std::string(m.substr(1));
    if (type.empty()) return std::nullopt;
    return term(fmt::format("prod:{}*{}.{}{}", x.base.str(), k, type, wide ? ".wide" : ""));
  }

  // The definition of a register operand, or -1.
  InstId definitionOf(InstId at, size_t k) {
    const auto& ops = fn.instructions[at].operands;
    return k < ops.size() && ops[k].kind == Kind::Register ? definition(ops[k].reg, at) : -1;
  }

  // Is operand k of `at` the value x (same abstract value) for every thread?
  bool sameAs(InstId at, size_t k, const AbstractValue& x) {
    AbstractValue v = src(at, k);
    return v.known && x.known && v == x;
  }

  // `sub r, x, y` where y is x rounded down: nvcc's remainder by a constant,
  // `x - (x & M)` (= x & ~M: signed x % 2^k for x >= 0, where nvcc may also
  // clear the bits x never has) or `x - c * (x * M >> s)` (unsigned x % c by
  // a magic multiplier, = x % c). Returns the largest value r may take.
  // Only for 0 <= x < 2^32.
  // `sub r, x, ((x + b) & -2^k)` with b in [0, 2^k - 1]: nvcc's signed x % 2^k
  // for x of any sign (b = (x >> 31) >>> (32 - k), the rounding bias of a
  // negative x). (x + b) & (2^k - 1) = x + b - round lies in [0, 2^k - 1], so
  // r = x - round lies in [-b, 2^k - 1 - b]. Returns r's range.
  std::optional<Range> signedRemainderRange(InstId d) {
    InstId y = definitionOf(d, 2);
    if (y < 0 || fn.instructions[y].opcode() != "and") return std::nullopt;
    const AbstractValue x = src(d, 1);
    if (!x.known || x.hasBase()) return std::nullopt;
    for (size_t m = 1; m <= 2; ++m) {
      AbstractValue mask = src(y, m);
      if (!mask.isConstant() || mask.constant >= 0) continue;
      const uint64_t modulus = uint64_t(0) - static_cast<uint64_t>(mask.constant);
      if ((modulus & (modulus - 1)) != 0 || modulus > (uint64_t(1) << 31)) continue;
      InstId sum = definitionOf(y, 3 - m);
      if (sum < 0 || fn.instructions[sum].opcode() != "add") continue;
      for (size_t k = 1; k <= 2; ++k) {
        if (!sameAs(sum, k, x)) continue;
        AbstractValue bias = src(sum, 3 - k);
        auto b = bias.numericRange();
        if (b && b->first >= 0 && b->second < static_cast<int64_t>(modulus))
          return Range{-b->second, static_cast<int64_t>(modulus) - 1 - b->first};
      }
    }
    return std::nullopt;
  }

  std::optional<int64_t> remainderBound(InstId d) {
    AbstractValue x = src(d, 1);
    if (x.hasBase()) return std::nullopt;
    auto range = x.offsetRange();
    // A 32-bit register's bits, read unsigned, lie in [0, 2^32) whatever x is.
    const bool thirtyTwo = fn.instructions[d].hasModifier("u32") || fn.instructions[d].hasModifier("s32");
    if (!range && thirtyTwo) range = Range{0, (int64_t(1) << 32) - 1};
    if (!range || range->first < 0 || range->second >= (int64_t(1) << 32)) return std::nullopt;
    InstId y = definitionOf(d, 2);
    if (y < 0) return std::nullopt;
    const Inst& round = fn.instructions[y];
    // x - (x & M) = x & ~M, and x has no bits at or above bit-length(xMax).
    if (round.opcode() == "and") {
      AbstractValue mask = src(y, 2);
      if (!mask.isConstant() || !sameAs(y, 1, x)) return std::nullopt;
      uint64_t width = 1;
      while (width <= static_cast<uint64_t>(range->second)) width <<= 1;
      return static_cast<int64_t>(~static_cast<uint64_t>(mask.constant) & (width - 1));
    }
    // c * q (mul.lo, or shl for c = 2^k) with q = floor(x / c)
    int64_t c = 0;
    InstId q = -1;
    if (round.opcode() == "mul" && round.hasModifier("lo")) {
      AbstractValue k = src(y, 2);
      if (!k.isConstant()) return std::nullopt;
      c = k.constant;
      q = definitionOf(y, 1);
    }
    if (c <= 1 || q < 0 || !isQuotient(q, x, c, range->second)) return std::nullopt;
    return c - 1;
  }

  // `sub r, x, c * q` with q = floor(y / m) and x = a * y kept in lockstep by
  // the loop (x and y start at constants ix = a * iy and grow by sx = a * sy
  // in one block): r = a * (y mod m) when c = a * m, in [0, a * (m - 1)] on
  // multiples of a. Triton's strength-reduced stage offset: the loop counts
  // k in a 64-bit register and the byte offset 8192 * k in a 32-bit one, and
  // the stage is 8192 * k - 24576 * (k / 3) (the product wraps at 2^32 the
  // same way on both sides, so the small difference is exact).
  std::optional<AbstractValue> lockstepRemainder(InstId d, const std::string& opaque) {
    const auto& ops = fn.instructions[d].operands;
    if (ops.size() < 3 || ops[1].kind != Kind::Register) return std::nullopt;
    const InstId product = definitionOf(d, 2);
    if (product < 0) return std::nullopt;
    const Inst& mul = fn.instructions[product];
    int64_t c = 0;
    if (mul.opcode() == "mul" && mul.hasModifier("lo") && src(product, 2).isConstant()) c = src(product, 2).constant;
    else if (mul.opcode() == "shl" && src(product, 2).isConstant() && src(product, 2).constant > 0 &&
             src(product, 2).constant < 31)
      c = int64_t(1) << src(product, 2).constant;
    return wrappedLockstep(ops[1].reg, definitionOf(product, 1), c, opaque);
  }

  // The same wrap with the base folded into a multiply-add, as nvcc writes
  // smem + 8192 * k - 24576 * (k / 3): `mad.lo t, q, -c, b` then
  // `add r, t, x` (either order), b a symbol or parameter with no terms:
  // r = b + a * (y mod m).
  std::optional<AbstractValue> lockstepMadRemainder(InstId d, const std::string& opaque) {
    const auto& ops = fn.instructions[d].operands;
    if (ops.size() < 3) return std::nullopt;
    for (int k = 1; k <= 2; ++k) {
      if (ops[3 - k].kind != Kind::Register) continue;
      const InstId mad = definitionOf(d, k);
      if (mad < 0 || fn.instructions[mad].opcode() != "mad" || !fn.instructions[mad].hasModifier("lo") ||
          fn.instructions[mad].operands.size() < 4)
        continue;
      const AbstractValue base = src(mad, 3);
      if (!isFixedBase(base)) continue;
      for (int f = 1; f <= 2; ++f) {
        const AbstractValue factor = src(mad, 3 - f);
        if (!factor.isConstant() || factor.constant >= 0 || factor.constant == INT64_MIN) continue;
        auto r = wrappedLockstep(ops[3 - k].reg, definitionOf(mad, f), -factor.constant, opaque);
        if (r) return add(base, *r, opaque);
      }
    }
    return std::nullopt;
  }

  // A symbol or parameter plus a constant, nothing else: the same value on
  // every trip of any loop (a wrapped lockstep counter's base).
  static bool isFixedBase(const AbstractValue& v) {
    return v.known && v.terms.empty() &&
           (v.baseKind == BaseKind::SharedSymbol || v.baseKind == BaseKind::GlobalSymbol ||
            v.baseKind == BaseKind::Param);
  }

  // x - c * q as a * (y mod m) + x's base, where q = floor(y / m) and x is kept
  // at b + a * y by the loop (lockstepRatio), c = a * m.
  std::optional<AbstractValue> wrappedLockstep(ValueReg x, InstId q, int64_t c, const std::string& opaque) {
    if (c <= 1 || q < 0 || x < 0) return std::nullopt;
    const ValueReg y = dividend(q);
    if (y < 0) return std::nullopt;
    AbstractValue base;  // x's start beyond a * y's: a loop-invariant base, or nothing
    const std::optional<int64_t> a = lockstepRatio(x, y, &base);
    if (!a || *a <= 0 || c % *a != 0 || c / *a < 2) return std::nullopt;
    const int64_t m = c / *a;
    // The dividend as the multiply reads it: its bits, unsigned.
    const InstId q0 = quotientMultiply(q);
    const bool wide64 = q0 >= 0 && fn.instructions[q0].hasModifier("u64");
    const int64_t yMax = wide64 ? INT64_MAX : (int64_t(1) << 32) - 1;
    if (!isQuotient(q, valueOf(y, q0), m, yMax)) return std::nullopt;
    AbstractValue r = term(opaque, 0, m - 1);
    r.terms[0].coefficient = *a;
    if (base.hasBase()) return add(base, r, opaque);
    return r;
  }

  // The multiply of a magic-number quotient (through cvt and shr), or -1.
  InstId quotientMultiply(InstId q) {
    for (int hops = 0; hops < 2 && q >= 0 && fn.instructions[q].opcode() == "cvt"; ++hops) q = definitionOf(q, 1);
    if (q < 0 || fn.instructions[q].opcode() != "shr") return -1;
    const InstId m = definitionOf(q, 1);
    return m >= 0 && fn.instructions[m].opcode() == "mul" ? m : -1;
  }

  // The register a magic-number quotient divides, or -1.
  ValueReg dividend(InstId q) {
    const InstId m = quotientMultiply(q);
    if (m < 0) return -1;
    const auto& ops = fn.instructions[m].operands;
    return ops.size() > 1 && ops[1].kind == Kind::Register ? ops[1].reg : -1;
  }

  // a with x = a * y on every trip: each register has one constant start and
  // one update `add r, r, step` (no guard), the two starts in one block and
  // the two updates in one block, ix = a * iy and sx = a * sy. x may also
  // start at a base plus a constant (`mov x, global_smem`: Triton's 32-bit
  // stage address counts from the shared array while the 64-bit trip count
  // counts from 0); then x = b + a * y, and `base` receives b (a symbol and
  // nothing else: the same on every trip).
  std::optional<int64_t> lockstepRatio(ValueReg x, ValueReg y, AbstractValue* base = nullptr) {
    struct Counter {
      InstId start = -1, update = -1;
      int64_t first = 0, step = 0;
    };
    auto counterOf = [&](ValueReg r) -> std::optional<Counter> {
      if (r < 0 || static_cast<size_t>(r) >= defs.size() || defs[r].size() != 2) return std::nullopt;
      Counter counter;
      for (InstId def : defs[r]) {
        const Inst& in = fn.instructions[def];
        if (in.guard) return std::nullopt;
        const auto& ops = in.operands;
        const bool update = in.opcode() == "add" && ops.size() == 3 && ops[1].kind == Kind::Register &&
                            ops[1].reg == r && src(def, 2).isConstant();
        if (update) {
          counter.update = def;
          counter.step = src(def, 2).constant;
        } else {
          const AbstractValue v = valueDefinedBy(def, r);
          const bool based = r == x && base && isFixedBase(v);
          if (!v.isConstant() && !based) return std::nullopt;
          if (based) {
            *base = v;
            base->constant = 0;
          }
          counter.start = def;
          counter.first = v.constant;
        }
      }
      if (counter.start < 0 || counter.update < 0 || counter.step == 0) return std::nullopt;
      return counter;
    };
    if (base) *base = AbstractValue{};
    const auto cx = counterOf(x), cy = counterOf(y);
    if (!cx || !cy || fn.instructions[cx->start].block != fn.instructions[cy->start].block ||
        fn.instructions[cx->update].block != fn.instructions[cy->update].block || cx->step % cy->step != 0)
      return std::nullopt;
    const int64_t a = cx->step / cy->step;
    if (cx->first != a * cy->first) return std::nullopt;
    return a;
  }

  // Is the value defined at `q` floor(x / c) for every x in [0, xMax]?
  // Forms: div.u32 x, c; cvt.u32.u64 (shr.u64 (mul.wide.u32 x, M), s);
  // shr.u32 (mul.hi.u32 x, M), s. A magic multiplier M is exact when
  // 2^s <= M * c <= 2^s + 2^s / (xMax + 1) (Granlund and Montgomery).
  bool isQuotient(InstId q, const AbstractValue& x, int64_t c, int64_t xMax) {
    for (int hops = 0; hops < 2 && q >= 0 && fn.instructions[q].opcode() == "cvt"; ++hops) q = definitionOf(q, 1);
    if (q < 0) return false;
    const Inst& in = fn.instructions[q];
    if (in.opcode() == "div" && in.hasModifier("u32")) return sameAs(q, 1, x) && src(q, 2).isConstant() && src(q, 2).constant == c;
    if (in.opcode() == "add") return isSignedQuotient(q, x, c, xMax);
    if (in.opcode() != "shr") return false;
    AbstractValue amount = src(q, 2);
    if (!amount.isConstant() || amount.constant < 0 || amount.constant > 63) return false;
    int64_t shift = amount.constant;
    InstId m = definitionOf(q, 1);
    if (m < 0) return false;
    const Inst& mul = fn.instructions[m];
    if (mul.opcode() != "mul" || !sameAs(m, 1, x)) return false;
    const bool sixtyFour = mul.hasModifier("u64");
    if (mul.hasModifier("hi")) shift += sixtyFour ? 64 : 32;
    else if (!mul.hasModifier("wide")) return false;
    AbstractValue multiplier = src(m, 2);
    if (!multiplier.isConstant()) return false;
    // A .u32 (or .u64) immediate, maybe printed negative.
    unsigned __int128 M = sixtyFour ? static_cast<uint64_t>(multiplier.constant) : static_cast<uint32_t>(multiplier.constant);
    unsigned __int128 power = static_cast<unsigned __int128>(1) << shift;
    unsigned __int128 product = M * static_cast<unsigned __int128>(c);
    return product >= power && product - power <= power / (static_cast<unsigned __int128>(xMax) + 1);
  }

  // Signed division by a constant, as nvcc writes `x / c` on an int:
  // t = mul.hi.s32 x, M (then maybe shr.s32 t, s); q = t + (t >>u 31), the
  // second term rounding a negative quotient towards zero. For x in
  // [0, xMax] and M positive t is never negative, so q = floor(x * M /
  // 2^(32 + s)): exact under the same condition as the unsigned form.
  bool isSignedQuotient(InstId q, const AbstractValue& x, int64_t c, int64_t xMax) {
    for (int order = 0; order < 2; ++order) {
      const InstId t = definitionOf(q, order == 0 ? 1 : 2), sign = definitionOf(q, order == 0 ? 2 : 1);
      if (t < 0 || sign < 0) continue;
      const Inst& shift = fn.instructions[sign];
      if (shift.opcode() != "shr" || !shift.hasModifier("u32") || !src(sign, 2).isConstant() ||
          src(sign, 2).constant != 31 || definitionOf(sign, 1) != t)
        continue;
      int64_t extra = 0;
      InstId m = t;
      if (fn.instructions[t].opcode() == "shr" && fn.instructions[t].hasModifier("s32")) {
        AbstractValue amount = src(t, 2);
        if (!amount.isConstant() || amount.constant < 0 || amount.constant > 31) return false;
        extra = amount.constant;
        m = definitionOf(t, 1);
      }
      if (m < 0) return false;
      const Inst& mul = fn.instructions[m];
      if (mul.opcode() != "mul" || !mul.hasModifier("hi") || !mul.hasModifier("s32") || !sameAs(m, 1, x)) return false;
      AbstractValue multiplier = src(m, 2);
      if (!multiplier.isConstant() || static_cast<int32_t>(multiplier.constant) <= 0) return false;
      const unsigned __int128 M = static_cast<uint32_t>(multiplier.constant);
      const unsigned __int128 power = static_cast<unsigned __int128>(1) << (32 + extra);
      const unsigned __int128 product = M * static_cast<unsigned __int128>(c);
      return product >= power && product - power <= power / (static_cast<unsigned __int128>(xMax) + 1);
    }
    return false;
  }

  // An opaque value with the range of `v` (when it has one).
  AbstractValue boundedLike(const AbstractValue& v, const std::string& opaque) {
    auto r = v.numericRange();
    return r ? term(opaque, r->first, r->second) : term(opaque);
  }

  // bfe.u32 d, a, pos, len: bits [pos, pos + len) of a, zero-extended.
  AbstractValue bitfield(InstId d, const std::string& opaque) {
    AbstractValue a = src(d, 1), pos = src(d, 2), len = src(d, 3);
    if (!pos.isConstant() || !len.isConstant() || len.constant <= 0 || len.constant > 32 || pos.constant < 0 ||
        pos.constant > 31)
      return term(opaque);
    int64_t high = (int64_t(1) << len.constant) - 1;
    auto r = a.numericRange();
    if (r && r->first >= 0 && r->second < (int64_t(1) << 32)) high = std::min(high, r->second >> pos.constant);
    return term(opaque, 0, high);
  }

  // bfi.b32 d, a, b, pos, len: b with bits [pos, pos + len) replaced by a's low
  // len bits. Exact when b lies below the field and a fits in it (nvcc packs
  // two indices so: a * 2^pos + b); otherwise opaque.
  AbstractValue bitInsert(InstId d, const std::string& opaque) {
    AbstractValue a = src(d, 1), b = src(d, 2), pos = src(d, 3), len = src(d, 4);
    if (!pos.isConstant() || !len.isConstant() || pos.constant < 0 || pos.constant > 31 || len.constant <= 0)
      return term(opaque);
    auto ra = a.numericRange();
    auto rb = b.numericRange();
    const int64_t field = len.constant >= 32 ? INT64_MAX : (int64_t(1) << len.constant) - 1;
    if (ra && rb && ra->first >= 0 && ra->second <= field && rb->first >= 0 && rb->second < (int64_t(1) << pos.constant))
      return nonTop(add(scale(a, int64_t(1) << pos.constant, opaque), b, opaque), opaque);
    return term(opaque);
  }

  AbstractValue minMax(InstId d, const std::string& opaque) {
    const bool isMin = fn.instructions[d].opcode() == "min";
    AbstractValue a = src(d, 1), b = src(d, 2);
    auto ra = a.numericRange();
    auto rb = b.numericRange();
    if (ra && rb)
      return isMin ? term(opaque, std::min(ra->first, rb->first), std::min(ra->second, rb->second))
                   : term(opaque, std::max(ra->first, rb->first), std::max(ra->second, rb->second));
    // min(x, C) <= C (and >= 0 when unsigned).
    const ptx::Instruction& s = *fn.instructions[d].syntax;
    const bool isUnsigned = s.hasModifier("u32") || s.hasModifier("u64") || s.hasModifier("u16");
    if (isMin && isUnsigned && (ra || rb)) return term(opaque, 0, ra ? ra->second : rb->second);
    return term(opaque);
  }

  // A shared address masked only where no shared::cta offset has bits: the
  // CTA-rank bits of a shared::cluster address (bit 24 and up; CUTLASS's
  // `smem_addr & Sm100MmaPeerBitMask` names the barrier of the even CTA of
  // a pair) and bits below the address's alignment. The result is the same
  // object and offset, in some CTA of the cluster, as mapa gives it.
  std::optional<AbstractValue> maskedSharedAddress(InstId d, const AbstractValue& v, int64_t mask) const {
    if (!v.known || v.baseKind != BaseKind::SharedSymbol || !v.alternatives.empty()) return std::nullopt;
    if (v.space != Space::SharedCta && v.space != Space::SharedCluster) return std::nullopt;
    const ptx::Variable* symbol = variable(fn.instructions[d], v.base);
    if (!symbol) return std::nullopt;
    AbstractValue offset = v;
    offset.baseKind = BaseKind::None;
    offset.base.clear();
    offset.space = Space::None;
    const std::string_view type = symbol->type.empty() ? std::string_view() : std::string_view(symbol->type).substr(1);
    const int64_t declared = symbol->align > 0 ? symbol->align : std::max<int64_t>(1, typeWidth(type));
    const int64_t alignment = std::min(declared, alignmentOf(offset));
    const bool wide = fn.instructions[d].hasModifier("b64") || fn.instructions[d].hasModifier("u64");
    const uint64_t cleared = ~static_cast<uint64_t>(mask) & (wide ? ~uint64_t(0) : uint64_t(0xFFFFFFFF));
    constexpr uint64_t kWindow = uint64_t(1) << 24;
    if ((cleared & (kWindow - 1)) >= static_cast<uint64_t>(alignment)) return std::nullopt;
    AbstractValue kept = v;
    if (cleared >= kWindow) kept.space = Space::SharedCluster;
    return kept;
  }

  // x ^ y with y in [0, 2^k): an XOR swizzle (CuTe's Swizzle<B, M, S>,
  // `a ^ ((a & 896) >> 3)`) changes only the bits of x below 2^k, so the
  // result stays in x's aligned 2^k-byte block. x = H + L, H the part on
  // multiples of 2^k (the base, the stage and row strides), L the rest (the
  // lane's offset within a row, the constant's low bits): the result is H
  // plus a term in [2^k * floor(min L / 2^k), 2^k * floor(max L / 2^k) +
  // 2^k - 1]. For an address, H's base counts as aligned to 2^k: a swizzle
  // of addresses presumes it (were the base not aligned, the permuted rows
  // would cross into the next buffer, a layout bug rather than an ordering
  // one). L must be bounded.
  std::optional<AbstractValue> swizzle(const AbstractValue& x, const AbstractValue& y, const std::string& opaque) const {
    const auto mixed = y.numericRange();
    if (!x.known || !mixed || mixed->first < 0 || mixed->second >= (int64_t(1) << 30)) return std::nullopt;
    int64_t block = 1;
    while (block <= mixed->second) block <<= 1;
    if (block == 1) return x;  // y == 0
    AbstractValue high = x, low = values::constant(0);
    high.terms.clear();
    high.constant = x.constant - (((x.constant % block) + block) % block);
    low.constant = x.constant - high.constant;
    for (const auto& t : x.terms) {
      if (t.coefficient % block == 0) high.terms.push_back(t);
      else low.terms.push_back(t);
    }
    const auto range = low.offsetRange();
    if (!range) return std::nullopt;
    auto floorTo = [block](int64_t v) { return v >= 0 ? v / block * block : -((-v + block - 1) / block) * block; };
    AbstractValue result = values::add(high, term(opaque, floorTo(range->first), floorTo(range->second) + block - 1), opaque);
    if (result.known) result.space = x.space;
    return result;
  }

  // A mask of the bits operand k of instruction d may have set, followed
  // through the and / or / xor / shift / multiply-by-2^k / move chain that
  // built it (Triton's layout arithmetic `(tid & 12) << 10 | (tid & 3) << 5
  // | ...`, a stage offset `(k & 1) * 8192 ^ 8192`); any other value by its
  // range: every bit up to its maximum's highest, or all 64 when unbounded.
  static uint64_t bitsUpTo(int64_t high) {
    uint64_t limit = 1;
    while (limit <= static_cast<uint64_t>(high) && limit < (uint64_t(1) << 62)) limit <<= 1;
    return limit - 1;
  }
  uint64_t possibleBits(InstId at, size_t k, int depth) {
    constexpr uint64_t kAny = ~uint64_t(0);
    const auto& ops = fn.instructions[at].operands;
    if (k >= ops.size()) return kAny;
    const ptx::Operand& o = ops[k];
    if (o.kind == Kind::Integer) return static_cast<uint64_t>(o.intValue);
    // From the range, less the low bits every value leaves clear (a
    // multiple of 16 sets none of bits 0-3).
    auto byRange = [&] {
      const AbstractValue v = src(at, k);
      auto r = v.numericRange();
      return r && r->first >= 0 ? bitsUpTo(r->second) & ~uint64_t(alignmentOf(v) - 1) : kAny;
    };
    if (o.kind != Kind::Register || depth > 8) return byRange();
    const InstId def = definition(o.reg, at);
    if (def < 0 || fn.instructions[def].guard || !fn.instructions[def].syntax) return byRange();
    const ptx::Instruction& s = *fn.instructions[def].syntax;
    const std::string_view op = s.opcode;
    auto shiftOf = [&]() -> int {  // the constant shift of a shl or shr, or of a multiply by 2^k
      const auto& dops = fn.instructions[def].operands;
      if (dops.size() < 3 || dops[2].kind != Kind::Integer) return -1;
      const int64_t c = dops[2].intValue;
      if (op == "shl" || op == "shr") return c >= 0 && c < 64 ? static_cast<int>(c) : -1;
      return c > 0 && (c & (c - 1)) == 0 ? __builtin_ctzll(static_cast<uint64_t>(c)) : -1;
    };
    static constexpr std::string_view kSignedOrFloat[] = {"s8", "s16", "s32", "s64", "f16", "bf16", "f32", "f64"};
    const bool signedOrFloat =
        std::any_of(std::begin(kSignedOrFloat), std::end(kSignedOrFloat), [&](std::string_view m) { return s.hasModifier(m); });
    uint64_t bits = kAny;
    if (op == "and") {
      bits = possibleBits(def, 1, depth + 1) & possibleBits(def, 2, depth + 1);
    } else if (op == "or" || op == "xor") {
      bits = possibleBits(def, 1, depth + 1) | possibleBits(def, 2, depth + 1);
    } else if (op == "shl" || (op == "mul" && (s.hasModifier("lo") || (s.hasModifier("wide") && !signedOrFloat)))) {
      // (mul.lo truncates to the register; an unsigned mul.wide extends with zeros.)
      if (int shift = shiftOf(); shift >= 0) bits = possibleBits(def, 1, depth + 1) << shift;
    } else if (op == "shr" && !signedOrFloat) {
      if (int shift = shiftOf(); shift >= 0) bits = possibleBits(def, 1, depth + 1) >> shift;
    } else if (op == "mov" || (op == "cvt" && !signedOrFloat)) {
      bits = possibleBits(def, 1, depth + 1);
    }
    return bits & byRange();
  }

  // and / or / xor / shr / rem / div: exact on constants; otherwise an opaque
  // term, bounded when the operation bounds it.
  AbstractValue bitwise(InstId d, const std::string& opaque) {
    const ptx::Instruction& s = *fn.instructions[d].syntax;
    const std::string_view op = s.opcode;
    AbstractValue a = src(d, 1), b = src(d, 2);
    if (a.isConstant() && b.isConstant()) {
      int64_t x = a.constant, y = b.constant;
      if (op == "and") return constant(x & y);
      if (op == "or") return constant(x | y);
      if (op == "xor") return constant(x ^ y);
      if (op == "shr" && y >= 0 && y < 64) return constant(x >> y);
      if (op == "rem" || op == "div") {
        bool isUnsigned = !(s.hasModifier("s16") || s.hasModifier("s32") || s.hasModifier("s64"));
        if (auto folded = foldDivision(x, y, isUnsigned, op == "rem")) return constant(*folded);
      }
      return term(opaque);
    }
    bool isSigned = s.hasModifier("s32") || s.hasModifier("s64");
    auto range = a.numericRange();
    bool nonNegative = range && range->first >= 0;
    if (op == "and" && (b.isConstant() || a.isConstant())) {
      int64_t mask = b.isConstant() ? b.constant : a.constant;
      if (auto kept = maskedSharedAddress(d, b.isConstant() ? a : b, mask)) return *kept;
      // (x << k) & M with M's low k bits clear is (x & (M >> k)) << k: keep
      // the stride (nvcc's `(stage << 13) & 24576`).
      const AbstractValue& shifted = b.isConstant() ? a : b;
      if (mask > 0 && shifted.known && !shifted.hasBase() && shifted.constant == 0 && shifted.terms.size() == 1) {
        const int64_t k = shifted.terms.front().coefficient;
        if (k > 1 && (k & (k - 1)) == 0 && (mask & (k - 1)) == 0)
          return scale(term(opaque, 0, mask / k), k, opaque);
      }
      auto other = b.isConstant() ? range : b.numericRange();
      const bool otherNonNegative = other && other->first >= 0;
      if (mask >= 0) return term(opaque, 0, otherNonNegative ? std::min(mask, other->second) : mask);
      if (otherNonNegative) return term(opaque, 0, other->second);  // and only clears bits
    }
    // x & y with either operand in [0, M] lies in [0, M]: and only clears
    // bits, and a non-negative M has no bit above its own top bit (a queue
    // index masked with a mask loaded as a byte).
    if (op == "and") {
      auto rb = b.numericRange();
      std::optional<int64_t> bound;
      if (nonNegative) bound = range->second;
      if (rb && rb->first >= 0) bound = bound ? std::min(*bound, rb->second) : rb->second;
      if (bound) return term(opaque, 0, *bound);
    }
    // x | y with y below x's lowest set bit is x + y: nvcc packs a stage index
    // above a lane's offset so (`(stage << 7) | (tid & 127)`).
    if (op == "or") {
      auto rb = b.numericRange();
      if (rb && rb->first >= 0 && rb->second < alignmentOf(a)) return nonTop(add(a, b, opaque), opaque);
      if (range && range->first >= 0 && range->second < alignmentOf(b)) return nonTop(add(a, b, opaque), opaque);
    }
    // Both operands non-negative and bounded: the result sets no bit that
    // neither may set (possibleBits), so it is at most their union.
    std::optional<int64_t> unionBound;
    uint64_t unionBits = ~uint64_t(0);
    if ((op == "or" || op == "xor") && nonNegative) {
      auto rb = b.numericRange();
      if (rb && rb->first >= 0 && range->second < (int64_t(1) << 40) && rb->second < (int64_t(1) << 40)) {
        unionBits = possibleBits(d, 1, 0) | possibleBits(d, 2, 0);
        unionBound = static_cast<int64_t>(std::min(unionBits, bitsUpTo(std::max(range->second, rb->second))));
      }
    }
    if (op == "xor") {
      std::optional<AbstractValue> swizzled = swizzle(a, b, opaque);
      if (!swizzled) swizzled = swizzle(b, a, opaque);
      // A swizzle that kept no stride of x is one opaque range: the union
      // of the bits may bound it tighter (`x ^ 8` with x's bits 0x33F8).
      if (swizzled && unionBound && swizzled->terms.size() == 1 && swizzled->terms.front().name == opaque) {
        auto& t = swizzled->terms.front();
        t.high = std::max(t.low, std::min(t.high, *unionBound - swizzled->constant));
      }
      // One that kept strides: when the opaque part stays below the
      // alignment A of what was kept (the strides and the constant), it holds
      // the result's bits below A, which are among the union's bits below A
      // (Triton's `((tid & 7) << 12 | (tid & 127) << 4) ^ 112`: [0, 2032],
      // not [0, 2047]).
      if (swizzled && unionBound && swizzled->terms.size() > 1) {
        AbstractValue kept = *swizzled;
        auto it = std::find_if(kept.terms.begin(), kept.terms.end(), [&](const auto& t) { return t.name == opaque; });
        if (it != kept.terms.end()) {
          const AbstractValue::Term low = *it;
          kept.terms.erase(it);
          const int64_t alignment = alignmentOf(kept);
          if (low.coefficient == 1 && low.low >= 0 && low.high < alignment)
            for (auto& t : swizzled->terms)
              if (t.name == opaque) t.high = std::max(t.low, std::min(t.high, int64_t(unionBits & uint64_t(alignment - 1))));
        }
      }
      if (swizzled) return *swizzled;
    }
    if (unionBound) return term(opaque, 0, *unionBound);
    if (op == "rem" && b.isConstant() && b.constant > 0 && (!isSigned || nonNegative))
      return term(opaque, 0, b.constant - 1);
    // An unsigned shift of any 32- or 64-bit register by k leaves its top k bits clear.
    if (op == "shr" && !nonNegative && b.isConstant() && b.constant > 0 && !isSigned) {
      const int bits = s.hasModifier("u64") || s.hasModifier("b64") ? 64 : 32;
      if (b.constant < bits && bits - b.constant < 63) return term(opaque, 0, (int64_t(1) << (bits - b.constant)) - 1);
    }
    if ((op == "shr" || op == "div") && b.isConstant() && b.constant > 0 && nonNegative) {
      int64_t hi = op == "shr" ? (b.constant < 63 ? range->second >> b.constant : 0) : range->second / b.constant;
      int64_t lo = op == "shr" ? (b.constant < 63 ? range->first >> b.constant : 0) : range->first / b.constant;
      return term(opaque, lo, hi);
    }
    return term(opaque);
  }
};

ValueAnalysis::ValueAnalysis(const FunctionModel& fn) : impl_(std::make_shared<Impl>(fn)) {}

AbstractValue ValueAnalysis::valueOf(ValueReg reg, InstId at) const {
  return impl_->guarded([&] { return impl_->valueOf(reg, at); });
}

AbstractValue ValueAnalysis::valueWrittenBy(InstId d) const {
  const auto& insts = impl_->fn.instructions;
  if (d < 0 || static_cast<size_t>(d) >= insts.size() || insts[d].operands.empty() ||
      insts[d].operands[0].kind != ptx::Operand::Kind::Register || !writesOperand0(insts[d]))
    return values::top();
  return impl_->guarded([&] { return impl_->valueDefinedBy(d, insts[d].operands[0].reg); });
}

AbstractValue ValueAnalysis::operandValue(InstId at, int k) const {
  const auto& insts = impl_->fn.instructions;
  if (at < 0 || static_cast<size_t>(at) >= insts.size() || k < 0 || static_cast<size_t>(k) >= insts[at].operands.size())
    return values::top();
  return impl_->guarded([&] { return impl_->operand(at, insts[at].operands[k]); });
}

const AbstractValue& ValueAnalysis::keptOperandValue(InstId at, int k) const {
  static const AbstractValue unknown = values::top();
  const auto& insts = impl_->fn.instructions;
  if (at < 0 || static_cast<size_t>(at) >= insts.size() || k < 0 || static_cast<size_t>(k) >= insts[at].operands.size())
    return unknown;
  const uint64_t key = (uint64_t(uint32_t(at)) << 16) | uint16_t(k);
  if (const AbstractValue* const* known = impl_->keptOperands[impl_->simple].find(key)) return **known;
  AbstractValue value = impl_->guarded([&] { return impl_->operand(at, insts[at].operands[k]); });
  const AbstractValue& kept = impl_->keptStore.emplace_back(std::move(value));
  impl_->keptOperands[impl_->simple].insert(key, &kept);  // the mode the answer was computed in
  return kept;
}

InstId ValueAnalysis::definition(ValueReg reg, InstId at) const { return impl_->definition(reg, at); }

const std::vector<InstId>& ValueAnalysis::definitions(ValueReg reg) const {
  static const std::vector<InstId> none;
  return reg >= 0 && static_cast<size_t>(reg) < impl_->defs.size() ? impl_->defs[reg] : none;
}

namespace {

// The space `isspacep.SPACE` tests, where an access known to be in it is
// decided by the space alone (no other thread, or only the CTA's threads,
// can touch it); None for the others.
Space testedSpace(const Inst& in) {
  if (in.opcode() != "isspacep" || in.operands.size() < 2) return Space::None;
  if (in.hasModifier("local")) return Space::Local;
  if (in.hasModifier("shared") || in.hasModifier("shared::cta")) return Space::SharedCta;
  return Space::None;
}

// The isspacep tests that predicate `reg` having `value` at `at` implies
// true: through not, mov, and (true), or (false), and the integer round trip
// nvcc makes of a test (`selp.u32 r, 1, 0, p; setp.eq.s32 q, r, 0`: q = !p).
void impliedSpaceTests(const FunctionModel& fn, const ValueAnalysis& values, ValueReg reg, InstId at, bool value,
                       int depth, std::vector<InstId>& out) {
  using Kind = ptx::Operand::Kind;
  if (reg < 0 || depth > 8) return;
  const std::vector<InstId> defs = values.reachingDefinitions(reg, at);
  if (defs.size() != 1) return;
  const InstId def = defs[0];
  const Inst& in = fn.instructions[def];
  if (in.guard && in.guard->reg >= 0) return;
  const auto& ops = in.operands;
  const std::string_view opcode = in.opcode();
  auto sub = [&](const ptx::Operand& op, bool v) {
    if (op.kind == Kind::Register) impliedSpaceTests(fn, values, op.reg, def, op.negated ? !v : v, depth + 1, out);
  };
  if (testedSpace(in) != Space::None) {
    if (value) out.push_back(def);
    return;
  }
  if (opcode == "not" && ops.size() >= 2) return sub(ops[1], !value);
  if (opcode == "mov" && ops.size() >= 2) return sub(ops[1], value);
  if ((opcode == "and" && value) || (opcode == "or" && !value)) {
    for (size_t k = 1; k < ops.size(); ++k) sub(ops[k], value);
    return;
  }
  // setp.eq/ne r, c with r = selp a, b, p (a != b constants, c one of them).
  if (opcode != "setp" || ops.size() != 3 || ops[0].kind != Kind::Register) return;
  const bool eq = in.hasModifier("eq"), ne = in.hasModifier("ne");
  if (!eq && !ne) return;
  const std::optional<int64_t> c = values.constantOf(def, 2);
  if (!c || ops[1].kind != Kind::Register) return;
  const std::vector<InstId> selects = values.reachingDefinitions(ops[1].reg, def);
  if (selects.size() != 1) return;
  const Inst& sel = fn.instructions[selects[0]];
  if (sel.opcode() != "selp" || sel.operands.size() != 4 || (sel.guard && sel.guard->reg >= 0)) return;
  const std::optional<int64_t> a = values.constantOf(selects[0], 1), b = values.constantOf(selects[0], 2);
  if (!a || !b || *a == *b || (*c != *a && *c != *b)) return;
  // The comparison's outcome is `value`; r == c holds when (eq == value).
  const bool rIsC = eq == value;
  // r == a exactly when p holds.
  const bool p = (*c == *a) == rIsC;
  const ptx::Operand& guard = sel.operands[3];
  if (guard.kind == Kind::Register)
    impliedSpaceTests(fn, values, guard.reg, selects[0], guard.negated ? !p : p, depth + 1, out);
}

// An access on a path where `isspacep.local` (or `.shared`) of its own base
// register held true: libcu++'s atomic_ref dispatches on the space, and the
// local branch's plain byte loads touch the thread's own memory (issue 34
// F5). Decided when the base register at the access has the same reaching
// definitions as the tested register at the test.
Space spaceByTest(const FunctionModel& fn, const ValueAnalysis& values, int8_t& testsSpace, InstId at, int k) {
  using Kind = ptx::Operand::Kind;
  if (testsSpace < 0) {
    testsSpace = 0;
    for (const Inst& in : fn.instructions)
      if (testedSpace(in) != Space::None) testsSpace = 1;
  }
  if (!testsSpace || fn.idom.empty() || fn.blockOf.size() != fn.instructions.size()) return Space::None;
  const ptx::Operand& op = fn.instructions[at].operands[k];
  const ValueReg base = op.valueRegister();
  if (base < 0) return Space::None;
  std::vector<InstId> baseDefs;
  auto tests = [&](InstId test) -> Space {
    const ptx::Operand& tested = fn.instructions[test].operands[1];
    if (tested.kind != Kind::Register || tested.reg != base) return Space::None;
    if (baseDefs.empty()) baseDefs = values.reachingDefinitions(base, at);
    if (baseDefs.empty() || values.reachingDefinitions(tested.reg, test) != baseDefs) return Space::None;
    return testedSpace(fn.instructions[test]);
  };
  std::vector<InstId> found;
  if (const auto& g = fn.instructions[at].guard; g && g->reg >= 0)
    impliedSpaceTests(fn, values, g->reg, at, !g->negated, 0, found);
  BlockId b = fn.blockOf[at];
  for (int steps = 0; b >= 0 && steps < 64; ++steps) {
    BlockId from = -1;
    int entries = 0;
    for (BlockId p : fn.blocks[b].predecessors)
      if (!fn.dominates(b, p)) from = p, ++entries;
    if (entries == 1)
      if (std::optional<EdgeCondition> edge = edgeCondition(fn, from, b))
        impliedSpaceTests(fn, values, edge->predicate, edge->branch, edge->value, 0, found);
    const BlockId up = fn.idom[b];
    if (up == b) break;
    b = up;
  }
  for (InstId test : found)
    if (Space s = tests(test); s != Space::None) return s;
  return Space::None;
}

}  // namespace

Space ValueAnalysis::addressSpace(InstId at, int k) const {
  const auto& insts = impl_->fn.instructions;
  if (at < 0 || static_cast<size_t>(at) >= insts.size()) return Space::None;
  const MemoryEffect& e = insts[at].effect;
  Space declared = Space::Generic;
  if (k == e.destination && e.destinationSpace != Space::None) declared = e.destinationSpace;
  else if (k == e.source && e.sourceSpace != Space::None) declared = e.sourceSpace;
  else if (k == e.address && e.space != Space::None) declared = e.space;
  else if (k == e.mbarrier) declared = Space::SharedCta;
  if (declared != Space::Generic) return declared;
  // The kernel's own test of the address (isspacep) before what the value
  // analysis assumes of a pointer read from memory.
  if (impl_->identity)
    if (Space tested = spaceByTest(impl_->fn, *this, impl_->testsSpace, at, k); tested != Space::None) return tested;
  const AbstractValue& v = keptOperandValue(at, k);
  if (v.known && v.space != Space::None && v.space != Space::Param) return v.space;
  return Space::Generic;
}

std::vector<InstId> ValueAnalysis::reachingDefinitions(ValueReg reg, InstId at) const {
  return impl_->identity->reachingDefinitions(reg, at);
}

bool ValueAnalysis::sameValue(InstId a, int oa, InstId b, int ob) const {
  int32_t x = identity(a, oa);
  return x >= 0 && x == identity(b, ob);
}

int32_t ValueAnalysis::identity(InstId at, int operand) const { return impl_->identity->identity(at, operand); }
std::optional<int64_t> ValueAnalysis::constantOf(InstId at, int operand) const {
  return impl_->identity->constantOf(at, operand);
}
bool ValueAnalysis::isNegation(InstId at, int operand) const { return impl_->identity->isNegation(at, operand); }
bool ValueAnalysis::isInvariant(InstId at, int operand) const { return impl_->identity->isInvariant(at, operand); }
bool ValueAnalysis::readsAtomicResult(InstId at, int operand) const {
  return impl_->identity->readsAtomicResult(at, operand);
}
// Its identity is the register's name; or its value is exactly that
// register, as when a selp picks one of two reads of it (CUTLASS's
// Blackwell FMHA: selp of two `mov %cluster_ctarank`).
bool ValueAnalysis::isSpecialRegister(InstId at, int operand, std::string_view name) const {
  if (impl_->identity->isSpecialRegister(at, operand, name)) return true;
  const AbstractValue v = operandValue(at, operand);
  return v.known && !v.hasBase() && v.constant == 0 && v.terms.size() == 1 && v.terms.front().coefficient == 1 &&
         v.terms.front().name == name;
}
bool ValueAnalysis::isMerged(InstId at, int operand) const { return impl_->identity->isMergedAddress(at, operand); }

ValueAnalysis::Identities ValueAnalysis::identitiesNamed(InstId at, int operand) const {
  auto ids = impl_->identity->identitiesNamed(at, operand);
  return {ids.thread, ids.block};
}

const detail::ValueIdentity& ValueAnalysis::identityEngine() const { return *impl_->identity; }

bool ValueAnalysis::atLeastGridSize(std::string_view termName, char dim) const {
  if (termName == std::string("%nctaid.") + dim) return true;
  if (!termName.starts_with("loop:")) return false;
  const size_t at = termName.rfind('@');
  if (at == std::string_view::npos) return false;
  ValueReg reg = -1;
  if (auto [end, error] = std::from_chars(termName.data() + at + 1, termName.data() + termName.size(), reg);
      error != std::errc() || end != termName.data() + termName.size())
    return false;
  if (reg < 0 || static_cast<size_t>(reg) >= impl_->fn.registerNames.size() || impl_->loopName(reg) != termName)
    return false;
  return impl_->guarded([&] { return impl_->counterAtLeastGridSize(reg, dim); });
}

InstId ValueAnalysis::pointerLoad(const std::string& loadedBase) const {
  auto found = impl_->pointerLoads.find(loadedBase);
  return found == impl_->pointerLoads.end() ? -1 : found->second;
}

const ptx::Variable* ValueAnalysis::variable(InstId at, const std::string& symbol) const {
  if (at < 0 || static_cast<size_t>(at) >= impl_->fn.instructions.size()) return nullptr;
  return impl_->variable(impl_->fn.instructions[at], symbol);
}

std::pair<int64_t, int64_t> specialRegisterRange(const std::string& name, const ptx::Function* function) {
  const AbstractValue v = special(name, function);
  if (v.terms.size() != 1) return {INT64_MIN, INT64_MAX};
  return {v.terms[0].low, v.terms[0].high};
}

}  // namespace fenceline::model
