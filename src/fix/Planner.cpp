// Planning machine fixes: see Planner.h.
#include "fix/Planner.h"

#include <algorithm>
#include <filesystem>
#include <unordered_map>
#include <tuple>

#include <fmt/format.h>

#include "fix/Rewrites.h"
#include "report/Frames.h"
#include "report/SourceText.h"

namespace fenceline::fix {

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

namespace {

using report::Diagnostic;
using report::FixPlacement;
using report::FixRequest;
using model::SourceFrame;

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
// says nothing about the order of execution). A frame that names at's function
// but whose line is outside its definition (an inlined helper's line whose
// .loc lost its inlined_at) says nothing either.
std::string orderProblem(const FixRequest& request, const SourceFrame& at, uint32_t insertedBeforeLine,
                         const SourceLines& source) {
  const auto body = functionLines(source, at.function, at.line);
  auto frameIn = [&](const report::Location& location) -> std::optional<SourceFrame> {
    auto frame = fix::frameIn(location, at);
    if (frame && body && (frame->line < body->first || frame->line > body->second)) return std::nullopt;
    return frame;
  };
  for (const auto& location : request.after) {
    auto frame = frameIn(location);
    if (frame && frame->line >= insertedBeforeLine)
      return fmt::format("the line the fix must follow (line {}) is not above the fix point (line {})", frame->line,
                         insertedBeforeLine);
  }
  for (const auto& location : request.before) {
    auto frame = frameIn(location);
    if (frame && frame->line < insertedBeforeLine)
      return fmt::format("the read the fix must precede (line {}) is above the fix point (line {})", frame->line,
                         insertedBeforeLine);
  }
  return "";
}

// The edit inserting `statements`, one a line, before line `line`, indented like `indentLine`
// (a line that only closes a block: like the code above it).
report::Edit insertLines(const std::string& file, const SourceLines& source, uint32_t line, uint32_t indentLine,
                         const std::vector<std::string>& statements) {
  const std::string indentation = source.insertionIndentation(indentLine);
  std::string text;
  for (const auto& statement : statements) text += indentation + statement + source.newline();
  if (line > source.lineCount() && !source.text().empty() && source.text().back() != '\n')
    text = source.newline() + text;
  return makeEdit(file, source, source.offsetOfLine(line), 0, std::move(text));
}

// How a line goes in at a frame: before the statement at the frame's line, after the loop
// statement that holds it, after the statement at the line (a call whose callee holds the whole
// loop), or a scope replaced on it.
enum class Mode { BeforeStatement, AfterLoop, AfterStatement, WidenScope };

// The edits of a request at frame `at` of a readable, editable file, or the reason there are none.
std::string planEdits(const FixRequest& request, Mode mode, const SourceFrame& at, const SourceLines& source,
                      SyncStyle style, const FixSettings& settings, std::vector<report::Edit>& edits) {
  if (at.line == 0 || at.line > source.lineCount())
    return fmt::format("line {} is not in {} (the file changed after it was compiled?)", at.line, at.file);
  if (auto macro = source.macroAt(at.line))
    return fmt::format("the fix point is inside the expansion of the macro {} (line {})", *macro, at.line);
  auto statementsBefore = [&](uint32_t line) {
    return spellStatements(request, style, settings.spelling, source.lines(), line);
  };
  switch (mode) {
    case Mode::BeforeStatement: {
      std::string why;
      auto start = source.statementStart(at.line, why);
      if (!start) return why;
      if (auto problem = orderProblem(request, at, *start, source); !problem.empty()) return problem;
      edits.push_back(insertLines(at.file, source, *start, *start, statementsBefore(*start)));
      return "";
    }
    case Mode::AfterLoop: {
      std::string why;
      auto loop = source.loopStatementAt(at.line, why);
      if (!loop) return why;
      if (auto problem = orderProblem(request, at, loop->second + 1, source); !problem.empty()) return problem;
      edits.push_back(insertLines(at.file, source, loop->second + 1, loop->first, statementsBefore(loop->second + 1)));
      return "";
    }
    case Mode::AfterStatement: {
      std::string why;
      auto statement = source.statementAt(at.line, why);
      if (!statement) return why;
      if (auto problem = orderProblem(request, at, statement->second + 1, source); !problem.empty()) return problem;
      edits.push_back(insertLines(at.file, source, statement->second + 1, statement->first,
                                  statementsBefore(statement->second + 1)));
      return "";
    }
    case Mode::WidenScope: {
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
      // Not spelled on the statement: a libcu++ atomic's member call whose scope its declaration spells.
      if (lines == 0) return widenThroughDeclaration(request, at, *start, source, edits);
      if (lines != 1) return "the statement spells the scope on more than one line";
      edits.push_back(makeEdit(at.file, source, source.offsetOfLine(foundLine) + found->column, found->length,
                               found->text));
      return "";
    }
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
      {"counter-reset", "the fix changes the protocol (a generation word that only grows, a barrier between the "
                        "readers and the rewrite), not one line"},
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

namespace {

// A place to try: a frame of the anchor's chain and how the line goes in there.
struct Candidate {
  SourceFrame frame;
  Mode mode;
};

bool sameFunction(const SourceFrame& a, const SourceFrame& b) {
  return a.function == b.function && canonicalPath(a.file) == canonicalPath(b.file);
}

// Where a request's edit may go, in the order tried.
std::vector<Candidate> candidatesOf(const FixRequest& request, const FixSettings& settings) {
  SourceFrame at = report::primaryFrame(request.anchor);
  auto callers = report::inlinedAt(request.anchor);
  switch (request.placement) {
    case FixPlacement::BeforeStatement:
      // A line inserted before an operation inside a helper goes before the call of the helper instead
      // (the caller's line, when it is the user's): the helper's other callers stay as they are. When
      // the order does not allow it there (the helper holds the whole hand-off: the acquire the line
      // must follow is in it too), in the helper.
      if (request.beforeHelperCall && !callers.empty() &&
          !(settings.isLibrary && settings.isLibrary(callers.front().file)))
        return {{callers.front(), Mode::BeforeStatement}, {at, Mode::BeforeStatement}};
      return {{at, Mode::BeforeStatement}};
    case FixPlacement::AfterLoop: {
      // The spin loop's own frame: the frame of the anchor's chain at the depth of the loop's
      // function (a poll inside a helper the loop calls each iteration, `ld_volatile(flag)`, is a
      // frame deeper than the loop statement).
      const auto& frames = request.anchor.frames;
      const size_t primary = std::min(request.anchor.primary, frames.size() - 1);
      size_t loopFrame = primary;
      const auto& loop = request.loop.frames;
      if (!loop.empty() && loop.size() <= frames.size()) {
        const size_t k = frames.size() - loop.size();
        if (k > primary && sameFunction(frames[k], loop.front())) loopFrame = k;
      }
      if (loopFrame == primary) return {{at, Mode::AfterLoop}};
      // Outermost first: after the call, in the outermost frame of the user's code that holds the
      // whole loop (the helper that spins stays as its other callers use it), then after the loop
      // statement in the loop's own frame.
      auto editable = [&](const SourceFrame& frame) {
        return !(settings.isSystem && settings.isSystem(frame.file)) &&
               (settings.fixHeaders || !(settings.isLibrary && settings.isLibrary(frame.file)));
      };
      size_t outer = loopFrame;
      while (outer + 1 < frames.size() && editable(frames[outer + 1])) ++outer;
      std::vector<Candidate> out;
      for (size_t j = outer; j > loopFrame; --j) out.push_back({frames[j], Mode::AfterStatement});
      out.push_back({frames[loopFrame], Mode::AfterLoop});
      return out;
    }
    case FixPlacement::AfterStatement:
      if (request.beforeHelperCall && !callers.empty() &&
          !(settings.isLibrary && settings.isLibrary(callers.front().file)))
        return {{callers.front(), Mode::AfterStatement}, {at, Mode::AfterStatement}};
      return {{at, Mode::AfterStatement}};
    case FixPlacement::WidenScope: return {{at, Mode::WidenScope}};
    case FixPlacement::PhaseBitBarrier:
    case FixPlacement::None: break;
  }
  return {};
}

// The edits of one candidate, or why there are none.
std::string planCandidate(const FixRequest& request, Candidate candidate, SourceCache& sources,
                          const FixSettings& settings, std::vector<report::Edit>& edits) {
  SourceFrame at = candidate.frame;
  // One name per file (`a/../b/x.cuh` and `b/x.cuh` are one file), so that its edits are applied together.
  at.file = canonicalPath(at.file);
  std::string why = ownershipProblem(at.file, settings);
  if (!why.empty()) return why;
  const SourceLines* source = sources.get(at.file, why);
  if (!source) return why;
  if (auto generated = machineGenerated(at.file, *source))
    return fmt::format("{} is {}: fix the generator's input, not its output", at.file, *generated);
  const SyncStyle style =
      request.fence == report::FenceToInsert::None ? SyncStyle::Intrinsics : sources.styleOf(*source);
  if (candidate.mode == Mode::WidenScope && !report::inlinedAt(request.anchor).empty()) {
    // The scope is spelled in a helper: call (or add) the helper's wider-scope twin at the call site.
    return widenThroughHelper(request, at, report::inlinedAt(request.anchor).front(), *source, sources, settings,
                              edits);
  }
  return planEdits(request, candidate.mode, at, *source, style, settings, edits);
}

}  // namespace

namespace {

// The edits of one request (not of its `together`), or why there are none.
std::string planRequest(const Diagnostic& diagnostic, const FixRequest& request, SourceCache& sources,
                        const FixSettings& settings, std::vector<report::Edit>& out) {
  if (request.placement == FixPlacement::None)
    return request.reason.empty() ? defaultReason(diagnostic.check) : request.reason;
  if (request.anchor.frames.empty() && request.barrierUses.empty())
    return "the PTX has no source line for the fix point (compile with -lineinfo)";
  std::string why;
  if (request.placement == FixPlacement::PhaseBitBarrier) {
    why = planPhaseBitBarrier(request, sources, settings, out);
  } else {
    for (const Candidate& candidate : candidatesOf(request, settings)) {
      std::vector<report::Edit> edits;
      why = planCandidate(request, candidate, sources, settings, edits);
      if (why.empty() && !edits.empty()) {
        out = std::move(edits);
        break;
      }
    }
  }
  return out.empty() && why.empty() ? "no edit was found" : out.empty() ? why : "";
}

}  // namespace

void planFix(Diagnostic& diagnostic, SourceCache& sources, const FixSettings& settings) {
  diagnostic.edits.clear();
  const FixRequest& request = settings.producerStyle && diagnostic.producerFixRequest.placement != FixPlacement::None
                                  ? diagnostic.producerFixRequest
                                  : diagnostic.fixRequest;
  std::string why = planRequest(diagnostic, request, sources, settings, diagnostic.edits);
  // The requests the fix needs as well: every one makes its edit, or the fix makes none. Two
  // requests that come to the same line make one edit.
  for (const FixRequest& more : request.together) {
    if (!why.empty()) break;
    std::vector<report::Edit> edits;
    why = planRequest(diagnostic, more, sources, settings, edits);
    for (auto& edit : edits)
      if (std::none_of(diagnostic.edits.begin(), diagnostic.edits.end(), [&](const report::Edit& e) {
            return e.file == edit.file && e.offset == edit.offset && e.length == edit.length && e.text == edit.text;
          }))
        diagnostic.edits.push_back(std::move(edit));
  }
  if (!why.empty()) diagnostic.edits.clear();
  diagnostic.noEditReason = why;
}

}  // namespace fenceline::fix
