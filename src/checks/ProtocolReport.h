// How the flag and barrier protocol checks (acquire-missing, release-missing,
// scope-too-narrow, barrier-reuse, barrier-init-race) word their findings:
// locations in messages, scope names, fence spellings for fix texts, one
// finding per source site. What the checks know about the protocols
// themselves (spin loops, signals, partners, orderings) is the program
// model's: model/Protocol.h.
#pragma once

#include <functional>
#include <string_view>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/Program.h"
#include "model/Memory.h"
#include "model/Protocol.h"
#include "model/Values.h"
#include "report/Diagnostic.h"

namespace fenceline::checks::protocol {

using model::FunctionModel;
using model::InstId;
using model::ProtocolModel;
using model::Scope;

// Text of a location for messages: "line 12" of the innermost frame, or the PTX line.
std::string describe(const FunctionModel& fn, InstId inst);
std::string scopeName(Scope scope);  // ".gpu"
// The C++ spelling of a fence at `scope`, for fix texts.
std::string fenceSpelling(Scope scope);

report::Diagnostic makeDiagnostic(const FunctionModel& fn, InstId at, std::string check, std::string message,
                                  std::string fix);
void addNote(report::Diagnostic& diagnostic, const FunctionModel& fn, InstId at, std::string message);

// The evidence of a flag protocol's hazard (report/Evidence.h), from the
// partner model's answers (model/Protocol.h, "Evidence").
// Acquire side: the poll, the signal of this kernel it observes and its
// partner, the partner's write and this read of it.
void addWaitEvidence(report::Diagnostic& diagnostic, const ProtocolModel& ctx, InstId poll, InstId read);
// Release side: the write, the signal, and the reader: a wait on the signal
// and a read after it of what was written, or a partner outside the kernel
// (decided only when the signal is .sys, or for a peer's next launch).
// `forScope` (scope-too-narrow): a partner outside the kernel is decided only
// when it is shown to be a thread (a parameter's flag word, another GPU's next
// launch); a .mmio store's reader is a device, and a .sys signal's or a FIFO
// slot's may be one (a NIC reading a doorbell or a work ring), for which the
// scopes of the PTX model say nothing: undecided.
void addSignalEvidence(report::Diagnostic& diagnostic, const ProtocolModel& ctx, InstId signal, InstId write,
                       bool forScope = false);

// The read to report after `poll`: `first` (the nearest guarded read the
// walk found), or a later one, reached from the poll without passing `stop`,
// whose evidence links are all decided when the nearest one's data link is
// not (the other links are the poll's own). `guarded` holds only at
// instructions of ctx.guardedReadsAfter(poll), `stop` only at those of
// `mayStop` (sorted): the walk tests those alone.
InstId decidedReadAfter(const ProtocolModel& ctx, InstId poll, InstId first,
                        const std::function<bool(InstId)>& guarded, const std::function<bool(InstId)>& stop,
                        const std::vector<InstId>& mayStop);

// Data read after a wait in the pre-Volta idiom (model::isVolatileStyleRead:
// ld.volatile, __ldcg, __ldcv), as the CUDA Programming Guide's last-block
// example reads the other blocks' results after a volatile poll or a counting
// atomic, with no fence after the observation. The PTX model orders nothing
// there without an acquire; the reads are issued only once the observed
// value has decided the exit, and no L1 serves them (L2 holds what the
// partner's fence completed), so no GPU is known to return stale data
// (fenceline-lab mp-l1, variants volatile-read and cg-read). The rule is
// disputed: such a finding is strict tier.
bool volatileStyleRead(const FunctionModel& fn, InstId read);

// `read` is a volatile-style read: another guarded read reached the same way
// (decidedReadAfter's walk) that is not one, with every link decided, when
// there is one; else `read`.
InstId otherThanVolatileStyleRead(const ProtocolModel& ctx, InstId poll, InstId read,
                                  const std::function<bool(InstId)>& guarded, const std::function<bool(InstId)>& stop,
                                  const std::vector<InstId>& mayStop);

// States the dispute (Diagnostic::disputed) of a finding when its shown read
// is a volatile-style read.
void markVolatileStyleReads(report::Diagnostic& diagnostic, const FunctionModel& fn, InstId read);

// addSignalEvidence for the write to show: `nearest` (the nearest published
// write without a release on the way), or an earlier one, also reaching the
// signal without passing `stop`, whose reader is decided when the nearest
// one's is not (a bookkeeping counter bumped after the data was written).
// `published` holds only at global writes, `stop` only at `mayStop` (sorted).
// Returns the write shown.
InstId addSignalEvidenceOfBestWrite(report::Diagnostic& diagnostic, const ProtocolModel& ctx, InstId signal,
                                    InstId nearest, const std::function<bool(InstId)>& published,
                                    const std::function<bool(InstId)>& stop, const std::vector<InstId>& mayStop,
                                    bool forScope = false);

// Which threads execute an instruction, as far as its guards on the thread
// index tell, with each instruction's part computed once: a check that asks
// about many pairs of one function keeps one of these (a release against
// every write before it: issue 33's growth).
class ThreadGuards {
 public:
  explicit ThreadGuards(const FunctionModel& fn) : fn_(fn) {}
  // At most one thread index executes `inst` by its guards (`tid == 0 && ...`).
  bool possiblyOneThread(InstId inst);
  // `inst` sits under a branch (or predicate) on the thread index (%tid,
  // %laneid) and `other` under none (`if (threadIdx.x < npeers) signal` after
  // every thread's write): threads that do not execute `inst` execute `other`
  // (issue 30, shapes 2 and 3). A write under a thread-index test of its own
  // (`if (tid == 0 && cta == 0) init`) may be the signalling thread's: not
  // decided.
  bool apart(InstId inst, InstId other);
  // `inst` sits under a branch (or its own predicate) on the thread index:
  // some threads of the block that reach its function do not execute it. A
  // write under none (only block-index or data branches) is made by every
  // thread of the blocks that get there.
  bool underThreadIndexGuard(InstId inst);
  // The conditional branch `branch` tests a value computed from the thread
  // index (dependsOnThreadIndex of its predicate), kept per branch.
  bool onThreadIndex(InstId branch);

 private:
  // The blocks entered by one edge of a branch on the thread index (not a
  // loop's exit) that dominate block b.
  const std::vector<model::BlockId>& guardsOf(model::BlockId b);
  const FunctionModel& fn_;
  std::unordered_map<InstId, bool> oneThread_, onThreadIndex_;
  std::unordered_map<model::BlockId, std::vector<model::BlockId>> guards_;
};

// The value of `reg` at `at` is computed from the thread's index (%tid.x/y/z,
// %laneid) through register computations.
bool dependsOnThreadIndex(const FunctionModel& fn, model::ValueReg reg, InstId at);
// The register's value is computed (through instructions with no memory
// effect, at most 128 steps) from a special register `special` accepts.
bool dependsOnSpecialRegister(const FunctionModel& fn, model::ValueReg reg, InstId at,
                              const std::function<bool(std::string_view)>& special);

// One finding per source site within a check (an unrolled loop or a helper
// inlined twice at one call site is one site).
std::string siteKey(const FunctionModel& fn, InstId inst);

}  // namespace fenceline::checks::protocol
