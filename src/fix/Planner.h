// The fix planner: turns each diagnostic's FixRequest (report/Fix.h) into
// text edits of the user's source, or into the reason no edit is safe.
//
// An edit is made only in the user's file at the request's primary frame
// (report/Frames.h): never in a CUDA toolkit or system header, in another
// library header only with --fix-headers, never in machine-generated source
// (a Triton kernel's Python, TileLang output) or in a macro expansion, and
// only when the inserted line lands after the accesses it must follow and
// before the reads it must precede (same function, same file). The fence is
// spelled the way the file spells synchronization (fix/Spelling.h).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fix/SourceLines.h"
#include "fix/Spelling.h"
#include "report/Diagnostic.h"

namespace fenceline::fix {

struct FixSettings {
  bool producerStyle = false;  // --fix-style=producer
  bool fixHeaders = false;     // --fix-headers
  SpellingSettings spelling;   // the configuration's fix-* keys
  // Which files are toolkit/system headers and which are library code outside the user's tree
  // (driver/UserCode.h).
  std::function<bool(const std::string&)> isSystem, isLibrary;
};

// Source files read once per run of the planner.
class SourceCache {
 public:
  // The file, or null with `why` set when it cannot be read.
  const SourceLines* get(const std::string& path, std::string& why);
  // The synchronization style of a file get() returned (detectStyle), found once per file.
  SyncStyle styleOf(const SourceLines& source);

 private:
  std::map<std::string, std::unique_ptr<SourceLines>> files_;
  std::map<const SourceLines*, SyncStyle> styles_;
  std::map<std::string, std::string> errors_;
};

// Fills diagnostic.edits, or diagnostic.noEditReason when there are none.
void planFix(report::Diagnostic& diagnostic, SourceCache& sources, const FixSettings& settings);

}  // namespace fenceline::fix
