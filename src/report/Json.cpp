// The JSON renderer (see Json.h for the schema).
#include "report/Json.h"

#include "report/Frames.h"

namespace fenceline::report {

namespace {

using nlohmann::ordered_json;

ordered_json position(const model::SourceFrame& frame) {
  return ordered_json{{"file", frame.file}, {"line", frame.line}, {"column", frame.column}};
}

ordered_json callers(const Location& location) {
  ordered_json list = ordered_json::array();
  for (const auto& frame : inlinedAt(location))
    list.push_back(ordered_json{
        {"function", frame.function}, {"file", frame.file}, {"line", frame.line}, {"column", frame.column}});
  return list;
}

}  // namespace

ordered_json toJson(const Diagnostic& diagnostic) {
  ordered_json notes = ordered_json::array();
  for (const auto& note : diagnostic.notes)
    notes.push_back(ordered_json{{"message", note.message},
                                 {"location", position(primaryFrame(note.location))},
                                 {"inlined_at", callers(note.location)}});
  return ordered_json{{"check", diagnostic.check},
                      {"severity", std::string(toString(diagnostic.severity))},
                      {"message", diagnostic.message},
                      {"function", diagnostic.function},
                      {"location", position(primaryFrame(diagnostic.location))},
                      {"inlined_at", callers(diagnostic.location)},
                      {"notes", std::move(notes)},
                      {"fix", diagnostic.fix},
                      {"fingerprint", diagnostic.fingerprint}};
}

std::string renderJson(std::span<const Diagnostic> diagnostics, const RunStats& stats) {
  ordered_json list = ordered_json::array();
  for (const auto& diagnostic : diagnostics) list.push_back(toJson(diagnostic));
  ordered_json document{{"version", 1},
                        {"diagnostics", std::move(list)},
                        {"stats",
                         {{"files", stats.files},
                          {"functions", stats.functions},
                          {"instructions", stats.instructions},
                          {"seconds", stats.seconds}}}};
  // Replace invalid UTF-8 (a file name or demangled name could carry any byte)
  // rather than throwing.
  return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace fenceline::report
