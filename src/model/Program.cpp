// buildFunctionModel: the model pipeline of one function, in order: flatten
// (inline calls) -> basic blocks -> dominators -> loops -> local slots -> values -> memory ->
// thread roles -> protocols -> hand-offs. buildProgram runs it on every function. Also the
// FunctionModel queries that only read those results.
#include "model/Program.h"

#include <algorithm>
#include <charconv>
#include "model/MemoryStats.h"

#include "model/BlockReachability.h"
#include "model/Build.h"
#include "model/Demangle.h"
#include "model/HandOffs.h"
#include "model/Memory.h"
#include "model/Protocol.h"
#include "model/ThreadDecidedBranches.h"
#include "model/ThreadRoles.h"
#include "model/Values.h"

namespace fenceline::model {

std::span<ptx::Operand> OperandStore::copy(std::span<const ptx::Operand> operands) {
  if (operands.empty()) return {};
  if (chunks_.empty() || capacity_ - used_ < operands.size()) {
    // 64 operands, doubling to 4,096 (256 KiB): small for a small function.
    capacity_ = std::max(std::clamp<size_t>(2 * capacity_, 64, 4096), operands.size());
    chunks_.push_back(std::make_unique<ptx::Operand[]>(capacity_));
    used_ = 0;
  }
  ptx::Operand* out = chunks_.back().get() + used_;
  std::copy(operands.begin(), operands.end(), out);
  used_ += operands.size();
  return {out, operands.size()};
}

FunctionModel::FunctionModel() = default;
FunctionModel::~FunctionModel() = default;
FunctionModel::FunctionModel(FunctionModel&&) noexcept = default;
FunctionModel& FunctionModel::operator=(FunctionModel&&) noexcept = default;

bool FunctionModel::dominates(BlockId a, BlockId b) const {
  if (a == b) return true;
  if (a < 0 || b < 0 || static_cast<size_t>(a) >= domIn.size() || static_cast<size_t>(b) >= domIn.size()) return false;
  if (domIn[a] < 0 || domIn[b] < 0) return false;
  return domIn[a] <= domIn[b] && domOut[b] <= domOut[a];
}

bool FunctionModel::postDominates(BlockId a, BlockId b) const {
  if (a == b) return true;
  if (a < 0 || b < 0 || static_cast<size_t>(a) >= postDomIn.size() || static_cast<size_t>(b) >= postDomIn.size())
    return false;
  if (postDomIn[a] < 0 || postDomIn[b] < 0) return false;
  return postDomIn[a] <= postDomIn[b] && postDomOut[b] <= postDomOut[a];
}

bool FunctionModel::dominatesInst(InstId a, InstId b) const {
  BlockId ba = blockOf.at(a), bb = blockOf.at(b);
  if (ba == bb) return a <= b;
  return dominates(ba, bb);
}

InstId FunctionModel::termDefinition(std::string_view termName) const {
  if (!termName.starts_with("def:")) return -1;
  InstId d = -1;
  const char* first = termName.data() + 4;
  const auto [end, error] = std::from_chars(first, termName.data() + termName.size(), d);
  if (error != std::errc() || end != termName.data() + termName.size()) return -1;
  return d >= 0 && static_cast<size_t>(d) < instructions.size() ? d : -1;
}

bool FunctionModel::sameGuard(InstId a, InstId b) const {
  const auto& ga = instructions[a].guard;
  const auto& gb = instructions[b].guard;
  if (!ga || !gb) return !ga && !gb;
  if (ga->reg != gb->reg || ga->negated != gb->negated) return false;
  return !values || values->definition(ga->reg, a) == values->definition(gb->reg, b);
}

bool FunctionModel::postDominatesInst(InstId a, InstId b) const {
  BlockId ba = blockOf.at(a), bb = blockOf.at(b);
  if (ba == bb) return a >= b;
  return postDominates(ba, bb);
}

std::vector<SourceFrame> FunctionModel::sourceChain(InstId id) const {
  std::vector<SourceFrame> frames;
  for (InstId at = id; at >= 0 && static_cast<size_t>(at) < instructions.size();) {
    const Inst& inst = instructions[at];
    std::vector<SourceFrame> local;
    for (ptx::LocationId l = inst.syntax->location; l >= 0 && module && static_cast<size_t>(l) < module->locations.size();) {
      const ptx::Location& loc = module->locations[l];
      SourceFrame frame;
      if (const ptx::SourceFile* file = module->file(loc.file)) frame.file = file->path;
      frame.line = loc.line;
      frame.column = loc.column;
      frame.function = demangle(loc.function);
      local.push_back(std::move(frame));
      if (loc.inlinedAt == l || local.size() > 4096) break;  // malformed chains
      l = loc.inlinedAt;
    }
    // The outermost frame of a body is the function that body belongs to.
    if (!local.empty() && local.back().function.empty() && inst.origin)
      local.back().function = demangle(inst.origin->name);
    frames.insert(frames.end(), local.begin(), local.end());
    at = inst.callSite;
  }
  return frames;
}

void buildFunctionModel(FunctionModel& fn, const ptx::Module& module, const ptx::Function& function,
                        const Limits& limits, InliningBudget& budget, const Deadline& deadline) {
  fn.module = &module;
  fn.function = &function;
  // Each stage names itself for the time and memory limits' messages; the
  // stages' loops poll the budget (Limits.h) as well.
  enterStage("inlining its calls");
  std::vector<detail::Flow> flow = detail::flatten(fn, limits, budget);
  memory::noteStage("inline");
  enterStage("building the control-flow graph");
  detail::buildBlocks(fn, flow);
  flow = {};
  memory::noteStage("cfg");
  deadline.check("building the control-flow graph");
  enterStage("finding dominators, loops and reachability");
  detail::computeDominators(fn);
  detail::computeLoops(fn);
  fn.reachability = std::make_unique<BlockReachability>(fn);
  memory::noteStage("dom");
  deadline.check("finding dominators, loops and reachability");
  // Values kept in the thread's local memory and read back (a volatile
  // pointer variable): each reload bound to its store, as inlined parameters are.
  enterStage("binding local-memory slots");
  detail::bindLocalSlots(fn);
  // What registers hold: symbolic values with ranges, value identity.
  enterStage("building the value analysis");
  fn.values = std::make_unique<ValueAnalysis>(fn);
  memory::noteStage("values");
  // Blocks no thread runs: branches the thread index decides.
  enterStage("finding the branches the thread index decides");
  fn.noThreadRuns = blocksNoThreadRuns(fn);
  memory::noteStage("tidbr");
  // Which memory each access touches, and may two accesses alias.
  enterStage("building the memory analysis");
  fn.memory = std::make_unique<MemoryAnalysis>(fn);
  memory::noteStage("memory");
  enterStage("finding thread roles");
  fn.roles = std::make_unique<ThreadRoles>(fn);
  memory::noteStage("roles");
  deadline.check("building the value, memory and thread-role analyses");
  // Spin loops, signals, waits and their partners: read by the protocol checks.
  enterStage("building the protocol model");
  fn.protocol = std::make_unique<ProtocolModel>(fn);
  memory::noteStage("protocol");
  deadline.check("building the protocol model");
  // Generic accesses handed to async-proxy operations, and the fences that
  // count: read by the proxy checks (its walks are done on first use).
  enterStage("building the hand-off model");
  fn.handOffs = std::make_unique<handoff::HandOffAnalysis>(fn);
  memory::noteStage("handoffs");
  enterStage("checking it");
}

size_t instructionsBeforeInlining(const ptx::Module& module) {
  size_t count = 0;
  for (const auto& f : module.functions) count += f.instructions.size();
  return count;
}

Program buildProgram(const ptx::Module& module, const Limits& limits) {
  Program program;
  program.module = &module;
  size_t bodies = 0;
  for (const auto& f : module.functions) bodies += f.hasBody;
  // The analyses keep references to their FunctionModel: reserve so that the
  // models never move once built.
  program.functions.reserve(bodies);
  InliningBudget budget = InliningBudget::forInput(instructionsBeforeInlining(module), limits);
  for (const auto& f : module.functions) {
    if (!f.hasBody) continue;
    FunctionModel& fn = program.functions.emplace_back();
    buildFunctionModel(fn, module, f, limits, budget, Deadline(limits.maxSecondsPerFunction));
    program.instructionCount += fn.instructions.size();
  }
  return program;
}

}  // namespace fenceline::model
