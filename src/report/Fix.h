// A machine-applicable fix is data, like the diagnostic it belongs to. A
// check says what the fix is in terms of the program (a FixRequest: which
// fence, placed relative to which instruction, or which scope to widen); the
// fix planner (fix/Planner.h) turns it into text edits of the user's source,
// spelled the way the file spells synchronization (fix/Spelling.h), or into
// the reason no edit is safe. Renderers show the edits (SARIF `fixes`,
// --fix-dry-run, --export-fixes) or the reason (text, after the prose fix).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fenceline::report {

// What an inserted line does; fix/Spelling.h spells it.
enum class FenceToInsert {
  None,
  ProxyAsyncShared,    // fence.proxy.async.shared::cta
  AcquireRelease,      // fence.acq_rel.<scope> (acquire after a poll, release before a signal)
  ProxyAsyncGlobal,    // fence.proxy.async.global
  MbarrierInitFence,   // fence.mbarrier_init.release.cluster
  WarpSync,            // __syncwarp()
  CtaSync,             // __syncthreads()
  NamedBarrier,        // bar.sync <FixRequest::barrierId>, <FixRequest::count>
  BulkWaitRead,        // cp.async.bulk.wait_group.read <FixRequest::count> (commit_group first: commitFirst)
  BulkWait,            // cp.async.bulk.wait_group <FixRequest::count> (commit_group first: commitFirst)
  Tcgen05WaitLoad,     // tcgen05.wait::ld.sync.aligned
  Tcgen05WaitStore,    // tcgen05.wait::st.sync.aligned
  Tcgen05FenceBefore,  // tcgen05.fence::before_thread_sync
  Tcgen05FenceAfter,   // tcgen05.fence::after_thread_sync
};

enum class FixPlacement {
  None,             // no machine fix; FixRequest::reason says why
  BeforeStatement,  // insert a line before the anchor's source line, indented like it
  AfterLoop,        // insert a line after the loop statement that holds the anchor's line
  AfterStatement,   // insert a line after the statement that holds the anchor's line
  WidenScope,       // replace the scope spelling on the anchor's line (same operation, wider scope)
  PhaseBitBarrier,  // rewrite every use of a fixed-threshold counter barrier to wait for the flip of the
                    // counter's top bit relative to its own arrival (FixRequest::barrierUses)
};

// One text edit of a source file (clang-apply-replacements' Replacement).
struct Edit {
  std::string file;      // absolute path as the .loc names it
  uint32_t line = 0, column = 0;        // 1-based start of the replaced range (for messages and SARIF)
  uint32_t endLine = 0, endColumn = 0;  // 1-based end (exclusive column); the start for an insertion
  size_t offset = 0;     // byte offset of the replaced range in the file
  size_t length = 0;     // bytes replaced; 0 for an insertion
  std::string text;      // replacement text
  // An insertion whose text is a copy of lines of the same file (a helper's wider-scope twin):
  // the copied lines' first line and their byte range. Line insertions that other fixes make
  // inside that range are made in the copy too (fix/Apply.cpp), so that the copy keeps them.
  uint32_t copiedLine = 0;
  size_t copiedOffset = 0, copiedLength = 0;
};

}  // namespace fenceline::report
