// Planning machine fixes: see Planner.h.
#include "fix/Planner.h"

#include <filesystem>
#include <unordered_map>
#include <tuple>

#include <fmt/format.h>

#include "report/Frames.h"
#include "report/SourceText.h"

namespace fenceline::fix {

namespace {

using report::Diagnostic;
using report::FixPlacement;
using report::FixRequest;
using model::SourceFrame;

std::optional<std::string> machineGenerated(const std::string& file, const SourceLines& source) {
  if (file.ends_with(".py")) return "a Triton kernel's Python source";
  for (const auto& line : source.lines())
    if (line.find("tl_templates/") != std::string::npos) return "TileLang output";
  return std::nullopt;
}

// Why the file may not be edited, or "" when it may.
std::string ownershipProblem(const std::string& file, const FixSettings& settings) {
  if (settings.isSystem && settings.isSystem(file))
    return fmt::format("the fix point is in a CUDA toolkit or system header ({}); fenceline never edits those", file);
  if (!settings.fixHeaders && settings.isLibrary && settings.isLibrary(file))
    return fmt::format("the fix point is in a header outside your source tree ({}); --fix-headers allows the edit",
                       file);
  return "";
}

// weakly_canonical (a readlink per path component), once per path and
// thread: every frame of every finding asks it again for the same few files.
const std::string& canonicalPath(const std::string& path) {
  thread_local std::unordered_map<std::string, std::string> known;
  auto [it, fresh] = known.try_emplace(path, path);
  if (fresh) {
    std::error_code error;
    if (auto normal = std::filesystem::weakly_canonical(path, error); !error) it->second = normal.string();
  }
  return it->second;
}

SourceFrame normalized(SourceFrame frame) {
  frame.file = canonicalPath(frame.file);
  return frame;
}

// The frame of `location`'s chain in the function of `at` (the same file and
// function), if any: where that instruction is as a line of at's function.
std::optional<SourceFrame> frameIn(const report::Location& location, const SourceFrame& at) {
  for (const auto& frame : location.frames) {
    SourceFrame normal = normalized(frame);
    if (normal.file == at.file && normal.function == at.function) return normal;
  }
  return std::nullopt;
}

// The inserted line must come after `after` and before `before` where they
// are lines of the function the line goes into (elsewhere the order of lines
// says nothing about the order of execution).
std::string orderProblem(const FixRequest& request, const SourceFrame& at, uint32_t insertedBeforeLine) {
  for (const auto& location : request.after) {
    auto frame = frameIn(location, at);
    if (frame && frame->line >= insertedBeforeLine)
      return fmt::format("the line the fix must follow (line {}) is not above the fix point (line {})", frame->line,
                         insertedBeforeLine);
  }
  for (const auto& location : request.before) {
    auto frame = frameIn(location, at);
    if (frame && frame->line < insertedBeforeLine)
      return fmt::format("the read the fix must precede (line {}) is above the fix point (line {})", frame->line,
                         insertedBeforeLine);
  }
  return "";
}

report::Edit makeEdit(const std::string& file, const SourceLines& source, size_t offset, size_t length,
                      std::string text) {
  report::Edit edit;
  edit.file = file;
  edit.offset = offset;
  edit.length = length;
  edit.text = std::move(text);
  std::tie(edit.line, edit.column) = source.lineColumnOf(offset);
  std::tie(edit.endLine, edit.endColumn) = source.lineColumnOf(offset + length);
  return edit;
}

// The edit inserting `statement` as a line before line `line`, indented like `indentLine`.
report::Edit insertLine(const std::string& file, const SourceLines& source, uint32_t line, uint32_t indentLine,
                        const std::string& statement) {
  std::string text = source.indentationOf(indentLine) + statement + source.newline();
  if (line > source.lineCount() && !source.text().empty() && source.text().back() != '\n')
    text = source.newline() + text;
  return makeEdit(file, source, source.offsetOfLine(line), 0, std::move(text));
}

// The edits of a request at frame `at` of a readable, editable file, or the reason there are none.
std::string planEdits(const FixRequest& request, const SourceFrame& at, const SourceLines& source, SyncStyle style,
                      const FixSettings& settings, std::vector<report::Edit>& edits) {
  if (at.line == 0 || at.line > source.lineCount())
    return fmt::format("line {} is not in {} (the file changed after it was compiled?)", at.line, at.file);
  if (auto macro = source.macroAt(at.line))
    return fmt::format("the fix point is inside the expansion of the macro {} (line {})", *macro, at.line);
  const std::string statement =
      request.fence == report::FenceToInsert::None
          ? ""
          : spellFence(request.fence, request.scope, style, settings.spelling, source.lines());
  switch (request.placement) {
    case FixPlacement::BeforeStatement: {
      std::string why;
      auto start = source.statementStart(at.line, why);
      if (!start) return why;
      if (auto problem = orderProblem(request, at, *start); !problem.empty()) return problem;
      edits.push_back(insertLine(at.file, source, *start, *start, statement));
      return "";
    }
    case FixPlacement::AfterLoop: {
      std::string why;
      auto loop = source.loopStatementAt(at.line, why);
      if (!loop) return why;
      if (auto problem = orderProblem(request, at, loop->second + 1); !problem.empty()) return problem;
      edits.push_back(insertLine(at.file, source, loop->second + 1, loop->first, statement));
      return "";
    }
    case FixPlacement::WidenScope: {
      // A helper's scope is every caller's: widening it for this one may change what the others need.
      if (!report::inlinedAt(request.anchor).empty())
        return fmt::format("the scope is spelled in the helper {} (line {}), which other callers share; widen it at "
                           "this call site instead (call a wider-scope variant)",
                           at.function, at.line);
      // The scope may be spelled on any line of the statement (a multi-line asm).
      std::string why;
      auto start = source.statementStart(at.line, why);
      if (!start) return why;
      std::optional<ScopeReplacement> found;
      uint32_t foundLine = 0, lines = 0;
      for (uint32_t line = *start; line <= at.line; ++line) {
        std::string lineWhy;
        if (auto replacement = widenScopeOnLine(source.line(line), request.fromScope, request.scope, lineWhy)) {
          found = replacement, foundLine = line, ++lines;
        } else if (lineWhy.find("places") != std::string::npos) {
          return lineWhy;
        } else if (line == at.line && lines == 0) {
          why = lineWhy;
        }
      }
      if (lines != 1) return lines == 0 ? why : "the statement spells the scope on more than one line";
      edits.push_back(makeEdit(at.file, source, source.offsetOfLine(foundLine) + found->column, found->length,
                               found->text));
      return "";
    }
    case FixPlacement::None: break;
  }
  return request.reason;
}

// Checks whose findings have no machine fix, and why.
std::string defaultReason(const std::string& check) {
  static const std::map<std::string, std::string> reasons = {
      {"barrier-reuse", "the fix (a reset or a phase flip of the counter) changes the protocol, not one line"},
      {"barrier-init-race", "the fix orders the initialization against other CTAs' first use (a grid or cluster "
                            "barrier), a design choice, not one line"},
      {"mbarrier-init-fence", "the fence and the cluster barrier after the initialization are a design choice for "
                              "the whole kernel, not one line"},
      {"elected-arrive", "the fix changes the barrier's expected count or who arrives, a design choice"},
      {"tcgen05-wait", "the wait belongs after the tcgen05.ld whose registers are read, which may be in a helper; "
                       "no single line is certain"},
      {"bulk-store-reuse", "the wait (cp.async.bulk.wait_group.read) must name the group count of the pipeline"},
      {"proxy-global", "the fence's placement between the kernels or the grid-wide hand-off is not one line"},
  };
  auto found = reasons.find(check);
  return found != reasons.end() ? found->second : "this check has no machine fix";
}

}  // namespace

const SourceLines* SourceCache::get(const std::string& path, std::string& why) {
  if (auto found = files_.find(path); found != files_.end()) return found->second.get();
  if (auto failed = errors_.find(path); failed != errors_.end()) {
    why = failed->second;
    return nullptr;
  }
  std::string error;
  auto text = report::readRegularFile(path, report::SourceText::kMaxSourceBytes, error);
  if (!text) {
    why = errors_[path] = fmt::format("{} cannot be read: {}", path, error);
    return nullptr;
  }
  return (files_[path] = std::make_unique<SourceLines>(std::move(*text))).get();
}

SyncStyle SourceCache::styleOf(const SourceLines& source) {
  auto [it, fresh] = styles_.try_emplace(&source, SyncStyle::Intrinsics);
  if (fresh) it->second = detectStyle(source.text());
  return it->second;
}

void planFix(Diagnostic& diagnostic, SourceCache& sources, const FixSettings& settings) {
  diagnostic.edits.clear();
  const FixRequest& request = settings.producerStyle && diagnostic.producerFixRequest.placement != FixPlacement::None
                                  ? diagnostic.producerFixRequest
                                  : diagnostic.fixRequest;
  if (request.placement == FixPlacement::None) {
    diagnostic.noEditReason = request.reason.empty() ? defaultReason(diagnostic.check) : request.reason;
    return;
  }
  if (request.anchor.frames.empty()) {
    diagnostic.noEditReason = "the PTX has no source line for the fix point (compile with -lineinfo)";
    return;
  }
  SourceFrame at = report::primaryFrame(request.anchor);
  // A line inserted before an operation inside a helper goes before the call of the helper instead
  // (the caller's line, when it is the user's): the helper's other callers stay as they are.
  auto callers = report::inlinedAt(request.anchor);
  if (request.placement == FixPlacement::BeforeStatement && request.beforeHelperCall && !callers.empty() &&
      !(settings.isLibrary && settings.isLibrary(callers.front().file)))
    at = callers.front();
  // One name per file (`a/../b/x.cuh` and `b/x.cuh` are one file), so that its edits are applied together.
  at.file = canonicalPath(at.file);
  std::string why = ownershipProblem(at.file, settings);
  const SourceLines* source = why.empty() ? sources.get(at.file, why) : nullptr;
  if (source) {
    if (auto generated = machineGenerated(at.file, *source))
      why = fmt::format("{} is {}: fix the generator's input, not its output", at.file, *generated);
    else
      why = planEdits(request, at, *source,
                      request.fence == report::FenceToInsert::None ? SyncStyle::Intrinsics : sources.styleOf(*source),
                      settings, diagnostic.edits);
  }
  diagnostic.noEditReason = diagnostic.edits.empty() ? why : "";
  if (diagnostic.edits.empty() && diagnostic.noEditReason.empty())
    diagnostic.noEditReason = "no edit was found";
}

}  // namespace fenceline::fix
