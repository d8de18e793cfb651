// The JSON renderer (see Json.h for the schema).
#include "report/Json.h"

#include "report/DisplayNames.h"
#include "report/Frames.h"
#include "report/JsonDump.h"

namespace fenceline::report {

namespace {

using nlohmann::ordered_json;

ordered_json position(const model::SourceFrame& frame) {
  return ordered_json{{"file", displayFile(frame.file)}, {"line", frame.line}, {"column", frame.column}};
}

ordered_json callers(const Location& location) {
  ordered_json list = ordered_json::array();
  for (const auto& frame : inlinedAt(location))
    list.push_back(ordered_json{
        {"function", displayFunction(frame.function)}, {"file", displayFile(frame.file)}, {"line", frame.line}, {"column", frame.column}});
  return list;
}

// Library frames below the user's line, from the user's call inwards: the
// last one is where the instruction is.
ordered_json helpers(const Location& location) {
  ordered_json list = ordered_json::array();
  auto frames = helperFrames(location);
  for (size_t i = frames.size(); i-- > 0;)
    list.push_back(ordered_json{{"function", displayFunction(frames[i].function)},
                                {"file", displayFile(frames[i].file)},
                                {"line", frames[i].line},
                                {"column", frames[i].column}});
  return list;
}

// The evidence links (report/Evidence.h): kind, decided, how, detail, location.
ordered_json evidence(const Diagnostic& diagnostic) {
  ordered_json list = ordered_json::array();
  for (const EvidenceLink& link : diagnostic.evidence) {
    ordered_json entry{{"kind", std::string(toString(link.kind))}, {"decided", link.decided}, {"how", link.how}};
    if (!link.detail.empty()) entry["detail"] = link.detail;
    if (link.location) entry["location"] = position(primaryFrame(*link.location));
    list.push_back(std::move(entry));
  }
  return list;
}

}  // namespace

ordered_json notificationsJson(const RunStats& stats) {
  ordered_json list = ordered_json::array();
  for (const auto& n : stats.notifications) {
    ordered_json entry{{"level", n.level}, {"kind", n.kind}, {"message", n.message}};
    if (!n.file.empty()) entry["file"] = n.file;
    if (n.line) entry["line"] = n.line;
    if (n.column) entry["column"] = n.column;
    if (!n.function.empty()) entry["function"] = n.function;
    list.push_back(std::move(entry));
  }
  return list;
}

ordered_json toJson(const Diagnostic& diagnostic) {
  ordered_json notes = ordered_json::array();
  for (const auto& note : diagnostic.notes)
    notes.push_back(ordered_json{{"message", note.message},
                                 {"location", position(primaryFrame(note.location))},
                                 {"expanded_from", helpers(note.location)},
                                 {"inlined_at", callers(note.location)}});
  ordered_json result{{"check", diagnostic.check},
                      {"severity", std::string(toString(diagnostic.severity))},
                      {"tier", std::string(toString(diagnostic.tier()))},
                      {"message", diagnostic.message},
                      {"function", diagnostic.function},
                      {"location", position(primaryFrame(diagnostic.location))},
                      {"expanded_from", helpers(diagnostic.location)},
                      {"inlined_at", callers(diagnostic.location)},
                      {"notes", std::move(notes)},
                      {"evidence", evidence(diagnostic)},
                      {"fix", diagnostic.fix},
                      {"fingerprint", diagnostic.fingerprint}};
  if (!diagnostic.disputed.empty()) result["disputed"] = diagnostic.disputed;
  if (!diagnostic.instantiations.empty()) result["instantiations"] = diagnostic.instantiations;
  if (!diagnostic.input.empty()) result["input"] = diagnostic.input;
  if (!diagnostic.input.empty() && diagnostic.location.ptxLine)
    result["ptx"] = ordered_json{{"file", diagnostic.location.ptxFile}, {"line", diagnostic.location.ptxLine}};
  // The machine fix (report/Fix.h): the edits --fix makes, or why there are none.
  ordered_json edits = ordered_json::array();
  for (const auto& edit : diagnostic.edits)
    edits.push_back(ordered_json{{"file", edit.file},
                                 {"line", edit.line},
                                 {"column", edit.column},
                                 {"offset", edit.offset},
                                 {"length", edit.length},
                                 {"text", edit.text}});
  result["fix_edits"] = std::move(edits);
  if (!diagnostic.noEditReason.empty()) result["no_edit_reason"] = diagnostic.noEditReason;
  return result;
}

std::string renderJson(std::span<const Diagnostic> diagnostics, const RunStats& stats) {
  ordered_json document{{"version", 1},
                        {"diagnostics", ordered_json::array()},
                        {"stats",
                         {{"files", stats.files},
                          {"functions", stats.functions},
                          {"instructions", stats.instructions},
                          {"seconds", stats.seconds},
                          {"complete", stats.complete()}}},
                        {"notifications", notificationsJson(stats)}};
  // The diagnostics one at a time into the text (report/JsonDump.h).
  return documentText(document, {"diagnostics", 1, diagnostics.size(),
                                 [&](size_t i) { return toJson(diagnostics[i]); }});
}

}  // namespace fenceline::report
