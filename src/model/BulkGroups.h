// Async-groups: how long an asynchronous copy issued by one thread stays
// pending (PTX ISA, "Completion Mechanisms for Asynchronous Copy Operations",
// async-group mechanism). A thread keeps two kinds of groups apart: the bulk
// ones (`cp.async.bulk.commit_group`, `cp.async.bulk.wait_group[.read] N`)
// and the non-bulk ones of Ampere `cp.async` (`cp.async.commit_group`,
// `cp.async.wait_group N`, and `cp.async.wait_all`, which is a commit
// followed by `wait_group 0`). A commit closes the thread's open group; a
// wait returns once at most the N most recent committed groups are pending
// (`.read`: only their reads of the source have to be done). A copy is
// settled at a wait when at least N groups were committed after its own.
// bulk-store-reuse (source reuse) and proxy-global (async writes to global
// released to other threads) walk the issuing thread's paths from a bulk
// copy until such a wait settles it; proxy-raw and proxy-war take the waits
// that settle a non-bulk cp.async as the points where its generic-proxy
// writes take effect (model/CopyCompletion.h).
//
// The walk follows the issuing thread: at a branch on the predicate that
// guarded the copy (same register, same definition) it goes the way the
// issuer went; at a branch into a block that only the issuer's election executes (`if (threadIdx.x == 0)`, elect.sync), it
// assumes the issuer enters it, so that a wait placed in a later elected
// block of the same shape counts (the CUTLASS epilogue: store in one
// `if (issuer)` block, `tma_store_wait` in the next). Elections are compared
// by their thread set only: a wait under `threadIdx.x == 32` is taken for the
// issuer's too (ThreadRoles does not tell which thread is elected).
#pragma once

#include <functional>
#include <vector>

#include "model/Program.h"

namespace fenceline::model {

enum class BulkWait : uint8_t {
  Read,      // the copy's reads of its source are done (wait_group.read or wait_group)
  Complete,  // the copy is complete, its writes visible to the issuer (wait_group only)
};

enum class GroupKind : uint8_t {
  Bulk,     // cp.async.bulk*, cp.reduce.async.bulk* with .bulk_group completion
  NonBulk,  // Ampere cp.async.ca / .cg
};

// The bulk-group commit / wait instructions (not the Ampere cp.async ones).
bool isBulkCommit(const FunctionModel& fn, InstId inst);
bool isBulkWait(const FunctionModel& fn, InstId inst);
// The N of `cp.async.bulk.wait_group[.read] N`, or -1 when it is not an immediate.
int bulkWaitDepth(const FunctionModel& fn, InstId wait);

// The same for either kind. `cp.async.wait_all` is a wait of depth 0 that
// first commits the open group (it is both).
bool isGroupCommit(const FunctionModel& fn, InstId inst, GroupKind kind);
bool isGroupWait(const FunctionModel& fn, InstId inst, GroupKind kind);
int groupWaitDepth(const FunctionModel& fn, InstId wait);

// Where the copy stands when the walk reaches an instruction: its group may
// still be open (not committed), and how many groups may at most have been
// committed after its own (-1: none known pending in a committed state).
struct Pending {
  bool open = false;
  int deepest = -1;
};

// Calls `visit` for every instruction the issuing thread reaches after `copy`
// while the copy is not yet settled to `level`; `visit` returns false to stop
// the walk along that path. Each instruction is visited at most once per
// distinct count of groups committed after the copy's own (capped).
void walkWhilePending(const FunctionModel& fn, InstId copy, BulkWait level,
                      const std::function<bool(InstId, const Pending&)>& visit,
                      GroupKind kind = GroupKind::Bulk);

// The waits of the issuing thread that settle `copy` (to `level`) on some
// path of that walk, in program order. `stopAt`: instructions that end the
// walk along a path where the copy is still pending (for a cp.async, the
// cp.async.mbarrier.arrive that hands its completion to an mbarrier).
std::vector<InstId> settlingWaits(const FunctionModel& fn, InstId copy, GroupKind kind, BulkWait level,
                                  const std::function<bool(InstId)>& stopAt);

}  // namespace fenceline::model
