// Collecting, applying, diffing and exporting fixes: see Apply.h.
#include "fix/Apply.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "fix/SourceLines.h"
#include "report/Frames.h"
#include "report/SourceText.h"

namespace fenceline::fix {

namespace {

using report::Edit;

bool sameEdit(const Edit& a, const Edit& b) {
  return a.offset == b.offset && a.length == b.length && a.text == b.text;
}

// Two edits overlap when their replaced ranges intersect, or when one
// inserts inside the other's replaced range. Insertions at one offset do not
// overlap: they are made in the order of the findings.
bool overlaps(const Edit& a, const Edit& b) {
  if (a.length == 0 && b.length == 0) return false;
  size_t aEnd = a.offset + a.length, bEnd = b.offset + b.length;
  if (a.length == 0) return a.offset > b.offset && a.offset < bEnd;
  if (b.length == 0) return b.offset > a.offset && b.offset < aEnd;
  return a.offset < bEnd && b.offset < aEnd;
}

std::optional<std::string> readFile(const std::string& path, std::string& error) {
  std::string why;
  auto text = report::readRegularFile(path, report::SourceText::kMaxSourceBytes, why);
  if (!text) error = fmt::format("{}: error: cannot read the file to fix: {}", path, why);
  return text;
}

// Double-quoted YAML scalar.
std::string yamlString(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  return out + "\"";
}

}  // namespace

size_t FixSet::editCount() const {
  size_t count = 0;
  for (const auto& [file, edits] : editsByFile) count += edits.size();
  return count;
}

namespace {

bool copies(const report::Diagnostic& d) {
  return std::any_of(d.edits.begin(), d.edits.end(), [](const Edit& e) { return e.copiedLine > 0; });
}

// A copy of lines [copiedLine, ...) gets the whole-line insertions that other fixes make inside
// the copied lines, at the same line of the copy; nullopt when one changes the copied lines
// otherwise (then the copy is as planned, and a second --fix adds the rest).
std::optional<Edit> withInsertionsOf(Edit copy, const std::vector<Edit>& taken) {
  std::vector<const Edit*> inside;
  for (const Edit& t : taken)
    if (t.offset >= copy.copiedOffset && t.offset < copy.copiedOffset + copy.copiedLength) {
      if (t.length != 0 || t.column != 1 || t.text.empty() || t.text.back() != '\n') return std::nullopt;
      inside.push_back(&t);
    }
  std::stable_sort(inside.begin(), inside.end(), [](const Edit* a, const Edit* b) { return a->offset > b->offset; });
  for (const Edit* t : inside) {
    size_t at = 0;
    for (uint32_t line = copy.copiedLine; line < t->line && at != std::string::npos; ++line) {
      at = copy.text.find('\n', at);
      if (at != std::string::npos) ++at;
    }
    if (at == std::string::npos || at > copy.text.size()) return std::nullopt;
    copy.text.insert(at, t->text);
  }
  return copy;
}

}  // namespace

void mergeCopiedLines(std::vector<report::Diagnostic>& diagnostics) {
  std::map<std::string, std::vector<Edit>> insertions;
  for (const auto& d : diagnostics)
    if (!copies(d))
      for (const Edit& e : d.edits) insertions[e.file].push_back(e);
  for (auto& d : diagnostics) {
    if (!copies(d)) continue;
    for (Edit& edit : d.edits) {
      if (edit.copiedLine == 0) continue;
      if (auto merged = withInsertionsOf(edit, insertions[edit.file])) edit = *merged;
    }
  }
}

FixSet collectFixes(std::span<const report::Diagnostic> diagnostics) {
  FixSet set;
  set.fixed.assign(diagnostics.size(), false);
  for (size_t i = 0; i < diagnostics.size(); ++i) {
    const auto& diagnostic = diagnostics[i];
    if (diagnostic.edits.empty()) continue;
    std::string conflict;
    // All of a finding's edits, or none of them.
    for (const Edit& edit : diagnostic.edits)
      for (const Edit& taken : set.editsByFile[edit.file])
        if (!sameEdit(edit, taken) && overlaps(edit, taken))
          conflict = fmt::format("{}:{}: fix of [{}] not applied: it overlaps another fix at line {}; run --fix again",
                                 edit.file, edit.line, diagnostic.check, taken.line);
    if (!conflict.empty()) {
      set.refusals.push_back(conflict);
      continue;
    }
    for (const Edit& edit : diagnostic.edits) {
      auto& edits = set.editsByFile[edit.file];
      if (std::none_of(edits.begin(), edits.end(), [&](const Edit& e) { return sameEdit(e, edit); }))
        edits.push_back(edit);
    }
    set.fixed[i] = true;
  }
  for (auto& [file, edits] : set.editsByFile)
    std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.offset < b.offset; });
  return set;
}

std::string applyEdits(const std::string& text, const std::vector<Edit>& edits) {
  std::string out;
  size_t at = 0;
  for (const Edit& edit : edits) {
    out.append(text, at, edit.offset - at);
    out += edit.text;
    at = edit.offset + edit.length;
  }
  out.append(text, at, std::string::npos);
  return out;
}

bool writeFixes(const FixSet& fixes, std::string& error) {
  for (const auto& [file, edits] : fixes.editsByFile) {
    auto text = readFile(file, error);
    if (!text) return false;
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << applyEdits(*text, edits);
    out.close();
    if (!out) {
      error = fmt::format("{}: error: cannot write the fixed file", file);
      return false;
    }
  }
  return true;
}

namespace {

// One changed run of lines: original lines [first, first+removed) become `added`.
struct LineChange {
  uint32_t first = 0;  // 0-based
  uint32_t removed = 0;
  std::vector<std::string> added;
};

// The whole lines an edit changes, [first, last) 0-based: none for a line
// inserted at the start of a line, else the lines its replaced range touches.
std::pair<uint32_t, uint32_t> linesOf(const SourceLines& source, const Edit& edit) {
  if (edit.offset >= source.text().size()) return {source.lineCount(), source.lineCount()};
  uint32_t first = source.lineColumnOf(edit.offset).first - 1;
  bool insertsLine = edit.length == 0 && edit.offset == source.offsetOfLine(first + 1) && edit.text.ends_with("\n");
  if (insertsLine) return {first, first};
  uint32_t last = source.lineColumnOf(edit.offset + (edit.length ? edit.length - 1 : 0)).first;
  return {first, last};
}

// Edits grouped by the lines they change, each group applied to its lines.
std::vector<LineChange> lineChanges(const SourceLines& source, const std::vector<Edit>& edits) {
  std::vector<LineChange> changes;
  for (size_t i = 0; i < edits.size();) {
    auto [first, last] = linesOf(source, edits[i]);
    size_t j = i + 1;
    for (; j < edits.size() && first < last; ++j) {
      auto [nextFirst, nextLast] = linesOf(source, edits[j]);
      if (nextFirst >= last || nextFirst == nextLast) break;
      last = std::max(last, nextLast);
    }
    size_t begin = source.offsetOfLine(first + 1), end = source.offsetOfLine(last + 1);
    std::vector<Edit> local(edits.begin() + i, edits.begin() + j);
    for (auto& edit : local) edit.offset -= begin;
    std::string changed = applyEdits(source.text().substr(begin, end - begin), local);
    changes.push_back({first, last - first, SourceLines(changed).lines()});
    i = j;
  }
  return changes;
}

std::string diffOfFile(const std::string& file, const SourceLines& source, const std::vector<Edit>& edits) {
  constexpr uint32_t kContext = 3;
  std::vector<LineChange> changes = lineChanges(source, edits);
  std::string out = fmt::format("--- a/{0}\n+++ b/{0}\n", file.starts_with("/") ? file.substr(1) : file);
  const auto& lines = source.lines();
  int64_t shift = 0;  // new line number minus old line number before the hunk
  for (size_t i = 0; i < changes.size();) {
    // A hunk: changes whose context overlaps.
    size_t j = i + 1;
    while (j < changes.size() && changes[j].first <= changes[j - 1].first + changes[j - 1].removed + 2 * kContext) ++j;
    uint32_t begin = changes[i].first >= kContext ? changes[i].first - kContext : 0;
    uint32_t end = std::min<uint32_t>(changes[j - 1].first + changes[j - 1].removed + kContext, lines.size());
    std::string body;
    uint32_t oldCount = 0, newCount = 0, at = begin;
    for (size_t k = i; k < j; ++k) {
      for (; at < changes[k].first; ++at, ++oldCount, ++newCount) body += " " + lines[at] + "\n";
      for (uint32_t r = 0; r < changes[k].removed; ++r, ++at, ++oldCount) body += "-" + lines[at] + "\n";
      for (const auto& line : changes[k].added) body += "+" + line + "\n", ++newCount;
    }
    for (; at < end; ++at, ++oldCount, ++newCount) body += " " + lines[at] + "\n";
    out += fmt::format("@@ -{},{} +{},{} @@\n", oldCount ? begin + 1 : begin, oldCount,
                       newCount ? begin + 1 + shift : begin + shift, newCount);
    out += body;
    shift += static_cast<int64_t>(newCount) - oldCount;
    i = j;
  }
  return out;
}

}  // namespace

std::string unifiedDiff(const FixSet& fixes, std::string& error) {
  std::string out;
  for (const auto& [file, edits] : fixes.editsByFile) {
    auto text = readFile(file, error);
    if (!text) return "";
    out += diffOfFile(file, SourceLines(*text), edits);
  }
  return out;
}

std::string exportFixesYaml(std::span<const report::Diagnostic> diagnostics, const std::string& mainSourceFile) {
  std::string out = "---\nMainSourceFile:  " + yamlString(mainSourceFile) + "\nDiagnostics:\n";
  bool any = false;
  std::map<std::string, std::unique_ptr<SourceLines>> sources;
  for (const auto& diagnostic : diagnostics) {
    if (diagnostic.edits.empty()) continue;
    any = true;
    model::SourceFrame at = report::primaryFrame(diagnostic.location);
    size_t fileOffset = 0;
    if (!at.file.empty()) {
      auto& source = sources[at.file];
      std::string why;
      if (!source)
        if (auto text = report::readRegularFile(at.file, report::SourceText::kMaxSourceBytes, why))
          source = std::make_unique<SourceLines>(std::move(*text));
      if (source && at.line >= 1) fileOffset = source->offsetOfLine(at.line) + (at.column ? at.column - 1 : 0);
    }
    out += "  - DiagnosticName:  " + yamlString(diagnostic.check) + "\n";
    out += "    DiagnosticMessage:\n";
    out += "      Message:         " + yamlString(diagnostic.message) + "\n";
    out += "      FilePath:        " + yamlString(at.file) + "\n";
    out += fmt::format("      FileOffset:      {}\n", fileOffset);
    out += "      Replacements:\n";
    for (const auto& edit : diagnostic.edits) {
      out += "        - FilePath:        " + yamlString(edit.file) + "\n";
      out += fmt::format("          Offset:          {}\n", edit.offset);
      out += fmt::format("          Length:          {}\n", edit.length);
      out += "          ReplacementText: " + yamlString(edit.text) + "\n";
    }
    out += fmt::format("    Level:           {}\n",
                       diagnostic.severity == report::Severity::Error ? "Error" : "Warning");
  }
  if (!any) out = "---\nMainSourceFile:  " + yamlString(mainSourceFile) + "\nDiagnostics:     []\n";
  return out + "...\n";
}

}  // namespace fenceline::fix
