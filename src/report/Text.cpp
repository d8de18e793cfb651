// The text renderer (see Text.h for the shape of its output).
#include "report/Text.h"

#include <algorithm>

#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "report/DisplayNames.h"
#include "report/Frames.h"

namespace fenceline::report {

namespace {

struct Style {
  bool color;
  std::string paint(std::string_view code, std::string_view text) const {
    if (!color) return std::string(text);
    return fmt::format("\033[{}m{}\033[0m", code, text);
  }
};

constexpr std::string_view kBold = "1";
constexpr std::string_view kCaret = "1;32";

std::string_view severityColor(Severity severity) {
  switch (severity) {
    case Severity::Note: return "1;36";
    case Severity::Warning: return "1;35";
    case Severity::Error: return "1;31";
  }
  return kBold;
}

// Paths under the working directory print relative to it, as a compiler would
// print the path it was given; others print as the PTX names them.
std::string displayPath(const std::string& path) {
  std::error_code error;
  static const std::string cwd = std::filesystem::current_path(error).string();
  if (!cwd.empty() && path.size() > cwd.size() + 1 && path.compare(0, cwd.size(), cwd) == 0 &&
      path[cwd.size()] == '/')
    return path.substr(cwd.size() + 1);
  return path;
}

std::string position(const model::SourceFrame& frame) {
  std::string text = displayPath(frame.file.empty() ? std::string("<unknown>") : displayFile(frame.file));
  if (frame.line) text += fmt::format(":{}", frame.line);
  if (frame.line && frame.column) text += fmt::format(":{}", frame.column);
  return text;
}

// The quoted source line and a caret under the column; nothing when the file
// cannot be read. Tabs are kept in the caret's indentation so it lines up.
std::string excerpt(const model::SourceFrame& frame, SourceText& sources, const Style& style) {
  auto line = sources.line(frame.file, frame.line);
  if (!line) return {};
  std::string text = *line + "\n";
  if (frame.column == 0 || frame.column > line->size() + 1) return text;
  std::string indent;
  for (size_t i = 0; i + 1 < frame.column; ++i) indent += (*line)[i] == '\t' ? '\t' : ' ';
  return text + indent + style.paint(kCaret, "^") + "\n";
}

void appendMessage(std::string& out, const model::SourceFrame& frame, Severity severity,
                   std::string_view message, SourceText& sources, const TextOptions& options,
                   const Style& style) {
  out += style.paint(kBold, position(frame) + ":") + " ";
  out += style.paint(severityColor(severity), std::string(toString(severity)) + ":") + " ";
  out += style.color ? style.paint(kBold, message) : std::string(message);
  out += "\n";
  if (options.showSource) out += excerpt(frame, sources, style);
}

// The PTX instruction behind a location, for code whose source lines are
// coarse (Triton puts a whole tl.dot on one line).
void appendPtxLine(std::string& out, const Location& location, const TextOptions& options) {
  if (!options.showPtx || location.ptxLine == 0) return;
  std::string_view text = location.ptxText;
  size_t begin = text.find_first_not_of(" \t");
  text = begin == std::string_view::npos ? std::string_view() : text.substr(begin);
  out += fmt::format("  ptx:{}: {}\n", location.ptxLine, text);
}

void appendNote(std::string& out, const model::SourceFrame& frame, std::string_view what, const Style& style) {
  out += style.paint(kBold, position(frame) + ":") + " " + style.paint(severityColor(Severity::Note), "note:") +
         " " + std::string(what) + "\n";
}

// Library frames below the user's line, from the user's call inwards; the
// innermost (where the instruction is) with its source line.
void appendHelperFrames(std::string& out, const Location& location, SourceText& sources,
                        const TextOptions& options, const Style& style) {
  auto helpers = helperFrames(location);
  for (size_t i = helpers.size(); i-- > 0;) {
    const auto& frame = helpers[i];
    appendNote(out, frame,
               frame.function.empty() ? std::string("expanded from here")
                                      : fmt::format("expanded from '{}'", displayFunction(frame.function)),
               style);
    if (i == 0 && options.showSource) out += excerpt(frame, sources, style);
  }
}

void appendInlineChain(std::string& out, const Location& location, const Style& style) {
  for (const auto& caller : inlinedAt(location)) {
    std::string what = caller.function.empty() ? std::string("inlined from here")
                                                : fmt::format("inlined from '{}'", displayFunction(caller.function));
    appendNote(out, caller, what, style);
  }
}

void appendLocation(std::string& out, const Location& location, SourceText& sources, const TextOptions& options,
                    const Style& style) {
  appendPtxLine(out, location, options);
  appendHelperFrames(out, location, sources, options, style);
  appendInlineChain(out, location, style);
}

void appendPlainNote(std::string& out, std::string_view what, const Style& style) {
  out += style.paint(severityColor(Severity::Note), "note:") + " " + std::string(what) + "\n";
}

// Template instantiations merged into this finding (driver/Deduplicate.h).
void appendInstantiations(std::string& out, const Diagnostic& diagnostic, const Style& style) {
  const auto& kernels = diagnostic.instantiations;
  if (kernels.size() < 2) return;
  appendPlainNote(out,
                  fmt::format("one finding for {} instantiations reaching this site (this one in '{}'; another: '{}')",
                              kernels.size(), kernels[0], kernels[1]),
                  style);
}

// What a link of the evidence is, for people.
std::string_view linkPhrase(LinkKind kind) {
  switch (kind) {
    case LinkKind::Access: return "the access";
    case LinkKind::AsyncOperation: return "the async-proxy operation";
    case LinkKind::HandOff: return "the hand-off";
    case LinkKind::SameBytes: return "the same bytes";
    case LinkKind::DataWrite: return "the data written";
    case LinkKind::Signal: return "the signal";
    case LinkKind::Poll: return "the wait";
    case LinkKind::GuardedRead: return "the read of the data";
    case LinkKind::Partner: return "the partner";
    case LinkKind::Ordering: return "the ordering";
    case LinkKind::Barrier: return "the barrier";
    case LinkKind::Use: return "its use";
  }
  return "the link";
}

// The evidence links that no line above shows (report/Evidence.h): a link at
// an instruction that is neither the finding's nor a note's line, and the
// links that are no one instruction (why two accesses touch the same bytes,
// who the partner is). Each says how it was decided.
void appendEvidence(std::string& out, const Diagnostic& diagnostic, const Style& style) {
  auto shown = [&](const Location& at) {
    auto same = [&](const Location& l) {
      const auto a = primaryFrame(at), b = primaryFrame(l);
      return a.file == b.file && a.line == b.line;
    };
    if (same(diagnostic.location)) return true;
    return std::any_of(diagnostic.notes.begin(), diagnostic.notes.end(), [&](const Note& n) { return same(n.location); });
  };
  for (const auto& link : diagnostic.evidence) {
    if (link.location && shown(*link.location)) continue;
    if (!link.location && link.detail.empty()) continue;
    std::string text = fmt::format("evidence: {} ({}{})", linkPhrase(link.kind), link.decided ? "" : "not decided: ",
                                   link.how);
    if (!link.detail.empty()) text += ": " + link.detail;
    if (link.location)
      appendNote(out, primaryFrame(*link.location), text, style);
    else
      appendPlainNote(out, text, style);
  }
}

std::string plural(size_t count, std::string_view word) {
  return fmt::format("{} {}{}", count, word, count == 1 ? "" : "s");
}

}  // namespace

// The machine fix after the prose one: the edits --fix makes, or why it makes none.
static void appendFixIt(std::string& out, const Diagnostic& diagnostic, const Style& style) {
  for (const Edit& edit : diagnostic.edits) {
    std::string text = edit.text;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    size_t indent = text.find_first_not_of(" \t");
    text = indent == std::string::npos ? "" : text.substr(indent);
    out += style.paint(kCaret, "fix-it:") + " " +
           (edit.length == 0 ? fmt::format("{}:{}: insert `{}` (--fix applies it)", edit.file, edit.line, text)
                             : fmt::format("{}:{}:{}: replace with `{}` (--fix applies it)", edit.file, edit.line,
                                           edit.column, text)) +
           "\n";
  }
  if (diagnostic.edits.empty() && !diagnostic.noEditReason.empty())
    out += style.paint(kCaret, "fix-it:") + " none: " + diagnostic.noEditReason + "\n";
}

std::string renderText(const Diagnostic& diagnostic, SourceText& sources, const TextOptions& options) {
  Style style{options.color};
  std::string out;
  std::string message = diagnostic.message;
  if (!diagnostic.check.empty()) message += fmt::format(" [{}]", diagnostic.check);
  appendMessage(out, primaryFrame(diagnostic.location), diagnostic.severity, message, sources, options, style);
  appendLocation(out, diagnostic.location, sources, options, style);
  for (const auto& note : diagnostic.notes) {
    appendMessage(out, primaryFrame(note.location), Severity::Note, note.message, sources, options, style);
    appendLocation(out, note.location, sources, options, style);
  }
  appendEvidence(out, diagnostic, style);
  appendInstantiations(out, diagnostic, style);
  if (!diagnostic.input.empty()) appendPlainNote(out, "in " + diagnostic.input, style);
  if (!diagnostic.fix.empty()) out += style.paint(kCaret, "fix:") + " " + diagnostic.fix + "\n";
  appendFixIt(out, diagnostic, style);
  return out;
}

std::string renderText(std::span<const Diagnostic> diagnostics, SourceText& sources,
                       const TextOptions& options) {
  std::string out;
  for (const auto& diagnostic : diagnostics) out += renderText(diagnostic, sources, options);
  return out;
}

std::string summaryLine(std::span<const Diagnostic> diagnostics, const RunStats& stats) {
  size_t errors = 0, warnings = 0, notes = 0;
  std::set<std::string> functions;
  for (const auto& diagnostic : diagnostics) {
    functions.insert(diagnostic.function);
    switch (diagnostic.severity) {
      case Severity::Error: ++errors; break;
      case Severity::Warning: ++warnings; break;
      case Severity::Note: ++notes; break;
    }
  }
  std::string findings;
  if (errors) findings += plural(errors, "error") + ", ";
  findings += plural(warnings, "warning");
  if (notes) findings += ", " + plural(notes, "note");
  return fmt::format("{} in {} ({} checked in {}, {:.2f} s)", findings, plural(functions.size(), "function"),
                     plural(stats.functions, "function"), plural(stats.files, "file"), stats.seconds);
}

}  // namespace fenceline::report
