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
  ProxyAsyncShared,  // fence.proxy.async.shared::cta
  AcquireRelease,    // fence.acq_rel.<scope> (acquire after a poll, release before a signal)
};

enum class FixPlacement {
  None,             // no machine fix; FixRequest::reason says why
  BeforeStatement,  // insert a line before the anchor's source line, indented like it
  AfterLoop,        // insert a line after the loop statement that holds the anchor's line
  WidenScope,       // replace the scope spelling on the anchor's line (same operation, wider scope)
};

// One text edit of a source file (clang-apply-replacements' Replacement).
struct Edit {
  std::string file;      // absolute path as the .loc names it
  uint32_t line = 0, column = 0;        // 1-based start of the replaced range (for messages and SARIF)
  uint32_t endLine = 0, endColumn = 0;  // 1-based end (exclusive column); the start for an insertion
  size_t offset = 0;     // byte offset of the replaced range in the file
  size_t length = 0;     // bytes replaced; 0 for an insertion
  std::string text;      // replacement text
};

}  // namespace fenceline::report
