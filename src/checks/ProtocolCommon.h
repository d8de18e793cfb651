// What the flag and barrier protocol checks share (acquire-missing,
// release-missing, scope-too-narrow, barrier-reuse, barrier-init-race): the
// spin loops and signals of a function, which operations order as acquire or
// release and at which scope, the scope a flag needs (another GPU for peer
// pointers and .sys flags, another CTA for any other global flag), and how a
// finding becomes a diagnostic.
//
// A signal is a write that a spin loop of the same function waits on: a store
// with volatile/relaxed/stronger semantics, or an atomic/reduction, to global
// or generic memory whose address may share its object with a poll. Plain
// (weak) stores and floating-point atomics are data, never signals; neither is
// a decrement of a counter after waiting on it (arrivals taken back).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "model/Program.h"
#include "model/Memory.h"
#include "model/Values.h"
#include "model/SpinLoops.h"
#include "report/Diagnostic.h"

namespace fenceline::checks::protocol {

using model::FunctionModel;
using model::InstId;
using model::Scope;

struct Context {
  const FunctionModel& fn;
  std::vector<model::SpinLoop> spins;
  std::vector<InstId> signals;  // sorted
  std::set<model::MemoryObject> writtenRoots;  // roots some store or atomic writes
  std::set<model::MemoryObject> systemRoots;   // roots accessed with an explicit .sys operation
  bool raisesPeerFlags = false;        // a flag store or atomic through a pointer read from memory

  explicit Context(const FunctionModel& function);
  const model::SpinLoop* spinContaining(InstId inst) const;
  bool isPoll(InstId inst) const;
  // A poll, or a load of a polled word outside its loop (the first poll,
  // peeled before a rotated loop).
  bool isPollAccess(InstId inst) const;
  // A decrement of a polled counter after waiting on it (taking the arrivals
  // back for the next launch): nobody waits for it, so it is not a signal.
  bool isConsumingDecrement(InstId inst) const;
};

// One context per function, shared by the five checks (rebuilt when the
// function changes; per thread).
const Context& contextFor(const FunctionModel& fn);

bool hasAcquireSemantics(const model::MemoryEffect& e);  // .acquire / .acq_rel / .sc
bool hasReleaseSemantics(const model::MemoryEffect& e);  // .release / .acq_rel / .sc
bool isAcquireFence(const FunctionModel& fn, InstId inst);  // fence.{sc,acq_rel,acquire}, membar
bool isReleaseFence(const FunctionModel& fn, InstId inst);  // fence.{sc,acq_rel,release}, membar
// A release that orders writes before `signal`: a release fence, or (when
// the signal is an RMW) a release RMW or store to the same word earlier on
// the path, whose release sequence the signal's RMW continues.
bool releasesFor(const Context& ctx, InstId inst, InstId signal);
// The scope an ordering operation acts at (a scope-less fence counts as .gpu).
Scope scopeOf(const FunctionModel& fn, InstId inst);

// The scope a flag access needs: .sys when the flag is reached through a
// pointer read from memory (peer pointers) or the same object is accessed
// with an explicit .sys operation in this function; .gpu otherwise.
Scope requiredScope(const Context& ctx, InstId access);

// A read of global or generic memory that a wait may guard (loads, not atomics).
bool isDataRead(const FunctionModel& fn, InstId inst);
// A write of global or generic memory that a signal may publish, excluding
// writes to the signal's own word and other signals of the same flag object.
bool isPublishedWrite(const Context& ctx, InstId inst, InstId signal);

// Text of a location for messages: "line 12" of the innermost frame, or the PTX line.
std::string describe(const FunctionModel& fn, InstId inst);
std::string scopeName(Scope scope);  // ".gpu"
// The C++ spelling of a fence at `scope`, for fix texts.
std::string fenceSpelling(Scope scope);

report::Diagnostic makeDiagnostic(const FunctionModel& fn, InstId at, std::string check, std::string message,
                                  std::string fix);
void addNote(report::Diagnostic& diagnostic, const FunctionModel& fn, InstId at, std::string message);

// One finding per source site within a check (an unrolled loop or a helper
// inlined twice at one call site is one site).
std::string siteKey(const FunctionModel& fn, InstId inst);

}  // namespace fenceline::checks::protocol
