// A diagnostic is data: what a check found, where, why, and how to fix it.
// Renderers (Text.cpp, Json.cpp, Sarif.cpp) turn these values into output.
#pragma once

#include <string>
#include <vector>

#include "model/Program.h"
#include "report/Evidence.h"
#include "report/Fix.h"
#include "report/Location.h"

namespace fenceline::report {

enum class Severity { Note, Warning, Error };

// What a check asks the fix planner for (report/Fix.h). `anchor` is placed
// like the diagnostic's location (its primary frame is the user's line); an
// edit must come after the primary lines of `after` and before those of
// `before` when they are in the same function of the same file.
struct FixRequest {
  FixPlacement placement = FixPlacement::None;
  Location anchor;
  FenceToInsert fence = FenceToInsert::None;
  std::string scope;      // the fence's scope, or the scope to widen to: "cta", "cluster", "gpu", "sys"
  std::string fromScope;  // WidenScope: the scope spelled now
  std::vector<Location> after, before;
  // BeforeStatement on an operation inside a helper: insert before the helper's call instead (the
  // operation is the helper's purpose, as a copy in bulk_load; other callers stay as they are).
  bool beforeHelperCall = false;
  // AfterLoop: an instruction of the spin loop whose innermost frame is the function that holds
  // the loop statement (a poll inside a helper that the loop calls each iteration is not in that
  // function); empty: the loop is in the anchor's own frame.
  Location loop;
  int count = -1;           // BulkWait/BulkWaitRead: the N of wait_group; NamedBarrier: the threads
  int barrierId = -1;       // NamedBarrier: a barrier id the function does not use
  bool commitFirst = false; // BulkWait/BulkWaitRead: commit the open bulk async-group first
  bool barrierAfter = false; // BulkWait/BulkWaitRead: then __syncthreads() (other threads write the buffer next)
  // PhaseBitBarrier: every use of the counter in the function, the arrival and the poll of each.
  std::vector<std::pair<Location, Location>> barrierUses;
  std::string reason;     // FixPlacement::None: why there is no machine fix
  // Further requests the fix needs as well, planned alike: all of them make the
  // edit, or none does (proxy-war: one finding for the copies that the same
  // accesses reach, where no single line before one of them covers the others).
  std::vector<FixRequest> together;
};

struct Note {
  std::string message;
  Location location;
};

struct Diagnostic {
  std::string check;       // check id, e.g. "proxy-war"
  Severity severity = Severity::Warning;
  std::string message;
  std::string function;    // PTX function (kernel) name, demangled when possible
  Location location;
  std::vector<Note> notes;
  std::string fix;         // what to insert, where, executed by whom
  // The machine fix: what the check asks for (the consumer-side placement;
  // proxy-war also fills producerFixRequest for --fix-style=producer), and
  // what the fix planner made of it: edits, or why there are none.
  FixRequest fixRequest, producerFixRequest;
  std::vector<Edit> edits;
  std::string noEditReason;
  // Kernels (template instantiations) whose copies of this site were merged
  // into this one finding, this one's first; empty when there was one.
  std::vector<std::string> instantiations;
  std::string input;       // the file checked when it is not the source (PTX, Triton kernel, binary)
  std::string fingerprint; // stable identity across runs (report/Fingerprint.h); set before rendering
  // Every link of the hazard, located and decided or not (report/Evidence.h).
  std::vector<EvidenceLink> evidence;
  // Why the rule itself is disputed (strict tier however decided its links), or "".
  std::string disputed;

  // Strict when some link is undecided or the rule is disputed.
  Tier tier() const;
  // The first undecided link, or null.
  const EvidenceLink* undecidedLink() const;
};

// Builds a Location for an instruction of a function model.
Location locationOf(const model::FunctionModel& fn, model::InstId inst);

// An evidence link at an instruction (inst < 0: no location).
EvidenceLink link(const model::FunctionModel& fn, LinkKind kind, model::InstId inst, std::string how,
                  std::string detail = {}, bool decided = true);
// An undecided link: what could not be told, and why.
EvidenceLink undecidedLink(const model::FunctionModel& fn, LinkKind kind, model::InstId inst, std::string how,
                           std::string detail);

std::string_view toString(Severity);

}  // namespace fenceline::report
