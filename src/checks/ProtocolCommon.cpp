// Shared pieces of the protocol checks (see ProtocolCommon.h).
#include "checks/ProtocolCommon.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "model/Paths.h"
#include "model/Values.h"

namespace fenceline::checks::protocol {

using model::EffectKind;
using model::MemoryEffect;
using model::Semantics;

namespace {

// Floating-point atomics and stores carry data (reductions), never flags.
bool isFloatingPoint(const model::Inst& inst) {
  for (const auto& m : inst.syntax->modifiers)
    if (m == "f16" || m == "f16x2" || m == "bf16" || m == "bf16x2" || m == "f32" || m == "f64") return true;
  return false;
}

}  // namespace

Context::Context(const FunctionModel& function) : fn(function) {
  spins = model::findSpinLoops(fn);
  // FENCELINE_DEBUG_SPINS=1 lists the spin loops found (for triaging real code).
  if (std::getenv("FENCELINE_DEBUG_SPINS"))
    for (const auto& spin : spins)
      for (InstId poll : spin.polls)
        fmt::print(stderr, "spin loop {} in {}: poll at PTX line {} ({})\n", spin.loop,
                   fn.function ? fn.function->name : "?", fn.instructions[poll].syntax->pos.line,
                   describe(fn, poll));
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    const MemoryEffect& e = fn.instructions[i].effect;
    bool flagLike = e.kind == EffectKind::ReadModifyWrite ||
                    (e.kind == EffectKind::Store && e.semantics != Semantics::Weak && e.semantics != Semantics::None);
    if (!flagLike || isFloatingPoint(fn.instructions[i]) || !model::writesGlobalMemory(fn, i) || isPoll(i)) continue;
    if (isConsumingDecrement(i)) continue;
    bool polled = false;
    for (const auto& spin : spins)
      for (InstId poll : spin.polls)
        if (fn.memory->mayShareRoot(i, poll)) polled = true;
    if (polled) signals.push_back(i);
  }
  for (InstId i = 0; i < static_cast<InstId>(fn.instructions.size()); ++i) {
    const MemoryEffect& e = fn.instructions[i].effect;
    if (e.address < 0) continue;
    if (e.kind != EffectKind::Load && e.kind != EffectKind::Store && e.kind != EffectKind::ReadModifyWrite) continue;
    model::MemoryObject root = fn.memory->rootOf(i, e.address);
    if (model::writesGlobalMemory(fn, i) && root.known()) writtenRoots.insert(root);
    if (e.scope == Scope::Sys && e.semantics != Semantics::Volatile && root.known()) systemRoots.insert(root);
    bool flagWrite = e.kind == EffectKind::ReadModifyWrite ||
                     (e.kind == EffectKind::Store && e.semantics != Semantics::Weak && e.semantics != Semantics::None);
    if (flagWrite && model::writesGlobalMemory(fn, i) && root.kind == model::MemoryObject::Kind::Loaded)
      raisesPeerFlags = true;
  }
}

const model::SpinLoop* Context::spinContaining(InstId inst) const {
  for (const auto& spin : spins)
    if (std::binary_search(spin.polls.begin(), spin.polls.end(), inst)) return &spin;
  return nullptr;
}

bool Context::isPoll(InstId inst) const { return spinContaining(inst) != nullptr; }

bool Context::isConsumingDecrement(InstId inst) const {
  const auto& i = fn.instructions[inst];
  if (i.effect.kind != EffectKind::ReadModifyWrite || !i.hasModifier("add") || i.operands.empty()) return false;
  if (!fn.values->isNegation(inst, static_cast<int>(i.operands.size()) - 1)) return false;
  for (const auto& spin : spins)
    for (InstId poll : spin.polls)
      if (fn.memory->sameWord(poll, inst) && model::reachable(fn, poll, inst)) return true;
  return false;
}

bool Context::isPollAccess(InstId inst) const {
  if (isPoll(inst)) return true;
  for (const auto& spin : spins)
    for (InstId poll : spin.polls)
      if (fn.memory->sameWord(inst, poll)) return true;
  return false;
}

const Context& contextFor(const FunctionModel& fn) {
  struct Cached {
    const FunctionModel* model = nullptr;
    const ptx::Function* function = nullptr;
    const model::Inst* instructions = nullptr;
    size_t size = 0;
    std::unique_ptr<Context> context;
  };
  thread_local Cached cached;
  if (!cached.context || cached.model != &fn || cached.function != fn.function ||
      cached.instructions != fn.instructions.data() || cached.size != fn.instructions.size()) {
    cached.context.reset();  // the old context refers to the old model
    cached.context = std::make_unique<Context>(fn);
    cached.model = &fn;
    cached.function = fn.function;
    cached.instructions = fn.instructions.data();
    cached.size = fn.instructions.size();
  }
  return *cached.context;
}

bool hasAcquireSemantics(const MemoryEffect& e) {
  return e.semantics == Semantics::Acquire || e.semantics == Semantics::AcqRel || e.semantics == Semantics::Sc;
}

bool hasReleaseSemantics(const MemoryEffect& e) {
  return e.semantics == Semantics::Release || e.semantics == Semantics::AcqRel || e.semantics == Semantics::Sc;
}

bool isAcquireFence(const FunctionModel& fn, InstId inst) {
  const MemoryEffect& e = fn.instructions[inst].effect;
  return e.kind == EffectKind::Fence && hasAcquireSemantics(e);
}

bool isReleaseFence(const FunctionModel& fn, InstId inst) {
  const MemoryEffect& e = fn.instructions[inst].effect;
  return e.kind == EffectKind::Fence && hasReleaseSemantics(e);
}

bool releasesFor(const Context& ctx, InstId inst, InstId signal) {
  if (isReleaseFence(ctx.fn, inst)) return true;
  const MemoryEffect& e = ctx.fn.instructions[inst].effect;
  const MemoryEffect& s = ctx.fn.instructions[signal].effect;
  return s.kind == EffectKind::ReadModifyWrite && hasReleaseSemantics(e) &&
         (e.kind == EffectKind::ReadModifyWrite || e.kind == EffectKind::Store) && ctx.fn.memory->sameWord(inst, signal);
}

Scope scopeOf(const FunctionModel& fn, InstId inst) {
  Scope s = fn.instructions[inst].effect.scope;
  return s == Scope::None ? Scope::Gpu : s;
}

Scope requiredScope(const Context& ctx, InstId access) {
  int operand = ctx.fn.instructions[access].effect.address;
  if (operand < 0) return Scope::Gpu;
  if (ctx.fn.memory->isLoadedPointer(access, operand)) return Scope::Sys;
  model::MemoryObject root = ctx.fn.memory->rootOf(access, operand);
  if (root.known() && ctx.systemRoots.count(root)) return Scope::Sys;
  // A kernel that raises flags on peer GPUs and waits on a flag of its own:
  // the flag it waits on is raised by the peers.
  if (ctx.raisesPeerFlags && ctx.isPoll(access)) return Scope::Sys;
  return Scope::Gpu;
}

bool isDataRead(const FunctionModel& fn, InstId inst) {
  const MemoryEffect& e = fn.instructions[inst].effect;
  if (e.kind != EffectKind::Load) return false;
  if (e.space != model::Space::Global && e.space != model::Space::Generic) return false;
  if (fn.values && e.address >= 0) {
    model::Space narrowed = fn.values->addressSpace(inst, e.address);
    if (narrowed != model::Space::None && narrowed != model::Space::Global && narrowed != model::Space::Generic)
      return false;
  }
  return true;
}

bool isPublishedWrite(const Context& ctx, InstId inst, InstId signal) {
  if (inst == signal || !model::writesGlobalMemory(ctx.fn, inst)) return false;
  if (ctx.fn.memory->sameWord(inst, signal)) return false;
  // Another signal on the same flag object (a flag written to every peer in turn).
  if (std::binary_search(ctx.signals.begin(), ctx.signals.end(), inst)) {
    int a = ctx.fn.instructions[inst].effect.address, b = ctx.fn.instructions[signal].effect.address;
    model::MemoryObject ra = ctx.fn.memory->rootOf(inst, a), rb = ctx.fn.memory->rootOf(signal, b);
    if (!ra.known() || ra == rb) return false;
  }
  return true;
}

std::string describe(const FunctionModel& fn, InstId inst) {
  auto chain = fn.sourceChain(inst);
  if (!chain.empty()) return fmt::format("line {}", chain.front().line);
  return fmt::format("PTX line {}", fn.instructions[inst].syntax->pos.line);
}

std::string scopeName(Scope scope) { return "." + std::string(model::toString(scope)); }

std::string fenceSpelling(Scope scope) {
  switch (scope) {
    case Scope::Sys: return "__threadfence_system() (fence.sc.sys)";
    case Scope::Cluster: return "fence.acq_rel.cluster";
    case Scope::Cta: return "__threadfence_block() (fence.acq_rel.cta)";
    default: return "__threadfence() (fence.sc.gpu)";
  }
}

report::Diagnostic makeDiagnostic(const FunctionModel& fn, InstId at, std::string check, std::string message,
                                  std::string fix) {
  report::Diagnostic d;
  d.check = std::move(check);
  d.severity = report::Severity::Warning;
  d.message = std::move(message);
  d.function = fn.function ? fn.function->name : std::string();
  d.location = report::locationOf(fn, at);
  d.fix = std::move(fix);
  return d;
}

void addNote(report::Diagnostic& diagnostic, const FunctionModel& fn, InstId at, std::string message) {
  diagnostic.notes.push_back({std::move(message), report::locationOf(fn, at)});
}

std::string siteKey(const FunctionModel& fn, InstId inst) {
  auto chain = fn.sourceChain(inst);
  if (chain.empty()) return fmt::format("ptx:{}", fn.instructions[inst].syntax->pos.line);
  std::string key;
  for (const auto& frame : chain) key += fmt::format("{}:{}:{}|", frame.file, frame.line, frame.column);
  return key;
}

}  // namespace fenceline::checks::protocol
