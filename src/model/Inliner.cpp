// Flattening a function: its own instructions, with every call to a `.func`
// that has a body replaced by a copy of that body (recursively, up to a depth
// and a size limit). A hazard split across a `noinline` helper then lies in
// one flat instruction list that the CFG, values and checks see as a whole.
//
// Layout of an inlined call:  [call] [callee body ...] [continuation ...]
// The `call` stays as the anchor of the callee's source chain (Inst::callSite)
// and falls through into the body; a `ret` in the body jumps to the
// continuation. Callee registers get fresh ids. Parameters are bound rather
// than rewritten: the callee's `ld.param [callee_param_N]` and the caller's
// `ld.param [retval0]` point (Inst::boundStore) at the `st.param` that wrote
// the value, and the value analysis reads through that link.
//
// Only the registers a body uses get fresh ids (in the order it uses them),
// so a callee declaring `%r<4000000>` costs what it uses on every call.
//
// Not inlined (left as EffectKind::Call, FunctionModel::hasUnanalyzedCalls):
// calls through a register, to declarations without a body, recursive calls.
// The instructions inlining adds are budgeted (model/Limits.h): a function
// may add --inlining-growth times the instructions of its call tree (each
// function in it once), and past that draws on the input's shared budget.
// In a function whose model would pass --max-instructions or those budgets,
// calls to synchronization-free callees (CallSummaries.h) stay calls with no
// memory effect (Inst::summarizedCall): what remains is inlined as before.
// Past a limit (model/Limits.h: instructions, registers, call depth, the
// inlining budgets) flattening throws LimitExceeded: a half-inlined body
// would be checked as if the rest did not exist.
//
// `brx.idx index, list;` jumps to the labels of `list: .branchtargets ...`.
// Without a list (not valid PTX, but seen in hand-written files) any label may
// be a target, up to kMaxUnlistedTargets labels; more is a limit.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "model/Build.h"
#include "model/CallSummaries.h"

namespace fenceline::model::detail {
namespace {

constexpr size_t kMaxUnlistedTargets = 1024;

// The parameter lists of `call (ret...), callee, (args...)` (the callee:
// calledFunction, CallSummaries.h).
struct CallShape {
  std::vector<std::string> returns;  // caller-side names (retval0 ...)
  std::vector<std::string> args;     // caller-side names (param0 ...)
};

std::vector<std::string> names(const ptx::Operand& list) {
  std::vector<std::string> out;
  for (const auto& e : list.elements) out.push_back(e.kind == ptx::Operand::Kind::Symbol ? std::string(e.text) : std::string());
  return out;
}

CallShape shapeOf(const ptx::Instruction& call) {
  CallShape shape;
  bool sawCallee = false;
  for (const auto& op : call.operands) {
    if (op.kind == ptx::Operand::Kind::ParamList) {
      (sawCallee ? shape.args : shape.returns) = names(op);
    } else if (op.kind == ptx::Operand::Kind::Symbol || op.kind == ptx::Operand::Kind::Register) {
      sawCallee = true;
    }
  }
  return shape;
}

using Slot = std::pair<std::string, int64_t>;  // param symbol + byte offset

// The symbol + offset an ld.param / st.param addresses, if it is a plain symbol.
std::optional<Slot> paramSlot(const ptx::Instruction& inst, bool isStore) {
  if (std::string_view(inst.opcode) != (isStore ? "st" : "ld") || !inst.hasModifier("param")) return std::nullopt;
  int index = isStore ? 0 : 1;
  if (static_cast<int>(inst.operands.size()) <= index) return std::nullopt;
  const auto& a = inst.operands[index];
  if (a.kind != ptx::Operand::Kind::Address || a.base.kind != ptx::Operand::Kind::Symbol) return std::nullopt;
  return Slot{a.baseSymbol(), a.offset};
}

// Fresh model registers for the registers one copied body uses.
class RegisterMap {
 public:
  RegisterMap(FunctionModel& fn, const ptx::Function& f, const Limits& limits) : fn_(fn), f_(f), limits_(limits) {
    // Dense when the declarations are in proportion to the body (nvcc's
    // output), hashed when a body declares far more than it could use.
    if (f.registers.size() <= 4 * f.instructions.size() + 64) dense_.assign(f.registers.size(), -1);
  }

  ValueReg operator()(ptx::RegisterId r) {
    if (r < 0 || static_cast<size_t>(r) >= f_.registers.size()) return -1;
    ValueReg* slot = dense_.empty() ? &sparse_.try_emplace(r, -1).first->second : &dense_[r];
    if (*slot < 0) *slot = fresh(f_.registers[r]);
    return *slot;
  }

 private:
  ValueReg fresh(const ptx::Register& r) {
    if (fn_.registerNames.size() >= limits_.maxRegisters)
      throw LimitExceeded(fmt::format("more than {} registers after inlining (--max-registers)", limits_.maxRegisters));
    fn_.registerNames.push_back(r.name);
    fn_.registerTypes.push_back(r.type);
    return static_cast<ValueReg>(fn_.registerNames.size() - 1);
  }

  FunctionModel& fn_;
  const ptx::Function& f_;
  const Limits& limits_;
  std::vector<ValueReg> dense_;
  std::unordered_map<ptx::RegisterId, ValueReg> sparse_;
};

class Flattener {
 public:
  Flattener(FunctionModel& fn, const Limits& limits, InliningBudget& budget)
      : fn_(fn), limits_(limits), budget_(budget), summaries_(*fn.module, limits.maxCallDepth) {}

  std::vector<Flow> run() {
    const size_t own = fn_.function->instructions.size();
    if (own > limits_.maxInstructions) throw tooManyInstructions();
    // Whole, the model would pass a limit: synchronization-free callees stay calls.
    const size_t whole = summaries_.inlinedSize(*fn_.function, false);
    // Its own budget: the growth over the code its model is built from.
    const size_t tree = summaries_.callTreeSize(*fn_.function);
    ownBudget_ = tree > CallSummaries::kMany / std::max<size_t>(limits_.inliningGrowth, 1)
                     ? CallSummaries::kMany
                     : tree * limits_.inliningGrowth;
    summarize_ = whole > limits_.maxInstructions || whole - own > ownBudget_ + budget_.remaining;
    if (summarize_) fn_.inlinedWhole = whole;
    fn_.instructions.reserve(own);
    flow_.reserve(own);
    // The root's registers, as far as its body could use them (a hint: callees add more).
    const size_t registers = std::min(fn_.function->registers.size(), 4 * own + 64);
    fn_.registerNames.reserve(registers);
    fn_.registerTypes.reserve(registers);
    stack_.push_back(fn_.function);
    copy(*fn_.function, -1, 0, {}, {});
    if (fn_.instructions.size() > limits_.maxInstructions) throw tooManyInstructions();
    return std::move(flow_);
  }

 private:
  // Callee-side parameter name -> the caller's st.param for it.
  using ParamBinding = std::map<Slot, InstId>;
  // Callee-side return name -> caller-side name (for the pending return map).
  struct ReturnSite {
    std::map<std::string, std::string> calleeToCaller;
  };

  // Gives the registers of `op` their model numbers (in remap's order);
  // false when one changes number or `op` holds a label.
  static bool keepsNumbers(const ptx::Operand& op, RegisterMap& regs) {
    bool same = op.kind != ptx::Operand::Kind::Label;
    if (op.kind == ptx::Operand::Kind::Register && op.reg >= 0) same &= regs(op.reg) == op.reg;
    if (op.kind == ptx::Operand::Kind::Address && op.base.kind == ptx::Operand::Kind::Register && op.base.reg >= 0)
      same &= regs(op.base.reg) == op.base.reg;
    for (const auto& e : op.elements) same &= keepsNumbers(e, regs);
    return same;
  }

  // The operands of `syntax` in the model: its own when remapping changes
  // nothing, else a remapped copy.
  std::span<const ptx::Operand> remapped(const ptx::Instruction& syntax, RegisterMap& regs) {
    bool same = true;
    for (const auto& op : syntax.operands) same &= keepsNumbers(op, regs);  // every operand, in order
    if (same) return syntax.operands;
    std::span<ptx::Operand> copy = fn_.remappedOperands.copy(syntax.operands);
    for (auto& op : copy) remap(op, regs);
    return copy;
  }

  static void remap(ptx::Operand& op, RegisterMap& regs) {
    if (op.kind == ptx::Operand::Kind::Register && op.reg >= 0) op.reg = regs(op.reg);
    if (op.kind == ptx::Operand::Kind::Address && op.base.kind == ptx::Operand::Kind::Register && op.base.reg >= 0)
      op.base.reg = regs(op.base.reg);
    if (op.kind == ptx::Operand::Kind::Label) op.label = -1;  // resolved in resolveLabels
    for (auto& e : op.elements) remap(e, regs);
  }

  LimitExceeded tooManyInstructions() const {
    return LimitExceeded(
        fmt::format("more than {} instructions after inlining (--max-instructions)", limits_.maxInstructions));
  }

  // Copies `f` into the flat body. `callSite` is the call it is inlined
  // through (-1 for the root); `args` binds the callee's parameters;
  // `returns` receives the callee's st.param [func_retval] stores.
  void copy(const ptx::Function& f, InstId callSite, int depth, const ParamBinding& args,
            std::map<Slot, InstId>* returns) {
    RegisterMap regs(fn_, f, limits_);
    size_t n = f.instructions.size();
    std::vector<InstId> flatIndex(n + 1, -1);
    std::vector<std::pair<InstId, const ptx::Instruction*>> branches;  // to resolve at the end
    std::vector<InstId> rets;
    std::map<Slot, InstId> lastParamStore;   // caller-side st.param, by slot
    std::map<Slot, InstId> pendingReturns;   // caller-side retval slots after a call
    std::map<Slot, int> returnStoreCount;

    for (size_t k = 0; k < n; ++k) {
      model::poll();  // the function's time budget (model/Limits.h)
      const ptx::Instruction& syntax = f.instructions[k];
      InstId id = static_cast<InstId>(fn_.instructions.size());
      flatIndex[k] = id;
      Inst inst;
      inst.syntax = &syntax;
      inst.origin = &f;
      inst.operands = remapped(syntax, regs);
      inst.guard = syntax.guard;
      if (inst.guard && inst.guard->reg >= 0) inst.guard->reg = regs(inst.guard->reg);
      inst.effect = classify(syntax);
      inst.callSite = callSite;
      inst.inlineDepth = depth;
      fn_.instructions.push_back(std::move(inst));
      flow_.emplace_back();
      Flow& flow = flow_.back();
      const std::string_view op = syntax.opcode;  // compared with literals: no strlen each time
      bool guarded = syntax.guard.has_value();

      if (auto slot = paramSlot(syntax, true)) {
        lastParamStore[*slot] = id;
        if (returns && isReturnName(f, slot->first)) {
          (*returns)[*slot] = id;
          ++returnStoreCount[*slot];
        }
      } else if (auto slot = paramSlot(syntax, false)) {
        if (auto it = args.find(*slot); it != args.end()) fn_.instructions[id].boundStore = it->second;
        else if (auto jt = pendingReturns.find(*slot); jt != pendingReturns.end())
          fn_.instructions[id].boundStore = jt->second;
      }

      if (op == "bra" || op == "brx") {
        flow.jumps = true;
        flow.conditional = guarded;
        branches.emplace_back(id, &syntax);
      } else if (op == "ret" && depth > 0) {
        flow.jumps = true;
        flow.conditional = guarded;
        fn_.instructions[id].effect = MemoryEffect{};  // a jump to the continuation
        rets.push_back(id);
      } else if (op == "ret" || op == "exit" || op == "trap") {
        flow.exits = true;
        flow.conditional = guarded;
      } else if (op == "call") {
        pendingReturns.clear();
        inlineCall(syntax, id, depth, lastParamStore, pendingReturns);
        // `flow_` may have grown: re-fetch nothing from `flow` after this point.
        // A failed device assertion stops the kernel: `__assertfail` does not
        // return (nvcc leaves no `trap` after it, and the next block's label
        // may follow the call as if control fell through). No path goes on.
        if (callsNoReturn(syntax)) {
          flow_[id].exits = true;
          flow_[id].conditional = guarded;
        }
      }
    }
    InstId end = static_cast<InstId>(fn_.instructions.size());
    flatIndex[n] = end;
    for (auto& [slot, count] : returnStoreCount)
      if (count > 1 && returns) (*returns)[slot] = -1;  // several returns: no single binding

    for (auto [id, syntax] : branches) resolveBranch(f, id, *syntax, flatIndex);
    for (InstId r : rets) flow_[r].targets = {end};
  }

  // A call to the CUDA runtime's assertion failure, which never returns.
  static bool callsNoReturn(const ptx::Instruction& call) {
    for (const auto& op : call.operands) {
      if (op.kind == ptx::Operand::Kind::ParamList) continue;  // the return values
      return op.kind == ptx::Operand::Kind::Symbol && op.text == "__assertfail";
    }
    return false;
  }

  static bool isReturnName(const ptx::Function& f, const std::string& name) {
    for (const auto& r : f.returns)
      if (r.name == name) return true;
    return false;
  }

  void resolveBranch(const ptx::Function& f, InstId id, const ptx::Instruction& syntax,
                     const std::vector<InstId>& flatIndex) {
    auto target = [&](ptx::LabelId label) -> InstId {
      if (label < 0 || static_cast<size_t>(label) >= f.labels.size()) return -1;
      auto at = static_cast<size_t>(f.labels[label].instruction);
      return at < flatIndex.size() ? flatIndex[at] : -1;
    };
    Flow& flow = flow_[id];
    Inst& inst = fn_.instructions[id];
    bool any = false;
    std::function<void(const ptx::Operand&, ptx::Operand&)> visit = [&](const ptx::Operand& src, ptx::Operand& dst) {
      if (src.kind == ptx::Operand::Kind::Label) {
        InstId t = target(src.label);
        dst.label = t;
        if (t >= 0) flow.targets.push_back(t);
        any = true;
      }
      for (size_t e = 0; e < src.elements.size() && e < dst.elements.size(); ++e) visit(src.elements[e], dst.elements[e]);
    };
    // A label operand is in a copy (remapped), never the syntax's own.
    for (size_t o = 0; o < syntax.operands.size(); ++o)
      visit(syntax.operands[o], const_cast<ptx::Operand&>(inst.operands[o]));
    if (any || std::string_view(syntax.opcode) != "brx") return;
    if (const ptx::BranchTargets* list = branchTargets(f, syntax)) {
      for (ptx::LabelId label : list->labels)
        if (InstId t = target(label); t >= 0) flow.targets.push_back(t);
      return;
    }
    if (f.labels.size() > kMaxUnlistedTargets)
      throw LimitExceeded(fmt::format("a brx.idx without a .branchtargets list in a function of {} labels (more than {})",
                                      f.labels.size(), kMaxUnlistedTargets));
    for (const auto& l : f.labels)
      if (static_cast<size_t>(l.instruction) < flatIndex.size()) flow.targets.push_back(flatIndex[l.instruction]);
  }

  // The .branchtargets list a `brx.idx index, list;` names, if any.
  const ptx::BranchTargets* branchTargets(const ptx::Function& f, const ptx::Instruction& brx) {
    if (f.branchTargets.empty()) return nullptr;
    auto& lists = listsOf_[&f];
    if (lists.empty())
      for (const auto& list : f.branchTargets) lists.try_emplace(list.name, &list);
    for (const auto& op : brx.operands)
      if (op.kind == ptx::Operand::Kind::Symbol)
        if (auto found = lists.find(op.text); found != lists.end()) return found->second;
    return nullptr;
  }

  void inlineCall(const ptx::Instruction& call, InstId id, int depth,
                  const std::map<Slot, InstId>& lastParamStore, std::map<Slot, InstId>& pendingReturns) {
    CallShape shape = shapeOf(call);
    const ptx::Function* callee = calledFunction(*fn_.module, call);
    bool recursive = false;
    for (const auto* f : stack_) recursive |= (f == callee);
    if (!callee || recursive) {
      fn_.hasUnanalyzedCalls = true;
      return;  // stays EffectKind::Call
    }
    if (summarize_ && summaries_.synchronizationFree(*callee)) {
      // Orders nothing, writes only its own frame: no effect the checks read
      // (its return values are unknown to the value analysis).
      fn_.instructions[id].effect = MemoryEffect{};
      fn_.instructions[id].summarizedCall = true;
      ++fn_.summarizedCalls;
      return;
    }
    if (depth + 1 > limits_.maxCallDepth)
      throw LimitExceeded(fmt::format("calls nested more than {} deep (--max-call-depth)", limits_.maxCallDepth));
    const size_t added = callee->instructions.size();
    if (fn_.instructions.size() + added > limits_.maxInstructions) throw tooManyInstructions();
    // The function's own budget first, then the input's.
    const size_t own = std::min(added, ownBudget_);
    if (added - own > budget_.remaining)
      throw LimitExceeded(fmt::format(
          "inlining spent its budget and the input's ({0} times its call tree's instructions, then {0} times the "
          "input's plus --max-instructions; --inlining-growth)",
          limits_.inliningGrowth));
    ownBudget_ -= own;
    budget_.remaining -= added - own;
    fn_.instructions[id].effect = MemoryEffect{};  // the body follows
    if (call.guard) {  // @p call: the body may be skipped
      flow_[id].jumps = true;
      flow_[id].conditional = true;
    }
    ParamBinding args;
    // The stores to each argument's slots (one per byte offset): a range of
    // the map, not a scan of every slot stored so far.
    for (size_t k = 0; k < callee->params.size() && k < shape.args.size(); ++k)
      for (auto it = lastParamStore.lower_bound({shape.args[k], INT64_MIN});
           it != lastParamStore.end() && it->first.first == shape.args[k]; ++it)
        args[{callee->params[k].name, it->first.second}] = it->second;
    std::map<Slot, InstId> returns;
    stack_.push_back(callee);
    copy(*callee, id, depth + 1, args, &returns);
    stack_.pop_back();
    if (call.guard) flow_[id].targets = {static_cast<InstId>(fn_.instructions.size())};
    for (size_t k = 0; k < callee->returns.size() && k < shape.returns.size(); ++k)
      for (const auto& [slot, store] : returns)
        if (slot.first == callee->returns[k].name && store >= 0)
          pendingReturns[{shape.returns[k], slot.second}] = store;
  }

  FunctionModel& fn_;
  const Limits& limits_;
  InliningBudget& budget_;
  CallSummaries summaries_;
  bool summarize_ = false;  // the function is over a limit whole (run())
  size_t ownBudget_ = 0;    // what it may still add before drawing on the input's budget
  std::vector<Flow> flow_;
  std::vector<const ptx::Function*> stack_;
  std::unordered_map<const ptx::Function*, std::unordered_map<std::string_view, const ptx::BranchTargets*>> listsOf_;
};

}  // namespace

std::vector<Flow> flatten(FunctionModel& fn, const Limits& limits, InliningBudget& budget) {
  return Flattener(fn, limits, budget).run();
}

}  // namespace fenceline::model::detail
